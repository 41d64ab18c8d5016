// Headers with a varbit field in a stack: extract(stack.next, bits) fills the next element and
// moves nextIndex on; == compares two headers or two stacks of one type (P4_16 8.18: element by
// element), varbit fields by length and bits.
#include <core.p4>
#include <v1model.p4>

header H { bit<8> s; varbit<32> v; }
header same_t { bit<8> same; }
struct headers_t { H h; H[2] a; same_t same; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h, 16);
        pkt.extract(hdr.a.next, 16);
        pkt.extract(hdr.a.next, 16);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.same.setValid();
        hdr.same.same = 0;
        if (hdr.h == hdr.a[0]) {
            hdr.same.same = hdr.same.same | 1;
        }
        H[2] tmp;
        tmp[0] = hdr.h;
        tmp[1] = hdr.a[0];
        if (tmp == hdr.a) {
            hdr.same.same = hdr.same.same | 2;
        }
        if (hdr.a[0] != hdr.a[1]) {
            hdr.same.same = hdr.same.same | 4;
        }
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
