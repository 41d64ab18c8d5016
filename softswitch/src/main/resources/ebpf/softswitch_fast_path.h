/* softswitch's kernel fast path: what every generated program shares, at XDP and at TC.
 *
 * The program that includes this defines N_SLOTS, W_UNITS (powers of two), N_TEMPS, W_TEMPS,
 * COUNTER_CELLS, LAST_HIT_CELLS, BAIL_SITES, KEY_MAX (its largest table key, an LPM key's
 * length included), HANDED_UP, HANDED_UP_TYPE and HANDED_UP_HEAD (how a frame is handed up at TC) first, and its zero_state after. A packet is processed in a per-CPU state laid out as
 * the interpreter's (narrow slots of 64 bits, wide ones in 128-bit units), so the same compiled
 * program runs in either place; whatever the C cannot do jumps to `bail`, which hands the untouched
 * packet to the interpreter (at XDP: XDP_PASS, its AF_PACKET socket sees it; at TC: hand_up). */
#ifndef SOFTSWITCH_XDP_H
#define SOFTSWITCH_XDP_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

typedef unsigned __int128 u128;

#define N_MASK (N_SLOTS - 1)
#define W_MASK (W_UNITS - 1)
/* The parser sees the packet's first PKT_MAX bytes; it reads at most 192 bytes past a header's
 * start, so the buffer has that much slack and an index masked with PKT_MASK stays inside. */
#define PKT_MAX 512
#define PKT_MASK (PKT_MAX - 1)
#define OUT_MAX 512
#define OUT_MASK (OUT_MAX - 1)
#define LOG_MAX 32
#define PARSER_STEPS 4096
#define STATE_ACCEPTED 0xfffffffe
#define STATE_REJECTED 0xffffffff
#define SCAN_KEY_MAX 64

/* Counter updates wait in a log until the packet is known to stay on the fast path: a packet
 * handed to the interpreter must not be counted twice. */
struct count_log {
    __u32 cell;
    __u32 bytes;
};

struct ss_state {
    __u64 n[N_SLOTS];
    u128 w[W_UNITS];
    u128 tw[W_TEMPS + 1];
    __u64 tn[N_TEMPS + 1];
    __u64 pkt_len;      /* the whole frame */
    __u64 copied;       /* bytes of it in pkt */
    __u64 cursor;       /* parser position, in bits */
    __u64 out_len;      /* deparser output, in bytes */
    __u64 pstate;
    __u64 perr;
    __u64 exiting;
    __u64 hit;
    __u64 action_run;
    __u64 bail;
    __u64 bail_site;
    __u64 log_n;
    __u64 match;        /* the entry a table scan found */
    struct count_log log[LOG_MAX];
    __u8 key[KEY_MAX + 16] __attribute__((aligned(8)));   /* a table's key, built for its lookup */
    __u8 buf[256 + 16];
    __u8 pkt[PKT_MAX + 256];
    __u8 out[OUT_MAX + 256];
};

/* What the switch counts about the fast path (per CPU). */
enum { FP_TO_INTERPRETER, FP_FORWARDED, FP_DROPPED, FP_TX_ERROR, FP_STATS };

/* A scanned table: how many entries its current half holds, and which half that is. */
struct scan_head {
    __u32 count;
    __u32 half;
};

struct scan_ctx {
    struct ss_state *s;
    __u32 half;
};

struct counter_cell {
    __u64 packets;
    __u64 bytes;
};

struct ss_config {
    __u64 start_ns;     /* the interpreter's clock origin, for the timestamps in standard_metadata */
    __u64 cpu_port;
};

/* One state per CPU: an array indexed by CPU (a per-CPU array's value may not exceed 32 KiB). */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);     /* set to the number of CPUs when loaded */
    __type(key, __u32);
    __type(value, struct ss_state);
} states SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct ss_config);
} config SEC(".maps");

/* Switch port -> interface, for redirecting. */
struct {
    __uint(type, BPF_MAP_TYPE_DEVMAP);
    __uint(max_entries, 512);
    __type(key, __u32);
    __type(value, __u32);
} ports SEC(".maps");

/* Switch port -> interface index (0: not on the fast path), for checking its MTU and, at TC, for
 * redirecting; with TO_PEER set, the redirect is to the veth's other end (bpf_redirect_peer). */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 512);
    __type(key, __u32);
    __type(value, __u32);
} port_ifindex SEC(".maps");

/* Interface index -> switch port + 1 (0: not a port), for indices below PORT_INDEXES: an array,
 * which the kernel reads without a call (a hash lookup is one), 256 KiB. */
#define PORT_INDEXES 65536
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, PORT_INDEXES);
    __type(key, __u32);
    __type(value, __u32);
} port_by_index SEC(".maps");

/* Interface index -> switch port, for the others. */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 512);
    __type(key, __u32);
    __type(value, __u32);
} port_of SEC(".maps");

/* The switch port an interface is, or -1. */
static __always_inline __s64 port_of_interface(__u32 ifindex)
{
    if (ifindex < PORT_INDEXES) {
        __u32 *p = bpf_map_lookup_elem(&port_by_index, &ifindex);
        return p && *p ? (__s64) *p - 1 : -1;
    }
    __u32 *p = bpf_map_lookup_elem(&port_of, &ifindex);
    return p ? (__s64) *p : -1;
}

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, FP_STATS);
    __type(key, __u32);
    __type(value, __u64);
} fp_stats SEC(".maps");

/* Every counter array and direct counter of the program, one after another. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, COUNTER_CELLS);
    __type(key, __u32);
    __type(value, struct counter_cell);
} counters SEC(".maps");

/* Last hit (ns, CLOCK_MONOTONIC) of the entries of tables with idle timeouts. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, LAST_HIT_CELLS);
    __type(key, __u32);
    __type(value, __u64);
} last_hit SEC(".maps");

/* Keeps clang from turning a loop of copies into a call of memcpy or memset, which BPF lacks. */
#define barrier() asm volatile("" ::: "memory")

/* Why packets went to the interpreter, by the place they left from (the switch names them). */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, BAIL_SITES);
    __type(key, __u32);
    __type(value, __u64);
} bail_sites SEC(".maps");

/* Hands the packet to the interpreter, counting why. */
#define BAIL(site) do { s->bail_site = (site); goto bail; } while (0)

static __always_inline void bailed(__u64 site)
{
    __u32 k = (__u32) site;
    __u64 *v = bpf_map_lookup_elem(&bail_sites, &k);
    if (v)
        *v += 1;
}

static __always_inline void stat(__u32 which)
{
    __u64 *v = bpf_map_lookup_elem(&fp_stats, &which);
    if (v)
        *v += 1;
}

/* At TC a packet socket for every EtherType would see each frame before this hook, the frames the
 * program forwards too, at a cost per frame. So the interpreter's socket on a port is bound to
 * HANDED_UP_TYPE alone, which the kernel serves after this hook: the frame goes in again at its port
 * behind a header of that EtherType (KernelProgram.HANDED_UP_HEAD says what it holds: the VLAN tag
 * the kernel keeps beside the frame would be lost on the way), marked, and this program lets it pass
 * (see the entry's first line). */
static __always_inline int hand_up(struct __sk_buff *skb)
{
    __u8 head[HANDED_UP_HEAD] = {0};
    __u16 tpid = bpf_ntohs(skb->vlan_proto), tci = skb->vlan_tci;
    if (skb->vlan_present) {
        head[1] = 1;
        head[2] = tpid >> 8; head[3] = tpid;
        head[4] = tci >> 8; head[5] = tci;
    }
    head[6] = 0x02;
    head[7] = (__u8) (HANDED_UP >> 24); head[8] = (__u8) (HANDED_UP >> 16);
    head[9] = (__u8) (HANDED_UP >> 8); head[10] = (__u8) HANDED_UP;
    head[12] = (__u8) (HANDED_UP_TYPE >> 8); head[13] = (__u8) HANDED_UP_TYPE;
    if (bpf_skb_change_head(skb, HANDED_UP_HEAD, 0) || bpf_skb_store_bytes(skb, 0, head, HANDED_UP_HEAD, 0)) {
        stat(FP_TX_ERROR);
        return TC_ACT_SHOT;
    }
    skb->mark = HANDED_UP;
    return bpf_redirect(skb->ifindex, BPF_F_INGRESS);
}

static __always_inline __s64 sx(__u64 v, int width)
{
    int shift = 64 - width;
    return shift <= 0 ? (__s64) v : ((__s64) (v << shift)) >> shift;
}

static __always_inline __u64 sat_add(__u64 x, __u64 y, __u64 mask)
{
    __u64 r = x + y;
    return (r > mask || r < x) ? mask : r;
}

static __always_inline __u64 sat_shift(__u64 next, int by, __u64 size)
{
    __s64 v = (__s64) next + by;
    return v < 0 ? 0 : (__u64) v > size ? size : (__u64) v;
}

/* Big-endian values of n bytes (n constant) in map values, which take loads and stores at any
 * alignment: in loads and stores of 8, 4, 2 and 1 bytes, not n of one byte each. */
static __always_inline __u64 be_get(const __u8 *b, int n)
{
    __u64 v = 0;
    int i = 0;
    if (n - i >= 8) { v = bpf_be64_to_cpu(*(const __u64 *) b); i += 8; }
    if (n - i >= 4) { v = (v << 32) | bpf_ntohl(*(const __u32 *) (b + i)); i += 4; }
    if (n - i >= 2) { v = (v << 16) | bpf_ntohs(*(const __u16 *) (b + i)); i += 2; }
    if (n - i >= 1) { v = (v << 8) | b[i]; }
    return v;
}

static __always_inline u128 be_get_wide(const __u8 *b, int n)
{
    return n > 8 ? ((u128) be_get(b, n - 8) << 64) | be_get(b + n - 8, 8) : be_get(b, n);
}

static __always_inline void be_put(__u8 *b, int n, __u64 v)
{
    int i = n;
    if (i >= 1 && (i & 1)) { b[i - 1] = (__u8) v; v >>= 8; i -= 1; }
    if (i >= 2 && (i & 2)) { *(__u16 *) (b + i - 2) = bpf_htons((__u16) v); v >>= 16; i -= 2; }
    if (i >= 4 && (i & 4)) { *(__u32 *) (b + i - 4) = bpf_htonl((__u32) v); v = i > 4 ? v >> 32 : 0; i -= 4; }
    if (i >= 8) { *(__u64 *) b = bpf_cpu_to_be64(v); }
}

static __always_inline void be_put_wide(__u8 *b, int n, u128 v)
{
    if (n > 8) {
        be_put(b + n - 8, 8, (__u64) v);
        be_put(b, n - 8, (__u64) (v >> 64));
    } else {
        be_put(b, n, (__u64) v);
    }
}

/* Field access in the packet and output buffers. The generator calls these with constant skip
 * and width, so every shift is by a constant (BPF has no 128-bit shifts by a variable). Narrow
 * fields span at most 8 bytes; wide ones are whole bytes at a byte boundary. */

/* A field of `width` bits starting `skip` bits into byte p of b. */
static __always_inline __u64 rd(const __u8 *b, __u64 p, int skip, int width)
{
    int bytes = (skip + width + 7) / 8;
    __u64 v = be_get(&b[p & PKT_MASK], bytes);
    v >>= bytes * 8 - skip - width;
    return width >= 64 ? v : v & ((1ULL << width) - 1);
}

static __always_inline u128 rdw(const __u8 *b, __u64 p, int width)
{
    return be_get_wide(&b[p & PKT_MASK], width / 8);
}

/* The inverse of rd: the bits around the field keep their value. */
static __always_inline void wr(__u8 *b, __u64 p, int skip, int width, __u64 v)
{
    int bytes = (skip + width + 7) / 8;
    int trail = bytes * 8 - skip - width;
    __u64 field = width >= 64 ? ~0ULL : (1ULL << width) - 1;
    __u64 mask = field << trail;
    __u64 bits = (v & field) << trail;
    if (skip == 0 && trail == 0) {   /* whole bytes: nothing around the field to keep */
        be_put(&b[p & OUT_MASK], bytes, v & field);
        return;
    }
#pragma unroll
    for (int i = bytes - 1; i >= 0; i--) {
        __u8 *at = &b[((p & OUT_MASK) + i)];
        *at = (*at & ~(__u8) mask) | ((__u8) bits & (__u8) mask);
        mask >>= 8;
        bits >>= 8;
    }
}

static __always_inline void wrw(__u8 *b, __u64 p, int width, u128 v)
{
    be_put_wide(&b[p & OUT_MASK], width / 8, v);
}

/* `width` (up to 64) bits at any bit position of the parsed bytes: lookahead. */
static __always_inline __u64 rd_bits(const __u8 *b, __u64 bit, int width)
{
    return rd(b, bit >> 3, bit & 7, width);
}

/* Packing checksum data: `width` bits of v at a constant bit offset of buf. */
static __always_inline void put(__u8 *buf, int bit, int width, __u64 v)
{
    wr(buf, bit >> 3, bit & 7, width, v);
}

static __always_inline void putw(__u8 *buf, int bit, int width, u128 v)
{
    wrw(buf, bit >> 3, width, v);
}

/* The ones' complement of the ones' complement sum of the 16-bit words of buf[0..len). */
static __always_inline __u64 csum16(const __u8 *buf, int len)
{
    __u64 sum = 0;
#pragma unroll
    for (int i = 0; i < len; i += 2)
        sum += ((__u64) buf[i] << 8) | (i + 1 < len ? buf[i + 1] : 0);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return ~sum & 0xffff;
}

/* Table keys (in the state) and action data: big-endian, each field in whole bytes, as the switch writes them. */
static __always_inline void key_put(__u8 *k, int at, int bytes, u128 v)
{
    be_put_wide(k + at, bytes, v);
}

static __always_inline u128 data_get(const __u8 *d, int at, int bytes)
{
    return be_get_wide(d + at, bytes);
}

static __always_inline void copy_n(struct ss_state *s, __u64 to, __u64 from, int count)
{
    for (int i = 0; i < count; i++) {
        s->n[(to + i) & N_MASK] = s->n[(from + i) & N_MASK];
        barrier();
    }
}

static __always_inline void zero_n(struct ss_state *s, __u64 at, int count)
{
    for (int i = 0; i < count; i++) {
        s->n[(at + i) & N_MASK] = 0;
        barrier();
    }
}

static __always_inline void copy_w(struct ss_state *s, __u64 to, __u64 from, int count)
{
    for (int i = 0; i < count; i++) {
        s->w[(to + i) & W_MASK] = s->w[(from + i) & W_MASK];
        barrier();
    }
}

static __always_inline void zero_w(struct ss_state *s, __u64 at, int count)
{
    for (int i = 0; i < count; i++) {
        s->w[(at + i) & W_MASK] = 0;
        barrier();
    }
}

/* A counter update, applied when the packet leaves the fast path (see count_log). */
#define COUNT(cell_index, frame_bytes) do {                         \
        if (s->log_n >= LOG_MAX) BAIL(0);                           \
        s->log[s->log_n & (LOG_MAX - 1)].cell = (cell_index);       \
        s->log[s->log_n & (LOG_MAX - 1)].bytes = (frame_bytes);     \
        s->log_n++;                                                 \
    } while (0)

static __always_inline void commit_counts(struct ss_state *s)
{
    for (int i = 0; i < LOG_MAX; i++) {
        if (i >= s->log_n)
            break;
        __u32 cell = s->log[i].cell;
        struct counter_cell *c = bpf_map_lookup_elem(&counters, &cell);
        if (c) {
            c->packets += 1;
            c->bytes += s->log[i].bytes;
        }
    }
}

#endif
