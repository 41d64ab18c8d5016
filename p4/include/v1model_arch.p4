/* What the NAT64 pipeline declares for v1model (BMv2, Stratum-BMv2, softswitch): 9-bit ports, the
 * CPU port, the controller's headers, per-entry counters and idle timeouts, table sizes. Included
 * first, before the shared files (defines.p4 says which parts are an architecture's). */
#ifndef NAT64_V1MODEL_ARCH_P4
#define NAT64_V1MODEL_ARCH_P4

#define CPU_PORT 255

typedef bit<9> port_t;

/* Sent to the controller in front of every punted packet. */
@controller_header("packet_in")
header packet_in_t {
    port_t ingress_port;
    bit<7> _pad;
    bit<8> punt_reason;
}

/* Sent by the controller in front of every packet-out. With to_pipeline = 1 the packet goes
 * through the whole pipeline (after a session was installed); otherwise out of egress_port. */
@controller_header("packet_out")
header packet_out_t {
    port_t egress_port;
    bit<1> to_pipeline;
    bit<6> _pad;
}
/* packet_out_t's size: packet_length counts it in front of a packet-out's frame. */
#define PACKET_OUT_BYTES 32w2

/* Per-entry counters of a table (P4Runtime DirectCounterEntry), and idle timeouts: the session
 * tables report idle entries to the controller, which ages the sessions. */
#define DIRECT_COUNTER(unit, name) direct_counter(CounterType.unit) name;
#define COUNTED_BY(name) counters = name;
#define IDLE_TIMEOUT support_timeout = true;
/* The SUME card's emulated idle timeouts (hw/netfpga/include/sume_arch.p4): nothing here. */
#define IDLE_SLOT_METADATA
#define IDLE_SLOT_PARAM
#define IDLE_SLOT_HIT

/* RFC 5508 REQ-3: a translated ICMP error's checksum is verified. The parser sums what it parses of
 * the message (and the ICMPv6 pseudo-header); verify_checksum_with_payload adds the rest. */
#define ICMP_ERROR_SUM_METADATA bit<32> icmp_error_sum;
#define ICMP_ERROR_SUM_FIRST(words) meta.icmp_error_sum = (words);
#define ICMP_ERROR_SUM(words) meta.icmp_error_sum = meta.icmp_error_sum + (words);

/* The address of the RFC 6791 pool an ICMPv6 error's router gets: a hash of its address. */
#define RFC6791_PICK(out, first, key, count) hash(out, HashAlgorithm.crc32, first, { key }, count);

/* The Identification of an IPv4 packet the switch makes (translated from IPv6 without a Fragment
 * header, or an ICMP error it sends): RFC 7915 5.1 asks for a fragment identification generator,
 * RFC 7739 for values an off-path host cannot predict. Random, never 0. */
#define NEW_IPV4_IDENTIFICATION(field) random(field, 16w1, 16w0xffff);

/* Entries of session_v6, session_v4 and remote_filter: a million sessions per switch. */
#define SESSION_TABLE_SIZE 1048576

#endif
