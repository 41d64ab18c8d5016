/* RFC 7915 header translation, once Translate has decided the new addresses and ports.
 * Transport and ICMP checksums are adjusted incrementally (RFC 1624) from the words that change,
 * never summed over the payload: what NetFPGA requires. ICMP errors are translated with the
 * packet they quote (addresses, ports, checksums) and the type, code, MTU and pointer maps. */
#ifndef NAT64_REWRITE_P4
#define NAT64_REWRITE_P4

#include "checksums.p4"

/* RFC 1191 plateaus for an ICMPv4 Fragmentation Needed without an MTU: RFC 7915 4.2 takes the
 * greatest one below the quoted packet's length that is at least 1280. */
bit<32> plateau_mtu(in bit<16> quoted_length) {
    if (quoted_length > 32000) { return 32000; }
    if (quoted_length > 17914) { return 17914; }
    if (quoted_length > 8166) { return 8166; }
    if (quoted_length > 4352) { return 4352; }
    if (quoted_length > 2002) { return 2002; }
    if (quoted_length > 1492) { return 1492; }
    return 1280;
}

bit<32> min32(in bit<32> a, in bit<32> b) {
    return a < b ? a : b;
}

control Rewrite(inout headers_t hdr, inout metadata_t meta, out bit<32> drop_reason) {
    bit<8>  new_type;
    bit<8>  new_code;
    bit<32> new_rest;              /* the ICMP header's last four bytes */
    bit<32> pointer;

    action icmp_to(bit<8> type, bit<8> code) {
        new_type = type;
        new_code = code;
        new_rest = 0;
    }
    action icmp_to_pointing(bit<8> type, bit<8> code, bit<32> rest) {
        new_type = type;
        new_code = code;
        new_rest = rest;
    }
    action untranslatable() {
        drop_reason = DROP_ICMP_ERROR;
    }
    action too_big_to_icmp4() {
        /* RFC 7915 5.2: minimum(advertised MTU - 20, MTU of the IPv4 next hop, MTU of the IPv6
         * next hop - 20), the IPv6 next hop being the link the error came in on. */
        bit<32> mtu6 = hdr.icmp.identifier ++ hdr.icmp.sequence;
        bit<32> mtu4 = mtu6 > 0xffff + 20 ? 0xffff : (mtu6 < 88 ? 68 : mtu6 - 20);
        bit<32> in_mtu4 = meta.ingress_mtu < 88 ? 68 : (bit<32>) meta.ingress_mtu - 20;
        icmp_to_pointing(ICMP_DEST_UNREACH, 4, min32(min32(mtu4, (bit<32>) meta.mtu), in_mtu4));
    }
    action too_big_to_icmp6() {
        /* RFC 7915 4.2: minimum(advertised MTU + 20, MTU of the IPv6 next hop, MTU of the IPv4
         * next hop + 20), the IPv4 next hop being the link the error came in on; an MTU of 0 is
         * from a router older than RFC 1191: use the plateau below the quoted length. RFC 7915 5:
         * never lower than 1280, the IPv6 minimum link MTU. */
        bit<32> advertised = hdr.icmp.sequence == 0 ? plateau_mtu(hdr.inner_ipv4.total_len)
                                                     : (bit<32>) hdr.icmp.sequence + 20;
        bit<32> mtu6 = min32(min32(advertised, (bit<32>) meta.mtu), (bit<32>) meta.ingress_mtu + 20);
        icmp_to_pointing(ICMP6_PACKET_TOO_BIG, 0, mtu6 < 1280 ? 1280 : mtu6);
    }
    action pointer_to_icmp4() {
        new_type = ICMP_PARAM_PROBLEM;
        new_code = 0;
        pointer = hdr.icmp.identifier ++ hdr.icmp.sequence;
    }
    action pointer_to_icmp6() {
        new_type = ICMP6_PARAM_PROBLEM;
        new_code = 0;
        pointer = (bit<32>) hdr.icmp.identifier[15:8];
    }
    action set_pointer(bit<32> rest) {
        new_rest = rest;
    }

    /* RFC 7915 5.2: ICMPv6 errors as ICMPv4; anything not listed is dropped. */
    table icmp6_error_to_icmp4 {
        key = { hdr.icmp.type: exact @name("type"); hdr.icmp.code: exact @name("code"); }
        actions = { icmp_to; too_big_to_icmp4; pointer_to_icmp4; untranslatable; }
        default_action = untranslatable();
        const entries = {
            (ICMP6_DEST_UNREACH, 0): icmp_to(ICMP_DEST_UNREACH, 1);    /* no route: host unreachable */
            (ICMP6_DEST_UNREACH, 1): icmp_to(ICMP_DEST_UNREACH, 10);   /* administratively prohibited */
            (ICMP6_DEST_UNREACH, 2): icmp_to(ICMP_DEST_UNREACH, 1);    /* beyond scope of source */
            (ICMP6_DEST_UNREACH, 3): icmp_to(ICMP_DEST_UNREACH, 1);    /* address unreachable */
            (ICMP6_DEST_UNREACH, 4): icmp_to(ICMP_DEST_UNREACH, 3);    /* port unreachable */
            (ICMP6_PACKET_TOO_BIG, 0): too_big_to_icmp4();
            (ICMP6_TIME_EXCEEDED, 0): icmp_to(ICMP_TIME_EXCEEDED, 0);
            (ICMP6_TIME_EXCEEDED, 1): icmp_to(ICMP_TIME_EXCEEDED, 1);
            (ICMP6_PARAM_PROBLEM, 0): pointer_to_icmp4();              /* erroneous header field */
            (ICMP6_PARAM_PROBLEM, 1): icmp_to(ICMP_DEST_UNREACH, 2);   /* next header: protocol unreachable */
        }
        size = 16;
    }

    /* RFC 7915 5.2, Figure 6: IPv6 header offsets as IPv4 ones (in the pointer's top byte). The
     * figure's ranges as ternary entries (value and mask), which SDNet builds as well as v1model. */
    table pointer_6to4 {
        key = { pointer: ternary @name("pointer"); }
        actions = { set_pointer; untranslatable; }
        default_action = untranslatable();
        const entries = {
            0 &&& 0xffffffff: set_pointer(0 << 24);     /* version / traffic class */
            1 &&& 0xffffffff: set_pointer(1 << 24);     /* traffic class / flow label */
            4 &&& 0xfffffffe: set_pointer(2 << 24);     /* 4-5: payload length */
            6 &&& 0xffffffff: set_pointer(9 << 24);     /* next header */
            7 &&& 0xffffffff: set_pointer(8 << 24);     /* hop limit */
            8 &&& 0xfffffff8: set_pointer(12 << 24);    /* 8-23: source address */
            16 &&& 0xfffffff8: set_pointer(12 << 24);
            24 &&& 0xfffffff8: set_pointer(16 << 24);   /* 24-39: destination address */
            32 &&& 0xfffffff8: set_pointer(16 << 24);
        }
        size = 16;
    }

    /* RFC 7915 4.2: ICMPv4 errors as ICMPv6; anything not listed is dropped. */
    table icmp4_error_to_icmp6 {
        key = { hdr.icmp.type: exact @name("type"); hdr.icmp.code: exact @name("code"); }
        actions = { icmp_to; icmp_to_pointing; too_big_to_icmp6; pointer_to_icmp6; untranslatable; }
        default_action = untranslatable();
        const entries = {
            (ICMP_DEST_UNREACH, 0): icmp_to(ICMP6_DEST_UNREACH, 0);    /* net unreachable: no route */
            (ICMP_DEST_UNREACH, 1): icmp_to(ICMP6_DEST_UNREACH, 0);    /* host unreachable */
            (ICMP_DEST_UNREACH, 2): icmp_to_pointing(ICMP6_PARAM_PROBLEM, 1, 6);   /* protocol: next header */
            (ICMP_DEST_UNREACH, 3): icmp_to(ICMP6_DEST_UNREACH, 4);    /* port unreachable */
            (ICMP_DEST_UNREACH, 4): too_big_to_icmp6();                 /* fragmentation needed */
            (ICMP_DEST_UNREACH, 5): icmp_to(ICMP6_DEST_UNREACH, 0);    /* source route failed */
            (ICMP_DEST_UNREACH, 6): icmp_to(ICMP6_DEST_UNREACH, 0);
            (ICMP_DEST_UNREACH, 7): icmp_to(ICMP6_DEST_UNREACH, 0);
            (ICMP_DEST_UNREACH, 8): icmp_to(ICMP6_DEST_UNREACH, 0);
            (ICMP_DEST_UNREACH, 9): icmp_to(ICMP6_DEST_UNREACH, 1);    /* administratively prohibited */
            (ICMP_DEST_UNREACH, 10): icmp_to(ICMP6_DEST_UNREACH, 1);
            (ICMP_DEST_UNREACH, 11): icmp_to(ICMP6_DEST_UNREACH, 0);
            (ICMP_DEST_UNREACH, 12): icmp_to(ICMP6_DEST_UNREACH, 0);
            (ICMP_DEST_UNREACH, 13): icmp_to(ICMP6_DEST_UNREACH, 1);
            (ICMP_DEST_UNREACH, 15): icmp_to(ICMP6_DEST_UNREACH, 1);
            (ICMP_TIME_EXCEEDED, 0): icmp_to(ICMP6_TIME_EXCEEDED, 0);
            (ICMP_TIME_EXCEEDED, 1): icmp_to(ICMP6_TIME_EXCEEDED, 1);
            (ICMP_PARAM_PROBLEM, 0): pointer_to_icmp6();
            (ICMP_PARAM_PROBLEM, 2): pointer_to_icmp6();               /* bad length */
        }
        size = 32;
    }

    /* RFC 7915 4.2, Figure 3: IPv4 header offsets as IPv6 ones (ranges as ternary entries). */
    table pointer_4to6 {
        key = { pointer: ternary @name("pointer"); }
        actions = { set_pointer; untranslatable; }
        default_action = untranslatable();
        const entries = {
            0 &&& 0xffffffff: set_pointer(0);           /* version / IHL */
            1 &&& 0xffffffff: set_pointer(1);           /* type of service */
            2 &&& 0xfffffffe: set_pointer(4);           /* 2-3: total length */
            8 &&& 0xffffffff: set_pointer(7);           /* time to live */
            9 &&& 0xffffffff: set_pointer(6);           /* protocol */
            12 &&& 0xfffffffc: set_pointer(8);          /* 12-15: source address */
            16 &&& 0xfffffffc: set_pointer(24);         /* 16-19: destination address */
        }
        size = 8;
    }

    /* RFC 7915 4.1 and 5.1 (SHOULDs): the Traffic Class and the TOS octet are copied from each
     * other, unless the operator has the translation zero the Traffic Class or set the TOS
     * (nat64.zeroTrafficClass, nat64.ipv4Tos; the controller writes this table's default). Outer
     * headers only: a quoted packet's is copied as it is. */
    bit<1> zero_traffic_class;
    bit<1> fixed_tos;
    bit<8> tos;
    action class_and_tos(bit<1> zero_class, bit<1> fix_tos, bit<8> tos_value) {
        zero_traffic_class = zero_class;
        fixed_tos = fix_tos;
        tos = tos_value;
    }
    table traffic_class {
        actions = { class_and_tos; }
        default_action = class_and_tos(0, 0, 0);
        size = 1;
    }

    /* ---- outer headers ---- */
    action v6_to_v4() {
        /* RFC 7915 5.1: extension headers are not translated; Protocol is the last Next Header. */
        bit<16> l4_len = hdr.ipv6.payload_len - meta.ipv6_ext_len;
        bit<8> next = meta.ipv6_next;
        hdr.ipv4.setValid();
        hdr.ipv4.version = 4;
        hdr.ipv4.ihl = 5;
        hdr.ipv4.dscp_ecn = fixed_tos == 1 ? tos : hdr.ipv6.traffic_class;
        hdr.ipv4.reserved = 0;
        hdr.ipv4.identification = 0;             /* a new one drawn in apply, unless a fragment */
        hdr.ipv4.more_fragments = 0;
        hdr.ipv4.frag_offset = 0;
        if (hdr.ipv6_frag.isValid()) {
            l4_len = l4_len - 8;
            hdr.ipv4.identification = hdr.ipv6_frag.identification[15:0];
            hdr.ipv4.more_fragments = hdr.ipv6_frag.more_fragments;
            hdr.ipv4.frag_offset = hdr.ipv6_frag.frag_offset;
        }
        hdr.ipv4.total_len = l4_len + 20;
        /* RFC 7915 5.1: DF set when the IPv4 packet is larger than 1260 bytes, unfragmented. */
        hdr.ipv4.dont_fragment = (bit<1>) (!hdr.ipv6_frag.isValid() && hdr.ipv4.total_len > IPV4_MAX_WITHOUT_DF);
        hdr.ipv4.ttl = hdr.ipv6.hop_limit - 1;
        hdr.ipv4.protocol = next == PROTO_ICMPV6 ? PROTO_ICMP : next;
        hdr.ipv4.hdr_checksum = 0;
        hdr.ipv4.src_addr = meta.new_src4;
        hdr.ipv4.dst_addr = meta.new_dst4;
        hdr.ethernet.ether_type = ETHERTYPE_IPV4;
        hdr.ipv6.setInvalid();
        hdr.ipv6_ext.pop_front(IPV6_EXT_WORDS);
        hdr.ipv6_frag.setInvalid();
    }

    action v4_to_v6() {
        bit<16> l4_len = hdr.ipv4.total_len - ((bit<16>) hdr.ipv4.ihl << 2);
        hdr.ipv6.setValid();
        hdr.ipv6.version = 6;
        hdr.ipv6.traffic_class = zero_traffic_class == 1 ? 8w0 : hdr.ipv4.dscp_ecn;
        hdr.ipv6.flow_label = 0;
        hdr.ipv6.payload_len = l4_len;
        hdr.ipv6.next_hdr = hdr.ipv4.protocol == PROTO_ICMP ? PROTO_ICMPV6 : hdr.ipv4.protocol;
        hdr.ipv6.hop_limit = meta.hairpinned ? hdr.ipv4.ttl : hdr.ipv4.ttl - 1;
        hdr.ipv6.src_addr = meta.new_src6;
        hdr.ipv6.dst_addr = meta.new_dst6;
        if (hdr.ipv4.more_fragments == 1 || hdr.ipv4.frag_offset != 0 || meta.to_fragment) {
            /* RFC 7915 4.1: a fragment, or a packet the controller will fragment, keeps its
             * identification in a Fragment header. */
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

    /* ---- the quoted packet, opposite in direction to the error ---- */
    action quoted_v6_to_v4() {
        hdr.inner_ipv4.setValid();
        hdr.inner_ipv4.version = 4;
        hdr.inner_ipv4.ihl = 5;
        hdr.inner_ipv4.dscp_ecn = hdr.inner_ipv6.traffic_class;
        hdr.inner_ipv4.total_len = hdr.inner_ipv6.payload_len + 20;
        hdr.inner_ipv4.identification = 0;
        hdr.inner_ipv4.reserved = 0;
        hdr.inner_ipv4.dont_fragment = (bit<1>) (hdr.inner_ipv4.total_len > IPV4_MAX_WITHOUT_DF);
        hdr.inner_ipv4.more_fragments = 0;
        hdr.inner_ipv4.frag_offset = 0;
        hdr.inner_ipv4.ttl = hdr.inner_ipv6.hop_limit;
        hdr.inner_ipv4.protocol = meta.inner_proto;
        hdr.inner_ipv4.hdr_checksum = 0;        /* computed in Nat64ComputeChecksum */
        hdr.inner_ipv4.src_addr = meta.new_dst4;
        hdr.inner_ipv4.dst_addr = meta.new_src4;
        if (hdr.inner_frag.isValid()) {
            /* RFC 7915 5.1.1: the Fragment header's length leaves; identification (low 16 bits),
             * offset and MF are copied; DF is 0. */
            hdr.inner_ipv4.total_len = hdr.inner_ipv6.payload_len - 8 + 20;
            hdr.inner_ipv4.identification = hdr.inner_frag.identification[15:0];
            hdr.inner_ipv4.dont_fragment = 0;
            hdr.inner_ipv4.more_fragments = hdr.inner_frag.more_fragments;
            hdr.inner_ipv4.frag_offset = hdr.inner_frag.frag_offset;
        }
        hdr.inner_ipv6.setInvalid();
        hdr.inner_frag.setInvalid();
    }
    action quoted_v4_to_v6() {
        hdr.inner_ipv6.setValid();
        hdr.inner_ipv6.version = 6;
        hdr.inner_ipv6.traffic_class = hdr.inner_ipv4.dscp_ecn;
        hdr.inner_ipv6.flow_label = 0;
        hdr.inner_ipv6.payload_len = hdr.inner_ipv4.total_len - ((bit<16>) hdr.inner_ipv4.ihl << 2);
        hdr.inner_ipv6.next_hdr = meta.inner_proto == PROTO_ICMP ? PROTO_ICMPV6 : meta.inner_proto;
        hdr.inner_ipv6.hop_limit = hdr.inner_ipv4.ttl;
        hdr.inner_ipv6.src_addr = meta.new_dst6;
        hdr.inner_ipv6.dst_addr = meta.new_src6;
        if (hdr.inner_ipv4.more_fragments == 1 || hdr.inner_ipv4.frag_offset != 0) {
            /* RFC 7915 4.1 (4.3: the quoted header as any other): a fragment gets a Fragment
             * header with its identification, offset and MF. */
            hdr.inner_frag.setValid();
            hdr.inner_frag.next_hdr = hdr.inner_ipv6.next_hdr;
            hdr.inner_frag.reserved = 0;
            hdr.inner_frag.frag_offset = hdr.inner_ipv4.frag_offset;
            hdr.inner_frag.res = 0;
            hdr.inner_frag.more_fragments = hdr.inner_ipv4.more_fragments;
            hdr.inner_frag.identification = (bit<32>) hdr.inner_ipv4.identification;
            hdr.inner_ipv6.next_hdr = PROTO_FRAG;
            hdr.inner_ipv6.payload_len = hdr.inner_ipv6.payload_len + 8;
        }
        hdr.inner_ipv4.setInvalid();
        hdr.inner_ipv4_options.pop_front(10);
    }

    /* The quoted transport: ports from the session, checksum adjusted for the new pseudo-header
     * (old_sum/new_sum: addresses), and for echo the type (and the ICMPv6 pseudo-header). */
    action quoted_transport(bit<32> old_sum, bit<32> new_sum, bit<16> new_port, bool to_v6) {
        if (meta.inner_proto == PROTO_ICMP) {
            bit<8> type = hdr.inner_l4.w0[15:8];
            bit<8> new_type4 = type == ICMP6_ECHO_REQUEST ? ICMP_ECHO_REQUEST : ICMP_ECHO_REPLY;
            bit<8> new_type6 = type == ICMP_ECHO_REQUEST ? ICMP6_ECHO_REQUEST : ICMP6_ECHO_REPLY;
            bit<16> new_w0 = (to_v6 ? new_type6 : new_type4) ++ hdr.inner_l4.w0[7:0];
            /* ICMPv4 has no pseudo-header: only the ICMPv6 side's addresses are summed. */
            bit<16> quoted_len = to_v6 ? hdr.inner_ipv4.total_len - ((bit<16>) hdr.inner_ipv4.ihl << 2)
                                       : hdr.inner_ipv6.payload_len - (hdr.inner_frag.isValid() ? 16w8 : 0);
            bit<32> length_and_next = (bit<32>) quoted_len + (bit<32>) PROTO_ICMPV6;
            bit<32> old_words = (to_v6 ? 0 : old_sum + length_and_next) + (bit<32>) hdr.inner_l4.w0 + (bit<32>) hdr.inner_l4.w2;
            bit<32> new_words = (to_v6 ? new_sum + length_and_next : 0) + (bit<32>) new_w0 + (bit<32>) new_port;
            hdr.inner_l4.w1 = csum_replace(hdr.inner_l4.w1, old_words, 24, new_words);
            hdr.inner_l4.w0 = new_w0;
            hdr.inner_l4.w2 = new_port;
        } else {
            /* The error's destination is the quoted packet's source: its port is the mapped one. */
            bit<16> old_port = to_v6 ? hdr.inner_l4.w0 : hdr.inner_l4.w1;
            bit<32> old_words = old_sum + (bit<32>) old_port;
            bit<32> new_words = new_sum + (bit<32>) new_port;
            if (to_v6) {
                hdr.inner_l4.w0 = new_port;
            } else {
                hdr.inner_l4.w1 = new_port;
            }
            if (meta.inner_proto == PROTO_UDP && hdr.inner_l4.w3 != 0) {
                hdr.inner_l4.w3 = csum_replace(hdr.inner_l4.w3, old_words, 18, new_words);
                if (hdr.inner_l4.w3 == 0) {
                    hdr.inner_l4.w3 = 0xffff;
                }
            } else if (hdr.inner_tcp_tail.isValid()) {
                hdr.inner_tcp_tail.checksum = csum_replace(hdr.inner_tcp_tail.checksum, old_words, 18, new_words);
            }
        }
    }

    /* RFC 4884 zeros between a translated original datagram and its extension. */
    action zero_pad(bit<16> bytes) {
        if ((bytes & 4) != 0) { hdr.icmp_pad4.setValid(); hdr.icmp_pad4.zero = 0; }
        if ((bytes & 8) != 0) { hdr.icmp_pad8.setValid(); hdr.icmp_pad8.zero = 0; }
        if ((bytes & 16) != 0) { hdr.icmp_pad16.setValid(); hdr.icmp_pad16.zero = 0; }
        if ((bytes & 32) != 0) { hdr.icmp_pad32.setValid(); hdr.icmp_pad32.zero = 0; }
        if ((bytes & 64) != 0) { hdr.icmp_pad64.setValid(); hdr.icmp_pad64.zero = 0; }
    }

    /* ICMPv6 error -> ICMPv4 error. RFC 7915 5.2 with RFC 4884: with an extension, the translated
     * original datagram is zero padded to at least 128 bytes (it is a multiple of 4 already) and
     * the length attribute counts it in 32-bit words; an extension that would take the message
     * over 576 bytes leaves, and the message ends with the datagram. */
    action error_6to4_headers() {
        /* The pseudo-header's length is the ICMPv6 message's (the parser's, without extension and
         * Fragment headers). */
        bit<32> old_words = sum_v6(hdr.ipv6.src_addr) + sum_v6(hdr.ipv6.dst_addr)
                            + (bit<32>) (meta.icmp_payload + 8)
                            + (bit<32>) PROTO_ICMPV6 + (bit<32>) (hdr.icmp.type ++ hdr.icmp.code)
                            + (bit<32>) hdr.icmp.identifier + (bit<32>) hdr.icmp.sequence
                            + sum_ipv6_header(hdr.inner_ipv6) + sum_l4_head(hdr.inner_l4)
                            + (bit<32>) hdr.inner_tcp_tail.checksum
                            + (hdr.inner_frag.isValid() ? sum_frag_header(hdr.inner_frag) : 0);
        /* The quoted header shrinks by 20, and by the 8 of a quoted Fragment header. */
        bit<16> shrink = hdr.inner_frag.isValid() ? 16w28 : 16w20;
        quoted_transport(sum_v6(hdr.inner_ipv6.src_addr) + sum_v6(hdr.inner_ipv6.dst_addr),
                         sum_v4(meta.new_dst4) + sum_v4(meta.new_src4), meta.new_l4_src, false);
        quoted_v6_to_v4();
        hdr.icmp.type = new_type;
        hdr.icmp.code = new_code;
        hdr.icmp.identifier = new_rest[31:16];
        hdr.icmp.sequence = new_rest[15:0];
        bit<16> datagram = meta.icmp_ext_datagram - shrink;
        bit<16> padded = datagram < ICMP_EXT_MIN_DATAGRAM ? ICMP_EXT_MIN_DATAGRAM : datagram;
        bit<16> extension = meta.icmp_payload - meta.icmp_ext_datagram;
        bool keep_extension = meta.icmp_ext_datagram != 0 && 28 + padded + extension <= ICMP4_ERROR_MAX;
        if (keep_extension) {
            hdr.icmp.identifier = hdr.icmp.identifier[15:8] ++ (padded >> 2)[7:0];
        }
        /* A valid IPv4 header sums to 0xffff, which is zero: the quoted one adds nothing. */
        bit<32> new_words = (bit<32>) (hdr.icmp.type ++ hdr.icmp.code) + (bit<32>) hdr.icmp.identifier
                            + (bit<32>) hdr.icmp.sequence + sum_l4_head(hdr.inner_l4)
                            + (bit<32>) hdr.inner_tcp_tail.checksum;
        hdr.icmp.checksum = csum_replace(hdr.icmp.checksum, old_words, 52, new_words);
        v6_to_v4();
        hdr.ipv4.src_addr = meta.error_src4;
        hdr.ipv4.total_len = hdr.ipv4.total_len - shrink;
        hdr.ipv4.dont_fragment = 0;
        if (keep_extension) {
            zero_pad(padded - datagram);
            hdr.ipv4.total_len = hdr.ipv4.total_len + (padded - datagram);
        } else if (meta.icmp_ext_datagram != 0) {
            hdr.ipv4.total_len = 28 + datagram;
            meta.truncate_to = 14 + (bit<32>) hdr.ipv4.total_len;
            meta.recirc = RECIRC_CHECKSUM;
        }
        if (hdr.ipv4.total_len > ICMP4_ERROR_MAX) {
            hdr.ipv4.total_len = ICMP4_ERROR_MAX;
            meta.truncate_to = 14 + (bit<32>) ICMP4_ERROR_MAX;
            meta.recirc = RECIRC_CHECKSUM;
        }
    }

    /* ICMPv4 error -> ICMPv6 error. RFC 7915 4.2 with RFC 4884: with an extension, the translated
     * original datagram is zero padded to 8-byte units and at least 128 bytes, and the length
     * attribute counts it in 64-bit words. Where the ICMPv6 type has no length attribute (Packet
     * Too Big, Parameter Problem) or the extension would take the message over 1280 bytes, the
     * extension leaves and the message ends with the datagram. */
    action error_4to6_headers() {
        bit<32> old_words = (bit<32>) (hdr.icmp.type ++ hdr.icmp.code) + (bit<32>) hdr.icmp.identifier
                            + (bit<32>) hdr.icmp.sequence + sum_ipv4_header(hdr.inner_ipv4)
                            + sum_ipv4_options(hdr.inner_ipv4_options)
                            + sum_l4_head(hdr.inner_l4) + (bit<32>) hdr.inner_tcp_tail.checksum;
        bit<16> options = ((bit<16>) hdr.inner_ipv4.ihl << 2) - 20;
        quoted_transport(sum_v4(hdr.inner_ipv4.src_addr) + sum_v4(hdr.inner_ipv4.dst_addr),
                         sum_v6(meta.new_dst6) + sum_v6(meta.new_src6), meta.new_l4_dst, true);
        quoted_v4_to_v6();
        meta.new_src6 = meta.error_src6;
        v4_to_v6();
        /* The quoted header grew by 20 less its options, and by the 8 of a Fragment header it was
         * given (modulo 2^16: options of more than 20 bytes make it shrink). */
        bit<16> growth = (hdr.inner_frag.isValid() ? 16w28 : 16w20) - options;
        hdr.ipv6.payload_len = hdr.ipv6.payload_len + growth;
        hdr.icmp.type = new_type;
        hdr.icmp.code = new_code;
        hdr.icmp.identifier = new_rest[31:16];
        hdr.icmp.sequence = new_rest[15:0];
        bit<16> datagram = meta.icmp_ext_datagram + growth;
        bit<16> units = (datagram + 7) & 0xfff8;
        bit<16> padded = units < ICMP_EXT_MIN_DATAGRAM ? ICMP_EXT_MIN_DATAGRAM : units;
        bit<16> extension = meta.icmp_payload - meta.icmp_ext_datagram;
        bool has_length = new_type == ICMP6_DEST_UNREACH || new_type == ICMP6_TIME_EXCEEDED;
        if (meta.icmp_ext_datagram != 0 && has_length && 48 + padded + extension <= ICMP6_ERROR_MAX) {
            hdr.icmp.identifier = (padded >> 3)[7:0] ++ hdr.icmp.identifier[7:0];
            zero_pad(padded - datagram);
            hdr.ipv6.payload_len = hdr.ipv6.payload_len + (padded - datagram);
        } else if (meta.icmp_ext_datagram != 0) {
            hdr.ipv6.payload_len = 8 + datagram;
            meta.truncate_to = 14 + 40 + (bit<32>) hdr.ipv6.payload_len;
            meta.recirc = RECIRC_CHECKSUM;
        }
        bit<32> new_words = sum_v6(hdr.ipv6.src_addr) + sum_v6(hdr.ipv6.dst_addr) + (bit<32>) hdr.ipv6.payload_len
                            + (bit<32>) PROTO_ICMPV6 + (bit<32>) (hdr.icmp.type ++ hdr.icmp.code)
                            + (bit<32>) hdr.icmp.identifier + (bit<32>) hdr.icmp.sequence
                            + sum_ipv6_header(hdr.inner_ipv6) + sum_l4_head(hdr.inner_l4)
                            + (bit<32>) hdr.inner_tcp_tail.checksum
                            + (hdr.inner_frag.isValid() ? sum_frag_header(hdr.inner_frag) : 0);
        hdr.icmp.checksum = csum_replace(hdr.icmp.checksum, old_words, 44, new_words);   /* 20 option words too */
        if (hdr.ipv6.payload_len > ICMP6_ERROR_MAX - 40) {
            hdr.ipv6.payload_len = ICMP6_ERROR_MAX - 40;
            meta.truncate_to = 14 + (bit<32>) ICMP6_ERROR_MAX;
            meta.recirc = RECIRC_CHECKSUM;
        }
    }

    apply {
        new_type = 0;
        new_code = 0;
        new_rest = 0;
        pointer = 0;
        drop_reason = DROP_REASONS;   /* none */
        traffic_class.apply();
        if (hdr.ipv6.isValid()) {
            /* RFC 7915 5.1: a fragment keeps its identification; any other packet gets a new one. */
            bool new_identification = !hdr.ipv6_frag.isValid();
            if (meta.is_icmp_error) {
                switch (icmp6_error_to_icmp4.apply().action_run) {
                    pointer_to_icmp4: { pointer_6to4.apply(); }
                }
                if (drop_reason == DROP_REASONS) {
                    error_6to4_headers();
                } else {
                    new_identification = false;
                }
            } else {
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
                    /* A zero checksum (none, which IPv6 allows only to tunnels, RFC 6936) stays
                     * zero: IPv4's "no checksum", not a wrong one. */
                    if (hdr.udp.checksum != 0) {
                        hdr.udp.checksum = csum_replace(hdr.udp.checksum, old_sum, 18, new_sum);
                        if (hdr.udp.checksum == 0) {
                            hdr.udp.checksum = 0xffff;
                        }
                    }
                } else if (meta.is_echo) {
                    /* ICMPv6 echo -> ICMP echo: the pseudo-header leaves the sum; type and
                     * identifier change. Identifier counted once (it is both "ports"). The pseudo-header
                     * length is the upper-layer one: without extension or Fragment headers (an atomic
                     * fragment, RFC 7915 5.1.1; RFC 8200 8.1). */
                    bit<8> type4 = hdr.icmp.type == ICMP6_ECHO_REQUEST ? ICMP_ECHO_REQUEST : ICMP_ECHO_REPLY;
                    bit<16> upper_len = hdr.ipv6.payload_len - meta.ipv6_ext_len - (hdr.ipv6_frag.isValid() ? 16w8 : 0);
                    bit<32> old_icmp = sum_v6(hdr.ipv6.src_addr) + sum_v6(hdr.ipv6.dst_addr) + (bit<32>) upper_len
                                       + (bit<32>) PROTO_ICMPV6 + (bit<32>) (hdr.icmp.type ++ hdr.icmp.code)
                                       + (bit<32>) meta.l4_src;
                    bit<32> new_icmp = (bit<32>) (type4 ++ hdr.icmp.code) + (bit<32>) meta.new_l4_src;
                    hdr.icmp.checksum = csum_replace(hdr.icmp.checksum, old_icmp, 22, new_icmp);
                    hdr.icmp.type = type4;
                    hdr.icmp.identifier = meta.new_l4_src;
                }
                v6_to_v4();
            }
            /* One draw for both (the SUME card's counter is one extern call site). */
            if (new_identification) {
                NEW_IPV4_IDENTIFICATION(hdr.ipv4.identification)
            }
        } else if (hdr.ipv4.isValid()) {
            if (meta.is_icmp_error) {
                switch (icmp4_error_to_icmp6.apply().action_run) {
                    pointer_to_icmp6: { pointer_4to6.apply(); }
                }
                if (drop_reason == DROP_REASONS) {
                    error_4to6_headers();
                }
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
            } else if (meta.is_echo) {
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
