// P4_16 12.8.3: a lookahead with too few bits left in the packet rejects with PacketTooShort at once,
// as an extract does: a header's lookahead alone as a statement; one in an initialiser, before the
// state's next statement; one in a select, before any case is taken.
#include <core.p4>
#include <v1model.p4>

header sel_t { bit<8> k; }
header eight_t { bit<64> v; }
struct headers_t { sel_t sel; }
struct meta_t { bit<8> marked; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.sel);
        transition select(hdr.sel.k) { 1: peek_header; 2: peek_in_select; default: peek_then_mark; }
    }
    state peek_header {
        pkt.lookahead<eight_t>();
        transition accept;
    }
    state peek_in_select {
        transition select(pkt.lookahead<bit<32>>()) { default: marked; }
    }
    state peek_then_mark {
        bit<32> v = pkt.lookahead<bit<32>>();
        meta.marked = 1;
        transition accept;
    }
    state marked {
        meta.marked = 1;
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (meta.marked == 1) {
            sm.egress_spec = 3;
        } else if (sm.parser_error == error.PacketTooShort) {
            sm.egress_spec = 2;
        } else {
            sm.egress_spec = 1;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
