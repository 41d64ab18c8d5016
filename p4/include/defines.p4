/* Constants shared by the NAT64 pipeline: ports, EtherTypes, protocols, punt reasons. */
#ifndef NAT64_DEFINES_P4
#define NAT64_DEFINES_P4

#define CPU_PORT 255

typedef bit<9>   port_t;
typedef bit<48>  mac_t;
typedef bit<32>  ipv4_t;
typedef bit<128> ipv6_t;

const bit<16> ETHERTYPE_IPV4 = 0x0800;
const bit<16> ETHERTYPE_IPV6 = 0x86dd;
const bit<16> ETHERTYPE_ARP  = 0x0806;

const bit<8> PROTO_ICMP   = 1;
const bit<8> PROTO_TCP    = 6;
const bit<8> PROTO_UDP    = 17;
const bit<8> PROTO_FRAG   = 44;
const bit<8> PROTO_ICMPV6 = 58;

const bit<8> ICMP_ECHO_REPLY     = 0;
const bit<8> ICMP_ECHO_REQUEST   = 8;
const bit<8> ICMP6_ECHO_REQUEST  = 128;
const bit<8> ICMP6_ECHO_REPLY    = 129;
const bit<8> ICMP6_NS            = 135;
const bit<8> ICMP6_NA            = 136;

const bit<16> ARP_REQUEST = 1;
const bit<16> ARP_REPLY   = 2;

/* Why a packet went to the controller: packet_in.punt_reason. */
const bit<8> PUNT_SESSION_MISS = 1;   /* IPv6 flow to pool6 with no session: allocate one */
const bit<8> PUNT_TCP_CONTROL  = 2;   /* copy of a translated TCP SYN/FIN/RST, for state tracking */
const bit<8> PUNT_TTL_EXPIRED  = 3;   /* hop limit / TTL would expire */
const bit<8> PUNT_NO_ROUTE     = 4;   /* no route after translation or for a routed packet */
const bit<8> PUNT_ACL          = 5;   /* sent by the punt table (controller's choice) */

/* Index of drop_reasons / punt counters. */
const bit<32> DROP_PARSER_ERROR    = 0;
const bit<32> DROP_BAD_CHECKSUM    = 1;
const bit<32> DROP_NO_ROUTE        = 2;
const bit<32> DROP_POOL4_NO_BIB    = 3;   /* RFC 6146 3.5.1: IPv4 to pool4 without a BIB entry */
const bit<32> DROP_NOT_TRANSLATABLE = 4;
const bit<32> DROP_TTL_EXPIRED     = 5;
const bit<32> DROP_FILTERED        = 6;   /* address-dependent filtering */
const bit<32> DROP_REASONS         = 8;

#endif
