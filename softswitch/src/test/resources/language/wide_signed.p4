// int<W> wider than 64 bits (P4_16 7.1.6.3: two's complement, any width): signed comparison,
// arithmetic shift right, saturating addition, sign extension by a cast; a shift by a wide amount.
#include <core.p4>
#include <v1model.p4>

header h_t {
    int<72> a; int<72> b; bit<8> less; bit<8> sign; int<72> sum; int<72> saturated; int<72> extended; bit<8> shifted;
}
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.less = hdr.h.a < hdr.h.b && hdr.h.a > -5 ? 8w1 : 8w0;
        hdr.h.sign = ((bit<72>) (hdr.h.a >> 100))[71:64];
        hdr.h.sum = hdr.h.a + hdr.h.b;
        hdr.h.saturated = hdr.h.b |+| 72s0x7fffffffffffffffff;
        int<8> n = -3;
        hdr.h.extended = (int<72>) n;
        bit<72> far = 72w1 << 64;       // a shift amount wider than 64 bits is not cut to them
        hdr.h.shifted = 8w0x80 >> far;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
