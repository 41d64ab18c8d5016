// A stack of header unions (P4_16 8.20): extract into a member of u.next (the element's other
// members become invalid), members of constant elements read and written, an element's validity
// as its members', the whole stack emitted, each element as its valid member.
#include <core.p4>
#include <v1model.p4>

header sel_t { bit<8> kinds; }     // bit i set: element i is a wide one, else a narrow one
header narrow_t { bit<8> v; }
header wide_t { bit<16> v; }
header_union U { narrow_t narrow; wide_t wide; }
struct headers_t { sel_t sel; U[2] u; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.sel);
        hdr.u[0].narrow.setValid();        // an extract into the element's other member invalidates it
        hdr.u[0].narrow.v = 0x55;
        transition select(hdr.sel.kinds[0:0]) { 1: wide0; default: narrow0; }
    }
    state narrow0 { pkt.extract(hdr.u.next.narrow); transition second; }
    state wide0 { pkt.extract(hdr.u.next.wide); transition second; }
    state second { transition select(hdr.sel.kinds[1:1]) { 1: wide1; default: narrow1; } }
    state narrow1 { pkt.extract(hdr.u.next.narrow); transition accept; }
    state wide1 { pkt.extract(hdr.u.next.wide); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.u[0].wide.isValid()) {
            hdr.u[0].wide.v = hdr.u[0].wide.v + 1;
        }
        if (hdr.u[1].narrow.isValid()) {
            hdr.u[1].narrow.v = 0xaa;
        }
        sm.egress_spec = hdr.u[1].wide.isValid() ? 9w2 : 9w1;
        if (!hdr.u[1].isValid()) {
            mark_to_drop(sm);
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
