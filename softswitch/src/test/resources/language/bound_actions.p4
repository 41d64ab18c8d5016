// Table actions whose directional parameters the actions list binds (P4_16 14.2.1.2); their
// directionless parameters come from the control plane (and from const entries and the default
// action, which repeat the bound arguments as the actions list writes them).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> key; bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_port(in bit<9> port, bit<8> mark) {
        sm.egress_spec = port;
        hdr.h.a = mark;
    }
    action add_to(inout bit<8> target, bit<8> amount) {
        target = target + amount;
    }
    table t {
        key = { hdr.h.key: exact; }
        actions = { set_port(2); add_to(hdr.h.b); }
        const entries = {
            1: set_port(2, 0x11);
            2: add_to(hdr.h.b, 5);
        }
        default_action = set_port(2, 0xee);
    }
    table u {
        key = { hdr.h.key: exact; }
        actions = { add_to(hdr.h.a); NoAction; }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
        u.apply();
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
