// Constructor parameters of controls and parsers (P4_16 14.1): compile-time values given where an
// instance is declared, by position or by name, a default where none is given; constants inside.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> sel; bit<8> a; bit<8> b; }
header t_t { bit<8> v; }
struct headers_t { h_t h; t_t t; }
struct meta_t { bit<8> unused; }

parser Tail(packet_in pkt, out t_t t)(bit<8> add) {
    state start {
        pkt.extract(t);
        t.v = t.v + add;
        transition accept;
    }
}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Tail(8w0x10) tail;
    state start {
        pkt.extract(hdr.h);
        tail.apply(pkt, hdr.t);
        transition accept;
    }
}
control Mark(inout h_t h, inout standard_metadata_t sm)(bit<9> port, bit<8> tag, bool second = false) {
    action mark() {
        if (second) { h.b = tag; } else { h.a = tag; }
        sm.egress_spec = port;
    }
    table t {
        actions = { mark; }
        const default_action = mark();
    }
    apply { t.apply(); }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Mark(9w3, 8w0xa1) first;
    Mark(tag = 8w0xb2, port = 9w4, second = true) other;
    apply {
        if (hdr.h.sel == 1) { first.apply(hdr.h, sm); } else { other.apply(hdr.h, sm); }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
