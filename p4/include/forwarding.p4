/* What both architectures' ingress decide the same way before and after translation, without
 * tables (the tables keep the names they have in each ingress): whether the IP lengths can be
 * trusted, where a packet is routed and how long it is there, what it gets when that is more than
 * its path MTU, and the hop it loses. */
#ifndef NAT64_FORWARDING_P4
#define NAT64_FORWARDING_P4

#include "translate.p4"

/* Translation trusts the length fields (it cannot see the payload): they must fit the frame, and a
 * length that ends before the headers parsed after the IP header (which the parser then took from
 * beyond it) is as malformed as one that runs past the frame. */
control IpLengths(inout headers_t hdr, inout metadata_t meta, in bit<32> frame_length, out bool valid) {
    apply {
        bit<16> parsed_after_ip = (hdr.ipv6_frag.isValid() ? 16w8 : 0) + meta.ipv6_ext_len
            + (hdr.tcp.isValid() ? 16w20 : 0) + (hdr.udp.isValid() ? 16w8 : 0) + (hdr.icmp.isValid() ? 16w8 : 0)
            + (hdr.ndp.isValid() ? 16w16 : 0) + (hdr.ndp_option.isValid() ? 16w8 : 0)
            + (hdr.inner_ipv4.isValid() ? 16w20 : 0) + (hdr.inner_ipv6.isValid() ? 16w40 : 0)
            + (hdr.inner_ipv4_options[0].isValid() ? ((bit<16>) hdr.inner_ipv4.ihl << 2) - 20 : 0)
            + (hdr.inner_frag.isValid() ? 16w8 : 0)
            + (hdr.inner_l4.isValid() ? 16w8 : 0) + (hdr.inner_tcp_tail.isValid() ? 16w12 : 0) + meta.quoted_extra;
        valid = !(hdr.ipv4.isValid() && ((bit<32>) hdr.ipv4.total_len + 14 > frame_length
                                         || hdr.ipv4.total_len < ((bit<16>) hdr.ipv4.ihl << 2) + parsed_after_ip)
                  || hdr.ipv6.isValid() && ((bit<32>) hdr.ipv6.payload_len + 54 > frame_length
                                            || hdr.ipv6.payload_len < parsed_after_ip));
        meta.trailer = hdr.ipv4.isValid() && (bit<32>) hdr.ipv4.total_len + 14 < frame_length
                       || hdr.ipv6.isValid() && (bit<32>) hdr.ipv6.payload_len + 54 < frame_length;
    }
}

/* The address the packet is routed by (meta.route4 / route6, in the family it leaves in: out_v4)
 * and its IP length there (out_len); a routed packet about to expire gets Time Exceeded instead. */
control ForwardingPlan(inout headers_t hdr, inout metadata_t meta, in bool translated, inout bit<32> drop_reason,
                       out bool out_v4, out bit<16> out_len) {
    apply {
        out_v4 = translated ? hdr.ipv6.isValid() : hdr.ipv4.isValid();
        /* What IPv6 -> IPv4 translation leaves out after the IPv6 header. */
        bit<16> ipv6_headers_dropped = meta.ipv6_ext_len + (hdr.ipv6_frag.isValid() ? 16w8 : 0);
        out_len = 0;
        if (drop_reason != DROP_REASONS || meta.punt_reason != 0 || meta.send_error) {
            return;
        }
        if (translated) {
            meta.route4 = meta.new_dst4;
            meta.route6 = meta.new_dst6;
            if (out_v4) {
                out_len = hdr.ipv6.payload_len + 20 - ipv6_headers_dropped;
            } else {
                out_len = hdr.ipv4.total_len - ((bit<16>) hdr.ipv4.ihl << 2) + 40
                          + (hdr.ipv4.more_fragments == 1 || hdr.ipv4.frag_offset != 0 ? 16w8 : 0);
            }
        } else if (hdr.ipv4.isValid()) {
            meta.route4 = hdr.ipv4.dst_addr;
            out_len = hdr.ipv4.total_len;
            if (hdr.ipv4.ttl <= 1) {
                request_error(meta, ICMP_TIME_EXCEEDED, 0, 0, DROP_TTL_EXPIRED);
            }
        } else if (hdr.ipv6.isValid()) {
            meta.route6 = hdr.ipv6.dst_addr;
            out_len = hdr.ipv6.payload_len + 40;
            if (hdr.ipv6.hop_limit <= 1) {
                request_error(meta, ICMP6_TIME_EXCEEDED, 0, 0, DROP_TTL_EXPIRED);
            }
        } else {
            drop_reason = DROP_NO_ROUTE;
        }
    }
}


/* A packet no route takes (none matches, or one that says no_route) gets Destination Unreachable,
 * "no route", in the family it came in (RFC 1812 5.2.7.1: a MUST for IPv4; RFC 4443 3.1), under
 * the rules and the rate limit of every error the switch sends; otherwise it is dropped as no_route. */
void request_no_route_error(inout metadata_t meta, in headers_t hdr) {
    request_error(meta, hdr.ipv4.isValid() ? ICMP_DEST_UNREACH : ICMP6_DEST_UNREACH, 0, 0, DROP_NO_ROUTE);
}

/* A routed packet longer than its path MTU (meta.mtu, the egress link's; path_mtu, lower for
 * IPv4 without DF that leaves as IPv6: RFC 7915 4) gets the error the RFCs give, or is marked
 * for fragmentation. Translated ICMP errors are at most 576/1280 bytes: the MTU is for the rest. */
control PathMtuCheck(in headers_t hdr, inout metadata_t meta, in bool out_v4, in bit<16> out_len,
                     in bit<16> path_mtu) {
    apply {
        bool v4_in = hdr.ipv4.isValid();
        if (!meta.routed || out_len <= path_mtu || meta.is_icmp_error) {
            return;
        }
        if (out_v4 && !v4_in && out_len <= IPV4_MAX_WITHOUT_DF) {
            /* RFC 7915 5: the host cannot go below 1280, so what translates to at most 1260 bytes
             * leaves without DF, and on an IPv4 link smaller than that the NAT64 fragments it as
             * a router would. Larger ones get Packet Too Big even when they leave without DF (a
             * Fragment header's): the host can send them smaller. */
            meta.to_fragment = true;
        } else if (out_v4 && !v4_in) {
            /* RFC 7915 5.1: Packet Too Big with the IPv4 MTU plus 20, the headers' difference,
             * also when translation leaves out a Fragment or extension headers of this packet:
             * the host applies the MTU to all its packets to the destination, and a plain one
             * grows by 20 only. (Jool's graybox "cg" answers a fragment so too.) */
            bit<32> mtu6 = (bit<32>) meta.mtu + 20;
            request_error(meta, ICMP6_PACKET_TOO_BIG, 0, mtu6 < 1280 ? 1280 : mtu6, DROP_TOO_BIG);
        } else if (!out_v4 && !v4_in) {
            request_error(meta, ICMP6_PACKET_TOO_BIG, 0, (bit<32>) meta.mtu, DROP_TOO_BIG);
        } else if (hdr.ipv4.dont_fragment == 1) {
            /* Fragmentation Needed with the MTU the packet may have in its own family: for IPv6,
             * less 20, and 8 more for a fragment, whose Fragment header translation adds. Options
             * translation leaves out do not raise it: the host's plain packets must fit too. */
            bit<16> mtu4 = out_v4 ? meta.mtu
                : meta.mtu - 20 - (hdr.ipv4.more_fragments == 1 || hdr.ipv4.frag_offset != 0 ? 16w8 : 0);
            request_error(meta, ICMP_DEST_UNREACH, 4, (bit<32>) mtu4, DROP_TOO_BIG);
        } else {
            /* IPv4 without DF: translated and routed here, then fragmented by the controller,
             * which sends the fragments out of the route's port. */
            meta.to_fragment = true;
        }
    }
}

/* A packet routed in its own family loses one hop (translation decrements it itself). With
 * IPv4 options the header checksum is adjusted here, not recomputed by the architecture. */
control HopDown(inout headers_t hdr) {
    apply {
        if (hdr.ipv4.isValid()) {
            if (hdr.ipv4.ihl != 5) {
                hdr.ipv4.hdr_checksum = csum_replace(hdr.ipv4.hdr_checksum, (bit<32>) (hdr.ipv4.ttl ++ hdr.ipv4.protocol),
                                                     1, (bit<32>) ((hdr.ipv4.ttl - 1) ++ hdr.ipv4.protocol));
            }
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
        } else {
            hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 1;
        }
    }
}

#endif
