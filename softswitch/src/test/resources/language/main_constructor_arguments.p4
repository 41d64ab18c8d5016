// Constructor arguments given in main's package (P4_16 17.2): a compile-time value to the parser
// and to a control, and a top-level extern instance to the control.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

register<bit<8>>(1) last;

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm)(bit<8> step) {
    state start { pkt.extract(hdr.h); hdr.h.b = hdr.h.b + step; transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm)(bit<8> add, register<bit<8>> kept) {
    apply {
        sm.egress_spec = 1;
        bit<8> before;
        kept.read(before, 0);
        hdr.h.a = hdr.h.a + add + before;
        kept.write(0, hdr.h.a);
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(8w1), VC(), I(8w10, last), E(), CC(), D()) main;
