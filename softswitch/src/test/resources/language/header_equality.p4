// == and != on headers and structs (P4_16 8.17, 8.12): fields compared one by one; two headers
// are equal when both are invalid, or both valid with equal fields.
#include <core.p4>
#include <v1model.p4>

header tag_t { bit<8> has_a; bit<8> has_b; bit<8> flags; }
header h_t { bit<8> x; bit<16> y; }
struct pair_t { h_t h; bit<8> k; }
struct headers_t { tag_t tag; h_t a; h_t b; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.tag);
        transition select(hdr.tag.has_a) { 0: maybe_b; default: parse_a; }
    }
    state parse_a {
        pkt.extract(hdr.a);
        transition maybe_b;
    }
    state maybe_b {
        transition select(hdr.tag.has_b) { 0: accept; default: parse_b; }
    }
    state parse_b {
        pkt.extract(hdr.b);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.tag.flags = 0;
        if (hdr.a == hdr.b) {
            hdr.tag.flags = hdr.tag.flags | 1;
        }
        if (hdr.a != hdr.b) {
            hdr.tag.flags = hdr.tag.flags | 2;
        }
        pair_t p;
        p.h = hdr.a;
        p.k = 7;
        pair_t q;
        q.h = hdr.b;
        q.k = 7;
        if (p == q) {
            hdr.tag.flags = hdr.tag.flags | 4;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
