// Constants of struct and header types (P4_16 8.12, 8.13): from a list, from a structure-valued
// expression and from a cast one; their fields read, compared with a struct or header, passed and
// assigned whole.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
header pair_h { bit<8> x; bit<8> y; }
struct inner_t { bit<8> x; bit<8> y; }
struct outer_t { bit<8> a; inner_t inn; }
struct headers_t { h_t h; pair_h p; }
struct meta_t { }

const inner_t ONE_TWO = { 1, 2 };
const outer_t NESTED = { a = 7, inn = { x = 8, y = 9 } };
const inner_t CAST = (inner_t) { y = 4, x = 3 };
const pair_h PAIR = { 0x11, 0x22 };

bit<8> sum(in inner_t v) { return v.x + v.y; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        const inner_t LOCAL = { x = 5, y = 6 };
        inner_t seen = { hdr.h.a, hdr.h.b };
        inner_t copy = NESTED.inn;
        // c: which constant the first two bytes equal, as a number
        if (seen == ONE_TWO) {
            hdr.h.c = 1;
        } else if (seen == CAST) {
            hdr.h.c = 2;
        } else if (seen != (inner_t) { x = 5, y = 6 }) {
            hdr.h.c = 3;
        } else {
            hdr.h.c = LOCAL.y;
        }
        hdr.h.d = NESTED.inn.y + copy.x + sum(CAST) + ((inner_t) { x = 0x10, y = 0x20 }).y;
        if (hdr.h.a == 0x11) {
            hdr.p = PAIR;
        }
        sm.egress_spec = hdr.p == PAIR ? 9w2 : 9w1;
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
control N(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), N(), I(), E(), N(), D()) main;
