package org.nat64fabric.pipeconf;

import static org.nat64fabric.core.p4.P4InfoConstants.META_EGRESS_PORT;
import static org.nat64fabric.core.p4.P4InfoConstants.META_INGRESS_PORT;
import static org.nat64fabric.core.p4.P4InfoConstants.META_PAD;
import static org.nat64fabric.core.p4.P4InfoConstants.META_PUNT_REASON;
import static org.nat64fabric.core.p4.P4InfoConstants.META_TO_PIPELINE;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.nat64fabric.core.p4.Constants;
import org.nat64fabric.core.p4.SumeHeaders;
import org.onlab.packet.DeserializationException;
import org.onlab.packet.Ethernet;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.driver.AbstractHandlerBehaviour;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.packet.DefaultInboundPacket;
import org.onosproject.net.packet.InboundPacket;
import org.onosproject.net.packet.OutboundPacket;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.model.PiPacketMetadataId;
import org.onosproject.net.pi.model.PiPacketOperationType;
import org.onosproject.net.pi.model.PiPipelineInterpreter;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiPacketMetadata;
import org.onosproject.net.pi.runtime.PiPacketOperation;

/**
 * Packet-in and packet-out for nat64.p4. A packet-in's {@code punt_reason} becomes the inbound
 * packet's cookie, so the app can tell a session miss (to re-inject) from a TCP control copy
 * (already forwarded). A packet-out to {@link PortNumber#TABLE} goes through the pipeline
 * ({@code to_pipeline = 1}); to a port, straight out of it. {@link SumeInterpreter} is the NetFPGA
 * SUME variant's, whose controller headers carry more.
 *
 * <p>The app writes PI table entries itself, so flow-objective criteria and treatments are not
 * mapped: {@link #mapTreatment} says so instead of guessing.
 */
public class Nat64Interpreter extends AbstractHandlerBehaviour implements PiPipelineInterpreter {
    private static final int V1MODEL_PORT_BITS = 9;

    @Override
    public Optional<PiMatchFieldId> mapCriterionType(Criterion.Type type) {
        return Optional.empty();
    }

    @Override
    public Optional<PiTableId> mapFlowRuleTableId(int flowRuleTableId) {
        return Optional.empty();
    }

    @Override
    public PiAction mapTreatment(TrafficTreatment treatment, PiTableId table) throws PiInterpreterException {
        throw new PiInterpreterException("nat64.p4 takes PI actions only (the nat64fabric app writes them);"
                + " cannot map treatment " + treatment + " for " + table);
    }

    @Override
    public Collection<PiPacketOperation> mapOutboundPacket(OutboundPacket packet) throws PiInterpreterException {
        long mark = mark(packet.treatment());
        List<PiPacketOperation> out = new ArrayList<>();
        for (Instruction i : packet.treatment().allInstructions()) {
            if (i.type() != Instruction.Type.OUTPUT) {
                throw new PiInterpreterException("packet-out supports OUTPUT instructions only, not " + i);
            }
            PortNumber port = ((Instructions.OutputInstruction) i).port();
            boolean toPipeline = port.equals(PortNumber.TABLE);
            if (!toPipeline && port.isLogical()) {
                throw new PiInterpreterException("packet-out to " + port + ": use a switch port, or TABLE to send"
                        + " the packet through the pipeline");
            }
            if (mark != 0 && !toPipeline) {
                throw new PiInterpreterException("a packet-out marked " + mark + " goes through the pipeline: output"
                        + " to TABLE, not " + port);
            }
            out.add(packetOut(packet.data().duplicate(), toPipeline ? 0 : port.toLong(), toPipeline, mark));
        }
        return out;
    }

    /**
     * What the treatment marks the packet-out as: 0, or the write-metadata {@link SumeHeaders#HAIRPINNED}
     * (a hairpin's second pass) or {@link SumeHeaders#PROBE} (a probe), value and mask alike.
     */
    private static long mark(TrafficTreatment treatment) throws PiInterpreterException {
        Instructions.MetadataInstruction m = treatment.writeMetadata();
        if (m == null) {
            return 0;
        }
        if (m.metadata() != m.metadataMask()
                || m.metadata() != SumeHeaders.HAIRPINNED && m.metadata() != SumeHeaders.PROBE) {
            throw new PiInterpreterException("packet-out " + m + ": the only metadata a packet-out takes is "
                    + SumeHeaders.HAIRPINNED + " (packet_out.hairpinned) or " + SumeHeaders.PROBE
                    + " (packet_out.probe), with the same mask");
        }
        return m.metadata();
    }

    /** The packet-out of nat64.p4: egress_port (9 bits), to_pipeline and its padding; no marks. */
    protected PiPacketOperation packetOut(ByteBuffer frame, long port, boolean toPipeline, long mark)
            throws PiInterpreterException {
        if (mark != 0) {
            throw new PiInterpreterException("nat64.p4's packet_out has neither hairpinned nor probe: a v1model switch"
                    + " recirculates hairpinned packets and translates whole packets itself");
        }
        return packetOut(frame, metadata(META_EGRESS_PORT, port, V1MODEL_PORT_BITS),
                metadata(META_TO_PIPELINE, toPipeline ? 1 : 0, 1), metadata(META_PAD, 0, 6));
    }

    /** The packet-out of the frame from its position on (one copy; ONOS's copy starts at the buffer's start: a slice). */
    static PiPacketOperation packetOut(ByteBuffer frame, PiPacketMetadata... metadata) {
        return PiPacketOperation.builder().withType(PiPacketOperationType.PACKET_OUT)
                .withData(ImmutableByteSequence.copyFrom(frame.slice())).withMetadatas(List.of(metadata)).build();
    }

    /** The inbound packet's cookie: nat64.p4's punt_reason. */
    protected long cookie(PiPacketOperation packetIn, DeviceId deviceId) throws PiInterpreterException {
        return value(packetIn, META_PUNT_REASON, deviceId);
    }

    @Override
    public InboundPacket mapInboundPacket(PiPacketOperation packetIn, DeviceId deviceId) throws PiInterpreterException {
        Ethernet frame;
        long cookie = cookie(packetIn, deviceId);
        byte[] data = packetIn.data().asArray();
        byte[] framed = framed(data, cookie);
        try {
            frame = Ethernet.deserializer().deserialize(framed, 0, framed.length);
        } catch (DeserializationException e) {
            throw new PiInterpreterException("packet-in from " + deviceId + " is not an Ethernet frame: " + e.getMessage());
        }
        long port = value(packetIn, META_INGRESS_PORT, deviceId);
        return new DefaultInboundPacket(new ConnectPoint(deviceId, PortNumber.portNumber(port)), frame,
                ByteBuffer.wrap(data), Optional.of(cookie));
    }

    /** The packet-in's data as an Ethernet frame, for the inbound packet's parsed form. */
    protected byte[] framed(byte[] data, long cookie) {
        return data;
    }

    @Override
    public Optional<Integer> mapLogicalPortNumber(PortNumber port) {
        return port.equals(PortNumber.CONTROLLER) ? Optional.of(Constants.CPU_PORT) : Optional.empty();
    }

    static PiPacketMetadata metadata(String name, long value, int bits) throws PiInterpreterException {
        try {
            return PiPacketMetadata.builder().withId(PiPacketMetadataId.of(name))
                    .withValue(ImmutableByteSequence.copyFrom(value).fit(bits)).build();
        } catch (ImmutableByteSequence.ByteSequenceTrimException e) {
            throw new PiInterpreterException(name + " " + value + " does not fit in " + bits + " bits");
        }
    }

    static long value(PiPacketOperation op, String name, DeviceId deviceId) throws PiInterpreterException {
        for (PiPacketMetadata m : op.metadatas()) {
            if (m.id().id().equals(name)) {
                byte[] b = m.value().asArray();
                long v = 0;
                for (byte x : b) {
                    v = v << 8 | (x & 0xff);
                }
                return v;
            }
        }
        throw new PiInterpreterException("packet-in from " + deviceId + " has no " + name + " metadata:"
                + " is the device running the program of its pipeconf?");
    }
}
