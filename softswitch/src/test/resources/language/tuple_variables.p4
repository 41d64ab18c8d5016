// Tuple variables (P4_16 7.2.8, 8.11): initialised from a list (its elements evaluated in order,
// side effects included), copied with =, compared with ==, elements read with a constant index,
// given to hash() as its data.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<16> c; bit<16> d; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

bit<8> bump(inout bit<8> x) {
    x = x + 1;
    return 8w0x20;
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    tuple<bit<8>, bit<16>> t = { hdr.h.a, hdr.h.c };
    tuple<bit<8>, bit<16>> u;
    apply {
        u = t;
        tuple<bit<8>, bit<8>> side = { hdr.h.b, bump(hdr.h.b) };   // b read, then bumped
        hdr.h.a = u[0] + side[1];
        hdr.h.c = u[1] + (u == t ? 16w0x100 : 16w0x200);
        hash(hdr.h.d, HashAlgorithm.identity, 16w0, t, 16w0xffff);   // 0x010003 % 0xffff
        sm.egress_spec = side[0] == 5 ? 9w1 : 9w2;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
