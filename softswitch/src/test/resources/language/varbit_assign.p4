// varbit variables and '=' between varbit values of one type: the bits and the length go
// together, so a header emits what it was given at that length.
#include <core.p4>
#include <v1model.p4>

header base_t { bit<4> words_a; bit<4> words_b; }
header opt_t { varbit<64> v; }
struct headers_t { base_t base; opt_t a; opt_t b; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.base);
        pkt.extract(hdr.a, (bit<32>) hdr.base.words_a * 32);
        pkt.extract(hdr.b, (bit<32>) hdr.base.words_b * 32);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    varbit<64> kept;
    apply {
        sm.egress_spec = 1;
        kept = hdr.a.v;          // swap a's and b's options
        hdr.a.v = hdr.b.v;
        hdr.b.v = kept;
        varbit<64> unused_one;   // never assigned: no bits
        if (unused_one == hdr.a.v) {
            hdr.base.words_a = 0xf;   // only when a now holds no bits
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
