// Header union members with struct fields: a member assigned from the other's struct field becomes the valid one.
#include <core.p4>
#include <v1model.p4>
struct pair_t { bit<4> a; bit<4> b; }
header x_t { pair_t p; }
header y_t { bit<8> v; pair_t q; }
header_union u_t { x_t x; y_t y; }
header tag_t { bit<8> t; }
struct headers_t { tag_t tag; u_t u; }
struct meta_t { bit<8> x; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.tag); transition select(hdr.tag.t) { 1: px; default: py; } }
    state px { pkt.extract(hdr.u.x); transition accept; }
    state py { pkt.extract(hdr.u.y); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.u.x.isValid()) { hdr.u.y = { 0xee, hdr.u.x.p }; } else { hdr.u.y.q.a = 0xf; }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
