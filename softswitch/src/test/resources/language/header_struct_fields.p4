// Header fields of struct type (P4_16 1.2.2, 7.2.2): a struct's fields, nested structs included,
// lie on the wire in declaration order where the struct field is declared.
#include <core.p4>
#include <v1model.p4>

enum bit<4> Kind { DATA = 1, CONTROL = 2 }
struct nibbles_t { bit<4> hi; bit<4> lo; }
struct flags_t { bool urgent; bit<3> n; Kind kind; }
struct inner_t { flags_t flags; bit<12> seq; bit<4> pad; }
struct wide_t { bit<72> v; bit<8> e; }
// 8 + 8 + (8 + 12 + 4) + (72 + 8) = 120 bits: 15 bytes
header h_t { bit<8> tag; nibbles_t p; inner_t inner; wide_t w; }
header e_t { nibbles_t p; }
struct headers_t { h_t h; e_t[2] es; h_t copy; }
struct meta_t { nibbles_t saved; bit<4> peeked; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.tag) {
            0: accept;
            default: parse_es;
        }
    }
    state parse_es {
        meta.peeked = pkt.lookahead<e_t>().p.lo;
        pkt.extract(hdr.es.next);
        pkt.extract(hdr.es.next);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_seq(bit<12> s) { hdr.h.inner.seq = s; }
    table by_nibble {
        key = { hdr.h.p.lo: exact; }
        actions = { set_seq; NoAction; }
        const entries = { 0x3 : set_seq(0xabc); }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.h.tag == 0) {
            hdr.h.setInvalid();
            return;
        }
        by_nibble.apply();
        meta.saved = hdr.h.p;
        hdr.h.p = { hi = meta.saved.lo, lo = meta.saved.hi };
        hdr.h.inner.flags.urgent = !hdr.h.inner.flags.urgent;
        hdr.h.inner.flags.n = hdr.h.inner.flags.n + 1;
        if (hdr.h.inner.flags.kind == Kind.CONTROL) {
            hdr.h.inner.flags.kind = Kind.DATA;
        }
        hdr.h.w.v = hdr.h.w.v + 1;
        hdr.h.w.e = (bit<8>) meta.peeked;
        hdr.es[1].p = hdr.es[0].p;
        hdr.copy = hdr.h;
        hdr.copy.tag = 0x77;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
