/* The switch as a network host: ARP replies, neighbour advertisements and echo replies for its
 * own addresses (router and pool4 addresses), answered out of the port they came in on, unless
 * Translate translates the packet (an echo request to a pool4 address that a session maps). */
#ifndef NAT64_HOST_P4
#define NAT64_HOST_P4

#include "checksums.p4"

/* `answered`: the packet is now the answer, to go back out of the port it came in on (which the
 * caller sets: ports are the architecture's). `refusal`: why the switch drops a packet for itself
 * (DROP_REASONS: it does not). */
control LocalHost(inout headers_t hdr, inout metadata_t meta, in bool translated, out bool answered,
                  out bit<32> refusal) {
    mac_t my_mac;
    bool local;

    DIRECT_COUNTER(packets, local_ipv4_counter)
    DIRECT_COUNTER(packets, local_ipv6_counter)

    action is_local(mac_t mac) {
        my_mac = mac;
        local = true;
    }

    /* IPv4 addresses the switch answers for (ARP target or echo destination). */
    table local_ipv4 {
        key = { meta.local4_key: exact; }
        actions = { is_local; @defaultonly NoAction; }
        default_action = NoAction();
        COUNTED_BY(local_ipv4_counter)
        size = 1024;
    }

    /* IPv6 addresses the switch answers for (NS target, or any packet's destination). */
    table local_ipv6 {
        key = { meta.local6_key: exact; }
        actions = { is_local; @defaultonly NoAction; }
        default_action = NoAction();
        COUNTED_BY(local_ipv6_counter)
        size = 1024;
    }

    action back_to_sender() {
        hdr.ethernet.dst_addr = hdr.ethernet.src_addr;
        hdr.ethernet.src_addr = my_mac;
    }

    apply {
        my_mac = 0;
        local = false;
        answered = false;
        refusal = DROP_REASONS;
        if (translated) {
            return;
        }
        if (hdr.arp.isValid() && hdr.arp.oper == ARP_REQUEST) {
            meta.local4_key = hdr.arp.tpa;
        } else if (hdr.ipv4.isValid() && hdr.icmp.isValid() && hdr.icmp.type == ICMP_ECHO_REQUEST) {
            meta.local4_key = hdr.ipv4.dst_addr;
        }
        bool solicitation = hdr.ndp.isValid() && hdr.icmp.type == ICMP6_NS;
        if (hdr.ipv6.isValid()) {
            meta.local6_key = solicitation ? hdr.ndp.target : hdr.ipv6.dst_addr;
        }
        if (meta.local4_key != 0) {
            local_ipv4.apply();
        } else if (meta.local6_key != 0) {
            local_ipv6.apply();
        }
        if (!local) {
            return;
        }
        if (hdr.ipv6.isValid() && !solicitation && !(hdr.icmp.isValid() && hdr.icmp.type == ICMP6_ECHO_REQUEST)) {
            /* RFC 1812 5.2.3 (RFC 8504 likewise): a packet for the switch is delivered to it, not
             * forwarded; it answers echo and solicitations only, so anything else ends here (an
             * error about a packet it sent, an advertisement, TCP or UDP to it). IPv4 addresses
             * are looked up for ARP and echo only: pool4's are the switch's too, and translated. */
            refusal = DROP_FOR_SWITCH;
            return;
        }
        /* Only the first fragment is parsed: answering it would send part of a reply (flagged as
         * a fragment). The switch does not reassemble, so it refuses (the ingress counts it). */
        if (hdr.ipv4.isValid() && hdr.ipv4.more_fragments == 1 || hdr.ipv6_frag.isValid()) {
            refusal = DROP_LOCAL_FRAGMENT;
            return;
        }
        answered = true;
        back_to_sender();
        if (hdr.arp.isValid()) {
            hdr.arp.oper = ARP_REPLY;
            hdr.arp.tha = hdr.arp.sha;
            hdr.arp.sha = my_mac;
            ipv4_t asked = hdr.arp.tpa;
            hdr.arp.tpa = hdr.arp.spa;
            hdr.arp.spa = asked;
        } else if (hdr.ipv4.isValid()) {
            ipv4_t peer = hdr.ipv4.src_addr;
            hdr.ipv4.src_addr = hdr.ipv4.dst_addr;
            hdr.ipv4.dst_addr = peer;
            if (hdr.ipv4.ihl != 5) {
                /* With options the header checksum is adjusted, not recomputed (see Nat64Ingress);
                 * swapping the addresses leaves the sum as it was, the TTL does not. */
                hdr.ipv4.hdr_checksum = csum_replace(hdr.ipv4.hdr_checksum, (bit<32>) (hdr.ipv4.ttl ++ hdr.ipv4.protocol),
                                                     1, (bit<32>) (8w64 ++ hdr.ipv4.protocol));
            }
            hdr.ipv4.ttl = 64;
            hdr.icmp.checksum = csum_replace(hdr.icmp.checksum, (bit<32>) (ICMP_ECHO_REQUEST ++ hdr.icmp.code), 1,
                                             (bit<32>) (ICMP_ECHO_REPLY ++ hdr.icmp.code));
            hdr.icmp.type = ICMP_ECHO_REPLY;
        } else if (hdr.ndp.isValid()) {
            /* Solicited neighbour advertisement with the target link-layer address option. The
             * solicitation's options the parser left in the payload stay behind with any pad. */
            if (hdr.ipv6.payload_len - meta.ipv6_ext_len > (hdr.ndp_option.isValid() ? 16w32 : 16w24)) {
                meta.trailer = true;
            }
            hdr.ipv6.dst_addr = hdr.ipv6.src_addr;
            hdr.ipv6.src_addr = hdr.ndp.target;
            hdr.ipv6.hop_limit = 255;
            hdr.ipv6.payload_len = 32;
            hdr.ipv6.next_hdr = PROTO_ICMPV6;        /* without the solicitation's extension headers */
            hdr.ipv6_ext.pop_front(IPV6_EXT_WORDS);
            hdr.icmp.type = ICMP6_NA;
            hdr.icmp.code = 0;
            hdr.icmp.identifier = 0xe000;     /* Router, Solicited, Override */
            hdr.icmp.sequence = 0;
            hdr.ndp_option.setValid();
            hdr.ndp_option.type = 2;          /* target link-layer address */
            hdr.ndp_option.len = 1;
            hdr.ndp_option.addr = my_mac;
            /* All of it is in headers: summed here, on every architecture (RFC 4443 2.3: the
             * pseudo-header of RFC 8200 8.1 with the length 32, then the message). */
            hdr.icmp.checksum = 0;
            hdr.icmp.checksum = ~csum_fold(sum_v6(hdr.ipv6.src_addr) + sum_v6(hdr.ipv6.dst_addr) + 32
                + (bit<32>) PROTO_ICMPV6 + (bit<32>) (hdr.icmp.type ++ hdr.icmp.code) + (bit<32>) hdr.icmp.identifier
                + (bit<32>) hdr.icmp.sequence + sum_v6(hdr.ndp.target)
                + (bit<32>) (hdr.ndp_option.type ++ hdr.ndp_option.len) + (bit<32>) hdr.ndp_option.addr[47:32]
                + (bit<32>) hdr.ndp_option.addr[31:16] + (bit<32>) hdr.ndp_option.addr[15:0]);
        } else {
            ipv6_t peer = hdr.ipv6.src_addr;
            hdr.ipv6.src_addr = hdr.ipv6.dst_addr;
            hdr.ipv6.dst_addr = peer;
            hdr.ipv6.hop_limit = 64;
            /* The pseudo-header sum is unchanged by the swap; only the type word changes. */
            hdr.icmp.checksum = csum_replace(hdr.icmp.checksum, (bit<32>) (ICMP6_ECHO_REQUEST ++ hdr.icmp.code), 1,
                                             (bit<32>) (ICMP6_ECHO_REPLY ++ hdr.icmp.code));
            hdr.icmp.type = ICMP6_ECHO_REPLY;
        }
    }
}

#endif
