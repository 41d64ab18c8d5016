// Sub-parsers: an instance declared in the parser (ParseA() pa; pa.apply(...)) and a parser type
// applied directly (ParseB.apply(...)). A sub-parser's reject rejects its caller, with its error;
// what it extracted before is copied out all the same.
#include <core.p4>
#include <v1model.p4>

header outer_t { bit<8> kind; }
header a_t { bit<8> v; }
header b_t { bit<16> w; }
struct headers_t { outer_t o; a_t a; b_t b; }
struct meta_t { bit<8> unused; }

parser ParseA(packet_in pkt, out a_t a) {
    state start {
        pkt.extract(a);
        transition select(a.v) {
            0 .. 0xfe: accept;
        }
    }
}
parser ParseB(packet_in pkt, inout headers_t hdr) {
    state start { pkt.extract(hdr.b); transition accept; }
}
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    ParseA() pa;
    state start {
        pkt.extract(hdr.o);
        transition select(hdr.o.kind) {
            1: via_instance;
            2: via_type;
            default: accept;
        }
    }
    state via_instance { pa.apply(pkt, hdr.a); transition accept; }
    state via_type { ParseB.apply(pkt, hdr); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.NoMatch) {
            hdr.o.kind = 0xee;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
