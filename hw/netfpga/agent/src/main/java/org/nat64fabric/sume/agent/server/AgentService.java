package org.nat64fabric.sume.agent.server;

import com.google.rpc.Code;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import org.nat64fabric.softswitch.server.Answers;
import org.nat64fabric.softswitch.server.Arbitration;
import org.nat64fabric.softswitch.server.ControllerHeader;
import org.nat64fabric.sume.agent.card.CardException;
import org.nat64fabric.sume.agent.card.CardTables;
import org.nat64fabric.sume.agent.io.RawSocket;
import org.nat64fabric.sume.agent.runtime.EntityError;
import org.nat64fabric.sume.agent.runtime.Translator;
import p4.config.v1.P4InfoOuterClass.ControllerPacketMetadata;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.CapabilitiesRequest;
import p4.v1.P4RuntimeOuterClass.CapabilitiesResponse;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.Error;
import p4.v1.P4RuntimeOuterClass.ForwardingPipelineConfig;
import p4.v1.P4RuntimeOuterClass.GetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.GetForwardingPipelineConfigResponse;
import p4.v1.P4RuntimeOuterClass.IdleTimeoutNotification;
import p4.v1.P4RuntimeOuterClass.PacketIn;
import p4.v1.P4RuntimeOuterClass.PacketOut;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.ReadResponse;
import p4.v1.P4RuntimeOuterClass.SetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.SetForwardingPipelineConfigResponse;
import p4.v1.P4RuntimeOuterClass.StreamError;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;
import p4.v1.P4RuntimeOuterClass.WriteResponse;

/**
 * The P4Runtime service of one SUME card: the pipeline is the program the card was built with
 * (a SetForwardingPipelineConfig must carry its P4Info; the device config is kept and given back
 * as it came), writes and reads go through the {@link Translator} to the card's tables, and
 * packet-in/out travel over the host's DMA netdev with the program's controller headers.
 */
final class AgentService extends P4RuntimeGrpc.P4RuntimeImplBase {
    static final String API_VERSION = "1.3.0";
    private static final Logger LOG = Logger.getLogger("sume-agent");

    /** A pipeline a controller pushed: its config and the translator writing to the card for it. */
    private static final class Pipeline {
        final ForwardingPipelineConfig config;
        final Translator translator;

        Pipeline(ForwardingPipelineConfig config, Translator translator) {
            this.config = config;
            this.translator = translator;
        }
    }

    private final long deviceId;
    private final CardTables card;
    private final P4Info built;
    private final RawSocket dma;
    private final ControllerHeader packetIn;
    private final ControllerHeader packetOut;
    private final Arbitration arbitration;
    final AtomicLong packetIns = new AtomicLong();
    final AtomicLong packetInsDropped = new AtomicLong();
    final AtomicLong idleNotifications = new AtomicLong();
    private volatile Pipeline pipeline;
    private Pipeline saved;

    /** {@code built}: the P4Info of the program the card was built with. */
    AgentService(long deviceId, CardTables card, P4Info built, RawSocket dma) {
        this.deviceId = deviceId;
        this.card = card;
        this.built = built;
        this.dma = dma;
        this.arbitration = new Arbitration(deviceId);
        ControllerHeader in = null;
        ControllerHeader out = null;
        for (ControllerPacketMetadata m : built.getControllerPacketMetadataList()) {
            if (m.getPreamble().getName().equals("packet_in")) {
                in = new ControllerHeader(m);
            } else if (m.getPreamble().getName().equals("packet_out")) {
                out = new ControllerHeader(m);
            }
        }
        this.packetIn = in;
        this.packetOut = out;
    }

    /** Reads the DMA netdev until {@code running} says stop: every frame is a packet-in. */
    void receivePacketIns(java.util.function.BooleanSupplier running) {
        while (running.getAsBoolean()) {
            byte[] frame;
            try {
                frame = dma.receive();
            } catch (IOException e) {
                LOG.warning(e.getMessage());
                return;
            }
            if (frame == null) {
                continue;
            }
            PacketIn.Builder b = PacketIn.newBuilder();
            if (packetIn != null) {
                List<p4.v1.P4RuntimeOuterClass.PacketMetadata> md = packetIn.decode(frame);
                if (md == null) {
                    packetInsDropped.incrementAndGet();
                    continue;
                }
                b.addAllMetadata(md).setPayload(packetIn.payload(frame));
            } else {
                b.setPayload(com.google.protobuf.ByteString.copyFrom(frame));
            }
            if (arbitration.sendToPrimaries(StreamMessageResponse.newBuilder().setPacket(b).build(), why -> { }) > 0) {
                packetIns.incrementAndGet();
            } else {
                packetInsDropped.incrementAndGet();
            }
        }
    }

    /**
     * One poll of the card's hit counts: the entries idle for their timeout whose report is due go
     * to the primary controllers in one IdleTimeoutNotification (P4Runtime 9.1.8).
     */
    void pollIdleEntries() {
        Pipeline p = pipeline;
        if (p == null) {
            return;
        }
        try {
            List<TableEntry> idle = p.translator.pollIdle();
            if (!idle.isEmpty()) {
                idleNotifications.addAndGet(idle.size());
                arbitration.sendToPrimaries(StreamMessageResponse.newBuilder().setIdleTimeoutNotification(
                        IdleTimeoutNotification.newBuilder().addAllTableEntry(idle)
                                .setTimestamp(System.currentTimeMillis() * 1_000_000L)).build(), why -> { });
            }
        } catch (CardException | RuntimeException e) {
            LOG.warning("idle-timeout poll failed: " + e.getMessage());
        }
    }

    @Override
    public void capabilities(CapabilitiesRequest request, StreamObserver<CapabilitiesResponse> response) {
        response.onNext(CapabilitiesResponse.newBuilder().setP4RuntimeApiVersion(API_VERSION).build());
        response.onCompleted();
    }

    @Override
    public void setForwardingPipelineConfig(SetForwardingPipelineConfigRequest request,
                                            StreamObserver<SetForwardingPipelineConfigResponse> response) {
        try {
            checkDevice(request.getDeviceId());
            arbitration.checkPrimary(Arbitration.roleOf(request), request.hasElectionId(), request.getElectionId());
            ForwardingPipelineConfig config = request.getConfig();
            synchronized (this) {
                switch (request.getAction()) {
                    case VERIFY:
                        verify(config);
                        break;
                    case VERIFY_AND_SAVE:
                        verify(config);
                        saved = new Pipeline(config, null);
                        break;
                    case VERIFY_AND_COMMIT:
                        verify(config);
                        commit(config);
                        break;
                    case COMMIT:
                        if (saved == null) {
                            throw Status.FAILED_PRECONDITION.withDescription(
                                    "COMMIT needs a config saved by VERIFY_AND_SAVE first").asException();
                        }
                        commit(saved.config);
                        break;
                    case RECONCILE_AND_COMMIT: {
                        verify(config);
                        Pipeline p = pipeline;
                        if (p == null) {
                            commit(config);   // no forwarding state to keep: reconciling is committing (P4Runtime 14)
                        } else {
                            // The card runs the one program it was built with (verified): its entries stay.
                            pipeline = new Pipeline(config, p.translator);
                            saved = null;
                        }
                        break;
                    }
                    default:
                        throw Status.INVALID_ARGUMENT.withDescription("action " + request.getAction()
                                + " is not a pipeline config action").asException();
                }
            }
            response.onNext(SetForwardingPipelineConfigResponse.getDefaultInstance());
            response.onCompleted();
        } catch (StatusException e) {
            response.onError(e);
        }
    }

    private void verify(ForwardingPipelineConfig config) throws StatusException {
        if (!config.hasP4Info()) {
            throw Status.INVALID_ARGUMENT.withDescription("config.p4info is missing").asException();
        }
        String diff = PipelineCheck.difference(built, config.getP4Info());
        if (diff != null) {
            throw Status.INVALID_ARGUMENT.withDescription("the card was built with another program (a SUME card "
                    + "loads its program as a bitstream, not over P4Runtime): " + diff).asException();
        }
    }

    /** The new pipeline starts from the card as built: what the old one wrote is taken off first. */
    private void commit(ForwardingPipelineConfig config) throws StatusException {
        Pipeline old = pipeline;
        try {
            if (old != null) {
                old.translator.clear();
            }
            // the card's own P4Info: the IDs are the pushed one's (verified), the slots the agent fills are named only there
            pipeline = new Pipeline(config, new Translator(built, card));
        } catch (CardException | IllegalArgumentException e) {
            throw Status.INTERNAL.withDescription("the card: " + e.getMessage()).asException();
        }
        saved = null;
        LOG.info("pipeline committed: " + config.getP4Info().getTablesCount() + " tables");
    }

    @Override
    public void getForwardingPipelineConfig(GetForwardingPipelineConfigRequest request,
                                            StreamObserver<GetForwardingPipelineConfigResponse> response) {
        try {
            checkDevice(request.getDeviceId());
            Pipeline p = pipeline;
            ForwardingPipelineConfig.Builder c = ForwardingPipelineConfig.newBuilder();
            if (p != null) {
                c.setCookie(p.config.getCookie());
                switch (request.getResponseType()) {
                    case ALL:
                        c.setP4Info(p.config.getP4Info()).setP4DeviceConfig(p.config.getP4DeviceConfig());
                        break;
                    case P4INFO_AND_COOKIE:
                        c.setP4Info(p.config.getP4Info());
                        break;
                    case DEVICE_CONFIG_AND_COOKIE:
                        c.setP4DeviceConfig(p.config.getP4DeviceConfig());
                        break;
                    default:
                        break;
                }
            }
            response.onNext(GetForwardingPipelineConfigResponse.newBuilder().setConfig(c).build());
            response.onCompleted();
        } catch (StatusException e) {
            response.onError(e);
        }
    }

    @Override
    public void write(WriteRequest request, StreamObserver<WriteResponse> response) {
        try {
            checkDevice(request.getDeviceId());
            arbitration.checkPrimary(Arbitration.roleOf(request), request.hasElectionId(), request.getElectionId());
            Pipeline p = requirePipeline();
            if (request.getAtomicity() != WriteRequest.Atomicity.CONTINUE_ON_ERROR) {
                throw Status.UNIMPLEMENTED.withDescription("only CONTINUE_ON_ERROR atomicity is supported "
                        + "(the card's tables change one operation at a time)").asException();
            }
            List<Error> errors = new ArrayList<>(request.getUpdatesCount());
            for (Update u : request.getUpdatesList()) {
                errors.add(attempt(() -> p.translator.write(u.getType(), u.getEntity())));
            }
            Answers.write(errors, response);
        } catch (StatusException e) {
            response.onError(e);
        }
    }

    @Override
    public void read(ReadRequest request, StreamObserver<ReadResponse> response) {
        try {
            checkDevice(request.getDeviceId());
            Pipeline p = requirePipeline();
            Answers.requireEntitiesSet(request);
            List<Entity> found = new ArrayList<>();
            List<Error> errors = new ArrayList<>(request.getEntitiesCount());
            for (Entity e : request.getEntitiesList()) {
                errors.add(attempt(() -> found.addAll(p.translator.read(e))));
            }
            Answers.read(found, errors, response);
        } catch (StatusException e) {
            response.onError(e);
        }
    }

    /** One update or read request of a batch. */
    private interface Step {
        void run() throws EntityError;
    }

    /** The p4.v1.Error of one step of a batch: OK, its own code, or INTERNAL for a failure of ours. */
    private static Error attempt(Step step) {
        try {
            step.run();
            return Error.newBuilder().setCanonicalCode(Code.OK_VALUE).build();
        } catch (EntityError e) {
            return Error.newBuilder().setCanonicalCode(e.code.value()).setMessage(Answers.bounded(e.getMessage())).build();
        } catch (RuntimeException e) {
            return Error.newBuilder().setCanonicalCode(Code.INTERNAL_VALUE)
                    .setMessage(Answers.bounded("internal error: " + e)).build();
        }
    }

    @Override
    public StreamObserver<StreamMessageRequest> streamChannel(StreamObserver<StreamMessageResponse> responses) {
        Arbitration.Controller controller = new Arbitration.Controller((ServerCallStreamObserver<StreamMessageResponse>) responses);
        return new StreamObserver<>() {
            @Override
            public void onNext(StreamMessageRequest request) {
                switch (request.getUpdateCase()) {
                    case ARBITRATION:
                        arbitration.arbitrate(controller, request.getArbitration(), "card");
                        break;
                    case PACKET:
                        if (!arbitration.isPrimary(controller)) {
                            controller.send(streamError(Code.PERMISSION_DENIED,
                                    "packet-out from a controller that is not the primary (send arbitration first)"));
                            return;
                        }
                        packetOut(controller, request.getPacket());
                        break;
                    case DIGEST_ACK:
                        break;   // the SUME program punts over DMA; it sends no digests
                    default:
                        controller.send(streamError(Code.UNIMPLEMENTED, "stream message " + request.getUpdateCase()
                                + " is not supported"));
                }
            }

            @Override
            public void onError(Throwable t) {
                arbitration.remove(controller);
            }

            @Override
            public void onCompleted() {
                arbitration.remove(controller);
                responses.onCompleted();
            }
        };
    }

    private void packetOut(Arbitration.Controller controller, PacketOut po) {
        if (pipeline == null) {
            controller.send(streamError(Code.FAILED_PRECONDITION, "no forwarding pipeline is set"));
            return;
        }
        try {
            byte[] frame = packetOut == null ? po.getPayload().toByteArray() : packetOut.encode(po.getMetadataList(), po.getPayload());
            if (frame.length > CARD_FRAME_BYTES) {
                // the card takes Ethernet frames of at most 1514 bytes, its controller header included
                controller.send(streamError(Code.INVALID_ARGUMENT, "a packet-out of " + frame.length + " bytes (header and"
                        + " payload) is over the card's " + CARD_FRAME_BYTES + "-byte frames; send at most "
                        + (CARD_FRAME_BYTES - (frame.length - po.getPayload().size())) + " bytes of payload"));
                return;
            }
            dma.send(frame);
        } catch (IllegalArgumentException e) {
            controller.send(streamError(Code.INVALID_ARGUMENT, e.getMessage()));
        } catch (IOException e) {
            controller.send(streamError(Code.UNAVAILABLE, e.getMessage()));
        }
    }

    /** The longest frame the card's DMA takes: 1500 bytes of IP and an Ethernet header (SUME's limit). */
    static final int CARD_FRAME_BYTES = 1514;

    private static StreamMessageResponse streamError(Code code, String message) {
        return StreamMessageResponse.newBuilder().setError(StreamError.newBuilder().setCanonicalCode(code.getNumber())
                .setMessage(message)).build();
    }

    private void checkDevice(long id) throws StatusException {
        if (id != deviceId) {
            throw Status.NOT_FOUND.withDescription("this card is device " + deviceId + ", not " + id).asException();
        }
    }

    private Pipeline requirePipeline() throws StatusException {
        Pipeline p = pipeline;
        if (p == null) {
            throw Status.FAILED_PRECONDITION.withDescription("no forwarding pipeline is set; "
                    + "send SetForwardingPipelineConfig first").asException();
        }
        return p;
    }
}
