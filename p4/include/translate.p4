/* Which packets are translated, and to what: RFC 6052 pool6, RFC 7757 EAMT, RFC 6146 sessions.
 * This control only decides; headers are rewritten by Rewrite (rewrite.p4) once the route and
 * the next hop's MTU are known, so that an ICMP error can still quote the untouched packet.
 *
 * IPv6 -> IPv4: destination by EAMT, else by pool6 extraction; source by EAMT, else by pool6
 * extraction for the stateless SIIT prefixes, else by the session table (a miss punts the packet
 * so the controller allocates a session).
 * IPv4 -> IPv6: destination by EAMT, else embedded in pool6 for the SIIT prefixes, else by the
 * session table (a pool4 address without one is dropped, RFC 6146 3.5.1); source by EAMT, else
 * embedded in pool6.
 * An ICMP error is looked up by the packet it quotes, so it follows that packet's session. */
#ifndef NAT64_TRANSLATE_P4
#define NAT64_TRANSLATE_P4

#include "checksums.p4"

/* Asks for an error of the packet's own family instead of forwarding it; `reason` is counted
 * as the packet's drop reason when no error may be sent about it. */
void request_error(inout metadata_t meta, in bit<8> type, in bit<8> code, in bit<32> param, in bit<32> reason) {
    meta.send_error = true;
    meta.error_type = type;
    meta.error_code = code;
    meta.error_param = param;
    meta.error_drop_reason = reason;
}

/* Whether the packet was sent to one host by one host, as RFC 1812 4.3.2.7 and RFC 4443 2.4(e)
 * ask of a packet an error is about: not to a link-layer or IP multicast or broadcast address (a
 * host's IGMP and MLD reports expire here), not from an address that names no single host
 * (unspecified, "this network", loopback, multicast, class E). IPv6 to a group may still get
 * Packet Too Big (2.4(e.3), (e.4)). */
bool one_host_to_one_host(in headers_t hdr, in metadata_t meta) {
    bool too_big = meta.error_type == ICMP6_PACKET_TOO_BIG && hdr.ipv6.isValid();
    if (hdr.ethernet.isValid() && hdr.ethernet.dst_addr[40:40] == 1 && !too_big) {
        return false;
    }
    if (hdr.ipv4.isValid()) {
        bit<8> to = hdr.ipv4.dst_addr[31:24];
        bit<8> from = hdr.ipv4.src_addr[31:24];
        return to < 224 && from != 0 && from != 127 && from < 224;
    }
    if (hdr.ipv6.isValid()) {
        return (hdr.ipv6.dst_addr[127:120] != 0xff || too_big)
               && hdr.ipv6.src_addr != 0 && hdr.ipv6.src_addr[127:120] != 0xff;
    }
    return true;
}

/* Whether the frame is sent to a link-layer group (broadcast or multicast) but its IP packet to one
 * host: a router discards it silently rather than forwarding or translating it (RFC 1812 5.3.4; a
 * host does the same, RFC 1122 3.3.6). Frames the controller sends are its own. */
bool one_host_in_a_link_group_frame(in headers_t hdr, in metadata_t meta) {
    if (!hdr.ethernet.isValid() || hdr.ethernet.dst_addr[40:40] == 0 || meta.from_controller) {
        return false;
    }
    return hdr.ipv4.isValid() && hdr.ipv4.dst_addr[31:28] < 14
           || hdr.ipv6.isValid() && hdr.ipv6.dst_addr[127:120] != 0xff;
}

/* Whether the switch may answer the packet with the error it asked for. Never an error about a
 * packet not from one host to one host (above), about an ICMP error (or informational message
 * other than echo), or about an IPv4 fragment after the first (RFC 1812 4.3.2.7). About IPv6 with a
 * Fragment header, Packet Too Big (RFC 7915 5.1: a packet too large to translate) and Time
 * Exceeded (RFC 4443 3.3 and RFC 7915 5.1: MUST, whatever the packet), and Destination
 * Unreachable 1 about an atomic or first fragment an extension header follows, with TCP or UDP
 * behind it (RFC 7915 5.1, 5.4); the other errors wait for the whole datagram's first fragment.
 * On a hairpin's second pass the error goes to the NAT64's own pool4 address, and so round once
 * more to be translated back to the host that sent the packet (IcmpError). */
bool may_answer_with_error(in headers_t hdr, in metadata_t meta) {
    return one_host_to_one_host(hdr, meta) && !(hdr.icmp.isValid() && !meta.is_echo
             || hdr.ipv6_frag.isValid() && meta.error_type != ICMP6_PACKET_TOO_BIG
                && meta.error_type != ICMP6_TIME_EXCEEDED
                && !(meta.answerable_after_frag && hdr.ipv6_frag.frag_offset == 0
                     && meta.error_type == ICMP6_DEST_UNREACH && meta.error_code == 1)
             || hdr.ipv4.isValid() && hdr.ipv4.frag_offset != 0);
}

/* RFC 4884 (5.1: the original datagram at least 128 bytes) and RFC 7915 4.2 / 5.2: whether an
 * error's extension (`extension` bytes) fits the translated message's `limit` after its headers
 * (`before`) only with its `datagram` (translated, rounded to its unit) cut, and does with 128
 * bytes of it. */
bool extension_fits_only_cut(in bit<16> datagram, in bit<16> extension, in bit<16> before, in bit<16> limit) {
    bit<16> padded = datagram < ICMP_EXT_MIN_DATAGRAM ? ICMP_EXT_MIN_DATAGRAM : datagram;
    return before + padded + extension > limit && before + ICMP_EXT_MIN_DATAGRAM + extension <= limit;
}

/* RFC 6052 2.2: the IPv4 address written into a pool6 prefix around the zero "u" octet. */
ipv6_t embed_in_pool6(in ipv6_t prefix, in bit<8> length, in ipv4_t a) {
    ipv6_t at = (bit<128>) a;
    if (length == 32) {
        return prefix | (at << 64);
    } else if (length == 40) {
        return prefix | ((bit<128>) a[31:8] << 64) | ((bit<128>) a[7:0] << 48);
    } else if (length == 48) {
        return prefix | ((bit<128>) a[31:16] << 64) | ((bit<128>) a[15:0] << 40);
    } else if (length == 56) {
        return prefix | ((bit<128>) a[31:24] << 64) | ((bit<128>) a[23:0] << 32);
    } else if (length == 64) {
        return prefix | (at << 24);
    }
    return prefix | at;
}

control Translate(inout headers_t hdr, inout metadata_t meta, out bit<32> drop_reason) {
    bit<8> proto;                  /* the transport as both families name it: 6, 17 or 1 */
    bool check_remote;
    ipv6_t pool6_prefix;
    bit<8> pool6_length;

    DIRECT_COUNTER(packets_and_bytes, eamt_v6_src_counter)
    DIRECT_COUNTER(packets_and_bytes, eamt_v6_dst_counter)
    DIRECT_COUNTER(packets_and_bytes, eamt_v4_src_counter)
    DIRECT_COUNTER(packets_and_bytes, eamt_v4_dst_counter)
    DIRECT_COUNTER(packets_and_bytes, pool6_counter)
    DIRECT_COUNTER(packets_and_bytes, session_v6_counter)
    DIRECT_COUNTER(packets_and_bytes, session_v4_counter)

    /* ---- RFC 7757 EAMT: prefix pairs, suffix bits copied. The controller writes each EAM
     * into all four tables: one lookup per address and direction. ---- */
    action eam_v6_to_v4_src(ipv4_t prefix, ipv4_t suffix_mask) {
        meta.new_src4 = prefix | ((bit<32>) meta.host6 & suffix_mask);
        meta.xlate_src = true;
    }
    action eam_v6_to_v4_dst(ipv4_t prefix, ipv4_t suffix_mask) {
        meta.new_dst4 = prefix | ((bit<32>) hdr.ipv6.dst_addr & suffix_mask);
        meta.xlate_dst = true;
    }
    action eam_v4_to_v6_src(ipv6_t prefix, ipv4_t suffix_mask) {
        meta.new_src6 = prefix | (bit<128>) (meta.remote4 & suffix_mask);
        meta.xlate_src = true;
    }
    action eam_v4_to_v6_dst(ipv6_t prefix, ipv4_t suffix_mask) {
        meta.new_dst6 = prefix | (bit<128>) (hdr.ipv4.dst_addr & suffix_mask);
        meta.xlate_dst = true;
    }
    table eamt_v6_src {
        key = { meta.host6: lpm @name("ipv6_addr"); }
        actions = { eam_v6_to_v4_src; @defaultonly NoAction; }
        default_action = NoAction();
        COUNTED_BY(eamt_v6_src_counter)
        size = 4096;
    }
    table eamt_v6_dst {
        key = { hdr.ipv6.dst_addr: lpm @name("ipv6_addr"); }
        actions = { eam_v6_to_v4_dst; @defaultonly NoAction; }
        default_action = NoAction();
        COUNTED_BY(eamt_v6_dst_counter)
        size = 4096;
    }
    table eamt_v4_src {
        key = { meta.remote4: lpm @name("ipv4_addr"); }
        actions = { eam_v4_to_v6_src; @defaultonly NoAction; }
        default_action = NoAction();
        COUNTED_BY(eamt_v4_src_counter)
        size = 4096;
    }
    table eamt_v4_dst {
        key = { hdr.ipv4.dst_addr: lpm @name("ipv4_addr"); }
        actions = { eam_v4_to_v6_dst; @defaultonly NoAction; }
        default_action = NoAction();
        COUNTED_BY(eamt_v4_dst_counter)
        size = 4096;
    }

    /* ---- The source of an ICMPv6 error translated to ICMPv4 (RFC 7915 5.1, RFC 6791), when a
     * router sent it, not the host the quoted packet was for: the router's own EAM, or the IPv4
     * address a stateless SIIT router's has in pool6 (an extract_N action, below), else an
     * address of the RFC 6791 pool, else the host's translated address (its session's or EAM's),
     * which routes back to this NAT64. ---- */
    action eam_v6_error_src(ipv4_t prefix, ipv4_t suffix_mask) {
        meta.error_src4 = prefix | ((bit<32>) hdr.ipv6.src_addr & suffix_mask);
    }
    /* ---- And the source of an ICMPv4 error translated to ICMPv6 (RFC 7915 4.1 with RFC 7757
     * 3.2), when a router sent it: the router's own EAM, else its address in pool6, where under
     * the well-known prefix a non-global router's error is dropped (RFC 6052 3.1). ---- */
    action eam_v4_error_src(ipv6_t prefix, ipv4_t suffix_mask) {
        meta.error_src6 = prefix | (bit<128>) (hdr.ipv4.src_addr & suffix_mask);
    }
    /* The controller writes every EAM here too (eamt_v4_src is keyed by the remote). */
    table eamt_v4_error_src {
        key = { hdr.ipv4.src_addr: lpm @name("ipv4_addr"); }
        actions = { eam_v4_error_src; @defaultonly NoAction; }
        default_action = NoAction();
        size = 4096;
    }
    action not_global_router() { drop_reason = DROP_NOT_GLOBAL; }
    /* Under the well-known prefix, the non-global IPv4 ranges (as in pool6_embed). */
    table non_global_router {
        key = { hdr.ipv4.src_addr: lpm @name("ipv4_addr"); }
        actions = { not_global_router; @defaultonly NoAction; }
        default_action = NoAction();
        size = 64;
    }
    /* RFC 6791 5 recommends a random pool address; a hash of the router's address serves the same
     * end (hops of one traceroute rarely share an address) and one router keeps one address. */
    action use_rfc6791_pool(ipv4_t first, bit<32> count) {
        RFC6791_PICK(meta.error_src4, first, hdr.ipv6.src_addr, count)
    }
    /* Keyless: the controller sets the default action from nat64.icmpErrors.rfc6791Pool. */
    table rfc6791_pool {
        actions = { use_rfc6791_pool; NoAction; }
        default_action = NoAction();
        size = 1;
    }

    /* ---- RFC 6052 pool6: the IPv4 address around the zero "u" octet (bits 64-71) of
     * pool6_addr, the destination or (stateless SIIT) the source looked up. ---- */
    ipv6_t pool6_addr;
    ipv4_t pool6_v4;
    bool in_pool6;
    action extract_96() { pool6_v4 = pool6_addr[31:0]; in_pool6 = true; }
    action extract_64() { pool6_v4 = pool6_addr[55:24]; in_pool6 = true; }
    action extract_56() { pool6_v4 = pool6_addr[71:64] ++ pool6_addr[55:32]; in_pool6 = true; }
    action extract_48() { pool6_v4 = pool6_addr[79:64] ++ pool6_addr[55:40]; in_pool6 = true; }
    action extract_40() { pool6_v4 = pool6_addr[87:64] ++ pool6_addr[55:48]; in_pool6 = true; }
    action extract_32() { pool6_v4 = pool6_addr[95:64]; in_pool6 = true; }
    /* RFC 6052 3.1: under the well-known prefix 64:ff9b::/96, the controller adds longer
     * entries for the non-global IPv4 ranges with this action. */
    action not_global() { drop_reason = DROP_NOT_GLOBAL; }
    /* Destinations inside pool6 (one entry per pool6 prefix, the action names its length). */
    table pool6 {
        key = { hdr.ipv6.dst_addr: lpm @name("dst_addr"); }
        actions = { extract_96; extract_64; extract_56; extract_48; extract_40; extract_32; not_global;
                    @defaultonly NoAction; }
        default_action = NoAction();
        COUNTED_BY(pool6_counter)
        size = 64;
    }

    /* Stateless SIIT (RFC 7915 with RFC 6052, as in SIIT-DC and 464XLAT): IPv6 sources inside
     * pool6 whose IPv4 address is in one of the configured nat64.siitPrefixes are translated by
     * extraction, no session needed; one entry per prefix (embedded in pool6), the action naming
     * pool6's length. Other pool6 sources are not translated: no host forges an IPv4 source; pool6
     * itself has an entry (ipv4_host_source), shorter than those, that says so. */
    bool ipv4_host;
    action ipv4_host_source() { ipv4_host = true; }
    table pool6_src {
        key = { meta.host6: lpm @name("src_addr"); }
        actions = { extract_96; extract_64; extract_56; extract_48; extract_40; extract_32; not_global;
                    ipv4_host_source; @defaultonly NoAction; }
        default_action = NoAction();
        size = 1024;
    }
    /* The controller writes every EAM here too (one table can be applied once per packet), and
     * each SIIT prefix as in pool6_src. */
    table eamt_v6_error_src {
        key = { hdr.ipv6.src_addr: lpm @name("ipv6_addr"); }
        actions = { eam_v6_error_src; extract_96; extract_64; extract_56; extract_48; extract_40; extract_32;
                    @defaultonly NoAction; }
        default_action = NoAction();
        size = 4096;
    }
    /* And back: IPv4 destinations in those prefixes are written into pool6. */
    action embed_dst(ipv6_t prefix, bit<8> length) {
        meta.new_dst6 = embed_in_pool6(prefix, length, hdr.ipv4.dst_addr);
        meta.xlate_dst = true;
    }
    table siit_v4_dst {
        key = { hdr.ipv4.dst_addr: lpm @name("dst_addr"); }
        actions = { embed_dst; @defaultonly NoAction; }
        default_action = NoAction();
        size = 1024;
    }

    action use_pool6(ipv6_t prefix, bit<8> length) {
        pool6_prefix = prefix;
        pool6_length = length;
    }
    action not_global_source() { drop_reason = DROP_NOT_GLOBAL; }
    /* How IPv4 sources are written into IPv6: the controller sets the default action to the
     * deployment's pool6 prefix and length (32, 40, 48, 56, 64 or 96); under the well-known
     * prefix it adds the non-global IPv4 ranges with not_global_source. Until then IPv4 sources
     * without an EAM are not translated. */
    table pool6_embed {
        key = { meta.remote4: lpm @name("ipv4_addr"); }
        actions = { use_pool6; not_global_source; NoAction; }
        default_action = NoAction();
        size = 64;
    }

    /* ---- RFC 6146 sessions: endpoint-independent mapping, one entry per BIB entry ---- */
    /* filtered = 1: a remote the mapping has not sent to yet goes to the controller first
     * (remote_filter_v6), whose session for it is what lets that remote's packets in. */
    action snat(ipv4_t src4, bit<16> src_port, bit<1> filtered, bit<1> transitory IDLE_SLOT_PARAM) {
        IDLE_SLOT_HIT
        meta.new_src4 = src4;
        meta.new_l4_src = src_port;
        meta.xlate_src = true;
        meta.stateful = true;
        meta.transitory = transitory == 1;
        check_remote = filtered == 1;
    }
    table session_v6 {
        key = {
            proto: exact @name("proto");
            meta.host6: exact @name("src_addr");
            meta.l4_src: exact @name("src_port");
        }
        actions = { snat; @defaultonly NoAction; }
        default_action = NoAction();
        COUNTED_BY(session_v6_counter)
        IDLE_TIMEOUT
        size = SESSION_TABLE_SIZE;
    }

    /* filtered = 1: the remote must be in remote_filter (address-dependent filtering, or TCP
     * while externally initiated connections are dropped). transitory = 1: every session of the
     * mapping is in TCP's TRANS, and its packets are copied to the controller, the first of which
     * but a RST re-establishes its session (RFC 6146 3.5.2.2). */
    action dnat(ipv6_t dst6, bit<16> dst_port, bit<1> filtered, bit<1> transitory IDLE_SLOT_PARAM) {
        IDLE_SLOT_HIT
        meta.new_dst6 = dst6;
        meta.new_l4_dst = dst_port;
        meta.xlate_dst = true;
        meta.stateful = true;
        meta.transitory = transitory == 1;
        check_remote = filtered == 1;
    }
    table session_v4 {
        key = {
            proto: exact @name("proto");
            hdr.ipv4.dst_addr: exact @name("dst_addr");
            meta.l4_dst: exact @name("dst_port");
        }
        actions = { dnat; @defaultonly NoAction; }
        default_action = NoAction();
        COUNTED_BY(session_v4_counter)
        IDLE_TIMEOUT
        size = SESSION_TABLE_SIZE;
    }

    /* Remote IPv4 endpoints a mapping has sent to (address-dependent filtering, RFC 4787). */
    table remote_filter {
        key = {
            proto: exact @name("proto");
            hdr.ipv4.dst_addr: exact @name("dst_addr");
            meta.l4_dst: exact @name("dst_port");
            hdr.ipv4.src_addr: exact @name("remote_addr");
        }
        actions = { NoAction; }
        default_action = NoAction();
        size = SESSION_TABLE_SIZE;
    }
    /* The same remotes as the IPv6 host's packets name them (RFC 6146 3.5.1, 3.5.2.2: a packet to a
     * new remote makes its session, with address-dependent filtering too). */
    table remote_filter_v6 {
        key = {
            proto: exact @name("proto");
            meta.host6: exact @name("src_addr");
            meta.l4_src: exact @name("src_port");
            meta.new_dst4: exact @name("remote_addr");
        }
        actions = { NoAction; }
        default_action = NoAction();
        size = SESSION_TABLE_SIZE;
    }

    /* RFC 7915 4.5: IPv4 UDP without a checksum is given one (computed over the payload), or
     * dropped when the controller sets drop_udp_without_checksum (nat64.udpZeroChecksum "drop"),
     * answered with the error of 4.4. */
    action drop_udp_without_checksum() {
        request_error(meta, ICMP_DEST_UNREACH, 13, 0, DROP_UDP_ZERO_CHECKSUM);
    }
    table udp_zero_checksum {
        actions = { drop_udp_without_checksum; NoAction; }
        default_action = NoAction();
        size = 1;
    }

    /* RFC 6146 3.5.2.2, RFC 5382 REQ-4: an IPv4 SYN the NAT64 would not translate (no BIB
     * entry, or filtered) may be half of a simultaneous open; the controller holds it for
     * TCP_INCOMING_SYN, until the IPv6 side's SYN comes (then it drops it) or the time is up (then
     * it answers Port Unreachable). With check_inbound_syns (externallyInitiatedTcp "drop"),
     * dropped, and one the address filter lets in goes to the controller, which lets in only that
     * of a connection the host opened (a simultaneous open): the filter cannot tell the remote's
     * ports apart. With NoAction (no SYN may be held), dropped. */
    bool hold_syns;
    bool syns_need_session;
    action hold_inbound_syns() { hold_syns = true; }
    action check_inbound_syns() { syns_need_session = true; }
    table inbound_syn {
        actions = { hold_inbound_syns; check_inbound_syns; NoAction; }
        default_action = NoAction();
        size = 1;
    }

    bool unmapped_unreachable;
    /* unmapped_port_unreachable = 1: UDP that no BIB entry maps is answered (RFC 6146 3.5.1). */
    action in_pool4(bit<1> unmapped_port_unreachable) {
        unmapped_unreachable = unmapped_port_unreachable == 1;
    }
    /* The IPv4 addresses the NAT64 owns: without a session their packets are dropped, UDP
     * answered with Port Unreachable when the entry says so. */
    table pool4 {
        key = { hdr.ipv4.dst_addr: lpm @name("dst_addr"); }
        actions = { in_pool4; @defaultonly NoAction; }
        default_action = NoAction();
        size = 1024;
    }


    apply {
        proto = 0;
        check_remote = false;
        pool6_prefix = 0;
        pool6_length = 0;
        drop_reason = DROP_REASONS;   /* none */
        if (meta.is_icmp_error) {
            proto = meta.inner_proto;
        } else if (hdr.tcp.isValid()) {
            proto = PROTO_TCP;
        } else if (hdr.udp.isValid()) {
            proto = PROTO_UDP;
        } else if (meta.is_echo) {
            proto = PROTO_ICMP;
        }
        meta.new_l4_src = meta.l4_src;
        meta.new_l4_dst = meta.l4_dst;
        bool icmp_untranslatable = hdr.icmp.isValid() && !meta.is_echo && !meta.is_icmp_error;

        if (hdr.ipv6.isValid()) {
            meta.host6 = meta.is_icmp_error ? hdr.inner_ipv6.dst_addr : hdr.ipv6.src_addr;
            if (!eamt_v6_dst.apply().hit) {
                pool6_addr = hdr.ipv6.dst_addr;
                in_pool6 = false;
                pool6.apply();
                if (in_pool6) {
                    meta.new_dst4 = pool6_v4;
                    meta.xlate_dst = true;
                }
            }
            if (!meta.xlate_dst || drop_reason != DROP_REASONS) {
                return;                                 /* not for translation: routed as IPv6 */
            }
            if (meta.routing_segments_left != 0) {
                /* RFC 7915 5.1: Parameter Problem pointing at Segments Left. */
                request_error(meta, ICMP6_PARAM_PROBLEM, 0, (bit<32>) meta.routing_pointer, DROP_NOT_TRANSLATABLE);
                return;
            }
            if (meta.ipv6_ext_unparsed) {
                /* More extension headers than the parser walks: what follows them is unknown; or
                 * one after a Fragment header (RFC 7915 5.1: dropped; 5.4: 1/1, not about a
                 * later fragment, which has no header to quote). */
                request_error(meta, ICMP6_DEST_UNREACH, 1, 0, DROP_NOT_TRANSLATABLE);
                return;
            }
            /* An error in a fragment of several cannot be checked or translated alone (its checksum
             * covers them all); one in an atomic fragment is (RFC 6946 4, RFC 7915 5.1.1). An error
             * whose quoted packet the host did not receive is not about a packet this NAT64 sent. */
            if (meta.is_icmp_error && (hdr.ipv6_frag.isValid()
                    && (hdr.ipv6_frag.frag_offset != 0 || hdr.ipv6_frag.more_fragments == 1)
                    || hdr.inner_ipv6.src_addr != hdr.ipv6.dst_addr)) {
                drop_reason = DROP_ICMP_ERROR;
                return;
            }
            if (hdr.ipv6.hop_limit <= 1) {
                request_error(meta, ICMP6_TIME_EXCEEDED, 0, 0, DROP_TTL_EXPIRED);   /* before any session is made */
                return;
            }
            ipv4_host = eamt_v6_src.apply().hit;
            if (!ipv4_host) {
                pool6_addr = meta.host6;
                in_pool6 = false;
                pool6_src.apply();
                if (drop_reason != DROP_REASONS) {
                    return;                             /* RFC 6052 3.1: a non-global source */
                }
                if (in_pool6) {
                    meta.new_src4 = pool6_v4;
                    meta.xlate_src = true;
                    ipv4_host = true;
                }
            }
            if (ipv4_host && meta.from_controller && !meta.is_icmp_error) {
                /* A source with an IPv4 address of its own (an EAM, or in pool6) in what the
                 * controller sends: translated from IPv4 already (its fragments and echoes), to be
                 * routed, not turned back (it never sends an EAM or SIIT host's packet
                 * untranslated; an error, looked up by the host it quotes, it sends to translate). */
                meta.xlate_dst = false;
                return;
            }
            if (meta.xlate_src) {
                if (hdr.ipv6_frag.isValid() && hdr.ipv6_frag.frag_offset != 0
                        && hdr.ipv6_frag.next_hdr == PROTO_ICMPV6) {
                    /* A stateless (EAM, SIIT) ICMPv6 datagram's later fragment: the controller,
                     * which holds an echo's first fragment until the last has told the message's
                     * length, translates it with the others (as a session's below). */
                    meta.punt_reason = PUNT_FRAGMENT;
                    return;
                }
            } else {
                if (hdr.ipv6_frag.isValid() && hdr.ipv6_frag.frag_offset != 0) {
                    /* RFC 6146 3.4: no ports to look a session up by; the controller translates
                     * it as it saw its datagram's first fragment translated (PUNT_FIRST_FRAGMENT). */
                    meta.punt_reason = PUNT_FRAGMENT;
                    return;
                }
                if (proto == 0) {
                    /* RFC 7915 5.4: no transport address to map. */
                    request_error(meta, ICMP6_DEST_UNREACH, 1, 0, DROP_NOT_TRANSLATABLE);
                    return;
                }
                if (!session_v6.apply().hit) {
                    if (meta.is_icmp_error) {
                        drop_reason = DROP_ICMP_ERROR;
                    } else {
                        meta.punt_reason = PUNT_SESSION_MISS;
                    }
                    return;
                }
                if (check_remote && !meta.is_icmp_error && !remote_filter_v6.apply().hit) {
                    meta.punt_reason = PUNT_SESSION_MISS;   /* a remote the mapping has no session with */
                    return;
                }
            }
            if (icmp_untranslatable) {
                drop_reason = DROP_NOT_TRANSLATABLE;    /* RFC 7915 5.2: informational other than echo */
                return;
            }
            if (meta.is_echo && hdr.ipv6_frag.isValid() && hdr.ipv6_frag.more_fragments == 1) {
                /* The ICMPv6 checksum's pseudo-header counts the whole message, which the first
                 * of several fragments does not tell: it goes to the controller, which translates
                 * it once the last fragment has told (RFC 6146 3.4), a session's or a stateless one's. */
                meta.punt_reason = PUNT_FRAGMENT;
                return;
            }
            meta.error_src4 = meta.new_src4;
            if (meta.is_icmp_error && hdr.ipv6.src_addr != meta.host6) {
                pool6_addr = hdr.ipv6.src_addr;
                in_pool6 = false;
                if (!eamt_v6_error_src.apply().hit) {
                    rfc6791_pool.apply();
                } else if (in_pool6) {
                    meta.error_src4 = pool6_v4;
                }
            }
            if (meta.is_icmp_error && meta.icmp_ext_datagram != 0 && !meta.from_controller
                    && extension_fits_only_cut(meta.icmp_ext_datagram - (hdr.inner_frag.isValid() ? 16w28 : 16w20),
                                               meta.icmp_payload - meta.icmp_ext_datagram, 28, ICMP4_ERROR_MAX)) {
                meta.punt_reason = PUNT_ICMP_EXTENSION;
                return;
            }
        } else if (hdr.ipv4.isValid()) {
            meta.remote4 = meta.is_icmp_error ? hdr.inner_ipv4.dst_addr : hdr.ipv4.src_addr;
            hold_syns = false;
            syns_need_session = false;
            if (hdr.tcp.isValid() && !meta.is_icmp_error && hdr.ipv4.frag_offset == 0
                    && (hdr.tcp.flags & 0x17) == 0x02) {    /* a plain SYN: no ACK, RST or FIN */
                inbound_syn.apply();
            }
            if (eamt_v4_dst.apply().hit || siit_v4_dst.apply().hit) {
                if (meta.from_controller && !meta.hairpinned && !meta.probe && !meta.is_icmp_error) {
                    /* IPv4 the controller translated from IPv6 itself (an echo's fragments, a
                     * session's after the first) to a host an EAM or SIIT prefix names: routed,
                     * not turned back; where the route is a hairpin, the next pass translates it
                     * back (RFC 7757 4.2) as it would the pipeline's own. */
                    meta.xlate_dst = false;
                    return;
                }
            } else {
                if (proto != 0 && session_v4.apply().hit) {
                    /* Errors come from routers on the path, not from the remote: not filtered. */
                    if (check_remote && !meta.is_icmp_error) {
                        if (!remote_filter.apply().hit) {
                            if (hold_syns) {
                                meta.punt_reason = PUNT_INBOUND_SYN;
                            } else {
                                drop_reason = DROP_FILTERED;
                            }
                            return;
                        }
                        if (syns_need_session && !meta.from_controller) {
                            meta.punt_reason = PUNT_INBOUND_SYN;
                            return;
                        }
                    }
                } else {
                    unmapped_unreachable = false;
                    if (pool4.apply().hit) {
                        if (hdr.ipv4.frag_offset != 0) {
                            meta.punt_reason = PUNT_FRAGMENT;   /* as from IPv6 above (RFC 6146 3.4) */
                        } else if (unmapped_unreachable && hdr.udp.isValid() && !meta.is_icmp_error) {
                            request_error(meta, ICMP_DEST_UNREACH, 3, 0, DROP_POOL4_NO_BIB);
                        } else if (hold_syns) {
                            meta.punt_reason = PUNT_INBOUND_SYN;
                        } else {
                            drop_reason = DROP_POOL4_NO_BIB;
                        }
                    }
                    return;                             /* not for translation: routed as IPv4 */
                }
            }
            if (hdr.ipv4.frag_offset != 0 && hdr.ipv4.protocol == PROTO_ICMP) {
                /* A stateless ICMP datagram's later fragment: with the others, as from IPv6 above. */
                meta.punt_reason = PUNT_FRAGMENT;
                return;
            }
            if (meta.is_icmp_error && (hdr.ipv4.frag_offset != 0 || hdr.ipv4.more_fragments == 1
                                       || hdr.inner_ipv4.src_addr != hdr.ipv4.dst_addr)) {
                drop_reason = DROP_ICMP_ERROR;
                return;
            }
            if (meta.unexpired_source_route) {
                /* RFC 7915 4.1: MUST be discarded, and SHOULD get Source Route Failed. */
                request_error(meta, ICMP_DEST_UNREACH, 5, 0, DROP_SOURCE_ROUTE);
                return;
            }
            if (hdr.udp.isValid() && hdr.udp.checksum == 0) {
                if (hdr.ipv4.more_fragments == 1 || hdr.udp.len != hdr.ipv4.total_len - ((bit<16>) hdr.ipv4.ihl << 2)) {
                    /* RFC 7915 4.5: the checksum of a fragmented datagram cannot be computed from
                     * its first fragment (the switch does not reassemble), nor that of a datagram
                     * whose UDP Length is not its IP payload's (a surplus area after it, where UDP
                     * options go: the sum runs to the packet's end): drop it; 4.4: 3/13. */
                    request_error(meta, ICMP_DEST_UNREACH, 13, 0, DROP_UDP_ZERO_CHECKSUM);
                } else {
                    udp_zero_checksum.apply();
                }
                if (meta.send_error) {
                    return;
                }
            }
            pool6_embed.apply();
            if (drop_reason != DROP_REASONS) {
                return;
            }
            /* RFC 7757 4.2 (its Appendix B example): a hairpinned packet's source is written into
             * pool6, not mapped back by the EAMT, so that the host sees where it came through. */
            if (meta.hairpinned || !eamt_v4_src.apply().hit) {
                if (pool6_length == 0) {
                    /* RFC 7915 4.4: no pool6 to write the source into. */
                    request_error(meta, ICMP_DEST_UNREACH, 13, 0, DROP_NOT_TRANSLATABLE);
                    return;
                }
                meta.new_src6 = embed_in_pool6(pool6_prefix, pool6_length, meta.remote4);
                meta.xlate_src = true;
            }
            /* The router that sent an ICMP error: by its EAM or in pool6, or as the remote when it is one. */
            meta.error_src6 = meta.new_src6;
            if (meta.is_icmp_error && hdr.ipv4.src_addr != meta.remote4 && !eamt_v4_error_src.apply().hit) {
                non_global_router.apply();
                if (drop_reason != DROP_REASONS) {
                    return;                             /* RFC 6052 3.1: a non-global router */
                }
                if (pool6_length != 0) {
                    meta.error_src6 = embed_in_pool6(pool6_prefix, pool6_length, hdr.ipv4.src_addr);
                }
            }
            if (icmp_untranslatable) {
                drop_reason = DROP_NOT_TRANSLATABLE;    /* RFC 7915 4.2: informational other than echo */
                return;
            }
            if (meta.is_echo && hdr.ipv4.more_fragments == 1) {
                /* The first of several fragments of an echo, whose ICMPv6 pseudo-header needs the
                 * whole message's length: as from IPv6 above. */
                meta.punt_reason = PUNT_FRAGMENT;
                return;
            }
            if (hdr.ipv4.ttl <= 1 && !meta.hairpinned) {
                request_error(meta, ICMP_TIME_EXCEEDED, 0, 0, DROP_TTL_EXPIRED);
                return;
            }
            /* As from IPv6 above, where the error becomes an ICMPv6 one with a length attribute
             * (RFC 7915 4.2: not Packet Too Big from 3/4, nor Parameter Problem from 3/2; 3/14 and
             * codes over 15 are dropped); its datagram grows by 20 less the quoted options, and 8
             * for a Fragment header. */
            if (meta.is_icmp_error && meta.icmp_ext_datagram != 0 && !meta.from_controller && !meta.hairpinned
                    && (hdr.icmp.type == ICMP_TIME_EXCEEDED || hdr.icmp.type == ICMP_DEST_UNREACH && hdr.icmp.code <= 15
                        && hdr.icmp.code != 2 && hdr.icmp.code != 4 && hdr.icmp.code != 14)
                    && extension_fits_only_cut((meta.icmp_ext_datagram + (hdr.inner_ipv4.more_fragments == 1
                                                   || hdr.inner_ipv4.frag_offset != 0 ? 16w28 : 16w20)
                                                + 20 - ((bit<16>) hdr.inner_ipv4.ihl << 2) + 7) & 0xfff8,
                                               meta.icmp_payload - meta.icmp_ext_datagram, 48, ICMP6_ERROR_MAX)) {
                meta.punt_reason = PUNT_ICMP_EXTENSION;
                return;
            }
        }
    }
}

#endif
