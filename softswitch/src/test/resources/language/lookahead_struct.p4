// lookahead<T>() with T a struct of bit<W> fields: the fields at the cursor, which does not move;
// a lookahead whose value nothing uses is a statement that only reads.
#include <core.p4>
#include <v1model.p4>

struct peek_t { bit<4> version; bit<4> flags; bit<8> kind; }
header h_t { bit<8> a; bit<8> kind; }
header seen_t { bit<8> seen; }
struct headers_t { seen_t first; h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.lookahead<h_t>();
        pkt.lookahead<peek_t>();
        peek_t p = pkt.lookahead<peek_t>();
        hdr.first.setValid();
        hdr.first.seen = p.flags ++ p.version;   // the nibbles swapped
        transition select(p.kind) { 0x77: parse_h; default: accept; }
    }
    state parse_h {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = hdr.h.isValid() ? 9w1 : 9w2; }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
