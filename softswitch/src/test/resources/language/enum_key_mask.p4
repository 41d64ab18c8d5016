// A ternary key of serializable enum type: a const entry's value and mask may be bits of the enum's
// underlying type (a mask is not a member), or members.
#include <core.p4>
#include <v1model.p4>

enum bit<16> Kind { A = 0x0a01, B = 0x0b02 }
header h_t { Kind kind; bit<8> res; }
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
    action set(bit<8> v) { hdr.h.res = v; }
    table t {
        key = { hdr.h.kind : ternary; }
        actions = { set; }
        const entries = {
            Kind.A : set(1);                              // a member, all bits
            ((bit<16>) Kind.B) &&& 0xff00 : set(2);       // bits and a mask: 0x0bXX
        }
        const default_action = set(0xee);
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
