// Options parsed into a stack of header unions, one of whose members has a varbit body: each
// extract into next's member, one- or two-argument, fills the element at nextIndex and moves it on.
#include <core.p4>
#include <v1model.p4>

header fixed_h { bit<8> kind; }
header sized_h { bit<8> kind; bit<8> len; varbit<32> body; }
header_union option_u { fixed_h fixed; sized_h sized; }
struct headers_t { option_u[3] options; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        transition select(pkt.lookahead<bit<8>>()) {
            0x00: fixed;
            0xff: accept;
            default: sized;
        }
    }
    state fixed {
        pkt.extract(hdr.options.next.fixed);
        transition start;
    }
    state sized {
        bit<8> len = pkt.lookahead<bit<16>>()[7:0];
        pkt.extract(hdr.options.next.sized, (bit<32>) (len - 2) * 8);
        transition start;
    }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        // the port tells how many elements the parser filled
        sm.egress_spec = hdr.options[2].isValid() ? 9w3 : hdr.options[1].isValid() ? 9w2 : 9w1;
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.options); } }
control N(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

V1Switch(P(), N(), I(), E(), N(), D()) main;
