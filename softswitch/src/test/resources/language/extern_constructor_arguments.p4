// Extern instances as a control's constructor arguments (P4_16 8.24, passed by reference): two
// instances of Bump given one register share it; a third given its own register and counter.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> c; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

control Bump(inout bit<8> v)(register<bit<8>> total, counter seen) {
    apply {
        bit<8> x;
        total.read(x, 0);
        x = x + v;
        total.write(0, x);
        seen.count(0);
        v = x;
    }
}

register<bit<8>>(1) kept;     // a top-level instance, given as a constructor argument too

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(1) shared;
    counter(1, CounterType.packets) bumps;
    Bump(shared, bumps) first;
    Bump(shared, bumps) second;
    Bump(total = kept, seen = bumps) apart;
    apply {
        sm.egress_spec = 1;
        first.apply(hdr.h.a);
        second.apply(hdr.h.b);
        apart.apply(hdr.h.c);
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
