// typedef of an extern type with its type arguments (P4_16 7.5): instantiated, and taken as a control's
// constructor parameter, by the new name.
#include <core.p4>
#include <v1model.p4>
typedef register<bit<8>> Reg8;
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { bit<8> u; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control Keep(inout bit<8> v)(Reg8 r) { apply { bit<8> x; r.read(x, 0); r.write(0, v); v = x; } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Reg8(2) last;
    Keep(last) k;
    apply { sm.egress_spec = 1; k.apply(hdr.h.a); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
