// varbit fields (P4_16 7.1.6): extract(hdr, bits) gives the field its length, emit writes it at that
// length, copying the header copies it. A length over the maximum is error.HeaderTooShort, unless the
// packet is too short for it as well (error.PacketTooShort: P4_16 12.8.2 checks that first).
#include <core.p4>
#include <v1model.p4>

header base_t { bit<4> version; bit<4> words; bit<8> proto; }
header options_t { varbit<320> options; }
header tail_t { bit<8> t; }
struct headers_t { base_t base; options_t opts; tail_t tail; options_t copy; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.base);
        pkt.extract(hdr.opts, (bit<32>) hdr.base.words * 32);
        pkt.extract(hdr.tail);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.HeaderTooShort) {
            hdr.base.proto = 0xee;
        }
        if (sm.parser_error == error.PacketTooShort) {
            hdr.base.proto = 0xdd;
        }
        hdr.tail.t = hdr.tail.t + 1;
        hdr.copy = hdr.opts;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
