// A register of 128-bit cells (an IPv6 address): each packet leaves with the address the one before it
// carried, and the register keeps its own.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<128> addr; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<128>>(4) last;
    apply {
        bit<128> previous;
        last.read(previous, 2);
        last.write(2, hdr.h.addr);
        hdr.h.addr = previous;
        sm.egress_spec = 1;
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
control N(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), N(), I(), E(), N(), D()) main;
