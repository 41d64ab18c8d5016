// Generic functions (P4_16 10): compiled for each binding of their type parameters, inferred from
// the arguments or given at the call.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<16> c; }
struct pair_t { bit<8> x; bit<8> y; }
struct headers_t { h_t h; }
struct meta_t { }

T larger<T>(in T a, in T b) { return a > b ? a : b; }
void swap<T>(inout T a, inout T b) { T t = a; a = b; b = t; }
T same<T>(in T v) { return v; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        swap(hdr.h.a, hdr.h.b);                             // T = bit<8>
        hdr.h.c = larger(hdr.h.c, 16w0x0100);               // T = bit<16>
        pair_t p = same<pair_t>({ x = hdr.h.a, y = 7 });    // T given: a struct
        hdr.h.a = larger<bit<8>>(p.y, 3);
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
