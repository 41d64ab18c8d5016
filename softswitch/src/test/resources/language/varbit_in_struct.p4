// A varbit field in a struct (P4_16 7.2.5): it takes a header's varbit with its length, goes along
// when the struct is copied, compares with == and gives its value back to a header.
#include <core.p4>
#include <v1model.p4>

header base_t { bit<8> bytes; bit<8> same; }
header options_t { varbit<64> v; }
struct saved_t { bit<8> n; varbit<64> v; }
struct headers_t { base_t base; options_t opts; options_t copy; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.base);
        pkt.extract(hdr.opts, (bit<32>) hdr.base.bytes * 8);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        saved_t s;
        s.n = hdr.base.bytes;
        s.v = hdr.opts.v;
        saved_t t = s;
        hdr.copy.setValid();
        hdr.copy.v = t.v;
        saved_t u = { hdr.base.bytes, hdr.opts.v };   // a list gives the varbit its bits and length
        hdr.base.same = s == t && t.v == hdr.opts.v && u == s ? 8w1 : 8w0;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
