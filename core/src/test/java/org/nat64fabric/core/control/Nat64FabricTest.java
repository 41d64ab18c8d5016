package org.nat64fabric.core.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.fabric.CloneSession;
import org.nat64fabric.core.fabric.Entity;
import org.nat64fabric.core.fabric.MeterConfig;
import org.nat64fabric.core.fabric.TableEntry;
import org.nat64fabric.core.p4.Constants;
import org.nat64fabric.core.fabric.DesiredState;
import org.nat64fabric.core.p4.P4InfoConstants;
import org.nat64fabric.core.event.NatEvent;
import org.nat64fabric.core.p4.SumeHeaders;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.TcpState;
import org.nat64fabric.core.store.InMemoryNatStore;
import org.nat64fabric.core.store.MapNatStore;
import org.nat64fabric.core.store.NatStore;

class Nat64FabricTest {
    private static final String HOST = "2001:db8:1::10";

    /**
     * A switch that holds entities as P4Runtime does: INSERT of a held key, MODIFY or DELETE of a
     * missing one fail; what always exists (default entries, meters) is only modified.
     */
    static class FakeSwitch implements SwitchLink {
        final String id;
        final Map<Object, Entity> entries = new HashMap<>();
        final List<List<Update>> batches = new ArrayList<>();
        final List<byte[]> packetOuts = new ArrayList<>();
        final List<Integer> sentOut = new ArrayList<>();   // the port of each packet-out past the pipeline
        /** Writes taken, and how many session entries the switch held when each packet came back. */
        int writes;
        final List<Integer> sessionsAtPacketOut = new ArrayList<>();
        final List<byte[]> probes = new ArrayList<>();

        FakeSwitch(String id) {
            this.id = id;
        }

        @Override
        public String deviceId() {
            return id;
        }

        @Override
        public void write(List<Update> updates) {
            writes++;
            batches.add(updates);
            for (Update u : updates) {
                Object key = u.entity.key();
                boolean held = entries.containsKey(key) || u.entity.alwaysPresent();
                if (u.type == Update.Type.INSERT && held || u.type != Update.Type.INSERT && !held
                        || u.type == Update.Type.DELETE && u.entity.alwaysPresent()) {
                    throw new SwitchException(id + ": " + u + " is refused", null);
                }
                if (u.type == Update.Type.DELETE) {
                    entries.remove(key);
                } else {
                    entries.put(key, u.entity);
                }
            }
        }

        @Override
        public List<Entity> read() {
            return entries.values().stream().filter(Entity::readable).collect(Collectors.toList());
        }

        @Override
        public void packetOut(byte[] frame, int port) {
            sentOut.add(port);
            packetOuts.add(frame);
        }

        @Override
        public void packetOut(byte[] frame) {
            packetOuts.add(frame);
            sessionsAtPacketOut.add(sessions().size());
        }

        @Override
        public boolean probe(byte[] frame) {
            return probes.add(frame);
        }

        List<TableEntry> sessions() {
            return entries.values().stream().filter(e -> e instanceof TableEntry).map(e -> (TableEntry) e)
                    .filter(e -> e.table().startsWith("Nat64Ingress.translate.session_")).collect(Collectors.toList());
        }
    }

    private Nat64Fabric fabric;
    private FakeSwitch edge;
    private FakeSwitch border1;
    private FakeSwitch border2;
    private long now = 1_000_000;

    private static FabricConfig config(String pool4) throws Exception {
        String sw = "\"routerMac\": \"00:00:00:00:b1:0%d\", \"ipv4\": \"198.51.100.%d\", \"ipv6\": \"2001:db8:ff::%d\","
                + " \"routes\": [{\"prefix\": \"2001:db8:1::/64\", \"port\": 1, \"nextHopMac\": \"00:00:00:00:01:10\"}]";
        String json = "{\"apps\": {\"org.nat64fabric.app\": {\"nat64\": {\"pool6\": \"2001:db8:64::/96\", \"pool4\": "
                + pool4 + "}}}, \"devices\": {"
                + "\"edge\": {\"nat64fabric\": {\"role\": \"EDGE\", " + String.format(sw, 1, 1, 1) + "}},"
                + "\"border1\": {\"nat64fabric\": {\"role\": \"BORDER\", " + String.format(sw, 2, 2, 2) + "}},"
                + "\"border2\": {\"nat64fabric\": {\"role\": \"BORDER\", " + String.format(sw, 3, 3, 3) + "}}}}";
        return FabricConfig.parse(new ObjectMapper().readTree(json));
    }

    private void start(String pool4) throws Exception {
        fabric = new Nat64Fabric(config(pool4), new InMemoryNatStore(), e -> { }, () -> now);
        edge = new FakeSwitch("edge");
        border1 = new FakeSwitch("border1");
        border2 = new FakeSwitch("border2");
        fabric.connected(edge);
        fabric.connected(border1);
        fabric.connected(border2);
    }

    @BeforeEach
    void setUp() throws Exception {
        start("{\"addresses\": [\"192.0.2.0/30\"]}");
    }

    /** An Ethernet frame with IPv6 and UDP from the host's port to 198.51.100.10 (in pool6), port 53. */
    static byte[] udpFrame(int sourcePort) {
        return udpFrame(HOST, sourcePort);
    }

    static byte[] udpFrame(String host, int sourcePort) {
        ByteBuffer b = ByteBuffer.allocate(14 + 40 + 8 + 4);
        b.put(new byte[12]).putShort((short) 0x86dd);
        b.putInt(0x60000000).putShort((short) 12).put((byte) 17).put((byte) 64);
        b.put(Ipv6Address.parse(host, "src").toBytes());
        b.put(Ipv6Address.parse("2001:db8:64::c633:640a", "dst").toBytes());
        b.putShort((short) sourcePort).putShort((short) 53).putShort((short) 12).putShort((short) 0);
        b.put(new byte[] {1, 2, 3, 4});
        return b.array();
    }

    @Test
    void aReconnectingSwitchIsBroughtToItsDesiredState() {
        FakeSwitch again = new FakeSwitch("border1");
        TableEntry stale = TableEntry.in(P4InfoConstants.NAT64_INGRESS_IPV4_ROUTES)
                .lpm(P4InfoConstants.HDR_DST_ADDR, java.math.BigInteger.valueOf(0x0a000000L), 8)
                .action(P4InfoConstants.NAT64_INGRESS_NO_ROUTE).build();
        again.entries.put(stale.key(), stale);
        Entity kept = border1.read().get(0);
        again.entries.put(kept.key(), kept);
        fabric.connected(again);
        Set<Entity> want = fabric.desiredState("border1").stream().filter(Entity::readable)
                .collect(Collectors.toSet());
        assertEquals(want, new HashSet<>(again.read()));
        assertFalse(again.entries.containsKey(stale.key()));
    }

    @Test
    void aSwitchCountsAsConnectedOnlyOnceItsReconciliationIsWritten() {
        FakeSwitch refusing = new FakeSwitch("border2") {
            @Override
            public void write(List<Update> updates) {
                throw new SwitchException("border2: the write is refused", null);
            }
        };
        fabric.disconnected("border2");
        assertThrows(java.util.concurrent.CompletionException.class, () -> fabric.connected(refusing));
        Map<String, Boolean> connected = fabric.devices().stream()
                .collect(Collectors.toMap(d -> d.deviceId, d -> d.connected));
        assertEquals(Map.of("edge", true, "border1", true, "border2", false), connected);
        fabric.connected(border2);
        assertTrue(fabric.devices().stream().allMatch(d -> d.connected));
    }

    @Test
    void aSessionMissIsWrittenToEveryBorderBeforeThePacketGoesBack() {
        byte[] frame = udpFrame(5000);
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, frame);
        assertEquals(2, border1.sessions().size());
        assertEquals(new HashSet<>(border1.sessions()), new HashSet<>(border2.sessions()));
        assertTrue(edge.sessions().isEmpty());
        assertEquals(1, border1.packetOuts.size());
        assertTrue(java.util.Arrays.equals(frame, border1.packetOuts.get(0)));
        assertTrue(border2.packetOuts.isEmpty());
        assertEquals(1, fabric.bib().size());
        assertEquals(300, border1.sessions().get(0).idleTimeoutSeconds());
    }

    @Test
    void aPacketASumeCardHandsOverIsFinishedAndSentOutOfItsPortOrCountedWhenItCannotBe() {
        ByteBuffer b = ByteBuffer.allocate(14 + 40 + 8 + 4);
        b.put(new byte[12]).putShort((short) 0x86dd);
        b.putInt(0x60000000).putShort((short) 12).put((byte) 17).put((byte) 63).put(new byte[16]);
        b.put(Ipv6Address.parse(HOST, "dst").toBytes());
        b.putShort((short) 53).putShort((short) 5000).putShort((short) 12).putShort((short) 0).putInt(0x61626364);
        fabric.finish("border1", b.array(), SumeHeaders.FINISH_UDP_CHECKSUM, 1, 0, 0, 0, 0);
        assertEquals(List.of(1), border1.sentOut, "out of the port the card routed it to");
        byte[] sent = border1.packetOuts.get(0);
        long sum = InternetChecksum.ipv6PseudoHeader(sent, 14, 12, 17);
        assertEquals(0, InternetChecksum.of(InternetChecksum.add(sum, sent, 54, 12)), "a valid UDP checksum");
        assertTrue((sent[60] | sent[61]) != 0);
        fabric.finish("border1", b.array(), SumeHeaders.FINISH_TRACK, 2, 0, 0, 0, 0);
        assertEquals(List.of(1, 2), border1.sentOut, "a control segment without a mapping is sent on all the same");
        assertEquals(1L, fabric.stats().get("finish.untracked"));
        fabric.finish("border1", b.array(), SumeHeaders.FINISH_HAIRPIN, 2, 0, 0, 0, 0);
        fabric.finish("border1", new byte[20], SumeHeaders.FINISH_UDP_CHECKSUM, 2, 0, 0, 0, 0);
        assertEquals(2, border1.packetOuts.size(), "nothing else was sent");
        assertEquals(2L, fabric.stats().get("finish.sent"));
        assertEquals(1L, fabric.stats().get("finish.notSupported"), "this link cannot mark a hairpin's second pass");
        assertEquals(1L, fabric.stats().get("finish.unparsed"));
        assertEquals(4L, fabric.stats().get("packetIn.5"));
    }

    @Test
    void aPacketTheSwitchMayNotSendWholeLeavesInFragmentsOfTheLowestIpv6MtuByItsRoute() {
        ByteBuffer b = ByteBuffer.allocate(14 + 48 + 2000);
        b.put(new byte[12]).putShort((short) 0x86dd);
        b.putInt(0x60000000).putShort((short) 2008).put((byte) 44).put((byte) 63).put(new byte[16]);
        b.put(Ipv6Address.parse(HOST, "dst").toBytes());
        b.put((byte) 17).put((byte) 0).putShort((short) 0).putInt(0x4242);
        fabric.packetIn("border1", Nat64Fabric.PUNT_NEEDS_FRAGMENTATION, b.array());
        assertEquals(2, border1.packetOuts.size(), "2000 bytes in 1232-byte pieces (1280 - 48)");
        assertEquals(List.of(1, 1), border1.sentOut, "out of port 1, the route to 2001:db8:1::/64");
        assertEquals(14 + 1280, border1.packetOuts.get(0).length);
        assertEquals(1L, fabric.stats().get("fragmentation.packets"));
        byte[] noRoute = b.array().clone();
        noRoute[14 + 24] = 0x30;                  // 3001:... : no route holds it
        fabric.packetIn("border1", Nat64Fabric.PUNT_NEEDS_FRAGMENTATION, noRoute);
        fabric.packetIn("border1", Nat64Fabric.PUNT_NEEDS_FRAGMENTATION, new byte[30]);
        assertEquals(2L, fabric.stats().get("fragmentation.unparsed"));
        assertEquals(2, border1.packetOuts.size());
    }

    @Test
    void whatTheSwitchPuntsToFragmentLeavesByItsPortsMtuAndDrivesTcpState() throws Exception {
        String sw = "\"routerMac\": \"00:00:00:00:b1:02\", \"ipv4\": \"198.51.100.2\", \"ipv6\": \"2001:db8:ff::2\","
                + " \"portMtus\": {\"2\": 576}, \"routes\": ["
                + "{\"prefix\": \"2001:db8:1::/64\", \"port\": 1, \"nextHopMac\": \"00:00:00:00:01:10\"},"
                + "{\"prefix\": \"198.51.100.0/24\", \"port\": 2, \"nextHopMac\": \"00:00:00:00:02:10\"}]";
        fabric = new Nat64Fabric(FabricConfig.parse(new ObjectMapper().readTree("{\"apps\": {\"org.nat64fabric.app\":"
                + " {\"nat64\": {\"pool6\": \"2001:db8:64::/96\", \"pool4\": {\"addresses\": [\"192.0.2.0/30\"]}}}},"
                + " \"devices\": {\"border1\": {\"nat64fabric\": {\"role\": \"BORDER\", " + sw + "}}}}")),
                new InMemoryNatStore(), e -> { }, () -> now);
        border1 = new FakeSwitch("border1");
        fabric.connected(border1);
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, v6Syn(40001, "198.51.100.7", 80));
        TransportAddress mapped = fabric.sessions().get(0).bib().v4();
        fabric.packetIn("border1", Nat64Fabric.PUNT_TCP_CONTROL,
                v4Syn("198.51.100.7", 80, mapped.address(), mapped.port()));
        assertEquals(Optional.of(TcpState.ESTABLISHED), fabric.sessions().get(0).state());
        int before = border1.packetOuts.size();

        // The host's FIN with 1100 bytes, translated (no DF: at most 1260 bytes) for the 576-byte IPv4 link.
        ByteBuffer fin = ByteBuffer.allocate(14 + 20 + 20 + 1100);
        fin.put(new byte[12]).putShort((short) 0x0800);
        fin.put((byte) 0x45).put((byte) 0).putShort((short) 1140).putInt(0x12340000).put((byte) 63).put((byte) 6)
                .putShort((short) 0);
        fin.putInt(mapped.address().bits()).putInt(Ipv4Address.parse("198.51.100.7", "dst").bits());
        fin.putShort((short) mapped.port()).putShort((short) 80).putInt(2).putInt(1);
        fin.put((byte) 0x50).put((byte) 0x11).putShort((short) 8192).putInt(0);
        fabric.packetIn("border1", Nat64Fabric.PUNT_NEEDS_FRAGMENTATION, fin.array());
        assertEquals(Optional.of(TcpState.V6_FIN_RCV), fabric.sessions().get(0).state(), "the FIN was tracked");
        List<byte[]> pieces = border1.packetOuts.subList(before, border1.packetOuts.size());
        assertEquals(3, pieces.size(), "1120 bytes in pieces of 552 (576 - 20, in 8-byte units)");
        assertTrue(pieces.stream().allMatch(f -> f.length <= 14 + 576));
        assertEquals(List.of(2, 2, 2), border1.sentOut.subList(border1.sentOut.size() - 3, border1.sentOut.size()),
                "out of port 2, the route to 198.51.100.0/24");

        // IPv6 to fragment leaves in pieces of the lowest IPv6 MTU: the 576-byte IPv4 link carries no IPv6.
        ByteBuffer b = ByteBuffer.allocate(14 + 48 + 2000);
        b.put(new byte[12]).putShort((short) 0x86dd);
        b.putInt(0x60000000).putShort((short) 2008).put((byte) 44).put((byte) 63).put(new byte[16]);
        b.put(Ipv6Address.parse(HOST, "dst").toBytes());
        b.put((byte) 17).put((byte) 0).putShort((short) 0).putInt(0x4242);
        before = border1.packetOuts.size();
        fabric.packetIn("border1", Nat64Fabric.PUNT_NEEDS_FRAGMENTATION, b.array());
        assertEquals(14 + 1280, border1.packetOuts.get(before).length);
    }

    @Test
    void theSetupQueuesTakeTheirLimitsFromTheConfig() throws Exception {
        List<Runnable> scheduled = new ArrayList<>();
        fabric = new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"], \"blocksPerSubscriber\": 64}, "
                + "\"setupQueues\": {\"perSubscriber\": 10, \"total\": 15}"),
                new InMemoryNatStore(), e -> { }, () -> now, scheduled::add, Runnable::run);
        border1 = new FakeSwitch("border1");
        border2 = new FakeSwitch("border2");
        fabric.connected(border1);
        fabric.connected(border2);
        for (int port = 5000; port < 5030; port++) {           // one host: 10 wait, 20 are refused
            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(port));
        }
        assertEquals(20, fabric.stats().get("setups.queueFull"));
        for (int port = 7000; port < 7010; port++) {           // another: 5 fit in the 15, 5 push the first's out
            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame("2001:db8:1::20", port));
        }
        assertEquals(25, fabric.stats().get("setups.queueFull"));
        scheduled.remove(0).run();
        assertEquals(2 * 15, border1.sessions().size(), "the 15 that waited are set up");
    }

    @Test
    void aBatchIsOneWritePerBorderAndItsPacketsGoBackOnlyAfterIt() throws Exception {
        List<Runnable> scheduled = new ArrayList<>();
        fabric = new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"], \"blocksPerSubscriber\": 64}"),
                new InMemoryNatStore(), e -> { }, () -> now, scheduled::add, Runnable::run);
        border1 = new FakeSwitch("border1");
        border2 = new FakeSwitch("border2");
        fabric.connected(border1);
        fabric.connected(border2);
        int writes1 = border1.writes;
        int writes2 = border2.writes;
        for (int port = 5000; port < 5300; port++) {           // one host floods: 256 wait, 44 are refused
            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(port));
        }
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame("2001:db8:1::20", 7000));
        assertEquals(1, scheduled.size(), "one drain is scheduled however many packets wait");
        assertEquals(44, fabric.stats().get("setups.queueFull"));
        assertEquals(44, border1.packetOuts.size(), "each refused packet is answered ICMPv6 unreachable");
        for (byte[] error : border1.packetOuts) {     // RFC 6146 3.5.1.1: Destination Unreachable, Address Unreachable
            assertEquals(58, error[14 + 6], "ICMPv6");
            assertEquals(1, error[14 + 40], "type 1, Destination Unreachable");
            assertEquals(3, error[14 + 41], "code 3, Address Unreachable");
            assertArrayEquals(Ipv6Address.parse(HOST, "dst").toBytes(), Arrays.copyOfRange(error, 14 + 24, 14 + 40),
                    "back to the host that asked");
        }
        assertTrue(border1.sessions().isEmpty(), "nothing is set up before the batch runs");
        scheduled.remove(0).run();
        // At most 64 of one subscriber's packets per batch: 65 (with the other host's), 64, 64, 64.
        assertEquals(writes1 + 4, border1.writes, "each batch is one write to border1");
        assertEquals(writes2 + 4, border2.writes, "and one to border2");
        assertEquals(2 * 257, border1.sessions().size());
        assertEquals(new HashSet<>(border1.sessions()), new HashSet<>(border2.sessions()));
        List<Integer> afterBatch = border1.sessionsAtPacketOut.subList(44, border1.sessionsAtPacketOut.size());
        List<Integer> expected = new ArrayList<>();
        int setUp = 0;
        for (int size : new int[] {65, 64, 64, 64}) {
            setUp += size;
            expected.addAll(Collections.nCopies(size, 2 * setUp));
        }
        assertEquals(expected, afterBatch, "every packet went back after its batch's write");
        byte[] other = Ipv6Address.parse("2001:db8:1::20", "src").toBytes();
        assertTrue(border1.packetOuts.subList(44, 44 + 65).stream()
                        .anyMatch(f -> Arrays.equals(other, Arrays.copyOfRange(f, 14 + 8, 14 + 24))),
                "the other host's packet went back with the first batch, not behind the flood");
    }

    @Test
    void missesOfOneFlowInABatchAreSetUpOnceAndEveryPacketGoesBack() throws Exception {
        List<Runnable> scheduled = new ArrayList<>();
        List<NatEvent> events = new ArrayList<>();
        fabric = new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"]}"), new InMemoryNatStore(), events::add,
                () -> now, scheduled::add, Runnable::run);
        border1 = new FakeSwitch("border1");
        fabric.connected(border1);
        for (int i = 0; i < 5; i++) {       // a burst of one flow's packets before its session exists
            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(5000));
        }
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(5001));
        assertEquals(0, fabric.stats().get("setups.latencyUs.total.p50"), "no setup done yet");
        Thread.sleep(25);                   // the packets wait in their queues at least this long
        scheduled.remove(0).run();
        assertTrue(fabric.stats().get("setups.latencyUs.queued.p50") >= 25_000, fabric.stats().toString());
        assertTrue(fabric.stats().get("setups.latencyUs.total.p99") >= fabric.stats().get("setups.latencyUs.queued.p99"));
        assertEquals(4, fabric.stats().get("setups.coalesced"));
        assertEquals(2, fabric.bib().size());
        assertEquals(2, events.stream().filter(e -> e.type() == NatEvent.Type.NAT64_BIB_CREATE).count(),
                "one mapping, one event, per flow");
        assertEquals(6, border1.packetOuts.size(), "every punted packet goes back translated");
    }

    private static final String WITH_NETCFG_ENTRIES = "{\"addresses\": [\"192.0.2.0/30\"]},"
            + " \"eamt\": [{\"ipv6Prefix\": \"2001:db8:2::20/128\", \"ipv4Prefix\": \"198.18.0.20/32\"}],"
            + " \"staticBib\": [{\"protocol\": \"TCP\", \"ipv6Address\": \"2001:db8:1::10\", \"ipv6Port\": 80,"
            + " \"ipv4Address\": \"192.0.2.0\", \"ipv4Port\": 8080}]";

    @Test
    void theApiDoesNotRemoveTheNetcfgsEntriesWhichEveryStartAddsAgain() throws Exception {
        start(WITH_NETCFG_ENTRIES);
        int writes = border1.writes;
        ConfigException eam = assertThrows(ConfigException.class,
                () -> fabric.removeEam(Ipv4Prefix.parse("198.18.0.20/32", "t")));
        assertEquals("ipv4Prefix", eam.field());
        assertTrue(eam.problem().contains(FabricConfig.NAT64 + ".eamt[0]"), eam.problem());
        ConfigException bib = assertThrows(ConfigException.class,
                () -> fabric.removeBib(Protocol.TCP, Ipv6Address.parse("2001:db8:1::10", "t"), 80));
        assertEquals("ipv6Address", bib.field());
        assertTrue(bib.problem().contains(FabricConfig.NAT64 + ".staticBib[0]"), bib.problem());
        assertEquals(1, fabric.eamt().size());
        assertEquals(1, fabric.bib().size());
        assertEquals(writes, border1.writes, "nothing removed from the switches either");
        // what the API added, it removes
        fabric.addEam(Eam.parse("2001:db8:2::30/128", "198.18.0.30/32", "t"));
        assertTrue(fabric.removeEam(Ipv4Prefix.parse("198.18.0.30/32", "t")).isPresent());
    }

    @Test
    void theApiRefusesAnEamTheSwitchesEamtTablesHaveNoRoomFor() throws Exception {
        long room = DesiredState.eamCapacity(config("{\"addresses\": [\"192.0.2.0/30\"]}").nat64);
        assertEquals(P4InfoConstants.NAT64_INGRESS_TRANSLATE_EAMT_V6_SRC_SIZE, room, "no SIIT prefix takes a place");
        for (int n = 0; n < room; n++) {
            fabric.addEam(Eam.parse(String.format("2001:db8:e::%x/128", n), String.format("198.18.%d.%d/32", n / 256, n % 256), "t"));
        }
        int writes = border1.writes;
        ConfigException full = assertThrows(ConfigException.class,
                () -> fabric.addEam(Eam.parse("2001:db8:f::1/128", "198.19.0.1/32", "t")));
        assertEquals("eam", full.field());
        assertTrue(full.problem().contains("the EAMT is full"), full.problem());
        assertEquals(room, fabric.eamt().size(), "the refused EAM is not kept");
        ConfigException again = assertThrows(ConfigException.class,
                () -> fabric.addEam(Eam.parse("2001:db8:e::/128", "198.18.0.0/32", "t")));
        assertTrue(again.problem().contains("already mapped"), "what is wrong with the EAM itself first: " + again.problem());
        assertEquals(writes, border1.writes);
        assertTrue(fabric.removeEam(Ipv4Prefix.parse("198.18.0.0/32", "t")).isPresent());
        fabric.addEam(Eam.parse("2001:db8:f::1/128", "198.19.0.1/32", "t"));   // room again
    }

    @Test
    void aStartWarnsOfWhatTheApiAddedThatTheNetcfgNowRulesOut() throws Exception {
        InMemoryNatStore store = new InMemoryNatStore();
        new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"]}"), store, e -> { }, () -> now)
                .addEam(Eam.parse("2001:db8:2::30/128", "198.18.0.30/32", "t"));
        List<String> warnings = new ArrayList<>();
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(Nat64Fabric.class.getName());
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override public void publish(java.util.logging.LogRecord r) {
                warnings.add(r.getMessage());
            }
            @Override public void flush() { }
            @Override public void close() { }
        };
        log.addHandler(handler);
        try {
            // the netcfg's pool4 now takes the EAM's IPv4 address: the EAM stays, and is named
            Nat64Fabric again = new Nat64Fabric(config("{\"addresses\": [\"198.18.0.0/24\"]}"), store, e -> { }, () -> now);
            assertEquals(1, again.eamt().size());
        } finally {
            log.removeHandler(handler);
        }
        assertTrue(warnings.stream().anyMatch(w -> w.contains("198.18.0.30/32") && w.contains("overlaps pool4")
                && w.contains("DELETE /eamt?ipv4Prefix=198.18.0.30/32")), warnings.toString());
    }

    /** A store in memory whose every commit fails while {@code diskFull[0]} is set. */
    private static MapNatStore storeOnADisk(boolean[] diskFull) {
        return new MapNatStore(new MapNatStore.Maps() {
            @Override
            public <V> Map<String, V> open(String name) {
                return new java.util.concurrent.ConcurrentHashMap<>();
            }
        }) {
            @Override
            protected void changed() {
                if (diskFull[0]) {
                    throw new NatStore.NotDurable("cannot write the NAT state: disk full", null);
                }
            }
        };
    }

    @Test
    void anApiChangeWhoseCommitFailsIsTakenBackOrSaidToBeInMemoryOnly() throws Exception {
        boolean[] diskFull = {false};
        MapNatStore store = storeOnADisk(diskFull);
        fabric = new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"]}"), store, e -> { }, () -> now,
                Runnable::run, Runnable::run);
        border1 = new FakeSwitch("border1");
        fabric.connected(border1);
        Ipv6Address server = Ipv6Address.parse("2001:db8:1::10", "t");
        TransportAddress forwarded = new TransportAddress(Ipv4Address.parse("192.0.2.1", "t"), 8080);
        fabric.addStaticBib(Protocol.TCP, server, 80, forwarded);
        int writes = border1.writes;
        diskFull[0] = true;
        Eam eam = Eam.parse("2001:db8:2::30/128", "198.18.0.30/32", "t");
        NatStore.NotDurable added = assertThrows(NatStore.NotDurable.class, () -> fabric.addEam(eam));
        assertTrue(added.getMessage().startsWith("nothing changed: "), added.getMessage());
        assertTrue(fabric.eamt().isEmpty(), "the EAM the API refused is not in force");
        assertThrows(NatStore.NotDurable.class, () -> fabric.addStaticBib(Protocol.UDP, server, 53,
                new TransportAddress(Ipv4Address.parse("192.0.2.1", "t"), 5353)));
        assertEquals(1, fabric.bib().size(), "nor the BIB entry");
        assertEquals(writes, border1.writes, "and no switch was written");
        // a removal cannot be taken back (its port rests): it holds in the fabric, and says so
        NatStore.NotDurable removed = assertThrows(NatStore.NotDurable.class,
                () -> fabric.removeBib(Protocol.TCP, server, 80));
        assertTrue(removed.getMessage().contains("removed from the running fabric, but not yet from the disk"),
                removed.getMessage());
        assertTrue(fabric.bib().isEmpty());
        assertTrue(border1.batches.get(border1.batches.size() - 1).stream().allMatch(u -> u.type == SwitchLink.Update.Type.DELETE));
        // the disk back, the same requests succeed
        diskFull[0] = false;
        fabric.addEam(eam);
        assertEquals(List.of(eam), fabric.eamt());
    }

    @Test
    void aBatchWhoseCommitFailsIsNeitherWrittenNorSent() throws Exception {
        List<Runnable> scheduled = new ArrayList<>();
        boolean[] diskFull = {false};
        MapNatStore store = storeOnADisk(diskFull);
        fabric = new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"]}"), store, e -> { }, () -> now,
                scheduled::add, Runnable::run);
        border1 = new FakeSwitch("border1");
        fabric.connected(border1);
        int writes = border1.writes;
        diskFull[0] = true;
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(5000));
        scheduled.remove(0).run();
        assertEquals(1, fabric.stats().get("setups.failed"));
        assertEquals(writes, border1.writes, "nothing that is not durable reaches a switch");
        assertTrue(border1.packetOuts.isEmpty(), "and the packet is not sent: its sender retries");
    }

    @Test
    void aBatchIsWrittenAndSentOnceItsCommitIsDurableAndNeitherWhenItFails() throws Exception {
        List<Runnable> scheduled = new ArrayList<>();
        List<CompletableFuture<Void>> commits = new ArrayList<>();
        MapNatStore store = new MapNatStore(new MapNatStore.Maps() {
            @Override
            public <V> Map<String, V> open(String name) {
                return new java.util.concurrent.ConcurrentHashMap<>();
            }
        }) {
            @Override
            protected CompletableFuture<Void> changedAsync() {   // the test decides when each commit is done
                CompletableFuture<Void> commit = new CompletableFuture<>();
                commits.add(commit);
                return commit;
            }
        };
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try {
            fabric = new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"]}"), store, e -> { }, () -> now,
                    scheduled::add, writer);
            border1 = new FakeSwitch("border1");
            fabric.connected(border1);
            int writes = border1.writes;
            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(5000));
            scheduled.remove(0).run();
            assertEquals(1, commits.size());
            assertThrows(TimeoutException.class, () -> writer.submit(() -> { }).get(200, TimeUnit.MILLISECONDS),
                    "the switch's write waits for the commit");
            assertEquals(writes, border1.writes);
            assertTrue(border1.packetOuts.isEmpty());
            commits.get(0).complete(null);
            writer.submit(() -> { }).get();      // the write, then the packet-out, ran on the writer
            assertEquals(writes + 1, border1.writes);
            assertEquals(1, border1.packetOuts.size());

            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(5001));
            scheduled.remove(0).run();
            commits.get(1).completeExceptionally(new IllegalStateException("cannot write the NAT state: disk full"));
            writer.submit(() -> { }).get();
            assertEquals(writes + 1, border1.writes, "nothing that is not durable reaches a switch");
            assertEquals(1, border1.packetOuts.size(), "and the packet is not sent: its sender retries");
            assertEquals(1, fabric.stats().get("setups.failed"));

            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(5001));   // the retry
            scheduled.remove(0).run();
            commits.get(2).complete(null);
            writer.submit(() -> { }).get();
            assertEquals(writes + 2, border1.writes, "the entries the failed batch did not write are written now");
            assertEquals(4, border1.sessions().size());
            assertEquals(2, border1.packetOuts.size());
        } finally {
            writer.shutdownNow();
        }
    }

    @Test
    void errorsACardHandsOverAreLimitedPerPortAsV1modelsMeterLimitsThem() throws Exception {
        // nat64.icmpErrors' defaults: 1000 a second per port, bursts of 200 (v1model's error_meter)
        Runnable timeExceeded = () -> fabric.finish("border1", udpFrame(5000), SumeHeaders.FINISH_ICMP_ERROR, 1, 0,
                3, 0, 0);
        for (int i = 0; i < 250; i++) {
            timeExceeded.run();
        }
        assertEquals(200, border1.packetOuts.size(), "a burst of 200 out of port 1");
        assertEquals(50, fabric.stats().get("icmpErrors.rateLimited"));
        for (int i = 0; i < 10; i++) {
            fabric.finish("border1", udpFrame(5000), SumeHeaders.FINISH_ICMP_ERROR, 2, 0, 3, 0, 0);
        }
        assertEquals(210, border1.packetOuts.size(), "port 2 has a budget of its own");
        assertEquals(List.of(2, 2), border1.sentOut.subList(208, 210));
        now += 50;                                             // 50 ms: 50 more tokens for port 1
        for (int i = 0; i < 60; i++) {
            timeExceeded.run();
        }
        assertEquals(260, border1.packetOuts.size());
        assertEquals(60, fabric.stats().get("icmpErrors.rateLimited"));
        for (int port = 5000; port < 5100; port++) {
            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(port));
        }
        assertEquals(60, fabric.stats().get("icmpErrors.rateLimited"), "the card's errors leave the refusals' budget whole");
    }

    @Test
    void aFullSizeSessionMissHandedOverWithoutEthernetIsSetUpAndSentBackFramed() {
        byte[] framed = udpFrame(5000);
        byte[] packet = java.util.Arrays.copyOfRange(framed, 14, framed.length);
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, SumeHeaders.FINISH_NO_ETHERNET, Nat64Fabric.PORT_UNKNOWN, packet);
        assertEquals(1, border1.packetOuts.size());
        assertTrue(border1.sessionsAtPacketOut.get(0) > 0, "after its session was written");
        assertEquals(hex(framed, 0, framed.length), hex(border1.packetOuts.get(0), 0, framed.length),
                "back through the pipe in a frame of no MACs, which the link leaves out where it must");
    }

    /** The IPv4 packet a card hands over as too long to translate: 1500 bytes, no DF, UDP from 198.51.100.10:53. */
    private static byte[] tooLong() {
        ByteBuffer b = ByteBuffer.allocate(1500);
        b.putInt(0x45000000 | 1500).putInt(0x2468 << 16).putInt(0x40110000).putInt(0xc633640a).putInt(0xc0000201);
        b.putShort((short) 53).putShort((short) 5000).putShort((short) 1480).putShort((short) 0x1234);
        for (int i = 28; i < 1500; i++) {
            b.put((byte) i);
        }
        return b.array();
    }

    @Test
    void ipv4TooLongForTheCardIsProbedAndItsTranslationLeavesInFragments() {
        byte[] packet = tooLong();
        fabric.packetIn("border1", Nat64Fabric.PUNT_TOO_LONG, SumeHeaders.FINISH_NO_ETHERNET, Nat64Fabric.PORT_UNKNOWN, packet);
        assertEquals(1, border1.probes.size());
        byte[] probe = border1.probes.get(0);
        assertEquals(14 + 20 + 48 + 8, probe.length, "the IP header, the 48 bytes after it, a token");
        assertEquals(hex(packet, 0, 68), hex(probe, 14, 82));

        // The card's translation of the probe: routed, IPv6 with a Fragment header, the UDP header
        // with new ports and checksum, then 40 bytes of payload and the token, untouched.
        ByteBuffer t = ByteBuffer.allocate(14 + 48 + 48 + 8);
        t.putShort((short) 0).putInt(0x0110).putShort((short) 0).putInt(0xb102).putShort((short) 0x86dd);
        t.putInt(0x60000000).putShort((short) (8 + 1480)).put((byte) 44).put((byte) 63);
        t.put(Ipv6Address.parse("2001:db8:64::c633:640a", "src").toBytes()).put(Ipv6Address.parse(HOST, "dst").toBytes());
        t.put((byte) 17).put((byte) 0).putShort((short) 0).putInt(0x2468);
        t.putShort((short) 53).putShort((short) 40000).putShort((short) 1480).putShort((short) 0x4321);
        t.put(packet, 28, 40).put(probe, probe.length - 8, 8);
        byte[] translated = t.array();
        fabric.packetIn("border1", Nat64Fabric.PUNT_NEEDS_FRAGMENTATION, SumeHeaders.FINISH_PROBED, Nat64Fabric.PORT_UNKNOWN, translated);
        assertEquals(2, border1.packetOuts.size(), "1480 bytes in pieces of 1232 (1280 - 48)");
        assertEquals(List.of(1, 1), border1.sentOut);
        byte[] first = border1.packetOuts.get(0);
        byte[] second = border1.packetOuts.get(1);
        assertEquals(hex(translated, 0, 18) + hex(translated, 20, 54), hex(first, 0, 18) + hex(first, 20, 54),
                "the card's Ethernet and IPv6 headers (but the payload length)");
        assertEquals(hex(translated, 62, 110), hex(first, 62, 110), "the card's UDP header and 40 bytes");
        assertEquals(hex(packet, 68, 68 + 1232 - 48), hex(first, 110, 14 + 1280), "then the payload as it came");
        assertEquals(hex(packet, 20 + 1232, 1500), hex(second, 62, second.length));
        assertEquals(1L, fabric.stats().get("fragmentation.probes"));

        fabric.packetIn("border1", Nat64Fabric.PUNT_NEEDS_FRAGMENTATION, SumeHeaders.FINISH_PROBED, Nat64Fabric.PORT_UNKNOWN, translated);
        assertEquals(2, border1.packetOuts.size(), "a token comes back once");
        assertEquals(1L, fabric.stats().get("fragmentation.unparsed"));
        border1.probes.clear();
        fabric.packetIn("border1", Nat64Fabric.PUNT_TOO_LONG, 0, Nat64Fabric.PORT_UNKNOWN, new byte[] {0x60, 0});
        assertEquals(0, border1.probes.size(), "neither IPv4 nor a frame: counted");
        assertEquals(2L, fabric.stats().get("fragmentation.unparsed"));
        fabric.finish("border1", translated, SumeHeaders.FINISH_PROBED | SumeHeaders.FINISH_ICMP_CHECKSUM
                | SumeHeaders.FINISH_TRUNCATE, 1, 14 + 1280, 0, 0, 0);
        assertEquals(2, border1.packetOuts.size(), "a probe to finish whose token is not waiting: nothing sent");
        assertEquals(1L, fabric.stats().get("finish.unparsed"));
    }

    @Test
    void anErrorAboutAPacketHandedOverWithoutEthernetGoesBackWithTheRouteToItsSource() {
        // border1: router MAC 00:00:00:00:b1:02, 2001:db8:1::/64 through port 1 to 00:00:00:00:01:10
        byte[] framed = udpFrame(5000);
        ByteBuffer.wrap(framed).putShort(0, (short) 0).putInt(2, 0xb102).putShort(6, (short) 0).putInt(8, 0x0110);
        byte[] packet = java.util.Arrays.copyOfRange(framed, 14, framed.length);
        fabric.finish("border1", framed, SumeHeaders.FINISH_ICMP_ERROR, 1, 0, 2, 0, 1280);
        fabric.finish("border1", packet, SumeHeaders.FINISH_ICMP_ERROR | SumeHeaders.FINISH_NO_ETHERNET, 1, 0, 2, 0,
                1280);
        assertEquals(2, border1.packetOuts.size());
        assertEquals(List.of(1, 1), border1.sentOut);
        byte[] error = border1.packetOuts.get(1);
        assertEquals("000000000110" + "00000000b102" + "86dd", hex(error, 0, 14), "to the next hop, from the route's MAC");
        assertEquals(hex(border1.packetOuts.get(0), 0, border1.packetOuts.get(0).length), hex(error, 0, error.length),
                "the error the whole frame gets");
        byte[] unrouted = packet.clone();
        unrouted[8] = 0x30;                                    // a source 3001:… the switch has no route to
        fabric.finish("border1", unrouted, SumeHeaders.FINISH_ICMP_ERROR | SumeHeaders.FINISH_NO_ETHERNET, 1, 0, 2, 0,
                1280);
        assertEquals(2, border1.packetOuts.size());
        assertEquals(1, fabric.stats().get("icmpErrors.notSent"));
    }

    private static String hex(byte[] b, int from, int to) {
        StringBuilder s = new StringBuilder();
        for (int i = from; i < to; i++) {
            s.append(String.format("%02x", b[i] & 0xff));
        }
        return s.toString();
    }

    @Test
    void refusalsAreRateLimitedToAHundredIcmpErrorsASecondPerSwitch() throws Exception {
        List<Runnable> scheduled = new ArrayList<>();
        fabric = new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"]}"), new InMemoryNatStore(), e -> { },
                () -> now, scheduled::add, Runnable::run);
        border1 = new FakeSwitch("border1");
        border2 = new FakeSwitch("border2");
        fabric.connected(border1);
        fabric.connected(border2);
        for (int port = 5000; port < 5600; port++) {           // 256 wait, 344 are refused
            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(port));
        }
        assertEquals(100, border1.packetOuts.size(), "RFC 4443 2.4(f): ICMPv6 errors are rate-limited");
        assertEquals(244, fabric.stats().get("icmpErrors.rateLimited"));
        for (int port = 7000; port < 7050; port++) {            // the subscriber's queue is full: all refused
            fabric.packetIn("border2", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(port));
        }
        assertEquals(50, border2.packetOuts.size(), "another switch sends its errors on a budget of its own");
        assertEquals(244, fabric.stats().get("icmpErrors.rateLimited"));
        now += 1000;
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(6000));
        assertEquals(101, border1.packetOuts.size(), "a new second allows errors again");
    }

    @Test
    void aFloodingSubscriberDelaysOnlyItself() {
        SetupQueue<String> queue = new SetupQueue<>(4, 100);
        for (int i = 0; i < 10; i++) {
            queue.offer("flooder", "f" + i);
        }
        queue.offer("a", "a0");
        queue.offer("b", "b0");
        queue.offer("b", "b1");
        assertEquals(List.of("f0", "a0", "b0"), queue.take(3, Integer.MAX_VALUE), "one from each subscriber in turn");
        assertEquals(List.of("f1", "b1", "f2", "f3"), queue.take(10, Integer.MAX_VALUE));
        assertTrue(queue.take(10, Integer.MAX_VALUE).isEmpty());
        for (int i = 0; i < 4; i++) {
            assertEquals(null, queue.offer("flooder", "x" + i));
        }
        assertEquals("y", queue.offer("flooder", "y"), "a subscriber's queue is bounded: the new packet is refused");
        SetupQueue<Integer> bySource = new SetupQueue<>(4, 100);
        int refused = 0;
        for (int source = 0; source < 1000; source++) {
            refused += bySource.offer(source, source) != null ? 1 : 0;
        }
        assertEquals(900, refused, "many senders together are bounded too");
        assertEquals(100, bySource.size());
        // Full: a subscriber with little waiting pushes out the newest packet of the longest queue.
        SetupQueue<String> full = new SetupQueue<>(60, 100);
        for (int i = 0; i < 60; i++) {
            full.offer("flooder1", "f" + i);
        }
        for (int i = 0; i < 40; i++) {
            full.offer("flooder2", "g" + i);
        }
        assertEquals("f59", full.offer("polite", "p0"));
        assertEquals("f58", full.offer("polite", "p1"));
        assertEquals(100, full.size());
        assertEquals("f60", full.offer("flooder1", "f60"), "the longest queue gains nothing");
        assertEquals("f57", full.offer("flooder2", "g40"), "a shorter queue grows at the longest's expense");
        List<String> all = full.take(100, Integer.MAX_VALUE);
        assertTrue(all.containsAll(List.of("p0", "p1", "g40")) && !all.contains("f57"), all.toString());
        SetupQueue<String> crowded = new SetupQueue<>(4, 100);
        for (int s = 0; s < 10; s++) {
            crowded.offer("busy" + s, "b" + s);
            crowded.offer("busy" + s, "b" + s);
        }
        crowded.offer("late", "late");
        List<String> first = crowded.take(6, Integer.MAX_VALUE);
        assertFalse(first.contains("late"));
        assertTrue(crowded.take(6, Integer.MAX_VALUE).contains("late"), "a subscriber behind busy ones is reached by the next batch");
    }

    @Test
    void theCpuCloneSessionAndPuntMetersAreWrittenOnConnectAndReadBackAsDesired() {
        for (FakeSwitch sw : List.of(edge, border1, border2)) {
            assertEquals(new CloneSession(Constants.CPU_CLONE_SESSION, List.of(Constants.CPU_PORT)),
                    sw.entries.get("clone session " + Constants.CPU_CLONE_SESSION), sw.id);
            assertEquals(new MeterConfig(P4InfoConstants.NAT64_INGRESS_PUNT_SOURCE_METER, 500, 250, 500, 250),
                    sw.entries.get("meter " + P4InfoConstants.NAT64_INGRESS_PUNT_SOURCE_METER), sw.id);
            assertTrue(sw.batches.get(0).stream().anyMatch(u -> u.type == SwitchLink.Update.Type.INSERT
                    && u.entity instanceof CloneSession), "the clone session is inserted");
            assertTrue(sw.batches.get(0).stream().filter(u -> u.entity instanceof MeterConfig)
                    .allMatch(u -> u.type == SwitchLink.Update.Type.MODIFY), "meters are only modified");
        }
        // Connected again with all of it held: only the unreadable default entries are written.
        FakeSwitch again = new FakeSwitch("border1");
        again.entries.putAll(border1.entries);
        fabric.connected(again);
        assertTrue(again.batches.get(0).stream().allMatch(u -> u.entity instanceof TableEntry
                && ((TableEntry) u.entity).isDefault()), again.batches.toString());
    }

    @Test
    void reconciliationRestoresAMissingOrChangedCloneSessionAndMeterAndDropsAStrangeSession() {
        FakeSwitch lost = new FakeSwitch("border1");
        lost.entries.putAll(border1.entries);
        lost.entries.remove("clone session " + Constants.CPU_CLONE_SESSION);
        fabric.connected(lost);
        assertEquals(border1.entries.get("clone session " + Constants.CPU_CLONE_SESSION),
                lost.entries.get("clone session " + Constants.CPU_CLONE_SESSION), "a lost session is inserted again");

        FakeSwitch changed = new FakeSwitch("border2");
        changed.entries.putAll(border2.entries);
        CloneSession wrongPort = new CloneSession(Constants.CPU_CLONE_SESSION, List.of(7));
        CloneSession strange = new CloneSession(5, List.of(3));
        MeterConfig loose = new MeterConfig(P4InfoConstants.NAT64_INGRESS_PUNT_PORT_METER, 1_000_000, 1, 1_000_000, 1);
        changed.entries.put(wrongPort.key(), wrongPort);
        changed.entries.put(strange.key(), strange);
        changed.entries.put(loose.key(), loose);
        fabric.connected(changed);
        List<SwitchLink.Update> batch = changed.batches.get(0);
        assertTrue(batch.stream().anyMatch(u -> u.type == SwitchLink.Update.Type.MODIFY
                && u.entity.key().equals(wrongPort.key())), batch.toString());
        assertTrue(batch.stream().anyMatch(u -> u.type == SwitchLink.Update.Type.DELETE
                && u.entity.equals(strange)), batch.toString());
        assertEquals(Set.copyOf(fabric.desiredState("border2").stream().filter(Entity::readable)
                .collect(Collectors.toList())), Set.copyOf(changed.read()));
        assertEquals(new MeterConfig(P4InfoConstants.NAT64_INGRESS_PUNT_PORT_METER, 20_000, 5_000, 20_000, 5_000),
                changed.entries.get(loose.key()));
    }

    @Test
    void sessionsEndOnlyWhenEveryBorderReportedBothEntriesIdle() {
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(5000));
        List<TableEntry> entries = border1.sessions();
        now += 301_000;
        fabric.idle("border1", entries.get(0));
        fabric.idle("border1", entries.get(1));
        fabric.idle("border2", entries.get(0));
        assertEquals(2, border2.sessions().size(), "border2 has not reported all its entries idle yet");
        assertEquals(1, fabric.sessions().size());
        fabric.idle("border2", entries.get(1));
        assertTrue(border1.sessions().isEmpty());
        assertTrue(border2.sessions().isEmpty());
        assertTrue(fabric.bib().isEmpty());
        assertTrue(fabric.sessions().isEmpty());
    }

    @Test
    void oneIdleNotificationOfManyEntriesIsOneCommitAndOneDeleteWritePerBorder() {
        for (int port = 5000; port < 5100; port++) {
            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(port));
        }
        List<TableEntry> entries = border1.sessions();
        assertEquals(200, entries.size());
        now += 301_000;
        fabric.idle("border2", entries);
        assertEquals(100, fabric.sessions().size(), "border1 has not reported them idle yet");
        int writes1 = border1.writes;
        int writes2 = border2.writes;
        fabric.idle("border1", entries);
        assertTrue(fabric.sessions().isEmpty() && fabric.bib().isEmpty());
        assertTrue(border1.sessions().isEmpty() && border2.sessions().isEmpty());
        assertEquals(writes1 + 1, border1.writes, "200 deletes, one write");
        assertEquals(writes2 + 1, border2.writes);
    }

    private static TableEntry entryOf(FakeSwitch sw, String table) {
        return sw.sessions().stream().filter(e -> e.table().equals(table)).findFirst().orElseThrow();
    }

    /** As BMv2 reports an idle entry: its table and match, no action. */
    private static TableEntry matchOnly(TableEntry e) {
        TableEntry.Builder b = TableEntry.in(e.table());
        e.matches().forEach(m -> b.exact(m.field, m.value()));
        return b.idleTimeout(e.idleTimeoutSeconds()).build();
    }

    @Test
    void anEntryReportedAgainBesideTheOneThatEndsItsBibEntryIsDeletedWithItOnEveryBorder() {
        for (boolean whole : new boolean[] {true, false}) {
            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(5000));
            TableEntry v6 = entryOf(border1, P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V6);
            TableEntry v4 = entryOf(border1, P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V4);
            if (!whole) {
                v6 = matchOnly(v6);
                v4 = matchOnly(v4);
            }
            now += 301_000;
            fabric.idle("border1", List.of(v6, v4));
            fabric.idle("border2", List.of(v4));       // an outbound-only flow: its IPv4 side idles first
            fabric.idle("border2", List.of(v6, v4));   // the switch reports v4 again beside v6
            assertTrue(fabric.bib().isEmpty());
            assertTrue(border1.sessions().isEmpty() && border2.sessions().isEmpty(),
                    "left: " + border1.sessions() + " " + border2.sessions());
            assertFalse(fabric.stats().containsKey("writes.failed"), "no write refused: " + fabric.stats());
            now += 1_000_000;   // the port rests before the next round takes it again
        }
    }

    @Test
    void aLateIdleReportOfAMappingsOldIpv4SideLeavesItsNewEntriesHeld() {
        Ipv6Address host = Ipv6Address.parse("2001:db8:1::20", "test");
        Ipv4Address pool = Ipv4Address.parse("192.0.2.1", "test");
        fabric.addStaticBib(Protocol.UDP, host, 6000, new TransportAddress(pool, 2000));
        TableEntry oldV4 = entryOf(border1, P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V4);
        fabric.removeBib(Protocol.UDP, host, 6000);
        border1.entries.put(oldV4.key(), oldV4);   // that delete was lost on border1
        fabric.addStaticBib(Protocol.UDP, host, 6000, new TransportAddress(pool, 2001));
        fabric.idle("border1", oldV4);   // nothing maps it: deleted, and the new mapping's entries stay held
        fabric.removeBib(Protocol.UDP, host, 6000);
        assertTrue(border1.sessions().isEmpty() && border2.sessions().isEmpty(),
                "left after the mapping was removed: " + border1.sessions() + " " + border2.sessions());
        assertFalse(fabric.stats().containsKey("writes.failed"), "no write refused: " + fabric.stats());
    }

    @Test
    void anExhaustedPoolAnswersWithIcmpv6AddressUnreachableAndEvictsNothing() throws Exception {
        start("{\"addresses\": [\"192.0.2.0/32\"], \"udpPorts\": [2000, 2003], \"blockSize\": 4,"
                + " \"blocksPerSubscriber\": 1}");
        for (int port = 5000; port < 5004; port++) {
            fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(port));
        }
        byte[] refused = udpFrame(5004);
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, refused);
        assertEquals(4, fabric.bib().size());
        assertEquals(8, border2.sessions().size());
        byte[] icmp = border1.packetOuts.get(4);
        ByteBuffer b = ByteBuffer.wrap(icmp);
        assertEquals(0x86dd, b.getShort(12) & 0xffff);
        assertEquals(58, icmp[20]);
        assertEquals(Ipv6Address.parse("2001:db8:ff::2", "x"), Ipv6Address.of(b.getLong(22), b.getLong(30)));
        assertEquals(Ipv6Address.parse(HOST, "x"), Ipv6Address.of(b.getLong(38), b.getLong(46)));
        assertEquals(1, icmp[54]);
        assertEquals(3, icmp[55]);
        assertEquals(0, checksum(icmp), "the ICMPv6 checksum verifies");
        byte[] quoted = java.util.Arrays.copyOfRange(icmp, 62, icmp.length);
        assertTrue(java.util.Arrays.equals(java.util.Arrays.copyOfRange(refused, 14, refused.length), quoted));
        assertEquals(1L, fabric.stats().get("setups.refused"));
    }

    /** The ones'-complement sum over the pseudo-header and the ICMPv6 message: 0 when the checksum is right. */
    private static int checksum(byte[] f) {
        long sum = 0;
        for (int i = 22; i < 54; i += 2) {
            sum += (f[i] & 0xff) << 8 | f[i + 1] & 0xff;
        }
        sum += f.length - 54 + 58;
        for (int i = 54; i < f.length; i += 2) {
            sum += (f[i] & 0xff) << 8 | (i + 1 < f.length ? f[i + 1] & 0xff : 0);
        }
        while (sum >> 16 != 0) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        return (int) (~sum & 0xffff);
    }

    /** A switch whose counters the test sets: drops[2] (no_route), translations[0], one table's hits. */
    private static final class CountingSwitch extends FakeSwitch {
        long noRoute;
        long translated;
        long routeHits;

        CountingSwitch(String id) {
            super(id);
        }

        @Override
        public Optional<CounterReading> readCounters() {
            List<CounterReading.Cell> drops = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                drops.add(new CounterReading.Cell(i == 2 ? noRoute : 0, 0));
            }
            List<CounterReading.Cell> translations = List.of(new CounterReading.Cell(translated, translated * 100),
                    new CounterReading.Cell(0, 0), new CounterReading.Cell(0, 0), new CounterReading.Cell(0, 0));
            return Optional.of(new CounterReading(Map.of(P4InfoConstants.NAT64_INGRESS_DROPS, drops,
                    P4InfoConstants.NAT64_INGRESS_TRANSLATIONS, translations),
                    Map.of(P4InfoConstants.NAT64_INGRESS_IPV4_ROUTES, new CounterReading.Cell(routeHits, 0))));
        }
    }

    @Test
    void dataPlaneCountersArePolledPerSwitchNamedAndSummedOverTheFabric() throws Exception {
        fabric = new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"]}"), new InMemoryNatStore(), e -> { },
                () -> now);
        CountingSwitch b1 = new CountingSwitch("border1");
        CountingSwitch b2 = new CountingSwitch("border2");
        fabric.connected(b1);
        fabric.connected(b2);
        fabric.connected(new FakeSwitch("edge"));   // reads no counters: nothing of it in the stats
        b1.noRoute = 5;
        b1.translated = 10;
        b2.translated = 7;
        b1.routeHits = 3;
        fabric.pollCounters();
        b1.translated = 30;   // the rate is taken between two polls
        Thread.sleep(200);
        fabric.pollCounters();

        Map<String, Long> stats = fabric.stats();
        assertEquals(5L, stats.get("dataplane.border1.drops.no_route"));
        assertEquals(30L, stats.get("dataplane.border1.translations.6to4_stateful"));
        assertEquals(3000L, stats.get("dataplane.border1.translations.6to4_stateful.bytes"));
        assertEquals(37L, stats.get("dataplane.fabric.translations.6to4_stateful"));
        assertEquals(3L, stats.get("dataplane.border1.tableHits." + P4InfoConstants.NAT64_INGRESS_IPV4_ROUTES));
        long rate = stats.get("dataplane.border1.translations.6to4_stateful.perSecond");
        assertTrue(rate > 0 && rate <= 100, "20 packets in at least 0.2 s: " + rate);
        assertEquals(0L, stats.get("dataplane.border2.translations.6to4_stateful.perSecond"));
        assertFalse(stats.containsKey("dataplane.border1.drops.parser_error"), "cells at 0 are left out of stats");
        assertFalse(stats.keySet().stream().anyMatch(k -> k.startsWith("dataplane.edge.")));

        String metrics = fabric.metrics();
        assertTrue(metrics.contains("# TYPE nat64fabric_dataplane_drops_packets_total counter\n"), metrics);
        assertTrue(metrics.contains("nat64fabric_dataplane_drops_packets_total{device=\"border1\",reason=\"no_route\"} 5\n"));
        assertTrue(metrics.contains("nat64fabric_dataplane_drops_packets_total{device=\"border2\",reason=\"no_route\"} 0\n"),
                "a named cell at 0 is a sample: a series exists before its first count");
        assertTrue(metrics.contains("nat64fabric_dataplane_translations_bytes_total{device=\"border1\",kind=\"6to4_stateful\"}"
                + " 3000\n"));
        assertTrue(metrics.contains("nat64fabric_switch_connected{device=\"border1\",role=\"BORDER\"} 1\n"));
        // controller counters with known label values exist before their first count
        for (String series : List.of("nat64fabric_nat_events_total{type=\"QUOTA_EXCEEDED\"} 0\n",
                "nat64fabric_packet_ins_total{reason=\"inbound_syn\"} 0\n", "nat64fabric_setups_total{outcome=\"refused\"} 0\n")) {
            assertTrue(metrics.contains(series), series + " in " + metrics);
        }
        assertFalse(metrics.contains("reason=\"none\""), "no series for punt reason 0, which is no punt");
    }

    @Test
    void aCounterThatWentDownWasResetAndItsRateCountsFromZero() {
        DataPlaneCounters counters = new DataPlaneCounters();
        List<CounterReading.Cell> cells = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            cells.add(new CounterReading.Cell(i == 0 ? 1000 : 0, 0));
        }
        counters.record("s", new CounterReading(Map.of(P4InfoConstants.NAT64_INGRESS_TRANSLATIONS, cells), Map.of()), 0);
        cells.set(0, new CounterReading.Cell(20, 0));   // the switch restarted
        counters.record("s", new CounterReading(Map.of(P4InfoConstants.NAT64_INGRESS_TRANSLATIONS, cells), Map.of()),
                2_000_000_000L);
        assertEquals(10L, counters.stats().get("dataplane.s.translations.6to4_stateful.perSecond"));
        assertEquals(20L, counters.stats().get("dataplane.s.translations.6to4_stateful"));
    }

    /** An Ethernet frame with IPv4 and a plain TCP SYN. */
    private static byte[] v4Syn(String source, int sourcePort, Ipv4Address destination, int destinationPort) {
        return v4Segment(source, sourcePort, destination, destinationPort, 0x02);
    }

    /** An Ethernet frame with IPv4 and a TCP segment with these flags. */
    private static byte[] v4Segment(String source, int sourcePort, Ipv4Address destination, int destinationPort,
                                    int flags) {
        ByteBuffer b = ByteBuffer.allocate(14 + 20 + 20);
        b.put(new byte[12]).putShort((short) 0x0800);
        b.put((byte) 0x45).put((byte) 0).putShort((short) 40).putInt(0).put((byte) 64).put((byte) 6).putShort((short) 0);
        b.putInt(Ipv4Address.parse(source, "src").bits()).putInt(destination.bits());
        b.putShort((short) sourcePort).putShort((short) destinationPort).putInt(1).putInt(0);
        b.put((byte) 0x50).put((byte) flags).putShort((short) 8192).putInt(0);
        return b.array();
    }

    /** An Ethernet frame with IPv6 and a plain TCP SYN from the host to an IPv4 address in pool6. */
    private static byte[] v6Syn(int sourcePort, String remote4, int destinationPort) {
        return v6Segment(sourcePort, remote4, destinationPort, 0x02);
    }

    /** An Ethernet frame with IPv6 and a TCP segment with these flags from the host to an IPv4 address in pool6. */
    private static byte[] v6Segment(int sourcePort, String remote4, int destinationPort, int flags) {
        ByteBuffer b = ByteBuffer.allocate(14 + 40 + 20);
        b.put(new byte[12]).putShort((short) 0x86dd);
        b.putInt(0x60000000).putShort((short) 20).put((byte) 6).put((byte) 64);
        b.put(Ipv6Address.parse(HOST, "src").toBytes());
        b.put(new byte[] {0x20, 0x01, 0x0d, (byte) 0xb8, 0, 0x64, 0, 0, 0, 0, 0, 0}).putInt(Ipv4Address.parse(remote4, "dst").bits());
        b.putShort((short) sourcePort).putShort((short) destinationPort).putInt(1).putInt(0);
        b.put((byte) 0x50).put((byte) flags).putShort((short) 8192).putInt(0);
        return b.array();
    }

    @Test
    void withNoIcmpErrorsSentTheSwitchesMeterDropsThemAllAndTheControllerSendsNone() throws Exception {
        // RFC 7915 4.4, 5.4: the operator may have no ICMP errors sent (icmpErrors.perPortPps 0).
        start("{\"addresses\": [\"192.0.2.0/30\"]}, \"icmpErrors\": {\"perPortPps\": 0}");
        assertTrue(border1.entries.values().stream().anyMatch(e -> e instanceof MeterConfig
                && ((MeterConfig) e).meter.equals(P4InfoConstants.NAT64_INGRESS_ICMP_ERROR_ERROR_METER)
                && List.of(0L, 0L, 0L, 0L).equals(List.of(((MeterConfig) e).cir, ((MeterConfig) e).cburst,
                        ((MeterConfig) e).pir, ((MeterConfig) e).pburst))), "a meter that marks every error RED");
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, v4Syn("203.0.113.5", 80,
                Ipv4Address.parse("192.0.2.1", "pool4"), 40000));
        now += 6_000;
        fabric.answerHeldSyns();
        assertTrue(border1.packetOuts.isEmpty(), "no Port Unreachable");
        assertEquals(1L, fabric.stats().get("heldSyns.unanswered"));
        assertEquals(1L, fabric.stats().get("icmpErrors.notSent"));
    }

    @Test
    void anIpv4SynWithoutAMappingIsHeldForTheIncomingSynTimeThenAnsweredWithPortUnreachable() {
        Ipv4Address pool4 = Ipv4Address.parse("192.0.2.1", "pool4");
        byte[] syn = v4Syn("203.0.113.5", 80, pool4, 40000);
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, syn);
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, v4Syn("203.0.113.5", 80, pool4, 40000));
        assertEquals(1L, fabric.stats().get("heldSyns.held"));
        assertEquals(1L, fabric.stats().get("heldSyns.repeated"), "a retransmission waits with the first");
        now += 5_999;
        fabric.answerHeldSyns();
        assertTrue(border1.packetOuts.isEmpty(), "RFC 5382 REQ-4: not answered for 6 s");
        now += 1;
        fabric.answerHeldSyns();
        assertEquals(1, border1.packetOuts.size());
        ByteBuffer error = ByteBuffer.wrap(border1.packetOuts.get(0));
        assertEquals(0x0800, error.getShort(12) & 0xffff);
        assertEquals(Ipv4Address.parse("198.51.100.2", "switch"), Ipv4Address.of(error.getInt(14 + 12)),
                "from the switch's own address, as its other errors");
        assertEquals(Ipv4Address.parse("203.0.113.5", "remote"), Ipv4Address.of(error.getInt(14 + 16)));
        assertEquals(List.of(3, 3), List.of(error.get(34) & 0xff, error.get(35) & 0xff), "Port Unreachable");
        assertArrayEquals(Arrays.copyOfRange(syn, 14, syn.length),
                Arrays.copyOfRange(border1.packetOuts.get(0), 14 + 20 + 8, 14 + 20 + 8 + 40), "quoting the SYN");
        byte[] out = border1.packetOuts.get(0);
        assertEquals(0, InternetChecksum.of(InternetChecksum.add(0, out, 14, 20)), "the IPv4 header sums right");
        assertEquals(0, InternetChecksum.of(InternetChecksum.add(0, out, 34, out.length - 34)), "and the ICMP message");
        fabric.answerHeldSyns();
        assertEquals(1, border1.packetOuts.size(), "answered once");
        assertEquals(1L, fabric.stats().get("heldSyns.refused"));
        // A SYN with data is held as its error, which quotes what fits in 576 bytes (RFC 1812 4.3.2.3).
        byte[] big = Arrays.copyOf(v4Syn("203.0.113.5", 81, pool4, 40000), 14 + 40 + 2000);
        ByteBuffer.wrap(big).putShort(14 + 2, (short) (40 + 2000));
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, big);
        now += 6_000;
        fabric.answerHeldSyns();
        assertEquals(2, border1.packetOuts.size());
        assertEquals(14 + 576, border1.packetOuts.get(1).length);
    }

    @Test
    void aTransitoryMappingsSegmentsAreCopiedUntilOneReEstablishesIt() {
        Ipv4Address remote = Ipv4Address.parse("203.0.113.5", "remote");
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, v6Syn(33000, "203.0.113.5", 80));
        TransportAddress mapped = fabric.bib().get(0).v4();
        fabric.packetIn("border1", Nat64Fabric.PUNT_TCP_CONTROL, v4Segment("203.0.113.5", 80, mapped.address(),
                mapped.port(), 0x12));                                            // SYN+ACK: established
        assertEquals(List.of(0L, 0L), transitoryBits(border1));
        fabric.packetIn("border1", Nat64Fabric.PUNT_TCP_CONTROL, v4Segment("203.0.113.5", 80, mapped.address(),
                mapped.port(), 0x04));                                            // a RST: TRANS
        assertEquals(Optional.of(TcpState.TRANS), fabric.sessions().get(0).state());
        assertEquals(List.of(1L, 1L), transitoryBits(border1), "both entries have the switch copy every segment");
        assertEquals(List.of(1L, 1L), transitoryBits(border2), "on every border");
        // RFC 6146 3.5.2.2: a packet other than a RST takes it back to ESTABLISHED
        fabric.packetIn("border1", Nat64Fabric.PUNT_TCP_CONTROL, v6Segment(33000, "203.0.113.5", 80, 0x10));
        assertEquals(Optional.of(TcpState.ESTABLISHED), fabric.sessions().get(0).state());
        assertEquals(List.of(0L, 0L), transitoryBits(border1));
        assertEquals(List.of(7440L, 7440L), border1.sessions().stream().map(TableEntry::idleTimeoutSeconds)
                .collect(Collectors.toList()), "with the established lifetime");
        assertEquals(remote, fabric.sessions().get(0).remote4().address());
    }

    private static List<Long> transitoryBits(FakeSwitch sw) {
        return sw.sessions().stream().sorted(Comparator.comparing(TableEntry::table))
                .map(e -> e.params().get(P4InfoConstants.TRANSITORY).longValue()).collect(Collectors.toList());
    }

    @Test
    void aHeldSynsErrorLeavesByThePortItCameInWhereTheRouteToItsSenderLeads() throws Exception {
        // Were an EAM to name 203.0.113.5 too, through the pipeline its error would be turned into IPv6.
        String json = "{\"apps\": {\"org.nat64fabric.app\": {\"nat64\": {\"pool6\": \"2001:db8:64::/96\","
                + " \"pool4\": {\"addresses\": [\"192.0.2.0/30\"]}}}}, \"devices\": {\"border1\": {\"nat64fabric\": {"
                + "\"role\": \"BORDER\", \"routerMac\": \"00:00:00:00:b1:02\", \"ipv4\": \"198.51.100.2\","
                + " \"ipv6\": \"2001:db8:ff::2\", \"routes\": ["
                + "{\"prefix\": \"2001:db8:1::/64\", \"port\": 1, \"nextHopMac\": \"00:00:00:00:01:10\"},"
                + "{\"prefix\": \"203.0.113.0/24\", \"port\": 2, \"nextHopMac\": \"00:00:00:00:02:20\"}]}}}}";
        fabric = new Nat64Fabric(FabricConfig.parse(new ObjectMapper().readTree(json)), new InMemoryNatStore(),
                e -> { }, () -> now);
        border1 = new FakeSwitch("border1");
        fabric.connected(border1);
        Ipv4Address pool4 = Ipv4Address.parse("192.0.2.1", "pool4");
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, 0, 2, v4Syn("203.0.113.5", 80, pool4, 40000));
        // hairpinned: translated from an IPv6 host's SYN, it came in by that host's port
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, 0, 1, v4Syn("203.0.113.6", 80, pool4, 40000));
        now += 6_000;
        fabric.answerHeldSyns();
        assertEquals(2, border1.packetOuts.size());
        assertEquals(List.of(2), border1.sentOut, "one out of port 2, the other through the pipeline");
        ByteBuffer out = ByteBuffer.wrap(border1.packetOuts.get(0));
        assertEquals(Ipv4Address.parse("203.0.113.5", "remote"), Ipv4Address.of(out.getInt(14 + 16)));
        assertEquals(List.of(0x0000_0000_0220L, 0x0000_0000_b102L),
                List.of((long) out.getShort(0) << 32 | out.getInt(2) & 0xffffffffL,
                        (long) out.getShort(6) << 32 | out.getInt(8) & 0xffffffffL),
                "to the next hop, from the switch's MAC on that route");
        assertEquals(Ipv4Address.parse("203.0.113.6", "remote"),
                Ipv4Address.of(ByteBuffer.wrap(border1.packetOuts.get(1)).getInt(14 + 16)));
    }

    @Test
    void aHeldSynWhoseIpv6SideOpenedMeanwhileIsDroppedNotAnswered() throws Exception {
        fabric = new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"]}, \"addressDependentFiltering\": true"),
                new InMemoryNatStore(), e -> { }, () -> now);
        border1 = new FakeSwitch("border1");
        fabric.connected(border1);
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, v6Syn(33000, "203.0.113.5", 80));
        TransportAddress mapped = fabric.bib().get(0).v4();
        // A simultaneous open: the remote's SYN to the mapping comes first, filtered (no session
        // with 203.0.113.6 yet); the host's own SYN to it follows (the switch copies it).
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, v4Syn("203.0.113.6", 443, mapped.address(), mapped.port()));
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, v4Syn("203.0.113.7", 443, mapped.address(), mapped.port()));
        fabric.packetIn("border1", Nat64Fabric.PUNT_TCP_CONTROL, v6Syn(33000, "203.0.113.6", 443));
        int sent = border1.packetOuts.size();
        now += 6_000;
        fabric.answerHeldSyns();
        assertEquals(1L, fabric.stats().get("heldSyns.opened"), "RFC 6146 3.5.2.2: the stored packet is dropped");
        assertEquals(1L, fabric.stats().get("heldSyns.refused"), "the other remote's SYN is answered");
        assertEquals(sent + 1, border1.packetOuts.size());
        assertEquals(Ipv4Address.parse("203.0.113.7", "remote"),
                Ipv4Address.of(ByteBuffer.wrap(border1.packetOuts.get(sent)).getInt(14 + 16)));
    }

    @Test
    void aHostsSynToTheRemoteOfASynHeldWithoutAMappingGetsThatMappingAndTheHeldSynIsDropped() throws Exception {
        // Jool's graybox "so" without a mapping (RFC 6146 3.5.2.2): 203.0.113.5:2601 sends a SYN to
        // pool4's 192.0.2.2:2600, which maps nothing; the host's SYN to 203.0.113.5:2601 gets it.
        TransportAddress held = new TransportAddress(Ipv4Address.parse("192.0.2.2", "pool4"), 2600);
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, v4Syn("203.0.113.5", 2601, held.address(), held.port()));
        assertEquals(1L, fabric.stats().get("heldSyns.held"));
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, v6Syn(33000, "203.0.113.5", 2601));
        assertEquals(List.of(held), fabric.bib().stream().map(BibEntry::v4).collect(Collectors.toList()));
        int sent = border1.packetOuts.size();
        now += 6_000;
        fabric.answerHeldSyns();
        assertEquals(1L, fabric.stats().get("heldSyns.opened"));
        assertEquals(null, fabric.stats().get("heldSyns.refused"), "no Port Unreachable");
        assertEquals(sent, border1.packetOuts.size());
        // A SYN held and answered is no longer held: a host's SYN after it gets a mapping of its own.
        TransportAddress refused = new TransportAddress(held.address(), 2700);
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, v4Syn("203.0.113.5", 2601, refused.address(), refused.port()));
        now += 6_000;
        fabric.answerHeldSyns();
        assertEquals(1L, fabric.stats().get("heldSyns.refused"));
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, v6Syn(33002, "203.0.113.5", 2601));
        assertFalse(fabric.bib().stream().map(BibEntry::v4).anyMatch(refused::equals));
        assertEquals(2, fabric.bib().size());
    }

    @Test
    void heldSynsAreBoundedAndNoneAreHeldWhenExternallyInitiatedTcpIsDropped() throws Exception {
        fabric = new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"]}, \"maxHeldSyns\": 2"),
                new InMemoryNatStore(), e -> { }, () -> now);
        Ipv4Address pool4 = Ipv4Address.parse("192.0.2.1", "pool4");
        for (int port = 1; port <= 3; port++) {
            fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, v4Syn("203.0.113.5", port, pool4, 40000));
        }
        assertEquals(2L, fabric.stats().get("heldSyns.held"));
        assertEquals(1L, fabric.stats().get("heldSyns.full"));

        fabric = new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"]}, \"externallyInitiatedTcp\": \"drop\""),
                new InMemoryNatStore(), e -> { }, () -> now);
        border1 = new FakeSwitch("border1");
        fabric.connected(border1);
        assertEquals(List.of(P4InfoConstants.NAT64_INGRESS_TRANSLATE_CHECK_INBOUND_SYNS), border1.entries.values()
                .stream().filter(e -> e instanceof TableEntry
                        && ((TableEntry) e).table().equals(P4InfoConstants.NAT64_INGRESS_TRANSLATE_INBOUND_SYN))
                .map(e -> ((TableEntry) e).action()).collect(Collectors.toList()),
                "the switch drops such SYNs itself, and punts those its address filter lets in");
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, v4Syn("203.0.113.5", 80, pool4, 40000));
        assertEquals(1L, fabric.stats().get("heldSyns.dropped"));
        assertTrue(border1.packetOuts.isEmpty());
        // TCP is filtered by remote, UDP is not (endpoint-independent filtering stays for it).
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, v6Syn(33000, "203.0.113.5", 80));
        fabric.packetIn("border1", Nat64Fabric.PUNT_SESSION_MISS, udpFrame(5000));
        Map<Integer, Long> filteredByProtocol = border1.sessions().stream()
                .filter(e -> e.table().equals(P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V4))
                .collect(Collectors.toMap(e -> e.matches().stream().filter(m -> m.field.equals(P4InfoConstants.HDR_PROTO))
                        .findFirst().orElseThrow().value().intValue(), e -> e.params().get(P4InfoConstants.FILTERED).longValue()));
        assertEquals(Map.of(6, 1L, 17, 0L), filteredByProtocol);
        assertEquals(1, border1.entries.values().stream().filter(e -> e instanceof TableEntry
                && ((TableEntry) e).table().equals(P4InfoConstants.NAT64_INGRESS_TRANSLATE_REMOTE_FILTER)).count(),
                "the TCP session's remote is let in");
        // RFC 6146 3.5.2.2: from that remote, a SYN of the connection the host opened goes on (a
        // simultaneous open); one from another of its ports opens nothing.
        TransportAddress mapped = fabric.bib().stream().filter(b -> b.protocol() == Protocol.TCP).findFirst()
                .orElseThrow().v4();
        int sent = border1.packetOuts.size();
        byte[] sameConnection = v4Syn("203.0.113.5", 80, mapped.address(), mapped.port());
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, sameConnection);
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN, v4Syn("203.0.113.5", 81, mapped.address(), mapped.port()));
        assertEquals(sent + 1, border1.packetOuts.size());
        assertArrayEquals(sameConnection, border1.packetOuts.get(sent), "back through the pipeline as it came");
        assertEquals(1L, fabric.stats().get("heldSyns.admitted"));
        assertEquals(2L, fabric.stats().get("heldSyns.dropped"));
        assertEquals(Optional.of(TcpState.ESTABLISHED), fabric.sessions().stream()
                .filter(s -> s.bib().v4().equals(mapped)).findFirst().orElseThrow().state(),
                "the SYN drives the session as a copy would (V6 INIT to ESTABLISHED)");
    }

    @Test
    void anErrorTheSwitchSentTheControllerAboutItsOwnPacketIsRoutedOnAndNothingElseIs() {
        byte[] error = IcmpErrors.about(udpFrame(5000), null, Ipv6Address.parse("2001:db8:ff::2", "switch"), 2, 0,
                1300).orElseThrow();
        assertTrue(IcmpErrors.isError(error));
        fabric.packetIn("border1", 0, error);
        fabric.packetIn("border1", 0, udpFrame(5001));     // not an error: nothing to route
        assertEquals(1, border1.packetOuts.size());
        assertArrayEquals(error, border1.packetOuts.get(0));
        assertEquals(1L, fabric.stats().get("packetIn.errorsRouted"));
        assertTrue(fabric.bib().isEmpty(), "and nothing was set up from either");
    }

    @Test
    void aHeldSynWaitsItsTimeOnAClockThatDoesNotStepWithTheWallClock() throws Exception {
        long[] monotonic = {0};
        fabric = new Nat64Fabric(config("{\"addresses\": [\"192.0.2.0/30\"]}"), new InMemoryNatStore(), e -> { },
                () -> now, () -> monotonic[0], Runnable::run, Runnable::run);
        border1 = new FakeSwitch("border1");
        fabric.connected(border1);
        fabric.packetIn("border1", Nat64Fabric.PUNT_INBOUND_SYN,
                v4Syn("203.0.113.5", 80, Ipv4Address.parse("192.0.2.1", "pool4"), 40000));
        assertEquals(1L, fabric.stats().get("heldSyns.waiting"));
        now += 3_600_000;                 // the wall clock steps an hour forward
        monotonic[0] += 1_000;
        fabric.answerHeldSyns();
        assertTrue(border1.packetOuts.isEmpty(), "RFC 5382 REQ-4: not answered before 6 s have passed");
        now -= 7_200_000;                 // and back
        monotonic[0] += 5_000;
        fabric.answerHeldSyns();
        assertEquals(1, border1.packetOuts.size(), "answered once 6 s have passed");
        assertEquals(0L, fabric.stats().get("heldSyns.waiting"));
    }
}
