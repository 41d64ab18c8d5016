package org.nat64fabric.app;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.nat64fabric.core.control.SwitchLink;
import org.nat64fabric.core.fabric.TableEntry;
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
import org.onosproject.net.flow.instructions.PiInstruction;
import org.onosproject.net.packet.DefaultOutboundPacket;
import org.onosproject.net.packet.PacketService;
import org.onosproject.net.pi.model.PiActionId;
import org.onosproject.net.pi.model.PiActionParamId;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;
import org.onosproject.net.pi.runtime.PiFieldMatch;
import org.onosproject.net.pi.runtime.PiLpmFieldMatch;

/**
 * A switch as ONOS drives it: table entries become flow rules with PI criteria and actions,
 * which the P4Runtime driver translates through the pipeconf; a batch is one
 * {@link FlowRuleOperations} and {@link #write} returns once the device confirmed it, so a
 * session is on every border before its first packet goes back through the pipeline.
 * Packet-outs go to {@link PortNumber#TABLE}, which the pipeconf's interpreter maps to the
 * pipeline.
 */
final class FlowRuleSwitchLink implements SwitchLink {
    /** nat64.p4 has no ternary tables, so P4Runtime ignores it; ONOS requires one. */
    static final int PRIORITY = FlowRule.MIN_PRIORITY;
    private static final long WRITE_TIMEOUT_SECONDS = 10;

    private final DeviceId device;
    private final ApplicationId app;
    private final FlowRuleService flows;
    private final PacketService packets;
    /** Rules this app asked to remove: their RULE_REMOVED events are not idle timeouts. */
    private final Set<FlowId> removing;

    FlowRuleSwitchLink(DeviceId device, ApplicationId app, FlowRuleService flows, PacketService packets,
                       Set<FlowId> removing) {
        this.device = device;
        this.app = app;
        this.flows = flows;
        this.packets = packets;
        this.removing = removing;
    }

    @Override
    public String deviceId() {
        return device.toString();
    }

    @Override
    public void write(List<Update> updates) {
        if (updates.isEmpty()) {
            return;
        }
        FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
        Set<FlowId> removals = new HashSet<>();
        for (Update u : updates) {
            FlowRule rule = flowRule(u.entry, device, app);
            switch (u.type) {
                case INSERT:
                    ops.add(rule);
                    break;
                case MODIFY:
                    ops.modify(rule);
                    break;
                default:
                    removals.add(rule.id());
                    ops.remove(rule);
                    break;
            }
        }
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
            throw failure(updates.size(), e);
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

    @Override
    public List<TableEntry> read() {
        return StreamSupport.stream(flows.getFlowEntriesById(app).spliterator(), false)
                .filter(f -> f.deviceId().equals(device))
                .filter(f -> f.state() != FlowEntry.FlowEntryState.PENDING_REMOVE
                        && f.state() != FlowEntry.FlowEntryState.REMOVED)
                .map(FlowRuleSwitchLink::tableEntry)
                .collect(Collectors.toList());
    }

    @Override
    public void packetOut(byte[] frame) {
        packets.emit(new DefaultOutboundPacket(device,
                DefaultTrafficTreatment.builder().setOutput(PortNumber.TABLE).build(), ByteBuffer.wrap(frame)));
    }

    // ---- TableEntry <-> FlowRule ------------------------------------------------------------

    static FlowRule flowRule(TableEntry e, DeviceId device, ApplicationId app) {
        TrafficSelector.Builder selector = DefaultTrafficSelector.builder();
        if (!e.isDefault()) {
            PiCriterion.Builder match = PiCriterion.builder();
            for (TableEntry.Match m : e.matches()) {
                if (m.isLpm()) {
                    match.matchLpm(PiMatchFieldId.of(m.field), bytes(m.value), m.prefixLength);
                } else {
                    match.matchExact(PiMatchFieldId.of(m.field), bytes(m.value));
                }
            }
            selector.matchPi(match.build());
        }
        PiAction.Builder action = PiAction.builder().withId(PiActionId.of(e.action()));
        e.params().forEach((name, v) -> action.withParameter(new PiActionParam(PiActionParamId.of(name), bytes(v))));
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

    /** P4Runtime's canonical form: no leading zero bytes, at least one byte. */
    private static byte[] bytes(BigInteger v) {
        byte[] b = v.toByteArray();
        int skip = 0;
        while (skip < b.length - 1 && b[skip] == 0) {
            skip++;
        }
        return Arrays.copyOfRange(b, skip, b.length);
    }

    private static BigInteger value(ImmutableByteSequence bytes) {
        return new BigInteger(1, bytes.asArray());
    }
}
