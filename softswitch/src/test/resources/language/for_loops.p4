// for loops (P4_16 working draft after 1.2.5, as p4c accepts them): three clauses; a variable over lo .. hi (inclusive, up to the type's
// largest value) or over a list; break and continue.
#include <core.p4>
#include <v1model.p4>

header h_t { bit<8> n; bit<8> sum; bit<8> evens; bit<8> found; bit<8> listed; }
struct headers_t { h_t h; }
struct meta_t { bit<8> unused; }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        bit<8> total = 0;
        for (bit<8> i = 1; i <= hdr.h.n; i = i + 1) {
            total = total + i;
        }
        hdr.h.sum = total;
        hdr.h.evens = 0;
        for (bit<8> i in 0 .. 9) {
            if (i & 1 == 1) {
                continue;
            }
            hdr.h.evens = hdr.h.evens + 1;
        }
        hdr.h.found = 0xff;
        for (bit<8> i in 0 .. 255) {
            if (i * 3 == hdr.h.n) {
                hdr.h.found = i;
                break;
            }
        }
        hdr.h.listed = 0;
        for (bit<8> v in {2, 4, 8}) {
            hdr.h.listed = hdr.h.listed | v;
        }
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
