// A field of a function's struct result (P4_16 8.12), nested too: each call runs once, where it stands.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<8> c; }
struct inner_t { bit<8> x; bit<8> y; }
struct S { inner_t in1; bit<8> z; }
struct headers_t { h_t h; }
struct meta_t { bit<8> calls; }
S mk(in bit<8> v, inout bit<8> calls) { calls = calls + 1; return { { v, v + 1 }, v + 2 }; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.h.b = mk(hdr.h.a, meta.calls).in1.y + mk(hdr.h.a, meta.calls).z;
        hdr.h.c = meta.calls;
        sm.egress_spec = 1;
    } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
control N(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), N(), I(), E(), N(), D()) main;
