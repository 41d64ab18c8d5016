package org.nat64fabric.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.app.FakeOnos.BORDER1;
import static org.nat64fabric.app.FakeOnos.BORDER2;
import static org.nat64fabric.app.FakeOnos.LEAF;
import static org.nat64fabric.app.FakeOnos.await;
import static org.nat64fabric.app.FakeOnos.link;
import static org.nat64fabric.app.FakeOnos.udpFrame;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.app.config.Nat64AppConfig;
import org.nat64fabric.app.config.Nat64DeviceConfig;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.control.SwitchLink;
import org.nat64fabric.core.event.ipfix.NatTemplate;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.TcpState;
import org.onlab.packet.Ethernet;
import org.onlab.packet.IPv6;
import org.onlab.packet.Ip6Address;
import org.onlab.packet.IPv4;
import org.onlab.packet.TCP;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Link;
import org.onosproject.net.PortNumber;
import org.onosproject.net.config.InvalidFieldException;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.meter.Meter;
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
                && (j.endsWith("icmp_source") || j.endsWith("pool6_embed") || j.endsWith("egress_mtu") || j.endsWith("ingress_mtu")
                        || j.endsWith("punt_subscriber") || j.endsWith("lowest_ipv6_mtu") || j.endsWith("inbound_syn")
                        || j.endsWith("udp_zero_checksum") || j.endsWith("rfc6791_pool") || j.endsWith("traffic_class"))),
                onos.journal.toString());
    }

    @Test
    void aPacketToFragmentLeavesInFragmentsByItsRoutesPortPastThePipeline() throws Exception {
        configured(LEAF, BORDER1, BORDER2);
        ByteBuffer b = ByteBuffer.allocate(14 + 48 + 2000);
        b.put(new byte[12]).putShort((short) 0x86dd);
        b.putInt(0x60000000).putShort((short) 2008).put((byte) 44).put((byte) 63).put(new byte[16]);
        b.put(Ip6Address.valueOf("2001:db8:1::10").toOctets());
        b.put((byte) 17).put((byte) 0).putShort((short) 0).putInt(0x4242);
        PacketContextAdapter context = onos.packetIn(b.array(), 3);
        assertTrue(context.isHandled());
        await("the fragments", () -> onos.packetOuts.size() == 2);
        for (var out : onos.packetOuts) {
            Instruction output = out.treatment().allInstructions().get(0);
            assertEquals(PortNumber.portNumber(1), ((Instructions.OutputInstruction) output).port(),
                    "the port of the leaf's route to 2001:db8:1::/64, not through the pipeline");
        }
        assertEquals(14 + 1280, onos.packetOuts.get(0).data().remaining());
    }

    @Test
    void aSessionMissIsOnEveryBorderBeforeThePacketGoesBackThroughThePipeline() throws Exception {
        configured(LEAF, BORDER1, BORDER2);
        onos.journal.clear();
        byte[] frame = udpFrame(40000);
        PacketContextAdapter context = onos.packetIn(frame, 1);
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
    void withAnIpfixSectionTheAppExportsItsNatEventsToTheCollector(@TempDir Path tmp) throws Exception {
        try (DatagramSocket collector = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            collector.setSoTimeout(5000);
            String ipfix = ", \"ipfix\": {\"collector\": \"127.0.0.1\", \"port\": " + collector.getLocalPort()
                    + ", \"observationDomainId\": 9}";
            onos.pushNetcfg(POOL4, ipfix);
            await("the service configured", () -> {
                try {
                    return manager.devices().stream().allMatch(d -> d.connected);
                } catch (Nat64Service.NotConfigured e) {
                    return false;
                }
            });
            onos.packetIn(udpFrame(40001), 1);
            List<Integer> natEvents = new ArrayList<>();
            boolean templates = false;
            List<byte[]> received = new ArrayList<>();
            while (natEvents.size() < 3) {
                DatagramPacket p = new DatagramPacket(new byte[2048], 2048);
                collector.receive(p);
                received.add(Arrays.copyOf(p.getData(), p.getLength()));
                ByteBuffer m = ByteBuffer.wrap(p.getData(), 0, p.getLength());
                assertEquals(10, m.getShort(0), "IPFIX");
                assertEquals(9, m.getInt(12), "the observation domain");
                for (int at = 16; at < m.limit(); at += m.getShort(at + 2)) {
                    int set = m.getShort(at);
                    templates |= set == 2;
                    if (set >= 256) {
                        assertTrue(templates, "templates before data");
                        int length = NatTemplate.ALL.stream().filter(t -> t.id == set).findFirst().orElseThrow()
                                .recordLength;
                        for (int end = at + 4 + length; end <= at + m.getShort(at + 2); end += length) {
                            natEvents.add((int) m.get(end - 1));   // natEvent ends each record
                        }
                    }
                }
            }
            assertEquals(List.of(16, 10, 6), natEvents, "port block, NAT64 BIB, NAT64 session (RFC 8158)");
            assertDecodedByTshark(received, tmp);
            await("counted", () -> manager.stats().get("ipfix.exported") == 3L);

            onos.pushNetcfg(POOL4, ipfix);   // the same collector: the same exporter, its sequence goes on
            await("reconfigured", () -> manager.stats().get("ipfix.exported") != null);
            onos.packetIn(udpFrame(40002), 1);
            ByteBuffer data;
            do {
                DatagramPacket p = new DatagramPacket(new byte[2048], 2048);
                collector.receive(p);
                data = ByteBuffer.wrap(p.getData(), 0, p.getLength());
            } while (data.getShort(16) == 2);
            assertEquals(3, data.getInt(8), "the records sent before it");
        }
    }

    /** The same export read by Wireshark's IPFIX dissector: RFC 8158's records, element by element. */
    private static void assertDecodedByTshark(List<byte[]> datagrams, Path dir) throws Exception {
        Map<String, List<String>> f = Tshark.decode(datagrams, dir, "cflow.version", "cflow.od_id", "cflow.nat_event",
                "cflow.protocol", "cflow.srcaddrv6", "cflow.srcport", "cflow.post_natsource_ipv4_address",
                "cflow.post_naptsource_transport_port", "cflow.dstaddrv6", "cflow.dstport",
                "cflow.post_natdestination_ipv4_address", "cflow.port_range_start", "cflow.port_range_end");
        assertTrue(f.get("cflow.version").stream().allMatch("10"::equals), f.toString());
        assertTrue(f.get("cflow.od_id").stream().allMatch("9"::equals), f.toString());
        assertEquals(List.of("16", "10", "6"), f.get("cflow.nat_event"), "port block, BIB, session");
        assertEquals(List.of("17", "17", "17"), f.get("cflow.protocol"));
        assertEquals(List.of("2001:db8:1::10", "2001:db8:1::10", "2001:db8:1::10"), f.get("cflow.srcaddrv6"));
        assertEquals(List.of("40001", "40001"), f.get("cflow.srcport"), "the BIB's and the session's");
        List<String> mapped = f.get("cflow.post_natsource_ipv4_address");
        assertEquals(3, mapped.size());
        assertTrue(mapped.stream().allMatch(a -> a.equals(mapped.get(0)) && a.startsWith("192.0.2.")), mapped.toString());
        List<String> ports = f.get("cflow.post_naptsource_transport_port");
        int port = Integer.parseInt(ports.get(0));
        assertEquals(List.of(ports.get(0), ports.get(0)), ports);
        assertTrue(Integer.parseInt(f.get("cflow.port_range_start").get(0)) <= port
                && port <= Integer.parseInt(f.get("cflow.port_range_end").get(0)), f.toString());
        assertEquals(List.of("2001:db8:64::c633:640a"), f.get("cflow.dstaddrv6"), "the session's destination");
        assertEquals(List.of("198.51.100.10"), f.get("cflow.post_natdestination_ipv4_address"));
        assertEquals(List.of("53"), f.get("cflow.dstport"));
    }

    @Test
    void packetInsArrivingWhileBordersAreSlowAreSetUpInFewBatchesOneFlowRuleBatchPerBorderEach() throws Exception {
        configured(LEAF, BORDER1, BORDER2);
        onos.applies.clear();
        onos.applyGate = new java.util.concurrent.CountDownLatch(1);
        onos.packetIn(udpFrame(30000), 1);
        await("the first batch held by the slow borders", () -> onos.heldAtGate.get() == 2);
        assertTrue(onos.packetOuts.isEmpty(), "its packet waits for its writes");
        for (int port = 30001; port <= 30200; port++) {
            onos.packetIn(udpFrame(port), 1);
        }
        onos.applyGate.countDown();
        await("200 packets back", () -> onos.packetOuts.size() == 201);
        // At most four batches are in flight: the held one and up to three taken as the packets
        // came; the rest waited for a slot and went in batches of at most 64 of one subscriber's
        // packets. Whatever the timing, at most 1 + 3 + 200 / 64 (rounded up) = 8 batches, each
        // one operation per border.
        for (DeviceId border : List.of(BORDER1, BORDER2)) {
            int applied = onos.applies.get(border).get();
            assertTrue(applied <= 8, border + ": " + applied + " flow-rule batches for 201 setups");
            assertEquals(201, onos.flowsOn(border, SESSION_V4).size());
        }
        assertEquals(201, manager.sessions().size());
    }

    @Test
    void aRuleOnosExpiresIsAnIdleReportAndTheAppsOwnRemovalsAreNot() throws Exception {
        configured(LEAF, BORDER1, BORDER2);
        onos.packetIn(udpFrame(40000), 1);
        // borders are written in parallel: wait for both, or an expiry could find nothing to expire
        await("the session on both borders", () -> List.of(BORDER1, BORDER2).stream().allMatch(b ->
                onos.flowsOn(b, SESSION_V6).size() == 1 && onos.flowsOn(b, SESSION_V4).size() == 1));
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
    void deletingARuleOnosExpiredAlreadyLeavesNoIdToSwallowALaterExpiryOfTheSameRule() throws Exception {
        configured(LEAF, BORDER1, BORDER2);
        onos.packetIn(udpFrame(40000), 1);
        await("the session on border1", () -> onos.flowsOn(BORDER1, SESSION_V6).size() == 1
                && onos.flowsOn(BORDER1, SESSION_V4).size() == 1);
        FlowEntry expired = onos.flowsOn(BORDER1, SESSION_V6).get(0);
        FlowEntry held = onos.flowsOn(BORDER1, SESSION_V4).get(0);
        onos.flows.remove(expired.id());   // ONOS expired it; its event is not this test's subject
        Set<FlowId> removing = ConcurrentHashMap.newKeySet();
        new FlowRuleSwitchLink(BORDER1, FakeOnos.APP, manager.flowRuleService, manager.packetService,
                manager.groupService, manager.meterService, manager.pipeconfService, null, removing)
                .write(List.of(new SwitchLink.Update(SwitchLink.Update.Type.DELETE, FlowRuleSwitchLink.tableEntry(expired)),
                        new SwitchLink.Update(SwitchLink.Update.Type.DELETE, FlowRuleSwitchLink.tableEntry(held))));
        // ONOS posts RULE_REMOVED for the rule it held (the manager's own set took that one), never
        // for the other: its ID kept as "removed by the app" would swallow the same rule's next expiry.
        assertEquals(Set.of(held.id()), removing);
    }

    @Test
    void theTableEntriesAreWrittenAndOneLineSaysWhatToDoWhenOnosRefusesIndexedMeters() throws Exception {
        String mode = "org.onosproject.net.meter.impl.MeterManager userDefinedIndex";
        await("the mode set by the app as it starts", () -> "true".equals(onos.componentProperties.get(mode)));
        onos.componentProperties.remove(mode);
        // as when ONOS's meter store refuses to change modes (meters exist) or the operator turned it off
        configured(LEAF, BORDER1, BORDER2);
        assertEquals(0, onos.meterSubmits.get());
        assertTrue(onos.journal.contains(BORDER1 + " ADD_GROUP CLONE 99"), onos.journal.toString());
        onos.packetIn(udpFrame(40000), 1);
        await("the session on both borders", () -> List.of(BORDER1, BORDER2).stream().allMatch(b ->
                onos.flowsOn(b, SESSION_V6).size() == 1 && onos.flowsOn(b, SESSION_V4).size() == 1));
    }

    @Test
    void aSwitchMasteredElsewhereGetsSetupsButIsReconciledOnlyByItsMaster() throws Exception {
        onos.mastered.remove(BORDER2);
        configured(LEAF, BORDER1);
        assertTrue(onos.journalCounts(BORDER2).isEmpty(), "not reconciled here: " + onos.journal);
        onos.packetIn(udpFrame(40001), 1);
        await("the setup on border2", () -> onos.flowsOn(BORDER2, SESSION_V4).size() == 1);
        // its master fails: this instance takes over and reconciles it
        onos.becomeMaster(BORDER2);
        await("border2 reconciled by its new master", () -> onos.journal.contains(BORDER2 + " ADD_GROUP CLONE 99"));
    }

    @Test
    void aSwitchThatComesBackIsReconciledWithWhatItLost() throws Exception {
        configured(LEAF, BORDER1, BORDER2);
        onos.packetIn(udpFrame(40002), 1);
        await("the session", () -> onos.flowsOn(BORDER1, SESSION_V4).size() == 1);
        onos.deviceAvailable(BORDER1, false);
        List<FlowRule> lost = List.copyOf(onos.flowsOn(BORDER1, ""));
        lost.forEach(f -> onos.flows.remove(f.id()));
        onos.deviceAvailable(BORDER1, true);
        await("border1 reconciled", () -> onos.flowsOn(BORDER1, "").size() == lost.size());
        assertEquals(1, onos.flowsOn(BORDER1, SESSION_V4).size());
    }

    /** IPv6 TCP from the host's port 40100 to 198.51.100.10:80 through pool6, with the given flags. */
    private static byte[] tcp6(int flags) {
        TCP tcp = new TCP();
        tcp.setSourcePort(40100);
        tcp.setDestinationPort(80);
        tcp.setFlags((short) flags);
        tcp.setDataOffset((byte) 5);
        IPv6 ip = new IPv6();
        ip.setSourceAddress(Ip6Address.valueOf("2001:db8:1::10").toOctets());
        ip.setDestinationAddress(Ip6Address.valueOf("2001:db8:64::c633:640a").toOctets());
        ip.setNextHeader(IPv6.PROTOCOL_TCP);
        ip.setHopLimit((byte) 64);
        ip.setPayload(tcp);
        return ethernet(Ethernet.TYPE_IPV6, ip);
    }

    /** IPv4 TCP from 198.51.100.10:80 back to the mapping's pool4 address and port. */
    private static byte[] tcp4(TransportAddress mapped, int flags) {
        TCP tcp = new TCP();
        tcp.setSourcePort(80);
        tcp.setDestinationPort(mapped.port());
        tcp.setFlags((short) flags);
        tcp.setDataOffset((byte) 5);
        IPv4 ip = new IPv4();
        ip.setSourceAddress("198.51.100.10");
        ip.setDestinationAddress(mapped.address().toString());
        ip.setProtocol(IPv4.PROTOCOL_TCP);
        ip.setTtl((byte) 64);
        ip.setPayload(tcp);
        return ethernet(Ethernet.TYPE_IPV4, ip);
    }

    private static byte[] ethernet(short type, org.onlab.packet.IPacket ip) {
        Ethernet eth = new Ethernet();
        eth.setEtherType(type);
        eth.setSourceMACAddress("00:00:00:00:01:10");
        eth.setDestinationMACAddress("00:00:00:00:b1:01");
        eth.setPayload(ip);
        return eth.serialize();
    }

    @Test
    void everySwitchGetsTheCpuCloneSessionAndThePuntMetersOnConnectAndKeepsThem() throws Exception {
        configured(LEAF, BORDER1, BORDER2);
        for (DeviceId d : List.of(LEAF, BORDER1, BORDER2)) {
            assertTrue(onos.journal.contains(d + " ADD_GROUP CLONE 99"), onos.journal.toString());
            Group clone = onos.groups.values().stream().filter(g -> g.deviceId().equals(d)).findFirst().orElseThrow();
            assertEquals(GroupDescription.Type.CLONE, clone.type());
            assertEquals(List.of(PortNumber.portNumber(255)), clone.buckets().buckets().stream()
                    .map(b -> ((Instructions.OutputInstruction) b.treatment().allInstructions().get(0)).port())
                    .collect(Collectors.toList()), "TCP control copies go to the CPU port");
            List<Meter> perSource = onos.meters.values().stream().filter(m -> m.deviceId().equals(d)
                    && m.meterCellId().toString().contains("punt_source_meter")).collect(Collectors.toList());
            assertEquals(4096, perSource.size(), "every cell of the per-source meter");
            assertTrue(perSource.stream().allMatch(m -> m.unit() == Meter.Unit.PKTS_PER_SEC && m.bands().stream()
                    .allMatch(b -> b.rate() == 500 && b.burst() == 250)), perSource.get(0).toString());
            assertEquals(512, onos.meters.values().stream().filter(m -> m.deviceId().equals(d)
                    && m.meterCellId().toString().contains("punt_port_meter")).count());
            List<Meter> syns = onos.meters.values().stream().filter(m -> m.deviceId().equals(d)
                    && m.meterCellId().toString().contains("inbound_syn_meter")).collect(Collectors.toList());
            assertEquals(1, syns.size(), "one cell for the SYNs to be held");
            assertTrue(syns.get(0).bands().stream().allMatch(b -> b.rate() == 86 && b.burst() == 512), syns.toString());
        }
        // Available again with all of it held: no group or meter is written again.
        int submits = onos.meterSubmits.get();
        onos.journal.clear();
        onos.deviceAvailable(BORDER1, true);
        onos.settle();
        assertTrue(onos.journal.stream().noneMatch(j -> j.contains("GROUP")), onos.journal.toString());
        assertEquals(submits, onos.meterSubmits.get());
        // A lost clone session and a changed meter cell are restored when the device comes back.
        onos.deviceAvailable(BORDER1, false);
        onos.groups.keySet().removeIf(k -> k.startsWith(BORDER1 + "|"));
        String cell = onos.meters.keySet().stream().filter(k -> k.startsWith(BORDER1 + "|")).findFirst().orElseThrow();
        onos.meters.remove(cell);
        onos.deviceAvailable(BORDER1, true);
        await("border1's clone session", () -> onos.journal.contains(BORDER1 + " ADD_GROUP CLONE 99"));
        await("border1's meter rewritten", () -> onos.meters.containsKey(cell));
    }

    @Test
    void aPipeconfWithoutThePuntMetersGetsTheCloneSessionAndNoMeters() throws Exception {
        onos.meterSizes.clear();
        configured(LEAF, BORDER1, BORDER2);
        assertTrue(onos.journal.contains(BORDER1 + " ADD_GROUP CLONE 99"), onos.journal.toString());
        assertEquals(0, onos.meterSubmits.get());
    }

    @Test
    void tcpControlCopiesPuntedThroughTheCloneSessionDriveTheSessionState() throws Exception {
        configured(LEAF, BORDER1, BORDER2);
        assertTrue(onos.journal.contains(LEAF + " ADD_GROUP CLONE 99"), "the copies' clone session is written");
        onos.packetIn(tcp6(0x02), 1);                                                   // SYN: a session miss
        await("the session", () -> manager.sessions().size() == 1);
        assertEquals(Optional.of(TcpState.V6_INIT), manager.sessions().get(0).state());
        TransportAddress mapped = manager.bib().get(0).v4();
        onos.packetIn(tcp4(mapped, 0x12), 2);                                           // the SYN/ACK's copy
        await("established", () -> manager.sessions().get(0).state().equals(Optional.of(TcpState.ESTABLISHED)));
        await("established lifetime on the borders", () -> onos.flowsOn(BORDER2, SESSION_V4).stream()
                .allMatch(f -> f.timeout() == 7440));
        onos.packetIn(tcp6(0x11), 2);                                                   // FIN copies, both ways
        onos.packetIn(tcp4(mapped, 0x11), 2);
        await("both FINs seen", () -> manager.sessions().get(0).state().equals(Optional.of(TcpState.V4_FIN_V6_FIN_RCV)));
        await("the transitory lifetime on both borders", () -> List.of(BORDER1, BORDER2).stream()
                .allMatch(b -> onos.flowsOn(b, SESSION_V6).size() == 1 && onos.flowsOn(b, SESSION_V6).get(0).timeout() == 240));
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

    @Test
    void theNetcfgClassesGiveTheConfigFilesAnswers() throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        Nat64AppConfig app = new Nat64AppConfig();
        app.init(FakeOnos.APP, Nat64AppConfig.KEY, mapper.readTree("{\"pool6\": \"2001:db8:64::/96\","
                + " \"pool4\": {\"addresses\": [\"192.0.2.0/30\"], \"blocksize\": 64}}"), mapper, null);
        InvalidFieldException e = assertThrows(InvalidFieldException.class, app::isValid);
        assertEquals("apps.org.nat64fabric.app.nat64.pool4.blocksize", e.field());
        assertTrue(e.getMessage().contains("did you mean 'blockSize'?"), e.getMessage());

        app.init(FakeOnos.APP, Nat64AppConfig.KEY, mapper.readTree("{\"pool6\": \"2001:db8:64::/96\","
                + " \"pool4\": {\"addresses\": [\"192.0.2.0/30\"]}, \"staticBib\": [{\"protocol\": \"TCP\","
                + " \"ipv6Address\": \"fe80::1\", \"ipv6Port\": 80, \"ipv4Address\": \"192.0.2.1\", \"ipv4Port\": 8080}]}"),
                mapper, null);
        e = assertThrows(InvalidFieldException.class, app::isValid);
        assertEquals("apps.org.nat64fabric.app.nat64.staticBib[0].ipv6Address", e.field());

        Nat64DeviceConfig device = new Nat64DeviceConfig();
        device.init(LEAF, Nat64DeviceConfig.KEY, mapper.readTree("{\"role\": \"EDGE\", \"routerMac\":"
                + " \"00:00:00:00:a1:01\", \"mtu\": 1000}"), mapper, null);
        e = assertThrows(InvalidFieldException.class, device::isValid);
        assertEquals("devices.device:leaf1.nat64fabric.mtu", e.field());
    }

    /** As ONOS's LinkService knows them, one direction each: a link both ways is listed once. */
    @Test
    void linksComeFromOnosWithTheirState() {
        onos.links.addAll(List.of(link(BORDER1, 1, LEAF, 2, Link.State.ACTIVE), link(LEAF, 2, BORDER1, 1, Link.State.ACTIVE),
                link(LEAF, 3, BORDER2, 1, Link.State.ACTIVE), link(BORDER2, 1, LEAF, 3, Link.State.INACTIVE),
                link(BORDER1, 4, BORDER2, 4, Link.State.INACTIVE)));
        List<String> listed = manager.links().stream().map(l -> l.srcDevice + "/" + l.srcPort + "-" + l.dstDevice
                + "/" + l.dstPort + " " + l.type + (l.bidirectional ? " both ways" : " one way") + (l.up ? " up" : " down"))
                .collect(Collectors.toList());
        assertEquals(List.of("device:border1/1-device:leaf1/2 DIRECT both ways up",
                "device:border1/4-device:border2/4 DIRECT one way down",
                "device:border2/1-device:leaf1/3 DIRECT both ways down"), listed);
    }
}
