/* RFC 7915 translation with RFC 6052 pool6, RFC 7757 EAMT and RFC 6146 sessions.
 *
 * IPv6 -> IPv4: destination by EAMT, else by pool6 extraction; source by EAMT, else by the
 * session table (a miss punts the packet so the controller allocates a session).
 * IPv4 -> IPv6: destination by EAMT, else by the session table (a pool4 address without one is
 * dropped, RFC 6146 3.5.1); source by EAMT, else embedded in pool6. */
#ifndef NAT64_TRANSLATE_P4
#define NAT64_TRANSLATE_P4

#include "checksums.p4"

control Translate(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t standard_metadata,
                  out bit<32> drop_reason) {
    bit<8> proto;                  /* the transport as both families name it: 6, 17 or 1 */
    bool check_remote;

    direct_counter(CounterType.packets_and_bytes) eamt_v6_src_counter;
    direct_counter(CounterType.packets_and_bytes) eamt_v6_dst_counter;
    direct_counter(CounterType.packets_and_bytes) eamt_v4_src_counter;
    direct_counter(CounterType.packets_and_bytes) eamt_v4_dst_counter;
    direct_counter(CounterType.packets_and_bytes) pool6_counter;
    direct_counter(CounterType.packets_and_bytes) session_v6_counter;
    direct_counter(CounterType.packets_and_bytes) session_v4_counter;

    /* ---- RFC 7757 EAMT: prefix pairs, suffix bits copied ---- */
    action eam_v6_to_v4_src(ipv4_t prefix, ipv4_t suffix_mask) {
        meta.new_src4 = prefix | ((bit<32>) hdr.ipv6.src_addr & suffix_mask);
        meta.xlate_src = true;
    }
    action eam_v6_to_v4_dst(ipv4_t prefix, ipv4_t suffix_mask) {
        meta.new_dst4 = prefix | ((bit<32>) hdr.ipv6.dst_addr & suffix_mask);
        meta.xlate_dst = true;
    }
    action eam_v4_to_v6_src(ipv6_t prefix, ipv4_t suffix_mask) {
        meta.new_src6 = prefix | (bit<128>) (hdr.ipv4.src_addr & suffix_mask);
        meta.xlate_src = true;
    }
    action eam_v4_to_v6_dst(ipv6_t prefix, ipv4_t suffix_mask) {
        meta.new_dst6 = prefix | (bit<128>) (hdr.ipv4.dst_addr & suffix_mask);
        meta.xlate_dst = true;
    }
    table eamt_v6_src {
        key = { hdr.ipv6.src_addr: lpm; }
        actions = { eam_v6_to_v4_src; @defaultonly NoAction; }
        default_action = NoAction();
        counters = eamt_v6_src_counter;
        size = 4096;
    }
    table eamt_v6_dst {
        key = { hdr.ipv6.dst_addr: lpm; }
        actions = { eam_v6_to_v4_dst; @defaultonly NoAction; }
        default_action = NoAction();
        counters = eamt_v6_dst_counter;
        size = 4096;
    }
    table eamt_v4_src {
        key = { hdr.ipv4.src_addr: lpm; }
        actions = { eam_v4_to_v6_src; @defaultonly NoAction; }
        default_action = NoAction();
        counters = eamt_v4_src_counter;
        size = 4096;
    }
    table eamt_v4_dst {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { eam_v4_to_v6_dst; @defaultonly NoAction; }
        default_action = NoAction();
        counters = eamt_v4_dst_counter;
        size = 4096;
    }

    /* ---- RFC 6052 pool6: the IPv4 address around the zero "u" octet (bits 64-71) ---- */
    action extract_96() { meta.new_dst4 = hdr.ipv6.dst_addr[31:0]; meta.xlate_dst = true; }
    action extract_64() { meta.new_dst4 = hdr.ipv6.dst_addr[55:24]; meta.xlate_dst = true; }
    action extract_56() { meta.new_dst4 = hdr.ipv6.dst_addr[71:64] ++ hdr.ipv6.dst_addr[55:32]; meta.xlate_dst = true; }
    action extract_48() { meta.new_dst4 = hdr.ipv6.dst_addr[79:64] ++ hdr.ipv6.dst_addr[55:40]; meta.xlate_dst = true; }
    action extract_40() { meta.new_dst4 = hdr.ipv6.dst_addr[87:64] ++ hdr.ipv6.dst_addr[55:48]; meta.xlate_dst = true; }
    action extract_32() { meta.new_dst4 = hdr.ipv6.dst_addr[95:64]; meta.xlate_dst = true; }
    /* Destinations inside pool6 (one entry per pool6 prefix, the action names its length). */
    table pool6 {
        key = { hdr.ipv6.dst_addr: lpm; }
        actions = { extract_96; extract_64; extract_56; extract_48; extract_40; extract_32; @defaultonly NoAction; }
        default_action = NoAction();
        counters = pool6_counter;
        size = 64;
    }

    action embed_96(ipv6_t prefix) { meta.new_src6 = prefix | (bit<128>) hdr.ipv4.src_addr; }
    action embed_64(ipv6_t prefix) { meta.new_src6 = prefix | ((bit<128>) hdr.ipv4.src_addr << 24); }
    action embed_56(ipv6_t prefix) {
        meta.new_src6 = prefix | ((bit<128>) hdr.ipv4.src_addr[31:24] << 64) | ((bit<128>) hdr.ipv4.src_addr[23:0] << 32);
    }
    action embed_48(ipv6_t prefix) {
        meta.new_src6 = prefix | ((bit<128>) hdr.ipv4.src_addr[31:16] << 64) | ((bit<128>) hdr.ipv4.src_addr[15:0] << 40);
    }
    action embed_40(ipv6_t prefix) {
        meta.new_src6 = prefix | ((bit<128>) hdr.ipv4.src_addr[31:8] << 64) | ((bit<128>) hdr.ipv4.src_addr[7:0] << 48);
    }
    action embed_32(ipv6_t prefix) { meta.new_src6 = prefix | ((bit<128>) hdr.ipv4.src_addr << 64); }
    /* How IPv4 sources are written into IPv6: the controller sets the default action to the
     * embedding of the deployment's pool6 prefix. Until then IPv4 is not translated. */
    table pool6_embed {
        key = { }
        actions = { embed_96; embed_64; embed_56; embed_48; embed_40; embed_32; NoAction; }
        default_action = NoAction();
    }

    /* ---- RFC 6146 sessions: endpoint-independent mapping, one entry per BIB entry ---- */
    action snat(ipv4_t src4, bit<16> src_port) {
        meta.new_src4 = src4;
        meta.new_l4_src = src_port;
        meta.xlate_src = true;
        meta.stateful = true;
    }
    table session_v6 {
        key = {
            proto: exact @name("proto");
            hdr.ipv6.src_addr: exact;
            meta.l4_src: exact @name("src_port");
        }
        actions = { snat; @defaultonly NoAction; }
        default_action = NoAction();
        counters = session_v6_counter;
        support_timeout = true;
        size = 65536;
    }

    /* filtered = 1: address-dependent filtering, the remote must be in remote_filter. */
    action dnat(ipv6_t dst6, bit<16> dst_port, bit<1> filtered) {
        meta.new_dst6 = dst6;
        meta.new_l4_dst = dst_port;
        meta.xlate_dst = true;
        meta.stateful = true;
        check_remote = filtered == 1;
    }
    table session_v4 {
        key = {
            proto: exact @name("proto");
            hdr.ipv4.dst_addr: exact;
            meta.l4_dst: exact @name("dst_port");
        }
        actions = { dnat; @defaultonly NoAction; }
        default_action = NoAction();
        counters = session_v4_counter;
        support_timeout = true;
        size = 65536;
    }

    /* Remote IPv4 endpoints a mapping has sent to (address-dependent filtering, RFC 4787). */
    table remote_filter {
        key = {
            proto: exact @name("proto");
            hdr.ipv4.dst_addr: exact;
            meta.l4_dst: exact @name("dst_port");
            hdr.ipv4.src_addr: exact;
        }
        actions = { NoAction; }
        default_action = NoAction();
        size = 65536;
    }

    action in_pool4() { }
    /* The IPv4 addresses the NAT64 owns: without a session their packets are dropped. */
    table pool4 {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { in_pool4; @defaultonly NoAction; }
        default_action = NoAction();
        size = 1024;
    }

    /* ---- header builders ---- */
    action v6_to_v4() {
        bit<16> l4_len = hdr.ipv6.payload_len;
        bit<8> next = hdr.ipv6.next_hdr;
        hdr.ipv4.setValid();
        hdr.ipv4.version = 4;
        hdr.ipv4.ihl = 5;
        hdr.ipv4.dscp_ecn = hdr.ipv6.traffic_class;
        hdr.ipv4.reserved = 0;
        hdr.ipv4.identification = 0;
        hdr.ipv4.more_fragments = 0;
        hdr.ipv4.frag_offset = 0;
        if (hdr.ipv6_frag.isValid()) {
            l4_len = l4_len - 8;
            next = hdr.ipv6_frag.next_hdr;
            hdr.ipv4.identification = hdr.ipv6_frag.identification[15:0];
            hdr.ipv4.more_fragments = hdr.ipv6_frag.more_fragments;
            hdr.ipv4.frag_offset = hdr.ipv6_frag.frag_offset;
        }
        hdr.ipv4.total_len = l4_len + 20;
        /* RFC 7915 5.1: DF set when the IPv4 packet is larger than 1260 bytes, unfragmented. */
        hdr.ipv4.dont_fragment = (bit<1>) (!hdr.ipv6_frag.isValid() && hdr.ipv4.total_len > 1260);
        hdr.ipv4.ttl = hdr.ipv6.hop_limit - 1;
        hdr.ipv4.protocol = next == PROTO_ICMPV6 ? PROTO_ICMP : next;
        hdr.ipv4.hdr_checksum = 0;
        hdr.ipv4.src_addr = meta.new_src4;
        hdr.ipv4.dst_addr = meta.new_dst4;
        hdr.ethernet.ether_type = ETHERTYPE_IPV4;
    }

    action v4_to_v6() {
        bit<16> l4_len = hdr.ipv4.total_len - ((bit<16>) hdr.ipv4.ihl << 2);
        hdr.ipv6.setValid();
        hdr.ipv6.version = 6;
        hdr.ipv6.traffic_class = hdr.ipv4.dscp_ecn;
        hdr.ipv6.flow_label = 0;
        hdr.ipv6.payload_len = l4_len;
        hdr.ipv6.next_hdr = hdr.ipv4.protocol == PROTO_ICMP ? PROTO_ICMPV6 : hdr.ipv4.protocol;
        hdr.ipv6.hop_limit = hdr.ipv4.ttl - 1;
        hdr.ipv6.src_addr = meta.new_src6;
        hdr.ipv6.dst_addr = meta.new_dst6;
        if (hdr.ipv4.more_fragments == 1 || hdr.ipv4.frag_offset != 0) {
            /* RFC 7915 4.1: a fragment keeps its identification in a Fragment header. */
            hdr.ipv6_frag.setValid();
            hdr.ipv6_frag.next_hdr = hdr.ipv6.next_hdr;
            hdr.ipv6_frag.reserved = 0;
            hdr.ipv6_frag.frag_offset = hdr.ipv4.frag_offset;
            hdr.ipv6_frag.res = 0;
            hdr.ipv6_frag.more_fragments = hdr.ipv4.more_fragments;
            hdr.ipv6_frag.identification = (bit<32>) hdr.ipv4.identification;
            hdr.ipv6.next_hdr = PROTO_FRAG;
            hdr.ipv6.payload_len = l4_len + 8;
        }
        hdr.ipv4.setInvalid();
        hdr.ipv4_options[0].setInvalid();
        hdr.ipv4_options[1].setInvalid();
        hdr.ipv4_options[2].setInvalid();
        hdr.ipv4_options[3].setInvalid();
        hdr.ipv4_options[4].setInvalid();
        hdr.ipv4_options[5].setInvalid();
        hdr.ipv4_options[6].setInvalid();
        hdr.ipv4_options[7].setInvalid();
        hdr.ipv4_options[8].setInvalid();
        hdr.ipv4_options[9].setInvalid();
        hdr.ethernet.ether_type = ETHERTYPE_IPV6;
    }

    apply {
        proto = 0;
        check_remote = false;
        drop_reason = DROP_REASONS;   /* none */
        if (hdr.tcp.isValid()) {
            proto = PROTO_TCP;
        } else if (hdr.udp.isValid()) {
            proto = PROTO_UDP;
        } else if (meta.is_echo) {
            proto = PROTO_ICMP;
        }
        meta.new_l4_src = meta.l4_src;
        meta.new_l4_dst = meta.l4_dst;

        if (hdr.ipv6.isValid()) {
            if (!eamt_v6_dst.apply().hit) {
                pool6.apply();
            }
            if (!meta.xlate_dst) {
                return;                                 /* not for translation: routed as IPv6 */
            }
            if (hdr.ipv6.hop_limit <= 1) {
                meta.punt_reason = PUNT_TTL_EXPIRED;    /* before any session is allocated for it */
                return;
            }
            if (!eamt_v6_src.apply().hit) {
                if (proto == 0 || hdr.ipv6_frag.isValid() && hdr.ipv6_frag.frag_offset != 0) {
                    drop_reason = DROP_NOT_TRANSLATABLE;  /* no transport address to map */
                    return;
                }
                if (!session_v6.apply().hit) {
                    meta.punt_reason = PUNT_SESSION_MISS;
                    return;
                }
            }
            if (hdr.icmp.isValid() && !meta.is_echo) {
                drop_reason = DROP_NOT_TRANSLATABLE;      /* RFC 7915 5.2: other ICMPv6 not yet translated */
                return;
            }
            /* Transport checksums: the pseudo-header addresses and the ports change. */
            bit<32> old_sum = sum_v6(hdr.ipv6.src_addr) + sum_v6(hdr.ipv6.dst_addr)
                              + (bit<32>) meta.l4_src + (bit<32>) meta.l4_dst;
            bit<32> new_sum = sum_v4(meta.new_src4) + sum_v4(meta.new_dst4)
                              + (bit<32>) meta.new_l4_src + (bit<32>) meta.new_l4_dst;
            if (hdr.tcp.isValid()) {
                hdr.tcp.src_port = meta.new_l4_src;
                hdr.tcp.dst_port = meta.new_l4_dst;
                hdr.tcp.checksum = csum_replace(hdr.tcp.checksum, old_sum, 18, new_sum);
            } else if (hdr.udp.isValid()) {
                hdr.udp.src_port = meta.new_l4_src;
                hdr.udp.dst_port = meta.new_l4_dst;
                hdr.udp.checksum = csum_replace(hdr.udp.checksum, old_sum, 18, new_sum);
                if (hdr.udp.checksum == 0) {
                    hdr.udp.checksum = 0xffff;
                }
            } else {
                /* ICMPv6 echo -> ICMP echo: the pseudo-header leaves the sum; type and
                 * identifier change. Identifier counted once (it is both "ports"). */
                bit<8> type4 = hdr.icmp.type == ICMP6_ECHO_REQUEST ? ICMP_ECHO_REQUEST : ICMP_ECHO_REPLY;
                bit<16> upper_len = hdr.ipv6.payload_len;
                bit<32> old_icmp = sum_v6(hdr.ipv6.src_addr) + sum_v6(hdr.ipv6.dst_addr) + (bit<32>) upper_len
                                   + (bit<32>) PROTO_ICMPV6 + (bit<32>) (hdr.icmp.type ++ hdr.icmp.code)
                                   + (bit<32>) meta.l4_src;
                bit<32> new_icmp = (bit<32>) (type4 ++ hdr.icmp.code) + (bit<32>) meta.new_l4_src;
                hdr.icmp.checksum = csum_replace(hdr.icmp.checksum, old_icmp, 22, new_icmp);
                hdr.icmp.type = type4;
                hdr.icmp.identifier = meta.new_l4_src;
            }
            v6_to_v4();
            hdr.ipv6.setInvalid();
            hdr.ipv6_frag.setInvalid();
        } else if (hdr.ipv4.isValid()) {
            if (!eamt_v4_dst.apply().hit) {
                if (proto != 0 && session_v4.apply().hit) {
                    if (check_remote && !remote_filter.apply().hit) {
                        drop_reason = DROP_FILTERED;
                        return;
                    }
                } else {
                    if (pool4.apply().hit) {
                        drop_reason = DROP_POOL4_NO_BIB;
                    }
                    return;                             /* not for translation: routed as IPv4 */
                }
            }
            if (!eamt_v4_src.apply().hit) {
                switch (pool6_embed.apply().action_run) {
                    NoAction: {
                        drop_reason = DROP_NOT_TRANSLATABLE;   /* no pool6 configured */
                        return;
                    }
                }
                meta.xlate_src = true;
            }
            if (hdr.icmp.isValid() && !meta.is_echo) {
                drop_reason = DROP_NOT_TRANSLATABLE;      /* RFC 7915 4.2: other ICMP not yet translated */
                return;
            }
            if (hdr.ipv4.ttl <= 1) {
                meta.punt_reason = PUNT_TTL_EXPIRED;
                return;
            }
            bit<32> old_sum = sum_v4(hdr.ipv4.src_addr) + sum_v4(hdr.ipv4.dst_addr)
                              + (bit<32>) meta.l4_src + (bit<32>) meta.l4_dst;
            bit<32> new_sum = sum_v6(meta.new_src6) + sum_v6(meta.new_dst6)
                              + (bit<32>) meta.new_l4_src + (bit<32>) meta.new_l4_dst;
            if (hdr.tcp.isValid()) {
                hdr.tcp.src_port = meta.new_l4_src;
                hdr.tcp.dst_port = meta.new_l4_dst;
                hdr.tcp.checksum = csum_replace(hdr.tcp.checksum, old_sum, 6, new_sum);
            } else if (hdr.udp.isValid()) {
                hdr.udp.src_port = meta.new_l4_src;
                hdr.udp.dst_port = meta.new_l4_dst;
                if (hdr.udp.checksum == 0) {
                    meta.udp_csum_from_payload = true;
                } else {
                    hdr.udp.checksum = csum_replace(hdr.udp.checksum, old_sum, 6, new_sum);
                    if (hdr.udp.checksum == 0) {
                        hdr.udp.checksum = 0xffff;
                    }
                }
            } else {
                bit<8> type6 = hdr.icmp.type == ICMP_ECHO_REQUEST ? ICMP6_ECHO_REQUEST : ICMP6_ECHO_REPLY;
                bit<16> upper_len = hdr.ipv4.total_len - ((bit<16>) hdr.ipv4.ihl << 2);
                bit<32> old_icmp = (bit<32>) (hdr.icmp.type ++ hdr.icmp.code) + (bit<32>) meta.l4_dst;
                bit<32> new_icmp = sum_v6(meta.new_src6) + sum_v6(meta.new_dst6) + (bit<32>) upper_len
                                   + (bit<32>) PROTO_ICMPV6 + (bit<32>) (type6 ++ hdr.icmp.code)
                                   + (bit<32>) meta.new_l4_dst;
                hdr.icmp.checksum = csum_replace(hdr.icmp.checksum, old_icmp, 2, new_icmp);
                hdr.icmp.type = type6;
                hdr.icmp.identifier = meta.new_l4_dst;
            }
            v4_to_v6();
        }
    }
}

#endif
