/* ECMP over an action selector: ipv4_lpm's entries point to next hops held as members of
 * ecmp_selector (P4Runtime ActionProfileMember); an entry pointing to a group of them spreads
 * flows over the members by a CRC16 of the addresses, protocol and UDP ports. smac_rewrite is an
 * indirect table with a plain action profile constructed in place. */
#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> total_len;
    bit<16> identification;
    bit<3>  flags;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    bit<32> src_addr;
    bit<32> dst_addr;
}

header udp_t {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> length;
    bit<16> checksum;
}

struct headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    udp_t      udp;
}

struct meta_t {
}

parser EcmpParser(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition select(hdr.ipv4.protocol) {
            17: parse_udp;
            default: accept;
        }
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        transition accept;
    }
}

control EcmpVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control EcmpIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    @max_group_size(8)
    action_selector(HashAlgorithm.crc16, 32w64, 32w16) ecmp_selector;

    action drop() {
        mark_to_drop(sm);
    }

    action set_next_hop(bit<9> port, bit<48> dmac) {
        sm.egress_spec = port;
        hdr.ethernet.dst_addr = dmac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }

    table ipv4_lpm {
        key = {
            hdr.ipv4.dst_addr: lpm;
            hdr.ipv4.src_addr: selector;
            hdr.ipv4.dst_addr: selector;
            hdr.ipv4.protocol: selector;
            hdr.udp.src_port: selector;
            hdr.udp.dst_port: selector;
        }
        actions = { set_next_hop; drop; }
        default_action = drop();
        implementation = ecmp_selector;
        size = 64;
    }

    action set_smac(bit<48> smac) {
        hdr.ethernet.src_addr = smac;
    }

    table smac_rewrite {
        key = { sm.egress_spec: exact; }
        actions = { set_smac; NoAction; }
        default_action = NoAction();
        @name("smac_profile") implementation = action_profile(32w16);
    }

    apply {
        if (hdr.ipv4.isValid()) {
            ipv4_lpm.apply();
            smac_rewrite.apply();
        } else {
            drop();
        }
    }
}

control EcmpEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control EcmpCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.diffserv, hdr.ipv4.total_len, hdr.ipv4.identification,
              hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol, hdr.ipv4.src_addr,
              hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control EcmpDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.udp);
    }
}

V1Switch(EcmpParser(), EcmpVerify(), EcmpIngress(), EcmpEgress(), EcmpCompute(), EcmpDeparser()) main;
