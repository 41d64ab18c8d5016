package org.nat64fabric.softswitch.server;

import com.google.rpc.Code;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.nat64fabric.softswitch.runtime.EntityException;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.CapabilitiesRequest;
import p4.v1.P4RuntimeOuterClass.CapabilitiesResponse;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.Error;
import p4.v1.P4RuntimeOuterClass.ForwardingPipelineConfig;
import p4.v1.P4RuntimeOuterClass.GetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.GetForwardingPipelineConfigResponse;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.ReadResponse;
import p4.v1.P4RuntimeOuterClass.SetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.SetForwardingPipelineConfigResponse;
import p4.v1.P4RuntimeOuterClass.StreamError;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.WriteRequest;
import p4.v1.P4RuntimeOuterClass.WriteResponse;

/**
 * The P4Runtime v1 service of one device: pipeline config, writes, reads and the stream channel
 * with primary arbitration, packet-in/out and idle-timeout notifications.
 */
final class P4RuntimeService extends P4RuntimeGrpc.P4RuntimeImplBase {
    static final String API_VERSION = "1.4.1";
    private static final Logger LOG = Logger.getLogger("softswitch");

    private final Device device;
    private final Arbitration arbitration;
    /**
     * A pipeline saved by VERIFY_AND_SAVE, waiting for COMMIT. Until then reads and writes refer to
     * it (P4Runtime 14) while packets still meet the running one, so COMMIT puts into force the
     * entries written since the save.
     */
    private volatile Pipeline saved;

    P4RuntimeService(Device device) {
        this.device = device;
        this.arbitration = new Arbitration(device.deviceId);
        device.onPacketIn(packetIn -> arbitration.sendToPrimaries(
                StreamMessageResponse.newBuilder().setPacket(packetIn).build(),
                why -> device.count("packet-in: dropped (" + why + ")")));
        device.onIdleTimeout(n -> arbitration.sendToPrimaries(
                StreamMessageResponse.newBuilder().setIdleTimeoutNotification(n).build(),
                why -> device.count("notification: dropped (" + why + ")")) > 0);
        device.onDigestList(list -> arbitration.sendToPrimaries(StreamMessageResponse.newBuilder().setDigest(list).build(),
                why -> device.count("digest list: dropped (" + why + ")")) > 0);
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
                        Pipeline.verify(config, device.cpuPort, device);
                        break;
                    case VERIFY_AND_SAVE:
                        saved = Pipeline.verify(config, device.cpuPort, device);
                        break;
                    case VERIFY_AND_COMMIT:
                        commit(Pipeline.verify(config, device.cpuPort, device));
                        break;
                    case COMMIT:
                        // P4Runtime 14: COMMIT carries no config (an empty one, as clients send, is none,
                        // its cookie 0 too; another cookie alone is one) and commits the one saved before.
                        if (config.hasP4Info() || !config.getP4DeviceConfig().isEmpty() || config.getCookie().getCookie() != 0) {
                            throw Status.INVALID_ARGUMENT.withDescription("COMMIT takes no config: it commits the one "
                                    + "VERIFY_AND_SAVE saved").asException();
                        }
                        if (saved == null) {
                            throw Status.NOT_FOUND.withDescription(
                                    "no saved config to COMMIT: send VERIFY_AND_SAVE first").asException();
                        }
                        commit(saved);
                        break;
                    case RECONCILE_AND_COMMIT: {
                        if (!config.hasP4Info()) {
                            throw Status.INVALID_ARGUMENT.withDescription("config.p4info is missing").asException();
                        }
                        Pipeline current = device.pipeline();
                        if (current == null) {
                            // No forwarding state to keep: reconciling is committing (P4Runtime 14).
                            commit(Pipeline.verify(config, device.cpuPort, device));
                            break;
                        }
                        Pipeline reconciled = current.reconciledTo(config);
                        if (reconciled == null) {
                            // P4Runtime 14: INVALID_ARGUMENT where the forwarding state cannot be preserved.
                            throw Status.INVALID_ARGUMENT.withDescription("softswitch reconciles only to the program "
                                    + "it runs (keeping its state); use VERIFY_AND_COMMIT for another one").asException();
                        }
                        commit(reconciled);   // a config saved before is dropped
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

    private void commit(Pipeline p) {
        saved = null;
        device.setPipeline(p);
        LOG.info("pipeline committed: " + p.sw.program.tables.size() + " tables");
    }

    @Override
    public void getForwardingPipelineConfig(GetForwardingPipelineConfigRequest request,
                                            StreamObserver<GetForwardingPipelineConfigResponse> response) {
        try {
            checkDevice(request.getDeviceId());
            Pipeline p = device.pipeline();
            GetForwardingPipelineConfigResponse.Builder answer = GetForwardingPipelineConfigResponse.newBuilder();
            if (p != null) {   // P4Runtime 15: no pipeline yet, no config in the answer
                ForwardingPipelineConfig.Builder c = answer.getConfigBuilder();
                if (p.config.hasCookie()) {   // unset when the pipeline came from `softswitch run --p4`
                    c.setCookie(p.config.getCookie());
                }
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
                    case COOKIE_ONLY:
                        break;
                    default:
                        throw Status.INVALID_ARGUMENT.withDescription("response_type " + request.getResponseTypeValue()
                                + " is none of ALL, COOKIE_ONLY, P4INFO_AND_COOKIE, DEVICE_CONFIG_AND_COOKIE").asException();
                }
            }
            response.onNext(answer.build());
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
            Pipeline p = entitiesPipeline();
            WriteRequest.Atomicity atomicity = request.getAtomicity();
            if (atomicity == WriteRequest.Atomicity.UNRECOGNIZED) {
                throw Status.INVALID_ARGUMENT.withDescription("unknown atomicity " + request.getAtomicityValue()).asException();
            }
            if (atomicity == WriteRequest.Atomicity.DATAPLANE_ATOMIC && device.fastPathRunning()) {
                throw Status.UNIMPLEMENTED.withDescription("DATAPLANE_ATOMIC with the kernel fast path on: its tables change "
                        + "entry by entry under the packets it forwards; use ROLLBACK_ON_ERROR, or run without --fast-path")
                        .asException();
            }
            List<Error> errors;
            // Packets wait for the switch while a batch is applied (V1ModelSwitch.process holds it too), so
            // the interpreter sees a DATAPLANE_ATOMIC batch whole or not at all.
            synchronized (p.sw) {
                errors = atomicity == WriteRequest.Atomicity.CONTINUE_ON_ERROR
                        ? eachOnItsOwn(p, request.getUpdatesList()) : allOrNone(p, request.getUpdatesList());
            }
            Answers.write(errors, response);
        } catch (StatusException e) {
            response.onError(e);
        }
    }

    /** CONTINUE_ON_ERROR: every update is tried; each has its own outcome. */
    private static List<Error> eachOnItsOwn(Pipeline p, List<Update> updates) {
        List<Error> errors = new ArrayList<>(updates.size());
        for (Update u : updates) {
            errors.add(attempt(() -> p.entities.apply(u.getType(), u.getEntity())));
        }
        return errors;
    }

    /** One update or read request of a batch. */
    private interface Step {
        void run() throws EntityException;
    }

    /** The p4.v1.Error of one step of a batch: OK, or what it failed with. */
    private static Error attempt(Step step) {
        try {
            step.run();
            return OK;
        } catch (EntityException | RuntimeException e) {
            return failure(e);
        }
    }

    /**
     * ROLLBACK_ON_ERROR and DATAPLANE_ATOMIC: the updates in order until one fails; then those
     * applied are undone, last first (each undo read from the switch before its update), and the
     * switch is as before the batch. The failed update has its error, the others ABORTED.
     */
    private static List<Error> allOrNone(Pipeline p, List<Update> updates) {
        List<List<Update>> undos = new ArrayList<>(updates.size());
        for (int i = 0; i < updates.size(); i++) {
            Update u = updates.get(i);
            try {
                List<Update> undo = p.entities.undoOf(u);
                p.entities.apply(u.getType(), u.getEntity());
                undos.add(undo);
            } catch (EntityException | RuntimeException e) {
                Error failed = failure(e);
                String restored = rollBack(p, undos);
                String why = "update " + i + " of the batch failed (" + Code.forNumber(failed.getCanonicalCode()) + ")";
                List<Error> errors = new ArrayList<>(updates.size());
                for (int j = 0; j < updates.size(); j++) {
                    errors.add(j == i ? failed : j > i ? aborted("not attempted: " + why)
                            : restored == null ? aborted("rolled back: " + why)
                            : Error.newBuilder().setCanonicalCode(Code.INTERNAL_VALUE)
                                    .setMessage(Answers.bounded("not rolled back after " + why + ": " + restored)).build());
                }
                return errors;
            }
        }
        return Collections.nCopies(updates.size(), OK);
    }

    /** Applies the undos, last update first; null when all went through, else what refused one. */
    private static String rollBack(Pipeline p, List<List<Update>> undos) {
        String problem = null;
        for (int j = undos.size() - 1; j >= 0; j--) {
            for (Update undo : undos.get(j)) {
                try {
                    p.entities.apply(undo.getType(), undo.getEntity());
                } catch (EntityException | RuntimeException e) {
                    problem = e.getMessage();
                    LOG.log(Level.SEVERE, "a rollback could not undo update " + j + " of a batch; the switch may "
                            + "differ from before it: " + e.getMessage());
                }
            }
        }
        return problem;
    }

    private static final Error OK = Error.newBuilder().setCanonicalCode(Code.OK_VALUE).build();

    private static Error aborted(String message) {
        return Error.newBuilder().setCanonicalCode(Code.ABORTED_VALUE).setMessage(Answers.bounded(message)).build();
    }

    private static Error failure(Exception e) {
        if (e instanceof EntityException) {
            return Error.newBuilder().setCanonicalCode(code(((EntityException) e).code()).getNumber())
                    .setMessage(Answers.bounded(e.getMessage())).build();
        }
        return Error.newBuilder().setCanonicalCode(Code.INTERNAL_VALUE)
                .setMessage(Answers.bounded("internal error: " + e)).build();
    }

    @Override
    public void read(ReadRequest request, StreamObserver<ReadResponse> response) {
        try {
            checkDevice(request.getDeviceId());
            Pipeline p = entitiesPipeline();
            Answers.requireEntitiesSet(request);
            List<Entity> found = new ArrayList<>();
            List<Error> errors = new ArrayList<>();
            synchronized (p.sw) {
                for (Entity e : request.getEntitiesList()) {
                    errors.add(attempt(() -> found.addAll(p.entities.read(e))));
                }
            }
            Answers.read(found, errors, response);
        } catch (StatusException e) {
            response.onError(e);
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
                        arbitration.arbitrate(controller, request.getArbitration(), "switch");
                        break;
                    case PACKET:
                        if (!arbitration.isPrimary(controller)) {
                            controller.send(streamError(request, Code.PERMISSION_DENIED,
                                    "packet-out from a controller that is not the primary: only the primary's are sent"
                                            + " (arbitrate first, or with a higher election_id)"));
                            return;
                        }
                        try {
                            device.packetOut(request.getPacket());
                        } catch (IllegalArgumentException e) {
                            device.count("packet-out: rejected");
                            controller.send(streamError(request, Code.INVALID_ARGUMENT, e.getMessage()));
                        } catch (IllegalStateException e) {   // no pipeline yet, as for Read and Write
                            device.count("packet-out: rejected");
                            controller.send(streamError(request, Code.FAILED_PRECONDITION, e.getMessage()));
                        }
                        break;
                    case DIGEST_ACK:
                        if (!arbitration.isPrimary(controller)) {
                            controller.send(streamError(request, Code.PERMISSION_DENIED,
                                    "digest ack from a controller that is not the primary"));
                        } else if (!device.digestAck(request.getDigestAck())) {
                            controller.send(streamError(request, Code.INVALID_ARGUMENT, "no digest with ID "
                                    + request.getDigestAck().getDigestId() + " in the current pipeline"));
                        }
                        break;
                    default:
                        controller.send(streamError(request, Code.UNIMPLEMENTED, "stream message " + request.getUpdateCase()
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
                controller.close();
            }
        };
    }

    /** A stream error naming the message that caused it (P4Runtime 16.5: its details say which kind). */
    private static StreamMessageResponse streamError(StreamMessageRequest cause, Code code, String message) {
        StreamError.Builder e = StreamError.newBuilder().setCanonicalCode(code.getNumber()).setMessage(message);
        switch (cause.getUpdateCase()) {
            case PACKET:
                e.getPacketOutBuilder().setPacketOut(cause.getPacket());
                break;
            case DIGEST_ACK:
                e.getDigestListAckBuilder().setDigestListAck(cause.getDigestAck());
                break;
            case OTHER:
                e.getOtherBuilder().setOther(cause.getOther());
                break;
            default:
                break;
        }
        return StreamMessageResponse.newBuilder().setError(e).build();
    }

    private void checkDevice(long id) throws StatusException {
        if (id != device.deviceId) {
            throw Status.NOT_FOUND.withDescription("this switch is device " + device.deviceId + ", not " + id).asException();
        }
    }

    /** The pipeline reads and writes refer to: the saved one while a COMMIT is awaited, else the running one. */
    private Pipeline entitiesPipeline() throws StatusException {
        Pipeline s = saved;
        return s != null ? s : requirePipeline();
    }

    private Pipeline requirePipeline() throws StatusException {
        Pipeline p = device.pipeline();
        if (p == null) {
            throw Status.FAILED_PRECONDITION.withDescription("no forwarding pipeline is set; "
                    + "send SetForwardingPipelineConfig first").asException();
        }
        return p;
    }

    static Code code(EntityException.Code c) {
        return Code.valueOf(c.name());
    }
}
