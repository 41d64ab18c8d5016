/* Headers and metadata of the NAT64 pipeline, on every architecture. */
#ifndef NAT64_HEADERS_P4
#define NAT64_HEADERS_P4

#include "defines.p4"

/* packet_in_t and packet_out_t, the headers in front of what the switch and the controller
 * send each other, are the architecture's (its file declares them). */

header ethernet_t {
    mac_t dst_addr;
    mac_t src_addr;
    bit<16> ether_type;
}

header arp_t {
    bit<16> htype;
    bit<16> ptype;
    bit<8>  hlen;
    bit<8>  plen;
    bit<16> oper;
    mac_t   sha;
    ipv4_t  spa;
    mac_t   tha;
    ipv4_t  tpa;
}

header ipv4_h {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  dscp_ecn;
    bit<16> total_len;
    bit<16> identification;
    bit<1>  reserved;
    bit<1>  dont_fragment;
    bit<1>  more_fragments;
    bit<13> frag_offset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdr_checksum;
    ipv4_t  src_addr;
    ipv4_t  dst_addr;
}

header ipv6_h {
    bit<4>   version;
    bit<8>   traffic_class;
    bit<20>  flow_label;
    bit<16>  payload_len;
    bit<8>   next_hdr;
    bit<8>   hop_limit;
    ipv6_t   src_addr;
    ipv6_t   dst_addr;
}

header ipv6_frag_h {
    bit<8>  next_hdr;
    bit<8>  reserved;
    bit<13> frag_offset;
    bit<2>  res;
    bit<1>  more_fragments;
    bit<32> identification;
}

header tcp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<32> seq_no;
    bit<32> ack_no;
    bit<4>  data_offset;
    bit<4>  res;
    bit<8>  flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgent_ptr;
}

header udp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> len;
    bit<16> checksum;
}

/* ICMP and ICMPv6 share this layout; for echo, rest is identifier and sequence number. */
header icmp_h {
    bit<8>  type;
    bit<8>  code;
    bit<16> checksum;
    bit<16> identifier;
    bit<16> sequence;
}

/* Neighbour solicitation / advertisement target, after the 8-byte ICMPv6 header (whose last
 * four bytes hold the NA flags). */
header ndp_h {
    ipv6_t target;
}

/* Eight bytes of an IPv6 extension header (Hop-by-Hop, Destination Options, Routing): each is
 * a whole number of them, its first byte the next header, its second how many follow. */
header ipv6_ext_word_h {
    bit<64> word;
}

/* The first 8 bytes of the transport header inside an ICMP error (all an IPv4 router must
 * quote): TCP and UDP ports in w0/w1, the UDP checksum in w3; for ICMP echo, type and code in
 * w0, checksum in w1, identifier in w2. */
header l4_head_h {
    bit<16> w0;
    bit<16> w1;
    bit<16> w2;
    bit<16> w3;
}

/* The rest of a quoted TCP header, when the error quotes all of it: its checksum is there. */
header tcp_tail_h {
    bit<32> ack_no;
    bit<16> offset_flags;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgent_ptr;
}

/* The rest of an ICMP error's original datagram when an RFC 4884 extension follows it. */
header quoted_chunk_h {
    bit<256> data;
}
header quoted_word_h {
    bit<32> data;
}

/* Zeros between a translated original datagram and its RFC 4884 extension: any multiple of 4
 * up to 124 bytes, as the sum of the valid ones. */
header pad4_h { bit<32> zero; }
header pad8_h { bit<64> zero; }
header pad16_h { bit<128> zero; }
header pad32_h { bit<256> zero; }
header pad64_h { bit<512> zero; }

/* IPv4 options, kept as 32-bit words so that routed packets leave with them unchanged. */
header ipv4_option_h {
    bit<32> word;
}

header ndp_option_h {
    bit<8> type;
    bit<8> len;
    mac_t  addr;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t  packet_in;
    ethernet_t   ethernet;
    arp_t        arp;
    ipv4_h       ipv4;
    ipv4_option_h[10] ipv4_options;
    ipv6_h       ipv6;
    ipv6_ext_word_h[IPV6_EXT_WORDS] ipv6_ext;              /* before a Fragment header */
    ipv6_frag_h  ipv6_frag;
    tcp_h        tcp;
    udp_h        udp;
    icmp_h       icmp;
    ndp_h        ndp;
    ndp_option_h ndp_option;
    /* The packet quoted in an ICMP error: parsed when translating one, filled when sending one. */
    ipv4_h         inner_ipv4;
    ipv4_option_h[10] inner_ipv4_options;
    ipv6_h         inner_ipv6;
    ipv6_ext_word_h[IPV6_EXT_WORDS] inner_ext;
    ipv6_frag_h    inner_frag;
    l4_head_h      inner_l4;
    tcp_tail_h     inner_tcp_tail;
    quoted_chunk_h[QUOTED_CHUNKS] quoted_chunks;
    quoted_word_h[QUOTED_WORDS]   quoted_words;
    pad4_h  icmp_pad4;
    pad8_h  icmp_pad8;
    pad16_h icmp_pad16;
    pad32_h icmp_pad32;
    pad64_h icmp_pad64;
}

struct metadata_t {
    @field_list(1)
    bit<8>  punt_reason;     /* kept in the clone that copies TCP control packets to the CPU */
    @field_list(2)
    bit<2>  recirc;          /* RECIRC_*: why this packet goes round once more */
    bool    hairpinned;      /* this pass translates back a packet hairpinned by the last one */
    bool    from_controller; /* a packet-out sent through the pipeline */
    bool    probe;           /* NetFPGA SUME: the headers of IPv4 as it came, sent back by the
                                controller to be translated (packet_out.probe); none on v1model */
    bool    to_fragment;     /* translated or routed, then to the controller to be fragmented */
    @field_list(2)
    port_t  out_port;        /* where a packet that went round for its checksum leaves */
    @field_list(2)
    bool    udp_sum_to_mend; /* the UDP checksum was summed in the last pass: a 0 becomes 0xFFFF (RFC 768) */
    @field_list(2)
    bool    hairpin_after;   /* hairpinned once its checksum pass is done (an ICMP error cut to its limit) */
    bool    icmp_checksum_now;   /* second pass: checksum the ICMP message over its payload */
    bit<32> truncate_to;     /* frame length to cut to (an ICMP error's limit, a trailer's IP end), 0: not cut */
    bit<4>  ipv4_option_words;   /* parser loop counter */
    bit<32> option_bytes;    /* the IPv4 option word being walked, its next byte on top */
    bit<3>  option_bytes_left;   /* bytes of option_bytes not walked yet */
    bit<2>  option_phase;    /* OPTION_*: what the walk's next byte is */
    bit<8>  option_skip;     /* bytes of the current option still to pass over */
    bit<8>  option_length;   /* of the current option */
    bool    option_is_source_route;
    bool    unexpired_source_route;  /* RFC 7915 4.1: a loose or strict one, its pointer not past its length */
    bit<8>  ipv6_next;       /* the Next Header after the IPv6 extension headers the parser walked */
    bit<16> ipv6_ext_len;    /* their bytes (before a Fragment header, not counting it) */
    bit<16> ipv6_ext_words;  /* parser loop counter */
    bool    ipv6_ext_unparsed;   /* the chain was longer than the parser walks, out of order, or
                                    went on after a Fragment header */
    bool    answerable_after_frag;   /* that last, with TCP or UDP behind the header: 1/1 may be sent */
    bit<8>  routing_segments_left;   /* of a Routing header, 0 without one */
    bit<16> routing_pointer; /* its Segments Left field, as an offset from the IPv6 header */
    bit<16> icmp_room;       /* bytes an ICMP error quotes after the inner IP header */
    bit<16> icmp_payload;    /* bytes of an ICMP error after its 8-byte header */
    bit<16> icmp_ext_datagram;   /* RFC 4884: its original datagram field's length, 0: no extension */
    bit<16> quoted_parsed;   /* bytes of the original datagram parsed as inner headers */
    bit<16> quoted_extra;    /* and as chunks and words after them */
    bit<16> quoted_rest;     /* parser loop counter */
    bit<16> l4_src;          /* TCP/UDP ports or the ICMP echo identifier, as parsed; for an */
    bit<16> l4_dst;          /* ICMP error, those of the quoted packet, swapped (see parser) */
    bool    is_echo;         /* ICMP(v6) echo request or reply: identifier acts as a port */
    bool    is_icmp_error;   /* an ICMP error quoting a TCP, UDP or echo packet */
    bit<8>  inner_proto;     /* the quoted packet's transport, as IPv4 names it */
    ipv6_t  subscriber_mask;     /* set by punt_subscriber: the prefix of one subscriber */
    bit<32> punt_source_bucket;  /* the punt_source_meter cell of the packet's source */
    bit<2>  punt_color;          /* V1MODEL_METER_COLOR_* of the punt meters */
    /* Lookup keys: the IPv6-side node of a flow and the IPv4-side node. For an ICMP error they
     * come from the quoted packet, so the error finds the session of the flow it is about. */
    ipv6_t  host6;
    ipv4_t  remote4;
    /* Translation results, filled before any header is rewritten. */
    bool    xlate_src;
    bool    xlate_dst;
    ipv4_t  new_src4;
    ipv4_t  new_dst4;
    ipv6_t  new_src6;
    ipv6_t  new_dst6;
    ipv6_t  error_src6;      /* outer source of a translated ICMPv4 error (the router that sent it) */
    ipv4_t  error_src4;      /* outer source of a translated ICMPv6 error (see Translate) */
    bit<16> new_l4_src;
    bit<16> new_l4_dst;
    bool    stateful;        /* the source went through a session, not EAMT */
    bool    transitory;      /* ... of a mapping whose sessions are all in TCP's TRANS: copied */
    bool    udp_csum_from_payload;   /* IPv4 UDP with checksum 0: computed over the payload */
    bool    trailer;         /* the frame goes on past its IP packet (an Ethernet pad): cut off */
    ipv4_t  local4_key;      /* key of local_ipv4: ARP target or IPv4 echo destination */
    ipv6_t  local6_key;      /* key of local_ipv6: NS target or IPv6 echo destination */
    /* Routing and the ICMP error the switch sends instead of forwarding. */
    ipv4_t  route4;
    ipv6_t  route6;
    bool    routed;          /* a next hop was found */
    mac_t   next_hop_src_mac;
    mac_t   next_hop_dst_mac;
    bit<16> mtu;             /* of the next hop's link */
    bit<16> ingress_mtu;     /* of the link the packet came in on (translated ICMP errors only) */
    bool    send_error;
    bit<8>  error_type;
    bit<8>  error_code;
    bit<32> error_param;     /* MTU or pointer, as the ICMP header's last four bytes */
    bit<32> error_drop_reason;   /* counted for the packet the error replaces */
    ICMP_ERROR_SUM_METADATA      /* an ICMP error's words the parser summed (v1model) */
    IDLE_SLOT_METADATA           /* the session entry hit, where its table ages through slots (SUME) */
}

#endif
