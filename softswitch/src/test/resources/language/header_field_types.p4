// Header fields of type bool and of a serializable enum (P4_16 1.2.2, 7.2.2): one bit on the wire
// for a bool, the underlying width for the enum; a value no member has is kept as it is.
#include <core.p4>
#include <v1model.p4>

enum bit<8> Kind { DATA = 1, CONTROL = 2 }

header h_t { bool urgent; bit<7> pad; Kind kind; bit<8> v; }
header extra_t { bit<8> e; }
struct headers_t { h_t h; extra_t extra; }
struct meta_t { bool was_urgent; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition select(hdr.h.kind) {
            Kind.CONTROL: parse_extra;
            default: accept;
        }
    }
    state parse_extra { pkt.extract(hdr.extra); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        meta.was_urgent = hdr.h.urgent;
        if (hdr.h.urgent) {
            hdr.h.v = hdr.h.v + 1;
        }
        if (hdr.h.kind == Kind.CONTROL) {
            hdr.h.kind = Kind.DATA;
            hdr.h.urgent = !meta.was_urgent;
            hdr.extra.e = (bit<8>) Kind.CONTROL;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
