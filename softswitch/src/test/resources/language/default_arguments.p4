// Parameters with default values (P4_16 6.8): an in parameter's argument may be left out, by
// position or by naming the others; the default is a compile-time value.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> c; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

action shift(out bit<8> x, in bit<8> y = 0x40, in bit<8> by = 2) {
    x = y >> by;
}
bit<8> plus(in bit<8> v, in bit<8> add = 1) {
    return v + add;
}
control Set(inout h_t h, in bit<8> value = 0x77) {
    apply { h.c = value; }
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Set() set;
    apply {
        sm.egress_spec = 1;
        if (hdr.h.a == 0) {
            shift(hdr.h.a);                      // 0x40 >> 2
            hdr.h.b = plus(hdr.h.b);             // + 1
            set.apply(hdr.h);                    // 0x77
        } else {
            shift(x = hdr.h.a, by = 4);          // 0x40 >> 4
            hdr.h.b = plus(add = 5, v = hdr.h.b);
            set.apply(hdr.h, 0x11);
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
