package org.nat64fabric.softswitch.ebpf;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.logging.Logger;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.v1model.Externs;

/**
 * The kernel fast path of a running program: its C (from {@link KernelProgram}) compiled with clang,
 * loaded with libbpf and attached to every port at XDP or at TC ingress. The program's tables and
 * counters are mirrored into BPF maps as the P4Runtime server writes them, and what the kernel
 * counts is added to what the interpreter counts. Packets the kernel program cannot finish reach
 * the interpreter untouched (at XDP by XDP_PASS, at TC handed up: {@link Receiver}), so behaviour
 * is the same whichever path a packet takes.
 */
public final class FastPath implements Table.Mirror, Externs.Counter.Mirror, AutoCloseable {
    private static final Logger LOG = Logger.getLogger("softswitch");
    private static final int LOG_BUF = 16 << 20;
    /** Interfaces numbered below it are found in an array (PORT_INDEXES in softswitch_fast_path.h), the others in a hash map. */
    private static final int PORT_INDEXES = 65536;

    /**
     * Where the program runs: XDP in the driver (veth, most NICs), XDP on the kernel's generic path
     * (any interface), or TC ingress (any interface; the frame is an skb already, which XDP's generic
     * path copies whole when it is cloned, as TCP's are).
     */
    public enum Mode {
        DRIVER(KernelProgram.Hook.XDP, Libbpf.XDP_FLAGS_DRV_MODE, "xdp"),
        GENERIC(KernelProgram.Hook.XDP, Libbpf.XDP_FLAGS_SKB_MODE, "xdp-generic"),
        TC(KernelProgram.Hook.TC, 0, "tc");

        final KernelProgram.Hook hook;
        final int xdpFlags;
        public final String option;

        Mode(KernelProgram.Hook hook, int xdpFlags, String option) {
            this.hook = hook;
            this.xdpFlags = xdpFlags;
            this.option = option;
        }
    }

    /**
     * A switch port: its number, its interface, whether that is a veth whose other end is in
     * another network namespace, and the interpreter's socket on it.
     */
    public static final class Port {
        final int number;
        final String name;
        final int ifindex;
        final boolean vethPeerElsewhere;
        final Receiver receiver;

        public Port(int number, String name, int ifindex, boolean vethPeerElsewhere, Receiver receiver) {
            this.number = number;
            this.name = name;
            this.ifindex = ifindex;
            this.vethPeerElsewhere = vethPeerElsewhere;
            this.receiver = receiver;
        }

        /**
         * At TC, a frame for a veth port whose other end is in another namespace goes straight into
         * that end's receive path (bpf_redirect_peer: no transmit on the port, no second pass through
         * the CPU's backlog); the kernel allows it for such ports only.
         */
        boolean toPeer(Mode mode) {
            return mode.hook == KernelProgram.Hook.TC && vethPeerElsewhere;
        }
    }

    /**
     * The interpreter's receiving socket on a port. Bound to every EtherType, it would see each
     * frame before a TC program does (the kernel serves such sockets first), so while the program
     * is attached it is bound to {@link KernelProgram#HANDED_UP_TYPE} alone and takes only the
     * frames the program hands up, whose header it takes off.
     */
    public interface Receiver {
        /** With true, takes only the frames handed up at TC; with false, every frame again. */
        void takeOnlyHandedUp(boolean only);
    }

    /** Why the fast path cannot run: the one line to show, the interpreter keeps running. */
    public static final class Unavailable extends Exception {
        public Unavailable(String message) {
            super(message, null, false, false);
        }
    }

    private final Program program;
    private final KernelProgram code;
    private final Mode mode;
    private final List<Port> ports;
    private final Pointer object;
    private final int cpus;
    private final int counters;
    private final int lastHit;
    private final int stats;
    private final int bailSites;
    /** Every table's default action, by the table's index (KernelProgram's table_defaults). */
    private final int defaults;
    private final Map<Table, TableMaps> tables = new IdentityHashMap<>();
    /** One BPF link per port: the kernel detaches the program when its link closes, also when the process dies. */
    private final List<Integer> links = new ArrayList<>();
    /** The ports whose socket takes only handed-up frames (TC). */
    private final List<Port> handedUpOnly = new ArrayList<>();
    /**
     * The first map update the kernel refused, or null. From then on its tables could differ from
     * the interpreter's (a packet missing an entry there would take the default action), so the
     * program is detached and the interpreter has every packet.
     */
    private String failure;

    private static final class TableMaps {
        final KernelProgram.TableMap layout;
        final int entries;
        final int head;
        /** The entries' cells in the counter and last-hit arrays, by id. */
        final BitSet ids = new BitSet();
        /** No id below it is free: a table filled with a million entries does not scan its ids per insert. */
        int freeFrom;
        /** Every id below it has been used: above, the cells are still as the kernel created them, zero. */
        int usedBelow;
        int half;

        TableMaps(KernelProgram.TableMap layout, int entries, int head) {
            this.layout = layout;
            this.entries = entries;
            this.head = head;
        }
    }

    private FastPath(Program program, KernelProgram code, Mode mode, List<Port> ports, Pointer object) throws Unavailable {
        this.program = program;
        this.code = code;
        this.mode = mode;
        this.ports = ports;
        this.object = object;
        this.cpus = Libbpf.libbpf_num_possible_cpus();
        this.counters = fd("counters");
        this.lastHit = fd("last_hit");
        this.stats = fd("fp_stats");
        this.bailSites = fd("bail_sites");
        this.defaults = fd("table_defaults");
        for (Table t : program.tables) {
            KernelProgram.TableMap m = code.map(t);
            if (m != null) {
                boolean keyless = m.kind == KernelProgram.TableMap.Kind.KEYLESS;
                boolean scan = m.kind == KernelProgram.TableMap.Kind.SCAN;
                tables.put(t, new TableMaps(m, keyless ? -1 : fd(m.name), scan ? fd(m.name + "_head") : -1));
            }
        }
    }

    /** A program compiled to eBPF, not loaded yet. */
    public static final class Compiled {
        final KernelProgram code;
        final byte[] object;   // the ELF object clang made

        Compiled(KernelProgram code, byte[] object) {
            this.code = code;
            this.object = object;
        }
    }

    /** Writes the program as C and compiles it with clang (seconds for a large program: outside any lock). */
    public static Compiled compile(Program program, Mode mode, boolean debug) throws Unavailable {
        if (program.architecture != Program.Architecture.V1MODEL) {
            throw new Unavailable("the fast path runs v1model programs; this one is " + program.architecture.p4infoName);
        }
        KernelProgram code = new KernelProgram(program, mode.hook, debug);
        return new Compiled(code, compile(code));
    }

    /**
     * Loads a compiled program, fills its maps from the tables and attaches it to the ports. The
     * caller keeps table writes out meanwhile. Throws Unavailable with what to do when it cannot.
     */
    public static FastPath start(Compiled compiled, Mode mode, List<Port> ports, int cpuPort, long startNanos)
            throws Unavailable {
        Pointer obj;
        try {
            obj = load(compiled.object);
        } catch (LinkageError e) {
            throw new Unavailable("libbpf cannot be loaded (apt-get install libbpf1): " + e);
        }
        FastPath fp = null;
        try {
            fp = new FastPath(compiled.code.program, compiled.code, mode, ports, obj);
            fp.configure(cpuPort, startNanos);
            if (fp.failure != null) {
                throw new Unavailable(fp.failure + " while filling the maps");
            }
            fp.attach();
        } catch (Unavailable | RuntimeException e) {
            if (fp != null) {
                fp.close();   // the tables stop mirroring to it, whatever it got to
            } else {
                Libbpf.bpf_object__close(obj);
            }
            throw e;
        }
        return fp;
    }

    /**
     * The clang command that compiles the fast path's C {@code source} into {@code object}; also
     * what {@code softswitch fast-path-c} writes as {@code compile.sh}. Little-endian, as the
     * switch writes map keys and values (TableMap.putInt, putLong): on a big-endian host libbpf
     * refuses the object instead of the program misreading them.
     */
    public static List<String> clangCommand(String source, String object) {
        List<String> cmd = new ArrayList<>(List.of("clang", "-O2", "-g", "-target", "bpfel", "-Wno-parentheses-equality",
                "-Wno-pass-failed"));
        for (String arch : List.of("x86_64-linux-gnu", "aarch64-linux-gnu")) {
            if (Files.isDirectory(Path.of("/usr/include", arch))) {
                cmd.add("-I/usr/include/" + arch);
            }
        }
        cmd.addAll(List.of("-c", source, "-o", object));
        return cmd;
    }

    /**
     * clang's object, kept in memory: the files are removed at once, so a killed switch leaves none
     * behind; and in the {@link ObjectCache}, from which the next start with the same C, headers and
     * clang takes it.
     */
    private static byte[] compile(KernelProgram code) throws Unavailable {
        Optional<ObjectCache> cache = ObjectCache.standard();
        Path dir = null;
        try {
            dir = Files.createTempDirectory("softswitch-fast-path");
            Path c = code.writeTo(dir);
            Path o = dir.resolve("fast_path.o");
            List<String> command = clangCommand(c.toString(), o.toString());
            String key = cache.isPresent() ? cacheKey(command, c) : null;
            Optional<byte[]> kept = cache.flatMap(k -> k.get(key));
            if (kept.isPresent()) {
                LOG.info("fast path: the compiled program comes from the cache (" + key.substring(0, 12) + ")");
                return kept.get();
            }
            Ran clang = run(command);
            if (!clang.ok) {
                throw new Unavailable("clang could not compile the fast path: " + firstLines(clang.output, 6));
            }
            byte[] object = Files.readAllBytes(o);
            cache.ifPresent(k -> k.put(key, object));
            return object;
        } catch (IOException e) {
            throw new Unavailable("cannot write the fast path's C: " + e.getMessage());
        } finally {
            removeTree(dir);
        }
    }

    /**
     * What makes the object: every file clang reads for it, as {@code clang -M} lists them (the C,
     * its header, the kernel's and libbpf's headers: a package upgrade changes the key), by name and
     * content; the clang command (but for the temporary paths); and {@code clang --version}.
     */
    private static String cacheKey(List<String> command, Path source) throws Unavailable, IOException {
        List<String> depend = new ArrayList<>(command.subList(0, command.size() - 4));   // without -c SOURCE -o OBJECT
        depend.addAll(List.of("-M", source.toString()));
        Ran deps = run(depend);
        if (!deps.ok) {
            throw new Unavailable("clang could not read the fast path's C: " + firstLines(deps.output, 6));
        }
        List<String> parts = new ArrayList<>(List.of(String.join(" ", clangCommand("fast_path.c", "fast_path.o")),
                clangVersion()));
        String[] tokens = deps.output.replace("\\\n", " ").trim().split("\\s+");
        for (String file : Arrays.asList(tokens).subList(1, tokens.length)) {    // after "fast_path.o:"
            Path p = source.resolveSibling(file);
            parts.add(p.getFileName() + "\n" + Files.readString(p, StandardCharsets.ISO_8859_1));
        }
        return ObjectCache.key(parts);
    }

    private static String clangVersionText;

    /** What {@code clang --version} says (part of what makes an object), asked once. */
    private static synchronized String clangVersion() throws Unavailable {
        if (clangVersionText == null) {
            Ran version = run(List.of("clang", "--version"));
            if (!version.ok) {
                throw new Unavailable("clang --version failed: " + firstLines(version.output, 3));
            }
            clangVersionText = version.output;
        }
        return clangVersionText;
    }

    /** A command's outcome and what it printed. */
    private record Ran(boolean ok, String output) {
    }

    /** Runs clang to its end (300 s at most). */
    private static Ran run(List<String> cmd) throws Unavailable {
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new Unavailable("clang is not installed (apt-get install clang libbpf-dev): " + e.getMessage());
        }
        try {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Ran(false, "ran for more than 300 s");
            }
            return new Ran(p.exitValue() == 0, output);
        } catch (IOException e) {
            return new Ran(false, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted while compiling the fast path");
        }
    }

    private static void removeTree(Path dir) {
        if (dir == null) {
            return;
        }
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            LOG.warning("cannot remove " + dir + ": " + e.getMessage());
        }
    }

    private static Pointer load(byte[] object) throws Unavailable {
        // libbpf reads the ELF from this memory until the object is loaded; it must stay reachable until then.
        Memory elf = new Memory(object.length);
        elf.write(0, object, 0, object.length);
        Pointer obj = Libbpf.bpf_object__open_mem(elf, object.length, null);
        if (obj == null) {
            throw new Unavailable("libbpf cannot read the fast path's object (" + object.length + " bytes)");
        }
        Pointer states = Libbpf.bpf_object__find_map_by_name(obj, "states");
        Libbpf.bpf_map__set_max_entries(states, Libbpf.libbpf_num_possible_cpus());
        Pointer prog = Libbpf.bpf_object__find_program_by_name(obj, KernelProgram.ENTRY);
        Memory log = new Memory(LOG_BUF);
        log.setByte(0, (byte) 0);
        Libbpf.bpf_program__set_log_buf(prog, log, LOG_BUF);
        int err = Libbpf.bpf_object__load(obj);
        Reference.reachabilityFence(elf);
        if (err < 0) {
            Libbpf.bpf_object__close(obj);
            throw new Unavailable("the kernel refused the fast path (" + Libbpf.strerror(-err) + "): "
                    + lastLines(log.getString(0), 4));
        }
        return obj;
    }

    private int fd(String map) throws Unavailable {
        Pointer m = Libbpf.bpf_object__find_map_by_name(object, map);
        if (m == null) {
            throw new Unavailable("the fast path has no map " + map);
        }
        return Libbpf.bpf_map__fd(m);
    }

    private void configure(int cpuPort, long startNanos) throws Unavailable {
        byte[] cfg = new byte[16];
        putLong(cfg, 0, startNanos);
        putLong(cfg, 8, cpuPort);
        update(fd("config"), intKey(0), cfg);
        int devmap = fd("ports");
        int portOf = fd("port_of");
        int portByIndex = fd("port_by_index");
        int portIfindex = fd("port_ifindex");
        for (Port p : ports) {
            update(devmap, intKey(p.number), intKey(p.ifindex));
            if (p.ifindex < PORT_INDEXES) {
                update(portByIndex, intKey(p.ifindex), intKey(p.number + 1));
            } else {
                update(portOf, intKey(p.ifindex), intKey(p.number));
            }
            update(portIfindex, intKey(p.number), intKey(p.ifindex | (p.toPeer(mode) ? KernelProgram.TO_PEER : 0)));
        }
        for (Map.Entry<Table, TableMaps> e : tables.entrySet()) {
            e.getKey().mirrorTo(this);
        }
        for (Externs.Counter c : program.counters) {
            c.mirror = this;
        }
    }

    /**
     * Attaches with BPF links, not the netlink attachment that outlives its process: a switch that
     * is killed must not leave its program forwarding on the ports, with nothing to take what it
     * hands over. At TC (tcx links, Linux 6.6 and later) each port's socket is bound to the frames
     * handed up first: until the program is attached its frames are lost, not taken twice.
     */
    private void attach() throws Unavailable {
        int fd = Libbpf.bpf_program__fd(Libbpf.bpf_object__find_program_by_name(object, KernelProgram.ENTRY));
        Memory opts = null;
        if (mode.hook == KernelProgram.Hook.XDP) {
            // struct bpf_link_create_opts up to its flags: sz, then flags (the union after them stays zero)
            opts = new Memory(16);
            opts.clear();
            opts.setLong(0, 16);
            opts.setInt(8, mode.xdpFlags);
        }
        for (Port p : ports) {
            int link;
            if (mode.hook == KernelProgram.Hook.TC) {
                try {
                    p.receiver.takeOnlyHandedUp(true);
                } catch (RuntimeException e) {
                    detach();
                    throw new Unavailable("cannot bind the interpreter's socket on " + p.name + " to the frames handed up: "
                            + e.getMessage());
                }
                handedUpOnly.add(p);
                link = Libbpf.bpf_link_create(fd, p.ifindex, Libbpf.BPF_TCX_INGRESS, null);
            } else {
                link = Libbpf.bpf_link_create(fd, p.ifindex, Libbpf.BPF_XDP, opts);
            }
            if (link < 0) {
                detach();
                throw new Unavailable("cannot attach " + (mode.hook == KernelProgram.Hook.TC ? "at TC ingress (tcx, Linux 6.6 or later)"
                        : "XDP (" + mode.option + ")") + " to " + p.name + ": " + Libbpf.strerror(-link)
                        + (mode == Mode.DRIVER ? "; try --fast-path " + Mode.GENERIC.option : ""));
            }
            links.add(link);
        }
    }

    /** Detaches the program, then lets the sockets take every frame again (between the two, frames are lost, not taken twice). */
    private synchronized void detach() {
        for (int link : links) {
            Libbpf.close(link);
        }
        links.clear();
        for (Port p : handedUpOnly) {
            try {
                p.receiver.takeOnlyHandedUp(false);
            } catch (RuntimeException e) {
                LOG.warning("port " + p.number + " (" + p.name + "): cannot take every frame again, its socket keeps"
                        + " taking only frames handed up: " + e.getMessage() + "; restart the switch");
            }
        }
        handedUpOnly.clear();
    }

    /** What the fast path did with packets, by name, for the switch's counters. */
    public Map<String, Long> stats() {
        String[] names = {"to interpreter", "forwarded", "dropped", "send errors"};
        Map<String, Long> out = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            out.put("fast path: " + names[i], sumPerCpu(stats, i, 8, 0));
        }
        if (failure != null) {
            out.put("fast path: detached after a failed map update", 1L);
        }
        List<String> reasons = code.bailReasons();
        for (int i = 0; i < reasons.size(); i++) {
            long n = sumPerCpu(bailSites, i, 8, 0);
            if (n > 0) {
                out.merge("fast path: to interpreter: " + reasons.get(i), n, Long::sum);
            }
        }
        return out;
    }

    @Override
    public void close() {
        detach();
        for (Table t : tables.keySet()) {
            t.mirrorTo(null);
        }
        for (Externs.Counter c : program.counters) {
            c.mirror = null;
        }
        Libbpf.bpf_object__close(object);
    }

    // ---- mirror ----

    @Override public synchronized void put(Table t, Table.Entry e) {
        TableMaps m = tables.get(t);
        if (m == null || m.entries < 0) {
            return;
        }
        if (e.mirrorId < 0) {
            e.mirrorId = m.ids.nextClearBit(m.freeFrom);
            m.ids.set(e.mirrorId);
            m.freeFrom = e.mirrorId + 1;
            if (e.mirrorId < m.usedBelow) {
                // A removed entry's cells: zeroed for the new one (fresh cells are zero already).
                if (m.layout.counterBase >= 0) {
                    zeroPerCpu(counters, m.layout.counterBase + e.mirrorId, 16);
                }
                if (m.layout.lastHitBase >= 0) {
                    update(lastHit, intKey(m.layout.lastHitBase + e.mirrorId), new byte[8]);
                }
            } else {
                m.usedBelow = e.mirrorId + 1;
            }
        }
        if (m.head >= 0) {
            rewriteScan(t, m);
        } else {
            update(m.entries, m.layout.key(e.match()), m.layout.value(e.action, e.mirrorId));
        }
    }

    /**
     * A scanned table is written whole, in the interpreter's order (priority, then insertion), to
     * the half packets do not read; then that half becomes current.
     */
    private void rewriteScan(Table t, TableMaps m) {
        List<Table.Entry> order = new ArrayList<>(t.entries());
        order.sort(Comparator.comparingInt((Table.Entry e) -> e.priority).reversed());
        int max = KernelProgram.TableMap.SCAN_MAX;
        int half = 1 - m.half;
        if (order.size() <= max) {
            for (int i = 0; i < order.size(); i++) {
                Table.Entry e = order.get(i);
                update(m.entries, intKey(half * max + i), m.layout.scanEntry(e.match(), e.action, e.mirrorId));
            }
        }
        byte[] head = new byte[8];
        System.arraycopy(intKey(order.size() <= max ? order.size() : max + 1), 0, head, 0, 4);
        System.arraycopy(intKey(half), 0, head, 4, 4);
        update(m.head, intKey(0), head);
        m.half = half;
    }

    @Override public synchronized void remove(Table t, Table.Entry e) {
        TableMaps m = tables.get(t);
        if (m == null || m.entries < 0 || e.mirrorId < 0) {
            return;
        }
        m.ids.clear(e.mirrorId);
        m.freeFrom = Math.min(m.freeFrom, e.mirrorId);
        e.mirrorId = -1;
        if (m.head >= 0) {
            rewriteScan(t, m);
        } else {
            int err = Libbpf.bpf_map_delete_elem(m.entries, m.layout.key(e.match()));
            if (err < 0) {
                failed("a BPF map delete failed (" + Libbpf.strerror(-err) + ")");
            }
        }
    }

    @Override public void defaultAction(Table t, Table.ActionCall call) {
        TableMaps m = tables.get(t);
        if (m != null) {
            // Its cell is as large as the largest table's value: the rest stays zero.
            update(defaults, intKey(m.layout.index), Arrays.copyOf(m.layout.value(call, 0), code.defaultBytes()));
        }
    }

    @Override public long[] counts(Table t, Table.Entry e) {
        int cell = counterCell(t, e);
        return cell < 0 ? null : cell(cell);
    }

    @Override public void resetCounts(Table t, Table.Entry e) {
        int cell = counterCell(t, e);
        if (cell >= 0) {
            zeroPerCpu(counters, cell, 16);
        }
    }

    /** The cell of the entry's (or the table's default entry's) direct counter here, or -1. */
    private int counterCell(Table t, Table.Entry e) {
        TableMaps m = tables.get(t);
        if (m == null || m.layout.counterBase < 0) {
            return -1;
        }
        if (e == t.defaultEntry) {
            return m.layout.defaultCounterCell();
        }
        return e.mirrorId < 0 ? -1 : m.layout.counterBase + e.mirrorId;
    }

    @Override public long lastHit(Table t, Table.Entry e) {
        TableMaps m = tables.get(t);
        if (m == null || m.layout.lastHitBase < 0 || e.mirrorId < 0) {
            return Long.MIN_VALUE;
        }
        byte[] v = new byte[8];
        if (Libbpf.bpf_map_lookup_elem(lastHit, intKey(m.layout.lastHitBase + e.mirrorId), v) < 0) {
            return Long.MIN_VALUE;
        }
        long ns = getLong(v, 0);
        return ns == 0 ? Long.MIN_VALUE : ns;
    }

    @Override public long[] counts(Externs.Counter c, int index) {
        return cell(code.counterBase(c) + index);
    }

    @Override public void resetCounts(Externs.Counter c, int index) {
        zeroPerCpu(counters, code.counterBase(c) + index, 16);
    }

    private long[] cell(int index) {
        return new long[] {sumPerCpu(counters, index, 16, 0), sumPerCpu(counters, index, 16, 8)};
    }

    // ---- maps ----

    private void update(int fd, byte[] key, byte[] value) {
        int err = Libbpf.bpf_map_update_elem(fd, key, value, Libbpf.BPF_ANY);
        if (err < 0) {
            failed("a BPF map update failed (" + Libbpf.strerror(-err) + ")");
        }
    }

    /** See {@link #failure}: the first failure detaches the program, once attached. */
    private synchronized void failed(String what) {
        if (failure != null) {
            return;
        }
        failure = what;
        if (!links.isEmpty()) {
            detach();
            LOG.warning("fast path off, the interpreter runs every packet from now on: " + what
                    + ", so the kernel's tables could differ from the interpreter's");
        }
    }

    private long sumPerCpu(int fd, int index, int valueSize, int offset) {
        byte[] v = new byte[cpus * ((valueSize + 7) / 8 * 8)];
        if (Libbpf.bpf_map_lookup_elem(fd, intKey(index), v) < 0) {
            return 0;
        }
        long sum = 0;
        for (int c = 0; c < cpus; c++) {
            sum += getLong(v, c * ((valueSize + 7) / 8 * 8) + offset);
        }
        return sum;
    }

    private void zeroPerCpu(int fd, int index, int valueSize) {
        update(fd, intKey(index), new byte[cpus * ((valueSize + 7) / 8 * 8)]);
    }

    private static byte[] intKey(int v) {
        byte[] b = new byte[4];
        KernelProgram.TableMap.putInt(b, 0, v);
        return b;
    }

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }

    private static long getLong(byte[] b, int at) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[at + i] & 0xFF);
        }
        return v;
    }

    private static String firstLines(String text, int n) {
        return String.join(" | ", text.lines().filter(l -> l.contains("error")).limit(n).collect(Collectors.toList()));
    }

    private static String lastLines(String text, int n) {
        List<String> lines = text.lines().filter(l -> !l.isBlank()).collect(Collectors.toList());
        return String.join(" | ", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    }

    @Override public String toString() {
        return (mode.hook == KernelProgram.Hook.TC ? "TC ingress" : "XDP") + " (" + mode.option + ") on " + ports.stream().sorted(Comparator.comparingInt(p -> p.number))
                .map(p -> p.number + "@" + p.name + (p.toPeer(mode) ? " (to its veth peer)" : "")).collect(Collectors.toList());
    }
}
