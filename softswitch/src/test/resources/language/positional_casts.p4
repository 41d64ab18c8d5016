// A list cast to a struct or header type (P4_16 8.11.1, 8.12): the values of its fields in order,
// assigned, compared with a header and read by field.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct S2 { bit<8> x; bit<8> y; }
struct H { h_t h; h_t g; } struct M { S2 s; }
parser P(packet_in b, out H h, inout M m, inout standard_metadata_t sm) { state start { b.extract(h.h); transition accept; } }
control V(inout H h, inout M m) { apply { } }
control I(inout H h, inout M m, inout standard_metadata_t sm) {
  apply {
    m.s = (S2){ 3, 4 };
    h.g = (h_t){ m.s.y, ((S2){5, 6}).x };
    if (h.h == (h_t){ 1, 2 }) { h.h.a = 9; }
    sm.egress_spec = 1;
  }
}
control E(inout H h, inout M m, inout standard_metadata_t sm) { apply { } }
control C(inout H h, inout M m) { apply { } }
control D(packet_out b, in H h) { apply { b.emit(h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
