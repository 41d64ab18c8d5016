#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct H { h_t h; }
struct M { bit<8> m; }
parser P(packet_in b, out H hdr, inout M meta, inout standard_metadata_t sm) { state start { b.extract(hdr.h); transition accept; } }
control VC(inout H hdr, inout M meta) { apply { } }
control E(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out b, in H hdr) { apply { b.emit(hdr.h); } }
V1Switch(P(), VC(), VC(), E(), VC(), D()) main;
