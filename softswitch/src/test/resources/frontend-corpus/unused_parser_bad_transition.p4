#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct H { h_t h; }
struct M { bit<8> m; }
parser P(packet_in b, out H hdr, inout M meta, inout standard_metadata_t sm) { state start { b.extract(hdr.h); transition accept; } }
parser Unused(packet_in b, out H hdr) { state start { transition nowhere; } }
control CC(inout H hdr, inout M meta) { apply { } }
control I(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { sm.egress_spec = 1; } }
control D(packet_out b, in H hdr) { apply { b.emit(hdr.h); } }
V1Switch(P(), CC(), I(), I(), CC(), D()) main;
