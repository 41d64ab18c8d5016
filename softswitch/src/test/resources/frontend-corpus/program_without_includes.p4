header h_t { bit<8> a; }
struct H { h_t h; }
parser P(packet_in pkt, out H hdr) { state start { transition accept; } }
package Pkg(P p);
Pkg(P()) main;
