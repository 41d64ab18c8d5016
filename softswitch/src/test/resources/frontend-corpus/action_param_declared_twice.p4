#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct H { h_t h; }
struct M { bit<8> m; }
parser P(packet_in b, out H hdr, inout M meta, inout standard_metadata_t sm) { state start { b.extract(hdr.h); transition accept; } }
control CC(inout H hdr, inout M meta) { apply { } }
control I(inout H hdr, inout M meta, inout standard_metadata_t sm) {
    action a(bit<8> x, bit<8> x) { meta.m = x; }
    table t { key = { hdr.h.f: exact; } actions = { a; } }
    apply { t.apply(); }
}
control D(packet_out b, in H hdr) { apply { b.emit(hdr.h); } }
V1Switch(P(), CC(), I(), I(), CC(), D()) main;
