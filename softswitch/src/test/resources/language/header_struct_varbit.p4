// A header with a struct field before its varbit field: the struct's bits come first on the wire,
// the varbit takes the length extract gives it (here the second byte, in bytes).
#include <core.p4>
#include <v1model.p4>
struct pair_t { bit<4> a; bit<4> b; }
header opt_t { pair_t p; bit<8> len; varbit<32> data; bit<8> tail; }
struct headers_t { opt_t o; }
struct meta_t { bit<8> x; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.o, (bit<32>) pkt.lookahead<bit<16>>()[7:0] * 8); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; hdr.o.p = { hdr.o.p.b, hdr.o.p.a }; hdr.o.tail = hdr.o.tail + 1; }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
