package org.nat64fabric.pipeconf;

import static org.nat64fabric.core.p4.P4InfoConstants.META_EGRESS_PORT;
import static org.nat64fabric.core.p4.P4InfoConstants.META_PAD;
import static org.nat64fabric.core.p4.P4InfoConstants.META_PUNT_REASON;
import static org.nat64fabric.core.p4.P4InfoConstants.META_TO_PIPELINE;

import java.util.List;
import org.nat64fabric.core.p4.SumeHeaders;
import org.onosproject.net.DeviceId;
import org.onosproject.net.pi.runtime.PiPacketMetadata;
import org.onosproject.net.pi.runtime.PiPacketOperation;

/**
 * Packet-in and packet-out for the NetFPGA SUME variant (hw/netfpga/nat64_sume.p4), whose
 * controller headers (include/sume_arch.p4) carry what the card asks the controller to finish. A
 * packet-in's punt_reason, finish, out_port, truncate_to and error fields become the inbound
 * packet's cookie, packed as {@link SumeHeaders#cookie} says; a packet-out marked with the
 * write-metadata {@link SumeHeaders#HAIRPINNED} and sent to TABLE goes through the pipe with
 * {@code hairpinned = 1}. Ports are 8 bits wide on the card.
 */
public final class SumeInterpreter extends Nat64Interpreter {
    static final String OUT_PORT = "out_port";
    static final String FINISH = "finish";
    static final String TRUNCATE_TO = "truncate_to";
    static final String ERROR_TYPE = "error_type";
    static final String ERROR_CODE = "error_code";
    static final String ERROR_PARAM = "error_param";
    static final String HAIRPINNED = "hairpinned";
    private static final int PORT_BITS = 8;

    @Override
    protected List<PiPacketMetadata> packetOut(long port, boolean toPipeline, boolean hairpinned)
            throws PiInterpreterException {
        return List.of(metadata(META_EGRESS_PORT, port, PORT_BITS), metadata(META_TO_PIPELINE, toPipeline ? 1 : 0, 1),
                metadata(HAIRPINNED, hairpinned ? 1 : 0, 1), metadata(META_PAD, 0, 6));
    }

    @Override
    protected long cookie(PiPacketOperation packetIn, DeviceId deviceId) throws PiInterpreterException {
        try {
            return SumeHeaders.cookie(value(packetIn, META_PUNT_REASON, deviceId), value(packetIn, FINISH, deviceId),
                    value(packetIn, OUT_PORT, deviceId), value(packetIn, TRUNCATE_TO, deviceId),
                    value(packetIn, ERROR_TYPE, deviceId), value(packetIn, ERROR_CODE, deviceId),
                    value(packetIn, ERROR_PARAM, deviceId));
        } catch (IllegalArgumentException e) {
            throw new PiInterpreterException("packet-in from " + deviceId + ": " + e.getMessage());
        }
    }
}
