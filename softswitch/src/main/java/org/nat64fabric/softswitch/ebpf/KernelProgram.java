package org.nat64fabric.softswitch.ebpf;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.nat64fabric.softswitch.pipeline.Action;
import org.nat64fabric.softswitch.pipeline.CodeWriter;
import org.nat64fabric.softswitch.pipeline.Expr;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.v1model.Externs;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;

/**
 * A v1model program as C for the kernel fast path, at XDP or at TC ingress: the parser, the five controls and the deparser
 * written from the interpreter's own compiled program (see {@link CodeWriter}), its tables as BPF
 * maps, its counters in one per-CPU array. Packets that need what the C does not do (a packet-in,
 * a clone, a recirculation, a payload checksum, a meter, a table kind without a map) are handed to
 * the interpreter untouched.
 */
public final class KernelProgram extends CodeWriter {
    /** The C function the loader attaches. */
    public static final String ENTRY = "softswitch_fp";
    /**
     * The mark (skb->mark) of a frame the TC program hands to the interpreter: it injects the
     * frame again at its port's ingress, behind a header of {@link #HANDED_UP_HEAD} bytes, and
     * lets it pass when it sees this mark (HANDED_UP in softswitch_fast_path.h). The header's
     * source address holds the mark's four bytes too, so the interpreter can tell such a frame.
     */
    public static final int HANDED_UP_MARK = 0x73736670;
    /**
     * The EtherType of that header (IEEE 802's Local Experimental EtherType 1): at TC the
     * interpreter's socket on a port is bound to it alone, so the kernel hands the socket the
     * frames handed up, after the TC hook, and no other frame.
     */
    public static final int HANDED_UP_TYPE = 0x88B5;
    /**
     * The header before a frame handed up at TC: an Ethernet header whose destination carries the
     * frame's VLAN tag, which the kernel keeps beside the frame and drops on its way in again
     * (byte 1: 1 if there is one; bytes 2-3 its TPID, 4-5 its TCI), whose source is 02, the mark's
     * four bytes, 00, and whose EtherType is HANDED_UP_TYPE.
     */
    public static final int HANDED_UP_HEAD = 14;

    /** Set in a port's interface index in the port_ifindex map: at TC, redirect to the veth's other end (FastPath.Port). */
    public static final int TO_PEER = 0x80000000;

    /** Where the program runs: XDP (a frame before the kernel makes an skb of it) or TC ingress (an skb). */
    public enum Hook {
        XDP, TC
    }

    final Program program;
    final Hook hook;
    private final boolean debug;
    private final Map<Table, TableMap> tables = new IdentityHashMap<>();
    private final Map<Externs.Counter, Integer> counterBase = new IdentityHashMap<>();
    private int counterCells;
    private int lastHitCells;
    private final String source;
    /** What each packet starts by zeroing. */
    private SlotsToZero.Result zeroed;

    public KernelProgram(Program program, Hook hook, boolean debug) {
        super(program.wideWidths);
        this.program = program;
        this.hook = hook;
        this.debug = debug;
        for (Externs.Counter c : program.counters) {
            counterBase.put(c, counterCells);
            counterCells += c.size;
        }
        int index = 0;
        for (Table t : program.tables) {
            TableMap m = new TableMap(t, index++, t.directCounter != null ? counterCells : -1,
                    t.supportTimeout ? lastHitCells : -1);
            if (t.directCounter != null) {
                counterCells += m.capacity + 1;   // and the default entry's, after the entries'
            }
            if (t.supportTimeout) {
                lastHitCells += m.capacity;
            }
            tables.put(t, m);
        }
        this.source = generate();
    }

    public String source() {
        return source;
    }

    /** The size of a table_defaults cell: the largest value of a table on the fast path. */
    public int defaultBytes() {
        int most = 8;
        for (TableMap m : tables.values()) {
            if (m.supported()) {
                most = Math.max(most, m.valueBytes());
            }
        }
        return most;
    }

    SlotsToZero.Result zeroed() {
        return zeroed;
    }

    /** The BPF map layout of a table, or null when the fast path does not look it up. */
    public TableMap map(Table t) {
        TableMap m = tables.get(t);
        return m != null && m.supported() ? m : null;
    }

    public int counterBase(Externs.Counter c) {
        return counterBase.get(c);
    }

    /**
     * Writes the C clang compiles, DIR/fast_path.c and the header it includes, DIR/softswitch_fast_path.h;
     * returns the first.
     */
    public Path writeTo(Path dir) throws IOException {
        Path c = dir.resolve("fast_path.c");
        Files.writeString(c, source);
        Files.writeString(dir.resolve("softswitch_fast_path.h"), prelude());
        return c;
    }

    public static String prelude() {
        try (InputStream in = KernelProgram.class.getResourceAsStream("/ebpf/softswitch_fast_path.h")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("softswitch_fast_path.h missing from the jar", e);
        }
    }

    // ---- generation ----

    private String generate() {
        String parser = capture(() -> program.parser.c(this));
        String body = capture(this::mainBody);
        StringBuilder c = new StringBuilder();
        c.append("/* Generated by softswitch from ").append(program.source.replace("*/", "* /"))
                .append(": its fast path at ").append(hook).append(". */\n");
        c.append("#define N_SLOTS ").append(powerOfTwo(program.narrowSlots)).append('\n');
        c.append("#define W_UNITS ").append(powerOfTwo(totalUnits())).append('\n');
        c.append("#define N_TEMPS ").append(narrowTemps()).append('\n');
        c.append("#define W_TEMPS ").append(wideTemps()).append('\n');
        c.append("#define COUNTER_CELLS ").append(Math.max(counterCells, 1)).append('\n');
        c.append("#define LAST_HIT_CELLS ").append(Math.max(lastHitCells, 1)).append('\n');
        c.append("#define BAIL_SITES ").append(bailReasons().size()).append('\n');
        int keyMax = TableMap.SCAN_KEY_MAX;
        for (TableMap m : tables.values()) {
            keyMax = Math.max(keyMax, 4 + m.keyBytes);
        }
        c.append("#define KEY_MAX ").append((keyMax + 7) / 8 * 8).append('\n');
        c.append("#define HANDED_UP ").append(String.format("0x%x", HANDED_UP_MARK)).append('\n');
        c.append("#define HANDED_UP_TYPE ").append(String.format("0x%x", HANDED_UP_TYPE)).append('\n');
        c.append("#define HANDED_UP_HEAD ").append(HANDED_UP_HEAD).append('\n');
        c.append("#define TO_PEER ").append(String.format("0x%xU", TO_PEER)).append('\n');
        c.append("#include \"softswitch_fast_path.h\"\n\n");
        // One map for every table's default action, not one each: the kernel lets a program use 64 maps.
        c.append("/* The default action of table tN, at index N. */\n");
        c.append("struct default_val {\n    __u8 b[").append(defaultBytes()).append("];\n};\n");
        c.append(TableMap.map("BPF_MAP_TYPE_ARRAY", Math.max(tables.size(), 1), null, "__u32", "struct default_val",
                "table_defaults")).append('\n');
        for (Table t : program.tables) {
            c.append(tables.get(t).declarations());
        }
        c.append("\nstruct parse_ctx {\n    struct ss_state *s;\n};\n\n");
        c.append("#define ACCEPT() do { s->pstate = STATE_ACCEPTED; return 1; } while (0)\n");
        c.append("#define REJECT(code) do { s->perr = (code); s->pstate = STATE_REJECTED; return 1; } while (0)\n");
        c.append("#define NEXT_STATE(k) do { s->pstate = (k); return 0; } while (0)\n");
        c.append("#define GOTO_STATE(k) goto S##k\n\n");
        c.append("/* The parser from state s->pstate to a transition back (a loop): see Parser.c. */\n");
        zeroed = SlotsToZero.of(parser, body, program.narrowSlots, totalUnits());
        c.append("static __always_inline long parse_turn(struct ss_state *s)\n{\n");
        c.append(withoutDeadWrites(parser, zeroed.read));
        c.append("bail:\n    s->bail = 1;\n    return 1;\n}\n\n");
        c.append("/* The turns after the first (a call each, which costs more than most states): bpf_loop's callback. */\n");
        c.append("static long parse_step(__u64 step, struct parse_ctx *ctx)\n{\n    return parse_turn(ctx->s);\n}\n\n");
        c.append(zeroState(zeroed));
        if (hook == Hook.XDP) {
            c.append("SEC(\"xdp\")\nint ").append(ENTRY).append("(struct xdp_md *ctx)\n{\n");
        } else {
            c.append("SEC(\"tc\")\nint ").append(ENTRY).append("(struct __sk_buff *ctx)\n{\n");
        }
        c.append(withoutDeadWrites(body, zeroed.read));
        c.append("bail:\n    stat(FP_TO_INTERPRETER);\n    bailed(s->bail_site);\n    return ").append(handUp()).append(";\n}\n\n");
        c.append("char LICENSE[] SEC(\"license\") = \"GPL\";\n");
        return c.toString();
    }

    /**
     * The packet's start, as the interpreter's (every slot zero) for whatever the program may read
     * before writing it (see {@link SlotsToZero}): each run of such slots in memsets of up to 128
     * bytes, which clang's BPF target expands into plain stores (a quarter of the instructions of
     * a loop of single stores); a barrier between them, else clang merges them into one it cannot
     * expand.
     */
    private String zeroState(SlotsToZero.Result zero) {
        String memsets = capture(() -> {
            zeroRuns("n", zero.narrow, 8);
            zeroRuns("w", zero.units, 16);
        });
        return "/* Zeroed per packet: " + zero.narrow.cardinality() + " of " + program.narrowSlots + " slots, "
                + zero.units.cardinality() + " of " + totalUnits()
                + " 128-bit units; the others are written before they are read. */\n"
                + "static __always_inline void zero_state(struct ss_state *s)\n{\n" + memsets + "}\n\n";
    }

    private void zeroRuns(String array, BitSet slots, int bytes) {
        for (int from = slots.nextSetBit(0); from >= 0; from = slots.nextSetBit(slots.nextClearBit(from))) {
            zeroRun(array, from, slots.nextClearBit(from) - from, bytes);
        }
    }

    private static final Pattern MEMCPY = Pattern.compile("(\\s*)__builtin_memcpy\\(&s->([nw])\\[(\\d+)\\], &s->\\2\\[(\\d+)\\], (\\d+)\\);");
    private static final Pattern STORE = Pattern.compile("\\s*s->([nw])\\[(\\d+)\\] = .*;");

    /**
     * The code without the writes of slots no statement reads ({@code read}; all of them when it
     * is null): such a slot's value goes nowhere (the state is the kernel program's alone, and
     * every packet starts it afresh). Assignments of a generated expression (side-effect free)
     * to such a slot go, and aggregate copies ({@link CodeWriter#copySlots}) are cut to the slots
     * read: a control taking a program's whole headers as an in parameter gets a copy of the
     * few fields it reads, not of every header.
     */
    private String withoutDeadWrites(String code, BitSet read) {
        if (read == null) {
            return code;
        }
        StringBuilder out = new StringBuilder();
        boolean dropBarrier = false;
        for (String l : code.split("\n", -1)) {
            if (dropBarrier && l.trim().equals("barrier();")) {
                dropBarrier = false;
                continue;
            }
            dropBarrier = false;
            Matcher store = STORE.matcher(l);
            if (store.matches() && !read.get(place(store.group(1), Integer.parseInt(store.group(2))))) {
                continue;
            }
            Matcher m = MEMCPY.matcher(l);
            if (!m.matches()) {
                out.append(l).append('\n');
                continue;
            }
            String array = m.group(2);
            int to = Integer.parseInt(m.group(3));
            int from = Integer.parseInt(m.group(4));
            int size = array.equals("w") ? 16 : 8;
            int count = Integer.parseInt(m.group(5)) / size;
            int place = place(array, to);
            boolean any = false;
            for (int k = read.nextSetBit(place); k >= 0 && k < place + count; k = read.nextSetBit(read.nextClearBit(k))) {
                int end = Math.min(read.nextClearBit(k), place + count);
                int t = to + k - place;
                int f = from + k - place;
                out.append(m.group(1)).append(end - k == 1
                        ? "s->" + array + "[" + t + "] = s->" + array + "[" + f + "];"
                        : "__builtin_memcpy(&s->" + array + "[" + t + "], &s->" + array + "[" + f + "], " + (end - k) * size + ");")
                        .append('\n');
                any = true;
            }
            dropBarrier = !any;
        }
        return out.substring(0, out.length() - 1);
    }

    /** A slot's place in SlotsToZero's index space: narrow slots, then units. */
    private int place(String array, int index) {
        return array.equals("w") ? program.narrowSlots + index : index;
    }

    private static int powerOfTwo(int n) {
        int p = 1;
        while (p < Math.max(n, 1)) {
            p <<= 1;
        }
        return p;
    }

    private String std(String field) {
        return program.standardField(field).c(this);
    }

    private void setStd(String field, String value) {
        program.standardField(field).cSet(this, value);
    }

    /** The frame to the interpreter, untouched: XDP passes it on to the socket; TC injects it again behind a header, marked (see HANDED_UP_MARK). */
    private String handUp() {
        return hook == Hook.XDP ? "XDP_PASS" : "hand_up(ctx)";
    }

    /** The architecture around the blocks, as V1ModelSwitch runs it for a unicast packet. */
    private void mainBody() {
        boolean tc = hook == Hook.TC;
        if (tc) {
            line("/* A frame handed up on its way in again: the interpreter's socket takes it after this hook. */");
            line("if (ctx->mark == HANDED_UP) {");
            line("    ctx->mark = 0;");
            line("    return TC_ACT_OK;");
            line("}");
        }
        line("__u32 cpu = bpf_get_smp_processor_id();");
        line("__u32 zero = 0;");
        line("struct ss_state *s = bpf_map_lookup_elem(&states, &cpu);");
        line("struct ss_config *cfg = bpf_map_lookup_elem(&config, &zero);");
        line("__u32 ifindex = ctx->ingress_ifindex;");
        line("__s64 in_port = port_of_interface(ifindex);");
        line("if (!s || !cfg || in_port < 0) return " + handUp() + ";");
        line("/* Every slot it may read before writing it starts at zero, as in the interpreter. */");
        line("zero_state(s);");
        if (tc) {
            line("s->pkt_len = ctx->len;");
        } else {
            // The whole frame without a call: a program not marked for fragmented frames sees linear ones only.
            line("s->pkt_len = (__u64) (long) ctx->data_end - (__u64) (long) ctx->data;");
        }
        line("__u64 copied = s->pkt_len;");
        line("if (copied > PKT_MAX) copied = PKT_MAX;");
        line("if (copied < 1) " + bail("an empty frame") + ";");
        if (tc) {
            // Both are kept beside the frame's bytes, where neither the program nor the interpreter's socket sees them whole.
            line("if (ctx->vlan_present) " + bail("a VLAN tag the kernel took out of the frame") + ";");
            line("if (ctx->gso_segs > 1) " + bail("a frame for segmentation offload (several packets in one)") + ";");
        }
        line("if (" + (tc ? "bpf_skb_load_bytes" : "bpf_xdp_load_bytes") + "(ctx, 0, s->pkt, copied)) "
                + bail("a frame the kernel could not read") + ";");
        line("s->copied = copied;");
        line("s->cursor = 0; s->out_len = 0; s->perr = 0; s->exiting = 0; s->bail = 0; s->log_n = 0;");
        line("s->hit = 0; s->action_run = 0;");
        // Read once, at the first hit of an entry with a last-hit time: idle timeouts count in seconds,
        // so the coarse clock (a tick behind at most) is enough, and it costs less than the precise one.
        line("__u64 hit_time = 0;");
        setStd("ingress_port", "in_port");
        setStd("instance_type", String.valueOf(V1ModelSwitch.NORMAL));
        setStd("packet_length", "s->pkt_len");
        setStd("ingress_global_timestamp", "(bpf_ktime_get_ns() - cfg->start_ns) / 1000");
        line("struct parse_ctx pc = { .s = s };");
        line("s->pstate = 0;");
        line("if (!parse_turn(s)) bpf_loop(PARSER_STEPS - 1, parse_step, &pc, 0);");
        line("/* Parser errors and timeouts are counted by the interpreter. */");
        line("if (s->bail) goto bail;");
        line("if (s->pstate != STATE_ACCEPTED) " + bail("a parser error (the interpreter counts it)") + ";");
        block(program.verifyChecksum);
        block(program.ingress);
        line("if (" + std("mcast_grp") + " != 0) " + bail("multicast") + ";");
        line("if (" + std("egress_spec") + " == " + V1ModelSwitch.DROP_PORT + ") goto drop;");
        line("if (" + std("egress_spec") + " == cfg->cpu_port) " + bail("a packet-in") + ";");
        setStd("egress_port", std("egress_spec"));
        setStd("egress_spec", "0");
        setStd("egress_global_timestamp", "(bpf_ktime_get_ns() - cfg->start_ns) / 1000");
        block(program.egress);
        line("if (" + std("egress_spec") + " == " + V1ModelSwitch.DROP_PORT + ") goto drop;");
        block(program.computeChecksum);
        block(program.deparser);
        line("if (s->cursor & 7) " + bail("a parser that stopped inside a byte") + ";");
        line("__u64 payload_from = s->cursor >> 3;");
        line("__u32 out_port = " + std("egress_port") + ";");
        line("__u32 *out_link = bpf_map_lookup_elem(&port_ifindex, &out_port);");
        line("if (!out_link || !*out_link) " + bail("a port without a fast path") + ";");
        line("__u32 out_ifindex = *out_link & ~TO_PEER;");
        line("/* The interface's MTU now: a frame the interpreter would not send is its to count. */");
        line("__u32 mtu_len = 0;");
        line("if (bpf_check_mtu(ctx, out_ifindex, &mtu_len, (__s32) s->out_len - (__s32) payload_from, 0)) "
                + bail("a frame over the port's MTU") + ";");
        line("__u64 out_len = s->out_len;");
        line("if (out_len < 1 || out_len > OUT_MAX) " + bail("no headers to send") + ";");
        if (tc) {
            tcResize();
        } else {
            line("if (bpf_xdp_adjust_head(ctx, (int) payload_from - (int) out_len)) " + bail("headers the frame has no room for") + ";");
        }
        line("commit_counts(s);");
        line("if (" + (tc ? "bpf_skb_store_bytes(ctx, 0, s->out, out_len, 0)" : "bpf_xdp_store_bytes(ctx, 0, s->out, out_len)") + ") {");
        line("    stat(FP_TX_ERROR);");
        line("    return " + (tc ? "TC_ACT_SHOT" : "XDP_DROP") + ";");
        line("}");
        line("stat(FP_FORWARDED);");
        line(tc ? "return *out_link & TO_PEER ? bpf_redirect_peer(out_ifindex, 0) : bpf_redirect(out_ifindex, 0);"
                : "return bpf_redirect_map(&ports, out_port, 0);");
        out("drop:");
        line("commit_counts(s);");
        line("stat(FP_DROPPED);");
        line("return " + (tc ? "TC_ACT_SHOT" : "XDP_DROP") + ";");
    }

    /**
     * Gives the skb the deparser's length: the headers before the payload (from payload_from) become
     * out_len bytes, which the store then writes from the frame's start. The kernel moves bytes
     * after the Ethernet header (BPF_ADJ_ROOM_MAC), so the parsed headers must reach past it and
     * past what is taken out. Where the EtherType turns between IPv4 and IPv6, bpf_skb_change_proto
     * makes 20 of the difference and sets skb->protocol (a NIC's offloads read it); the rest is
     * bpf_skb_adjust_room's, which refuses frames that are not IP, an IP packet left shorter than
     * its fixed header, and a frame grown past the ingress interface's MTU: those are checked
     * first, so a frame the kernel would refuse goes to the interpreter untouched.
     */
    private void tcResize() {
        line("__s32 grow = (__s32) out_len - (__s32) payload_from;");
        line("__u16 proto_in = bpf_ntohs(ctx->protocol);");
        line("__u16 proto_out = out_len >= 14 ? ((__u16) s->out[12] << 8 | s->out[13]) : proto_in;");
        line("__s32 by_proto = 0;");
        line("if (proto_out != proto_in) {");
        line("    if (proto_in == ETH_P_IPV6 && proto_out == ETH_P_IP) by_proto = -20;");
        line("    else if (proto_in == ETH_P_IP && proto_out == ETH_P_IPV6) by_proto = 20;");
        line("    else " + bail("an EtherType the skb's protocol cannot follow") + ";");
        line("}");
        line("__s32 rest = grow - by_proto;");
        line("__u16 proto_then = by_proto ? proto_out : proto_in;");
        line("__s64 ip_len = (__s64) s->pkt_len + by_proto - ETH_HLEN;");
        line("if ((by_proto || rest) && payload_from < ETH_HLEN + (by_proto < 0 ? -by_proto : by_proto) + (rest < 0 ? -rest : rest)) "
                + bail("headers that end before what the kernel moves") + ";");
        line("if (rest && proto_then != ETH_P_IP && proto_then != ETH_P_IPV6) " + bail("a length change in a frame that is not IP") + ";");
        line("if (rest < 0 && ip_len + rest < (proto_then == ETH_P_IP ? 20 : 40)) "
                + bail("an IP packet shorter than its header after the change") + ";");
        line("if (rest > 0) {");
        line("    __u32 in_mtu = 0;");
        line("    if (bpf_check_mtu(ctx, 0, &in_mtu, by_proto + rest, 0)) " + bail("a frame grown past its ingress interface's MTU") + ";");
        line("}");
        line("/* From here on the frame changes: a refusal now is the kernel out of memory, counted as a send error. */");
        line("if ((by_proto && bpf_skb_change_proto(ctx, bpf_htons(proto_out), 0)) || (rest && bpf_skb_adjust_room(ctx, rest, BPF_ADJ_ROOM_MAC, 0))) {");
        line("    stat(FP_TX_ERROR);");
        line("    return TC_ACT_SHOT;");
        line("}");
    }

    private void out(String labelLine) {
        append(labelLine + "\n");
    }

    // ---- hooks ----

    @Override public void applyTable(Table table) {
        TableMap m = tables.get(table);
        if (!m.supported()) {
            throw new Unsupported("table " + table.name + " (" + m.why + ")");
        }
        m.apply(this);
    }

    @Override public void count(Externs.Counter counter, String index) {
        String i = tempNarrow();
        line(i + " = " + index + ";");
        line("if (" + i + " < " + counter.size + ") COUNT(" + counterBase.get(counter) + " + " + i + ", s->pkt_len);");
    }

    @Override public boolean debugLogging() {
        return debug;
    }

    /**
     * How one table lives in BPF maps: key and action data as bytes, big-endian, field by field.
     * Exact keys are a hash map; exact fields with one LPM field an LPM trie (the exact fields
     * first); tables with ternary, range or optional fields an array of up to {@link #SCAN_MAX}
     * entries in priority order, scanned per packet: such tables are ACL-sized, a scan is what the
     * verifier bounds, and a table that outgrows it sends its packets to the interpreter. The array
     * has two halves: a change is written to the unused one, then made current in one update.
     */
    public static final class TableMap {
        public static final int SCAN_MAX = 256;
        /** The largest key of a scanned table, in bytes (SCAN_KEY_MAX in softswitch_fast_path.h). */
        static final int SCAN_KEY_MAX = 64;

        public enum Kind { HASH, LPM, SCAN, KEYLESS }

        public final Table table;
        /** Its place among the program's tables: its name (tN) and its cell in table_defaults. */
        public final int index;
        public final String name;
        public final Kind kind;
        /** The key fields in map order (for LPM the exact fields first, then the LPM field). */
        public final List<Integer> keyOrder = new ArrayList<>();
        public final int keyBytes;
        /** Bytes of action data: the largest action's parameters. */
        public final int dataBytes;
        /**
         * Entries it may hold, each with an id below this (its counter and last-hit cells): the
         * table's size, or its entries in the program where they outnumber it (the frontend lets
         * them, as p4c does; P4Runtime inserts stop at the size).
         */
        public final int capacity;
        /** The first of the table's direct counter cells (one per entry id, then the default entry's), or -1. */
        public final int counterBase;
        public final int lastHitBase;
        final String why;

        TableMap(Table t, int index, int counterBase, int lastHitBase) {
            this.table = t;
            this.index = index;
            this.name = "t" + index;
            this.counterBase = counterBase;
            this.lastHitBase = lastHitBase;
            this.capacity = Math.max(t.size, t.entries().size());
            String unsupported = null;
            int lpmField = -1;
            int lpmFields = 0;
            boolean scan = false;
            for (int i = 0; i < t.keys.size(); i++) {
                Table.KeyField k = t.keys.get(i);
                if (k.kind == Table.MatchKind.LPM) {
                    lpmField = i;
                    lpmFields++;
                } else if (k.kind != Table.MatchKind.EXACT) {
                    scan = true;
                }
                if (k.width > 128) {
                    unsupported = "a key field wider than 128 bits";
                }
            }
            scan |= lpmFields > 1;
            this.kind = t.keys.isEmpty() ? Kind.KEYLESS : scan ? Kind.SCAN : lpmField >= 0 ? Kind.LPM : Kind.HASH;
            for (int i = 0; i < t.keys.size(); i++) {
                if (kind != Kind.LPM || i != lpmField) {
                    keyOrder.add(i);
                }
            }
            if (kind == Kind.LPM) {
                keyOrder.add(lpmField);
            }
            if (t.directMeter != null) {
                unsupported = "a direct meter";
            }
            if (t.profile() != null) {
                unsupported = "an action profile";
            }
            int bytes = 0;
            for (int i : keyOrder) {
                bytes += (t.keys.get(i).width + 7) / 8;
            }
            this.keyBytes = Math.max(bytes, 1);
            if (kind == Kind.SCAN && keyBytes > SCAN_KEY_MAX) {
                unsupported = "a ternary, range or optional key over 64 bytes";
            }
            int data = 1;
            for (Table.ActionRef r : t.actions) {
                int d = 0;
                for (Action.Param p : r.action.params) {
                    d += (p.width + 7) / 8;
                    if (p.width > 128) {
                        unsupported = "an action parameter wider than 128 bits";
                    }
                }
                data = Math.max(data, d);
            }
            this.dataBytes = data;
            this.why = unsupported;
        }

        boolean supported() {
            return why == null;
        }

        /**
         * sizeof(struct tN_val): action and id, then the data, padded as clang pads a struct of
         * 32-bit members (to 4 bytes). A map copies its whole value size from what it is given, so
         * the switch's bytes must be laid out as the C is: the declarations assert it.
         */
        public int valueBytes() {
            return align4(8 + dataBytes);
        }

        /** Where the map value starts in a scanned table's entry: after the value and the mask, at the value's alignment. */
        int scanValueAt() {
            return align4(2 * keyBytes);
        }

        /** sizeof(struct tN_key): an LPM trie's key has its 32-bit prefix length first, and is padded after the bytes. */
        int keySize() {
            return kind == Kind.LPM ? align4(4 + keyBytes) : keyBytes;
        }

        private static int align4(int n) {
            return (n + 3) & ~3;
        }

        String declarations() {
            if (!supported()) {
                return "/* " + table.name + ": not on the fast path (" + why + ") */\n";
            }
            StringBuilder c = new StringBuilder();
            c.append("/* ").append(table.name).append(" */\n");
            c.append("struct ").append(name).append("_val {\n    __u32 action;\n    __u32 id;\n    __u8 p[")
                    .append(dataBytes).append("];\n};\n");
            c.append(layoutAssert("sizeof(struct " + name + "_val) == " + valueBytes()));
            switch (kind) {
                case HASH:
                case LPM:
                    c.append("struct ").append(name).append("_key {\n");
                    if (kind == Kind.LPM) {
                        c.append("    __u32 prefixlen;\n");
                    }
                    c.append("    __u8 b[").append(keyBytes).append("];\n};\n");
                    c.append(layoutAssert("sizeof(struct " + name + "_key) == " + keySize()));
                    c.append(map(kind == Kind.LPM ? "BPF_MAP_TYPE_LPM_TRIE" : "BPF_MAP_TYPE_HASH", Math.max(capacity, 1),
                            kind == Kind.LPM ? "BPF_F_NO_PREALLOC" : null, "struct " + name + "_key", "struct " + name + "_val",
                            name));
                    break;
                case SCAN:
                    c.append("struct ").append(name).append("_entry {\n    __u8 v[").append(keyBytes).append("];\n    __u8 m[")
                            .append(keyBytes).append("];\n    struct ").append(name).append("_val val;\n};\n");
                    c.append(layoutAssert("__builtin_offsetof(struct " + name + "_entry, val) == " + scanValueAt()
                            + " && sizeof(struct " + name + "_entry) == " + (scanValueAt() + valueBytes())));
                    c.append(map("BPF_MAP_TYPE_ARRAY", 2 * SCAN_MAX, null, "__u32", "struct " + name + "_entry", name));
                    c.append(map("BPF_MAP_TYPE_ARRAY", 1, null, "__u32", "struct scan_head", name + "_head"));
                    c.append(scanFunction());
                    break;
                default:
                    break;
            }
            c.append(layoutAssert("sizeof(struct " + name + "_val) <= sizeof(struct default_val)"));
            return c.toString();
        }

        /** A compile-time check that the C lays a map's key or value out as the switch writes it. */
        private String layoutAssert(String condition) {
            return "_Static_assert(" + condition + ", \"" + name + ": the layout softswitch writes (KernelProgram.TableMap)\");\n";
        }

        private static String map(String type, int entries, String flags, String key, String value, String mapName) {
            return "struct {\n    __uint(type, " + type + ");\n    __uint(max_entries, " + entries + ");\n"
                    + (flags == null ? "" : "    __uint(map_flags, " + flags + ");\n")
                    + "    __type(key, " + key + ");\n    __type(value, " + value + ");\n} " + mapName + " SEC(\".maps\");\n";
        }

        /** One entry per call: does the key in s->key match it? */
        private String scanFunction() {
            StringBuilder c = new StringBuilder();
            c.append("static long ").append(name).append("_scan(__u64 i, struct scan_ctx *ctx)\n{\n")
                    .append("    struct ss_state *s = ctx->s;\n")
                    .append("    __u32 k = ctx->half * ").append(SCAN_MAX).append(" + (__u32) i;\n")
                    .append("    struct ").append(name).append("_entry *e = bpf_map_lookup_elem(&").append(name).append(", &k);\n")
                    .append("    if (!e)\n        return 1;\n");
            int at = 0;
            for (int i : keyOrder) {
                Table.KeyField f = table.keys.get(i);
                int bytes = (f.width + 7) / 8;
                String x = "data_get(s->key, " + at + ", " + bytes + ")";
                String v = "data_get(e->v, " + at + ", " + bytes + ")";
                String m = "data_get(e->m, " + at + ", " + bytes + ")";
                c.append(f.kind == Table.MatchKind.RANGE
                        ? "    if (" + x + " < " + v + " || " + x + " > " + m + ")\n        return 0;\n"
                        : "    if ((" + x + " & " + m + ") != " + v + ")\n        return 0;\n");
                at += bytes;
            }
            c.append("    s->match = k;\n    return 1;\n}\n");
            return c.toString();
        }

        void apply(KernelProgram w) {
            String v = "v_" + name;
            w.open("");
            w.line("struct " + name + "_val *" + v + " = 0;");
            if (kind != Kind.KEYLESS) {
                // The key is built in the state (a map value: stores of any alignment), not on the stack.
                String key = kind == Kind.SCAN ? "s->key" : "k_" + name + "->b";
                if (kind != Kind.SCAN) {
                    w.line("struct " + name + "_key *k_" + name + " = (void *) s->key;");
                }
                Expr[] exprs = new Expr[keyOrder.size()];
                for (int i = 0; i < exprs.length; i++) {
                    exprs[i] = table.keys.get(keyOrder.get(i)).expr;
                }
                String[] values = w.inOrder(exprs);
                int at = 0;
                for (int i = 0; i < exprs.length; i++) {
                    int bytes = (table.keys.get(keyOrder.get(i)).width + 7) / 8;
                    w.line("key_put(" + key + ", " + at + ", " + bytes + ", " + values[i] + ");");
                    at += bytes;
                }
                if (kind == Kind.SCAN) {
                    w.line("struct scan_head *h_" + name + " = bpf_map_lookup_elem(&" + name + "_head, &zero);");
                    w.line("if (!h_" + name + " || h_" + name + "->count > " + SCAN_MAX + ") "
                            + w.bail("a table with ternary, range or optional fields over " + SCAN_MAX + " entries") + ";");
                    w.line("struct scan_ctx sc_" + name + " = { .s = s, .half = h_" + name + "->half };");
                    w.line("s->match = ~0ULL;");
                    w.line("bpf_loop(h_" + name + "->count, " + name + "_scan, &sc_" + name + ", 0);");
                    w.open("if (s->match != ~0ULL)");
                    w.line("__u32 m_" + name + " = (__u32) s->match;");
                    w.line("struct " + name + "_entry *e_" + name + " = bpf_map_lookup_elem(&" + name + ", &m_" + name + ");");
                    w.line("if (e_" + name + ") " + v + " = &e_" + name + "->val;");
                    w.close();
                } else {
                    if (kind == Kind.LPM) {
                        w.line("k_" + name + "->prefixlen = " + keyBytes * 8 + ";");
                    }
                    w.line(v + " = bpf_map_lookup_elem(&" + name + ", k_" + name + ");");
                }
            }
            w.line("s->hit = " + v + " != 0;");
            w.open("if (" + v + ")");
            if (counterBase >= 0) {
                w.line("COUNT(" + counterBase + " + " + v + "->id, s->pkt_len);");
            }
            if (lastHitBase >= 0) {
                w.line("__u32 lh = " + lastHitBase + " + " + v + "->id;");
                w.line("__u64 *last = bpf_map_lookup_elem(&last_hit, &lh);");
                w.line("if (!hit_time) hit_time = bpf_ktime_get_coarse_ns();");
                // Written when the time moved on: the cell's cache line stays shared between the CPUs.
                w.line("if (last && *last != hit_time) *last = hit_time;");
            }
            w.close();
            w.open("else");
            if (counterBase >= 0) {
                w.line("COUNT(" + defaultCounterCell() + ", s->pkt_len);");
            }
            w.line("__u32 default_at = " + index + ";");
            w.line(v + " = bpf_map_lookup_elem(&table_defaults, &default_at);");
            w.line("if (!" + v + ") " + w.bail("a table without its default action") + ";");
            w.close();
            w.line("s->action_run = " + v + "->action;");
            String elseIf = "if";
            for (int a = 0; a < table.actions.size(); a++) {
                Table.ActionRef ref = table.actions.get(a);
                Action action = ref.action;
                w.open(elseIf + " (" + v + "->action == " + a + ")");
                int at = 0;
                for (Action.Param p : action.params) {
                    int bytes = (p.width + 7) / 8;
                    p.slot.cSet(w, "data_get(" + v + "->p, " + at + ", " + bytes + ")");
                    at += bytes;
                }
                w.guarded(() -> ref.cRun(w));
                w.close();
                elseIf = "else if";
            }
            w.line("else " + w.bail("an action the table does not have") + ";");
            w.close();
        }

        /** The counter cell of the default entry's direct counter (P4Runtime 9.1.5: a miss is counted). */
        public int defaultCounterCell() {
            return counterBase + capacity;
        }

        /** The hash or LPM map key of an entry's match, as {@link #apply} builds it from a packet. */
        public byte[] key(Table.FieldMatch[] match) {
            byte[] k = new byte[keySize()];
            int at = kind == Kind.LPM ? 4 : 0;
            int prefix = 0;
            for (int i : keyOrder) {
                Table.KeyField f = table.keys.get(i);
                int bytes = (f.width + 7) / 8;
                put(k, at, bytes, match[i].value);
                at += bytes;
                prefix += f.kind == Table.MatchKind.LPM ? bytes * 8 - f.width + match[i].prefixLength : bytes * 8;
            }
            if (kind == Kind.LPM) {
                putInt(k, 0, prefix);   // the trie's prefix length is host-endian
            }
            return k;
        }

        /** An entry of a scanned table: value and mask (low and high for ranges), then the map value at {@link #scanValueAt}. */
        public byte[] scanEntry(Table.FieldMatch[] match, Table.ActionCall call, int id) {
            byte[] e = new byte[scanValueAt() + valueBytes()];
            int at = 0;
            for (int i : keyOrder) {
                Table.KeyField f = table.keys.get(i);
                int bytes = (f.width + 7) / 8;
                Table.FieldMatch m = match[i];
                put(e, at, bytes, m.value);
                put(e, keyBytes + at, bytes, m.high != null ? m.high : m.mask);
                at += bytes;
            }
            System.arraycopy(value(call, id), 0, e, scanValueAt(), valueBytes());
            return e;
        }

        /** The map value for an action call: its index in the table, the entry's id, its data. */
        public byte[] value(Table.ActionCall call, int id) {
            byte[] v = new byte[valueBytes()];
            int index = 0;
            while (table.actions.get(index).action != call.action) {
                index++;
            }
            putInt(v, 0, index);
            putInt(v, 4, id);
            int at = 8;
            for (int i = 0; i < call.argCount(); i++) {
                int bytes = (call.action.params.get(i).width + 7) / 8;
                put(v, at, bytes, call.arg(i));
                at += bytes;
            }
            return v;
        }

        /** A host-endian (little-endian) 32-bit value, as BPF map keys and values hold them. */
        static void putInt(byte[] b, int at, int v) {
            b[at] = (byte) v;
            b[at + 1] = (byte) (v >>> 8);
            b[at + 2] = (byte) (v >>> 16);
            b[at + 3] = (byte) (v >>> 24);
        }

        private static void put(byte[] b, int at, int bytes, BigInteger v) {
            for (int i = bytes - 1; i >= 0; i--) {
                b[at + i] = v.byteValue();
                v = v.shiftRight(8);
            }
        }
    }
}
