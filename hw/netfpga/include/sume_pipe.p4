/* The SimpleSumeSwitch parser, pipe and deparser of the NAT64 pipeline. The stages are the shared
 * ones of p4/include (LocalHost, Translate, Rewrite, the parser's states, the deparser's emits), in the
 * order of v1model's Nat64Ingress; what SUME cannot do goes to the controller over DMA:
 * - payload checksums and cuts (an ICMP error translated and cut to 576 / 1280 bytes, IPv4 UDP
 *   without a checksum) and hairpinning, which v1model does on a second pass: PUNT_FINISH with
 *   what to finish in packet_in.finish;
 * - TCP SYN, FIN and RST of translated flows, and a session's first fragments of several, which
 *   v1model copies with a clone: the packet itself goes to the controller (PUNT_FINISH,
 *   FINISH_TRACK), which tracks it (or learns how to translate the fragments after it, RFC 6146
 *   3.4) and sends it on;
 * - the ICMP errors v1model's IcmpError builds itself (Time Exceeded, Destination Unreachable,
 *   Packet Too Big / Fragmentation Needed, Parameter Problem), whose checksum covers the quoted
 *   packet: the packet goes to the controller as it came, with the error's type, code and
 *   parameter (PUNT_FINISH, FINISH_ICMP_ERROR), and the controller sends the error back out of
 *   the port it came in on; a packet too long to go over DMA with packet_in goes without its
 *   Ethernet header (FINISH_NO_ETHERNET), which the controller writes back from its routes;
 * - session misses, packets to fragment, missing routes: as on v1model, a full-size one without
 *   its Ethernet header (a session miss comes back so, packet_out.ether_type);
 * - IPv4 to translate and fragment, or an ICMPv4 error to translate and cut, whose translation
 *   would not fit a DMA frame: as it came (PUNT_TOO_LONG); the controller sends its headers back as
 *   a probe (packet_out.probe), whose translation comes back (FINISH_PROBED), puts the payload
 *   behind them and fragments, or cuts and sums, the whole.
 * Not done here (hw/netfpga/README.md lists each difference): counters, meters (no punt policing
 * in the data plane, no rate meter on the errors: the controller limits their rate). */
#ifndef NAT64_SUME_PIPE_P4
#define NAT64_SUME_PIPE_P4

#include "../../../p4/include/host.p4"
#include "../../../p4/include/translate.p4"
#include "../../../p4/include/forwarding.p4"
#include "../../../p4/include/rewrite.p4"

/* SUME's one-hot ports: {DMA3, NF3, DMA2, NF2, DMA1, NF1, DMA0, NF0}. */
const port_t SUME_DMA_PORTS = 0b10101010;
const port_t SUME_DMA0 = 0b00000010;
/* The port number of a packet that came from the controller (as v1model's CPU port). */
const port_number_t FROM_CONTROLLER = 0xff;

/* The digest SDNet's architecture carries; this program sends none (it punts over DMA). */
struct digest_t {
    bit<8> unused;
}

port_t one_hot(in port_number_t n) {
    return n == 0 ? 8w0b00000001 : n == 1 ? 8w0b00000100 : n == 2 ? 8w0b00010000 : n == 3 ? 8w0b01000000 : 8w0;
}

port_number_t number_of(in port_t p) {
    return p == 0b00000001 ? 8w0 : p == 0b00000100 ? 8w1 : p == 0b00010000 ? 8w2 : p == 0b01000000 ? 8w3
         : FROM_CONTROLLER;
}

parser Nat64SumeParser(packet_in packet, out headers_t hdr, out metadata_t meta, out digest_t digest,
                       inout sume_metadata_t sume_metadata) {
    state start {
        transition select(sume_metadata.src_port & SUME_DMA_PORTS) {
            0: parse_ethernet;
            default: parse_packet_out;
        }
    }
    state parse_packet_out {
        packet.extract(hdr.packet_out);
        transition select(hdr.packet_out.ether_type) {
            0: parse_ethernet;
            ETHERTYPE_IPV4: parse_ipv4;    /* without its Ethernet header: the pipe writes one */
            ETHERTYPE_IPV6: parse_ipv6;
            default: reject;
        }
    }
#include "../../../p4/include/parser_states.p4"
}

/* A packet handed over as it came loses its Ethernet header when its frame would not fit in a DMA
 * frame beside packet_in (a 1500-byte IP packet does): `finish` is then FINISH_NO_ETHERNET. */
control EthernetLeftOut(inout headers_t hdr, in bit<16> frame_length, out bit<8> finish) {
    apply {
        finish = 0;
        if (frame_length > SUME_MAX_FRAME - PACKET_IN_BYTES) {
            hdr.ethernet.setInvalid();
            finish = FINISH_NO_ETHERNET;
        }
    }
}

/* Named as v1model's ingress, so that every table has the same name on both architectures and
 * the controller writes them alike. */
control Nat64Ingress(inout headers_t hdr, inout metadata_t meta, inout digest_t digest,
                     inout sume_metadata_t sume_metadata) {
    IpLengths() ip_lengths;
    LocalHost() local_host;
    Translate() translate;
    ForwardingPlan() forwarding_plan;
    PathMtuCheck() path_mtu_check;
    HopDown() hop_down;
    Rewrite() rewrite;
    EthernetLeftOut() ethernet_left_out;

    port_number_t in_port;

    /* RFC 7915 4: the lowest IPv6 MTU of the network, for IPv4 without DF (see v1model). */
    bit<16> lowest_ipv6_mtu_value;
    action set_lowest_ipv6_mtu(bit<16> mtu) {
        lowest_ipv6_mtu_value = mtu;
    }
    table lowest_ipv6_mtu {
        actions = { set_lowest_ipv6_mtu; }
        default_action = set_lowest_ipv6_mtu(1280);
        size = 1;
    }

    action set_next_hop(port_number_t port, mac_t src_mac, mac_t dst_mac) {
        meta.out_port = port;
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
    action hairpin() {
        meta.recirc = RECIRC_HAIRPIN;
        meta.out_port = in_port;
    }
    table ipv4_routes {
        key = { meta.route4: lpm @name("dst_addr"); }
        actions = { set_next_hop; no_route; punt_no_route; hairpin; }
        default_action = no_route();
        size = 1024;
    }
    table ipv6_routes {
        key = { meta.route6: lpm @name("dst_addr"); }
        actions = { set_next_hop; no_route; punt_no_route; }
        default_action = no_route();
        size = 1024;
    }

    action set_mtu(bit<16> mtu) {
        meta.mtu = mtu;
    }
    table egress_mtu {
        key = { meta.out_port: exact @name("port"); }
        actions = { set_mtu; @defaultonly NoAction; }
        default_action = NoAction();
        size = 4;
    }
    action set_ingress_mtu(bit<16> mtu) {
        meta.ingress_mtu = mtu;
    }
    table ingress_mtu {
        key = { in_port: exact @name("port"); }
        actions = { set_ingress_mtu; @defaultonly NoAction; }
        default_action = NoAction();
        size = 4;
    }

    action drop() {
        sume_metadata.drop = 1;
        sume_metadata.dst_port = 0;
    }
    action to_controller(bit<8> reason, bit<8> finish) {
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = in_port;
        hdr.packet_in.punt_reason = reason;
        hdr.packet_in.out_port = meta.out_port;
        hdr.packet_in.finish = finish;
        hdr.packet_in.truncate_to = (finish & FINISH_TRUNCATE) != 0 ? meta.truncate_to[15:0] : 0;
        bool icmp_error = (finish & FINISH_ICMP_ERROR) != 0;
        hdr.packet_in.error_type = icmp_error ? meta.error_type : 0;
        hdr.packet_in.error_code = icmp_error ? meta.error_code : 0;
        hdr.packet_in.error_param = icmp_error ? meta.error_param[15:0] : 0;
        sume_metadata.dst_port = SUME_DMA0;
    }

    apply {
        in_port = number_of(sume_metadata.src_port);
        meta.idle_hit = false;
        meta.probe = false;
        bit<16> frame_length = sume_metadata.pkt_len;
        meta.from_controller = hdr.packet_out.isValid();
        if (hdr.packet_out.isValid()) {
            bool to_pipeline = hdr.packet_out.to_pipeline == 1;
            meta.hairpinned = to_pipeline && hdr.packet_out.hairpinned == 1;
            meta.probe = to_pipeline && hdr.packet_out.probe == 1;
            if (hdr.packet_out.ether_type != 0) {
                hdr.ethernet.setValid();
                hdr.ethernet.dst_addr = 0;
                hdr.ethernet.src_addr = 0;
                hdr.ethernet.ether_type = hdr.packet_out.ether_type;
                frame_length = frame_length + ETHERNET_BYTES;
            }
            sume_metadata.dst_port = one_hot(hdr.packet_out.egress_port);
            hdr.packet_out.setInvalid();
            if (!to_pipeline) {
                return;
            }
        }
        /* No checksum unit: the IPv4 header (with its options) sums to 0xffff with its checksum,
         * or it is dropped. */
        if (hdr.ipv4.isValid() && !ipv4_checksum_holds(hdr.ipv4, hdr.ipv4_options)) {
            drop();
            return;
        }
        bool lengths_valid;
        /* A probe's payload is left out: the lengths its headers state stand. */
        ip_lengths.apply(hdr, meta, meta.probe ? 32w0x20000 : (bit<32>) frame_length, lengths_valid);
        if (!lengths_valid) {
            drop();
            return;
        }
        if (one_host_in_a_link_group_frame(hdr, meta)) {
            drop();
            return;
        }
        bit<32> drop_reason;
        translate.apply(hdr, meta, drop_reason);
        if (meta.idle_hit) {
            bit<32> hits;
            session_hit_reg_raw(meta.idle_slot, 0, 1, REG_ADD, hits);
        }
        bool translated = meta.xlate_src && meta.xlate_dst && drop_reason == DROP_REASONS
                          && meta.punt_reason == 0 && !meta.send_error;
        bool answered;
        bit<32> refusal;
        local_host.apply(hdr, meta, translated, answered, refusal);
        if (refusal != DROP_REASONS) {
            drop();
            return;
        }
        if (answered) {
            sume_metadata.dst_port = sume_metadata.src_port;
            if (meta.probe) {
                drop();
            }
            return;
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
            if (meta.probe || !may_answer_with_error(hdr, meta)) {
                drop();
                return;
            }
            meta.out_port = in_port;
            /* The controller needs nothing of a missing Ethernet header but the MACs the error goes
             * back with, which are the route's to the packet's source. */
            bit<8> no_ethernet;
            ethernet_left_out.apply(hdr, frame_length, no_ethernet);
            to_controller(PUNT_FINISH, FINISH_ICMP_ERROR | no_ethernet);
            return;
        }
        if (drop_reason != DROP_REASONS) {
            drop();
            return;
        }
        if (meta.probe && meta.punt_reason != 0) {
            drop();                                     /* a probe only ever comes back */
            return;
        }
        if (meta.punt_reason != 0) {
            bit<8> no_ethernet;
            ethernet_left_out.apply(hdr, frame_length, no_ethernet);
            to_controller(meta.punt_reason, no_ethernet);
            return;
        }
        /* IPv4 translated to IPv6 (40 bytes for IPv4's header and options) in its frame beside
         * packet_in: what a DMA frame must hold to hand it over translated. */
        bit<16> handed_over_v6 = hdr.ipv4.total_len - ((bit<16>) hdr.ipv4.ihl << 2) + 40 + ETHERNET_BYTES
                                 + PACKET_IN_BYTES;
        bool v4_to_v6 = translated && hdr.ipv4.isValid();
        /* Too long to hand over translated, to be fragmented (with a Fragment header, 8 bytes) or
         * as an ICMP error to cut and sum (its quoted header grows by 20 bytes, and by a Fragment
         * header when it quotes a fragment: 28 at most), it goes as it came, and the controller
         * probes the pipe with its headers. */
        if (v4_to_v6 && !meta.probe && (meta.to_fragment && handed_over_v6 + 8 > SUME_MAX_FRAME
                                   || meta.is_icmp_error && handed_over_v6 + 28 > SUME_MAX_FRAME)) {
            bit<8> no_ethernet;
            ethernet_left_out.apply(hdr, frame_length, no_ethernet);
            to_controller(PUNT_TOO_LONG, no_ethernet);
            return;
        }
        if (!meta.routed && meta.recirc == 0) {
            drop();
            return;
        }
        if (meta.routed) {
            hdr.ethernet.src_addr = meta.next_hop_src_mac;
            hdr.ethernet.dst_addr = meta.next_hop_dst_mac;
        }
        /* A TCP control segment (any segment of a transitory mapping), or a session's first
         * fragment of several, goes to the controller translated, to be tracked and sent on (no
         * clone to the CPU). One that would not fit a DMA frame (a full-size segment from IPv4
         * with FIN, or of a transitory mapping) is sent on here untracked, rather than
         * lost: its session ages on its timer; a first fragment from IPv4 that large (its Fragment
         * header counted), the fragments after it waiting for it in vain. Most such go to be
         * fragmented (over the lowest IPv6 MTU), where the controller learns from them all the same. */
        bool first_fragment = hdr.ipv6_frag.isValid() && hdr.ipv6_frag.frag_offset == 0
                              && hdr.ipv6_frag.more_fragments == 1
                              || hdr.ipv4.isValid() && hdr.ipv4.frag_offset == 0 && hdr.ipv4.more_fragments == 1;
        bool tracked = translated && meta.stateful
                       && (hdr.tcp.isValid() && ((hdr.tcp.flags & 0x07) != 0 || meta.transitory) || first_fragment)
                       && !(v4_to_v6 && handed_over_v6 + (first_fragment ? 16w8 : 0) > SUME_MAX_FRAME);
        bool hairpinned = meta.recirc == RECIRC_HAIRPIN;
        meta.recirc = 0;
        if (translated) {
            rewrite.apply(hdr, meta, drop_reason);
            if (drop_reason != DROP_REASONS) {
                drop();
                return;
            }
        } else {
            hop_down.apply(hdr);
        }
        /* The header checksums v1model's checksum unit computes: the IPv4 header (with options
         * HopDown adjusted it), and the IPv4 header quoted in a translated ICMPv6 error. */
        if (hdr.ipv4.isValid() && hdr.ipv4.ihl == 5) {
            hdr.ipv4.hdr_checksum = 0;
            hdr.ipv4.hdr_checksum = ~csum_fold(sum_ipv4_header(hdr.ipv4));
        }
        if (hdr.inner_ipv4.isValid() && meta.xlate_src && meta.xlate_dst) {
            hdr.inner_ipv4.hdr_checksum = 0;
            hdr.inner_ipv4.hdr_checksum = ~csum_fold(sum_ipv4_header(hdr.inner_ipv4));
        }
        if (meta.to_fragment) {
            /* Routed IPv4 keeps its length; what is translated here fits (PUNT_TOO_LONG above). */
            bit<8> no_ethernet = 0;
            if (!translated) {
                ethernet_left_out.apply(hdr, frame_length, no_ethernet);
            }
            to_controller(PUNT_NEEDS_FRAGMENTATION, no_ethernet | (meta.probe ? FINISH_PROBED : 0)
                                                   | (meta.udp_csum_from_payload ? FINISH_UDP_CHECKSUM : 0));
            return;
        }
        bit<8> finish = (meta.recirc == RECIRC_CHECKSUM ? FINISH_ICMP_CHECKSUM | FINISH_TRUNCATE : 0)
                      | (meta.udp_csum_from_payload ? FINISH_UDP_CHECKSUM : 0)
                      | (tracked ? FINISH_TRACK : 0)
                      | (hairpinned ? FINISH_HAIRPIN : 0);
        if (finish != 0) {
            to_controller(PUNT_FINISH, finish | (meta.probe ? FINISH_PROBED : 0));
            return;
        }
        if (meta.probe) {
            drop();                                     /* a probe only ever comes back */
            return;
        }
        sume_metadata.dst_port = one_hot(meta.out_port);
    }
}

control Nat64SumeDeparser(packet_out packet, in headers_t hdr, in metadata_t meta, inout digest_t digest,
                          inout sume_metadata_t sume_metadata) {
    apply {
#include "../../../p4/include/deparser.p4"
    }
}

#endif
