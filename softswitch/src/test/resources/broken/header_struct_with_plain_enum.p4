// expect: 7:24: header field 'paint' has type struct paint_t, whose field 'shade.c' is enum Colour: a struct in a header holds bit<W>, int<W>, bool, serializable enums and such structs
#include <core.p4>
#include <v1model.p4>
enum Colour { RED, GREEN }
struct shade_t { Colour c; bit<8> level; }
struct paint_t { bit<8> id; shade_t shade; }
header h_t { bit<8> x; paint_t paint; }
struct headers_t { h_t eth; h_t ipv4; }
struct meta_t { bit<8> x; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.eth);
        transition select(hdr.eth.type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(meta);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    action drop() { mark_to_drop(sm); }
    table t {
        key = { hdr.ipv4.dst: lpm; }
        actions = { fwd; drop; }
        default_action = drop();
    }
    apply {
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            t.apply();
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.eth); pkt.emit(hdr.ipv4); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
