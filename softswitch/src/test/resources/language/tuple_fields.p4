// Tuples as struct fields (P4_16 7.2.8), the empty tuple among them: assigned from a list, copied
// with their struct, read by index and compared.
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct pair_t { tuple<bit<8>, bool> t; tuple<> nothing; }
struct headers_t { h_t h; }
struct meta_t { pair_t p; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        meta.p.t = { hdr.h.a + 1, hdr.h.b == 0 };
        pair_t copy = meta.p;
        hdr.h.a = copy.t[0];
        hdr.h.b = copy.t[1] ? 8w7 : 8w9;
        sm.egress_spec = copy.t == meta.p.t ? 9w1 : 9w2;
    } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
control N(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
V1Switch(P(), N(), I(), E(), N(), D()) main;
