// A type introduced by `type` (P4_16 7.6) crossing into its bits only by casts, in a key, an action
// parameter and a comparison; a typedef holding its declaration (7.5); parenthesized keysets
// (12.6); minSizeInBits() of a value (8.22); lists with a trailing comma; main named from the top
// level (.V1Switch).
#include <core.p4>
#include <v1model.p4>

type bit<8> Kind;
typedef header tag_h { Kind kind; bit<8> v; bit<8> size; } Tag;
typedef struct meta_s { bit<8> seen; bit<8> spare; } Meta;
struct headers_t { Tag t; }

const Kind DATA = (Kind) 8w1;

parser P(packet_in pkt, out headers_t hdr, inout Meta meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.t);
        transition select(hdr.t.v) {
            (8w0x10 &&& 8w0xf0): masked;
            (8w0x20 .. 8w0x2f): ranged;
            default: accept;
        }
    }
    state masked { meta.seen = 1; transition accept; }
    state ranged { meta.seen = 2; transition accept; }
}

control I(inout headers_t hdr, inout Meta meta, inout standard_metadata_t sm) {
    action set(Kind k) { hdr.t.kind = k; }
    table kinds {
        key = { hdr.t.kind: exact; }
        actions = { set; NoAction; }
        const entries = {
            (Kind) 8w1 : set((Kind) 8w7);
            ((Kind) 8w2) : set((Kind) 8w8);
        }
        default_action = NoAction();
    }
    apply {
        bool wasData = hdr.t.kind == DATA;
        kinds.apply();
        Meta extra = { seen = meta.seen, spare = 3, };
        hdr.t.size = (bit<8>) hdr.t.v.minSizeInBits() + extra.seen;
        if (wasData) {
            hdr.t.v = (bit<8>) hdr.t.kind |+| 8w0xf0;
        }
        sm.egress_spec = 1;
    }
}
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
control N(inout headers_t hdr, inout Meta meta) { apply { } }
control E(inout headers_t hdr, inout Meta meta, inout standard_metadata_t sm) { apply { } }
.V1Switch(P(), N(), I(), E(), N(), D()) main;
