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

/* The 16-bit words of an IPv4 header's options (0 to 10 words), summed. */
bit<32> sum_option_word(in ipv4_option_h o) {
    return o.isValid() ? (bit<32>) o.word[31:16] + (bit<32>) o.word[15:0] : 0;
}
bit<32> sum_ipv4_options(in ipv4_option_h[10] o) {
    return sum_option_word(o[0]) + sum_option_word(o[1]) + sum_option_word(o[2]) + sum_option_word(o[3])
         + sum_option_word(o[4]) + sum_option_word(o[5]) + sum_option_word(o[6]) + sum_option_word(o[7])
         + sum_option_word(o[8]) + sum_option_word(o[9]);
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

/* The 16-bit words of the rest of a quoted TCP header, summed. */
bit<32> sum_tcp_tail(in tcp_tail_h h) {
    return (bit<32>) h.ack_no[31:16] + (bit<32>) h.ack_no[15:0] + (bit<32>) h.offset_flags + (bit<32>) h.window
         + (bit<32>) h.checksum + (bit<32>) h.urgent_ptr;
}

/* The 16-bit words of 32 and of 4 bytes of a quoted datagram, summed. */
bit<32> sum_quoted_chunk(in quoted_chunk_h h) {
    bit<256> d = h.data;
    return (bit<32>) d[255:240] + (bit<32>) d[239:224] + (bit<32>) d[223:208] + (bit<32>) d[207:192]
         + (bit<32>) d[191:176] + (bit<32>) d[175:160] + (bit<32>) d[159:144] + (bit<32>) d[143:128]
         + (bit<32>) d[127:112] + (bit<32>) d[111:96] + (bit<32>) d[95:80] + (bit<32>) d[79:64]
         + (bit<32>) d[63:48] + (bit<32>) d[47:32] + (bit<32>) d[31:16] + (bit<32>) d[15:0];
}
bit<32> sum_quoted_word(in quoted_word_h h) {
    return (bit<32>) h.data[31:16] + (bit<32>) h.data[15:0];
}

/* An ICMP header's words but its checksum, summed. */
bit<32> sum_icmp_header(in icmp_h h) {
    return (bit<32>) (h.type ++ h.code) + (bit<32>) h.identifier + (bit<32>) h.sequence;
}

/* A sum of 16-bit words folded into 16 bits (ones' complement addition): the checksum of the
 * words is its complement, and words that include a correct checksum fold to 0xffff. */
bit<16> csum_fold(in bit<32> sum) {
    bit<32> acc = (sum & 0xffff) + (sum >> 16);
    acc = (acc & 0xffff) + (acc >> 16);
    return acc[15:0];
}

/* Whether an IPv4 header, options included, sums to 0xffff with its checksum. */
bool ipv4_checksum_holds(in ipv4_h h, in ipv4_option_h[10] o) {
    return csum_fold(sum_ipv4_header(h) + sum_ipv4_options(o)) == 0xffff;
}

/* The checksum after `old_count` words summing to `old_sum` were replaced by words summing to
 * `new_sum`: HC' = ~(~HC + sum(~m) + sum(m')), where sum(~m) = old_count * 0xffff - old_sum. */
bit<16> csum_replace(in bit<16> csum, in bit<32> old_sum, in bit<32> old_count, in bit<32> new_sum) {
    return ~csum_fold((bit<32>) (~csum) + old_count * 0xffff - old_sum + new_sum);
}

#endif
