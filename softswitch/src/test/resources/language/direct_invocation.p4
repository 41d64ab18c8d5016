// Direct type invocation (P4_16 15.1): Bump.apply(hdr) applies a local instance of control Bump,
// named after the type and the block (its table is I.Bump.t in the ingress, E.Bump.t in the
// egress); Count, which declares nothing the control plane names, is invoked three times in one
// block, each time an instance of its own, given one register or another.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> key; bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control Bump(inout headers_t hdr) {
    action add(bit<8> by) { hdr.h.a = hdr.h.a + by; }
    table t {
        key = { hdr.h.key: exact; }
        actions = { add; }
        default_action = add(1);
    }
    apply { t.apply(); }
}
control Count(inout bit<8> v, register<bit<8>> seen) {
    apply { bit<8> n; seen.read(n, 0); n = n + 1; seen.write(0, n); v = v + n; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(1) first;
    register<bit<8>>(1) second;
    apply {
        sm.egress_spec = 1;
        Bump.apply(hdr);
        Count.apply(hdr.h.a, first);
        Count.apply(hdr.h.a, second);
        Count.apply(hdr.h.a, second);
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { Bump.apply(hdr); }
}
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
