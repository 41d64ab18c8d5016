/* The NAT64 parser's states from Ethernet on, the same on every architecture: included inside
 * each architecture's parser, after its start state (which takes what the controller sends and,
 * on v1model, what comes round again) has gone to parse_ethernet. IPv4 options are kept as
 * words (dropped when translated, RFC 7915 4.1); only the first fragment's transport header is
 * parsed. In an ICMP error the quoted IP header and the first 8 bytes of its transport (all of
 * TCP when quoted) are parsed too. No include guard: it is a parser's body, not declarations. */
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
        meta.unexpired_source_route = false;
        transition select(meta.ipv4_option_words) {
            0: parse_ipv4_payload;
            default: start_ipv4_options;
        }
    }
    /* Only packets with options take the walk's states (next_ipv4_option_word onwards). */
    state start_ipv4_options {
        meta.option_phase = OPTION_TYPE;
        meta.option_skip = 0;
        meta.option_is_source_route = false;
        transition parse_ipv4_option;
    }
    state next_ipv4_option_word {
        transition select(meta.ipv4_option_words, meta.option_phase, meta.option_is_source_route) {
            (0, OPTION_LENGTH, true): truncated_source_route;
            (0, OPTION_POINTER, true): truncated_source_route;
            (0, _, _): parse_ipv4_payload;
            default: parse_ipv4_option;
        }
    }
    /* A source route cut short by the end of the header cannot be read: it counts as unexpired. */
    state truncated_source_route {
        meta.unexpired_source_route = true;
        transition parse_ipv4_payload;
    }
    state parse_ipv4_option {
        packet.extract(hdr.ipv4_options.next);
        meta.ipv4_option_words = meta.ipv4_option_words - 1;
        meta.option_bytes = hdr.ipv4_options.last.word;
        meta.option_bytes_left = 4;
        transition walk_ipv4_option_byte;
    }
    /* RFC 7915 4.1 discards IPv4 with an unexpired source route wherever it is among the options:
     * their bytes are walked one at a time (RFC 791: End of Option List and NOP are one byte, any
     * other option gives its length in its second), reading each option's type and length and a
     * source route's pointer, passing over the rest. Only packets with options take these states. */
    state walk_ipv4_option_byte {
        transition select(meta.option_bytes_left, meta.option_skip, meta.option_phase, meta.option_bytes[31:24]) {
            (0, _, _, _): next_ipv4_option_word;
            (_, _, OPTION_END, _): next_ipv4_option_word;
            (_, 0, OPTION_TYPE, IPV4_OPTION_EOL): end_of_ipv4_options;
            (_, 0, OPTION_TYPE, IPV4_OPTION_NOP): next_ipv4_option_byte;
            (_, 0, OPTION_TYPE, IPV4_OPTION_LSRR): ipv4_source_route_type;
            (_, 0, OPTION_TYPE, IPV4_OPTION_SSRR): ipv4_source_route_type;
            (_, 0, OPTION_TYPE, _): ipv4_option_type;
            (_, 0, OPTION_LENGTH, _): ipv4_option_length;
            (_, 0, OPTION_POINTER, _): ipv4_source_route_pointer;
            default: skip_ipv4_option_byte;
        }
    }
    state ipv4_option_type {
        meta.option_is_source_route = false;
        meta.option_phase = OPTION_LENGTH;
        transition next_ipv4_option_byte;
    }
    state ipv4_source_route_type {
        meta.option_is_source_route = true;
        meta.option_phase = OPTION_LENGTH;
        transition next_ipv4_option_byte;
    }
    state ipv4_option_length {
        meta.option_length = meta.option_bytes[31:24];
        meta.option_phase = meta.option_is_source_route ? OPTION_POINTER : OPTION_TYPE;
        meta.option_skip = meta.option_is_source_route ? 8w0 : meta.option_bytes[31:24] - 2;
        transition select(meta.option_bytes[31:24], meta.option_is_source_route) {
            (0 &&& 0xfe, _): malformed_ipv4_option;
            (2, true): malformed_ipv4_option;
            default: next_ipv4_option_byte;
        }
    }
    /* A length shorter than the option's own type and length bytes (or a source route's pointer)
     * leaves the rest unreadable: the walk stops there, and a source route so malformed counts as
     * unexpired (refused, not translated along a route it cannot read). */
    state malformed_ipv4_option {
        meta.unexpired_source_route = meta.unexpired_source_route || meta.option_is_source_route;
        meta.option_phase = OPTION_END;
        transition next_ipv4_option_word;
    }
    state ipv4_source_route_pointer {
        meta.unexpired_source_route = meta.unexpired_source_route || meta.option_bytes[31:24] <= meta.option_length;
        meta.option_phase = OPTION_TYPE;
        meta.option_skip = meta.option_length - 3;
        transition next_ipv4_option_byte;
    }
    state skip_ipv4_option_byte {
        meta.option_skip = meta.option_skip - 1;
        transition next_ipv4_option_byte;
    }
    state end_of_ipv4_options {
        meta.option_phase = OPTION_END;
        transition next_ipv4_option_word;
    }
    state next_ipv4_option_byte {
        meta.option_bytes = meta.option_bytes << 8;
        meta.option_bytes_left = meta.option_bytes_left - 1;
        transition walk_ipv4_option_byte;
    }
    state parse_ipv4_payload {
        transition select(hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (0, PROTO_TCP): parse_tcp;
            (0, PROTO_UDP): parse_udp;
            (0, PROTO_ICMP): parse_icmp;
            default: accept;
        }
    }
    /* RFC 7915 5.1 translates what follows the extension headers: the parser walks Hop-by-Hop
     * (first only, RFC 8200 4.1), Destination Options and Routing headers eight bytes at a time,
     * as far as the stack reaches, then a Fragment header. */
    state parse_ipv6 {
        packet.extract(hdr.ipv6);
        verify(hdr.ipv6.version == 6, error.HeaderTooShort);
        meta.ipv6_next = hdr.ipv6.next_hdr;
        transition select(hdr.ipv6.next_hdr) {
            PROTO_HOPOPT: parse_ipv6_ext;
            default: parse_ipv6_chain;
        }
    }
    state parse_ipv6_chain {
        transition select(meta.ipv6_next) {
            PROTO_DSTOPTS: parse_ipv6_ext;
            PROTO_ROUTING: parse_ipv6_routing;
            PROTO_FRAG: parse_ipv6_frag;
            PROTO_TCP: parse_tcp;
            PROTO_UDP: parse_udp;
            PROTO_ICMPV6: parse_icmpv6;
            PROTO_HOPOPT: ipv6_ext_unparsed;
            default: accept;
        }
    }
    state parse_ipv6_routing {
        bit<32> head = packet.lookahead<bit<32>>();
        meta.routing_segments_left = head[7:0];
        meta.routing_pointer = 40 + meta.ipv6_ext_len + 3;
        transition parse_ipv6_ext;
    }
    state parse_ipv6_ext {
        bit<16> head = packet.lookahead<bit<16>>();
        meta.ipv6_next = head[15:8];
        meta.ipv6_ext_words = (bit<16>) head[7:0] + 1;
        transition select((bit<1>) (meta.ipv6_ext_len + (meta.ipv6_ext_words << 3) > IPV6_EXT_BYTES)) {
            1: ipv6_ext_unparsed;
            default: parse_ipv6_ext_word;
        }
    }
    state parse_ipv6_ext_word {
        packet.extract(hdr.ipv6_ext.next);
        meta.ipv6_ext_len = meta.ipv6_ext_len + 8;
        meta.ipv6_ext_words = meta.ipv6_ext_words - 1;
        transition select(meta.ipv6_ext_words) {
            0: parse_ipv6_chain;
            default: parse_ipv6_ext_word;
        }
    }
    /* RFC 7915 5.1: a packet whose Fragment header is followed by an extension header (any but
     * ESP, AH included) is not translated; it is left unparsed from there (routed as it came). */
    state parse_ipv6_frag {
        packet.extract(hdr.ipv6_frag);
        meta.ipv6_next = hdr.ipv6_frag.next_hdr;
        transition select(hdr.ipv6_frag.next_hdr) {
            PROTO_HOPOPT: ipv6_ext_after_frag;
            PROTO_ROUTING: ipv6_ext_after_frag;
            PROTO_FRAG: ipv6_ext_after_frag;
            PROTO_AH: ipv6_ext_after_frag;
            PROTO_DSTOPTS: ipv6_ext_after_frag;
            PROTO_MOBILITY: ipv6_ext_after_frag;
            PROTO_HIP: ipv6_ext_after_frag;
            PROTO_SHIM6: ipv6_ext_after_frag;
            PROTO_EXPERIMENT1: ipv6_ext_after_frag;
            PROTO_EXPERIMENT2: ipv6_ext_after_frag;
            default: parse_ipv6_frag_transport;
        }
    }
    state parse_ipv6_frag_transport {
        transition select(hdr.ipv6_frag.frag_offset, meta.ipv6_next) {
            (0, PROTO_TCP): parse_tcp;
            (0, PROTO_UDP): parse_udp;
            (0, PROTO_ICMPV6): parse_icmpv6;
            default: accept;               /* another transport, or a later fragment: no transport header */
        }
    }
    /* Only a first (or atomic) fragment holds that extension header: there, the header behind it
     * (its first byte, in every kind) says whether an error may be sent: TCP or UDP may be
     * answered; an ICMPv6 message, or a further header that may hide one, not (RFC 4443 2.4(e):
     * no error about an error). A later fragment's bytes are payload, and may be none. */
    state ipv6_ext_after_frag {
        transition select(hdr.ipv6_frag.frag_offset) {
            0: ipv6_ext_after_first_frag;
            default: ipv6_ext_unparsed;
        }
    }
    state ipv6_ext_after_first_frag {
        bit<8> behind = packet.lookahead<bit<8>>();
        transition select(behind) {
            PROTO_TCP: ipv6_ext_after_frag_answerable;
            PROTO_UDP: ipv6_ext_after_frag_answerable;
            default: ipv6_ext_unparsed;
        }
    }
    state ipv6_ext_after_frag_answerable {
        meta.answerable_after_frag = true;
        transition ipv6_ext_unparsed;
    }
    /* Routed as it came; never translated (what follows is not known). */
    state ipv6_ext_unparsed {
        meta.ipv6_ext_unparsed = true;
        transition accept;
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
            ICMP_DEST_UNREACH: parse_icmp_error4;
            ICMP_TIME_EXCEEDED: parse_icmp_error4;
            ICMP_PARAM_PROBLEM: parse_icmp_error4;
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
            ICMP6_DEST_UNREACH: parse_icmp_error6;
            ICMP6_PACKET_TOO_BIG: parse_icmp_error6;
            ICMP6_TIME_EXCEEDED: parse_icmp_error6;
            ICMP6_PARAM_PROBLEM: parse_icmp_error6;
            default: accept;
        }
    }
    /* ---- the packet quoted in an ICMP error ---- */
    /* RFC 4884: Destination Unreachable, Time Exceeded and Parameter Problem have the length of
     * the original datagram field in their sixth byte, in 32-bit words. */
    state parse_icmp_error4 {
        packet.extract(hdr.inner_ipv4);
        ICMP_ERROR_SUM_FIRST(sum_icmp_header(hdr.icmp) + sum_ipv4_header(hdr.inner_ipv4))
        meta.icmp_payload = hdr.ipv4.total_len - ((bit<16>) hdr.ipv4.ihl << 2) - 8;
        meta.icmp_ext_datagram = (bit<16>) hdr.icmp.identifier[7:0] << 2;
        meta.ipv4_option_words = hdr.inner_ipv4.ihl - 5;
        meta.quoted_parsed = (bit<16>) hdr.inner_ipv4.ihl << 2;
        meta.icmp_room = meta.icmp_payload - meta.quoted_parsed;
        /* Not translated (nor read further, so that a router forwards it as it came): a header
         * shorter than 20 bytes or longer than the quote, or a later fragment. */
        transition select((bit<1>) (meta.quoted_parsed > meta.icmp_payload), hdr.inner_ipv4.ihl,
                          hdr.inner_ipv4.frag_offset) {
            (1, _, _): accept;
            (_, 0 &&& 0xc, _): accept;
            (_, 4, _): accept;
            (_, _, 0): quoted_ipv4_options;
            default: accept;
        }
    }
    /* RFC 5508 REQ-3b: options in the quoted header are read past (and left out of its
     * translation: RFC 7915 4.3 translates it as 4.1 does, options ignored). */
    state quoted_ipv4_options {
        transition select(meta.ipv4_option_words) {
            0: parse_inner_ipv4_transport;
            default: parse_quoted_ipv4_option;
        }
    }
    state parse_quoted_ipv4_option {
        packet.extract(hdr.inner_ipv4_options.next);
        ICMP_ERROR_SUM(sum_option_word(hdr.inner_ipv4_options.last))
        meta.ipv4_option_words = meta.ipv4_option_words - 1;
        transition quoted_ipv4_options;
    }
    state parse_inner_ipv4_transport {
        transition select(hdr.inner_ipv4.protocol) {
            PROTO_TCP: parse_inner_tcp;
            PROTO_UDP: parse_inner_udp;
            PROTO_ICMP: parse_inner_icmp;
            default: accept;
        }
    }
    /* RFC 4884: ICMPv6 Destination Unreachable and Time Exceeded have it in their fifth byte, in
     * 64-bit words (Packet Too Big and Parameter Problem have no room for it). */
    state parse_icmp_error6 {
        packet.extract(hdr.inner_ipv6);
        meta.icmp_payload = hdr.ipv6.payload_len - meta.ipv6_ext_len - (hdr.ipv6_frag.isValid() ? 16w8 : 0) - 8;
        /* with the pseudo-header: addresses, the message's length, next header 58 */
        ICMP_ERROR_SUM_FIRST(sum_v6(hdr.ipv6.src_addr) + sum_v6(hdr.ipv6.dst_addr) + (bit<32>) meta.icmp_payload + 8
                             + (bit<32>) PROTO_ICMPV6 + sum_icmp_header(hdr.icmp) + sum_ipv6_header(hdr.inner_ipv6))
        meta.icmp_room = meta.icmp_payload - 40;
        meta.icmp_ext_datagram = hdr.icmp.type == ICMP6_DEST_UNREACH || hdr.icmp.type == ICMP6_TIME_EXCEEDED
                                 ? (bit<16>) hdr.icmp.identifier[15:8] << 3 : 0;
        meta.quoted_parsed = 40;
        transition select(hdr.inner_ipv6.next_hdr) {
            PROTO_FRAG: parse_inner_frag;
            PROTO_TCP: parse_inner_tcp;
            PROTO_UDP: parse_inner_udp;
            PROTO_ICMPV6: parse_inner_icmp;
            default: accept;               /* other extension headers: not translated */
        }
    }
    /* A quoted fragment (RFC 7915 5.3: translated as 5.1.1 says); only a first one has ports. */
    state parse_inner_frag {
        packet.extract(hdr.inner_frag);
        ICMP_ERROR_SUM(sum_frag_header(hdr.inner_frag))
        meta.icmp_room = meta.icmp_room - 8;
        meta.quoted_parsed = meta.quoted_parsed + 8;
        transition select(hdr.inner_frag.frag_offset, hdr.inner_frag.next_hdr) {
            (0, PROTO_TCP): parse_inner_tcp;
            (0, PROTO_UDP): parse_inner_udp;
            (0, PROTO_ICMPV6): parse_inner_icmp;
            default: accept;
        }
    }
    /* The error travels opposite to the packet it quotes: its source port is the port of the
     * error's destination. l4_src/l4_dst are swapped so the session lookups work unchanged. */
    state parse_inner_tcp {
        packet.extract(hdr.inner_l4);
        ICMP_ERROR_SUM(sum_l4_head(hdr.inner_l4))
        meta.quoted_parsed = meta.quoted_parsed + 8;
        meta.inner_proto = PROTO_TCP;
        meta.l4_src = hdr.inner_l4.w1;
        meta.l4_dst = hdr.inner_l4.w0;
        meta.is_icmp_error = true;
        transition select((bit<1>) (meta.icmp_room >= 20)) {
            1: parse_inner_tcp_tail;
            default: parse_quoted_rest;
        }
    }
    state parse_inner_tcp_tail {
        packet.extract(hdr.inner_tcp_tail);
        ICMP_ERROR_SUM(sum_tcp_tail(hdr.inner_tcp_tail))
        meta.quoted_parsed = meta.quoted_parsed + 12;
        transition parse_quoted_rest;
    }
    state parse_inner_udp {
        packet.extract(hdr.inner_l4);
        ICMP_ERROR_SUM(sum_l4_head(hdr.inner_l4))
        meta.quoted_parsed = meta.quoted_parsed + 8;
        meta.inner_proto = PROTO_UDP;
        meta.l4_src = hdr.inner_l4.w1;
        meta.l4_dst = hdr.inner_l4.w0;
        meta.is_icmp_error = true;
        transition parse_quoted_rest;
    }
    state parse_inner_icmp {
        packet.extract(hdr.inner_l4);
        transition select(hdr.inner_l4.w0[15:8]) {
            ICMP_ECHO_REQUEST: parse_inner_echo;
            ICMP_ECHO_REPLY: parse_inner_echo;
            ICMP6_ECHO_REQUEST: parse_inner_echo;
            ICMP6_ECHO_REPLY: parse_inner_echo;
            default: accept;               /* an error about an error: never translated */
        }
    }
    state parse_inner_echo {
        ICMP_ERROR_SUM(sum_l4_head(hdr.inner_l4))
        meta.quoted_parsed = meta.quoted_parsed + 8;
        meta.inner_proto = PROTO_ICMP;
        meta.l4_src = hdr.inner_l4.w2;
        meta.l4_dst = hdr.inner_l4.w2;
        meta.is_icmp_error = true;
        transition parse_quoted_rest;
    }
    /* RFC 4884: with a length attribute and bytes after the datagram it measures (an extension),
     * the rest of the datagram is parsed so that the extension, left as payload, can move. A
     * length that does not fit the message counts as none. */
    state parse_quoted_rest {
        transition select((bit<1>) (meta.icmp_ext_datagram != 0 && meta.icmp_ext_datagram >= meta.quoted_parsed
                                     && meta.icmp_ext_datagram < meta.icmp_payload
                                     && meta.icmp_ext_datagram - meta.quoted_parsed <= QUOTED_MAX_BYTES)) {
            1: parse_quoted_start;
            default: no_icmp_extension;
        }
    }
    state no_icmp_extension {
        meta.icmp_ext_datagram = 0;
        transition accept;
    }
    state parse_quoted_start {
        meta.quoted_rest = meta.icmp_ext_datagram - meta.quoted_parsed;
        meta.quoted_extra = meta.quoted_rest;
        transition parse_quoted_chunks;
    }
    state parse_quoted_chunks {
        transition select((bit<1>) (meta.quoted_rest >= 32)) {
            1: parse_quoted_chunk;
            default: parse_quoted_words;
        }
    }
    state parse_quoted_chunk {
        packet.extract(hdr.quoted_chunks.next);
        ICMP_ERROR_SUM(sum_quoted_chunk(hdr.quoted_chunks.last))
        meta.quoted_rest = meta.quoted_rest - 32;
        transition parse_quoted_chunks;
    }
    state parse_quoted_words {
        transition select(meta.quoted_rest) {
            0: accept;
            default: parse_quoted_word;
        }
    }
    state parse_quoted_word {
        packet.extract(hdr.quoted_words.next);
        ICMP_ERROR_SUM(sum_quoted_word(hdr.quoted_words.last))
        meta.quoted_rest = meta.quoted_rest - 4;
        transition parse_quoted_words;
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
        transition select(hdr.ipv6.payload_len - meta.ipv6_ext_len) {
            32: parse_ndp_option;      /* one link-layer address option follows */
            default: accept;
        }
    }
    state parse_ndp_option {
        packet.extract(hdr.ndp_option);
        transition accept;
    }
