// Serializable enum values where their underlying type's go (P4_16 8.3): arithmetic, shifts, ++,
// unary operators; casts written (T)(e) with a typedef or enum name (8.11); an int shifted by a
// compile-time bit<S> (8.8).
#include <core.p4>
#include <v1model.p4>
enum bit<8> E { a = 3, b = 5 }
typedef bit<8> T8;
header h_t { bit<8> x; bit<8> sum; bit<8> shl; bit<16> cat; bit<8> inv; bit<8> cast; bit<8> ecast; bit<8> ishift; }
struct H { h_t h; }
struct M { }
parser P(packet_in pkt, out H hdr, inout M meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M meta) { apply { } }
control I(inout H hdr, inout M meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        E v = (E) hdr.h.x;
        hdr.h.sum = E.a + E.b + v;
        hdr.h.shl = 8w1 << v;
        hdr.h.cat = E.b ++ 8w0;
        hdr.h.inv = ~E.a;
        hdr.h.cast = (T8)(hdr.h.x + 1);
        hdr.h.ecast = (bit<8>) (E)(hdr.h.x);
        hdr.h.ishift = (bit<8>) (1 << 8w3);
    }
}
control E2(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M meta) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E2(), CC(), D()) main;
