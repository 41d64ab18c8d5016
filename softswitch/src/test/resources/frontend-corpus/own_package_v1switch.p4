#include <core.p4>
header h_t { bit<8> a; }
struct H { h_t h; }
parser P(packet_in pkt, out H hdr) { state start { transition accept; } }
control C(inout H hdr) { apply { } }
package V1Switch(P p, C c);
V1Switch(P(), C()) main;
