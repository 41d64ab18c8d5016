package org.nat64fabric.softswitch.server;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.nat64fabric.softswitch.ebpf.FastPath;
import org.nat64fabric.softswitch.pipeline.ActionProfile;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.sim.Pcap;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.v1.P4RuntimeOuterClass.DigestList;
import p4.v1.P4RuntimeOuterClass.DigestListAck;
import p4.v1.P4RuntimeOuterClass.IdleTimeoutNotification;
import p4.v1.P4RuntimeOuterClass.PacketIn;
import p4.v1.P4RuntimeOuterClass.PacketOut;
import p4.v1.P4RuntimeOuterClass.TableEntry;

/**
 * One switch: its ports, its CPU port and the forwarding pipeline it runs. Packets from ports and
 * packet-outs go through the pipeline; what leaves on the CPU port becomes a packet-in. It looks
 * at its ports' links every {@value #PORT_SCAN_MS} ms, for the group members that watch one.
 */
public final class Device implements AutoCloseable, ActionProfile.PortLiveness {
    private static final Logger LOG = Logger.getLogger("softswitch");
    private static final long IDLE_SCAN_MS = 100;
    /** How often digest lists waiting for their max_timeout_ns are looked at. */
    private static final long DIGEST_TICK_MS = 5;
    /** How often the ports' links are looked at (a watched port's failover takes up to this). */
    private static final long PORT_SCAN_MS = 100;

    /** Where packets leave the switch: {@code send} may queue, {@code flush} sends what is queued. */
    public interface Port {
        /** Sends {@code frame}'s first {@code length} bytes; the caller reuses {@code frame} afterwards. */
        void send(byte[] frame, int length);

        default void flush() {
        }

        /** The port as the kernel fast path sees it, or null when it has no Linux interface. */
        default FastPath.Port kernelPort(int number) {
            return null;
        }

        /** Whether the port is up with a link (carrier); one without a Linux interface always is. */
        default boolean isUp() {
            return true;
        }
    }

    public final long deviceId;
    public final int cpuPort;
    private final Map<Integer, Port> ports = new ConcurrentHashMap<>();
    /** The ports whose link was up when last looked at, and a count of the changes seen. */
    private final Map<Integer, Boolean> portsUp = new ConcurrentHashMap<>();
    private final AtomicLong portChanges = new AtomicLong();
    private final Map<Integer, Pcap.Writer[]> captures = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timers;   // idle timeouts, digest lists, port links
    private final long startMicros = System.currentTimeMillis() * 1000;
    private final long startNanos = System.nanoTime();
    private volatile Pipeline pipeline;
    /** How to run programs in the kernel too (null: interpreter only), and the fast path of the current pipeline. */
    private volatile FastPath.Mode fastPathMode;
    private boolean fastPathDebug;
    private FastPath fastPath;
    private volatile Consumer<PacketIn> packetIns = p -> count("packet-in: no controller");
    /** Where idle-timeout notifications go; the sink says whether a controller took one. */
    private volatile Predicate<IdleTimeoutNotification> idleNotifications = n -> false;
    private volatile Predicate<DigestList> digestLists = l -> {
        count("digest list: no controller");
        return false;
    };

    public Device(long deviceId, int cpuPort) {
        this.deviceId = deviceId;
        this.cpuPort = cpuPort;
        this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "device-timers");
            t.setDaemon(true);
            return t;
        });
        timers.scheduleWithFixedDelay(this::scanIdleEntries, IDLE_SCAN_MS, IDLE_SCAN_MS, TimeUnit.MILLISECONDS);
        timers.scheduleWithFixedDelay(this::flushDigests, DIGEST_TICK_MS, DIGEST_TICK_MS, TimeUnit.MILLISECONDS);
        timers.scheduleWithFixedDelay(this::scanPorts, PORT_SCAN_MS, PORT_SCAN_MS, TimeUnit.MILLISECONDS);
    }

    public void addPort(int number, Port port) {
        portsUp.put(number, port.isUp());
        ports.put(number, port);
        portChanges.incrementAndGet();
    }

    /** A port the switch has no link on is down. */
    @Override
    public boolean isUp(int port) {
        return portsUp.getOrDefault(port, false);
    }

    @Override
    public long version() {
        return portChanges.get();
    }

    private void scanPorts() {
        for (Map.Entry<Integer, Port> e : ports.entrySet()) {
            boolean up = e.getValue().isUp();
            Boolean before = portsUp.put(e.getKey(), up);
            if (before == null || before != up) {
                portChanges.incrementAndGet();
                LOG.info("port " + e.getKey() + " is " + (up ? "up" : "down"));
            }
        }
    }

    /** Writes DIR/portN_in.pcap and DIR/portN_out.pcap for every port, as simple_switch --pcap does. */
    public void capture(Path dir, int port) throws IOException {
        captures.put(port, new Pcap.Writer[] {
            new Pcap.Writer(dir.resolve("port" + port + "_in.pcap")),
            new Pcap.Writer(dir.resolve("port" + port + "_out.pcap"))});
    }

    Pipeline pipeline() {
        return pipeline;
    }

    /** Runs every pipeline in the kernel as well, at XDP on the ports added so far (see {@link FastPath}). */
    public void enableFastPath(FastPath.Mode mode, boolean debugLogging) {
        fastPathMode = mode;
        fastPathDebug = debugLogging;
        Pipeline p = pipeline;
        if (p != null) {
            startFastPath(p);
        }
    }

    /**
     * A new pipeline; with a fast path, it is compiled and attached before this returns (so a
     * controller that pushed a pipeline knows the kernel runs it), the interpreter having every
     * packet meanwhile.
     */
    void setPipeline(Pipeline p) {
        Pipeline old = pipeline;
        p.sw.setCpuPort(cpuPort);
        p.entities.digests().sendTo(list -> {
            count("digest lists");
            return digestLists.test(list);
        });
        pipeline = p;
        if (fastPathMode != null && (old == null || old.sw != p.sw)) {
            stopFastPath();
            startFastPath(p);
        }
    }

    /** Compiles and attaches the pipeline's fast path; if it cannot, says why once and the interpreter has every packet. */
    private void startFastPath(Pipeline p) {
        List<FastPath.Port> kernelPorts = new ArrayList<>();
        for (Map.Entry<Integer, Port> e : new TreeMap<>(ports).entrySet()) {
            FastPath.Port k = e.getValue().kernelPort(e.getKey());
            if (k == null || captures.containsKey(e.getKey())) {
                LOG.warning("fast path off: port " + e.getKey() + (k == null ? " has no Linux interface"
                        : " is captured (--pcap records every packet, so the interpreter keeps them)"));
                return;
            }
            kernelPorts.add(k);
        }
        try {
            long t0 = System.nanoTime();
            FastPath.Compiled compiled = FastPath.compile(p.sw.program, fastPathMode, fastPathDebug);
            synchronized (p.sw) {
                synchronized (this) {
                    if (pipeline == null || pipeline.sw != p.sw) {
                        return;   // replaced while compiling
                    }
                    fastPath = FastPath.start(compiled, fastPathMode, kernelPorts, cpuPort, p.sw.startNanos());
                }
            }
            LOG.info("fast path: " + fastPath + ", ready in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        } catch (FastPath.Unavailable e) {
            LOG.warning("fast path off, the interpreter runs every packet: " + e.getMessage());
        }
    }

    /** Whether the kernel fast path forwards packets now. */
    synchronized boolean fastPathRunning() {
        return fastPath != null;
    }

    /** Detaches the fast path; what it counted stays in the device's counters. */
    private synchronized void stopFastPath() {
        if (fastPath != null) {
            fastPath.stats().forEach((k, v) -> counters.computeIfAbsent(k, x -> new LongAdder()).add(v));
            fastPath.close();
            fastPath = null;
        }
    }

    void onPacketIn(Consumer<PacketIn> sink) {
        packetIns = sink;
    }

    void onIdleTimeout(Predicate<IdleTimeoutNotification> sink) {
        idleNotifications = sink;
    }

    /** Where digest lists go; the sink says whether a controller took one. */
    void onDigestList(Predicate<DigestList> sink) {
        digestLists = sink;
    }

    /** A DigestListAck from the primary; false when the pipeline has no such digest. */
    boolean digestAck(DigestListAck ack) {
        Pipeline p = pipeline;
        return p != null && p.entities.digests().ack(ack);
    }

    /** Sends the digest lists whose max_timeout_ns has passed; frees data whose ack timed out. */
    private void flushDigests() {
        Pipeline p = pipeline;
        try {
            if (p != null) {
                p.entities.digests().flushDue(System.nanoTime());
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "digest flush failed", e);
        }
    }

    /** A frame received on a port; the caller flushes the ports after a batch. */
    public void receive(int port, byte[] frame, int length) {
        capture(port, 0, frame, length);
        Pipeline p = pipeline;
        if (p == null) {
            count("drop: no pipeline");
            return;
        }
        process(p, port, frame, length, false);
    }

    /** A packet-out from the primary controller: the packet_out header is prepended, it enters on the CPU port. */
    void packetOut(PacketOut po) {
        Pipeline p = pipeline;
        if (p == null) {
            throw new IllegalStateException("no forwarding pipeline is set");
        }
        byte[] frame;
        if (p.packetOut != null) {
            frame = p.packetOut.encode(po.getMetadataList(), po.getPayload());
        } else if (po.getMetadataCount() > 0) {
            throw new IllegalArgumentException("the program has no @controller_header(\"packet_out\") header: "
                    + "a packet-out carries no metadata");
        } else {
            frame = po.getPayload().toByteArray();   // as PI does: the payload alone enters on the CPU port
        }
        count("packet-out");
        // A packet-out comes from no port, so no data-plane loop flushes after it: it flushes where it goes.
        process(p, cpuPort, frame, frame.length, true);
    }

    /** {@code flush}: flush each port the packet leaves on (the data plane flushes after a batch instead). */
    private void process(Pipeline p, int port, byte[] frame, int length, boolean flush) {
        try {
            p.sw.process(port, frame, length, (outPort, out, outLength) -> {
                if (outPort == cpuPort) {
                    toController(p, Arrays.copyOf(out, outLength));
                    return;
                }
                Port dst = ports.get(outPort);
                if (dst == null) {
                    count("drop: no port " + outPort);
                    return;
                }
                capture(outPort, 1, out, outLength);
                dst.send(out, outLength);
                if (flush) {
                    dst.flush();
                }
            });
        } catch (RuntimeException e) {
            // The interpreter must never fail on a packet; if it does, lose the packet, not the switch
            // (the frames it made before failing are sent).
            count("drop: internal error");
            LOG.log(Level.WARNING, "packet from port " + port + " caused an internal error", e);
        }
    }

    private void toController(Pipeline p, byte[] data) {
        PacketIn.Builder b = PacketIn.newBuilder();
        if (p.packetIn != null) {
            var metadata = p.packetIn.decode(data);
            if (metadata == null) {
                count("drop: packet-in shorter than its header");
                return;
            }
            b.addAllMetadata(metadata).setPayload(p.packetIn.payload(data));
        } else {
            b.setPayload(com.google.protobuf.ByteString.copyFrom(data));
        }
        count("packet-in");
        packetIns.accept(b.build());
    }

    private void capture(int port, int direction, byte[] frame, int length) {
        Pcap.Writer[] w = captures.isEmpty() ? null : captures.get(port);
        if (w != null) {
            try {
                w[direction].write(startMicros + (System.nanoTime() - startNanos) / 1000, frame, length);
            } catch (IOException e) {
                count("capture: write error");
            }
        }
    }

    /**
     * Reports entries of tables with idle timeouts that have not been hit for their timeout, once
     * per timeout period while they stay idle. Only the entries whose check is due are looked at:
     * one not hit is reported and checked again a period later, one hit since is checked again a
     * period after that hit. A report a controller took restarts the entry's timer, and its time
     * since last hit (P4Runtime 9.1.8); one no controller took (none is primary) leaves both, so
     * that a controller that comes later reads how long the entry has really been idle.
     */
    private void scanIdleEntries() {
        Pipeline p = pipeline;
        if (p == null) {
            return;
        }
        try {
            List<TableEntry> idle = new ArrayList<>();
            List<Table.Entry> reported = new ArrayList<>();
            long now = System.nanoTime();
            synchronized (p.sw) {
                for (Table t : p.sw.program.tables) {
                    if (!t.supportTimeout) {
                        continue;
                    }
                    for (Table.Entry e : t.takeIdleChecksDue(now)) {
                        if (t.find(e) != e) {
                            continue;   // deleted since it was scheduled
                        }
                        long lastHit = t.lastHit(e);
                        if (now - lastHit < e.idleTimeoutNs) {
                            t.scheduleIdleCheck(e, lastHit + e.idleTimeoutNs);
                            continue;
                        }
                        idle.add(p.entities.describe(t, e));
                        reported.add(e);
                        t.scheduleIdleCheck(e, now + e.idleTimeoutNs);
                    }
                }
            }
            if (!idle.isEmpty()) {
                count("idle-timeout notifications");
                if (idleNotifications.test(IdleTimeoutNotification.newBuilder().addAllTableEntry(idle)
                        .setTimestamp(System.currentTimeMillis() * 1_000_000L).build())) {
                    synchronized (p.sw) {
                        for (Table.Entry e : reported) {
                            if (now - e.lastHitNanos > 0) {   // not hit since the scan
                                e.lastHitNanos = now;
                            }
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "idle-timeout scan failed", e);
        }
    }

    public void count(String what) {
        add(what, 1);
    }

    public void add(String what, long n) {
        counters.computeIfAbsent(what, k -> new LongAdder()).add(n);
    }

    /** Counters of the device and of its pipeline, by name. */
    public Map<String, Long> stats() {
        Map<String, Long> out = new TreeMap<>();
        counters.forEach((k, v) -> out.put(k, v.sum()));
        Pipeline p = pipeline;
        if (p != null) {
            p.sw.stats().forEach((k, v) -> out.put("pipeline " + k, v));
        }
        synchronized (this) {
            if (fastPath != null) {
                fastPath.stats().forEach((k, v) -> out.merge(k, v, Long::sum));
            }
        }
        return out;
    }

    @Override
    public void close() {
        timers.shutdownNow();
        stopFastPath();
        for (Pcap.Writer[] w : captures.values()) {
            for (Pcap.Writer x : w) {
                try {
                    x.close();
                } catch (IOException e) {
                    LOG.warning("cannot close a capture: " + e.getMessage());
                }
            }
        }
    }
}
