// Direct type invocation (P4_16 1.2.x): Bump.apply(hdr) applies a local instance of control Bump,
// named after the type (its table is I.Bump.t); both calls apply that one instance.
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
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        Bump.apply(hdr);
        Bump.apply(hdr);
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
