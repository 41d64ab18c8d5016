// Explicit type arguments on packet methods (P4_16 1.2.x): lookahead<bit<16>>() as an expression,
// extract<h_t>(...) and emit<h_t>(...) as statements.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<16> tag; bit<8> value; }
header seen_t { bit<16> peeked; }
struct headers_t { seen_t seen; h_t h; }
struct meta_t { bit<16> peeked; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        meta.peeked = pkt.lookahead<bit<16>>();
        pkt.extract<h_t>(hdr.h);
        transition select(pkt.lookahead<bit<8>>()) {
            0xff: marked;
            default: accept;
        }
    }
    state marked {
        meta.peeked = 0xffff;
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.seen.setValid();
        hdr.seen.peeked = meta.peeked;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit<seen_t>(hdr.seen);
        pkt.emit<h_t>(hdr.h);
    }
}
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
