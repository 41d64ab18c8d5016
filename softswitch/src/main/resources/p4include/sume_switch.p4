/*
 * The SimpleSumeSwitch architecture of the NetFPGA SUME (P4-NetFPGA, Xilinx SDNet), as softswitch
 * runs it. Written for softswitch from the architecture's documentation (P4-NetFPGA wiki,
 * "Workflow Overview"): one parser, one match-action pipeline, one deparser.
 *
 * Ports are one-hot, two bits per SUME port pair: {DMA3, NF3, DMA2, NF2, DMA1, NF1, DMA0, NF0}.
 * softswitch maps the physical port nfK to its port number K (0 to 3) and every DMA bit to its CPU
 * port (a packet sent to DMA goes to the controller; a packet-out enters with src_port DMA0).
 * A packet with dst_port 0, or with bit 0 of drop set, is dropped. Frames are at most 1514 bytes
 * (1500-byte MTU, no FCS) in and out; longer ones are dropped and counted. softswitch delivers no
 * digests (send_dig_to_cpu is counted, not sent): a program reaches the controller by sending the
 * packet to DMA with a @controller_header("packet_in") header in front.
 */
#ifndef _SUME_SWITCH_P4_
#define _SUME_SWITCH_P4_

#include <core.p4>

typedef bit<8> port_t;

struct sume_metadata_t {
    bit<16> dma_q_size;      // output queue sizes in 32-byte words when the packet entered (0 in softswitch)
    bit<16> nf3_q_size;
    bit<16> nf2_q_size;
    bit<16> nf1_q_size;
    bit<16> nf0_q_size;
    bit<8> send_dig_to_cpu;  // bit 0: send digest_data to the CPU
    bit<8> drop;             // bit 0: drop the packet
    port_t dst_port;         // one-hot: the ports the packet leaves on
    port_t src_port;         // one-hot: the port it arrived on
    bit<16> pkt_len;         // bytes, without preamble and FCS
}

parser Parser<H, M, D>(packet_in b,
                       out H parsed_headers,
                       out M user_metadata,
                       out D digest_data,
                       inout sume_metadata_t sume_metadata);

control Pipe<H, M, D>(inout H parsed_headers,
                      inout M user_metadata,
                      inout D digest_data,
                      inout sume_metadata_t sume_metadata);

control Deparser<H, M, D>(packet_out b,
                          in H parsed_headers,
                          in M user_metadata,
                          inout D digest_data,
                          inout sume_metadata_t sume_metadata);

package SimpleSumeSwitch<H, M, D>(Parser<H, M, D> p, Pipe<H, M, D> map, Deparser<H, M, D> d);

#endif
