import com.google.protobuf.ByteString;
import com.google.protobuf.TextFormat;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.runtime.Entities;
import org.nat64fabric.softswitch.server.Device;
import org.nat64fabric.softswitch.server.SwitchServer;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.ForwardingPipelineConfig;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.SetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * softswitch at the scale of a million sessions, on p4/nat64.p4 (compiled by run.sh into p4/build):
 *   write  — P4Runtime Write of session_v6 entries over gRPC (loopback, one client), batches of
 *            1000 and 10 000, as the table fills to 1 000 000; entries/s per batch;
 *   memory — heap per installed session entry (used heap after GC, before and after 1 000 000);
 *   lookup — packets/s of the interpreter translating IPv6 UDP through the session path, with a
 *            session table of 1 entry and of 1 000 000, runs interleaved so the shared machine's
 *            noise falls on both alike;
 *   jit    — with JIT_ONLY=1: the 1-entry lookup alone, labelled by how the blocks run (compiled to
 *            JVM bytecode, or -Dsoftswitch.jit=false: the tree interpreter); run.sh alternates them.
 * Prints CSV lines "kind,..." on stdout; run by bench/softswitch/run.sh. -Dsessions=N changes the
 * million; SKIP_WRITE=1 or SKIP_LOOKUP=1 in the environment leaves a part out.
 */
public class SoftswitchBench {
    static final Path P4INFO = Path.of("p4/build/p4info.txt");
    static final Path DEVICE_CONFIG = Path.of("p4/build/device_config.bin");
    static final int MILLION = Integer.getInteger("sessions", 1_000_000);
    static final String T = "Nat64Ingress.translate.";

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2.0;
        P4Info info = TextFormat.parse(Files.readString(P4INFO), P4Info.class);
        ForwardingPipelineConfig pipeline = ForwardingPipelineConfig.newBuilder().setP4Info(info)
                .setP4DeviceConfig(ByteString.copyFrom(Files.readAllBytes(DEVICE_CONFIG))).build();
        if (System.getenv("JIT_ONLY") != null) {
            compiledOrTree(info, seconds);
            return;
        }
        System.out.println("kind,case,value,unit,detail");
        if (System.getenv("SKIP_WRITE") == null) {
            writeRate(info, pipeline, 1000);
            writeRate(info, pipeline, 10_000);
        }
        if (System.getenv("SKIP_LOOKUP") == null) {
            lookupAndMemory(info, seconds);
        }
    }

    // ---- P4Runtime writes ----

    static void writeRate(P4Info info, ForwardingPipelineConfig pipeline, int batch) throws Exception {
        Device device = new Device(1, 255);
        SwitchServer server = SwitchServer.start(device, new InetSocketAddress("127.0.0.1", 0),
                io.grpc.InsecureServerCredentials.create());
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext()
                .maxInboundMessageSize(256 << 20).build();
        try {
            Uint128 election = Uint128.newBuilder().setLow(1).build();
            StreamObserver<StreamMessageRequest> stream = becomePrimary(channel, election);
            P4RuntimeGrpc.P4RuntimeBlockingStub stub = P4RuntimeGrpc.newBlockingStub(channel);
            stub.setForwardingPipelineConfig(SetForwardingPipelineConfigRequest.newBuilder().setDeviceId(1)
                    .setElectionId(election).setAction(SetForwardingPipelineConfigRequest.Action.VERIFY_AND_COMMIT)
                    .setConfig(pipeline).build());
            Sessions s = new Sessions(info);
            List<Double> rates = new ArrayList<>();
            for (int done = 0; done < MILLION; done += batch) {
                WriteRequest.Builder req = WriteRequest.newBuilder().setDeviceId(1).setElectionId(election);
                for (int i = done; i < done + batch; i++) {
                    req.addUpdates(Update.newBuilder().setType(Update.Type.INSERT)
                            .setEntity(Entity.newBuilder().setTableEntry(s.entry(i))));
                }
                WriteRequest w = req.build();
                long t0 = System.nanoTime();
                stub.write(w);
                double rate = batch / ((System.nanoTime() - t0) / 1e9);
                rates.add(rate);
                int filled = done + batch;
                if (filled == batch || filled % 100_000 == 0) {
                    System.out.printf("write_at_fill,batch %d,%.0f,entries/s,table holds %d after this batch%n",
                            batch, rate, filled);
                }
            }
            double[] sorted = rates.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            System.out.printf("write,batch %d,%.0f,entries/s,median of %d batches filling 0 to %d (min %.0f max %.0f)%n",
                    batch, sorted[sorted.length / 2], sorted.length, MILLION, sorted[0], sorted[sorted.length - 1]);
            stream.onCompleted();
        } finally {
            channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
            server.close();
        }
        System.gc();
    }

    static StreamObserver<StreamMessageRequest> becomePrimary(ManagedChannel channel, Uint128 election) throws Exception {
        CompletableFuture<StreamMessageResponse> answer = new CompletableFuture<>();
        StreamObserver<StreamMessageRequest> stream = P4RuntimeGrpc.newStub(channel).streamChannel(
                new StreamObserver<StreamMessageResponse>() {
                    @Override public void onNext(StreamMessageResponse r) { answer.complete(r); }
                    @Override public void onError(Throwable t) { answer.completeExceptionally(t); }
                    @Override public void onCompleted() { }
                });
        stream.onNext(StreamMessageRequest.newBuilder().setArbitration(MasterArbitrationUpdate.newBuilder()
                .setDeviceId(1).setElectionId(election)).build());
        if (answer.get(5, TimeUnit.SECONDS).getArbitration().getStatus().getCode() != 0) {
            throw new IllegalStateException("not primary");
        }
        return stream;
    }

    /** session_v6 entries: session i is UDP from host (i / 1000) port 1024 + i % 1000, to 192.0.2.x, with an idle timeout. */
    static final class Sessions {
        final int table;
        final int snat;
        final P4Info info;

        Sessions(P4Info info) {
            this.info = info;
            this.table = id(info, T + "session_v6");
            this.snat = id(info, T + "snat");
        }

        TableEntry entry(int i) {
            // Five minutes idle, as the controller sets for UDP (RFC 6146 3.5.1).
            TableEntry.Builder b = TableEntry.newBuilder().setTableId(table).setIdleTimeoutNs(300_000_000_000L);
            b.addMatchBuilder().setFieldId(1).getExactBuilder().setValue(bytes(17, 1));
            b.addMatchBuilder().setFieldId(2).getExactBuilder().setValue(bytes(host(i / 1000), 16));
            b.addMatchBuilder().setFieldId(3).getExactBuilder().setValue(bytes(BigInteger.valueOf(port(i)), 2));
            var a = b.getActionBuilder().getActionBuilder().setActionId(snat);
            a.addParamsBuilder().setParamId(1).setValue(bytes(BigInteger.valueOf(0xc0000200L + i % 256), 4));
            a.addParamsBuilder().setParamId(2).setValue(bytes(BigInteger.valueOf(1024 + i % 60000), 2));
            a.addParamsBuilder().setParamId(3).setValue(bytes(BigInteger.ZERO, 1));   // not filtered
            a.addParamsBuilder().setParamId(4).setValue(bytes(BigInteger.ZERO, 1));   // not transitory
            return b.build();
        }

        static int port(int i) {
            return 1024 + i % 1000;
        }

        static BigInteger host(int h) {
            return new BigInteger("20010db8000100000000000000000000", 16).add(BigInteger.valueOf(h + 1));
        }
    }

    static int id(P4Info info, String name) {
        return info.getTablesList().stream().filter(t -> t.getPreamble().getName().equals(name)).map(t -> t.getPreamble().getId())
                .findFirst().orElseGet(() -> info.getActionsList().stream().filter(a -> a.getPreamble().getName().equals(name))
                        .map(a -> a.getPreamble().getId()).findFirst().orElseThrow(() -> new IllegalArgumentException(name)));
    }

    static ByteString bytes(long v, int len) {
        return bytes(BigInteger.valueOf(v), len);
    }

    /** Canonical (shortest) bytes, as P4Runtime 1.3 clients send them. */
    static ByteString bytes(BigInteger v, int len) {
        byte[] b = v.toByteArray();
        int skip = 0;
        while (skip < b.length - 1 && b[skip] == 0) {
            skip++;
        }
        return ByteString.copyFrom(b, skip, b.length - skip);
    }

    // ---- interpreter lookups and memory ----

    static void lookupAndMemory(P4Info info, double seconds) throws Exception {
        Program program = Frontend.compile(Path.of("p4/nat64.p4"));
        Sessions s = new Sessions(info);
        V1ModelSwitch small = switchWith(program, info, s, 1, false);
        long before = usedHeap();
        V1ModelSwitch large = switchWith(program, info, s, MILLION, true);
        long after = usedHeap();
        System.out.printf("memory,session_v6 %d entries,%.0f,bytes/entry,heap after GC grew by %.0f MiB%n",
                MILLION, (after - before) / (double) MILLION, (after - before) / 1048576.0);
        byte[][] oneFlow = packets(1, 1, new Random(3));
        byte[][] manyFlows = packets(MILLION, 65536, new Random(3));
        String[] names = {"1 entry (1 flow)", MILLION + " entries (the same 1 flow)", MILLION + " entries (65536 random flows)"};
        V1ModelSwitch[] switches = {small, large, large};
        byte[][][] traffic = {oneFlow, oneFlow, manyFlows};
        for (int i = 0; i < 3; i++) {
            run(switches[i], traffic[i], seconds);   // warm-up
        }
        double[][] kpps = new double[3][5];
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < 3; i++) {
                kpps[i][round] = run(switches[i], traffic[i], seconds);
            }
        }
        for (int i = 0; i < 3; i++) {
            double[] sorted = kpps[i].clone();
            Arrays.sort(sorted);
            System.out.printf("lookup,%s,%.0f,packets/s,median of 5 interleaved runs %s%n", names[i], sorted[2],
                    Arrays.toString(Arrays.stream(kpps[i]).mapToLong(Math::round).toArray()).replace(",", ""));
        }
    }

    /** The 1-entry lookup: a warm-up, then the median of five runs. */
    static void compiledOrTree(P4Info info, double seconds) throws Exception {
        V1ModelSwitch sw = switchWith(Frontend.compile(Path.of("p4/nat64.p4")), info, new Sessions(info), 1, false);
        byte[][] oneFlow = packets(1, 1, new Random(3));
        run(sw, oneFlow, seconds);
        double[] kpps = new double[5];
        for (int i = 0; i < kpps.length; i++) {
            kpps[i] = run(sw, oneFlow, seconds);
        }
        double[] sorted = kpps.clone();
        Arrays.sort(sorted);
        String how = "false".equals(System.getProperty("softswitch.jit")) ? "tree interpreter" : "compiled to JVM bytecode";
        System.out.printf("jit,1 entry (%s),%.0f,packets/s,median of 5 runs %s%n", how, sorted[2],
                Arrays.toString(Arrays.stream(kpps).mapToLong(Math::round).toArray()).replace(",", ""));
    }

    /** A switch running nat64.p4 with pool6, a route to 198.51.100.0/24 and `sessions` session_v6 entries. */
    static V1ModelSwitch switchWith(Program shared, P4Info info, Sessions s, int sessions, boolean recompile) throws Exception {
        Program program = recompile ? Frontend.compile(Path.of("p4/nat64.p4")) : shared;
        V1ModelSwitch sw = new V1ModelSwitch(program);
        Entities entities = new Entities(sw, info);
        TableEntry.Builder pool6 = TableEntry.newBuilder().setTableId(id(info, T + "pool6"));
        pool6.addMatchBuilder().setFieldId(1).getLpmBuilder()
                .setValue(bytes(new BigInteger("20010db8006400000000000000000000", 16), 16)).setPrefixLen(96);
        pool6.getActionBuilder().getActionBuilder().setActionId(id(info, T + "extract_96"));
        entities.apply(Update.Type.INSERT, Entity.newBuilder().setTableEntry(pool6).build());
        TableEntry.Builder route = TableEntry.newBuilder().setTableId(id(info, "Nat64Ingress.ipv4_routes"));
        route.addMatchBuilder().setFieldId(1).getLpmBuilder().setValue(bytes(0xc6336400L, 4)).setPrefixLen(24);
        var a = route.getActionBuilder().getActionBuilder().setActionId(id(info, "Nat64Ingress.set_next_hop"));
        a.addParamsBuilder().setParamId(1).setValue(bytes(2, 2));
        a.addParamsBuilder().setParamId(2).setValue(bytes(0xa01, 6));
        a.addParamsBuilder().setParamId(3).setValue(bytes(0x4, 6));
        entities.apply(Update.Type.INSERT, Entity.newBuilder().setTableEntry(route).build());
        for (int i = 0; i < sessions; i++) {
            entities.apply(Update.Type.INSERT, Entity.newBuilder().setTableEntry(s.entry(i)).build());
        }
        return sw;
    }

    static long usedHeap() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    /** 4096 IPv6 UDP frames (64-byte payload) of `flows` sessions drawn from the first `sessions`. */
    static byte[][] packets(int sessions, int flows, Random rnd) {
        int[] chosen = new int[flows];
        for (int f = 0; f < flows; f++) {
            chosen[f] = flows == 1 ? 0 : rnd.nextInt(sessions);
        }
        byte[][] out = new byte[flows == 1 ? 1 : 4096][];
        for (int k = 0; k < out.length; k++) {
            int i = chosen[rnd.nextInt(flows)];
            byte[] b = new byte[14 + 40 + 8 + 64];
            b[12] = (byte) 0x86;
            b[13] = (byte) 0xdd;
            b[14] = 0x60;
            b[18] = 0;
            b[19] = 72;
            b[20] = 17;
            b[21] = 64;
            put(b, 22, Sessions.host(i / 1000), 16);
            put(b, 38, new BigInteger("20010db80064000000000000c6336407", 16), 16);
            put(b, 54, BigInteger.valueOf(Sessions.port(i)), 2);
            put(b, 56, BigInteger.valueOf(53), 2);
            put(b, 58, BigInteger.valueOf(72), 2);
            // UDP checksum left 0: invalid for IPv6, but the pipeline updates it incrementally
            // without verifying it, so the work done is that of a real packet.
            out[k] = b;
        }
        return out;
    }

    /** Packets per second over about `seconds`; fails if the packets are not translated. */
    static double run(V1ModelSwitch sw, byte[][] packets, double seconds) {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        long n = 0;
        long[] translated = new long[1];
        // As the data plane calls it: each frame made in the switch's buffer, handed to a sink.
        V1ModelSwitch.Frames toPort2 = (port, frame, length) -> translated[0] += port == 2 ? 1 : 0;
        long start = System.nanoTime();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 256; i++) {
                byte[] packet = packets[(int) (n++ % packets.length)];
                sw.process(1, packet, packet.length, toPort2);
            }
        }
        if (translated[0] != n) {
            List<V1ModelSwitch.Output> sample = sw.process(1, packets[0]);
            throw new IllegalStateException((n - translated[0]) + " of " + n + " packets were not translated to port 2; "
                    + "the first went to " + (sample.isEmpty() ? "nowhere" : "port " + sample.get(0).port) + " "
                    + sw.stats() + " drops " + sw.program.counters.stream().filter(c -> c.name.endsWith(".drops")).map(c -> Arrays.toString(c.packets)).findFirst().orElse(""));
        }
        return n / ((System.nanoTime() - start) / 1e9);
    }

    static void put(byte[] b, int at, BigInteger v, int len) {
        for (int i = len - 1; i >= 0; i--) {
            b[at + i] = v.byteValue();
            v = v.shiftRight(8);
        }
    }
}
