// Parser value sets (P4_16 12.11): select cases whose values the control plane writes as
// P4Runtime ValueSetEntry members. tagged_types holds EtherTypes (one exact field); pairs holds
// (a, b) with b matched ternary (@match(ternary) on the struct field).
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<16> type; }
header tag_t { bit<8> v; }
header pair_t { bit<8> a; bit<8> b; }
struct pair_key_t { bit<8> a; @match(ternary) bit<8> b; }
struct headers_t { eth_t eth; tag_t tag; pair_t pair; }
struct meta_t { bit<1> marked; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    value_set<bit<16>>(4) tagged_types;
    value_set<pair_key_t>(2) pairs;
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            tagged_types: parse_tag;
            0x0800: parse_pair;
            default: accept;
        }
    }
    state parse_tag { pkt.extract(hdr.tag); transition accept; }
    state parse_pair {
        pkt.extract(hdr.pair);
        transition select(hdr.pair.a, hdr.pair.b) {
            pairs: mark;
            default: accept;
        }
    }
    state mark { meta.marked = 1; transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.tag.isValid()) {
            hdr.tag.v = hdr.tag.v + 1;
        }
        if (meta.marked == 1) {
            hdr.pair.a = 0xee;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
