// header_union (P4_16 8.20): at most one member valid. setValid, extract and assignment of a valid
// header to a member make the other members invalid; setInvalid of any member, or assignment of an
// invalid header to one, makes the whole union invalid; u.isValid() is whether any member is; emit
// writes the valid member.
#include <core.p4>
#include <v1model.p4>

header tag_t { bit<8> version; }
header v4_t { bit<8> ttl; }
header v6_t { bit<16> hop; }
header_union ip_t { v4_t v4; v6_t v6; }
struct headers_t { tag_t tag; ip_t ip; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.tag);
        transition select(hdr.tag.version) {
            4: parse_v4;
            6: parse_v6;
            default: accept;
        }
    }
    state parse_v4 { pkt.extract(hdr.ip.v4); transition accept; }
    state parse_v6 { pkt.extract(hdr.ip.v6); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (!hdr.ip.isValid()) {
            hdr.tag.version = 0xff;
        } else if (hdr.ip.v4.isValid() && hdr.ip.v4.ttl == 0) {
            hdr.ip.v6.setValid();           // v4 becomes invalid
            hdr.ip.v6.hop = 0x0606;
            hdr.tag.version = 6;
        } else if (hdr.ip.v6.isValid() && hdr.ip.v6.hop == 0) {
            v4_t replacement = { ttl = 0x44 };
            hdr.ip.v4 = replacement;        // a valid header: v6 becomes invalid
            hdr.tag.version = 4;
        } else if (hdr.ip.v4.isValid() && hdr.ip.v4.ttl == 1) {
            hdr.ip.v6.setInvalid();         // another member: the valid v4 becomes invalid too
            hdr.tag.version = 0x41;
        } else if (hdr.ip.v6.isValid() && hdr.ip.v6.hop == 1) {
            v4_t absent;                    // never made valid
            hdr.ip.v4 = absent;             // an invalid header: v6 becomes invalid
            hdr.tag.version = 0x61;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
