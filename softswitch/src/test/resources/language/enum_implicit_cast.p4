// A serializable enum's value where its underlying type is expected (P4_16 8.11.2): assigned,
// passed as an argument, compared and combined with bit<W> values, as a @field_list index.
#include <core.p4>
#include <v1model.p4>

enum bit<8> Op { Add = 1, Sub = 2 }
enum bit<8> Lists { Keep = 3 }
header h_t { bit<8> op; bit<8> a; bit<8> r; }
struct headers_t { h_t h; }
struct meta_t { @field_list(Lists.Keep) bit<8> kept; }

bit<8> twice(in bit<8> v) { return v + v; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.h.op == Op.Add) {
            hdr.h.r = hdr.h.a + Op.Sub;          // 2 added
        } else {
            bit<8> sub = Op.Sub;
            hdr.h.r = twice(sub) + twice(Op.Add);   // 4 + 2
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
