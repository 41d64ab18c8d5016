// A list given where an extern's type argument names a struct (P4_16 8.13): hash<..., S, ...>
// with {a, 3} hashes what a variable of S holding a and 3 does (3 a bit<8>, as S says).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<16> by_list; bit<16> by_struct; }
struct S { bit<8> x; bit<8> y; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hash<bit<16>, bit<16>, S, bit<32>>(hdr.h.by_list, HashAlgorithm.crc16, 0, {hdr.h.a, 3}, 65536);
        S s = {hdr.h.a, 3};
        hash(hdr.h.by_struct, HashAlgorithm.crc16, 16w0, s, 32w65536);
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
