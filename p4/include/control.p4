/* Ingress and egress of the NAT64 pipeline. */
#ifndef NAT64_CONTROL_P4
#define NAT64_CONTROL_P4

#include "host.p4"
#include "translate.p4"

#define CPU_CLONE_SESSION 99

control Nat64Ingress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t standard_metadata) {
    counter(DROP_REASONS, CounterType.packets) drops;
    counter(8, CounterType.packets) punts;
    direct_counter(CounterType.packets_and_bytes) ipv4_routes_counter;
    direct_counter(CounterType.packets_and_bytes) ipv6_routes_counter;

    LocalHost() local_host;
    Translate() translate;

    action drop_for(bit<32> reason) {
        drops.count(reason);
        mark_to_drop(standard_metadata);
    }
    action punt(bit<8> reason) {
        punts.count((bit<32>) reason);
        meta.punt_reason = reason;
        standard_metadata.egress_spec = CPU_PORT;
    }
    action set_next_hop(port_t port, mac_t src_mac, mac_t dst_mac) {
        standard_metadata.egress_spec = port;
        hdr.ethernet.src_addr = src_mac;
        hdr.ethernet.dst_addr = dst_mac;
    }
    action no_route() {
        drop_for(DROP_NO_ROUTE);
    }
    action punt_no_route() {
        punt(PUNT_NO_ROUTE);
    }

    table ipv4_routes {
        key = { hdr.ipv4.dst_addr: lpm; }
        actions = { set_next_hop; no_route; punt_no_route; }
        default_action = no_route();
        counters = ipv4_routes_counter;
        size = 65536;
    }
    table ipv6_routes {
        key = { hdr.ipv6.dst_addr: lpm; }
        actions = { set_next_hop; no_route; punt_no_route; }
        default_action = no_route();
        counters = ipv6_routes_counter;
        size = 65536;
    }

    apply {
        if (hdr.packet_out.isValid()) {
            bool to_pipeline = hdr.packet_out.to_pipeline == 1;
            standard_metadata.egress_spec = hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            if (!to_pipeline) {
                exit;
            }
        }
        if (standard_metadata.parser_error != error.NoError) {
            drop_for(DROP_PARSER_ERROR);
            exit;
        }
        if (standard_metadata.checksum_error == 1) {
            drop_for(DROP_BAD_CHECKSUM);
            exit;
        }
        bool answered;
        local_host.apply(hdr, meta, standard_metadata, answered);
        if (answered) {
            exit;
        }
        bool was_ipv6 = hdr.ipv6.isValid();
        bit<32> drop_reason;
        translate.apply(hdr, meta, standard_metadata, drop_reason);
        if (drop_reason != DROP_REASONS) {
            drop_for(drop_reason);
            exit;
        }
        if (meta.punt_reason != 0) {
            punt(meta.punt_reason);
            exit;
        }
        bool translated = meta.xlate_src && meta.xlate_dst;
        if (hdr.ipv4.isValid()) {
            if (!translated) {
                if (hdr.ipv4.ttl <= 1) {
                    punt(PUNT_TTL_EXPIRED);
                    exit;
                }
                if (hdr.ipv4.ihl != 5) {
                    /* With options the header checksum is adjusted, not recomputed. */
                    hdr.ipv4.hdr_checksum = csum_replace(hdr.ipv4.hdr_checksum, (bit<32>) (hdr.ipv4.ttl ++ hdr.ipv4.protocol),
                                                         1, (bit<32>) ((hdr.ipv4.ttl - 1) ++ hdr.ipv4.protocol));
                }
                hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            }
            ipv4_routes.apply();
        } else if (hdr.ipv6.isValid()) {
            if (!translated) {
                if (hdr.ipv6.hop_limit <= 1) {
                    punt(PUNT_TTL_EXPIRED);
                    exit;
                }
                hdr.ipv6.hop_limit = hdr.ipv6.hop_limit - 1;
            }
            ipv6_routes.apply();
        } else {
            drop_for(DROP_NO_ROUTE);
            exit;
        }
        /* The controller tracks TCP state from copies of SYN, FIN and RST of translated flows. */
        if (translated && meta.stateful && hdr.tcp.isValid() && (hdr.tcp.flags & 0x07) != 0) {
            meta.punt_reason = PUNT_TCP_CONTROL;
            punts.count((bit<32>) PUNT_TCP_CONTROL);
            clone_preserving_field_list(CloneType.I2E, CPU_CLONE_SESSION, 1);
        }
    }
}

control Nat64Egress(inout headers_t hdr, inout metadata_t meta, inout standard_metadata_t standard_metadata) {
    apply {
        if (standard_metadata.egress_port == CPU_PORT) {
            hdr.packet_in.setValid();
            hdr.packet_in.ingress_port = standard_metadata.ingress_port;
            hdr.packet_in._pad = 0;
            hdr.packet_in.punt_reason = meta.punt_reason;
        }
    }
}

#endif
