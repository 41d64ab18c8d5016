// for over a header stack (P4_16 12.8: the stack taken once before the first turn, the variable a
// copy of each element) and '?:' choosing between headers and structs (8.5.1: only the chosen one
// evaluated), nested, as an in argument, with {#}, between lists and in emit.
#include <core.p4>
#include <v1model.p4>

header c_t { bit<8> count; bit<8> sel; bit<8> sum; bit<8> valid; bit<8> last; }
header s_t { bit<8> v; }
header p_t { bit<8> x; bit<8> y; }
struct pair_t { bit<8> x; bit<8> y; }
struct headers_t { c_t c; s_t[4] s; p_t a; p_t b; p_t chosen; }
struct meta_t { bit<8> left; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.c);
        meta.left = hdr.c.count;
        transition select(meta.left) { 0: rest; default: elements; }
    }
    state elements {
        pkt.extract(hdr.s.next);
        meta.left = meta.left - 1;
        transition select(meta.left) { 0: rest; default: elements; }
    }
    state rest { pkt.extract(hdr.a); pkt.extract(hdr.b); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

bit<8> sum_of(in p_t p) { return p.x + p.y; }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        bit<8> total = 0;
        bit<8> valid = 0;
        for (s_t e in hdr.s) {
            if (e.isValid()) {
                total = total + e.v;
                valid = valid + 1;
            }
            e.v = 0xee;             // the copy: no element changes
            hdr.s[3].setValid();    // after the stack was taken: no later turn sees it
            hdr.s[3].v = 0x40;
        }
        hdr.c.sum = total;
        hdr.c.valid = valid;
        hdr.c.last = sum_of(hdr.c.sel == 1 ? hdr.a : hdr.b);
        hdr.chosen = hdr.c.sel == 1 ? hdr.a : hdr.c.sel == 2 ? {#} : hdr.b;
        pair_t one = { hdr.a.x, hdr.a.y };
        pair_t two = { hdr.b.x, hdr.b.y };
        pair_t p = hdr.c.sel == 1 ? two : one;
        hdr.b.y = p.x;
        pair_t q = hdr.c.sel == 2 ? {8w1, 8w2} : {8w3, 8w4};
        hdr.a.x = hdr.a.x + q.y;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr);
        pkt.emit(hdr.c.sel == 9 ? hdr.b : hdr.a);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
