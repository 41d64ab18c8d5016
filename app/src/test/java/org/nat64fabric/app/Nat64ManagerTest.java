package org.nat64fabric.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.app.FakeOnos.BORDER1;
import static org.nat64fabric.app.FakeOnos.BORDER2;
import static org.nat64fabric.app.FakeOnos.LEAF;
import static org.nat64fabric.app.FakeOnos.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nat64fabric.app.config.Nat64AppConfig;
import org.nat64fabric.app.config.Nat64DeviceConfig;
import org.nat64fabric.core.control.Nat64Service;
import org.onlab.packet.Data;
import org.onlab.packet.Ethernet;
import org.onlab.packet.IPv6;
import org.onlab.packet.Ip6Address;
import org.onlab.packet.UDP;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.config.InvalidFieldException;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.packet.DefaultInboundPacket;
import org.onosproject.net.packet.PacketContextAdapter;

class Nat64ManagerTest {
    private static final String POOL4 = "{\"addresses\": [\"192.0.2.0/30\"]}";
    private static final String SESSION_V6 = "session_v6";
    private static final String SESSION_V4 = "session_v4";

    private FakeOnos onos;
    private Nat64Manager manager;

    @BeforeEach
    void setUp() {
        onos = new FakeOnos();
        onos.available.addAll(List.of(LEAF, BORDER1, BORDER2));
        onos.mastered.addAll(List.of(LEAF, BORDER1, BORDER2));
        manager = onos.start();
    }

    @AfterEach
    void tearDown() {
        manager.deactivate();
    }

    /** IPv6/UDP from the host behind the leaf to 198.51.100.10 through pool6, checksummed by ONOS's packet library. */
    private static byte[] udpFrame(int sourcePort) {
        UDP udp = new UDP();
        udp.setSourcePort(sourcePort);
        udp.setDestinationPort(53);
        udp.setPayload(new Data(new byte[] {1, 2, 3, 4}));
        IPv6 ip = new IPv6();
        ip.setSourceAddress(Ip6Address.valueOf("2001:db8:1::10").toOctets());
        ip.setDestinationAddress(Ip6Address.valueOf("2001:db8:64::c633:640a").toOctets());
        ip.setNextHeader(IPv6.PROTOCOL_UDP);
        ip.setHopLimit((byte) 64);
        ip.setPayload(udp);
        Ethernet eth = new Ethernet();
        eth.setEtherType(Ethernet.TYPE_IPV6);
        eth.setSourceMACAddress("00:00:00:00:01:10");
        eth.setDestinationMACAddress("00:00:00:00:b1:01");
        eth.setPayload(ip);
        return eth.serialize();
    }

    /** A session miss punted by the leaf, as the pipeconf's interpreter hands it to packet processors. */
    private PacketContextAdapter packetIn(byte[] frame, long puntReason) throws Exception {
        DefaultInboundPacket in = new DefaultInboundPacket(new ConnectPoint(LEAF, PortNumber.portNumber(1)),
                Ethernet.deserializer().deserialize(frame, 0, frame.length), ByteBuffer.wrap(frame),
                Optional.of(puntReason));
        PacketContextAdapter context = new PacketContextAdapter(0, in, null, false);
        onos.processor.process(context);
        return context;
    }

    private void configured(DeviceId... reconciled) throws Exception {
        onos.pushNetcfg(POOL4);
        await("the switches reconciled", () -> List.of(reconciled).stream()
                .allMatch(d -> !onos.journalCounts(d).isEmpty()));
        await("the service configured", () -> {
            try {
                return manager.devices().stream().allMatch(d -> d.connected);
            } catch (Nat64Service.NotConfigured e) {
                return false;
            }
        });
        onos.settle();
    }

    @Test
    void withoutNetcfgTheServiceSaysWhatIsMissingAndNothingIsWritten() throws Exception {
        Nat64Service.NotConfigured e = assertThrows(Nat64Service.NotConfigured.class, manager::sessions);
        assertEquals("apps.org.nat64fabric.app.nat64", e.field);
        Thread.sleep(100);
        assertTrue(onos.journal.isEmpty(), onos.journal.toString());
    }

    @Test
    void theNetcfgProgramsEverySwitchAndRulesReadBackAsTheEntriesWritten() throws Exception {
        configured(LEAF, BORDER1, BORDER2);
        for (var d : List.of(LEAF, BORDER1, BORDER2)) {
            assertTrue(onos.journalCounts(d).keySet().stream().anyMatch(j -> j.contains("MODIFY")),
                    d + ": default entries are modified, never inserted: " + onos.journal);
            for (FlowEntry f : onos.flowsOn(d, "")) {
                FlowRule back = FlowRuleSwitchLink.flowRule(FlowRuleSwitchLink.tableEntry(f), d, FakeOnos.APP);
                assertEquals(f.id(), back.id());
                assertTrue(f.exactMatch(back), f + " reads back as " + back);
            }
        }
        assertTrue(onos.flowsOn(BORDER1, "").size() > 5, "a border holds its routes, pools and defaults");
        // Available again: what ONOS holds reads back as the desired state, so nothing is added or
        // removed; only the default entries, which P4Runtime cannot read, are written again.
        onos.journal.clear();
        onos.deviceAvailable(BORDER1, true);
        onos.settle();
        assertFalse(onos.journal.isEmpty());
        assertTrue(onos.journal.stream().allMatch(j -> j.startsWith(BORDER1 + " MODIFY ")
                && (j.endsWith("icmp_source") || j.endsWith("pool6_embed"))), onos.journal.toString());
    }

    @Test
    void aSessionMissIsOnEveryBorderBeforeThePacketGoesBackThroughThePipeline() throws Exception {
        configured(LEAF, BORDER1, BORDER2);
        onos.journal.clear();
        byte[] frame = udpFrame(40000);
        PacketContextAdapter context = packetIn(frame, 1);
        assertTrue(context.isHandled(), "the packet processor takes punted packets");
        await("the packet-out", () -> !onos.packetOuts.isEmpty());

        int out = onos.journal.indexOf(LEAF + " packet-out");
        for (var border : List.of(BORDER1, BORDER2)) {
            for (String table : List.of(SESSION_V6, SESSION_V4)) {
                int written = onos.journal.indexOf(border + " ADD " + "Nat64Ingress.translate." + table);
                assertTrue(written >= 0 && written < out, onos.journal.toString());
                FlowEntry rule = onos.flowsOn(border, table).get(0);
                assertFalse(rule.isPermanent(), "session rules age out");
            }
        }
        Instruction output = onos.packetOuts.get(0).treatment().allInstructions().get(0);
        assertEquals(PortNumber.TABLE, ((Instructions.OutputInstruction) output).port());
        byte[] sent = new byte[onos.packetOuts.get(0).data().remaining()];
        onos.packetOuts.get(0).data().duplicate().get(sent);
        assertEquals(ByteBuffer.wrap(frame), ByteBuffer.wrap(sent));
        assertEquals(1, manager.sessions().size());
    }

    @Test
    void aRuleOnosExpiresIsAnIdleReportAndTheAppsOwnRemovalsAreNot() throws Exception {
        configured(LEAF, BORDER1, BORDER2);
        packetIn(udpFrame(40000), 1);
        await("the session", () -> onos.flowsOn(BORDER2, SESSION_V4).size() == 1);
        // ONOS's flow subsystem expires one border's rules: the others still carry traffic.
        onos.flowsOn(BORDER1, SESSION_V6).forEach(onos::expire);
        onos.flowsOn(BORDER1, SESSION_V4).forEach(onos::expire);
        await("two idle reports", () -> manager.stats().getOrDefault("idleNotifications", 0L) == 2);
        assertEquals(1, manager.sessions().size(), "a session ends only when every border saw it idle");

        onos.flowsOn(BORDER2, SESSION_V6).forEach(onos::expire);
        onos.flowsOn(BORDER2, SESSION_V4).forEach(onos::expire);
        await("the session ended", () -> manager.sessions().isEmpty());
        assertTrue(manager.bib().isEmpty());
        Thread.sleep(200);
        assertEquals(4L, manager.stats().get("idleNotifications"),
                "the app's own removals are not idle reports: " + onos.journal);
        assertTrue(onos.flows.values().stream().noneMatch(f -> f.table().toString().contains("session_")));
    }

    @Test
    void aSwitchMasteredElsewhereGetsSetupsButIsReconciledOnlyByItsMaster() throws Exception {
        onos.mastered.remove(BORDER2);
        configured(LEAF, BORDER1);
        assertTrue(onos.journalCounts(BORDER2).isEmpty(), "not reconciled here: " + onos.journal);
        packetIn(udpFrame(40001), 1);
        await("the setup on border2", () -> onos.flowsOn(BORDER2, SESSION_V4).size() == 1);
    }

    @Test
    void aSwitchThatComesBackIsReconciledWithWhatItLost() throws Exception {
        configured(LEAF, BORDER1, BORDER2);
        packetIn(udpFrame(40002), 1);
        await("the session", () -> onos.flowsOn(BORDER1, SESSION_V4).size() == 1);
        onos.deviceAvailable(BORDER1, false);
        List<FlowRule> lost = List.copyOf(onos.flowsOn(BORDER1, ""));
        lost.forEach(f -> onos.flows.remove(f.id()));
        onos.deviceAvailable(BORDER1, true);
        await("border1 reconciled", () -> onos.flowsOn(BORDER1, "").size() == lost.size());
        assertEquals(1, onos.flowsOn(BORDER1, SESSION_V4).size());
    }

    @Test
    void aNetcfgWithABadFieldIsRefusedNamingIt() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        Nat64AppConfig app = new Nat64AppConfig();
        app.init(FakeOnos.APP, Nat64AppConfig.KEY, mapper.readTree("{\"pool6\": \"2001:db8:64::/95\","
                + " \"pool4\": {\"addresses\": [\"192.0.2.0/30\"]}}"), mapper, null);
        InvalidFieldException e = assertThrows(InvalidFieldException.class, app::isValid);
        assertEquals("apps.org.nat64fabric.app.nat64.pool6", e.field());

        Nat64DeviceConfig device = new Nat64DeviceConfig();
        device.init(LEAF, Nat64DeviceConfig.KEY, mapper.readTree("{\"role\": \"CORE\"}"), mapper, null);
        e = assertThrows(InvalidFieldException.class, device::isValid);
        assertEquals("devices.device:leaf1.nat64fabric.role", e.field());
    }
}
