// Registers of int<W>: P4Info types them int (as p4c does) and P4Runtime reads and writes their
// cells as two's complement numbers, sign-extended to whole bytes (P4Runtime 8.4).
#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct H { h_t h; }
struct M { int<8> last; }
parser P(packet_in pkt, out H hdr, inout M meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M meta) { apply { } }
control I(inout H hdr, inout M meta, inout standard_metadata_t sm) {
    register<int<8>>(4) small;
    register<int<16>>(4) wide;
    apply {
        sm.egress_spec = 1;
        small.read(meta.last, 0);
        wide.write(1, (int<16>) ((int<8>) hdr.h.a));   // sign-extended
        hdr.h.a = (bit<8>) meta.last;
    }
}
control E(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M meta) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
