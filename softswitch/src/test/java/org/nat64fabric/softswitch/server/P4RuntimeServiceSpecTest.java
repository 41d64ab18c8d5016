package org.nat64fabric.softswitch.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.rpc.Code;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.ForwardingPipelineConfig;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.Role;
import p4.v1.P4RuntimeOuterClass.SetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.Uint128;

/** The P4Runtime 1.4 specification's rows for arbitration (5.4) and pipeline config (14), over gRPC. */
class P4RuntimeServiceSpecTest {
    private static final long DEVICE = 1;
    private Device device;
    private SwitchServer server;
    private ManagedChannel channel;

    @BeforeEach
    void start() throws Exception {
        device = new Device(DEVICE, 255);
        server = SwitchServer.start(device, new InetSocketAddress("127.0.0.1", 0), InsecureServerCredentials.create());
        channel = Grpc.newChannelBuilder("127.0.0.1:" + server.port(), InsecureChannelCredentials.create()).build();
    }

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow();
        server.close();
        device.close();
    }

    /** One stream channel: what the switch sent on it, and how it ended. */
    private final class Stream implements StreamObserver<StreamMessageResponse> {
        final BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        final StreamObserver<StreamMessageRequest> out = P4RuntimeGrpc.newStub(channel).streamChannel(this);

        Stream arbitrate(long deviceId, Long electionId, Role role) {
            MasterArbitrationUpdate.Builder a = MasterArbitrationUpdate.newBuilder().setDeviceId(deviceId);
            if (electionId != null) {
                a.setElectionId(Uint128.newBuilder().setLow(electionId));
            }
            if (role != null) {
                a.setRole(role);
            }
            out.onNext(StreamMessageRequest.newBuilder().setArbitration(a).build());
            return this;
        }

        /** The next arbitration answer; fails if the stream ended instead. */
        MasterArbitrationUpdate answer() throws InterruptedException {
            Object o = received.poll(5, TimeUnit.SECONDS);
            assertTrue(o instanceof StreamMessageResponse, "expected an arbitration answer, got " + o);
            return ((StreamMessageResponse) o).getArbitration();
        }

        /** The status that ended the stream, skipping what came before it. */
        Status end() throws InterruptedException {
            for (;;) {
                Object o = received.poll(5, TimeUnit.SECONDS);
                assertNotNull(o, "the stream did not end");
                if (o instanceof Status) {
                    return (Status) o;
                }
            }
        }

        @Override public void onNext(StreamMessageResponse m) {
            received.add(m);
        }

        @Override public void onError(Throwable t) {
            received.add(Status.fromThrowable(t));
        }

        @Override public void onCompleted() {
            received.add(Status.OK);
        }
    }

    @Test
    void aSecondControllerWithTheSameElectionIdIsRefusedInPisWords() throws Exception {
        assertEquals(Code.OK_VALUE, new Stream().arbitrate(DEVICE, 5L, null).answer().getStatus().getCode());
        Status refused = new Stream().arbitrate(DEVICE, 5L, null).end();
        assertEquals(Status.Code.INVALID_ARGUMENT, refused.getCode());
        assertTrue(refused.getDescription().startsWith("Election id already exists"), refused.getDescription());
    }

    @Test
    void aLiveStreamMayNotChangeItsDeviceOrRole() throws Exception {
        assertEquals(Status.Code.NOT_FOUND, new Stream().arbitrate(9, 1L, null).end().getCode(), "an unknown device first");
        Stream a = new Stream().arbitrate(DEVICE, 1L, null);
        a.answer();
        assertEquals(Status.Code.FAILED_PRECONDITION, a.arbitrate(9, 1L, null).end().getCode());
        Stream b = new Stream().arbitrate(DEVICE, 2L, Role.newBuilder().setId(7).build());
        b.answer();
        assertEquals(Status.Code.FAILED_PRECONDITION, b.arbitrate(DEVICE, 2L, null).end().getCode());
        Stream c = new Stream().arbitrate(DEVICE, 3L, null);
        assertEquals(Code.OK_VALUE, c.answer().getStatus().getCode());
        assertEquals(Code.OK_VALUE, c.arbitrate(DEVICE, 4L, null).answer().getStatus().getCode(), "a new election_id is fine");
    }

    @Test
    void aRoleConfigIsRefusedForThereIsNoRoleScheme() throws Exception {
        Role configured = Role.newBuilder().setId(3).setConfig(com.google.protobuf.Any.pack(
                com.google.protobuf.StringValue.of("tables: acl"))).build();
        assertEquals(Status.Code.INVALID_ARGUMENT, new Stream().arbitrate(DEVICE, 1L, configured).end().getCode(),
                "a first arbitration with role.config");
        Stream live = new Stream().arbitrate(DEVICE, 2L, Role.newBuilder().setId(3).build());
        assertEquals(Code.OK_VALUE, live.answer().getStatus().getCode(), "the same role without config");
        assertEquals(Status.Code.INVALID_ARGUMENT, live.arbitrate(DEVICE, 2L, configured).end().getCode(),
                "a later arbitration with role.config");
    }

    @Test
    void aControllerWithoutElectionIdIsABackup() throws Exception {
        Stream backup = new Stream().arbitrate(DEVICE, null, null);
        MasterArbitrationUpdate first = backup.answer();
        assertEquals(Code.NOT_FOUND_VALUE, first.getStatus().getCode(), "no primary yet");
        assertFalse(first.hasElectionId(), "no primary ever: election_id unset");
        Stream other = new Stream().arbitrate(DEVICE, null, null);
        assertEquals(Code.NOT_FOUND_VALUE, other.answer().getStatus().getCode(), "two backups without election_id");
        assertEquals(Code.OK_VALUE, new Stream().arbitrate(DEVICE, 3L, null).answer().getStatus().getCode());
        MasterArbitrationUpdate told = backup.answer();
        assertEquals(Code.ALREADY_EXISTS_VALUE, told.getStatus().getCode());
        assertEquals(3, told.getElectionId().getLow());
    }

    @Test
    void anUnsetElectionIdIsNotThePrimarysZero() throws Exception {
        assertEquals(Code.OK_VALUE, new Stream().arbitrate(DEVICE, 0L, null).answer().getStatus().getCode(),
                "election_id 0, set, makes a primary");
        var stub = P4RuntimeGrpc.newBlockingStub(channel);
        SetForwardingPipelineConfigRequest.Builder commit = SetForwardingPipelineConfigRequest.newBuilder().setDeviceId(DEVICE)
                .setAction(SetForwardingPipelineConfigRequest.Action.COMMIT);
        assertEquals(Status.Code.PERMISSION_DENIED, assertThrows(StatusRuntimeException.class,
                () -> stub.setForwardingPipelineConfig(commit.build())).getStatus().getCode(), "5.4: unset is nobody's election_id");
        assertEquals(Status.Code.NOT_FOUND, assertThrows(StatusRuntimeException.class, () -> stub.setForwardingPipelineConfig(
                commit.setElectionId(Uint128.getDefaultInstance()).build())).getStatus().getCode(),
                "with the primary's zero it gets as far as the config (none saved)");
    }

    @Test
    void commitNeedsASavedConfigAndTakesNone() throws Exception {
        new Stream().arbitrate(DEVICE, 1L, null).answer();
        var stub = P4RuntimeGrpc.newBlockingStub(channel);
        SetForwardingPipelineConfigRequest.Builder commit = SetForwardingPipelineConfigRequest.newBuilder().setDeviceId(DEVICE)
                .setElectionId(Uint128.newBuilder().setLow(1)).setAction(SetForwardingPipelineConfigRequest.Action.COMMIT);
        StatusRuntimeException none = assertThrows(StatusRuntimeException.class,
                () -> stub.setForwardingPipelineConfig(commit.build()));
        assertEquals(Status.Code.NOT_FOUND, none.getStatus().getCode(), none.getStatus().getDescription());
        StatusRuntimeException withConfig = assertThrows(StatusRuntimeException.class, () -> stub.setForwardingPipelineConfig(
                commit.clone().setConfig(ForwardingPipelineConfig.newBuilder().setP4Info(
                        p4.config.v1.P4InfoOuterClass.P4Info.getDefaultInstance())).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, withConfig.getStatus().getCode());
        StatusRuntimeException withCookie = assertThrows(StatusRuntimeException.class, () -> stub.setForwardingPipelineConfig(
                commit.clone().setConfig(ForwardingPipelineConfig.newBuilder().setCookie(
                        ForwardingPipelineConfig.Cookie.newBuilder().setCookie(7))).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, withCookie.getStatus().getCode(), "a cookie alone is a config");
    }

    @Test
    void writesAreCheckedForDeviceThenPrimaryThenPipelineAndReadsForAPipeline() throws Exception {
        new Stream().arbitrate(DEVICE, 1L, null).answer();
        var stub = P4RuntimeGrpc.newBlockingStub(channel);
        p4.v1.P4RuntimeOuterClass.WriteRequest.Builder write = p4.v1.P4RuntimeOuterClass.WriteRequest.newBuilder()
                .setDeviceId(DEVICE).setElectionId(Uint128.newBuilder().setLow(1));
        assertEquals(Status.Code.NOT_FOUND, assertThrows(StatusRuntimeException.class,
                () -> stub.write(write.clone().setDeviceId(9).setElectionId(Uint128.newBuilder().setLow(7)).build()))
                .getStatus().getCode(), "12: the device first");
        assertEquals(Status.Code.NOT_FOUND, assertThrows(StatusRuntimeException.class,
                () -> stub.write(write.clone().setRoleId(7).build())).getStatus().getCode(),
                "12: a role no controller arbitrated for, with the device");
        new Stream().arbitrate(DEVICE, null, Role.newBuilder().setId(7).build()).answer();
        assertEquals(Status.Code.PERMISSION_DENIED, assertThrows(StatusRuntimeException.class,
                () -> stub.write(write.clone().setRoleId(7).build())).getStatus().getCode(),
                "a role a backup without election_id arbitrated for is known");
        new Stream().arbitrate(DEVICE, 2L, Role.newBuilder().setId(7).build()).answer();
        assertEquals(Status.Code.PERMISSION_DENIED, assertThrows(StatusRuntimeException.class,
                () -> stub.write(write.clone().setRoleId(7).build())).getStatus().getCode(),
                "a known role, another election_id");
        assertEquals(Status.Code.PERMISSION_DENIED, assertThrows(StatusRuntimeException.class,
                () -> stub.write(write.clone().setElectionId(Uint128.newBuilder().setLow(7)).build())).getStatus().getCode(),
                "then the primary");
        StatusRuntimeException noPipeline = assertThrows(StatusRuntimeException.class, () -> stub.write(write.build()));
        assertEquals(Status.Code.FAILED_PRECONDITION, noPipeline.getStatus().getCode(), "then the pipeline");
        assertTrue(io.grpc.protobuf.StatusProto.fromThrowable(noPipeline) == null
                || io.grpc.protobuf.StatusProto.fromThrowable(noPipeline).getDetailsCount() == 0,
                "an RPC-wide error carries no per-update details (12.3)");
        assertEquals(Status.Code.FAILED_PRECONDITION, assertThrows(StatusRuntimeException.class, () -> stub.read(
                p4.v1.P4RuntimeOuterClass.ReadRequest.newBuilder().setDeviceId(DEVICE).addEntities(
                        p4.v1.P4RuntimeOuterClass.Entity.newBuilder().setTableEntry(
                                p4.v1.P4RuntimeOuterClass.TableEntry.getDefaultInstance())).build()).hasNext())
                .getStatus().getCode(), "11: a read before any pipeline");
    }

    @Test
    void errorsQuotingWhatTheClientSentStayShortEnoughForItsTrailers() throws Exception {
        // A client takes 8 KiB of trailers by default: a status message quoting a 100 KB role name
        // or pipeline config would reach it as INTERNAL (a reset stream) instead of its code.
        new Stream().arbitrate(DEVICE, 1L, null).answer();
        var stub = P4RuntimeGrpc.newBlockingStub(channel);
        String role = "r".repeat(100_000);
        StatusRuntimeException unknownRole = assertThrows(StatusRuntimeException.class, () -> stub.write(
                org.nat64fabric.softswitch.runtime.NewerFields.withBytes(p4.v1.P4RuntimeOuterClass.WriteRequest.newBuilder()
                        .setDeviceId(DEVICE).setElectionId(Uint128.newBuilder().setLow(1)),
                        org.nat64fabric.softswitch.runtime.NewerFields.REQUEST_ROLE,
                        com.google.protobuf.ByteString.copyFromUtf8(role)).build()));   // P4Runtime 1.4's role name
        assertEquals(Status.Code.NOT_FOUND, unknownRole.getStatus().getCode());
        assertTrue(unknownRole.getStatus().getDescription().length() < 1000, "the role name is cut");
        StatusRuntimeException badConfig = assertThrows(StatusRuntimeException.class, () -> stub.setForwardingPipelineConfig(
                SetForwardingPipelineConfigRequest.newBuilder().setDeviceId(DEVICE).setElectionId(Uint128.newBuilder().setLow(1))
                        .setAction(SetForwardingPipelineConfigRequest.Action.VERIFY_AND_COMMIT)
                        .setConfig(ForwardingPipelineConfig.newBuilder()
                                .setP4Info(p4.config.v1.P4InfoOuterClass.P4Info.getDefaultInstance())
                                .setP4DeviceConfig(org.nat64fabric.softswitch.proto.DeviceConfig.newBuilder()
                                        .setFormatVersion(Pipeline.DEVICE_CONFIG_VERSION).setProgramName("x.p4")
                                        .setPreprocessedSource("const bit<8> k = " + "h".repeat(100_000) + ";")
                                        .build().toByteString())).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, badConfig.getStatus().getCode());
        assertTrue(badConfig.getStatus().getDescription().startsWith("the program does not compile: ")
                && badConfig.getStatus().getDescription().contains("hhh"),
                badConfig.getStatus().getDescription());
        assertTrue(badConfig.getStatus().getDescription().length() < 1000, "the compiler's message, which quotes the name, is cut");
    }

    @Test
    void withoutAPipelineTheConfigIsUnset() {
        var answer = P4RuntimeGrpc.newBlockingStub(channel).getForwardingPipelineConfig(
                p4.v1.P4RuntimeOuterClass.GetForwardingPipelineConfigRequest.newBuilder().setDeviceId(DEVICE).build());
        assertFalse(answer.hasConfig());
    }

    @Test
    void aRefusedPacketOutIsReportedWithThePacket() throws Exception {
        Stream s = new Stream();
        var packet = p4.v1.P4RuntimeOuterClass.PacketOut.newBuilder()
                .setPayload(com.google.protobuf.ByteString.copyFromUtf8("frame")).build();
        s.out.onNext(StreamMessageRequest.newBuilder().setPacket(packet).build());
        Object o = s.received.poll(5, TimeUnit.SECONDS);
        assertTrue(o instanceof StreamMessageResponse && ((StreamMessageResponse) o).hasError(), "expected an error, got " + o);
        var error = ((StreamMessageResponse) o).getError();
        assertEquals(Code.PERMISSION_DENIED_VALUE, error.getCanonicalCode(), "not the primary");
        assertEquals(packet, error.getPacketOut().getPacketOut(), "the details name the packet-out");
        Stream primary = new Stream().arbitrate(DEVICE, 1L, null);
        primary.answer();
        primary.out.onNext(StreamMessageRequest.newBuilder().setPacket(packet).build());
        o = primary.received.poll(5, TimeUnit.SECONDS);
        assertTrue(o instanceof StreamMessageResponse && ((StreamMessageResponse) o).hasError(), "expected an error, got " + o);
        assertEquals(Code.FAILED_PRECONDITION_VALUE, ((StreamMessageResponse) o).getError().getCanonicalCode(),
                "no pipeline yet, as a Read or Write is told");
    }
}
