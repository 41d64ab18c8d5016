// Structure-valued expressions { f = e, ... } (P4_16 1.2.2) and static_assert (1.2.3).
#include <core.p4>
#include <v1model.p4>

const bool v1model_is_recent = static_assert(V1MODEL_VERSION >= 20180101, "needs v1model 20180101 or later");

header h_t { bit<8> a; bit<8> b; bit<16> c; }
struct pair_t { bit<8> x; bit<8> y; }
struct nested_t { pair_t p; bit<8> z; }
struct headers_t { h_t in_h; h_t out_h; }
struct meta_t { nested_t n; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.in_h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        static_assert(v1model_is_recent);
        sm.egress_spec = 1;
        // written in another order than declared: each value goes to its named field
        pair_t p = { y = hdr.in_h.a, x = hdr.in_h.b + 1 };
        meta.n = { z = 0x5a, p = { x = p.y, y = p.x } };
        // a header given a value becomes valid
        hdr.out_h = { c = 0x1234, b = meta.n.p.y, a = meta.n.z };
        // the right side is evaluated before the assignment: this swaps a and b
        hdr.in_h = { a = hdr.in_h.b, b = hdr.in_h.a, c = hdr.in_h.c };
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
