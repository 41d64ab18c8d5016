/* IPv4 + IPv6 longest-prefix-match forwarding for v1model: the reference program of softswitch's
 * tests, offline runner examples and benchmark. Packets from the CPU port carry a packet_out
 * header naming the egress port; packets to the CPU carry a packet_in header. An ACL after routing
 * can copy a packet to the CPU (clone session CPU_CLONE_SESSION), punt it, or flood it to a
 * multicast group. */
#include <core.p4>
#include <v1model.p4>

#define CPU_PORT 255
#define CPU_CLONE_SESSION 99

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<16> ETHERTYPE_IPV6 = 0x86dd;

typedef bit<48> mac_addr_t;
typedef bit<32> ipv4_addr_t;
typedef bit<128> ipv6_addr_t;
typedef bit<9> port_t;

@controller_header("packet_in")
header packet_in_t {
    port_t ingress_port;
    bit<7> _pad;
}

@controller_header("packet_out")
header packet_out_t {
    port_t egress_port;
    bit<7> _pad;
}

header ethernet_t {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4> version;
    bit<4> ihl;
    bit<8> dscp_ecn;
    bit<16> total_len;
    bit<16> identification;
    bit<3> flags;
    bit<13> frag_offset;
    bit<8> ttl;
    bit<8> protocol;
    bit<16> hdr_checksum;
    ipv4_addr_t src_addr;
    ipv4_addr_t dst_addr;
}

header ipv6_t {
    bit<4> version;
    bit<8> traffic_class;
    bit<20> flow_label;
    bit<16> payload_len;
    bit<8> next_hdr;
    bit<8> hop_limit;
    ipv6_addr_t src_addr;
    ipv6_addr_t dst_addr;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t packet_in;
    ethernet_t ethernet;
    ipv4_t ipv4;
    ipv6_t ipv6;
}

struct metadata_t {
    @field_list(1)
    port_t original_port;
}

parser L3Parser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        transition select(standard_metadata.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        packet.extract(hdr.packet_out);
        transition parse_ethernet;
    }
    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_IPV6: parse_ipv6;
            default: accept;
        }
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        verify(hdr.ipv4.ihl >= 5, error.NoMatch);
        transition accept;
    }
    state parse_ipv6 {
        packet.extract(hdr.ipv6);
        transition accept;
    }
}

control L3VerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp_ecn, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control L3Ingress(inout headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    direct_counter(CounterType.packets_and_bytes) ipv4_counter;
    counter(512, CounterType.packets) port_rx;

    action drop() {
        mark_to_drop(standard_metadata);
    }
    action send_to_cpu() {
        standard_metadata.egress_spec = CPU_PORT;
    }
    action set_next_hop(port_t port, mac_addr_t src_mac, mac_addr_t dst_mac) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.src_addr = src_mac;
        hdr.ethernet.dst_addr = dst_mac;
    }
    action set_next_hop_v4(port_t port, mac_addr_t src_mac, mac_addr_t dst_mac) {
        set_next_hop(port, src_mac, dst_mac);
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    action set_next_hop_v6(port_t port, mac_addr_t src_mac, mac_addr_t dst_mac) {
        set_next_hop(port, src_mac, dst_mac);
        hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 1;
    }

    table ipv4_lpm {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { set_next_hop_v4; send_to_cpu; drop; }
        default_action = drop();
        counters = ipv4_counter;
        size = 131072;
    }
    action clone_to_cpu() {
        clone(CloneType.I2E, CPU_CLONE_SESSION);
    }
    action flood(bit<16> group) {
        standard_metadata.mcast_grp = group;
    }

    table acl {
        key = {
            standard_metadata.ingress_port: ternary;
            hdr.ethernet.dst_addr: ternary;
            hdr.ethernet.ether_type: ternary;
        }
        actions = { NoAction; clone_to_cpu; send_to_cpu; flood; drop; }
        default_action = NoAction();
        size = 256;
    }

    table ipv6_lpm {
        key = { hdr.ipv6.dst_addr: lpm; }
        actions = { set_next_hop_v6; send_to_cpu; drop; }
        default_action = drop();
        size = 131072;
        support_timeout = true;
    }

    apply {
        port_rx.count((bit<32>) standard_metadata.ingress_port);
        if (hdr.packet_out.isValid()) {
            standard_metadata.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            exit;
        }
        if (standard_metadata.parser_error != error.NoError || standard_metadata.checksum_error == 1) {
            drop();
            exit;
        }
        if (hdr.ipv4.isValid()) {
            if (hdr.ipv4.ttl <= 1) {
                send_to_cpu();
            } else {
                ipv4_lpm.apply();
            }
        } else if (hdr.ipv6.isValid()) {
            if (hdr.ipv6.hop_limit <= 1) {
                send_to_cpu();
            } else {
                ipv6_lpm.apply();
            }
        } else {
            drop();
        }
        acl.apply();
    }
}

control L3Egress(inout headers_t hdr, inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply {
        if (standard_metadata.egress_port == CPU_PORT) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = standard_metadata.ingress_port;
        }
    }
}

control L3ComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp_ecn, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
              hdr.ipv4.protocol, hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control L3Deparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.ipv6);
    }
}

V1Switch(L3Parser(), L3VerifyChecksum(), L3Ingress(), L3Egress(), L3ComputeChecksum(), L3Deparser()) main;
