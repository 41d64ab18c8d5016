// bit<0> (P4_16 7.1.6.2: no bits, only the value 0): a header field takes no bits on the wire; in a
// struct, a variable, casts to and from it, concatenation and comparison.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<0> z; bit<8> b; }
header o_t { bit<8> equal; bit<8> widened; bit<16> joined; bit<8> narrowed; bit<8> colour; bit<8> low; }
struct headers_t { h_t h; o_t o; }
struct meta_t { bit<0> none; bit<8> x; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    meter(1, MeterType.packets) m;
    apply {
        sm.egress_spec = 1;
        bit<0> v = 0;
        bit<0> w = (bit<0>) hdr.h.a;
        hdr.o.setValid();
        hdr.o.equal = v == w && hdr.h.z == 0 && meta.none == v && v + w == 0 ? 8w1 : 8w0;
        hdr.o.widened = (bit<8>) hdr.h.z + 1;
        hdr.o.joined = hdr.h.a ++ v ++ hdr.h.b;
        hdr.h.z = w;
        hdr.o.narrowed = hdr.h.b + (bit<8>) (hdr.h.z ++ 8w3);
        bit<0> colour;
        m.execute_meter(0, colour);     // a bit<0> keeps no colour
        hdr.o.colour = (bit<8>) colour;
        hdr.o.low = (hdr.h.z ++ 64w0x1122334455667788)[7:0];
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
