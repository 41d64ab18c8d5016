// Annotations whose bodies are not expressions (P4_16 7.1.5: any tokens, parentheses balanced)
// and structured annotations (@name[...]): compiled as if they were not there, while @name and
// @id still read their expressions, in either form.
#include <core.p4>
#include <v1model.p4>

@p4runtime_translation("example.org/port", bit<32>)
type bit<9> port_t;

header h_t { bit<8> k; bit<8> v; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    @structured["list", 1, 2 + 3] @kv[a = 1, b = "two"]
    action set(bit<8> v) { hdr.h.v = v; sm.egress_spec = 1; }
    @name[".renamed"] @id[0x0200abcd] @match(exact, bit<8> key) @empty()
    table t {
        key = { hdr.h.k : exact; }
        actions = { set; }
        const entries = { 1 : set(0x11); }
        const default_action = set(0xee);
    }
    apply { t.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
