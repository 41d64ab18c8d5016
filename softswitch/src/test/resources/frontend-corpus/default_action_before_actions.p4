#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; bit<16> c; }
header s_t { bit<8> v; }
struct H { h_t h; s_t[4] s; }
struct M { bit<8> x; bit<16> y; bool f; }
parser P(packet_in pkt, out H hdr, inout M meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M meta) { apply { } }
control I(inout H hdr, inout M meta, inout standard_metadata_t sm) {
    table t { default_action = NoAction(); actions = { NoAction; } }

    apply {
t.apply();
    }
}
control E(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M meta) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
