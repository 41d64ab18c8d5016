#include <core.p4>
#include <v1model.p4>
type bit<8> Count;
bit<8> f(in bit<8> a) { return a; }
bit<8> f(in bit<8> a) { return a + 1; }
header h_t { bit<8> a; bit<8> b; bit<16> c; }
struct H { h_t h; }
struct M { Count n; }
parser P(packet_in pkt, out H hdr, inout M meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M meta) { apply { } }
control I(inout H hdr, inout M meta, inout standard_metadata_t sm) {
    apply {  }
}
control E(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M meta) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
