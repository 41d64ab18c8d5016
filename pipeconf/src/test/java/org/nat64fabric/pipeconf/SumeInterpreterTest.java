package org.nat64fabric.pipeconf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.p4.SumeHeaders;
import org.onlab.packet.Ethernet;
import org.onlab.packet.MacAddress;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.TrafficTreatment;
import org.onosproject.net.packet.DefaultOutboundPacket;
import org.onosproject.net.packet.InboundPacket;
import org.onosproject.net.pi.model.PiPacketMetadataModel;
import org.onosproject.net.pi.model.PiPacketOperationType;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiPipelineInterpreter;
import org.onosproject.net.pi.model.PiPipelineInterpreter.PiInterpreterException;
import org.onosproject.net.pi.runtime.PiPacketMetadata;
import org.onosproject.net.pi.runtime.PiPacketOperation;

/**
 * The NetFPGA SUME pipeconf's interpreter against the variant's P4Info as ONOS parses it: what the
 * card hands over (PUNT_FINISH) reaches the app in the cookie, a hairpinned packet-out sets
 * packet_out.hairpinned and a probe packet_out.probe, and a full-size frame goes through the pipe
 * without its Ethernet header both ways (FINISH_NO_ETHERNET in, packet_out.ether_type out).
 */
class SumeInterpreterTest {
    private static final DeviceId CARD = DeviceId.deviceId("device:sume1");
    private final SumeInterpreter interpreter = new SumeInterpreter();

    private static PiPipeconf pipeconf(Object id) throws Exception {
        return PipeconfLoader.pipeconfs().stream().filter(p -> p.id().equals(id)).findFirst().orElseThrow();
    }

    private static byte[] frame() {
        Ethernet eth = new Ethernet();
        eth.setSourceMACAddress(MacAddress.valueOf("00:00:00:00:00:01"));
        eth.setDestinationMACAddress(MacAddress.valueOf("00:00:00:00:00:02"));
        eth.setEtherType((short) 0x88b5);
        eth.setPad(true);
        return eth.serialize();
    }

    /** A 1500-byte IPv6 packet in its frame. */
    private static byte[] fullSizeFrame() {
        byte[] f = new byte[14 + 1500];
        f[12] = (byte) 0x86;
        f[13] = (byte) 0xdd;
        f[14] = 0x60;
        f[14 + 4] = (byte) (1460 >> 8);
        f[14 + 5] = (byte) (1460 & 0xff);
        f[14 + 6] = 59;                      // no next header
        f[14 + 7] = 64;
        return f;
    }

    /** The card's packet-in, every field of packet_in_t given in its own width, as P4Runtime carries it. */
    private static PiPacketOperation packetIn(PiPipeconf sume, Map<String, Long> values) throws Exception {
        return packetIn(sume, values, frame());
    }

    private static PiPacketOperation packetIn(PiPipeconf sume, Map<String, Long> values, byte[] data) throws Exception {
        PiPacketOperation.Builder b = PiPacketOperation.builder().withType(PiPacketOperationType.PACKET_IN)
                .withData(ImmutableByteSequence.copyFrom(data));
        for (PiPacketMetadataModel m : metadataModel(sume, PiPacketOperationType.PACKET_IN)) {
            if (values.containsKey(m.id().id())) {
                b.withMetadata(PiPacketMetadata.builder().withId(m.id())
                        .withValue(ImmutableByteSequence.copyFrom(values.get(m.id().id())).fit(m.bitWidth())).build());
            }
        }
        return b.build();
    }

    private static List<PiPacketMetadataModel> metadataModel(PiPipeconf p, PiPacketOperationType type) {
        return p.pipelineModel().packetOperationModel(type).orElseThrow().metadatas();
    }

    private static Map<String, Long> finishFields(long finish, long outPort, long truncateTo, long type, long code,
                                                  long param) {
        Map<String, Long> v = new LinkedHashMap<>();
        v.put("ingress_port", 2L);
        v.put("punt_reason", 5L);
        v.put(SumeInterpreter.FINISH, finish);
        v.put(SumeInterpreter.OUT_PORT, outPort);
        v.put(SumeInterpreter.TRUNCATE_TO, truncateTo);
        v.put(SumeInterpreter.ERROR_TYPE, type);
        v.put(SumeInterpreter.ERROR_CODE, code);
        v.put(SumeInterpreter.ERROR_PARAM, param);
        return v;
    }

    private PiPacketOperation packetOut(Nat64Interpreter i, TrafficTreatment t) throws PiInterpreterException {
        return packetOut(i, t, frame());
    }

    private PiPacketOperation packetOut(Nat64Interpreter i, TrafficTreatment t, byte[] data)
            throws PiInterpreterException {
        return i.mapOutboundPacket(new DefaultOutboundPacket(CARD, t, ByteBuffer.wrap(data))).iterator().next();
    }

    private static Map<String, Long> sumePacketOut(long port, long toPipeline, long hairpinned, long probe,
                                                   long etherType) {
        return Map.of("egress_port", port, "to_pipeline", toPipeline, SumeInterpreter.HAIRPINNED, hairpinned,
                SumeInterpreter.PROBE, probe, "_pad", 0L, SumeInterpreter.ETHER_TYPE, etherType);
    }

    /** The packet-out's metadata by name, checked against the pipeline's packet_out: every field, in its width. */
    private static Map<String, Long> checkedValues(PiPipeconf p, PiPacketOperation op) {
        Map<String, Integer> widths = metadataModel(p, PiPacketOperationType.PACKET_OUT).stream()
                .collect(Collectors.toMap(m -> m.id().id(), PiPacketMetadataModel::bitWidth));
        Map<String, Long> values = op.metadatas().stream().collect(Collectors.toMap(m -> m.id().id(),
                m -> new java.math.BigInteger(1, m.value().asArray()).longValue()));
        assertEquals(widths.keySet(), values.keySet(), "every field of " + p.id() + "'s packet_out, no other");
        for (PiPacketMetadata m : op.metadatas()) {
            assertEquals((widths.get(m.id().id()) + 7) / 8, m.value().size(), m.id() + ": the bytes of its width");
        }
        return values;
    }

    @Test
    void theSumePipeconfHasTheSumeInterpreterAndTheOthersTheV1modelOne() throws Exception {
        for (PiPipeconf p : PipeconfLoader.pipeconfs()) {
            assertEquals(p.id().equals(PipeconfLoader.SUME) ? SumeInterpreter.class : Nat64Interpreter.class,
                    p.implementation(PiPipelineInterpreter.class).orElseThrow(), p.id().toString());
        }
    }

    @Test
    void whatTheCardHandsOverReachesTheAppInTheCookie() throws Exception {
        PiPipeconf sume = pipeconf(PipeconfLoader.SUME);
        int cut = SumeHeaders.FINISH_ICMP_CHECKSUM | SumeHeaders.FINISH_TRUNCATE;
        InboundPacket in = interpreter.mapInboundPacket(packetIn(sume, finishFields(cut, 3, 14 + 576, 0, 0, 0)), CARD);
        assertEquals(PortNumber.portNumber(2), in.receivedFrom().port(), "the ingress port");
        long cookie = in.cookie().orElseThrow();
        assertEquals(List.of(5, cut, 3, 14 + 576), List.of(SumeHeaders.puntReason(cookie), SumeHeaders.finish(cookie),
                SumeHeaders.outPort(cookie), SumeHeaders.truncateTo(cookie)));

        in = interpreter.mapInboundPacket(packetIn(sume, finishFields(SumeHeaders.FINISH_ICMP_ERROR, 2, 0, 2, 0, 1280)),
                CARD);
        cookie = in.cookie().orElseThrow();
        assertEquals(List.of(SumeHeaders.FINISH_ICMP_ERROR, 2, 2, 0, 1280), List.of(SumeHeaders.finish(cookie),
                SumeHeaders.outPort(cookie), SumeHeaders.errorType(cookie), SumeHeaders.errorCode(cookie),
                SumeHeaders.errorParam(cookie)), "Packet Too Big with the MTU, back out of the ingress port");

        in = interpreter.mapInboundPacket(packetIn(sume, Map.of("ingress_port", 1L, "punt_reason", 1L,
                SumeInterpreter.FINISH, 0L, SumeInterpreter.OUT_PORT, 0L, SumeInterpreter.TRUNCATE_TO, 0L,
                SumeInterpreter.ERROR_TYPE, 0L, SumeInterpreter.ERROR_CODE, 0L, SumeInterpreter.ERROR_PARAM, 0L)), CARD);
        assertEquals(1L, in.cookie().orElseThrow(), "a session miss: as v1model's, its punt_reason alone");
    }

    @Test
    void aFullSizePacketHandedOverWithoutEthernetIsParsedFramedAndHandedOnAsItCame() throws Exception {
        byte[] ip = Arrays.copyOfRange(fullSizeFrame(), 14, 14 + 1500);
        Map<String, Long> miss = finishFields(SumeHeaders.FINISH_NO_ETHERNET, 0, 0, 0, 0, 0);
        miss.put("punt_reason", 1L);
        InboundPacket in = interpreter.mapInboundPacket(packetIn(pipeconf(PipeconfLoader.SUME), miss, ip), CARD);
        assertEquals(Ethernet.TYPE_IPV6, in.parsed().getEtherType(), "parsed as IPv6 in a frame of no MACs");
        assertEquals(MacAddress.ZERO, in.parsed().getSourceMAC());
        byte[] data = new byte[in.unparsed().remaining()];
        in.unparsed().duplicate().get(data);
        assertArrayEquals(ip, data, "the app gets the bytes as they came, and the finish bits that say so");
        assertEquals(SumeHeaders.FINISH_NO_ETHERNET, SumeHeaders.finish(in.cookie().orElseThrow()));
    }

    @Test
    void aPacketInTheCookieCannotHoldOrWithoutTheCardsFieldsIsRefusedNamingWhy() throws Exception {
        PiPipeconf sume = pipeconf(PipeconfLoader.SUME);
        PiInterpreterException e = assertThrows(PiInterpreterException.class, () -> interpreter.mapInboundPacket(
                packetIn(sume, finishFields(SumeHeaders.FINISH_ICMP_CHECKSUM, 3, 590, 0, 0, 0)), CARD));
        assertEquals("packet-in from device:sume1: truncate_to 590 without FINISH_TRUNCATE in finish", e.getMessage());
        Map<String, Long> noFinish = finishFields(SumeHeaders.FINISH_UDP_CHECKSUM, 3, 0, 0, 0, 0);
        noFinish.remove(SumeInterpreter.FINISH);
        e = assertThrows(PiInterpreterException.class, () -> interpreter.mapInboundPacket(packetIn(sume, noFinish), CARD));
        assertTrue(e.getMessage().contains("has no finish metadata"), e.getMessage());
    }

    @Test
    void aHairpinnedPacketOutGoesThroughThePipeMarkedAndOthersAreNot() throws Exception {
        PiPipeconf sume = pipeconf(PipeconfLoader.SUME);
        TrafficTreatment hairpin = DefaultTrafficTreatment.builder()
                .writeMetadata(SumeHeaders.HAIRPINNED, SumeHeaders.HAIRPINNED).setOutput(PortNumber.TABLE).build();
        assertEquals(sumePacketOut(0, 1, 1, 0, 0), checkedValues(sume, packetOut(interpreter, hairpin)));
        TrafficTreatment probe = DefaultTrafficTreatment.builder()
                .writeMetadata(SumeHeaders.PROBE, SumeHeaders.PROBE).setOutput(PortNumber.TABLE).build();
        assertEquals(sumePacketOut(0, 1, 0, 1, 0), checkedValues(sume, packetOut(interpreter, probe)));
        assertEquals(sumePacketOut(0, 1, 0, 0, 0), checkedValues(sume, packetOut(interpreter,
                DefaultTrafficTreatment.builder().setOutput(PortNumber.TABLE).build())));
        assertEquals(sumePacketOut(4, 0, 0, 0, 0), checkedValues(sume, packetOut(interpreter,
                DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(4)).build())));
        // the same, through the v1model pipeline's interpreter and its packet_out
        assertEquals(Map.of("egress_port", 4L, "to_pipeline", 0L, "_pad", 0L),
                checkedValues(pipeconf(PipeconfLoader.SOFTSWITCH), packetOut(new Nat64Interpreter(),
                        DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(4)).build())));
    }

    @Test
    void aFrameTooLongForTheDmaGoesThroughThePipeWithoutItsEthernetHeader() throws Exception {
        PiPipeconf sume = pipeconf(PipeconfLoader.SUME);
        byte[] full = fullSizeFrame();
        PiPacketOperation op = packetOut(interpreter, DefaultTrafficTreatment.builder().setOutput(PortNumber.TABLE)
                .build(), full);
        assertEquals(sumePacketOut(0, 1, 0, 0, 0x86dd), checkedValues(sume, op), "4 + 1514 bytes would not fit 1514");
        assertArrayEquals(Arrays.copyOfRange(full, 14, full.length), op.data().asArray());
        byte[] fits = Arrays.copyOf(full, 1510);
        op = packetOut(interpreter, DefaultTrafficTreatment.builder().setOutput(PortNumber.TABLE).build(), fits);
        assertEquals(0L, checkedValues(sume, op).get(SumeInterpreter.ETHER_TYPE), "4 + 1510 bytes fit");
        assertArrayEquals(fits, op.data().asArray());
        op = packetOut(interpreter, DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(1)).build(), full);
        assertEquals(0L, checkedValues(sume, op).get(SumeInterpreter.ETHER_TYPE), "out of a port it leaves as it is");
        assertArrayEquals(full, op.data().asArray());
    }

    @Test
    void whatThePipeCannotTakeIsRefusedNamingWhy() {
        Map<TrafficTreatment, String> refused = Map.of(
                DefaultTrafficTreatment.builder().writeMetadata(SumeHeaders.HAIRPINNED, SumeHeaders.HAIRPINNED)
                        .setOutput(PortNumber.portNumber(1)).build(),
                "a packet-out marked 1 goes through the pipeline: output to TABLE, not 1",
                DefaultTrafficTreatment.builder().writeMetadata(4, 4).setOutput(PortNumber.TABLE).build(),
                "the only metadata a packet-out takes is 1 (packet_out.hairpinned) or 2 (packet_out.probe), with the"
                        + " same mask",
                DefaultTrafficTreatment.builder().writeMetadata(2, 3).setOutput(PortNumber.TABLE).build(),
                "the only metadata a packet-out takes is 1",
                DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(256)).build(),
                "egress_port 256 does not fit in 8 bits");
        refused.forEach((t, why) -> {
            PiInterpreterException e = assertThrows(PiInterpreterException.class, () -> packetOut(interpreter, t));
            assertTrue(e.getMessage().contains(why), e.getMessage());
        });
        PiInterpreterException e = assertThrows(PiInterpreterException.class, () -> packetOut(new Nat64Interpreter(),
                DefaultTrafficTreatment.builder().writeMetadata(SumeHeaders.HAIRPINNED, SumeHeaders.HAIRPINNED)
                        .setOutput(PortNumber.TABLE).build()));
        assertTrue(e.getMessage().contains("nat64.p4's packet_out has neither hairpinned nor probe"), e.getMessage());
    }
}
