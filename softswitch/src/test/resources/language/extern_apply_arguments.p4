// Extern instances as run-time arguments of controls and parsers (P4_16 8.24 and Appendix F:
// directionless, by reference), given at apply and passed on, also to a control given as a
// constructor argument; a parser's own register; an extern instance as a parser's constructor
// argument.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; bit<8> c; bit<8> d; bit<8> e; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

register<bit<8>>(2) seen;   // what the parsers saw, read back by the ingress

// Writes the first byte into the register it is given.
parser Note(packet_in pkt, inout headers_t hdr, register<bit<8>> into) {
    state start { into.write(0, hdr.h.a); transition accept; }
}
// The same, into the register it was constructed with.
parser NoteBuilt(packet_in pkt, inout headers_t hdr)(register<bit<8>> into) {
    state start { into.write(1, hdr.h.b); transition accept; }
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(1) mine;     // a parser's own instance
    Note() note;
    NoteBuilt(seen) noteBuilt;
    state start {
        pkt.extract(hdr.h);
        note.apply(pkt, hdr, seen);
        noteBuilt.apply(pkt, hdr);
        mine.write(0, hdr.h.c);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }

// Adds v into the register's cell 0 and counts, then gives the total back.
control Bump(inout bit<8> v, register<bit<8>> total, counter bumped) {
    apply {
        bit<8> x;
        total.read(x, 0);
        x = x + v;
        total.write(0, x);
        bumped.count(0);
        v = x;
    }
}
// Passes the register and counter it is given on to the Step it was constructed with, twice.
control Step(inout bit<8> v, register<bit<8>> total, counter bumped);
control Twice(inout bit<8> v, register<bit<8>> total, counter bumped)(Step inner) {
    apply { inner.apply(v, total, bumped); inner.apply(v, total, bumped); }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<8>>(1) shared;
    register<bit<8>>(1) apart;
    counter(1, CounterType.packets) bumps;
    Bump() first;
    Bump() once;
    Twice(once) twice;
    apply {
        sm.egress_spec = 1;
        first.apply(hdr.h.a, shared, bumps);
        first.apply(hdr.h.b, shared, bumps);
        twice.apply(bumped = bumps, total = apart, v = hdr.h.c);
        seen.read(hdr.h.d, 0);
        bit<8> b;
        seen.read(b, 1);
        hdr.h.e = hdr.h.d + b;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
