// varbit fields as values (P4_16 8.9): == and != compare length and bits; checksum data takes a
// varbit at its extracted length (v1model verify_checksum / update_checksum).
#include <core.p4>
#include <v1model.p4>

header base_t { bit<4> words_a; bit<4> words_b; bit<8> flags; bit<16> csum; }
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
control VC(inout headers_t hdr, inout meta_t meta) {
    apply {
        verify_checksum(hdr.base.isValid(), { hdr.base.words_a, hdr.base.words_b, hdr.base.flags, hdr.a.v },
                        hdr.base.csum, HashAlgorithm.csum16);
    }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.base.flags = 0;
        if (sm.checksum_error == 1) {
            hdr.base.flags = hdr.base.flags | 0x80;
        }
        if (hdr.a.v == hdr.b.v) {
            hdr.base.flags = hdr.base.flags | 0x01;
        }
        if (hdr.a.v != hdr.b.v) {
            hdr.base.flags = hdr.base.flags | 0x02;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(true, { hdr.base.words_a, hdr.base.words_b, hdr.base.flags, hdr.a.v },
                        hdr.base.csum, HashAlgorithm.csum16);
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
