// Functions of one name (P4_16 overloading): told apart by how many arguments a call gives, or by the
// names of its named arguments.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; }
struct headers_t { h_t h; }
struct meta_t { }

bit<8> twice(in bit<8> v) { return v + v; }
bit<8> twice(in bit<8> v, in bit<8> w) { return v + w + v + w; }
bit<8> combine(in bit<8> big, in bit<8> small) { return big - small; }
bit<8> combine(in bit<8> x, in bit<8> y) { return x ^ y; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.c = twice(hdr.h.a);
        hdr.h.d = twice(hdr.h.a, hdr.h.b);
        bit<8> b = hdr.h.b;
        hdr.h.a = combine(small = 1, big = b);
        hdr.h.b = combine(x = b, y = 1);
        sm.egress_spec = 1;
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
control N(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), N(), I(), E(), N(), D()) main;
