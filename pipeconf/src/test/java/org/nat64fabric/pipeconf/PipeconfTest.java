package org.nat64fabric.pipeconf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.core.p4.P4InfoConstants.*;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.onlab.packet.Ethernet;
import org.onlab.packet.MacAddress;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.packet.DefaultOutboundPacket;
import org.onosproject.net.packet.InboundPacket;
import org.onosproject.net.pi.model.PiPacketMetadataId;
import org.onosproject.net.pi.model.PiPacketOperationType;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiPipelineInterpreter.PiInterpreterException;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.runtime.PiPacketMetadata;
import org.onosproject.net.pi.runtime.PiPacketOperation;

class PipeconfTest {
    private static final DeviceId DEVICE = DeviceId.deviceId("device:border-1");
    private static final short LOCAL_EXPERIMENTAL = (short) 0x88b5;
    private final Nat64Interpreter interpreter = new Nat64Interpreter();

    private static byte[] frame() {
        Ethernet eth = new Ethernet();
        eth.setSourceMACAddress(MacAddress.valueOf("00:00:00:00:00:01"));
        eth.setDestinationMACAddress(MacAddress.valueOf("00:00:00:00:00:02"));
        eth.setEtherType(LOCAL_EXPERIMENTAL);   // no payload parser: the test is about metadata
        eth.setPad(true);
        return eth.serialize();
    }

    @Test
    void theSoftswitchPipeconfCarriesTheParsedP4InfoAndItsDeviceConfig() throws Exception {
        List<PiPipeconf> all = PipeconfLoader.pipeconfs();
        PiPipeconf soft = all.get(0);
        assertEquals(PipeconfLoader.SOFTSWITCH, soft.id());
        assertTrue(soft.pipelineModel().table(PiTableId.of(NAT64_INGRESS_TRANSLATE_SESSION_V6)).isPresent());
        // ONOS 2.7 ages rules by their counters: no table may look like one that ages its entries
        // (ONOS would write a timeout its P4Runtime codec drops, and then rewrite every such entry)
        for (PiPipeconf p : all) {
            assertTrue(p.pipelineModel().tables().stream().noneMatch(t -> t.supportsAging()), p.id().toString());
            assertTrue(p.pipelineModel().table(PiTableId.of(NAT64_INGRESS_TRANSLATE_SESSION_V6)).isPresent());
            assertFalse(p.pipelineModel().table(PiTableId.of(NAT64_INGRESS_TRANSLATE_SESSION_V6)).get().supportsAging());
            try (java.io.InputStream p4info = p.extension(PiPipeconf.ExtensionType.P4_INFO_TEXT).orElseThrow()) {
                assertTrue(new String(p4info.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                        .contains("idle_timeout_behavior: NOTIFY_CONTROL"), "the device gets the P4Info as it is");
            }
        }
        assertEquals(1, soft.pipelineModel().table(PiTableId.of(NAT64_INGRESS_TRANSLATE_SESSION_V6)).get()
                .counters().size(), "the session table's direct counter, which ONOS reads its packets from");
        assertTrue(soft.extension(PiPipeconf.ExtensionType.RAW_DEVICE_CONFIG).isPresent());
        assertTrue(soft.extension(PiPipeconf.ExtensionType.P4_INFO_TEXT).isPresent());
        try (java.io.InputStream cpu = PipeconfTest.class.getResourceAsStream("/cpu_port.txt")) {
            assertEquals(String.valueOf(org.nat64fabric.core.p4.Constants.CPU_PORT),
                    new String(cpu.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).trim(),
                    "the BMv2 pipeconf's CPU_PORT_TXT is the program's CPU port");
        }
        assertEquals(java.util.Optional.of(org.nat64fabric.core.p4.Constants.CPU_PORT),
                new Nat64Interpreter().mapLogicalPortNumber(org.onosproject.net.PortNumber.CONTROLLER));
        ByteBuffer config = new SoftswitchPipelineProgrammable().createDeviceDataBuffer(soft);
        assertTrue(config.remaining() > 1000, "device_config.bin of nat64.p4");
        boolean p4c = PipeconfTest.class.getResource("/p4/nat64.json") != null;
        assertEquals(p4c ? 3 : 2, all.size(), "the BMv2 pipeconf exists exactly when p4c built nat64.json");
    }

    @Test
    void aPacketOutToTheTablePortGoesThroughThePipeline() throws Exception {
        byte[] data = frame();
        PiPacketOperation toTable = interpreter.mapOutboundPacket(new DefaultOutboundPacket(DEVICE,
                DefaultTrafficTreatment.builder().setOutput(PortNumber.TABLE).build(), ByteBuffer.wrap(data)))
                .iterator().next();
        assertEquals(PiPacketOperationType.PACKET_OUT, toTable.type());
        assertEquals(Map.of(META_EGRESS_PORT, 0L, META_TO_PIPELINE, 1L, META_PAD, 0L), values(toTable));
        assertEquals(ImmutableByteSequence.copyFrom(data), toTable.data());
        PiPacketOperation toPort = interpreter.mapOutboundPacket(new DefaultOutboundPacket(DEVICE,
                DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(3)).build(), ByteBuffer.wrap(data)))
                .iterator().next();
        assertEquals(Map.of(META_EGRESS_PORT, 3L, META_TO_PIPELINE, 0L, META_PAD, 0L), values(toPort));
        assertThrows(PiInterpreterException.class, () -> interpreter.mapOutboundPacket(new DefaultOutboundPacket(DEVICE,
                DefaultTrafficTreatment.builder().setOutput(PortNumber.FLOOD).build(), ByteBuffer.wrap(data))));
    }

    @Test
    void aPacketInCarriesItsPortAndPuntReason() throws Exception {
        PiPacketOperation in = PiPacketOperation.builder().withType(PiPacketOperationType.PACKET_IN)
                .withData(ImmutableByteSequence.copyFrom(frame()))
                .withMetadata(meta(META_INGRESS_PORT, 2)).withMetadata(meta(META_PUNT_REASON, 1)).build();
        InboundPacket p = interpreter.mapInboundPacket(in, DEVICE);
        assertEquals(PortNumber.portNumber(2), p.receivedFrom().port());
        assertEquals(DEVICE, p.receivedFrom().deviceId());
        assertEquals(1L, p.cookie().orElseThrow(), "punt reason 1: session miss");
        assertEquals(LOCAL_EXPERIMENTAL, p.parsed().getEtherType());
        PiPacketOperation noPort = PiPacketOperation.builder().withType(PiPacketOperationType.PACKET_IN)
                .withData(ImmutableByteSequence.copyFrom(frame())).withMetadata(meta(META_PUNT_REASON, 1)).build();
        PiInterpreterException e = assertThrows(PiInterpreterException.class,
                () -> interpreter.mapInboundPacket(noPort, DEVICE));
        assertTrue(e.getMessage().contains(META_INGRESS_PORT), e.getMessage());
        assertEquals(255, interpreter.mapLogicalPortNumber(PortNumber.CONTROLLER).orElseThrow());
    }

    private static PiPacketMetadata meta(String name, long value) {
        return PiPacketMetadata.builder().withId(PiPacketMetadataId.of(name))
                .withValue(ImmutableByteSequence.copyFrom(value)).build();
    }

    private static Map<String, Long> values(PiPacketOperation op) {
        return op.metadatas().stream().collect(Collectors.toMap(m -> m.id().id(),
                m -> new java.math.BigInteger(1, m.value().asArray()).longValue()));
    }
}
