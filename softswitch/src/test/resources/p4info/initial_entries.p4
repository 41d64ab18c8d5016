// Tables with const entries, with entries the control plane may change, and with none, or an empty
// entries list (P4Info's
// is_const_table and has_initial_entries, P4Runtime 1.4).
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set(bit<8> v) { hdr.h.a = v; }
    table fixed { key = { hdr.h.a: exact; } actions = { set; NoAction; } const entries = { 1 : set(2); } }
    table seeded { key = { hdr.h.a: exact; } actions = { set; NoAction; } entries = { 3 : set(4); } }
    table empty { key = { hdr.h.a: exact; } actions = { set; NoAction; } }
    table none { key = { hdr.h.a: exact; } actions = { set; NoAction; } entries = { } }
    apply { fixed.apply(); seeded.apply(); empty.apply(); none.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
