/* A program in p4c's style: it names the v1model version it was written for, tests the include
 * guards p4c's libraries define, and declares a DROP_PORT of its own (v1model.p4 has none). */
#define V1MODEL_VERSION 20180101
#include <core.p4>
#include <v1model.p4>
#ifndef _CORE_P4_
#error core.p4 lacks its include guard _CORE_P4_
#endif
#ifndef _V1_MODEL_P4_
#error v1model.p4 lacks its include guard _V1_MODEL_P4_
#endif
#if V1MODEL_VERSION != 20180101
#error v1model.p4 overrode the program's V1MODEL_VERSION
#endif
#include <core.p4>
#include <v1model.p4>
const bit<9> DROP_PORT = 511;
header h_t { bit<8> a; }
struct H { h_t h; }
struct M { bit<8> x; }
parser P(packet_in pkt, out H hdr, inout M meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control C(inout H hdr, inout M meta) { apply { } }
control I(inout H hdr, inout M meta, inout standard_metadata_t sm) {
    apply { if (hdr.h.a == 0) { sm.egress_spec = DROP_PORT; } }
}
control E(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), C(), I(), E(), C(), D()) main;
