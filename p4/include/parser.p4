/* Parser and deparser. IPv4 options are kept as words (dropped when translated, RFC 7915 4.1);
 * only the first fragment's transport header is parsed. */
#ifndef NAT64_PARSER_P4
#define NAT64_PARSER_P4

#include "headers.p4"

parser Nat64Parser(packet_in packet, out headers_t hdr, inout metadata_t meta,
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
            ETHERTYPE_ARP: parse_arp;
            default: accept;
        }
    }
    state parse_arp {
        packet.extract(hdr.arp);
        transition accept;
    }
    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        verify(hdr.ipv4.version == 4 && hdr.ipv4.ihl >= 5, error.HeaderTooShort);
        meta.ipv4_option_words = hdr.ipv4.ihl - 5;
        transition select(meta.ipv4_option_words) {
            0: parse_ipv4_payload;
            default: parse_ipv4_option;
        }
    }
    state parse_ipv4_option {
        packet.extract(hdr.ipv4_options.next);
        meta.ipv4_option_words = meta.ipv4_option_words - 1;
        transition select(meta.ipv4_option_words) {
            0: parse_ipv4_payload;
            default: parse_ipv4_option;
        }
    }
    state parse_ipv4_payload {
        transition select(hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (0, PROTO_TCP): parse_tcp;
            (0, PROTO_UDP): parse_udp;
            (0, PROTO_ICMP): parse_icmp;
            default: accept;
        }
    }
    state parse_ipv6 {
        packet.extract(hdr.ipv6);
        verify(hdr.ipv6.version == 6, error.HeaderTooShort);
        transition select(hdr.ipv6.next_hdr) {
            PROTO_FRAG: parse_ipv6_frag;
            PROTO_TCP: parse_tcp;
            PROTO_UDP: parse_udp;
            PROTO_ICMPV6: parse_icmpv6;
            default: accept;
        }
    }
    state parse_ipv6_frag {
        packet.extract(hdr.ipv6_frag);
        transition select(hdr.ipv6_frag.frag_offset, hdr.ipv6_frag.next_hdr) {
            (0, PROTO_TCP): parse_tcp;
            (0, PROTO_UDP): parse_udp;
            (0, PROTO_ICMPV6): parse_icmpv6;
            default: accept;
        }
    }
    state parse_tcp {
        packet.extract(hdr.tcp);
        meta.l4_src = hdr.tcp.src_port;
        meta.l4_dst = hdr.tcp.dst_port;
        transition accept;
    }
    state parse_udp {
        packet.extract(hdr.udp);
        meta.l4_src = hdr.udp.src_port;
        meta.l4_dst = hdr.udp.dst_port;
        transition accept;
    }
    state parse_icmp {
        packet.extract(hdr.icmp);
        transition select(hdr.icmp.type) {
            ICMP_ECHO_REQUEST: parse_echo;
            ICMP_ECHO_REPLY: parse_echo;
            default: accept;
        }
    }
    state parse_icmpv6 {
        packet.extract(hdr.icmp);
        transition select(hdr.icmp.type) {
            ICMP6_ECHO_REQUEST: parse_echo;
            ICMP6_ECHO_REPLY: parse_echo;
            ICMP6_NS: parse_ndp;
            ICMP6_NA: parse_ndp;
            default: accept;
        }
    }
    state parse_echo {
        /* The identifier plays the part of both ports (RFC 6146 3.5.3). */
        meta.is_echo = true;
        meta.l4_src = hdr.icmp.identifier;
        meta.l4_dst = hdr.icmp.identifier;
        transition accept;
    }
    state parse_ndp {
        packet.extract(hdr.ndp);
        transition select(hdr.ipv6.payload_len) {
            32: parse_ndp_option;      /* one link-layer address option follows */
            default: accept;
        }
    }
    state parse_ndp_option {
        packet.extract(hdr.ndp_option);
        transition accept;
    }
}

control Nat64Deparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
        packet.emit(hdr.arp);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.ipv4_options);
        packet.emit(hdr.ipv6);
        packet.emit(hdr.ipv6_frag);
        packet.emit(hdr.tcp);
        packet.emit(hdr.udp);
        packet.emit(hdr.icmp);
        packet.emit(hdr.ndp);
        packet.emit(hdr.ndp_option);
    }
}

#endif
