// expect: 31:16: 'o' is not a Step: its apply takes other parameters
// A control's constructor parameter of a control type (P4_16 14.1): it takes an instance declared
// before it, by position or by name, and applies it; two controls given one instance share it,
// its tables included.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<16> x; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

control Step(inout bit<16> x);

control Bump(inout bit<16> x) {
    action add(bit<16> n) { x = x + n; }
    table t { actions = { add; } default_action = add(1); }
    apply { t.apply(); }
}
control Twice(inout bit<16> x)(Step s) { apply { x = x << 1; s.apply(x); } }
control Other(in bit<8> y) { apply { } }
control Thrice(inout bit<16> x)(Step s) { apply { x = x << 3; s.apply(x); } }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Bump() b;
    Twice(b) two;
    Other() o;
    Thrice(s = o) three;
    apply {
        two.apply(hdr.h.x);
        three.apply(hdr.h.x);
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
