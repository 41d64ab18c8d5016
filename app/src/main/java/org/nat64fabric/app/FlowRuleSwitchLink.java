package org.nat64fabric.app;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.nat64fabric.core.control.CounterReading;
import org.nat64fabric.core.control.SwitchLink;
import org.nat64fabric.core.fabric.CloneSession;
import org.nat64fabric.core.fabric.Entity;
import org.nat64fabric.core.fabric.MeterConfig;
import org.nat64fabric.core.fabric.TableEntry;
import org.nat64fabric.core.p4.SumeHeaders;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.flow.TrafficSelector;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.group.DefaultGroupBucket;
import org.onosproject.net.group.DefaultGroupDescription;
import org.onosproject.net.group.DefaultGroupKey;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupKey;
import org.onosproject.net.group.GroupService;
import org.onosproject.net.meter.Band;
import org.onosproject.net.meter.DefaultBand;
import org.onosproject.net.meter.DefaultMeterRequest;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterScope;
import org.onosproject.net.meter.MeterService;
import org.onosproject.net.meter.MeterState;
import org.onosproject.net.flow.instructions.PiInstruction;
import org.onosproject.net.packet.DefaultOutboundPacket;
import org.onosproject.net.packet.PacketService;
import org.onosproject.net.pi.model.PiActionId;
import org.onosproject.net.pi.model.PiActionParamId;
import org.onosproject.net.pi.model.PiCounterId;
import org.onosproject.net.pi.model.PiCounterModel;
import org.onosproject.net.pi.model.PiCounterType;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.model.PiMeterId;
import org.onosproject.net.pi.model.PiMeterModel;
import org.onosproject.net.pi.model.PiPacketOperationType;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiPipelineModel;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;
import org.onosproject.net.pi.runtime.PiCounterCell;
import org.onosproject.net.pi.runtime.PiCounterCellId;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;
import org.onosproject.net.pi.runtime.PiFieldMatch;
import org.onosproject.net.pi.runtime.PiLpmFieldMatch;
import org.onosproject.net.pi.service.PiPipeconfService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A switch as ONOS drives it: table entries become flow rules with PI criteria and actions,
 * which the P4Runtime driver translates through the pipeconf; a batch's table entries are one
 * {@link FlowRuleOperations} and {@link #write} returns once the device confirmed it, so a
 * session is on every border before its first packet goes back through the pipeline.
 * Clone sessions become CLONE groups (the driver writes them to the packet replication engine,
 * the group ID as session ID); a meter's configuration becomes one ONOS meter per cell, scoped by
 * the P4 meter's name and indexed by the cell. ONOS's group and meter subsystems apply those
 * asynchronously and audit the device themselves: they are not awaited.
 * Packet-outs go to {@link PortNumber#TABLE}, which the pipeconf's interpreter maps to the
 * pipeline (a hairpin's second pass on a NetFPGA SUME with write-metadata too: {@link #hairpin}).
 * Counters: direct ones from the flow entries' statistics, indirect ones through
 * {@link CounterCells}.
 */
final class FlowRuleSwitchLink implements SwitchLink {
    /** nat64.p4 has no ternary tables, so P4Runtime ignores it; ONOS requires one. */
    static final int PRIORITY = FlowRule.MIN_PRIORITY;
    private static final Logger LOG = LoggerFactory.getLogger(FlowRuleSwitchLink.class);
    private static final long WRITE_TIMEOUT_SECONDS = 10;
    /** The packet_out field of a pipeline whose packet-outs can be a hairpin's second pass. */
    private static final String HAIRPINNED = "hairpinned";
    private static final String PROBE = "probe";

    private final DeviceId device;
    private final ApplicationId app;
    private final FlowRuleService flows;
    private final PacketService packets;
    private final GroupService groups;
    private final MeterService meters;
    private final PiPipeconfService pipeconfs;
    private final CounterCells counterCells;
    /** Rules this app asked to remove: their RULE_REMOVED events are not idle timeouts. */
    private final Set<FlowId> removing;
    /** What of the desired state the device's pipeline cannot hold: logged once each, then skipped. */
    private final Set<String> missing = ConcurrentHashMap.newKeySet();

    FlowRuleSwitchLink(DeviceId device, ApplicationId app, FlowRuleService flows, PacketService packets,
                       GroupService groups, MeterService meters, PiPipeconfService pipeconfs, CounterCells counterCells,
                       Set<FlowId> removing) {
        this.device = device;
        this.app = app;
        this.flows = flows;
        this.packets = packets;
        this.groups = groups;
        this.meters = meters;
        this.pipeconfs = pipeconfs;
        this.counterCells = counterCells;
        this.removing = removing;
    }

    @Override
    public String deviceId() {
        return device.toString();
    }

    /** ONOS removes a temporary rule that went idle and tells it once (RULE_REMOVED). */
    @Override
    public boolean renewsIdleReports() {
        return false;
    }

    /**
     * The batch's table entries first, as one confirmed flow-rule batch; then its clone sessions
     * and meters, which ONOS applies on its own: a refused meter never holds back a session.
     */
    @Override
    public void write(List<Update> updates) {
        FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
        Set<FlowId> removals = new HashSet<>();
        List<Update> others = new ArrayList<>();
        int rules = 0;
        Optional<PiPipelineModel> model = pipeconfs.getPipeconf(device).map(PiPipeconf::pipelineModel);
        for (Update u : updates) {
            Optional<String> lacks = model.flatMap(m -> lacks(m, u.entity));
            if (lacks.isPresent()) {
                if (missing.add(lacks.get())) {
                    LOG.info("{}: the pipeconf has {}", device, lacks.get());
                }
                continue;
            }
            if (!(u.entity instanceof TableEntry)) {
                others.add(u);
                continue;
            }
            rules++;
            FlowRule rule = flowRule((TableEntry) u.entity, device, app);
            switch (u.type) {
                case INSERT:
                    ops.add(rule);
                    break;
                case MODIFY:
                    ops.modify(rule);
                    break;
                default:
                    // ONOS tells the removal of a rule it still holds, and only of such a rule: one it
                    // expired already gets no event, and its ID must not swallow a later rule's expiry.
                    if (!rule.isPermanent() && live(flows.getFlowEntry(rule))) {   // the flow listener's kind
                        removals.add(rule.id());
                    }
                    ops.remove(rule);
                    break;
            }
        }
        try {
            if (rules > 0) {
                applyRules(ops, removals, updates.size());
            }
        } finally {   // a refused rule batch holds back no clone session or meter
            for (Update u : others) {
                if (u.entity instanceof CloneSession) {
                    writeCloneSession(u.type, (CloneSession) u.entity);
                } else if (u.entity instanceof MeterConfig) {
                    writeMeter((MeterConfig) u.entity);
                }
            }
        }
    }

    private static boolean live(FlowEntry f) {
        return f != null && f.state() != FlowEntry.FlowEntryState.PENDING_REMOVE
                && f.state() != FlowEntry.FlowEntryState.REMOVED;
    }

    private void applyRules(FlowRuleOperations.Builder ops, Set<FlowId> removals, int updates) {
        removing.addAll(removals);
        CompletableFuture<Void> done = new CompletableFuture<>();
        flows.apply(ops.build(new FlowRuleOperationsContext() {
            @Override
            public void onSuccess(FlowRuleOperations o) {
                done.complete(null);
            }

            @Override
            public void onError(FlowRuleOperations o) {
                done.completeExceptionally(new IllegalStateException("the device refused the batch"));
            }
        }));
        try {
            done.get(WRITE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException | InterruptedException e) {
            removing.removeAll(removals);
            throw failure(updates, e);
        }
    }

    private SwitchException failure(int updates, Exception e) {
        if (e instanceof ExecutionException) {
            return new SwitchException(device + ": " + updates + " updates not applied: "
                    + e.getCause().getMessage() + " (see the flow rule subsystem's log)", e.getCause());
        }
        if (e instanceof TimeoutException) {
            return new SwitchException(device + ": " + updates + " updates unconfirmed after " + WRITE_TIMEOUT_SECONDS
                    + " s: is the device available and running the nat64fabric pipeconf?", e);
        }
        Thread.currentThread().interrupt();
        return new SwitchException(device + ": interrupted while writing", e);
    }

    /** What ONOS holds for this app on the device: its flow rules, CLONE groups and meters. */
    @Override
    public List<Entity> read() {
        List<Entity> out = StreamSupport.stream(flows.getFlowEntriesById(app).spliterator(), false)
                .filter(f -> f.deviceId().equals(device))
                .filter(FlowRuleSwitchLink::live)
                .map(FlowRuleSwitchLink::tableEntry)
                .collect(Collectors.toList());
        for (Group g : groups.getGroups(device, app)) {
            if (g.type() == GroupDescription.Type.CLONE && g.state() != Group.GroupState.PENDING_DELETE) {
                out.add(new CloneSession(g.id().id(), g.buckets().buckets().stream()
                        .map(b -> (int) ((Instructions.OutputInstruction) b.treatment().allInstructions().get(0))
                                .port().toLong())
                        .collect(Collectors.toList())));
            }
        }
        // Every meter of the pipeline: those core configures read back whole, the others never (no cell is ours).
        for (PiMeterModel model : pipeconfs.getPipeconf(device).map(p -> p.pipelineModel().meters())
                .orElse(List.of())) {
            String meter = model.id().id();
            MeterConfig.ofCells(model.size(), meters.getMeters(device, MeterScope.of(meter)).stream()
                    .filter(m -> m.appId().equals(app) && m.state() != MeterState.PENDING_REMOVE)
                    .map(m -> meterConfig(meter, m)).collect(Collectors.toList())).ifPresent(out::add);
        }
        return out;
    }

    /**
     * Every cell of the pipeline's indirect counters, read from the device; per table with a
     * direct counter (the small ones, as the embedded controller polls them) the sum of its flow
     * entries' packets and bytes, which ONOS's flow subsystem reads from those direct counters.
     * Empty when the device has no pipeconf or its pipeline no counters (a NetFPGA SUME).
     */
    @Override
    public Optional<CounterReading> readCounters() {
        Optional<PiPipeconf> pipeconf = pipeconfs.getPipeconf(device);
        if (pipeconf.isEmpty()) {
            return Optional.empty();
        }
        PiPipelineModel model = pipeconf.get().pipelineModel();
        Map<PiCounterId, PiCounterModel> indirect = new HashMap<>();
        Set<PiTableId> tables = new HashSet<>();
        for (PiCounterModel c : model.counters()) {
            if (c.counterType() == PiCounterType.INDIRECT) {
                indirect.put(c.id(), c);
            } else if (c.counterType() == PiCounterType.DIRECT && model.table(c.table())
                    .filter(t -> t.maxSize() <= CounterReading.MAX_POLLED_TABLE_SIZE).isPresent()) {
                tables.add(c.table());   // sized by its table: ONOS gives direct counters size -1
            }
        }
        if (indirect.isEmpty() && tables.isEmpty()) {
            return Optional.empty();
        }
        Map<String, List<CounterReading.Cell>> cells = new HashMap<>();
        indirect.values().forEach(c -> cells.put(c.id().id(),
                new ArrayList<>(Collections.nCopies((int) c.size(), new CounterReading.Cell(0, 0)))));
        if (!indirect.isEmpty()) {
            for (PiCounterCell cell : counterCells.read(device, pipeconf.get(), indirect.keySet())) {
                PiCounterCellId id = cell.cellId();
                PiCounterModel c = indirect.get(id.counterId());
                if (c != null && id.counterType() == PiCounterType.INDIRECT && id.index() >= 0 && id.index() < c.size()) {
                    cells.get(c.id().id()).set((int) id.index(),
                            new CounterReading.Cell(cell.data().packets(), cell.data().bytes()));
                }
            }
        }
        Map<String, long[]> hits = new HashMap<>();
        tables.forEach(t -> hits.put(t.id(), new long[2]));
        for (FlowEntry f : flows.getFlowEntries(device)) {
            long[] sum = f.table() instanceof PiTableId ? hits.get(((PiTableId) f.table()).id()) : null;
            if (sum != null) {
                sum[0] += f.packets();
                sum[1] += f.bytes();
            }
        }
        Map<String, CounterReading.Cell> tableHits = new HashMap<>();
        hits.forEach((t, sum) -> tableHits.put(t, new CounterReading.Cell(sum[0], sum[1])));
        return Optional.of(new CounterReading(cells, tableHits));
    }

    /**
     * What of the desired state the device's pipeline cannot hold, as the embedded controller
     * decides it from the P4Info: a table it lacks (the NetFPGA SUME variant has no ICMP error or
     * subscriber tables), or a clone session on a target without a packet replication engine
     * (architecture "sume"). Meters it lacks are skipped where they are written.
     */
    private static Optional<String> lacks(PiPipelineModel model, Entity e) {
        if (e instanceof TableEntry && model.table(PiTableId.of(((TableEntry) e).table())).isEmpty()) {
            return Optional.of("no table " + ((TableEntry) e).table() + ": its entries are not written");
        }
        if (e instanceof CloneSession && model.architecture().filter("sume"::equals).isPresent()) {
            return Optional.of("no packet replication (sume): no clone sessions");
        }
        return Optional.empty();
    }

    /** The session as a CLONE group: one bucket per copy, the group ID as session ID. */
    private void writeCloneSession(Update.Type type, CloneSession c) {
        GroupKey key = new DefaultGroupKey(c.key().getBytes(StandardCharsets.UTF_8));
        if (type == Update.Type.DELETE) {
            groups.removeGroup(device, key, app);
            return;
        }
        GroupBuckets buckets = new GroupBuckets(c.ports.stream().map(p -> DefaultGroupBucket.createCloneGroupBucket(
                DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(p)).build()))
                .collect(Collectors.toList()));
        if (groups.getGroup(device, key) == null) {
            groups.addGroup(new DefaultGroupDescription(device, GroupDescription.Type.CLONE, buckets, key,
                    c.sessionId, app));
        } else {
            groups.setBucketsForGroup(device, key, buckets, key, app);
        }
    }

    /**
     * Every cell of the meter, as ONOS meters with the P4 meter as scope and the cell as index:
     * a committed band (above it: yellow) and a peak band (above it: red, which the pipeline
     * drops), the two bands ONOS's PI meter translator takes for a two-rate meter and writes as the
     * cell's MeterConfig. ONOS takes indexed meters only in MeterManager's user-defined index mode,
     * which {@link Nat64Manager} turns on; where it is off, one line says how, and the punts stay
     * unpoliced.
     */
    private void writeMeter(MeterConfig m) {
        Optional<Long> size = meterSize(m.meter);
        if (size.isEmpty()) {
            if (missing.add("no meter " + m.meter)) {
                LOG.info("{}: the pipeconf has no meter {}: its punts are not policed", device, m.meter);
            }
            return;
        }
        List<Band> bands = List.of(
                DefaultBand.builder().ofType(Band.Type.MARK_YELLOW).withRate(m.cir).burstSize(m.cburst).build(),
                DefaultBand.builder().ofType(Band.Type.MARK_RED).withRate(m.pir).burstSize(m.pburst).build());
        for (long i = 0; i < size.get(); i++) {
            try {
                meters.submit(DefaultMeterRequest.builder().forDevice(device).fromApp(app)
                        .withUnit(Meter.Unit.PKTS_PER_SEC).burst().withBands(bands)
                        .withScope(MeterScope.of(m.meter)).withIndex(i).add());
            } catch (IllegalArgumentException refused) {
                LOG.error("{}: meter {} not written, the punts it polices pass unpoliced: ONOS refused it ({}). Run"
                        + " 'cfg set {} {} true' in ONOS's CLI; the next reconciliation writes it.", device, m.meter,
                        refused.getMessage(), Nat64Manager.METER_MANAGER, Nat64Manager.USER_DEFINED_INDEX);
                return;
            }
        }
    }

    private static MeterConfig meterConfig(String meter, Meter m) {
        Band committed = null;
        Band peak = null;
        for (Band b : m.bands()) {
            if (b.type() == Band.Type.MARK_YELLOW) {
                committed = b;
            } else if (b.type() == Band.Type.MARK_RED) {
                peak = b;
            }
        }
        return committed == null || peak == null ? null : new MeterConfig(meter, committed.rate(),
                committed.burst(), peak.rate(), peak.burst());
    }

    /** The meter's cell count in the device's pipeconf; empty when it has no such meter. */
    private Optional<Long> meterSize(String meter) {
        return pipeconfs.getPipeconf(device).flatMap(p -> p.pipelineModel().meter(PiMeterId.of(meter)))
                .map(PiMeterModel::size);
    }

    @Override
    public void packetOut(byte[] frame) {
        packetOut(frame, PortNumber.TABLE);
    }

    @Override
    public void packetOut(byte[] frame, int port) {
        packetOut(frame, PortNumber.portNumber(port));
    }

    private void packetOut(byte[] frame, PortNumber port) {
        packets.emit(new DefaultOutboundPacket(device, DefaultTrafficTreatment.builder().setOutput(port).build(),
                ByteBuffer.wrap(frame)));
    }

    /**
     * Through the pipeline as a hairpin's second pass, where the device's pipeline has
     * packet_out.hairpinned (a NetFPGA SUME): ONOS's packet-out has no field for it, so the
     * treatment carries it as write-metadata {@link SumeHeaders#HAIRPINNED}, which the SUME
     * pipeconf's interpreter maps to hairpinned = 1 beside to_pipeline.
     */
    @Override
    public boolean hairpin(byte[] frame) {
        return marked(frame, HAIRPINNED, SumeHeaders.HAIRPINNED);
    }

    /** Through the pipeline as a probe (packet_out.probe), carried as {@link #hairpin} carries its mark. */
    @Override
    public boolean probe(byte[] frame) {
        return marked(frame, PROBE, SumeHeaders.PROBE);
    }

    private boolean marked(byte[] frame, String field, long mark) {
        boolean has = pipeconfs.getPipeconf(device)
                .flatMap(p -> p.pipelineModel().packetOperationModel(PiPacketOperationType.PACKET_OUT))
                .map(m -> m.metadatas().stream().anyMatch(x -> x.id().id().equals(field)))
                .orElse(false);
        if (has) {
            packets.emit(new DefaultOutboundPacket(device, DefaultTrafficTreatment.builder()
                    .writeMetadata(mark, mark).setOutput(PortNumber.TABLE).build(), ByteBuffer.wrap(frame)));
        }
        return has;
    }

    // ---- TableEntry <-> FlowRule ------------------------------------------------------------

    static FlowRule flowRule(TableEntry e, DeviceId device, ApplicationId app) {
        TrafficSelector.Builder selector = DefaultTrafficSelector.builder();
        if (!e.isDefault()) {
            PiCriterion.Builder match = PiCriterion.builder();
            for (TableEntry.Match m : e.matches()) {
                if (m.isLpm()) {
                    match.matchLpm(PiMatchFieldId.of(m.field), m.bytes(), m.prefixLength);
                } else {
                    match.matchExact(PiMatchFieldId.of(m.field), m.bytes());
                }
            }
            selector.matchPi(match.build());
        }
        PiAction.Builder action = PiAction.builder().withId(PiActionId.of(e.action()));
        e.params().keySet().forEach(name -> action.withParameter(
                new PiActionParam(PiActionParamId.of(name), e.paramBytes(name))));
        FlowRule.Builder rule = DefaultFlowRule.builder().forDevice(device).fromApp(app)
                .forTable(PiTableId.of(e.table())).withPriority(PRIORITY)
                .withSelector(selector.build())
                .withTreatment(DefaultTrafficTreatment.builder().piTableAction(action.build()).build());
        if (e.idleTimeoutSeconds() > 0) {
            rule.makeTemporary((int) e.idleTimeoutSeconds());
        } else {
            rule.makePermanent();
        }
        return rule.build();
    }

    /** The entry a rule of this app stands for; the match order is the one it was written in. */
    static TableEntry tableEntry(FlowRule rule) {
        TableEntry.Builder e = TableEntry.in(((PiTableId) rule.table()).id());
        PiCriterion match = (PiCriterion) rule.selector().getCriterion(Criterion.Type.PROTOCOL_INDEPENDENT);
        if (match != null) {
            for (PiFieldMatch m : match.fieldMatches()) {
                if (m instanceof PiLpmFieldMatch) {
                    e.lpm(m.fieldId().id(), value(((PiLpmFieldMatch) m).value()), ((PiLpmFieldMatch) m).prefixLength());
                } else if (m instanceof PiExactFieldMatch) {
                    e.exact(m.fieldId().id(), value(((PiExactFieldMatch) m).value()));
                } else {
                    throw new IllegalArgumentException(rule.id() + ": match kind " + m.type() + " is not used by nat64.p4");
                }
            }
        }
        Instruction i = rule.treatment().allInstructions().get(0);
        PiAction action = (PiAction) ((PiInstruction) i).action();
        e.action(action.id().id());
        action.parameters().forEach(p -> e.param(p.id().id(), value(p.value())));
        return e.idleTimeout(rule.isPermanent() ? 0 : rule.timeout()).build();
    }

    private static BigInteger value(ImmutableByteSequence bytes) {
        return new BigInteger(1, bytes.asArray());
    }
}
