/* ICMP errors the switch sends itself (RFC 7915 4.4/5.4, RFC 1812, RFC 4443): Time Exceeded,
 * Destination Unreachable, Packet Too Big / Fragmentation Needed and Parameter Problem, in the
 * family of the packet that caused them, back out of the port it came in on. The packet is
 * quoted as far as the error may grow (576 bytes for IPv4, 1280 for IPv6); the ICMP checksum is
 * computed over the whole message on a second pass (see Nat64ComputeChecksum). */
#ifndef NAT64_ICMP_ERROR_P4
#define NAT64_ICMP_ERROR_P4

#include "headers.p4"

control IcmpError(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t standard_metadata,
                  out bit<32> drop_reason) {
    ipv4_t source4;
    ipv6_t source6;
    bool configured;

    counter(4, CounterType.packets) sent;
    /* RFC 4443 2.4(f) (MUST) and RFC 1812 4.3.2.8: the errors a switch originates are rate-limited,
     * here per ingress port, the port they go back out of. Unconfigured it passes everything. */
    meter(ICMP_ERROR_METER_SIZE, MeterType.packets) error_meter;

    action use_source(ipv4_t addr4, ipv6_t addr6) {
        source4 = addr4;
        source6 = addr6;
        configured = true;
    }
    /* The addresses the switch sends its errors from; until set, it sends none. */
    table icmp_source {
        key = { }
        actions = { use_source; NoAction; }
        default_action = NoAction();
    }

    apply {
        source4 = 0;
        source6 = 0;
        configured = false;
        drop_reason = meta.error_drop_reason;
        if (!may_answer_with_error(hdr, meta)) {
            return;
        }
        icmp_source.apply();
        if (!configured) {
            return;
        }
        bit<2> color;
        error_meter.execute_meter((bit<32>) standard_metadata.ingress_port, color);
        if (color == V1MODEL_METER_COLOR_RED) {
            drop_reason = DROP_ICMP_ERROR_RATE;
            return;
        }
        drop_reason = DROP_REASONS;   /* none: the packet became the error */
        bit<8> t = meta.error_type;
        if (t == ICMP_TIME_EXCEEDED && hdr.ipv4.isValid() || t == ICMP6_TIME_EXCEEDED && hdr.ipv6.isValid()) {
            sent.count(SENT_TIME_EXCEEDED);
        } else if (t == ICMP_DEST_UNREACH && meta.error_code == 4 || t == ICMP6_PACKET_TOO_BIG && hdr.ipv6.isValid()) {
            sent.count(SENT_TOO_BIG);
        } else if (t == ICMP_PARAM_PROBLEM && hdr.ipv4.isValid() || t == ICMP6_PARAM_PROBLEM && hdr.ipv6.isValid()) {
            sent.count(SENT_PARAM_PROBLEM);
        } else {
            sent.count(SENT_UNREACHABLE);
        }

        /* The transport header moves behind the quoted IP header; hdr.icmp becomes the error. */
        if (hdr.tcp.isValid()) {
            hdr.inner_l4.setValid();
            hdr.inner_l4.w0 = hdr.tcp.src_port;
            hdr.inner_l4.w1 = hdr.tcp.dst_port;
            hdr.inner_l4.w2 = hdr.tcp.seq_no[31:16];
            hdr.inner_l4.w3 = hdr.tcp.seq_no[15:0];
            hdr.inner_tcp_tail.setValid();
            hdr.inner_tcp_tail.ack_no = hdr.tcp.ack_no;
            hdr.inner_tcp_tail.offset_flags = hdr.tcp.data_offset ++ hdr.tcp.res ++ hdr.tcp.flags;
            hdr.inner_tcp_tail.window = hdr.tcp.window;
            hdr.inner_tcp_tail.checksum = hdr.tcp.checksum;
            hdr.inner_tcp_tail.urgent_ptr = hdr.tcp.urgent_ptr;
            hdr.tcp.setInvalid();
        } else if (hdr.udp.isValid()) {
            hdr.inner_l4.setValid();
            hdr.inner_l4.w0 = hdr.udp.src_port;
            hdr.inner_l4.w1 = hdr.udp.dst_port;
            hdr.inner_l4.w2 = hdr.udp.len;
            hdr.inner_l4.w3 = hdr.udp.checksum;
            hdr.udp.setInvalid();
        } else if (hdr.icmp.isValid()) {
            hdr.inner_l4.setValid();
            hdr.inner_l4.w0 = hdr.icmp.type ++ hdr.icmp.code;
            hdr.inner_l4.w1 = hdr.icmp.checksum;
            hdr.inner_l4.w2 = hdr.icmp.identifier;
            hdr.inner_l4.w3 = hdr.icmp.sequence;
        }
        hdr.icmp.setValid();
        hdr.icmp.type = meta.error_type;
        hdr.icmp.code = meta.error_code;
        hdr.icmp.checksum = 0;
        hdr.icmp.identifier = meta.error_param[31:16];
        hdr.icmp.sequence = meta.error_param[15:0];

        if (hdr.ipv4.isValid()) {
            hdr.inner_ipv4 = hdr.ipv4;
            hdr.inner_ipv4_options = hdr.ipv4_options;   /* quoted with their header (RFC 792) */
            hdr.ipv4_options.pop_front(10);
            hdr.ipv4.ihl = 5;
            bit<16> length = 20 + 8 + hdr.ipv4.total_len;
            if (length > ICMP4_ERROR_MAX) {
                length = ICMP4_ERROR_MAX;
                meta.truncate_to = 14 + (bit<32>) ICMP4_ERROR_MAX;
            }
            hdr.ipv4.dscp_ecn = 0;
            hdr.ipv4.total_len = length;
            NEW_IPV4_IDENTIFICATION(hdr.ipv4.identification)
            hdr.ipv4.dont_fragment = 0;
            hdr.ipv4.more_fragments = 0;
            hdr.ipv4.ttl = 64;
            hdr.ipv4.protocol = PROTO_ICMP;
            hdr.ipv4.dst_addr = hdr.ipv4.src_addr;
            hdr.ipv4.src_addr = source4;
        } else {
            hdr.inner_ipv6 = hdr.ipv6;
            hdr.inner_ext = hdr.ipv6_ext;
            hdr.ipv6_ext.pop_front(IPV6_EXT_WORDS);
            hdr.inner_frag = hdr.ipv6_frag;
            hdr.ipv6_frag.setInvalid();
            bit<16> length = 8 + 40 + hdr.ipv6.payload_len;
            if (length > ICMP6_ERROR_MAX - 40) {
                length = ICMP6_ERROR_MAX - 40;
                meta.truncate_to = 14 + (bit<32>) ICMP6_ERROR_MAX;
            }
            hdr.ipv6.traffic_class = 0;
            hdr.ipv6.flow_label = 0;
            hdr.ipv6.payload_len = length;
            hdr.ipv6.next_hdr = PROTO_ICMPV6;
            hdr.ipv6.hop_limit = 64;
            hdr.ipv6.dst_addr = hdr.ipv6.src_addr;
            hdr.ipv6.src_addr = source6;
        }
        mac_t peer = hdr.ethernet.src_addr;
        hdr.ethernet.src_addr = hdr.ethernet.dst_addr;
        hdr.ethernet.dst_addr = peer;
        standard_metadata.egress_spec = standard_metadata.ingress_port;
        meta.recirc = RECIRC_CHECKSUM;
        /* An error about a hairpin's second pass is to the NAT64's own pool4 (or EAM) address:
         * summed, it goes round to be translated back to the IPv6 host that sent the packet. */
        meta.hairpin_after = meta.hairpinned;
    }
}

#endif
