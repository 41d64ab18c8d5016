package org.nat64fabric.controller;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.nat64fabric.controller.DurableNatStore.Recovery;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.control.Nat64Fabric;
import org.nat64fabric.core.control.SwitchLink;
import org.nat64fabric.core.event.NatEvent;
import org.nat64fabric.core.fabric.Entity;
import org.nat64fabric.core.store.InMemoryNatStore;
import org.nat64fabric.core.store.NatStore;

/**
 * Session setups per second of the controller's own setup path, without switches: packet-ins of
 * new UDP flows go into {@link Nat64Fabric} wired as {@link Main} wires it (a setup thread, a
 * writer pool, the durable store and the NAT event log in a temporary directory), and one border
 * switch that takes every write at once. A setup counts when its packet comes back (packet-out),
 * that is after its state is committed ({@code synchronous=FULL}) and written to the switch.
 *
 * <p>Load: {@code SUBSCRIBERS} IPv6 hosts ({@code 2001:db8:1::/64}, each its own /128 subscriber)
 * take turns sending the first packet of a new flow (a source port of its own) to
 * {@code 2001:db8:64::198.51.100.7}; at most {@value #OUTSTANDING} packets wait at a time, as a
 * switch's punts queue at a busy controller. Pool4 and limits are those of {@code bench/setup/}.
 * After a warm-up of {@code WARMUP} flows (JIT), {@code ROUNDS} rounds of {@code FLOWS} flows each,
 * on the same store (it grows, as a running controller's does); one line per round, then the
 * medians: setups per second, and the process's CPU time per setup (all threads: setup, commit,
 * event log, GC, JIT, and the bench's own sending), which other load on a shared machine disturbs
 * less than the rate; and that CPU time by thread (from /proc: Linux only).
 *
 * <p>Not a JUnit test (surefire runs only *Test classes). Run, from the repository root, with the
 * JVM's default options as {@code bin/nat64fabric-controller} runs it (package compiles the test
 * classes and copies the dependencies, core's jar among them, to controller/target/lib):
 * <pre>
 * mvn -q -o package -DskipTests -pl core,controller
 * java -cp 'controller/target/test-classes:controller/target/classes:controller/target/lib/*' \
 *     org.nat64fabric.controller.SetupThroughputBench [durable|memory] [SUBSCRIBERS] [FLOWS] [ROUNDS] [WARMUP] [EAMS]
 * </pre>
 * Defaults: durable 1000 50000 5 100000 0 (about a minute); {@code EAMS} entries in the EAMT, none
 * of which a flow's destination falls in. Each round's flows start again at the first subscriber:
 * with {@code FLOWS} at least {@code SUBSCRIBERS}, the first round opens a first block for every
 * subscriber the warm-up did not reach. {@code memory} uses core's in-memory
 * store and no event log, for comparison. The state directory is under {@code java.io.tmpdir}
 * (so on its disk) and is deleted at the end. The machine's other load shows in the rounds: run
 * it several times, and compare versions run alternately.
 */
public final class SetupThroughputBench {
    private static final int OUTSTANDING = 8192;
    /** The process's CPU time: on a shared machine steadier than the rate, which other load slows. */
    private static final OperatingSystemMXBean CPU =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final String CONFIG = "{\"apps\": {\"org.nat64fabric.app\": {\"nat64\": {"
            + "\"pool6\": \"2001:db8:64::/96\","
            + "\"pool4\": {\"addresses\": [\"192.0.2.0/24\"], \"blockSize\": 512, \"blocksPerSubscriber\": 64},"
            + "\"maxSessionsPerSubscriber\": 1000000}}},"
            + "\"devices\": {\"border1\": {\"nat64fabric\": {\"role\": \"BORDER\","
            + " \"routerMac\": \"00:00:00:00:b1:01\", \"ipv4\": \"192.0.2.255\", \"ipv6\": \"2001:db8:ff::1\","
            + " \"routes\": ["
            + "{\"prefix\": \"2001:db8:1::/64\", \"port\": 1, \"nextHopMac\": \"00:00:00:00:01:10\"},"
            + "{\"prefix\": \"198.51.100.0/24\", \"port\": 2, \"nextHopMac\": \"00:00:00:00:02:10\"}]}}}}";

    /** A border switch that takes every write at once and hands each packet-out back to the bench. */
    private static final class InstantSwitch implements SwitchLink {
        private final Runnable packetOut;

        InstantSwitch(Runnable packetOut) {
            this.packetOut = packetOut;
        }

        @Override
        public String deviceId() {
            return "border1";
        }

        @Override
        public void write(List<Update> updates) {
        }

        @Override
        public List<Entity> read() {
            return List.of();
        }

        @Override
        public void packetOut(byte[] frame) {
            packetOut.run();
        }

        @Override
        public void packetOut(byte[] frame, int port) {
            packetOut.run();
        }
    }

    private SetupThroughputBench() {
    }

    public static void main(String[] args) throws Exception {
        boolean durable = !(args.length > 0 && args[0].equals("memory"));
        int subscribers = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int flows = args.length > 2 ? Integer.parseInt(args[2]) : 50_000;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        int warmup = args.length > 4 ? Integer.parseInt(args[4]) : 100_000;
        int eams = args.length > 5 ? Integer.parseInt(args[5]) : 0;
        Path dir = Files.createTempDirectory("nat64fabric-setup-bench");
        ExecutorService setups = Executors.newSingleThreadExecutor(r -> new Thread(r, "fabric-setups"));
        ExecutorService writers = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fabric-writes");
            t.setDaemon(true);
            return t;
        });
        DurableNatStore durableStore = null;
        EventLog eventLog = null;
        try {
            NatStore store;
            Consumer<NatEvent> log;
            if (durable) {
                durableStore = DurableNatStore.open(dir.resolve("state"), dir.resolve("state/rest-credentials"),
                        Recovery.NONE);
                eventLog = new EventLog(dir.resolve("nat-events.log"));
                store = durableStore;
                log = eventLog;
            } else {
                store = new InMemoryNatStore();
                log = e -> { };
            }
            FabricConfig config = FabricConfig.parse(new ObjectMapper().readTree(withEams(eams)));
            Nat64Fabric fabric = new Nat64Fabric(config, store, log, System::currentTimeMillis, setups, writers);
            Semaphore outstanding = new Semaphore(OUTSTANDING);
            AtomicLong back = new AtomicLong();
            fabric.connected(new InstantSwitch(() -> {
                back.incrementAndGet();
                outstanding.release();
            }));
            System.out.printf("store=%s subscribers=%d flows_per_round=%d rounds=%d warmup=%d eams=%d dir=%s%n",
                    durable ? "durable" : "memory", subscribers, flows, rounds, warmup, eams, dir);
            int[] nextPort = new int[subscribers];
            run(fabric, outstanding, back, frames(subscribers, warmup, nextPort));
            Map<String, Long> threadsBefore = threadCpu();
            Map<String, Long> allocatedBefore = threadAllocated();
            double[] rates = new double[rounds];
            double[] cpu = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                byte[][] frames = frames(subscribers, flows, nextPort);
                long cpuBefore = CPU.getProcessCpuTime();
                rates[r] = run(fabric, outstanding, back, frames);
                cpu[r] = (CPU.getProcessCpuTime() - cpuBefore) / 1e3 / flows;
                System.out.printf("round %d: %.0f setups/s, %.1f µs CPU per setup (%d sessions held)%n", r + 1,
                        rates[r], cpu[r], store.sessions().size());
            }
            Map<String, Long> stats = fabric.stats();
            long failed = Stream.of("setups.refused", "setups.dropped", "setups.failed", "setups.queueFull",
                    "packetIn.unparsed").mapToLong(k -> stats.getOrDefault(k, 0L)).sum();
            System.out.println("CPU per setup by thread over the rounds (µs): " + perSetup(threadsBefore, threadCpu(),
                    1e3 * flows * rounds));
            System.out.println("bytes allocated per setup by thread over the rounds: "
                    + perSetup(allocatedBefore, threadAllocated(), (double) flows * rounds));
            Arrays.sort(rates);
            Arrays.sort(cpu);
            System.out.printf("median: %.0f setups/s, %.1f µs CPU per setup; %d batches, %d not set up%n",
                    rates[rounds / 2], cpu[rounds / 2], stats.getOrDefault("setups.batches", 0L), failed);
        } finally {
            setups.shutdown();
            setups.awaitTermination(10, TimeUnit.SECONDS);
            if (durableStore != null) {
                durableStore.close();
            }
            if (eventLog != null) {
                eventLog.close();
            }
            delete(dir);
        }
    }

    /** Sends the frames as packet-ins, at most OUTSTANDING waiting; setups/s until the last came back. */
    private static double run(Nat64Fabric fabric, Semaphore outstanding, AtomicLong back, byte[][] frames)
            throws InterruptedException {
        long target = back.get() + frames.length;
        long start = System.nanoTime();
        for (byte[] f : frames) {
            outstanding.acquire();
            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, f);
        }
        if (!outstanding.tryAcquire(OUTSTANDING, 60, TimeUnit.SECONDS)) {   // every packet back
            throw new IllegalStateException((target - back.get()) + " packets did not come back within 60 s");
        }
        outstanding.release(OUTSTANDING);
        double seconds = (System.nanoTime() - start) / 1e9;
        return frames.length / seconds;
    }

    /**
     * CPU time (ns) by thread name, numbers dropped ("GC Thread#0" and "GC Thread#1" are one), of
     * every thread of the process, the JVM's own (GC, JIT) too: read from /proc, so on Linux only.
     */
    private static Map<String, Long> threadCpu() throws IOException {
        Map<String, Long> out = new TreeMap<>();
        long nsPerTick = 1_000_000_000L / 100;   // USER_HZ
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
                            .replaceAll("[#-]?[0-9]+$", "").trim();
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    out.merge(name, (Long.parseLong(f[11]) + Long.parseLong(f[12])) * nsPerTick, Long::sum);
                } catch (IOException gone) {
                    // the thread ended meanwhile
                }
            }
        }
        return out;
    }

    /**
     * Bytes allocated on the heap by thread name, numbers dropped as in {@link #threadCpu}, of the
     * live threads: what makes the young collections come, as often as allocation fills the young
     * generation.
     */
    private static Map<String, Long> threadAllocated() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] ids = threads.getAllThreadIds();
        long[] bytes = threads.getThreadAllocatedBytes(ids);
        Map<String, Long> out = new TreeMap<>();
        java.lang.management.ThreadInfo[] infos = threads.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++) {
            if (infos[i] != null && bytes[i] >= 0) {
                out.merge(infos[i].getThreadName().replaceAll("[#-]?[0-9]+$", "").trim(), bytes[i], Long::sum);
            }
        }
        return out;
    }

    /**
     * The threads whose count grew by at least 1 per setup between the two readings (CPU: µs;
     * allocation: bytes), busiest first; {@code divisor} turns a count's growth into that unit.
     */
    private static String perSetup(Map<String, Long> before, Map<String, Long> after, double divisor) {
        StringBuilder out = new StringBuilder();
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), (e.getValue() - before.getOrDefault(e.getKey(), 0L)) / divisor))
                .filter(e -> e.getValue() >= 1).sorted(Map.Entry.comparingByValue(Comparator.reverseOrder()))
                .forEach(e -> out.append(String.format("%s %.1f, ", e.getKey(), e.getValue())));
        return out.length() == 0 ? "none" : out.substring(0, out.length() - 2);
    }

    /**
     * {@link #CONFIG} with an EAMT of {@code n} entries (2001:db8:e:N::/120 to 10.x.y.0/24), none of
     * which the flows' destination falls in: every setup looks it up, and goes on to pool6.
     */
    private static String withEams(int n) {
        StringBuilder eamt = new StringBuilder("\"eamt\": [");
        for (int i = 0; i < n; i++) {
            eamt.append(i == 0 ? "" : ",").append(String.format("{\"ipv6Prefix\": \"2001:db8:e:%x::/120\","
                    + " \"ipv4Prefix\": \"10.%d.%d.0/24\"}", i, i / 256, i % 256));
        }
        return CONFIG.replace("\"pool6\":", eamt + "], \"pool6\":");
    }

    /** New UDP flows, subscribers taking turns, each from the subscriber's next source port. */
    private static byte[][] frames(int subscribers, int count, int[] nextPort) {
        byte[] destination = Ipv6Address.parse("2001:db8:64::c633:6407", "dst").toBytes();
        byte[][] out = new byte[count][];
        for (int i = 0; i < count; i++) {
            int s = i % subscribers;
            int port = 1024 + nextPort[s]++;
            if (port > 65535) {
                throw new IllegalArgumentException("more than 64 512 flows per subscriber: use more subscribers");
            }
            ByteBuffer b = ByteBuffer.allocate(14 + 40 + 8 + 4);
            b.put(new byte[12]).putShort((short) 0x86dd);
            b.putInt(0x60000000).putShort((short) 12).put((byte) 17).put((byte) 64);
            b.put(Ipv6Address.of(0x20010db800010000L, 2 + s).toBytes());
            b.put(destination);
            b.putShort((short) port).putShort((short) 53).putShort((short) 12).putShort((short) 0);
            b.putInt(i);
            out[i] = b.array();
        }
        return out;
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
