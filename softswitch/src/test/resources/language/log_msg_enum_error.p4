// log_msg's data may hold an enum without an underlying type and an error: they are only printed,
// as their numbers (as BMv2 prints them).
#include <core.p4>
#include <v1model.p4>

enum Color { Red, Green, Blue }
header h_t { bit<8> a; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        Color c = hdr.h.a == 1 ? Color.Blue : Color.Red;
        log_msg("color={} error={} a={}", {c, sm.parser_error, hdr.h.a});
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
