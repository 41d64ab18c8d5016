package org.nat64fabric.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.app.FakeOnos.BORDER1;
import static org.nat64fabric.app.FakeOnos.BORDER2;
import static org.nat64fabric.app.FakeOnos.LEAF;
import static org.nat64fabric.app.FakeOnos.await;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.control.Nat64Fabric;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.p4.P4InfoConstants;
import org.nat64fabric.core.p4.SumeHeaders;
import org.nat64fabric.core.session.TcpState;
import org.nat64fabric.pipeconf.SumeInterpreter;
import org.onlab.packet.Data;
import org.onlab.packet.Ethernet;
import org.onlab.packet.ICMP6;
import org.onlab.packet.IPacket;
import org.onlab.packet.IPv4;
import org.onlab.packet.IPv6;
import org.onlab.packet.Ip6Address;
import org.onlab.packet.TCP;
import org.onlab.packet.UDP;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.net.packet.OutboundPacket;
import org.onosproject.net.packet.PacketContextAdapter;
import org.onosproject.net.pi.model.PiPacketMetadataId;
import org.onosproject.net.pi.model.PiPacketOperationType;
import org.onosproject.net.pi.runtime.PiPacketMetadata;
import org.onosproject.net.pi.runtime.PiPacketOperation;

/**
 * What a NetFPGA SUME hands over to finish (PUNT_FINISH), through ONOS: the card's P4Runtime
 * packet-in goes through the SUME pipeconf's own interpreter into the app's packet processor, and
 * each packet-out the app emits through that interpreter again, to the packet_out the card reads.
 * The expected frames are built by ONOS's packet library, which sums checksums itself.
 */
class SumeFinishTest {
    private static final String HOST = "2001:db8:1::10";
    private static final String REMOTE = "2001:db8:64::c633:640a";   // 198.51.100.10 through pool6
    /** BORDER1's ipv6 in FakeOnos's netcfg: the source of the ICMPv6 errors it sends. */
    private static final String BORDER1_IPV6 = "2001:db8:ff::2";
    private static final List<String> SUME_PACKET_OUT = List.of("egress_port", "to_pipeline", "hairpinned", "probe",
            "_pad", "ether_type");
    /** The tables of nat64.p4 that nat64_sume.p4 has not. */
    private static final List<String> SUME_LACKS = List.of(P4InfoConstants.NAT64_INGRESS_ICMP_ERROR_ICMP_SOURCE,
            P4InfoConstants.NAT64_INGRESS_PUNT_SUBSCRIBER);

    private final SumeInterpreter card = new SumeInterpreter();
    private FakeOnos onos;
    private Nat64Manager manager;

    @BeforeEach
    void setUp() throws Exception {
        onos = new FakeOnos();
        onos.packetOutFields.addAll(SUME_PACKET_OUT);      // the variant's pipeline, as its P4Info has it
        onos.missingTables.addAll(SUME_LACKS);
        onos.architecture = "sume";
        onos.meterSizes.clear();
        onos.available.addAll(List.of(LEAF, BORDER1, BORDER2));
        onos.mastered.addAll(List.of(LEAF, BORDER1, BORDER2));
        manager = onos.start();
        onos.pushNetcfg("{\"addresses\": [\"192.0.2.0/30\"]}");
        await("the service configured", () -> {
            try {
                return manager.devices().stream().allMatch(d -> d.connected);
            } catch (Nat64Service.NotConfigured e) {
                return false;
            }
        });
        onos.settle();
        onos.packetOuts.clear();
    }

    @AfterEach
    void tearDown() {
        manager.deactivate();
    }

    // ---- the card's side ------------------------------------------------------------------------

    /** BORDER1's packet-in as the card sends it over P4Runtime, every packet_in field given, into ONOS. */
    private void handOver(byte[] frame, int puntReason, int finish, int outPort, int truncateTo, int errorType,
                          int errorCode, int errorParam) throws Exception {
        Map<String, Long> fields = new LinkedHashMap<>();
        fields.put("ingress_port", 1L);
        fields.put("punt_reason", (long) puntReason);
        fields.put("out_port", (long) outPort);
        fields.put("finish", (long) finish);
        fields.put("truncate_to", (long) truncateTo);
        fields.put("error_type", (long) errorType);
        fields.put("error_code", (long) errorCode);
        fields.put("error_param", (long) errorParam);
        PiPacketOperation.Builder in = PiPacketOperation.builder().withType(PiPacketOperationType.PACKET_IN)
                .withData(ImmutableByteSequence.copyFrom(frame));
        fields.forEach((name, value) -> in.withMetadata(PiPacketMetadata.builder().withId(PiPacketMetadataId.of(name))
                .withValue(ImmutableByteSequence.copyFrom(value)).build()));
        PacketContextAdapter context = new PacketContextAdapter(0, card.mapInboundPacket(in.build(), BORDER1), null,
                false);
        onos.processor.process(context);
        assertTrue(context.isHandled(), "the app takes what the card hands over");
    }

    /** A packet the card hands over to finish (PUNT_FINISH). */
    private void finish(byte[] frame, int finish, int outPort, int truncateTo, int errorType, int errorCode,
                        int errorParam) throws Exception {
        handOver(frame, Nat64Fabric.PUNT_FINISH, finish, outPort, truncateTo, errorType, errorCode, errorParam);
    }

    /** The packet_out the card reads for this packet-out, as the SUME interpreter writes it. */
    private Map<String, Long> packetOutOf(OutboundPacket out) throws Exception {
        PiPacketOperation op = card.mapOutboundPacket(out).iterator().next();
        return op.metadatas().stream().collect(Collectors.toMap(m -> m.id().id(),
                m -> new BigInteger(1, m.value().asArray()).longValue()));
    }

    /** packet_out's fields: these, the others 0. */
    private static Map<String, Long> packetOut(long port, long toPipeline, String... marks) {
        Map<String, Long> m = new HashMap<>(Map.of("egress_port", port, "to_pipeline", toPipeline, "hairpinned", 0L,
                "probe", 0L, "_pad", 0L, "ether_type", 0L));
        for (String mark : marks) {
            m.put(mark, 1L);
        }
        return m;
    }

    private static byte[] bytes(OutboundPacket out) {
        byte[] b = new byte[out.data().remaining()];
        out.data().duplicate().get(b);
        return b;
    }

    private OutboundPacket onlyPacketOut() throws Exception {
        await("a packet-out", () -> !onos.packetOuts.isEmpty());
        onos.settle();
        assertEquals(1, onos.packetOuts.size(), onos.journal.toString());
        assertEquals(BORDER1, onos.packetOuts.get(0).sendThrough());
        return onos.packetOuts.get(0);
    }

    // ---- frames, as ONOS's packet library writes them (checksums included) -----------------------

    private static byte[] ethernet(String src, String dst, IPacket ip) {
        Ethernet eth = new Ethernet();
        eth.setEtherType(Ethernet.TYPE_IPV6);
        eth.setSourceMACAddress(src);
        eth.setDestinationMACAddress(dst);
        eth.setPayload(ip);
        return eth.serialize();
    }

    private static IPv6 ipv6(String src, String dst, byte nextHeader, int hopLimit, IPacket payload) {
        IPv6 ip = new IPv6();
        ip.setSourceAddress(Ip6Address.valueOf(src).toOctets());
        ip.setDestinationAddress(Ip6Address.valueOf(dst).toOctets());
        ip.setNextHeader(nextHeader);
        ip.setHopLimit((byte) hopLimit);
        ip.setPayload(payload);
        return ip;
    }

    /** Translated and routed by the card: from the remote's pool6 address to the host, out of port 1. */
    private static byte[] toHost(byte nextHeader, IPacket payload) {
        return ethernet("00:00:00:00:b1:02", "00:00:00:00:01:10", ipv6(REMOTE, HOST, nextHeader, 63, payload));
    }

    private static byte[] udpToHost(byte[] payload) {
        UDP udp = new UDP();
        udp.setSourcePort(53);
        udp.setDestinationPort(40000);
        udp.setPayload(new Data(payload));
        return toHost(IPv6.PROTOCOL_UDP, udp);
    }

    private static byte[] tcp(String src, int sport, String dst, int dport, int flags) {
        TCP tcp = new TCP();
        tcp.setSourcePort(sport);
        tcp.setDestinationPort(dport);
        tcp.setFlags((short) flags);
        tcp.setDataOffset((byte) 5);
        return ethernet("00:00:00:00:01:10", "00:00:00:00:b1:02", ipv6(src, dst, IPv6.PROTOCOL_TCP, 64, tcp));
    }

    /** ICMPv6 with this body after its first four bytes, summed over its IPv6 pseudo-header when serialized. */
    private static ICMP6 icmp6(int type, int code, byte[] body) {
        ICMP6 icmp = new ICMP6();
        icmp.setIcmpType((byte) type);
        icmp.setIcmpCode((byte) code);
        icmp.setPayload(new Data(body));
        return icmp;
    }

    // ---- the tests ------------------------------------------------------------------------------

    @Test
    void aCardIsProgrammedWithWhatItsPipelineHoldsAndNothingItLacks() throws Exception {
        assertTrue(onos.journal.stream().anyMatch(j -> j.startsWith(BORDER1 + " ADD Nat64Ingress.ipv6_routes")),
                onos.journal.toString());
        assertTrue(onos.journal.stream().noneMatch(j -> SUME_LACKS.stream().anyMatch(j::endsWith)
                || j.contains("ADD_GROUP")), "no entries of tables it lacks, no clone session: " + onos.journal);

        onos.missingTables.clear();                             // the same switch as a v1model one
        onos.architecture = "v1model";
        onos.deviceAvailable(BORDER1, true);
        await("reconciled again", () -> onos.journal.stream().anyMatch(j -> j.startsWith(BORDER1 + " ADD_GROUP")));
        onos.settle();
        for (String table : SUME_LACKS) {
            assertTrue(onos.journal.stream().anyMatch(j -> j.startsWith(BORDER1 + " ") && j.endsWith(table)), table);
        }
    }

    @Test
    void udpWithoutChecksumLeavesByTheCardsPortWithItsChecksum() throws Exception {
        byte[] summed = udpToHost(new byte[] {'n', 'o', ' ', 's', 'u', 'm'});
        byte[] handed = summed.clone();
        handed[14 + 40 + 6] = 0;       // IPv4 UDP without a checksum, translated: the card cannot sum it
        handed[14 + 40 + 7] = 0;
        assertTrue(summed[14 + 40 + 6] != 0 || summed[14 + 40 + 7] != 0);

        finish(handed, SumeHeaders.FINISH_UDP_CHECKSUM, 1, 0, 0, 0, 0);
        OutboundPacket out = onlyPacketOut();
        assertArrayEquals(summed, bytes(out));
        assertEquals(packetOut(1, 0), packetOutOf(out));
        assertEquals(1L, manager.stats().get("finish.sent"));
    }

    @Test
    void aTranslatedErrorIsCutToTheLengthTheCardAsksAndChecksummed() throws Exception {
        byte[] quoted = new byte[1400];
        Arrays.fill(quoted, (byte) 'q');
        int kept = 1280 - 40 - 8;
        byte[] body = ByteBuffer.allocate(4 + kept).putInt(0).put(quoted, 0, kept).array();
        byte[] cut = toHost(IPv6.PROTOCOL_ICMP6, icmp6(1, 4, body));   // port unreachable, summed
        // What the card sends: the IPv6 header already says 1280 bytes, the quote runs on, no checksum.
        byte[] handed = Arrays.copyOf(cut, 14 + 40 + 8 + 1400);
        System.arraycopy(quoted, kept, handed, cut.length, 1400 - kept);
        handed[14 + 40 + 2] = 0;
        handed[14 + 40 + 3] = 0;

        finish(handed, SumeHeaders.FINISH_ICMP_CHECKSUM | SumeHeaders.FINISH_TRUNCATE,
                1, 14 + 1280, 0, 0, 0);
        OutboundPacket out = onlyPacketOut();
        assertEquals(14 + 1280, bytes(out).length);
        assertArrayEquals(cut, bytes(out));
        assertEquals(1L, packetOutOf(out).get("egress_port"));
    }

    @Test
    void tcpControlSegmentsTheCardHandsOverDriveTheSessionAndGoOn() throws Exception {
        byte[] syn = tcp(HOST, 40100, REMOTE, 80, 0x02);
        handOver(syn, Nat64Fabric.PUNT_SESSION_MISS, 0, 0, 0, 0, 0, 0);   // a session miss: set up, sent through the pipe
        await("the session", () -> manager.sessions().size() == 1);
        assertEquals(Optional.of(TcpState.V6_INIT), manager.sessions().get(0).state());
        await("the SYN back through the pipe", () -> onos.packetOuts.size() == 1);
        assertEquals(packetOut(0, 1), packetOutOf(onos.packetOuts.get(0)));
        onos.packetOuts.clear();

        byte[] synAck = tcp(REMOTE, 80, HOST, 40100, 0x12);     // the server's answer, translated by the card
        finish(synAck, SumeHeaders.FINISH_TRACK, 1, 0, 0, 0, 0);
        await("established", () -> manager.sessions().get(0).state().equals(Optional.of(TcpState.ESTABLISHED)));
        OutboundPacket out = onlyPacketOut();
        assertArrayEquals(synAck, bytes(out), "sent on as the card translated it");
        assertEquals(1L, packetOutOf(out).get("egress_port"));
        await("the established lifetime on the borders", () -> onos.flowsOn(BORDER2, "session_v4").stream()
                .allMatch(f -> f.timeout() == 7440));
    }

    @Test
    void aHairpinnedPacketGoesBackThroughThePipeMarkedOrIsCountedWhereThePipelineCannotTakeIt() throws Exception {
        byte[] frame = udpToHost(new byte[] {1, 2, 3, 4});
        finish(frame, SumeHeaders.FINISH_HAIRPIN, 0, 0, 0, 0, 0);
        OutboundPacket out = onlyPacketOut();
        assertArrayEquals(frame, bytes(out));
        assertEquals(packetOut(0, 1, "hairpinned"), packetOutOf(out));
        assertEquals(1L, manager.stats().get("finish.hairpinned"));

        onos.packetOuts.clear();
        onos.packetOutFields.remove("hairpinned");             // v1model's packet_out: no second-pass mark
        finish(frame, SumeHeaders.FINISH_HAIRPIN, 0, 0, 0, 0, 0);
        onos.settle();
        assertTrue(onos.packetOuts.isEmpty());
        assertEquals(1L, manager.stats().get("finish.notSupported"));
    }

    @Test
    void thePacketTheCardAnswersWithAnErrorGetsItBuiltAndSentBackOutOfItsPort() throws Exception {
        byte[] arrived = ethernet("00:00:00:00:01:10", "00:00:00:00:b1:02",
                ipv6(HOST, REMOTE, IPv6.PROTOCOL_UDP, 1, udpPayload()));
        byte[] quote = Arrays.copyOfRange(arrived, 14, arrived.length);
        byte[] expected = ethernet("00:00:00:00:b1:02", "00:00:00:00:01:10", ipv6(BORDER1_IPV6, HOST,
                IPv6.PROTOCOL_ICMP6, 64, icmp6(3, 0, ByteBuffer.allocate(4 + quote.length).putInt(0)
                        .put(quote).array())));

        finish(arrived, SumeHeaders.FINISH_ICMP_ERROR, 1, 0, 3, 0, 0);
        OutboundPacket out = onlyPacketOut();
        assertArrayEquals(expected, bytes(out), "Time Exceeded from the switch's own address, quoting the packet");
        assertEquals(1L, packetOutOf(out).get("egress_port"), "back out of the port it came in on");
        assertEquals(1L, manager.stats().get("icmpErrors.sent.timeExceeded"));
    }

    @Test
    void aFullSizeFirstPacketHandedOverWithoutEthernetIsSetUpAndGoesBackWithoutIt() throws Exception {
        UDP udp = udpPayload();
        udp.setPayload(new Data(new byte[1500 - 40 - 8]));
        byte[] ip = Arrays.copyOfRange(ethernet("00:00:00:00:01:10", "00:00:00:00:b1:02",
                ipv6(HOST, REMOTE, IPv6.PROTOCOL_UDP, 64, udp)), 14, 14 + 1500);
        handOver(ip, Nat64Fabric.PUNT_SESSION_MISS, SumeHeaders.FINISH_NO_ETHERNET, 0, 0, 0, 0, 0);
        await("the session", () -> manager.sessions().size() == 1);
        OutboundPacket out = onlyPacketOut();
        Map<String, Long> back = packetOut(0, 1);
        back.put("ether_type", 0x86ddL);
        assertEquals(back, packetOutOf(out), "4 + 14 + 1500 bytes would not fit SUME's DMA: without Ethernet");
        assertArrayEquals(ip, card.mapOutboundPacket(out).iterator().next().data().asArray());
    }

    @Test
    void ipv4TooLongToTranslateOnTheCardIsProbedThroughThePipeMarked() throws Exception {
        UDP udp = new UDP();
        udp.setSourcePort(53);
        udp.setDestinationPort(1024);
        udp.setPayload(new Data(new byte[1500 - 20 - 8]));
        IPv4 big = new IPv4();
        big.setSourceAddress("198.51.100.10");
        big.setDestinationAddress("192.0.2.1");
        big.setTtl((byte) 64);
        big.setProtocol(IPv4.PROTOCOL_UDP);
        big.setPayload(udp);
        byte[] ip = big.serialize();
        assertEquals(1500, ip.length);
        handOver(ip, Nat64Fabric.PUNT_TOO_LONG, SumeHeaders.FINISH_NO_ETHERNET, 0, 0, 0, 0, 0);
        OutboundPacket out = onlyPacketOut();
        assertEquals(packetOut(0, 1, "probe"), packetOutOf(out));
        byte[] probe = bytes(out);
        assertEquals(14 + 20 + 48 + 8, probe.length, "its headers, the 48 bytes after them, a token");
        assertArrayEquals(Arrays.copyOf(ip, 68), Arrays.copyOfRange(probe, 14, 82));
        assertEquals(1L, manager.stats().get("fragmentation.probes"));
    }

    private static UDP udpPayload() {
        UDP udp = new UDP();
        udp.setSourcePort(40000);
        udp.setDestinationPort(53);
        udp.setPayload(new Data(new byte[] {'h', 'o', 'p'}));
        return udp;
    }
}
