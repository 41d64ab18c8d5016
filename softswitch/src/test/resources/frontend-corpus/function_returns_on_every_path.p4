#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> f; }
struct H { h_t h; }
struct M { bit<8> m; }
parser P(packet_in b, out H hdr, inout M meta, inout standard_metadata_t sm) { state start { b.extract(hdr.h); transition accept; } }
bit<8> pick(in bit<8> a) {
    if (a == 0) {
        return 1;
    } else if (a == 1) {
        return 2;
    } else {
        if (a == 2) {
            return 3;
        }
        return 4;
    }
}
bit<8> first(in bit<8> a) {
    { return a; }
}
control CC(inout H hdr, inout M meta) { apply { } }
control I(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { meta.m = pick(hdr.h.f) + first(meta.m); } }
control D(packet_out b, in H hdr) { apply { b.emit(hdr.h); } }
V1Switch(P(), CC(), I(), I(), CC(), D()) main;
