// main's blocks by name, in any order: V1Switch(p = ..., ig = ..., ...) binds each to the package
// parameter of that name.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 2; hdr.h.a = hdr.h.a + 1; }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { hdr.h.a = hdr.h.a << 1; } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(dep = D(), eg = E(), ck = CC(), p = P(), ig = I(), vr = VC()) main;
