// A register of a serializable enum (register<E>): its cells hold E values, P4Info names E, and
// P4Runtime reads and writes them as enum_value.
#include <core.p4>
#include <v1model.p4>
enum bit<16> EthTypes { IPv4 = 0x0800, ARP = 0x0806 }
header h_t { bit<16> t; }
struct H { h_t h; }
struct M { EthTypes last; }
parser P(packet_in pkt, out H hdr, inout M meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout H hdr, inout M meta) { apply { } }
control I(inout H hdr, inout M meta, inout standard_metadata_t sm) {
    register<EthTypes>(4) seen;
    apply {
        sm.egress_spec = 1;
        seen.read(meta.last, 0);
        seen.write(0, (EthTypes) hdr.h.t);
        hdr.h.t = (bit<16>) meta.last;
    }
}
control E(inout H hdr, inout M meta, inout standard_metadata_t sm) { apply { } }
control CC(inout H hdr, inout M meta) { apply { } }
control D(packet_out pkt, in H hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
