#include <core.p4>
header h_t { bit<8> a; }
struct H { h_t h; }
struct M { bit<8> x; }
parser P(packet_in pkt, out H hdr, inout M meta, inout M sm) { state start { transition accept; } }
control C(inout H hdr, inout M meta) { apply { } }
package V1Switch(P p, C c1, C c2, C c3, C c4, C c5);
V1Switch(P(), C(), C(), C(), C(), C()) main;
