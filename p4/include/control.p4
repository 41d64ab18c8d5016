/* The v1model controls of the NAT64 pipeline: checksum verification and update, ingress (the order
 * of the shared stages, routing, MTU, punts, drops) and egress. */
#ifndef NAT64_CONTROL_P4
#define NAT64_CONTROL_P4

#include "host.p4"
#include "translate.p4"
#include "forwarding.p4"
#include "rewrite.p4"
#include "icmp_error.p4"

control Nat64VerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply {
        verify_checksum(hdr.ipv4.isValid() && hdr.ipv4.ihl == 5,
            { hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp_ecn, hdr.ipv4.total_len,
              hdr.ipv4.identification, hdr.ipv4.reserved, hdr.ipv4.dont_fragment,
              hdr.ipv4.more_fragments, hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol,
              hdr.ipv4.src_addr, hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
        /* RFC 5508 REQ-3: an ICMP error the parser took apart (to translate it), over the words it
         * summed on the way (its headers and, for ICMPv6, the pseudo-header) and the rest of the
         * message. Ingress tells which verification failed, and drops only an error it translates. */
        verify_checksum_with_payload(meta.is_icmp_error, { meta.icmp_error_sum }, hdr.icmp.checksum,
            HashAlgorithm.csum16);
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
        /* The IPv4 header quoted in an ICMPv6 error translated to ICMPv4. Only there: an ICMPv4
         * error that is routed keeps the quoted header as it came, checksum included, or its
         * own ICMP checksum (not recomputed when routing) would no longer match; so does the
         * packet an error of the switch's quotes (options and all). */
        update_checksum(hdr.inner_ipv4.isValid() && meta.xlate_src && meta.xlate_dst && !meta.send_error,
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

#define CPU_CLONE_SESSION 99

control Nat64Ingress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t standard_metadata) {
    counter(DROP_REASONS, CounterType.packets) drops;
    counter(16, CounterType.packets) punts;
    counter(TRANSLATION_KINDS, CounterType.packets_and_bytes) translations;
    meter(PUNT_PORT_METER_SIZE, MeterType.packets) punt_port_meter;
    meter(PUNT_SOURCE_METER_SIZE, MeterType.packets) punt_source_meter;
    meter(1, MeterType.packets) inbound_syn_meter;
    direct_counter(CounterType.packets_and_bytes) ipv4_routes_counter;
    direct_counter(CounterType.packets_and_bytes) ipv6_routes_counter;

    IpLengths() ip_lengths;
    LocalHost() local_host;
    Translate() translate;
    ForwardingPlan() forwarding_plan;
    PathMtuCheck() path_mtu_check;
    HopDown() hop_down;
    Rewrite() rewrite;
    IcmpError() icmp_error;

    action drop_for(bit<32> reason) {
        drops.count(reason);
        mark_to_drop(standard_metadata);
    }
    /* RFC 7915 4: an IPv4 packet without DF must fit the IPv6 path, so the translation of a
     * larger one is fragmented to the lowest IPv6 MTU of the network: 1280 unless the
     * controller sets more (nat64.lowestIpv6Mtu). */
    bit<16> lowest_ipv6_mtu_value;
    action set_lowest_ipv6_mtu(bit<16> mtu) {
        lowest_ipv6_mtu_value = mtu;
    }
    table lowest_ipv6_mtu {
        actions = { set_lowest_ipv6_mtu; }
        default_action = set_lowest_ipv6_mtu(1280);
    }

    action punt(bit<8> reason) {
        punts.count((bit<32>) reason);
        meta.punt_reason = reason;
        standard_metadata.egress_spec = CPU_PORT;
    }
    /* The IPv6 prefix that is one subscriber (pool4's subscriberPrefixLength), as a mask: the
     * source meter counts a subscriber, so a host cannot leave its bucket by changing its
     * interface identifier. */
    action set_subscriber_mask(ipv6_t mask) {
        meta.subscriber_mask = mask;
    }
    table punt_subscriber {
        key = { }
        actions = { set_subscriber_mask; }
        default_action = set_subscriber_mask(128w0xffffffffffffffffffffffffffffffff);
        size = 1;
    }
    /* Control-plane policing: a punt passes the meter of its source's hash bucket (the
     * subscriber's prefix for IPv6, the address for IPv4), then the meter of its ingress port;
     * RED from any refuses it (meta.punt_color). The source meter comes first so that a
     * flooding source's refused punts spend none of its port's budget. Unconfigured meters pass
     * everything. punt_subscriber is applied first: it gives the subscriber's mask.
     * An IPv4 SYN to be held passes inbound_syn_meter before them, set to what the controller
     * holds (nat64.maxHeldSyns): a scan of pool4 from many sources spends little of the budget
     * that session misses and TCP control copies share. */
    action police_punt() {
        meta.punt_color = V1MODEL_METER_COLOR_GREEN;
        if (meta.punt_reason == PUNT_INBOUND_SYN) {
            inbound_syn_meter.execute_meter(32w0, meta.punt_color);
        }
        if (meta.punt_color != V1MODEL_METER_COLOR_RED) {
            if (hdr.ipv6.isValid()) {
                hash(meta.punt_source_bucket, HashAlgorithm.crc16, 32w0, { hdr.ipv6.src_addr & meta.subscriber_mask },
                     PUNT_SOURCE_METER_SIZE);
            } else {
                hash(meta.punt_source_bucket, HashAlgorithm.crc16, 32w0, { hdr.ipv4.src_addr }, PUNT_SOURCE_METER_SIZE);
            }
            punt_source_meter.execute_meter(meta.punt_source_bucket, meta.punt_color);
        }
        if (meta.punt_color != V1MODEL_METER_COLOR_RED) {
            punt_port_meter.execute_meter((bit<32>) standard_metadata.ingress_port, meta.punt_color);
        }
    }
    /* The MACs are written once the packet is known to leave (not as an ICMP error, which
     * goes back to the sender). */
    action set_next_hop(port_t port, mac_t src_mac, mac_t dst_mac) {
        standard_metadata.egress_spec = port;
        meta.next_hop_src_mac = src_mac;
        meta.next_hop_dst_mac = dst_mac;
        meta.routed = true;
    }
    action no_route() {
        request_no_route_error(meta, hdr);
    }
    action punt_no_route() {
        meta.punt_reason = PUNT_NO_ROUTE;
    }
    /* For pool4 and EAM IPv4 prefixes: a translated packet to an address the NAT64 owns goes
     * round once more to be translated back (RFC 6146 3.8, RFC 7757 4.2 hairpinning). */
    action hairpin() {
        meta.recirc = RECIRC_HAIRPIN;
        meta.hairpin_after = true;   /* for when the translation makes it go round for its checksum first */
        standard_metadata.egress_spec = standard_metadata.ingress_port;
    }

    table ipv4_routes {
        key = { meta.route4: lpm @name("dst_addr"); }
        actions = { set_next_hop; no_route; punt_no_route; hairpin; }
        default_action = no_route();
        counters = ipv4_routes_counter;
        size = 65536;
    }
    table ipv6_routes {
        key = { meta.route6: lpm @name("dst_addr"); }
        actions = { set_next_hop; no_route; punt_no_route; }
        default_action = no_route();
        counters = ipv6_routes_counter;
        size = 65536;
    }

    action set_mtu(bit<16> mtu) {
        meta.mtu = mtu;
    }
    /* IP MTU of each port's link; ports without an entry take any size. */
    table egress_mtu {
        key = { standard_metadata.egress_spec: exact @name("port"); }
        actions = { set_mtu; @defaultonly NoAction; }
        default_action = NoAction();
        size = 512;
    }

    action set_ingress_mtu(bit<16> mtu) {
        meta.ingress_mtu = mtu;
    }
    /* The same MTUs by the port a packet came in on: a translated Packet Too Big or Fragmentation
     * Needed also tells the MTU of the link its sender's packets take (RFC 7915 4.2, 5.2). */
    table ingress_mtu {
        key = { standard_metadata.ingress_port: exact @name("port"); }
        actions = { set_ingress_mtu; @defaultonly NoAction; }
        default_action = NoAction();
        size = 512;
    }


    apply {
        bit<2> recirculated = meta.recirc;
        meta.recirc = 0;
        bool hairpin_after = meta.hairpin_after;
        meta.hairpin_after = false;
        bool udp_sum_to_mend = meta.udp_sum_to_mend;
        meta.udp_sum_to_mend = false;
        /* One router hop for both passes of a hairpinned packet (RFC 6146 3.8, RFC 7757 4.2):
         * the first decremented the hop limit and checked it. */
        meta.hairpinned = recirculated == RECIRC_HAIRPIN;
        /* A packet the controller sent through the pipeline is not copied back to it: it has the
         * packet (an I2E copy would be the packet as it came, its packet_out header included). */
        meta.from_controller = hdr.packet_out.isValid();
        meta.probe = false;
        if (hdr.packet_out.isValid()) {
            bool to_pipeline = hdr.packet_out.to_pipeline == 1;
            standard_metadata.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            if (!to_pipeline) {
                exit;
            }
        }
        if (recirculated == RECIRC_CHECKSUM || recirculated == RECIRC_UDP_CHECKSUM) {
            meta.icmp_checksum_now = recirculated == RECIRC_CHECKSUM;
            meta.udp_csum_from_payload = recirculated == RECIRC_UDP_CHECKSUM && !udp_sum_to_mend;
            if (udp_sum_to_mend && hdr.udp.checksum == 0) {
                hdr.udp.checksum = 0xffff;   /* RFC 768: a computed 0 is sent as all ones; 0 is none */
            }
            standard_metadata.egress_spec = meta.out_port;
            if (hairpin_after) {
                meta.recirc = RECIRC_HAIRPIN;   /* summed, it goes round once more to be translated back */
            }
            exit;
        }
        if (standard_metadata.parser_error != error.NoError) {
            drop_for(DROP_PARSER_ERROR);
            exit;
        }
        /* verify_checksum covers IPv4 headers without options (with options, summed here) and ICMP
         * errors: when an error failed, its IPv4 header is summed here to tell which one did. */
        bool header_sum_wrong = hdr.ipv4.isValid() && hdr.ipv4.ihl != 5
                                && !ipv4_checksum_holds(hdr.ipv4, hdr.ipv4_options);
        bool icmp_sum_wrong = false;
        if (standard_metadata.checksum_error == 1) {
            if (meta.is_icmp_error && (!hdr.ipv4.isValid() || ipv4_checksum_holds(hdr.ipv4, hdr.ipv4_options))) {
                /* 0xffff is the other form of a checksum computed as 0 (ones' complement), which
                 * the sum, never 0xffff, cannot match: a right one, or a wrong one let through. */
                icmp_sum_wrong = hdr.icmp.checksum != 0xffff;
            } else {
                header_sum_wrong = true;
            }
        }
        if (header_sum_wrong) {
            drop_for(DROP_BAD_CHECKSUM);
            exit;
        }
        bool lengths_valid;
        ip_lengths.apply(hdr, meta, standard_metadata.packet_length - (meta.from_controller ? PACKET_OUT_BYTES : 0),
                         lengths_valid);
        if (!lengths_valid) {
            drop_for(DROP_BAD_LENGTH);
            exit;
        }
        if (one_host_in_a_link_group_frame(hdr, meta)) {
            drop_for(DROP_LINK_GROUP);
            exit;
        }
        bit<32> drop_reason;
        translate.apply(hdr, meta, drop_reason);
        /* RFC 5508 REQ-3: an ICMP error whose checksum is wrong is not translated (routed, it goes on
         * as it came). One with bytes after its IP packet is not judged: the sum counted them. */
        if (icmp_sum_wrong && !meta.trailer && meta.xlate_src && meta.xlate_dst && drop_reason == DROP_REASONS) {
            drop_for(DROP_BAD_CHECKSUM);
            exit;
        }
        bool translated = meta.xlate_src && meta.xlate_dst && drop_reason == DROP_REASONS
                          && meta.punt_reason == 0 && !meta.send_error;
        /* The switch answers for its own addresses what it does not translate: a pool4 address
         * may be its own too, and an echo request there that a session maps goes to the host. */
        bool answered;
        bit<32> refusal;
        local_host.apply(hdr, meta, translated, answered, refusal);
        if (refusal != DROP_REASONS) {
            drop_for(refusal);
            exit;
        }
        if (answered) {
            standard_metadata.egress_spec = standard_metadata.ingress_port;
            exit;
        }
        bool out_v4;
        bit<16> out_len;
        forwarding_plan.apply(hdr, meta, translated, drop_reason, out_v4, out_len);
        if (drop_reason == DROP_REASONS && meta.punt_reason == 0 && !meta.send_error) {
            if (out_v4) {
                ipv4_routes.apply();
            } else {
                ipv6_routes.apply();
            }
            meta.mtu = 0xffff;
            meta.ingress_mtu = 0xffff;
            if (meta.routed) {
                egress_mtu.apply();
                if (meta.is_icmp_error && translated) {
                    ingress_mtu.apply();
                }
            }
            bool v4_in = hdr.ipv4.isValid();
            bool df = v4_in && hdr.ipv4.dont_fragment == 1;
            bit<16> path_mtu = meta.mtu;
            if (translated && v4_in && !df) {
                lowest_ipv6_mtu.apply();
                path_mtu = lowest_ipv6_mtu_value < meta.mtu ? lowest_ipv6_mtu_value : meta.mtu;
            }
            path_mtu_check.apply(hdr, meta, out_v4, out_len, path_mtu);
        }
        if (meta.send_error) {
            icmp_error.apply(hdr, meta, standard_metadata, drop_reason);
        }
        if (drop_reason != DROP_REASONS) {
            drop_for(drop_reason);
            exit;
        }
        /* The controller tracks TCP state from copies of SYN, FIN and RST of translated flows, and
         * of every segment of a transitory mapping (until it writes the mapping back established).
         * What goes to the controller, a punted packet or such a copy, is policed first, on the
         * addresses the packet arrived with (a translated packet never punts: one or the other). */
        bool copy_tcp_control = translated && meta.stateful && !meta.from_controller && hdr.tcp.isValid()
                                && ((hdr.tcp.flags & 0x07) != 0 || meta.transitory);
        /* And from copies of first fragments, how to translate the fragments after them (RFC 6146 3.4). */
        bool copy_first_fragment = translated && meta.stateful && !meta.from_controller && !copy_tcp_control
            && (hdr.ipv6_frag.isValid() && hdr.ipv6_frag.frag_offset == 0 && hdr.ipv6_frag.more_fragments == 1
                || hdr.ipv4.isValid() && hdr.ipv4.frag_offset == 0 && hdr.ipv4.more_fragments == 1);
        bool copy = copy_tcp_control || copy_first_fragment;
        if (meta.punt_reason != 0 || copy || meta.to_fragment) {
            punt_subscriber.apply();
            police_punt();
        }
        if (meta.punt_reason != 0) {
            if (meta.punt_color == V1MODEL_METER_COLOR_RED) {
                drop_for(DROP_PUNT_POLICED);
            } else {
                punt(meta.punt_reason);
            }
            exit;
        }
        if (meta.send_error || !meta.routed && meta.recirc == 0) {
            exit;                                   /* answered, or dropped/punted by the route */
        }
        if (meta.routed) {
            hdr.ethernet.src_addr = meta.next_hop_src_mac;
            hdr.ethernet.dst_addr = meta.next_hop_dst_mac;
        }
        if (copy && meta.punt_color == V1MODEL_METER_COLOR_RED) {
            drops.count(DROP_PUNT_POLICED);     /* the copy only: the packet itself goes on */
            copy = false;
        }
        if (translated) {
            bit<32> kind = hdr.ipv4.isValid() ? TRANSLATED_4TO6_STATEFUL : TRANSLATED_6TO4_STATEFUL;
            rewrite.apply(hdr, meta, drop_reason);
            if (drop_reason != DROP_REASONS) {
                drop_for(drop_reason);
                exit;
            }
            translations.count(meta.stateful ? kind : kind + 1);   /* a hairpin's two passes count two */
        } else {
            hop_down.apply(hdr);
        }
        if (meta.to_fragment) {
            /* Not copied as well (a clone would carry this packet's punt reason): the controller
             * learns from this punt what a copy of a TCP control segment or a first fragment tells. */
            if (meta.punt_color == V1MODEL_METER_COLOR_RED) {
                drop_for(DROP_PUNT_POLICED);
            } else {
                punt(PUNT_NEEDS_FRAGMENTATION);
            }
            exit;
        }
        if (copy) {
            meta.punt_reason = copy_tcp_control ? PUNT_TCP_CONTROL : PUNT_FIRST_FRAGMENT;
            punts.count((bit<32>) meta.punt_reason);
            clone_preserving_field_list(CloneType.I2E, CPU_CLONE_SESSION, 1);
        }
    }
}

control Nat64Egress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t standard_metadata) {
    apply {
        /* Bytes after the IP packet (an Ethernet pad) are no part of it: they stay behind, as a
         * router leaves them, and no checksum sums them. One summed to the frame's end (IPv4 UDP
         * without a checksum) is summed in a second pass, after the cut, and a sum of 0 mended in
         * the pass after the sum. (What goes to the CPU port to be fragmented keeps them, summed
         * too: a pad comes with short frames only; the controller mends a 0 there.) */
        if (meta.trailer && meta.truncate_to == 0) {
            meta.truncate_to = hdr.ipv4.isValid() ? 14 + (bit<32>) hdr.ipv4.total_len
                                                  : 54 + (bit<32>) hdr.ipv6.payload_len;
        }
        bool udp_sum_here = meta.udp_csum_from_payload && standard_metadata.egress_port != CPU_PORT
                            && meta.recirc == 0;
        if (udp_sum_here && meta.trailer) {
            meta.udp_csum_from_payload = false;
            meta.recirc = RECIRC_UDP_CHECKSUM;
        } else if (udp_sum_here) {
            /* Summed as this pass ends; v1model writes a sum of 0 as 0, so the next pass mends it. */
            meta.udp_sum_to_mend = true;
            meta.recirc = RECIRC_UDP_CHECKSUM;
        }
        if (meta.recirc != 0) {
            meta.out_port = standard_metadata.egress_port;
            if (meta.truncate_to != 0) {
                truncate(meta.truncate_to);
            }
            recirculate_preserving_field_list(2);
        } else if (standard_metadata.egress_port == CPU_PORT) {   /* (a hairpinned packet from the controller leaves for its second pass by the CPU port) */
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = standard_metadata.ingress_port;
            hdr.packet_in._pad = 0;
            hdr.packet_in.punt_reason = meta.punt_reason;
        } else if (meta.truncate_to != 0) {
            truncate(meta.truncate_to);
        }
    }
}

#endif
