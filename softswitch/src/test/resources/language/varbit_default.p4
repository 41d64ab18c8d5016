// The default value '...' of a varbit (P4_16 7.3): empty, in a header's list, a struct's list and as
// an assignment's value.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> len; bit<8> b; }
header v_t { bit<8> len; varbit<16> opt; }
struct S { bit<8> x; varbit<16> o; }
struct H { h_t h; v_t v; v_t w; }
struct M { }
parser P(packet_in pk, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); pk.extract(hdr.v, (bit<32>) hdr.h.len * 8); transition accept; }
}
control VC(inout H hdr, inout M m) { apply { } }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    apply {
        S s = { hdr.h.b, ... };          // o: empty
        hdr.w = { 8w0x77, ... };         // valid, opt empty
        hdr.w.len = s.x;
        varbit<16> none = ...;
        s.o = none;
        if (hdr.h.b == 1) { hdr.v = { 8w0x55, ... }; }   // opt emptied
        sm.egress_spec = 2;
    }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M m) { apply { } }
control D(packet_out pk, in H hdr) { apply { pk.emit(hdr.h); pk.emit(hdr.v); pk.emit(hdr.w); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
