import com.google.protobuf.ByteString;
import com.google.protobuf.TextFormat;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.Role;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * Adds N entries to each of nat64.p4's session tables (session_v6 and session_v4) of a running
 * softswitch, entries no packet of the forwarding bench matches, so that its lookups are made in
 * tables of N more entries. It writes in role 1 (P4Runtime 1.3 role_id): the embedded controller
 * is primary of the default role, and reconciles only when it connects or a write fails.
 * Run from the repository root: java -cp 'softswitch/target/softswitch.jar:softswitch/target/lib/*'
 * bench/forwarding/FillSessions.java HOST:PORT N
 */
public class FillSessions {
    static final String T = "Nat64Ingress.translate.";
    static final int BATCH = 10_000;

    public static void main(String[] args) throws Exception {
        String[] hostPort = args[0].split(":");
        int n = Integer.parseInt(args[1]);
        P4Info info = TextFormat.parse(Files.readString(Path.of("p4/build/p4info.txt")), P4Info.class);
        ManagedChannel channel = NettyChannelBuilder.forAddress(hostPort[0], Integer.parseInt(hostPort[1]))
                .usePlaintext().build();
        try {
            Uint128 election = Uint128.newBuilder().setLow(1).build();
            CompletableFuture<StreamMessageResponse> answer = new CompletableFuture<>();
            StreamObserver<StreamMessageRequest> stream = P4RuntimeGrpc.newStub(channel).streamChannel(
                    new StreamObserver<StreamMessageResponse>() {
                        @Override public void onNext(StreamMessageResponse r) { answer.complete(r); }
                        @Override public void onError(Throwable t) { answer.completeExceptionally(t); }
                        @Override public void onCompleted() { }
                    });
            stream.onNext(StreamMessageRequest.newBuilder().setArbitration(MasterArbitrationUpdate.newBuilder()
                    .setDeviceId(1).setRole(Role.newBuilder().setId(1)).setElectionId(election)).build());
            if (answer.get(10, TimeUnit.SECONDS).getArbitration().getStatus().getCode() != 0) {
                throw new IllegalStateException("not primary of role 1");
            }
            P4RuntimeGrpc.P4RuntimeBlockingStub stub = P4RuntimeGrpc.newBlockingStub(channel);
            long start = System.nanoTime();
            for (int first = 0; first < n; first += BATCH) {
                WriteRequest.Builder req = WriteRequest.newBuilder().setDeviceId(1).setRoleId(1).setElectionId(election);
                for (int i = first; i < Math.min(n, first + BATCH); i++) {
                    int host = i / 1000;
                    int port = 1024 + i % 1000;
                    // session_v6: UDP from 2001:db8:1:0:ffff::HOST, port PORT (no bench host has such an address)
                    BigInteger src6 = new BigInteger("20010db8000100000000ffff00000000", 16).or(BigInteger.valueOf(host));
                    req.addUpdates(insert(entry(info, "session_v6", "snat",
                            new byte[][] {{17}, src6.toByteArray(), bytes(port, 2)},
                            new byte[][] {bytes(0xc0000201L, 4), bytes(port, 2), {0}, {0}})));
                    // session_v4: UDP to 10.0.0.0 + HOST, port PORT (outside pool4, which is 192.0.2.0/24)
                    req.addUpdates(insert(entry(info, "session_v4", "dnat",
                            new byte[][] {{17}, bytes(0x0a000000L | host, 4), bytes(port, 2)},
                            new byte[][] {new BigInteger("20010db8000100000000000000000002", 16).toByteArray(),
                                    bytes(port, 2), {0}, {0}})));
                }
                stub.write(req.build());
                int done = Math.min(n, first + BATCH);
                if (done % 100_000 == 0 || done == n) {
                    System.out.printf("  filled %d of %d sessions per table (%.1f s)%n", done, n,
                            (System.nanoTime() - start) / 1e9);
                }
            }
            stream.onCompleted();
        } finally {
            channel.shutdownNow().awaitTermination(2, TimeUnit.SECONDS);
        }
    }

    static Update insert(TableEntry e) {
        return Update.newBuilder().setType(Update.Type.INSERT).setEntity(Entity.newBuilder().setTableEntry(e)).build();
    }

    /** An entry of table T+table with exact matches in P4Info order and action T+action's parameters in order. */
    static TableEntry entry(P4Info info, String table, String action, byte[][] match, byte[][] params) {
        var t = info.getTablesList().stream().filter(x -> x.getPreamble().getName().equals(T + table)).findFirst().orElseThrow();
        var a = info.getActionsList().stream().filter(x -> x.getPreamble().getName().equals(T + action)).findFirst().orElseThrow();
        TableEntry.Builder e = TableEntry.newBuilder().setTableId(t.getPreamble().getId());
        for (int i = 0; i < match.length; i++) {
            e.addMatch(FieldMatch.newBuilder().setFieldId(t.getMatchFields(i).getId())
                    .setExact(FieldMatch.Exact.newBuilder().setValue(canonical(match[i]))));
        }
        Action.Builder ab = Action.newBuilder().setActionId(a.getPreamble().getId());
        for (int i = 0; i < params.length; i++) {
            ab.addParams(Action.Param.newBuilder().setParamId(a.getParams(i).getId()).setValue(canonical(params[i])));
        }
        return e.setAction(TableAction.newBuilder().setAction(ab)).build();
    }

    static byte[] bytes(long v, int len) {
        byte[] b = new byte[len];
        for (int i = len - 1; i >= 0; i--, v >>>= 8) {
            b[i] = (byte) v;
        }
        return b;
    }

    /** P4Runtime 1.3 section 8.4: no leading zero bytes (one zero byte for zero). */
    static ByteString canonical(byte[] b) {
        int skip = 0;
        while (skip < b.length - 1 && b[skip] == 0) {
            skip++;
        }
        return ByteString.copyFrom(b, skip, b.length - skip);
    }
}
