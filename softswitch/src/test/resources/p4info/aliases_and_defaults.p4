// Two instances of a control holding a counter and a register (aliases unique per object, as
// P4Info's Preamble asks), a table's initial default action with arguments (whose bytes would also
// parse as a message), and an action profile
// without a selector (max_group_size 0 in P4Info, whatever @max_group_size says); an action called
// from the apply block, which P4Info lists too (as p4c does), without its directional parameter, but
// not one called from an action only, nor @hidden ones, nor a @hidden table (P4_16 18.3), nor a table
// never applied or the actions only it lists; a validity
// key, named h.$valid$ as p4c names it; a controller header, its ID hashed from its type's name.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; bit<8> b; }
@controller_header("packet_in") header packet_in_header_t { bit<9> ingress_port; bit<7> pad; }
struct headers_t { packet_in_header_t packet_in; h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control Count(inout headers_t hdr) {
    counter(4, CounterType.packets) cnt;
    register<bit<8>>(4) r;
    apply { cnt.count(0); r.write(0, hdr.h.a); }
}
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    Count() c1;
    Count() c2;
    action set(bit<8> v, bit<16> w) { hdr.h.a = v; }
    action bump(inout bit<8> x) { x = x + 1; }
    action inner() { hdr.h.b = 1; }
    action outer() { inner(); }
    @hidden action secret() { hdr.h.b = 2; }
    @hidden table fixed { key = { hdr.h.a: exact; } actions = { outer; } const entries = { 1 : outer(); } }
    action only_never() { }
    table never { key = { hdr.h.a: exact; } actions = { only_never; } }   // never applied: no part of the program
    @max_group_size(200) action_profile(32) ap;
    table t { key = { hdr.h.a: exact; } actions = { set; NoAction; } default_action = set(8, 0x0808); }
    table p { key = { hdr.h.b: exact; hdr.h.isValid(): exact; } actions = { set; NoAction; } implementation = ap; }
    apply { c1.apply(hdr); c2.apply(hdr); t.apply(); p.apply(); bump(hdr.h.b); secret(); fixed.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
