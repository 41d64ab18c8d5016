// largest_priority_wins = false (P4_16 14.2.1.4): the smaller priority wins; entries without one
// take their predecessor's plus priority_delta, or, none stated, 1, 1 + delta, ... from the first.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> k; bit<8> stated; bit<8> numbered; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action stated(bit<8> v) { hdr.h.stated = v; }
    action numbered(bit<8> v) { hdr.h.numbered = v; }
    table with_priorities {
        key = { hdr.h.k: ternary; }
        actions = { stated; NoAction; }
        default_action = NoAction();
        largest_priority_wins = false;
        priority_delta = 10;
        entries = {
            priority = 30: 0x10 &&& 0xF0 : stated(3);   // 30
                           0x12 &&& 0xFF : stated(4);   // 40: 0x12 takes 3
            priority = 5:  0x20 &&& 0xF0 : stated(1);   // 5
                           0x21 &&& 0xFF : stated(2);   // 15: 0x21 takes 1
                           0x33 &&& 0xFF : stated(6);   // 25
            priority = 26: 0x30 &&& 0xF0 : stated(7);   // 26: 0x33 takes 6, 0x34 7
        }
    }
    table in_order {
        key = { hdr.h.k: ternary; }
        actions = { numbered; NoAction; }
        default_action = NoAction();
        largest_priority_wins = false;
        entries = {
            0x40 &&& 0xF0 : numbered(1);   // 1
            0x41 &&& 0xFF : numbered(2);   // 2: 0x41 takes 1
            0x50 &&& 0xFF : numbered(5);
        }
    }
    apply {
        sm.egress_spec = 1;
        with_priorities.apply();
        in_order.apply();
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
