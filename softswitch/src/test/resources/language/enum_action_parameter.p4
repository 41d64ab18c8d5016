// A serializable enum as an action's control-plane parameter (P4Runtime: its underlying bit<W> in P4Info), from const entries
// and from the control plane alike.
#include <core.p4>
#include <v1model.p4>
enum bit<8> Color_t { RED = 1, GREEN = 2 }
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { bit<8> x; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action paint(Color_t col) { hdr.h.b = col == Color_t.GREEN ? 8w0x22 : 8w0x11; hdr.h.a = col; }
    table t { key = { hdr.h.a: exact; } actions = { paint; NoAction; }
              const entries = { 1 : paint(Color_t.GREEN); 2 : paint(Color_t.RED); } }
    apply { sm.egress_spec = 1; t.apply(); }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
