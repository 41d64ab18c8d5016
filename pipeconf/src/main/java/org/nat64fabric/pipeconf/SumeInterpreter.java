package org.nat64fabric.pipeconf;

import static org.nat64fabric.core.p4.P4InfoConstants.META_EGRESS_PORT;
import static org.nat64fabric.core.p4.P4InfoConstants.META_PAD;
import static org.nat64fabric.core.p4.P4InfoConstants.META_PUNT_REASON;
import static org.nat64fabric.core.p4.P4InfoConstants.META_TO_PIPELINE;

import java.nio.ByteBuffer;
import org.nat64fabric.core.p4.SumeHeaders;
import org.onosproject.net.DeviceId;
import org.onosproject.net.pi.runtime.PiPacketOperation;

/**
 * Packet-in and packet-out for the NetFPGA SUME variant (hw/netfpga/nat64_sume.p4), whose
 * controller headers (include/sume_arch.p4) carry what the card asks the controller to finish. A
 * packet-in's punt_reason, finish, out_port, truncate_to and error fields become the inbound
 * packet's cookie, packed as {@link SumeHeaders#cookie} says; a packet-out marked with the
 * write-metadata {@link SumeHeaders#HAIRPINNED} and sent to TABLE goes through the pipe with
 * {@code hairpinned = 1}, one marked {@link SumeHeaders#PROBE} with {@code probe = 1}. Ports are 8
 * bits wide on the card.
 */
public final class SumeInterpreter extends Nat64Interpreter {
    static final String OUT_PORT = "out_port";
    static final String FINISH = "finish";
    static final String TRUNCATE_TO = "truncate_to";
    static final String ERROR_TYPE = "error_type";
    static final String ERROR_CODE = "error_code";
    static final String ERROR_PARAM = "error_param";
    static final String HAIRPINNED = "hairpinned";
    static final String PROBE = "probe";
    static final String ETHER_TYPE = "ether_type";
    private static final int PORT_BITS = 8;

    /**
     * The SUME's packet_out: egress_port, to_pipeline, hairpinned, probe, and ether_type, which is
     * not 0 for a frame sent through the pipe without its Ethernet header because it would not fit a
     * DMA frame with it ({@link SumeHeaders#etherTypeLeftOut}).
     */
    @Override
    protected PiPacketOperation packetOut(ByteBuffer frame, long port, boolean toPipeline, long mark)
            throws PiInterpreterException {
        int etherType = toPipeline ? SumeHeaders.etherTypeLeftOut(frame) : 0;
        if (etherType != 0) {
            frame.position(frame.position() + SumeHeaders.ETHERNET);
        }
        return packetOut(frame,
                metadata(META_EGRESS_PORT, port, PORT_BITS), metadata(META_TO_PIPELINE, toPipeline ? 1 : 0, 1),
                metadata(HAIRPINNED, mark == SumeHeaders.HAIRPINNED ? 1 : 0, 1),
                metadata(PROBE, mark == SumeHeaders.PROBE ? 1 : 0, 1), metadata(META_PAD, 0, 5),
                metadata(ETHER_TYPE, etherType, 16));
    }

    /** A packet the card handed over without its Ethernet header (FINISH_NO_ETHERNET), framed with no MACs. */
    @Override
    protected byte[] framed(byte[] data, long cookie) {
        return (SumeHeaders.finish(cookie) & SumeHeaders.FINISH_NO_ETHERNET) != 0 && data.length > 0
                ? SumeHeaders.withEthernet(data, 0, 0) : data;
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
