// Struct fields of a header given values: a positional list with a nested list for the struct, a list to the
// struct alone, a nested field written; hash data of a header with a struct field covers the struct's bits in place.
#include <core.p4>
#include <v1model.p4>
struct pair_t { bit<4> a; bit<4> b; }
header h_t { bit<8> x; pair_t p; }
struct headers_t { h_t h; h_t g; }
struct meta_t { bit<16> sum; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.g = { 0x11, { 2, 3 } };
        hdr.h.p = { 0xa, hdr.h.p.a };
        hdr.g.p.b = hdr.g.p.b |+| 4w15;
        hash(meta.sum, HashAlgorithm.csum16, 16w0, { hdr.h }, 17w65536); hdr.h.x = meta.sum[7:0];
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
