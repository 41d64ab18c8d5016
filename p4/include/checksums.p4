/* Ones' complement arithmetic for incremental checksum updates (RFC 1624): translation
 * changes addresses, ports and ICMP types, never the payload, so the L4 checksums are adjusted
 * from the old and new words alone. No payload access: what NetFPGA requires. */
#ifndef NAT64_CHECKSUMS_P4
#define NAT64_CHECKSUMS_P4

#include "headers.p4"

/* The 16-bit words of an IPv4 address, summed. */
bit<32> sum_v4(in ipv4_t a) {
    return (bit<32>) a[31:16] + (bit<32>) a[15:0];
}

/* The 16-bit words of an IPv6 address, summed. */
bit<32> sum_v6(in ipv6_t a) {
    return (bit<32>) a[127:112] + (bit<32>) a[111:96] + (bit<32>) a[95:80] + (bit<32>) a[79:64]
         + (bit<32>) a[63:48] + (bit<32>) a[47:32] + (bit<32>) a[31:16] + (bit<32>) a[15:0];
}

/* The 16-bit words of an IPv4 header without options, summed (its checksum included). */
bit<32> sum_ipv4_header(in ipv4_h h) {
    return (bit<32>) (h.version ++ h.ihl ++ h.dscp_ecn) + (bit<32>) h.total_len + (bit<32>) h.identification
         + (bit<32>) (h.reserved ++ h.dont_fragment ++ h.more_fragments ++ h.frag_offset)
         + (bit<32>) (h.ttl ++ h.protocol) + (bit<32>) h.hdr_checksum + sum_v4(h.src_addr) + sum_v4(h.dst_addr);
}

/* The 16-bit words of an IPv6 header, summed. */
bit<32> sum_ipv6_header(in ipv6_h h) {
    bit<32> first = h.version ++ h.traffic_class ++ h.flow_label;
    return (bit<32>) first[31:16] + (bit<32>) first[15:0] + (bit<32>) h.payload_len
         + (bit<32>) (h.next_hdr ++ h.hop_limit) + sum_v6(h.src_addr) + sum_v6(h.dst_addr);
}

/* The 16-bit words of an IPv6 Fragment header, summed. */
bit<32> sum_frag_header(in ipv6_frag_h h) {
    return (bit<32>) (h.next_hdr ++ h.reserved) + (bit<32>) (h.frag_offset ++ h.res ++ h.more_fragments)
         + (bit<32>) h.identification[31:16] + (bit<32>) h.identification[15:0];
}

/* The 16-bit words of the first 8 bytes of a quoted transport header, summed. */
bit<32> sum_l4_head(in l4_head_h h) {
    return (bit<32>) h.w0 + (bit<32>) h.w1 + (bit<32>) h.w2 + (bit<32>) h.w3;
}

/* The checksum after `old_count` words summing to `old_sum` were replaced by words summing to
 * `new_sum`: HC' = ~(~HC + sum(~m) + sum(m')), where sum(~m) = old_count * 0xffff - old_sum. */
bit<16> csum_replace(in bit<16> csum, in bit<32> old_sum, in bit<32> old_count, in bit<32> new_sum) {
    bit<32> acc = (bit<32>) (~csum) + old_count * 0xffff - old_sum + new_sum;
    acc = (acc & 0xffff) + (acc >> 16);
    acc = (acc & 0xffff) + (acc >> 16);
    return ~acc[15:0];
}

control Nat64VerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl == 5,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp_ecn, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.reserved, hdr.ipv4.dont_fragment,
              hdr.ipv4.more_fragments, hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

control Nat64ComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        /* Routed packets with options keep their checksum, adjusted for the TTL in ingress. */
        update_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl == 5,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp_ecn, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.reserved, hdr.ipv4.dont_fragment,
              hdr.ipv4.more_fragments, hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
        /* The neighbour advertisement the switch builds: all of it is in headers. */
        update_checksum(meta.ndp_reply,
            { hdr.ipv6.src_addr, hdr.ipv6.dst_addr, 16w0, hdr.ipv6.payload_len, 24w0, PROTO_ICMPV6,
              hdr.icmp.type, hdr.icmp.code, hdr.icmp.identifier, hdr.icmp.sequence,
              hdr.ndp.target, hdr.ndp_option.type, hdr.ndp_option.len, hdr.ndp_option.addr },
            hdr.icmp.checksum, HashAlgorithm.csum16);
        /* The IPv4 header quoted in an ICMPv6 error translated to ICMPv4. Only there: an ICMPv4
         * error that is routed keeps the quoted header as it came, checksum included, or its
         * own ICMP checksum (not recomputed when routing) would no longer match. */
        update_checksum(hdr.inner_ipv4.isValid() && meta.xlate_src && meta.xlate_dst,
            { hdr.inner_ipv4.version, hdr.inner_ipv4.ihl, hdr.inner_ipv4.dscp_ecn, hdr.inner_ipv4.total_len,
              hdr.inner_ipv4.identification, hdr.inner_ipv4.reserved, hdr.inner_ipv4.dont_fragment,
              hdr.inner_ipv4.more_fragments, hdr.inner_ipv4.frag_offset, hdr.inner_ipv4.ttl,
              hdr.inner_ipv4.protocol, hdr.inner_ipv4.src_addr, hdr.inner_ipv4.dst_addr },
            hdr.inner_ipv4.hdr_checksum, HashAlgorithm.csum16);
        /* Second pass of an ICMP error the switch built or cut short: the whole message is summed,
         * so it needs payload access (BMv2 and softswitch; the NetFPGA variant punts these). */
        update_checksum_with_payload(meta.icmp_checksum_now && hdr.ipv4.isValid(),
            { hdr.icmp.type, hdr.icmp.code, hdr.icmp.identifier, hdr.icmp.sequence },
            hdr.icmp.checksum, HashAlgorithm.csum16);
        update_checksum_with_payload(meta.icmp_checksum_now && hdr.ipv6.isValid(),
            { hdr.ipv6.src_addr, hdr.ipv6.dst_addr, 16w0, hdr.ipv6.payload_len, 24w0, PROTO_ICMPV6,
              hdr.icmp.type, hdr.icmp.code, hdr.icmp.identifier, hdr.icmp.sequence },
            hdr.icmp.checksum, HashAlgorithm.csum16);
        /* IPv4 UDP without a checksum has none to adjust: compute it over the payload (RFC
         * 7915 4.5, stateful NAT64). Needs payload access: BMv2 and softswitch, not NetFPGA. */
        update_checksum_with_payload(meta.udp_csum_from_payload,
            { hdr.ipv6.src_addr, hdr.ipv6.dst_addr, 16w0, hdr.udp.len, 24w0, PROTO_UDP,
              hdr.udp.src_port, hdr.udp.dst_port, hdr.udp.len },
            hdr.udp.checksum, HashAlgorithm.csum16);
    }
}

#endif
