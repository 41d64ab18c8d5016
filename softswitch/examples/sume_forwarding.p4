/*
 * A small SimpleSumeSwitch program (the NetFPGA SUME architecture): IPv4 routing by longest prefix
 * to a one-hot output port, a ternary ACL, and a controller reached over DMA. A packet from the
 * controller (arriving on DMA0) carries a packet_out header naming its output ports; a packet with no
 * route goes to the controller with a packet_in header naming the port it came from.
 * Run it: bin/softswitch run -i 0@eth0 -i 1@eth1 --cpu-port 255 --p4 examples/sume_forwarding.p4
 */
#include <core.p4>
#include <sume_switch.p4>

const port_t DMA0 = 8w0b00000010;

@controller_header("packet_out")
header packet_out_t {
    port_t dst_port;
}

@controller_header("packet_in")
header packet_in_t {
    port_t src_port;
}

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4> version;
    bit<4> ihl;
    bit<8> diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3> flags;
    bit<13> frag_offset;
    bit<8> ttl;
    bit<8> protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t packet_in;
    ethernet_t ethernet;
    ipv4_t ipv4;
}

struct user_metadata_t {
    bit<8> unused;
}

struct digest_data_t {
    bit<256> unused;
}

@Xilinx_MaxPacketRegion(16384)
parser SumeParser(packet_in b, out headers_t hdr, out user_metadata_t meta, out digest_data_t digest,
                  inout sume_metadata_t sume) {
    state start {
        meta.unused = 0;
        digest.unused = 0;
        transition select(sume.src_port) {
            DMA0: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        b.extract(hdr.packet_out);
        transition parse_ethernet;
    }
    state parse_ethernet {
        b.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        b.extract(hdr.ipv4);
        transition accept;
    }
}

control SumePipe(inout headers_t hdr, inout user_metadata_t meta, inout digest_data_t digest,
                 inout sume_metadata_t sume) {
    action drop() {
        sume.dst_port = 0;
    }

    action to_controller() {
        hdr.packet_in.setValid();
        hdr.packet_in.src_port = sume.src_port;
        sume.dst_port = DMA0;
    }

    action route(port_t port, bit<48> next_hop_mac, bit<48> router_mac) {
        sume.dst_port = port;
        hdr.ethernet.src_addr = router_mac;
        hdr.ethernet.dst_addr = next_hop_mac;
    }

    table routes {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { route; to_controller; drop; }
        size = 1024;
        default_action = to_controller();
    }

    table acl {
        key = {
            hdr.ipv4.src_addr: ternary;
            hdr.ipv4.protocol: ternary;
        }
        actions = { drop; NoAction; }
        size = 256;
        default_action = NoAction();
    }

    apply {
        if (hdr.packet_out.isValid()) {
            sume.dst_port = hdr.packet_out.dst_port;
            hdr.packet_out.setInvalid();
        } else if (hdr.ipv4.isValid()) {
            routes.apply();
            acl.apply();
        } else {
            drop();
        }
    }
}

control SumeDeparser(packet_out b, in headers_t hdr, in user_metadata_t meta, inout digest_data_t digest,
                     inout sume_metadata_t sume) {
    apply {
        b.emit(hdr.packet_in);
        b.emit(hdr.ethernet);
        b.emit(hdr.ipv4);
    }
}

SimpleSumeSwitch(SumeParser(), SumePipe(), SumeDeparser()) main;
