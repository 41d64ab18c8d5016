// Functions returning a header or a struct (P4_16 10.3): the call stands on the right of '=' or in
// an initialiser, or alone (its result unused); it runs once, where the statement stands. A list or
// structure-valued expression may be an in argument of header or struct type.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> x; bit<8> y; }
struct pair_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; h_t made; }
struct meta_t { bit<8> calls; }

h_t bumped(in h_t v, inout bit<8> calls) {
    calls = calls + 1;
    h_t r = v;
    r.x = r.x + 1;
    return r;
}
h_t fresh(inout bit<8> calls) {
    calls = calls + 1;
    h_t r;
    if (calls > 2) {
        r.setValid();
        r.x = 0xaa;
        r.y = calls;
    }
    return r;   // invalid unless the third call or later
}
pair_t swapped(in pair_t p) {
    return { a = p.b, b = p.a };
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        meta.calls = 0;
        hdr.h = bumped(hdr.h, meta.calls);            // x + 1, one call
        hdr.made = fresh(meta.calls);                 // second call: an invalid header, not emitted
        fresh(meta.calls);                            // third call, result unused
        h_t third = fresh(meta.calls);                // fourth: valid, y = 4
        pair_t p = swapped({ a = hdr.h.x, b = hdr.h.y });   // a structure-valued in argument
        hdr.h.x = p.a;
        hdr.h.y = p.b;
        if (!hdr.made.isValid()) {
            hdr.made = third;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
