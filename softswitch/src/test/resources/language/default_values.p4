// Default values, '...' (P4_16 8.26, 7.3), and the invalid header {#} (8.17, 8.20).
#include <core.p4>
#include <v1model.p4>

enum bit<8> Kind { ONE = 1, TWO = 2 }
enum Colour { RED, GREEN, BLUE }
header h_t { bit<8> a; bit<8> b; bit<16> c; }
header o_t { bit<8> k; bit<8> colour; bit<8> err; bit<8> flag; bit<8> i; bit<8> t0; bit<8> t1; bit<8> cmp; bit<8> arg; }
header_union u_t { h_t h; o_t o; }
struct s_t { Kind k; Colour colour; error e; bool flag; int<8> i; h_t h; }
struct headers_t { h_t in_h; h_t made; h_t gone; u_t u; o_t res; }
struct meta_t { s_t s; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.in_h); pkt.extract(hdr.gone); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

bit<8> valid_of(in h_t h) { return h.isValid() ? 8w1 : 8w0; }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        meta.s = { k = Kind.TWO, colour = Colour.BLUE, e = error.NoMatch, flag = true, i = -1, h = hdr.in_h };
        meta.s = ...;                               // every field back to its default
        tuple<bit<8>, bool> t = { 7, ... };         // { 7, false }
        hdr.made = { b = hdr.in_h.a, ... };         // valid, the other fields 0
        hdr.gone = {#};                             // invalid: not emitted
        h_t never = ...;                            // a header's default is invalid
        hdr.u.h = hdr.in_h;
        hdr.u = {#};                                // every member invalid
        hdr.res = { ... };                          // valid, all 0
        hdr.res.k = (bit<8>) meta.s.k;              // 0, though no member of Kind is 0
        hdr.res.colour = meta.s.colour == Colour.RED ? 8w1 : 8w0;
        hdr.res.err = meta.s.e == error.NoError ? 8w1 : 8w0;
        hdr.res.flag = meta.s.flag ? 8w1 : 8w0;
        hdr.res.i = (bit<8>) meta.s.i;
        hdr.res.t0 = t[0];
        hdr.res.t1 = t[1] ? 8w1 : 8w0;
        hdr.res.cmp = (never == {#} ? 8w0x01 : 8w0) | (hdr.gone == (h_t){#} ? 8w0x02 : 8w0)
                | (hdr.in_h != {#} ? 8w0x04 : 8w0) | ({#} == meta.s.h ? 8w0x08 : 8w0) | (hdr.u == {#} ? 8w0x10 : 8w0);
        hdr.res.arg = valid_of({#}) | (valid_of({ a = 1, ... }) << 1);
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
