/* A policer for v1model: every Ethernet frame from port 1 goes to port 2 and back, through an
 * indexed packet meter chosen by ingress port and a direct byte meter of the entry that matched
 * its EtherType. RED frames are dropped; the colours are written into the source MAC's last two
 * bytes so a test can see YELLOW. The example of softswitch's meter and direct_meter. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<32> dst_hi;
    bit<16> dst_lo;
    bit<32> src_hi;
    bit<8>  port_color;     /* written: the port meter's colour */
    bit<8>  type_color;     /* written: the EtherType entry's direct meter colour */
    bit<16> ether_type;
}

struct headers_t {
    ethernet_t ethernet;
}

struct metadata_t {
    bit<8> unused;
}

parser PolicerParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition accept;
    }
}

control PolicerVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control PolicerIngress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t standard_metadata) {
    meter(8, MeterType.packets) port_meter;
    direct_meter<bit<8>>(MeterType.bytes) type_meter;

    action metered() {
        type_meter.read(hdr.ethernet.type_color);
    }
    table by_ether_type {
        key = { hdr.ethernet.ether_type: exact; }
        actions = { metered; NoAction; }
        meters = type_meter;
        size = 64;
    }

    apply {
        standard_metadata.egress_spec = standard_metadata.ingress_port == 1 ? 9w2 : 9w1;
        port_meter.execute_meter((bit<32>) standard_metadata.ingress_port, hdr.ethernet.port_color);
        hdr.ethernet.type_color = V1MODEL_METER_COLOR_GREEN;   /* what a miss leaves */
        by_ether_type.apply();
        if (hdr.ethernet.port_color == V1MODEL_METER_COLOR_RED || hdr.ethernet.type_color == V1MODEL_METER_COLOR_RED) {
            mark_to_drop(standard_metadata);
        }
    }
}

control PolicerEgress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t standard_metadata) {
    apply { }
}

control PolicerComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control PolicerDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
    }
}

V1Switch(PolicerParser(), PolicerVerifyChecksum(), PolicerIngress(), PolicerEgress(), PolicerComputeChecksum(),
         PolicerDeparser()) main;
