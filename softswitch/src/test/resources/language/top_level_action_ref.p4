// An actions list naming the top-level action with a leading dot (P4_16 6.9) where a control's
// own action of the same name hides it.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> v; }
struct headers_t { h_t h; }
struct meta_t { }

action mark(inout bit<8> v) { v = 1; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action mark(inout bit<8> v) { v = 2; }
    table t {
        actions = { .mark(hdr.h.v); }
        default_action = .mark(hdr.h.v);
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
control N(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), N(), I(), E(), N(), D()) main;
