// A select range over an int<W> key (P4_16 12.8.1, 8.6): its bounds and the key compare as the
// signed numbers they are, -5 .. 5 taking -3 and 4 but not 100 or -100.
#include <core.p4>
#include <v1model.p4>

header h_t { int<8> v; bit<8> near; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.v) { -5 .. 5: near; default: accept; }
    }
    state near { hdr.h.near = 1; transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
