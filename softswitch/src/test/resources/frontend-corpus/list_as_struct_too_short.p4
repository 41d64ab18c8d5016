#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct H { h_t h; }
struct M { bit<8> x; }
struct S { bit<8> x; bit<8> y; }
parser P(packet_in pkt, out H hdr, inout M meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M meta) { apply { } }
control Add(inout bit<8> v, register<bit<8>> r) { apply { r.read(v, 0); } }
control I(inout H hdr, inout M meta, inout standard_metadata_t sm) {
    register<bit<8>>(1) one;
    register<bit<8>>(1) two;
    Add() add;
    apply {
        bit<16> r; hash<bit<16>, bit<16>, S, bit<32>>(r, HashAlgorithm.crc16, 0, {hdr.h.a}, 65536);
    }
}
control E(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M meta) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
