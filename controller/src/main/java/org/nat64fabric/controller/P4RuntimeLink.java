package org.nat64fabric.controller;

import com.google.protobuf.ByteString;
import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.nat64fabric.core.config.ManagementAddress;
import org.nat64fabric.core.control.CounterReading;
import org.nat64fabric.core.control.Nat64Fabric;
import org.nat64fabric.core.control.SwitchLink;
import org.nat64fabric.core.fabric.TableEntry;
import org.nat64fabric.core.p4.SumeHeaders;
import p4.config.v1.P4InfoOuterClass.ControllerPacketMetadata;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.ForwardingPipelineConfig;
import p4.v1.P4RuntimeOuterClass.GetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.PacketMetadata;
import p4.v1.P4RuntimeOuterClass.PacketOut;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.ReadResponse;
import p4.v1.P4RuntimeOuterClass.SetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * One switch over P4Runtime: connects (and reconnects, after a switch or link restart), becomes
 * primary controller, sets the pipeline unless the switch already runs it (same cookie: a
 * controller restart keeps the switch's entries and reconciles them), then hands the switch to
 * {@link Nat64Fabric}. Stream events (packet-ins, idle timeouts) go to the fabric on
 * {@code events}, one at a time, in order.
 */
final class P4RuntimeLink implements SwitchLink {
    private static final Logger LOG = Logger.getLogger(P4RuntimeLink.class.getName());
    /** Updates per write whose per-update errors fit in a gRPC trailer of a default client (8 KiB). */
    private static final int SETTLED_PART = 64;
    private static final int MAX_TRAILERS = 4 << 20;
    private static final long RETRY_MS = 1000;
    private static final String ETHER_TYPE = "ether_type";

    private final String deviceId;
    private final String target;
    private final ChannelCredentials credentials;
    private final long p4DeviceId;
    /** Ours, or above the highest the switch has seen when it has no primary (P4Runtime 5.3). */
    private volatile Uint128 electionId;
    /** "Waiting as backup" is said once per link. */
    private volatile boolean backupSaid;
    private final EntryCodec codec;
    private final CounterReader counterReader;
    private final ByteString deviceConfig;
    private final long cookie;
    /** The metadata of every packet-out that goes through the pipeline: built once, sent with each setup. */
    private final List<PacketMetadata> toPipeline;
    /** Whether packet_out has ether_type (a NetFPGA SUME): a frame too long for its DMA goes without Ethernet. */
    private final boolean etherTypeField;
    /** packet_in's metadata ids by name, looked up per packet-in. */
    private final Map<String, Integer> packetInIds;
    private final Nat64Fabric fabric;
    private final ExecutorService events;
    private volatile boolean running = true;
    private volatile ManagedChannel channel;
    private volatile StreamObserver<StreamMessageRequest> stream;
    /** What of the desired state this switch's pipeline cannot hold: logged once each, then skipped. */
    private final Set<String> missing = ConcurrentHashMap.newKeySet();

    /** {@code tls} serves the switches whose address is {@code grpcs://}. */
    P4RuntimeLink(String deviceId, String managementAddress, ChannelCredentials tls, EntryCodec codec,
                  byte[] deviceConfig, long electionId, Nat64Fabric fabric, ExecutorService events) {
        this.deviceId = deviceId;
        ManagementAddress a = ManagementAddress.parse(managementAddress, "devices." + deviceId
                + ".basic.managementAddress");
        this.target = a.target;
        this.credentials = a.tls ? tls : InsecureChannelCredentials.create();
        this.p4DeviceId = a.deviceId;
        this.electionId = Uint128.newBuilder().setLow(electionId).build();
        this.codec = codec;
        this.counterReader = new CounterReader(codec.p4info());
        this.deviceConfig = ByteString.copyFrom(deviceConfig);
        this.cookie = (Arrays.hashCode(codec.p4info().toByteArray()) * 31L + Arrays.hashCode(deviceConfig))
                & 0x7fffffffffffffffL;
        this.toPipeline = packetOutMetadata(Map.of("to_pipeline", 1));
        this.etherTypeField = hasPacketOut(ETHER_TYPE);
        this.packetInIds = metadataOf("packet_in").stream().collect(
                Collectors.toMap(ControllerPacketMetadata.Metadata::getName, ControllerPacketMetadata.Metadata::getId));
        this.fabric = fabric;
        this.events = events;
    }

    /** Runs the connection loop on its own thread until {@link #stop()}. */
    void start() {
        Thread t = new Thread(this::loop, "p4rt-" + deviceId);
        t.setDaemon(true);
        t.start();
    }

    void stop() {
        running = false;
        ManagedChannel c = channel;
        if (c != null) {
            c.shutdownNow();
        }
    }

    private void loop() {
        String announced = null;   // the failure last said, said again only when it changes
        while (running) {
            try {
                session();
                announced = null;
            } catch (RuntimeException e) {
                if (!e.getMessage().equals(announced)) {
                    LOG.info(deviceId + " (" + target + "): not reachable yet, retrying every second ("
                            + e.getMessage() + ")");
                    announced = e.getMessage();
                }
            } finally {
                if (running) {
                    events.execute(() -> fabric.disconnected(deviceId));
                }
                ManagedChannel c = channel;
                if (c != null) {
                    c.shutdownNow();
                }
            }
            sleep(RETRY_MS);
        }
    }

    /** One connection, from arbitration until the stream ends. */
    private void session() {
        // Stream messages are handled on the I/O thread: a packet-in is parsed and queued, no more
        // (idle notifications go to the events executor), so a hand-off per message would cost more.
        // a failed write's per-update errors can outgrow gRPC's default 8 KiB of trailers
        channel = NettyChannelBuilder.forTarget(target, credentials).directExecutor()
                .maxInboundMetadataSize(MAX_TRAILERS).build();
        CountDownLatch primary = new CountDownLatch(1);
        CountDownLatch closed = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        stream = P4RuntimeGrpc.newStub(channel).streamChannel(new StreamObserver<>() {
            @Override
            public void onNext(StreamMessageResponse m) {
                if (m.hasArbitration()) {
                    arbitrated(m.getArbitration(), primary);
                } else if (m.hasPacket()) {
                    List<PacketMetadata> md = m.getPacket().getMetadataList();
                    int reason = metadata(md, "punt_reason");
                    byte[] frame = m.getPacket().getPayload().toByteArray();
                    if (reason == Nat64Fabric.PUNT_FINISH) {
                        guard(() -> fabric.finish(deviceId, frame, metadata(md, "finish"), metadata(md, "out_port"),
                                metadata(md, "truncate_to"), metadata(md, "error_type"), metadata(md, "error_code"),
                                metadata(md, "error_param")));
                    } else {
                        // parses and queues: safe on gRPC's thread
                        guard(() -> fabric.packetIn(deviceId, reason, metadata(md, "finish"),
                                metadata(md, "ingress_port"), frame));
                    }
                } else if (m.hasIdleTimeoutNotification()) {
                    events.execute(() -> guard(() -> {   // one batch per notification
                        List<TableEntry> entries = new ArrayList<>();
                        m.getIdleTimeoutNotification().getTableEntryList().forEach(e -> entries.add(codec.decode(e)));
                        fabric.idle(deviceId, entries);
                    }));
                }
            }

            @Override
            public void onError(Throwable t) {
                failure.set(t);
                closed.countDown();
                primary.countDown();
            }

            @Override
            public void onCompleted() {
                closed.countDown();
                primary.countDown();
            }
        });
        send(StreamMessageRequest.newBuilder().setArbitration(MasterArbitrationUpdate.newBuilder()
                .setDeviceId(p4DeviceId).setElectionId(electionId)).build());
        await(primary);
        if (closed.getCount() == 0) {
            throw new IllegalStateException("stream closed before arbitration" + whyClosed(failure.get()));
        }
        boolean fresh = setPipelineUnlessRunning();
        CountDownLatch ready = new CountDownLatch(1);
        events.execute(() -> {
            try {
                fabric.connected(this);
                guard(this::reportLongIdle);   // reconciled whatever it finds: a failure here drops nothing
            } catch (RuntimeException e) {
                // A switch left unreconciled would get no writes: drop the connection and start again.
                LOG.warning(deviceId + ": reconciliation failed (" + e.getMessage() + "); reconnecting");
                ManagedChannel c = channel;
                if (c != null) {
                    c.shutdownNow();
                }
            } finally {
                ready.countDown();
            }
        });
        await(ready);
        LOG.info(deviceId + " (" + target + "): connected, pipeline " + (fresh ? "set" : "kept (already running)"));
        await(closed);
        LOG.warning(deviceId + " (" + target + "): stream closed; reconnecting");
    }

    /**
     * The switch's answer to our arbitration, or news of another controller's. Primary: we go on.
     * No primary, but the switch saw a higher election_id than ours (a controller that is gone,
     * P4Runtime 5.3): we ask again above it, as a restarted controller outranks its predecessor.
     * Another primary: we wait as backup, said once. Demoted while primary: the connection starts
     * again (the switch is not ours to write meanwhile).
     */
    private void arbitrated(MasterArbitrationUpdate a, CountDownLatch primary) {
        int code = a.getStatus().getCode();
        if (code == Status.Code.OK.value()) {
            backupSaid = false;
            primary.countDown();
            return;
        }
        String highest = new java.math.BigInteger(Long.toUnsignedString(a.getElectionId().getHigh()))
                .shiftLeft(64).add(new java.math.BigInteger(Long.toUnsignedString(a.getElectionId().getLow()))).toString();
        if (primary.getCount() == 0) {
            LOG.warning(deviceId + ": another controller (election_id " + highest + ") became primary; reconnecting"
                    + " to wait as backup");
            ManagedChannel c = channel;
            if (c != null) {
                c.shutdownNow();
            }
        } else if (code == Status.Code.NOT_FOUND.value() && a.hasElectionId() && !above(electionId, a.getElectionId())
                && !(a.getElectionId().getHigh() == -1L && a.getElectionId().getLow() == -1L)) {   // none above the highest
            Uint128 seen = a.getElectionId();
            electionId = seen.getLow() == -1L ? Uint128.newBuilder().setHigh(seen.getHigh() + 1).build()
                    : seen.toBuilder().setLow(seen.getLow() + 1).build();
            LOG.warning(deviceId + ": the switch has no primary but has seen election_id " + highest
                    + ", above ours: arbitrating again above it");
            send(StreamMessageRequest.newBuilder().setArbitration(MasterArbitrationUpdate.newBuilder()
                    .setDeviceId(p4DeviceId).setElectionId(electionId)).build());
        } else if (!backupSaid) {
            backupSaid = true;
            LOG.warning(deviceId + ": not primary (" + a.getStatus().getMessage() + ", election_id " + highest
                    + "): waiting as backup until that controller goes");
        }
    }

    /** Whether election_id a is above b (both unsigned 128-bit). */
    private static boolean above(Uint128 a, Uint128 b) {
        int high = Long.compareUnsigned(a.getHigh(), b.getHigh());
        return high > 0 || high == 0 && Long.compareUnsigned(a.getLow(), b.getLow()) > 0;
    }

    /**
     * Entries the switch kept while no controller listened (this one restarted) and that were
     * idle for their whole timeout by then: reported at once, as the switch's notifications would
     * have, from the time since their last hit (P4Runtime 9.1.8), so that their sessions do not
     * outlive their lifetime by another one.
     */
    private void reportLongIdle() {
        ReadRequest r = ReadRequest.newBuilder().setDeviceId(p4DeviceId).addEntities(Entity.newBuilder()
                .setTableEntry(p4.v1.P4RuntimeOuterClass.TableEntry.newBuilder()
                        .setTimeSinceLastHit(p4.v1.P4RuntimeOuterClass.TableEntry.IdleTimeout.getDefaultInstance())))
                .build();
        List<TableEntry> idle = new ArrayList<>();
        try {
            P4RuntimeGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS).read(r).forEachRemaining(
                    resp -> resp.getEntitiesList().stream().map(Entity::getTableEntry)
                            .filter(e -> e.getIdleTimeoutNs() > 0 && e.hasTimeSinceLastHit()
                                    && e.getTimeSinceLastHit().getElapsedNs() >= e.getIdleTimeoutNs())
                            .forEach(e -> idle.add(codec.decode(e))));
        } catch (StatusRuntimeException e) {
            LOG.info(deviceId + ": no idle times read (" + describe(e) + "): idle entries are reported as the switch"
                    + " notifies them");
            return;
        }
        if (!idle.isEmpty()) {
            LOG.info(deviceId + ": " + idle.size() + " entries idle for their whole timeout while no controller"
                    + " listened: reported idle");
            fabric.idle(deviceId, idle);
        }
    }

    /** Sets the pipeline unless the switch runs ours; true when set. */
    private boolean setPipelineUnlessRunning() {
        P4RuntimeGrpc.P4RuntimeBlockingStub stub = P4RuntimeGrpc.newBlockingStub(channel);
        try {
            ForwardingPipelineConfig running = stub.getForwardingPipelineConfig(GetForwardingPipelineConfigRequest
                    .newBuilder().setDeviceId(p4DeviceId)
                    .setResponseType(GetForwardingPipelineConfigRequest.ResponseType.COOKIE_ONLY).build()).getConfig();
            if (running.hasCookie() && running.getCookie().getCookie() == cookie) {
                return false;
            }
        } catch (StatusRuntimeException e) {
            // no pipeline yet
        }
        stub.setForwardingPipelineConfig(SetForwardingPipelineConfigRequest.newBuilder()
                .setDeviceId(p4DeviceId).setElectionId(electionId)
                .setAction(SetForwardingPipelineConfigRequest.Action.VERIFY_AND_COMMIT)
                .setConfig(ForwardingPipelineConfig.newBuilder().setP4Info(codec.p4info())
                        .setP4DeviceConfig(deviceConfig)
                        .setCookie(ForwardingPipelineConfig.Cookie.newBuilder().setCookie(cookie))).build());
        return true;
    }

    @Override
    public String deviceId() {
        return deviceId;
    }

    @Override
    public void write(List<SwitchLink.Update> updates) {
        if (updates.isEmpty()) {
            return;
        }
        // gathered in a list sized for one entity per update, then added at once: the request's own list grew step by step
        List<p4.v1.P4RuntimeOuterClass.Update> encoded = new ArrayList<>(updates.size());
        for (SwitchLink.Update u : updates) {
            Optional<String> unsupported = codec.unsupported(u.entity);
            if (unsupported.isPresent()) {
                if (missing.add(unsupported.get())) {
                    LOG.info(deviceId + ": the pipeline has " + unsupported.get());
                }
                continue;
            }
            p4.v1.P4RuntimeOuterClass.Update.Type type = p4.v1.P4RuntimeOuterClass.Update.Type.valueOf(u.type.name());
            for (Entity e : codec.encode(u.entity)) {
                encoded.add(p4.v1.P4RuntimeOuterClass.Update.newBuilder().setType(type).setEntity(e).build());
            }
        }
        if (encoded.isEmpty()) {
            return;
        }
        try {
            writeRequest(encoded);
        } catch (StatusRuntimeException e) {
            if (!settled(encoded, e)) {
                throw new SwitchException(deviceId + ": write of " + updates.size() + " updates failed: "
                        + describe(e), e);
            }
        }
    }

    /**
     * Whether a failed write was only stale ({@link #settling}) and is now settled. A server that
     * left the per-update errors out (more than a gRPC trailer carries) is sent the batch again in
     * parts small enough for theirs: settling makes sending an update twice harmless.
     */
    private boolean settled(List<p4.v1.P4RuntimeOuterClass.Update> sent, StatusRuntimeException e) {
        Optional<List<p4.v1.P4RuntimeOuterClass.Update>> again = settling(sent, e);
        com.google.rpc.Status status = StatusProto.fromThrowable(e);
        if (again.isEmpty() && e.getStatus().getCode() == Status.Code.UNKNOWN && sent.size() > SETTLED_PART
                && (status == null || status.getDetailsCount() == 0)) {
            for (int from = 0; from < sent.size(); from += SETTLED_PART) {
                List<p4.v1.P4RuntimeOuterClass.Update> part = sent.subList(from, Math.min(sent.size(), from + SETTLED_PART));
                try {
                    writeRequest(part);
                } catch (StatusRuntimeException partFailed) {
                    if (!settled(part, partFailed)) {
                        return false;
                    }
                }
            }
            return true;
        }
        if (again.isEmpty()) {
            return false;
        }
        LOG.fine(() -> deviceId + ": " + (sent.size() - again.get().size()) + " stale updates done, "
                + again.get().size() + " written again");
        try {
            writeRequest(again.get());
            return true;
        } catch (StatusRuntimeException stillFailing) {
            return false;
        }
    }

    private void writeRequest(List<p4.v1.P4RuntimeOuterClass.Update> updates) {
        if (updates.isEmpty()) {
            return;
        }
        P4RuntimeGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).write(WriteRequest.newBuilder()
                .setDeviceId(p4DeviceId).setElectionId(electionId).addAllUpdates(updates).build());
    }

    /**
     * A write queued before the switch's state changed under it (a reconciliation, an entry the
     * switch let go) may find an entry there already or gone: its per-update errors (P4Runtime
     * 12.3) tell which. An insert of an entry that exists becomes a modify, a modify of one that is
     * gone an insert, a delete of one that is gone is done: the updates that settle the batch, with
     * no reconciliation. Empty when an update failed otherwise or the errors are not per update.
     */
    static Optional<List<p4.v1.P4RuntimeOuterClass.Update>> settling(
            List<p4.v1.P4RuntimeOuterClass.Update> sent, StatusRuntimeException e) {
        com.google.rpc.Status status = StatusProto.fromThrowable(e);
        if (e.getStatus().getCode() != Status.Code.UNKNOWN || status == null
                || status.getDetailsCount() != sent.size()) {
            return Optional.empty();
        }
        boolean failed = false;
        List<p4.v1.P4RuntimeOuterClass.Update> again = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++) {
            p4.v1.P4RuntimeOuterClass.Error error;
            try {
                error = status.getDetails(i).unpack(p4.v1.P4RuntimeOuterClass.Error.class);
            } catch (com.google.protobuf.InvalidProtocolBufferException notAnError) {
                return Optional.empty();
            }
            Status.Code code = Status.fromCodeValue(error.getCanonicalCode()).getCode();
            failed |= code != Status.Code.OK;
            p4.v1.P4RuntimeOuterClass.Update u = sent.get(i);
            if (code == Status.Code.OK || code == Status.Code.NOT_FOUND
                    && u.getType() == p4.v1.P4RuntimeOuterClass.Update.Type.DELETE) {
                continue;
            }
            if (code == Status.Code.ALREADY_EXISTS && u.getType() == p4.v1.P4RuntimeOuterClass.Update.Type.INSERT) {
                again.add(u.toBuilder().setType(p4.v1.P4RuntimeOuterClass.Update.Type.MODIFY).build());
            } else if (code == Status.Code.NOT_FOUND && u.getType() == p4.v1.P4RuntimeOuterClass.Update.Type.MODIFY) {
                again.add(u.toBuilder().setType(p4.v1.P4RuntimeOuterClass.Update.Type.INSERT).build());
            } else {
                return Optional.empty();
            }
        }
        return failed ? Optional.of(again) : Optional.empty();   // every update OK: the call failed otherwise
    }

    @Override
    public List<org.nat64fabric.core.fabric.Entity> read() {
        List<Entity> read = new ArrayList<>();
        ReadRequest r = ReadRequest.newBuilder().setDeviceId(p4DeviceId).addAllEntities(codec.readRequest()).build();
        try {
            Iterator<ReadResponse> it = P4RuntimeGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                    .read(r);
            it.forEachRemaining(resp -> read.addAll(resp.getEntitiesList()));
        } catch (StatusRuntimeException e) {
            throw new SwitchException(deviceId + ": read failed: " + describe(e), e);
        }
        return codec.decode(read);
    }

    @Override
    public Optional<CounterReading> readCounters() {
        Optional<ReadRequest> r = counterReader.request(p4DeviceId);
        if (r.isEmpty()) {
            return Optional.empty();
        }
        List<Entity> read = new ArrayList<>();
        try {
            P4RuntimeGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).read(r.get())
                    .forEachRemaining(resp -> read.addAll(resp.getEntitiesList()));
        } catch (StatusRuntimeException e) {
            throw new SwitchException(deviceId + ": counter read failed: " + describe(e), e);
        }
        return Optional.of(counterReader.decode(read));
    }

    @Override
    public void packetOut(byte[] frame) {
        throughPipeline(frame, null);
    }

    @Override
    public void packetOut(byte[] frame, int port) {
        packetOut(frame, packetOutMetadata(Map.of("egress_port", port)));
    }

    @Override
    public boolean hairpin(byte[] frame) {
        return hasPacketOut("hairpinned") && throughPipeline(frame, "hairpinned");
    }

    @Override
    public boolean probe(byte[] frame) {
        return hasPacketOut("probe") && throughPipeline(frame, "probe");
    }

    /**
     * Through the pipeline, with packet_out's {@code mark} set where not null; a frame that would
     * not fit a NetFPGA SUME's DMA goes without its Ethernet header (packet_out.ether_type).
     */
    private boolean throughPipeline(byte[] frame, String mark) {
        int etherType = etherTypeField ? SumeHeaders.etherTypeLeftOut(ByteBuffer.wrap(frame)) : 0;
        if (etherType == 0 && mark == null) {
            packetOut(frame, toPipeline);
            return true;
        }
        Map<String, Integer> values = new HashMap<>(Map.of("to_pipeline", 1, ETHER_TYPE, etherType));
        if (mark != null) {
            values.put(mark, 1);
        }
        packetOut(frame, etherType == 0 ? 0 : SumeHeaders.ETHERNET, packetOutMetadata(values));
        return true;
    }

    private boolean hasPacketOut(String field) {
        return metadataOf("packet_out").stream().anyMatch(m -> m.getName().equals(field));
    }

    private void packetOut(byte[] frame, List<PacketMetadata> metadata) {
        packetOut(frame, 0, metadata);
    }

    /** The frame from byte {@code from} on, behind packet_out's metadata. */
    private void packetOut(byte[] frame, int from, List<PacketMetadata> metadata) {
        send(StreamMessageRequest.newBuilder().setPacket(PacketOut.newBuilder()
                .setPayload(ByteString.copyFrom(frame, from, frame.length - from)).addAllMetadata(metadata)).build());
    }

    /** packet_out's metadata with these values by name, the others 0. */
    private List<PacketMetadata> packetOutMetadata(Map<String, Integer> values) {
        List<PacketMetadata> out = new ArrayList<>();
        for (ControllerPacketMetadata.Metadata m : metadataOf("packet_out")) {
            out.add(PacketMetadata.newBuilder().setMetadataId(m.getId())
                    .setValue(EntryCodec.bytes(BigInteger.valueOf(values.getOrDefault(m.getName(), 0)))).build());
        }
        return out;
    }

    private List<ControllerPacketMetadata.Metadata> metadataOf(String header) {
        return codec.p4info().getControllerPacketMetadataList().stream()
                .filter(c -> c.getPreamble().getName().equals(header)).findFirst()
                .map(ControllerPacketMetadata::getMetadataList).orElse(List.of());
    }

    /** A packet-in's metadata field by name; 0 where the packet-in or its header has none. */
    private int metadata(List<PacketMetadata> values, String name) {
        Integer id = packetInIds.get(name);
        if (id != null) {
            for (PacketMetadata v : values) {
                if (v.getMetadataId() == id) {
                    int n = 0;
                    for (int i = 0; i < v.getValue().size(); i++) {
                        n = n << 8 | v.getValue().byteAt(i) & 0xff;
                    }
                    return n;
                }
            }
        }
        return 0;
    }

    private synchronized void send(StreamMessageRequest m) {
        StreamObserver<StreamMessageRequest> s = stream;
        if (s != null) {
            s.onNext(m);
        }
    }

    /** An event the fabric could not handle is logged, one line; the link goes on. */
    private void guard(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            // a switch's failure names that switch, which may be another one than this link's
            LOG.warning(cause instanceof SwitchException ? cause.getMessage() : deviceId + ": " + cause);
        }
    }

    /** A failed call in one line: its code, description and cause (grpc's Status prints the cause's stack). */
    /** Why a stream ended, for the log: gRPC's status and its cause, and where TLS refused, what to check. */
    private static String whyClosed(Throwable t) {
        if (t == null) {
            return "";
        }
        boolean tls = false;
        for (Throwable c = t; c != null; c = c.getCause()) {
            tls |= c instanceof javax.net.ssl.SSLException;
        }
        return ": " + (t instanceof StatusRuntimeException ? describe((StatusRuntimeException) t) : t.toString())
                + (tls ? "; the TLS handshake failed: check --p4rt-ca-cert (the CA of the switch's certificate), the"
                + " name in the switch's certificate, and --p4rt-cert/--p4rt-key where the switch asks for a client's" : "");
    }

    static String describe(StatusRuntimeException e) {
        Status s = e.getStatus();
        return s.getCode() + (s.getDescription() == null ? "" : ": " + s.getDescription())
                + (s.getCause() == null ? "" : " (" + s.getCause().getMessage() + ")");
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
