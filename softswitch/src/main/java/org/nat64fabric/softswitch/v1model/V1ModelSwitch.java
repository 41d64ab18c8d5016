package org.nat64fabric.softswitch.v1model;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import org.nat64fabric.softswitch.pipeline.Expr;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.State;
import org.nat64fabric.softswitch.sume.SimpleSumeSwitch;

/**
 * A switch running a compiled program: its multicast groups, clone sessions and counts, and the
 * v1model architecture around the program, as BMv2's simple_switch runs it: parser,
 * verifyChecksum, ingress, then the packet replication engine (clone, resubmit, multicast,
 * unicast or drop), egress, computeChecksum, deparser, and recirculation.
 */
public final class V1ModelSwitch {
    public static final Logger LOG = Logger.getLogger("softswitch");
    public static final int DROP_PORT = 511;

    /** standard_metadata.instance_type values, as BMv2 numbers them. */
    public static final int NORMAL = 0;
    public static final int INGRESS_CLONE = 1;
    public static final int EGRESS_CLONE = 2;
    public static final int RECIRCULATED = 4;
    public static final int REPLICATION = 5;
    public static final int RESUBMITTED = 6;

    private static final int CLONE_I2E = 0;
    private static final int CLONE_E2E = 1;
    /** Bounds on the work one input packet may cause (resubmit/recirculate loops, copies). */
    private static final int MAX_INGRESS_PASSES = 64;
    private static final int MAX_EGRESS_PASSES = 1024;

    /** A packet leaving the switch. */
    public static final class Output {
        public final int port;
        public final byte[] data;

        public Output(int port, byte[] data) {
            this.port = port;
            this.data = data;
        }
    }

    /** A copy made by the replication engine: an egress port and an instance (rid). */
    public static final class Replica {
        public final int port;
        public final int instance;

        public Replica(int port, int instance) {
            this.port = port;
            this.instance = instance;
        }
    }

    /** A clone session: its replicas, and the bytes each copy is cut to (0: not cut; P4Runtime 9.5.2). */
    private record CloneSession(List<Replica> replicas, int packetLength) {
    }

    public final Program program;
    private final Map<Integer, List<Replica>> multicastGroups = new ConcurrentHashMap<>();
    private final Map<Integer, CloneSession> cloneSessions = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> stats = new ConcurrentHashMap<>();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong transmitted = new AtomicLong();
    private final State ingressState;
    private final long startNanos = System.nanoTime();

    /** The SimpleSumeSwitch architecture, for a program of it (then the fields below are unused). */
    private final SimpleSumeSwitch sume;
    private Expr.LValue ingressPort;
    private Expr.LValue egressSpec;
    private Expr.LValue egressPort;
    private Expr.LValue instanceType;
    private Expr.LValue packetLength;
    private Expr.LValue mcastGrp;
    private Expr.LValue egressRid;
    private Expr.LValue parserError;
    private Expr.LValue ingressTimestamp;
    private Expr.LValue egressTimestamp;

    public V1ModelSwitch(Program program) {
        this.program = program;
        this.ingressState = program.newState();
        if (program.architecture == Program.Architecture.SUME) {
            this.sume = new SimpleSumeSwitch(program, ingressState, this::count);
            return;
        }
        this.sume = null;
        this.ingressPort = program.standardField("ingress_port");
        this.egressSpec = program.standardField("egress_spec");
        this.egressPort = program.standardField("egress_port");
        this.instanceType = program.standardField("instance_type");
        this.packetLength = program.standardField("packet_length");
        this.mcastGrp = program.standardField("mcast_grp");
        this.egressRid = program.standardField("egress_rid");
        this.parserError = program.standardField("parser_error");
        this.ingressTimestamp = program.standardField("ingress_global_timestamp");
        this.egressTimestamp = program.standardField("egress_global_timestamp");
    }

    /** The port a SimpleSumeSwitch program's DMA bits stand for (v1model programs name it themselves). */
    public void setCpuPort(int port) {
        if (sume != null) {
            sume.setCpuPort(port);
        }
    }

    /** The origin of the timestamps in standard_metadata (System.nanoTime()). */
    public long startNanos() {
        return startNanos;
    }

    public void setMulticastGroup(int group, List<Replica> replicas) {
        multicastGroups.put(group, List.copyOf(replicas));
    }

    public boolean removeMulticastGroup(int group) {
        return multicastGroups.remove(group) != null;
    }

    public Map<Integer, List<Replica>> multicastGroups() {
        return new TreeMap<>(multicastGroups);
    }

    public void setCloneSession(int session, List<Replica> replicas, int packetLength) {
        cloneSessions.put(session, new CloneSession(List.copyOf(replicas), packetLength));
    }

    public boolean removeCloneSession(int session) {
        return cloneSessions.remove(session) != null;
    }

    public Set<Integer> cloneSessions() {
        return new TreeSet<>(cloneSessions.keySet());
    }

    /** Counts of what happened to packets: rx, tx, and drops by reason. */
    public Map<String, Long> stats() {
        Map<String, Long> out = new TreeMap<>();
        stats.forEach((k, v) -> out.put(k, v.get()));
        out.put("rx", received.get());
        out.put("tx", transmitted.get());
        return out;
    }

    private void count(String what) {
        stats.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
    }

    /**
     * Takes the frames a packet produces, one call each, while {@link #process(int, byte[], int, Frames)}
     * runs: {@code frame}'s first {@code length} bytes, in a buffer the switch reuses afterwards.
     */
    public interface Frames {
        void frame(int port, byte[] frame, int length);
    }

    private static final class Pass {
        final byte[] data;
        final int length;
        final int port;
        final int instance;
        final State preservedFrom;
        final int fieldList;

        Pass(byte[] data, int length, int port, int instance, State preservedFrom, int fieldList) {
            this.data = data;
            this.length = length;
            this.port = port;
            this.instance = instance;
            this.preservedFrom = preservedFrom;
            this.fieldList = fieldList;
        }
    }

    /** The frame an egress pass hands on, reused packet after packet (a new array each was a cache miss each). */
    private byte[] frameBuffer = new byte[2048];
    /** The passes and copies of the packet being processed, reused packet after packet. */
    private final Deque<Pass> ingressQueue = new ArrayDeque<>();
    private final Deque<State> egressQueue = new ArrayDeque<>();

    /** Processes one packet that arrived on {@code port}; returns the packets it produces. */
    public synchronized List<Output> process(int port, byte[] data) {
        List<Output> out = new ArrayList<>(1);
        process(port, data, data.length, (p, frame, length) -> out.add(new Output(p, Arrays.copyOf(frame, length))));
        return out;
    }

    /**
     * Processes the packet in {@code data}'s first {@code length} bytes, which arrived on {@code port},
     * handing each packet it produces to {@code frames}. The data plane's way: the caller may reuse
     * {@code data} once this returns, and no frame is allocated.
     */
    public synchronized void process(int port, byte[] data, int length, Frames frames) {
        received.incrementAndGet();
        if (sume != null) {
            for (Output o : sume.process(port, length == data.length ? data : Arrays.copyOf(data, length))) {
                transmitted.incrementAndGet();
                frames.frame(o.port, o.data, o.data.length);
            }
            return;
        }
        // Cleared here too: a pass that failed with an exception leaves its queues as they were.
        Deque<Pass> ingressQueue = this.ingressQueue;
        Deque<State> egressQueue = this.egressQueue;
        ingressQueue.clear();
        egressQueue.clear();
        ingressQueue.add(new Pass(data, length, port, NORMAL, null, -1));
        int ingressPasses = 0;
        int egressPasses = 0;
        while (!ingressQueue.isEmpty()) {
            if (++ingressPasses > MAX_INGRESS_PASSES) {
                count("drop: resubmit/recirculate limit");
                break;
            }
            Pass pass = ingressQueue.poll();
            State s = ingressState;
            ingress(s, pass);
            State unicast = replicate(s, pass, egressQueue, ingressQueue);
            if (unicast != null) {
                egressPasses++;
                egress(unicast, frames, egressQueue, ingressQueue);
            }
            while (!egressQueue.isEmpty()) {
                if (++egressPasses > MAX_EGRESS_PASSES) {
                    count("drop: replication limit");
                    egressQueue.clear();
                    break;
                }
                egress(egressQueue.poll(), frames, egressQueue, ingressQueue);
            }
        }
    }

    private void ingress(State s, Pass pass) {
        s.reset();
        s.usePacket(pass.data, pass.length);
        if (!parse(s, pass)) {
            count("parser error: " + errorName(s.parserError));
        }
        program.ingressCode.exec(s);
    }

    /**
     * Everything before ingress, on {@code s} holding {@code pass}'s packet: its metadata, the parser
     * and verifyChecksum. An I2E clone goes through it again, as simple_switch parses a clone anew.
     * False on a parser error.
     */
    private boolean parse(State s, Pass pass) {
        if (pass.preservedFrom != null) {
            preserve(pass.preservedFrom, s, pass.fieldList);
        }
        ingressPort.set(s, pass.port);
        instanceType.set(s, pass.instance);
        packetLength.set(s, pass.length);
        ingressTimestamp.set(s, (System.nanoTime() - startNanos) / 1000);
        boolean parsed = program.parser.run(s);
        if (!parsed) {
            parserError.set(s, s.parserError);
        }
        s.exiting = false;
        program.verifyChecksumCode.exec(s);
        s.exiting = false;
        return parsed;
    }

    private String errorName(int code) {
        return code >= 0 && code < program.errors.size() ? program.errors.get(code) : String.valueOf(code);
    }

    /**
     * Applies the ingress decisions. Returns the state to run egress on directly for a plain
     * unicast packet (no copy needed); queues copies for clones and multicast.
     */
    private State replicate(State s, Pass original, Deque<State> egressQueue, Deque<Pass> ingressQueue) {
        if (s.cloneType == CLONE_I2E && s.cloneSession >= 0) {
            CloneSession session = cloneSessions.get(s.cloneSession);
            if (session == null) {
                count("clone to unknown session");
            } else {
                for (Replica r : session.replicas) {
                    State c = program.newState();
                    c.setPacket(original.data, original.length);
                    parse(c, original);   // simple_switch parses an I2E clone again: egress sees the packet as received
                    cutTo(c, session);
                    preserve(s, c, s.cloneFieldList);
                    instanceType.set(c, INGRESS_CLONE);
                    packetLength.set(c, original.length);
                    egressPort.set(c, r.port);
                    egressRid.set(c, r.instance);
                    ingressPort.set(c, ingressPort.eval(s));
                    egressQueue.add(c);
                }
            }
        }
        if (s.resubmitFieldList >= 0) {
            ingressQueue.add(new Pass(original.data, original.length, (int) ingressPort.eval(s), RESUBMITTED, copyOf(s),
                    s.resubmitFieldList));
            return null;
        }
        long group = mcastGrp.eval(s);
        if (group != 0) {
            List<Replica> replicas = multicastGroups.get((int) group);
            if (replicas == null) {
                count("drop: unknown multicast group");
                return null;
            }
            for (Replica r : replicas) {
                State c = copyOf(s);
                egressPort.set(c, r.port);
                egressRid.set(c, r.instance);
                instanceType.set(c, REPLICATION);
                egressQueue.add(c);
            }
            return null;
        }
        long spec = egressSpec.eval(s);
        if (spec == DROP_PORT) {
            count("drop: ingress");
            return null;
        }
        egressPort.set(s, spec);
        instanceType.set(s, NORMAL);   // as simple_switch sets it before a unicast copy's egress, resubmitted or not
        return s;
    }

    private void egress(State e, Frames frames, Deque<State> egressQueue, Deque<Pass> ingressQueue) {
        e.cloneType = -1;
        e.cloneSession = -1;
        e.recirculateFieldList = -1;
        e.exiting = false;
        // As in simple_switch: egress starts with egress_spec 0, so that only a mark_to_drop in
        // egress drops the packet (a replica of a packet dropped in ingress still leaves).
        egressSpec.set(e, 0);
        egressTimestamp.set(e, (System.nanoTime() - startNanos) / 1000);
        program.egressCode.exec(e);
        if (e.cloneType == CLONE_E2E && e.cloneSession >= 0) {
            CloneSession session = cloneSessions.get(e.cloneSession);
            if (session == null) {
                count("clone to unknown session");
            } else {
                for (Replica r : session.replicas) {
                    State c = program.newState();
                    c.setPacket(e.packet, e.packetLength);
                    cutTo(c, session);
                    c.cursorBits = e.cursorBits;
                    copyHeaders(e, c);
                    preserve(e, c, e.cloneFieldList);
                    instanceType.set(c, EGRESS_CLONE);
                    packetLength.set(c, packetLength.eval(e));
                    egressPort.set(c, r.port);
                    egressRid.set(c, r.instance);
                    egressQueue.add(c);
                }
            }
        }
        if (egressSpec.eval(e) == DROP_PORT) {
            count("drop: egress");
            return;
        }
        e.exiting = false;
        program.computeChecksumCode.exec(e);
        e.outLength = 0;
        e.exiting = false;
        program.deparserCode.exec(e);
        int length = e.frameLength();
        if (e.truncateLength >= 0 && e.truncateLength < length) {
            length = e.truncateLength;
        }
        if (e.cloneCut >= 0 && e.cloneCut < length) {
            length = e.cloneCut;
        }
        if (e.recirculateFieldList >= 0) {
            byte[] bytes = e.frame(length);
            ingressQueue.add(new Pass(bytes, length, (int) egressPort.eval(e), RECIRCULATED, copyOf(e), e.recirculateFieldList));
            return;
        }
        transmitted.incrementAndGet();
        if (frameBuffer.length < length) {
            frameBuffer = new byte[Math.max(length, 2 * frameBuffer.length)];
        }
        e.copyFrame(frameBuffer, length);
        frames.frame((int) egressPort.eval(e), frameBuffer, length);
    }

    /** A clone leaves cut to its session's packet_length_bytes, whatever truncate() its egress calls. */
    private static void cutTo(State clone, CloneSession session) {
        if (session.packetLength > 0) {
            clone.cloneCut = session.packetLength;
        }
    }

    private void copyHeaders(State from, State to) {
        int[] base = program.headers.fixedBase();
        System.arraycopy(from.n, base[0], to.n, base[0], program.headers.type.narrowSlots());
        System.arraycopy(from.w, base[1], to.w, base[1], program.headers.type.wideSlots());
    }

    private State copyOf(State s) {
        State c = program.newState();
        System.arraycopy(s.n, 0, c.n, 0, s.n.length);
        System.arraycopy(s.w, 0, c.w, 0, s.w.length);
        c.setPacket(s.packet, s.packetLength);
        c.cursorBits = s.cursorBits;
        c.truncateLength = s.truncateLength;   // truncate() in ingress applies to every copy
        return c;
    }

    /** Copies the user-metadata fields of a @field_list from one pass to the next. */
    private void preserve(State from, State to, int fieldList) {
        List<Expr> fields = program.fieldLists.get(fieldList);
        if (fields == null) {
            return;
        }
        for (Expr f : fields) {
            if (f instanceof Expr.Slot) {
                int i = ((Expr.Slot) f).index;
                to.n[i] = from.n[i];
            } else if (f instanceof Expr.WideSlot) {
                int i = ((Expr.WideSlot) f).index;
                to.w[i] = from.w[i];
            } else if (f instanceof Expr.Agg) {
                int[] b = ((Expr.Agg) f).fixedBase();
                System.arraycopy(from.n, b[0], to.n, b[0], f.type.narrowSlots());
                System.arraycopy(from.w, b[1], to.w, b[1], f.type.wideSlots());
            }
        }
    }
}
