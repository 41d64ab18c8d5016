// Header stack expressions (P4_16 8.18): a stack assigned from a list of its elements' values, a
// header, {#} or a list of a header's fields, with or without a cast; each element valid or not
// as its value is, the whole list read before the stack changes.
#include <core.p4>
#include <v1model.p4>

header tag_h { bit<8> v; }
struct headers_t { tag_h first; tag_h[3] tags; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.first); pkt.extract(hdr.tags.next); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.first.v == 1) {
            hdr.tags = { { 0x11 }, {#}, hdr.first };
        } else {
            // the old element 0 goes to 2 and back to 0 at once: the list is read first
            hdr.tags = (tag_h[3]) { hdr.tags[2], { 0x22 }, hdr.tags[0] };
        }
        sm.egress_spec = 1;
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
control N(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), N(), I(), E(), N(), D()) main;
