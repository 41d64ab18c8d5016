#include <core.p4>
#include <v1model.p4>
header in_t { bit<8> a; }
struct H { in_t i; }
struct M { }
parser P(packet_in pk, out H h, inout M m, inout standard_metadata_t sm) { state start { pk.extract(h.i); transition accept; } }
control VC(inout H h, inout M m) { apply { } }
control Ig(inout H h, inout M m, inout standard_metadata_t sm) {
    action a() { }
    table t { key = { h.i.a : exact; } actions = { a; } }
    apply { sm.egress_spec = 1; h.i.a = (bit<8>) t.apply().action_run; }
}
control Eg(inout H h, inout M m, inout standard_metadata_t sm) { apply { } }
control CC(inout H h, inout M m) { apply { } }
control D(packet_out pk, in H h) { apply { pk.emit(h.i); } }
V1Switch(P(), VC(), Ig(), Eg(), CC(), D()) main;
