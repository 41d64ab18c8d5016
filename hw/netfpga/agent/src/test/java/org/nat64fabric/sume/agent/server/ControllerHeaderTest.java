package org.nat64fabric.sume.agent.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.server.ControllerHeader;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.ControllerPacketMetadata;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.PacketMetadata;

/** The SUME program's DMA headers (hw/netfpga/include/sume_arch.p4) and the pipeline check, by known answers. */
class ControllerHeaderTest {
    private static final P4Info SUME = P4InfoBuilder.build(Frontend.compile(Paths.get("../nat64_sume.p4")));

    private static ControllerHeader header(String name) {
        return new ControllerHeader(SUME.getControllerPacketMetadataList().stream()
                .filter(m -> m.getPreamble().getName().equals(name)).findFirst().orElseThrow());
    }

    private static int id(String header, String field) {
        ControllerPacketMetadata h = SUME.getControllerPacketMetadataList().stream()
                .filter(m -> m.getPreamble().getName().equals(header)).findFirst().orElseThrow();
        return h.getMetadataList().stream().filter(m -> m.getName().equals(field)).findFirst().orElseThrow().getId();
    }

    @Test
    void aPacketInIsTenBytesOfMetadataThenTheFrame() {
        // ingress_port 1, punt_reason 5 (PUNT_FINISH), out_port 2, finish 4|1, truncate_to 1280 (0x0500),
        // error_type 3, error_code 4, error_param 1480 (0x05c8)
        byte[] dma = {1, 5, 2, 5, 0x05, 0x00, 3, 4, 0x05, (byte) 0xc8, (byte) 0xaa, (byte) 0xbb};
        ControllerHeader in = header("packet_in");
        List<PacketMetadata> md = in.decode(dma);
        assertEquals(8, md.size());
        assertEquals(ByteString.copyFrom(new byte[] {5}), md.get(1).getValue());
        assertEquals(id("packet_in", "truncate_to"), md.get(4).getMetadataId());
        assertEquals(ByteString.copyFrom(new byte[] {5, 0}), md.get(4).getValue());
        assertEquals(id("packet_in", "error_param"), md.get(7).getMetadataId());
        assertEquals(ByteString.copyFrom(new byte[] {5, (byte) 0xc8}), md.get(7).getValue());
        assertArrayEquals(new byte[] {(byte) 0xaa, (byte) 0xbb}, in.payload(dma).toByteArray());
        assertNull(in.decode(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}), "shorter than its header");
    }

    private static PacketMetadata packetOut(String field, int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return PacketMetadata.newBuilder().setMetadataId(id("packet_out", field)).setValue(ByteString.copyFrom(b)).build();
    }

    @Test
    void aPacketOutIsEgressPortThenToPipelineInTheTopBitOfTheSecondByteThenTheEtherType() {
        ControllerHeader out = header("packet_out");
        byte[] frame = out.encode(List.of(packetOut("egress_port", 0, 2), packetOut("to_pipeline", 1),
                packetOut("hairpinned", 0), packetOut("probe", 1), packetOut("_pad", 0),
                packetOut("ether_type", 0x86, 0xdd)), ByteString.copyFrom(new byte[] {0x11}));
        assertArrayEquals(new byte[] {2, (byte) 0xa0, (byte) 0x86, (byte) 0xdd, 0x11}, frame, "to_pipeline, probe");
        assertThrows(IllegalArgumentException.class, () -> out.encode(List.of(PacketMetadata.newBuilder()
                .setMetadataId(id("packet_out", "to_pipeline")).setValue(ByteString.copyFrom(new byte[] {2})).build()), ByteString.EMPTY));
    }

    @Test
    void onlyTheP4InfoTheCardWasBuiltWithIsAccepted() {
        assertNull(PipelineCheck.difference(SUME, SUME));
        P4Info v1model = P4InfoBuilder.build(Frontend.compile(Paths.get("../../../p4/nat64.p4")));
        assertTrue(PipelineCheck.difference(SUME, v1model) != null);
        P4Info resized = SUME.toBuilder().setTables(0, SUME.getTables(0).toBuilder().setSize(8)).build();
        String d = PipelineCheck.difference(SUME, resized);
        assertTrue(d.contains(SUME.getTables(0).getPreamble().getName()) && d.contains("size 8"), d);
        int session = SUME.getTablesList().stream().map(t -> t.getPreamble().getName()).collect(java.util.stream.Collectors.toList())
                .indexOf("Nat64Ingress.translate.session_v6");
        P4Info unaged = SUME.toBuilder().setTables(session, SUME.getTables(session).toBuilder()
                .setIdleTimeoutBehavior(P4InfoOuterClass.Table.IdleTimeoutBehavior.NO_TIMEOUT)).build();
        d = PipelineCheck.difference(SUME, unaged);
        assertTrue(d.contains("idle timeout NO_TIMEOUT") && d.contains("NOTIFY_CONTROL) on the card"), d);
    }
}
