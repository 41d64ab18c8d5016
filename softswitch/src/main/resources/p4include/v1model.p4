/* v1model.p4 for softswitch: the v1model architecture of BMv2's simple_switch, declared for
 * softswitch's frontend. Names, types and semantics follow the v1model documentation; the
 * comments say where softswitch's behaviour needs stating. */
/* The include guard p4c's v1model.p4 defines: programs and skeletons test it. */
#ifndef _V1_MODEL_P4_
#define _V1_MODEL_P4_

#include <core.p4>

match_kind {
    range,
    optional,
    selector
}

/* A program may define the version it was written for before including this file. */
#ifndef V1MODEL_VERSION
#define V1MODEL_VERSION 20200408
#endif

/* A port number, a name v1model took in its version of 2020-04-08; a program written for an
 * earlier one may use the name itself. */
#if V1MODEL_VERSION >= 20200408
typedef bit<9> PortId_t;
#endif

struct standard_metadata_t {
    bit<9>  ingress_port;
    bit<9>  egress_spec;   /* 511 drops the packet, as on BMv2 (mark_to_drop sets it) */
    bit<9>  egress_port;
    bit<32> instance_type;
    bit<32> packet_length;
    bit<32> enq_timestamp;
    bit<19> enq_qdepth;
    bit<32> deq_timedelta;
    bit<19> deq_qdepth;
    bit<48> ingress_global_timestamp;
    bit<48> egress_global_timestamp;
    bit<16> mcast_grp;
    bit<16> egress_rid;
    bit<1>  checksum_error;
    error   parser_error;
    bit<3>  priority;
}

enum CounterType {
    packets,
    bytes,
    packets_and_bytes
}

/* Indexed counters; the control plane reads them as P4Runtime CounterEntry. */
extern counter<I> {
    counter(bit<32> size, CounterType type);
    void count(in I index);
}

/* Counters attached to a table with the 'counters' property; an entry's counter grows on every
 * hit of that entry, whether or not its action calls count(). */
extern direct_counter {
    direct_counter(CounterType type);
    void count();
}

extern register<T, I> {
    register(bit<32> size);
    /* An index out of range reads 0 and writes nothing. */
    void read(out T result, in I index);
    void write(in I index, in T value);
}

enum MeterType {
    packets,
    bytes
}

/* The colours a meter writes (RFC 2698 two-rate three-color marker, colour-blind). */
#define V1MODEL_METER_COLOR_GREEN  0
#define V1MODEL_METER_COLOR_YELLOW 1
#define V1MODEL_METER_COLOR_RED    2

/* Indexed meters; the control plane configures them as P4Runtime MeterEntry. A cell with no
 * configuration, or an index out of range, marks every packet GREEN. */
extern meter<I> {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in I index, out T result);
}

/* Meters attached to a table with the 'meters' property: a hit runs the entry's meter, and
 * read() in the entry's action gives its colour (GREEN on a miss or with no configuration). */
extern direct_meter<T> {
    direct_meter(MeterType type);
    void read(out T result);
}

/* Uniform in [lo, hi]; softswitch sim seeds its generator so runs repeat. */
extern void random<T>(out T result, in T lo, in T hi);

/* crc32_custom and crc16_custom are BMv2's CRCs whose polynomial the control plane may set; here
 * they are crc32 and crc16, BMv2's defaults for them. */
enum HashAlgorithm {
    crc32,
    crc32_custom,
    crc16,
    crc16_custom,
    random,
    identity,
    csum16,
    xor16
}

/* The actions of a table's entries held apart, in members the control plane creates (P4Runtime
 * ActionProfileMember); the table names it with 'implementation = ap;'. size: the most members. */
extern action_profile {
    action_profile(bit<32> size);
}

/* An action profile whose members also form groups (P4Runtime ActionProfileGroup): a packet that
 * hits an entry pointing to a group runs one member, picked by the algorithm's hash over the
 * table's 'selector' key fields (cut to outputWidth bits) modulo the sum of the members' weights.
 * @max_group_size(N) on the instance bounds a group's sum of weights. */
extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

/* mark_to_drop() without an argument, the form p4c's v1model.p4 keeps as deprecated, is accepted too:
 * it marks the architecture's standard_metadata. */
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

/* result = base + (hash(data) % max), or base when max is 0. */
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);

enum CloneType {
    I2E,
    E2E
}

extern void resubmit_preserving_field_list(bit<8> index);
extern void recirculate_preserving_field_list(bit<8> index);
extern void clone(in CloneType type, in bit<32> session);
extern void clone_preserving_field_list(in CloneType type, in bit<32> session, bit<8> index);
extern void truncate(in bit<32> length);

extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);
extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);
extern void update_checksum_with_payload<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/* Sends data, a struct of bit<W> fields (or a list of them with T named), to the controller as a
 * P4Runtime digest named after T; the values are those at the call. receiver is not used. */
extern void digest<T>(in bit<32> receiver, in T data);

extern void log_msg(string msg);
/* Each {} of msg shows the next field of data (a list, header or struct), in decimal. */
extern void log_msg<T>(string msg, in T data);
extern void assert(in bool check);
extern void assume(in bool check);

parser Parser<H, M>(packet_in b,
                    out H parsedHdr,
                    inout M meta,
                    inout standard_metadata_t standard_metadata);
control VerifyChecksum<H, M>(inout H hdr, inout M meta);
control Ingress<H, M>(inout H hdr, inout M meta, inout standard_metadata_t standard_metadata);
control Egress<H, M>(inout H hdr, inout M meta, inout standard_metadata_t standard_metadata);
control ComputeChecksum<H, M>(inout H hdr, inout M meta);
control Deparser<H>(packet_out b, in H hdr);

package V1Switch<H, M>(Parser<H, M> p,
                       VerifyChecksum<H, M> vr,
                       Ingress<H, M> ig,
                       Egress<H, M> eg,
                       ComputeChecksum<H, M> ck,
                       Deparser<H> dep);

#endif
