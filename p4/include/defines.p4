/* Constants of the NAT64 pipeline on every architecture: EtherTypes, protocols, punt reasons.
 * What differs between architectures (port_t, the controller's headers, counters, table sizes)
 * is declared by the architecture's file, included before this one: v1model_arch.p4 for
 * v1model, hw/netfpga/include/sume_arch.p4 for the NetFPGA SUME. */
#ifndef NAT64_DEFINES_P4
#define NAT64_DEFINES_P4

typedef bit<48>  mac_t;
typedef bit<32>  ipv4_t;
typedef bit<128> ipv6_t;

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<16> ETHERTYPE_IPV6 = 0x86dd;
const bit<16> ETHERTYPE_ARP  = 0x0806;

const bit<8> PROTO_HOPOPT = 0;
const bit<8> PROTO_ICMP   = 1;
const bit<8> PROTO_TCP    = 6;
const bit<8> PROTO_UDP    = 17;
const bit<8> PROTO_ROUTING = 43;
const bit<8> PROTO_FRAG   = 44;
const bit<8> PROTO_AH     = 51;
const bit<8> PROTO_ICMPV6 = 58;
const bit<8> PROTO_DSTOPTS = 60;
/* IPv6 extension headers RFC 8200 and IANA list besides those above (ESP aside). */
const bit<8> PROTO_MOBILITY = 135;
const bit<8> PROTO_HIP      = 139;
const bit<8> PROTO_SHIM6    = 140;
const bit<8> PROTO_EXPERIMENT1 = 253;
const bit<8> PROTO_EXPERIMENT2 = 254;

/* IPv6 extension headers the parser walks before a Fragment header (Hop-by-Hop, Destination
 * Options, Routing), in bytes. A longer chain is left unparsed: routed as it came, not translated. */
#define IPV6_EXT_WORDS 8
const bit<16> IPV6_EXT_BYTES = 8 * IPV6_EXT_WORDS;

const bit<8> ICMP_ECHO_REPLY     = 0;
const bit<8> ICMP_DEST_UNREACH   = 3;
const bit<8> ICMP_ECHO_REQUEST   = 8;
const bit<8> ICMP_TIME_EXCEEDED  = 11;
const bit<8> ICMP_PARAM_PROBLEM  = 12;
const bit<8> ICMP6_DEST_UNREACH  = 1;
const bit<8> ICMP6_PACKET_TOO_BIG = 2;
const bit<8> ICMP6_TIME_EXCEEDED = 3;
const bit<8> ICMP6_PARAM_PROBLEM = 4;
const bit<8> ICMP6_ECHO_REQUEST  = 128;
const bit<8> ICMP6_ECHO_REPLY    = 129;
const bit<8> ICMP6_NS            = 135;
const bit<8> ICMP6_NA            = 136;

/* RFC 791 option types. */
const bit<8> IPV4_OPTION_EOL  = 0;
const bit<8> IPV4_OPTION_NOP  = 1;
const bit<8> IPV4_OPTION_LSRR = 131;
const bit<8> IPV4_OPTION_SSRR = 137;

/* RFC 7915 5.1: IPv4 translated from IPv6 (without a Fragment header) leaves with DF only when
 * larger than this: what fits IPv6's minimum MTU, 1280, less the headers' difference. */
const bit<16> IPV4_MAX_WITHOUT_DF = 1260;

/* What the parser's walk of the IPv4 options expects next (meta.option_phase). */
const bit<2> OPTION_TYPE    = 0;
const bit<2> OPTION_LENGTH  = 1;
const bit<2> OPTION_POINTER = 2;   /* a source route's */
const bit<2> OPTION_END     = 3;   /* after End of Option List: the rest is not walked */

const bit<16> ARP_REQUEST = 1;
const bit<16> ARP_REPLY   = 2;

/* Why a packet went to the controller: packet_in.punt_reason. */
const bit<8> PUNT_SESSION_MISS = 1;   /* IPv6 flow to pool6 with no session: allocate one */
const bit<8> PUNT_TCP_CONTROL  = 2;   /* copy of a translated TCP SYN/FIN/RST, for state tracking */
const bit<8> PUNT_NEEDS_FRAGMENTATION = 3;   /* translated or routed without DF, larger than the next hop's MTU */
const bit<8> PUNT_NO_ROUTE     = 4;   /* no route after translation or for a routed packet */
const bit<8> PUNT_FINISH       = 5;   /* NetFPGA SUME: translated and routed; the controller finishes
                                         what the card cannot (packet_in.finish) and sends it on */
const bit<8> PUNT_TOO_LONG     = 6;   /* NetFPGA SUME: IPv4 to translate and fragment whose translation
                                         would not fit a DMA frame, as it came: the controller probes
                                         the pipe with its headers (packet_out.probe) */
const bit<8> PUNT_FRAGMENT     = 7;   /* a stateful datagram's fragment after the first: no ports to look
                                         up, the controller translates it as its first fragment was
                                         (RFC 6146 3.4); an echo's first fragment of several, which
                                         it translates once the last has told the message's length; and
                                         a stateless ICMP datagram's later fragments, which tell it */
const bit<8> PUNT_FIRST_FRAGMENT = 8; /* copy of a translated stateful first fragment: tells the
                                         controller how to translate the fragments after it */
const bit<8> PUNT_INBOUND_SYN   = 9;   /* IPv4 SYN to pool4 without a BIB entry, or filtered: held by
                                         the controller for a simultaneous open (RFC 6146 3.5.2.2) */
const bit<8> PUNT_ICMP_EXTENSION = 10; /* an ICMP error to translate whose RFC 4884 extension fits the
                                         576/1280 limit only after its original datagram is cut (to
                                         no less than 128 bytes): the controller cuts it and sends it
                                         back, to be translated extension and all */

/* Index of the drops counter. A packet the switch answers with an ICMP error is counted in
 * icmp_error.sent instead; here when the error may not be sent (its rate, or what it would quote). */
const bit<32> DROP_PARSER_ERROR    = 0;
const bit<32> DROP_BAD_CHECKSUM    = 1;
const bit<32> DROP_NO_ROUTE        = 2;
const bit<32> DROP_POOL4_NO_BIB    = 3;   /* RFC 6146 3.5.1: IPv4 to pool4 without a BIB entry */
const bit<32> DROP_NOT_TRANSLATABLE = 4;
const bit<32> DROP_TTL_EXPIRED     = 5;
const bit<32> DROP_FILTERED        = 6;   /* address-dependent filtering */
const bit<32> DROP_ICMP_ERROR      = 7;   /* ICMP error RFC 7915 drops, or about no session of ours */
const bit<32> DROP_TOO_BIG         = 8;   /* larger than the next hop's MTU */
const bit<32> DROP_NOT_GLOBAL      = 9;   /* RFC 6052 3.1: non-global IPv4 under the well-known prefix */
const bit<32> DROP_BAD_LENGTH      = 10;  /* the IP length runs past the frame or ends inside its headers */
const bit<32> DROP_LOCAL_FRAGMENT  = 11;  /* a fragmented request to the switch itself: it does not reassemble */
const bit<32> DROP_PUNT_POLICED    = 12;  /* a punt over its port's, its source's or held SYNs' rate (control-plane policing) */
const bit<32> DROP_UDP_ZERO_CHECKSUM = 13;  /* RFC 7915 4.5: IPv4 UDP without a checksum, fragmented or by setting */
const bit<32> DROP_ICMP_ERROR_RATE = 14;  /* an ICMP error the switch would send, over its port's rate */
const bit<32> DROP_SOURCE_ROUTE    = 15;  /* RFC 7915 4.1: IPv4 to translate with an unexpired source route */
const bit<32> DROP_LINK_GROUP      = 16;  /* RFC 1812 5.3.4: IP to one host in a frame to a link-layer broadcast or multicast */
const bit<32> DROP_FOR_SWITCH      = 17;  /* RFC 1812 5.2.3: IPv6 to the switch itself that it does not answer */
const bit<32> DROP_REASONS         = 18;

/* Control-plane policing: punts pass a packet meter per ingress port and one per hash bucket
 * of their source address, SYNs to be held one of their own first (see Nat64Ingress.police_punt). */
const bit<32> PUNT_PORT_METER_SIZE   = 512;    /* every 9-bit port */
const bit<32> PUNT_SOURCE_METER_SIZE = 4096;
/* ICMP errors the switch sends itself pass a packet meter per ingress port (RFC 4443 2.4(f)). */
const bit<32> ICMP_ERROR_METER_SIZE  = 512;

/* Index of the icmp_errors counter: errors the switch sent itself. */
const bit<32> SENT_TIME_EXCEEDED   = 0;
const bit<32> SENT_UNREACHABLE     = 1;
const bit<32> SENT_TOO_BIG         = 2;   /* Packet Too Big / Fragmentation Needed */
const bit<32> SENT_PARAM_PROBLEM   = 3;

/* Indices of Nat64Ingress.translations: packets translated, by direction and by how the IPv6 host
 * was mapped (a session, or EAMT / pool6 without state). */
const bit<32> TRANSLATED_6TO4_STATEFUL  = 0;
const bit<32> TRANSLATED_6TO4_STATELESS = 1;
const bit<32> TRANSLATED_4TO6_STATEFUL  = 2;
const bit<32> TRANSLATED_4TO6_STATELESS = 3;
const bit<32> TRANSLATION_KINDS         = 4;

/* Why a packet goes round the pipeline once more (metadata recirc). */
const bit<2> RECIRC_CHECKSUM = 1;   /* an ICMP error built or truncated here: checksum its message */
const bit<2> RECIRC_HAIRPIN  = 2;   /* translated to an address the NAT64 itself owns: translate back */
const bit<2> RECIRC_UDP_CHECKSUM = 3;   /* IPv4 UDP without a checksum, translated: sum it after a cut, or mend a sum of 0 */

/* RFC 4884: the original datagram of an ICMP error with an extension is parsed in full, so that
 * the extension after it can move: 32-byte chunks, then 4-byte words (every length is a multiple
 * of 4). Enough for any datagram an ICMPv6 error of 1280 bytes can hold. */
#define QUOTED_CHUNKS 38
#define QUOTED_WORDS 7
const bit<16> QUOTED_MAX_BYTES = 32 * QUOTED_CHUNKS + 4 * QUOTED_WORDS;
/* RFC 4884 4.1, 4.2: an original datagram field followed by an extension has at least 128 bytes. */
const bit<16> ICMP_EXT_MIN_DATAGRAM = 128;

/* RFC 1812 4.3.2.3 and RFC 4443 2.4: the largest ICMP errors, as IP packets. */
const bit<16> ICMP4_ERROR_MAX = 576;
const bit<16> ICMP6_ERROR_MAX = 1280;

#endif
