/* The v1model parser (the controller's packet-outs and the second pass of a recirculated ICMP
 * error, then the shared states of parser_states.p4) and deparser (deparser.p4's emits). */
#ifndef NAT64_PARSER_P4
#define NAT64_PARSER_P4

#include "headers.p4"
#include "checksums.p4"   /* the parser sums an ICMP error it translates (parser_states.p4) */

parser Nat64Parser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) {
    state start {
        /* A second pass first: one of a packet the controller sent comes in on the CPU port too
         * (a recirculated packet comes in on the port its first pass left by), without packet_out. */
        transition select(standard_metadata.ingress_port, meta.recirc) {
            (_, RECIRC_CHECKSUM): parse_checksum_pass;
            (_, RECIRC_UDP_CHECKSUM): parse_udp_checksum_pass;
            (_, RECIRC_HAIRPIN): parse_ethernet;
            (CPU_PORT, _): parse_packet_out;
            default: parse_ethernet;
        }
    }
    /* Second pass of an ICMP error built or cut here: the rest is the message's payload. */
    state parse_checksum_pass {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_checksum_pass_ipv4;
            default: parse_checksum_pass_ipv6;
        }
    }
    state parse_checksum_pass_ipv4 {
        packet.extract(hdr.ipv4);
        packet.extract(hdr.icmp);
        transition accept;
    }
    state parse_checksum_pass_ipv6 {
        packet.extract(hdr.ipv6);
        packet.extract(hdr.icmp);
        transition accept;
    }
    /* A later pass of IPv4 UDP without a checksum, translated: cut to its IPv6 packet (to be summed),
     * or summed (a 0 to be sent as 0xFFFF). */
    state parse_udp_checksum_pass {
        packet.extract(hdr.ethernet);
        packet.extract(hdr.ipv6);
        packet.extract(hdr.udp);
        transition accept;
    }
    state parse_packet_out {
        packet.extract(hdr.packet_out);
        transition parse_ethernet;
    }
#include "parser_states.p4"
}

control Nat64Deparser(packet_out packet, in headers_t hdr) {
    apply {
#include "deparser.p4"
    }
}

#endif
