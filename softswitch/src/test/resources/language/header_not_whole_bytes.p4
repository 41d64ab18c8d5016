// A header whose fields do not fill whole bytes takes the rest of its last byte on the wire, as on
// BMv2: extract reads those bits and emit writes them back; a header made valid by setValid has 0 there.
#include <core.p4>
#include <v1model.p4>

header flagged_t { bit<8> a; bit<1> flag; }     // 9 bits: 7 bits of padding
header tag_t { bit<3> t; }                      // 3 bits: 5 bits of padding
struct headers_t { tag_t tag; flagged_t f; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.f);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.f.a = hdr.f.a + 1;
        if (hdr.f.flag == 1) {
            hdr.tag.setValid();
            hdr.tag.t = 5;
            sm.egress_spec = 1;
        } else {
            sm.egress_spec = 2;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
