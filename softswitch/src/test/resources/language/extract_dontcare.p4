// extract<H>(_) (P4_16 12.8.1, '_' as an out argument): the parser reads an H and drops it, as
// extract would, errors included (a packet too short for it is error.PacketTooShort).
#include <core.p4>
#include <v1model.p4>

header skipped_t { bit<16> x; }
header b_t { bit<8> y; }
struct headers_t { b_t b; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract<skipped_t>(_);
        pkt.extract(hdr.b);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.PacketTooShort) {
            sm.egress_spec = 2;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
