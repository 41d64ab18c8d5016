/* What the NAT64 pipeline declares for the NetFPGA SUME (SimpleSumeSwitch, Xilinx SDNet): the
 * controller's headers, no per-entry counters or idle timeouts, CAM-sized tables. Included after
 * <sume_switch.p4> (which declares port_t, one-hot) and before the shared files of p4/include. */
#ifndef NAT64_SUME_ARCH_P4
#define NAT64_SUME_ARCH_P4

/* Port numbers as the controller knows them: nfK is port K (0 to 3). The pipe turns them into
 * and out of sume_metadata's one-hot bits, so tables and the controller see the same numbers as
 * on v1model. */
typedef bit<8> port_number_t;

/* Sent to the host over DMA in front of every punted packet. For PUNT_FINISH the packet is
 * translated and routed: the controller does what `finish` says (FINISH_* bits), then sends it
 * out of out_port. */
@controller_header("packet_in")
header packet_in_t {
    port_number_t ingress_port;
    bit<8>  punt_reason;
    port_number_t out_port;
    bit<8>  finish;
    bit<16> truncate_to;      /* FINISH_TRUNCATE: the frame's length after the cut */
    bit<8>  error_type;       /* FINISH_ICMP_ERROR: the error's ICMP type and code, and the */
    bit<8>  error_code;       /* last bytes of its header (an MTU or a pointer: every error the */
    bit<16> error_param;      /* pipe asks for has one below 65536), as meta.error_* hold them */
}

/* Sent by the controller over DMA in front of every packet-out. With to_pipeline = 1 the packet
 * goes through the whole pipe (after a session was installed); otherwise out of egress_port.
 * hairpinned = 1 (with to_pipeline) marks the second pass of a packet the pipe handed over with
 * FINISH_HAIRPIN: translated back as v1model's recirculated pass is, one router hop for both.
 * probe = 1 (with to_pipeline): the headers of a packet the pipe handed over with PUNT_TOO_LONG,
 * its payload left out, and 8 bytes of the controller's after them; the pipe takes the lengths the
 * headers state, and hands the result back (FINISH_PROBED) instead of sending it (or drops it). ether_type 0:
 * an Ethernet header follows; otherwise the frame starts with the IP packet of that EtherType (a
 * full-size packet the pipe handed over without its Ethernet header: the pipe writes one). */
@controller_header("packet_out")
header packet_out_t {
    port_number_t egress_port;
    bit<1> to_pipeline;
    bit<1> hairpinned;
    bit<1> probe;
    bit<5> _pad;
    bit<16> ether_type;
}

/* What the controller finishes of a PUNT_FINISH packet (packet_in.finish). */
const bit<8> FINISH_ICMP_CHECKSUM = 1;   /* an ICMP error built or cut here: sum the message */
const bit<8> FINISH_UDP_CHECKSUM  = 2;   /* IPv4 UDP without a checksum: compute it (RFC 7915 4.5) */
const bit<8> FINISH_TRUNCATE      = 4;   /* cut the frame to truncate_to bytes first */
const bit<8> FINISH_TRACK         = 8;   /* a TCP SYN, FIN or RST, or a session's first fragment of several:
                                           track it, learn from it its later fragments' translation,
                                           then send it on */
const bit<8> FINISH_HAIRPIN       = 16;  /* to the NAT64's own IPv4 address: translate it back */
const bit<8> FINISH_ICMP_ERROR    = 32;  /* not translated nor routed: answer it with the ICMP error
                                            of error_type/code/param, back out of out_port */
const bit<8> FINISH_NO_ETHERNET   = 64;  /* the packet without its Ethernet header, which would not
                                            fit in a DMA frame with packet_in: with FINISH_ICMP_ERROR
                                            or PUNT_NEEDS_FRAGMENTATION the controller writes it back
                                            from its routes; with PUNT_SESSION_MISS it sends the IP
                                            packet back so (packet_out.ether_type) */
const bit<8> FINISH_PROBED        = 128; /* a probe's translation (packet_out.probe), to fragment or to
                                            finish: translated and routed headers, then the
                                            controller's 8 bytes */

/* SUME's DMA carries frames of at most 1514 bytes, packet_in's 10 included. */
const bit<16> SUME_MAX_FRAME = 1514;
const bit<16> PACKET_IN_BYTES = 10;
const bit<16> ETHERNET_BYTES = 14;

/* SDNet has no direct counters and no idle timeouts. */
#define DIRECT_COUNTER(unit, name)
#define COUNTED_BY(name)
#define IDLE_TIMEOUT

/* No payload checksums: a translated ICMP error's checksum is not verified (hw/netfpga/README.md). */
#define ICMP_ERROR_SUM_METADATA
#define ICMP_ERROR_SUM_FIRST(words)
#define ICMP_ERROR_SUM(words)

/* Idle timeouts emulated (hw/netfpga/README.md, "Idle timeouts"): every session entry carries a
 * slot the agent assigns and hides from controllers (@sume_idle_slot: the P4Info shows the tables
 * with idle timeouts and the actions without it); a hit adds one to the slot's cell of session_hit,
 * which the agent reads through the card's register interface. One cell per entry of both session
 * tables (2 x SESSION_TABLE_SIZE). */
typedef bit<13> idle_slot_t;
#define IDLE_SLOT_METADATA idle_slot_t idle_slot; bool idle_hit;
#define IDLE_SLOT_PARAM , @sume_idle_slot("session_hit") idle_slot_t idle_slot
#define IDLE_SLOT_HIT meta.idle_slot = idle_slot; meta.idle_hit = true;

/* P4-NetFPGA's RAW register extern (wiki, "RAW Extern Function"): 2^13 cells of 32 bits. */
#define REG_ADD 8w2
@Xilinx_MaxLatency(1)
@Xilinx_ControlWidth(13)
extern void session_hit_reg_raw(in idle_slot_t index, in bit<32> newVal, in bit<32> incVal, in bit<8> opCode,
                                out bit<32> result);

/* The Identification of an IPv4 packet the card makes (translated from IPv6 without a Fragment
 * header): RFC 7915 5.1 asks for a fragment identification generator. SDNet has no random source:
 * a counter in cell 0 of a RAW register, so identifications follow each other (RFC 6864 4.2 is met:
 * none repeats within 65535 packets; RFC 7739's unpredictability is not). */
@Xilinx_MaxLatency(1)
@Xilinx_ControlWidth(1)
extern void identification_reg_raw(in bit<1> index, in bit<32> newVal, in bit<32> incVal, in bit<8> opCode,
                                   out bit<32> result);
#define NEW_IPV4_IDENTIFICATION(field) { bit<32> counted; identification_reg_raw(0, 0, 1, REG_ADD, counted); \
                                         field = counted[15:0]; }

/* No hash unit: an ICMPv6 error's router gets the RFC 6791 pool's first address (RFC 6791
 * allows a pool of one). */
#define RFC6791_PICK(out, first, key, count) out = first;

/* Sessions held by one card: each session table is a CAM of this depth. Chosen to fit the
 * FPGA's block RAM beside the other tables, not a documented SDNet maximum (unverified here: no
 * SDNet). A network holds more by spreading sessions over cards, as the controller places them. */
#define SESSION_TABLE_SIZE 4096

#endif
