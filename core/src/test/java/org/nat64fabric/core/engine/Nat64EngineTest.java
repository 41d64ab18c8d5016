package org.nat64fabric.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.addr.Ipv6Prefix;
import org.nat64fabric.core.config.Nat64Config;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.event.NatEvent;
import org.nat64fabric.core.pool4.Pool4Config;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.pool6.Pool6;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.session.TcpState;
import org.nat64fabric.core.session.TcpStateMachine.Segment;
import org.nat64fabric.core.store.InMemoryNatStore;
import org.nat64fabric.core.store.MapNatStore;
import org.nat64fabric.core.store.NatStore;

class Nat64EngineTest {
    private static final Pool6 POOL6 = Pool6.parse("2001:db8:64::/96", "pool6");
    private static final Ipv4Address SERVER = Ipv4Address.parse("198.51.100.10", "s");
    private static final Ipv6Address SERVER6 = POOL6.embed(SERVER);
    private static final Set<String> BORDERS = Set.of("border-1", "border-2");

    private final List<NatEvent> log = new ArrayList<>();

    private static Ipv6Address host(int n) {
        return Ipv6Address.of(0x20010db800010000L, n);
    }

    private static Pool4Config.Builder pool4(String prefix) {
        return Pool4Config.builder().addresses(List.of(Ipv4Prefix.parse(prefix, "pool4")));
    }

    private Nat64Engine engine(Nat64Config.Builder config, NatStore store) {
        return new Nat64Engine(config.build(), store, log::add);
    }

    private Nat64Engine engine(Pool4Config.Builder pool4) {
        return engine(Nat64Config.builder().pool6(POOL6).pool4(pool4.build()), new InMemoryNatStore());
    }

    private List<Integer> events() {
        return log.stream().map(e -> e.type().natEvent).collect(Collectors.toList());
    }

    @Test
    void aUdpSessionMissMapsTheHostAndLogsBlockBibAndSession() {
        Nat64Engine e = engine(pool4("192.0.2.0/30"));
        Outcome o = e.fromV6(Protocol.UDP, host(1), 5353, SERVER6, 53, Segment.OTHER, 1_000);
        Session s = o.session().orElseThrow();
        assertTrue(o.reprogram(), "a new BIB entry must be written to the switches");
        assertEquals(new TransportAddress(SERVER, 53), s.remote4());
        assertTrue(e.pool4().contains(s.bib().v4().address()));
        assertEquals(1, s.bib().v4().port() & 1, "parity kept");
        assertEquals(300, e.lifetimeOf(s.bib()), "UDP default lifetime");
        assertEquals(List.of(16, 10, 6), events(), "port block, BIB, NAT64 session (RFC 8158 natEvent values)");
        NatEvent bib = log.get(1);
        assertEquals(host(1), bib.fields().get("sourceIPv6Address"));
        assertEquals(s.bib().v4().address(), bib.fields().get("postNATSourceIPv4Address"));
        assertEquals(s.bib().v4().port(), bib.fields().get("postNAPTSourceTransportPort"));
        assertEquals(1_000, bib.observationTimeMilliseconds());

        Outcome again = e.fromV6(Protocol.UDP, host(1), 5353, SERVER6, 53, Segment.OTHER, 2_000);
        assertEquals(s.bib(), again.session().orElseThrow().bib());
        assertFalse(again.reprogram());
        assertEquals(3, log.size(), "nothing new to log");

        Outcome other = e.fromV6(Protocol.UDP, host(1), 5353, POOL6.embed(Ipv4Address.parse("203.0.113.1", "r")), 53,
                Segment.OTHER, 3_000);
        assertEquals(s.bib(), other.session().orElseThrow().bib(), "endpoint-independent mapping");
        assertEquals(2, e.sessionsOf(s.bib()).size());
    }

    @Test
    void aHostsSynTakesTheAddressASynHeldFromItsRemoteNamesWherePool4LetsIt() {
        // RFC 6146 3.5.2.2, Jool's graybox "so": SERVER:443 sent a SYN to 192.0.2.2:2600, which has
        // no mapping; the host's SYN to SERVER:443 gets that mapping, so the two SYNs are one connection.
        Nat64Engine e = engine(pool4("192.0.2.0/30").blockSize(64).blocksPerSubscriber(2));
        TransportAddress remote = new TransportAddress(SERVER, 443);
        TransportAddress held = new TransportAddress(Ipv4Address.parse("192.0.2.2", "t"), 2600);
        TransportAddress elsewhere = new TransportAddress(held.address(), 2700);
        Function<TransportAddress, List<TransportAddress>> heldSyns =
                r -> r.equals(remote) ? List.of(held, elsewhere) : List.of();
        Session s = e.fromV6(Protocol.TCP, host(1), 33000, SERVER6, 443, Segment.SYN, heldSyns, 0)
                .session().orElseThrow();
        assertEquals(held, s.bib().v4());
        assertEquals(List.of(16, 10, 6), events(), "the block it opened is logged, then the BIB entry and session");
        assertEquals(Optional.of(TcpState.V6_INIT), s.state());
        assertEquals(Optional.of(s.bib()), e.store().bibBy4(Protocol.TCP, held));

        assertEquals(elsewhere, e.fromV6(Protocol.TCP, host(1), 33002, SERVER6, 443, Segment.SYN, heldSyns, 1)
                .session().orElseThrow().bib().v4(), "the first is taken: the next SYN held from that remote serves");
        TransportAddress hostOnes = new TransportAddress(held.address(), 2601);
        assertNotEquals(hostOnes, e.fromV6(Protocol.TCP, host(2), 33004, SERVER6, 443, Segment.SYN,
                r -> List.of(hostOnes), 2).session().orElseThrow().bib().v4(),
                "2601 is in host 1's block: host 2 gets a port of its own");
        TransportAddress unpaired = new TransportAddress(Ipv4Address.parse("192.0.2.3", "o"), 2600);
        assertEquals(held.address(), e.fromV6(Protocol.TCP, host(1), 33008, SERVER6, 443, Segment.SYN,
                r -> List.of(unpaired), 4).session().orElseThrow().bib().v4().address(),
                "host 1's mappings are all on 192.0.2.2 (paired pooling, RFC 6888 REQ-2)");
        Session udp = e.fromV6(Protocol.UDP, host(3), 33006, SERVER6, 443, Segment.OTHER,
                r -> List.of(new TransportAddress(held.address(), 2800)), 3).session().orElseThrow();
        assertNotEquals(2800, udp.bib().v4().port(), "only TCP has held SYNs");
    }

    @Test
    void aHeldSynsAddressIsRefusedPastTheSubscribersBlockLimitOrOutsideItsDeterministicBlocks() {
        Nat64Engine limited = engine(pool4("192.0.2.0/30").blockSize(64).blocksPerSubscriber(1));
        TransportAddress first = limited.fromV6(Protocol.TCP, host(1), 33000, SERVER6, 80, Segment.SYN, 0)
                .session().orElseThrow().bib().v4();
        TransportAddress elsewhere = new TransportAddress(first.address(), first.port() + 640);   // ten blocks on
        Session s = limited.fromV6(Protocol.TCP, host(1), 33002, SERVER6, 443, Segment.SYN,
                r -> List.of(elsewhere), 1).session().orElseThrow();
        assertNotEquals(elsewhere, s.bib().v4(), "a second block is over the limit of one");
        assertEquals(first.port() / 64, s.bib().v4().port() / 64, "the host's own block serves instead");

        Nat64Engine deterministic = engine(pool4("192.0.2.0/30").blockSize(64).blocksPerSubscriber(1)
                .subscriberPrefixLength(64).deterministic(Ipv6Prefix.parse("2001:db8:1::/56", "d")));
        List<PortBlock> own = deterministic.pool4().deterministicBlocks(Protocol.TCP,
                deterministic.pool4().subscriberOf(host(1)));
        TransportAddress inOwn = new TransportAddress(own.get(0).address(), own.get(0).first() + 5);
        TransportAddress notOwn = new TransportAddress(own.get(0).address(), own.get(0).last() + 5);
        assertNotEquals(notOwn, deterministic.fromV6(Protocol.TCP, host(1), 33000, SERVER6, 80, Segment.SYN,
                r -> List.of(notOwn), 0).session().orElseThrow().bib().v4(), "RFC 7422: another subscriber's ports");
        assertEquals(inOwn, deterministic.fromV6(Protocol.TCP, host(1), 33002, SERVER6, 443, Segment.SYN,
                r -> List.of(inOwn), 1).session().orElseThrow().bib().v4());
        Ipv6Address outsider = Ipv6Address.of(0x20010db800ff0007L, 1);   // outside 2001:db8:1::/56; bits as subscriber 7's
        PortBlock seventh = deterministic.pool4().deterministicBlocks(Protocol.TCP,
                deterministic.pool4().subscriberOf(outsider)).get(0);
        TransportAddress others = new TransportAddress(seventh.address(), seventh.first() + 9);
        assertFalse(deterministic.fromV6(Protocol.TCP, outsider, 33000, SERVER6, 443, Segment.SYN,
                r -> List.of(others), 2).translated(), "no subscriber, no mapping: held SYN or not");
    }

    @Test
    void aSourceInsidePool6IsDiscardedWithoutAMapping() {
        Nat64Engine e = engine(pool4("192.0.2.0/30"));
        Ipv6Address looped = POOL6.embed(Ipv4Address.parse("198.51.100.9", "looped"));
        for (Protocol p : List.of(Protocol.UDP, Protocol.TCP)) {
            Outcome o = e.fromV6(p, looped, 7000, SERVER6, 53, Segment.SYN, 1_000);
            assertFalse(o.translated(), "RFC 6146 3.5: silently discarded");
            assertTrue(o.icmpError().isEmpty(), "silently: no error");
            assertTrue(e.store().bibBy6(p, looped, 7000).isEmpty(), "no mapping made");
        }
    }

    @Test
    void tcpFollowsTheStateMachineAndIsRemovedWhenEveryBorderReportsItIdle() {
        Nat64Engine e = engine(pool4("192.0.2.1/32"));
        assertFalse(e.fromV6(Protocol.TCP, host(1), 40000, SERVER6, 80, Segment.OTHER, 0).translated(),
                "no mapping from a segment other than SYN");
        Session syn = e.fromV6(Protocol.TCP, host(1), 40000, SERVER6, 80, Segment.SYN, 0).session().orElseThrow();
        assertEquals(Optional.of(TcpState.V6_INIT), syn.state());
        assertEquals(240, syn.lifetime());
        TransportAddress mapped = syn.bib().v4();
        Outcome synAck = e.fromV4(Protocol.TCP, SERVER, 80, mapped.address(), mapped.port(), Segment.SYN, 10);
        assertEquals(Optional.of(TcpState.ESTABLISHED), synAck.session().orElseThrow().state());
        assertTrue(synAck.reprogram(), "the lifetime grew from 4 min to 2 h 4 min");
        assertEquals(7440, e.lifetimeOf(syn.bib()));

        assertEquals(Nat64Engine.Idle.WAITING, e.onIdle(Protocol.TCP, host(1), 40000, "border-1", BORDERS, true, 7_440_000));
        assertEquals(Nat64Engine.Idle.REPROGRAM, e.onIdle(Protocol.TCP, host(1), 40000, "border-2", BORDERS, true, 7_440_000),
                "idle established: transitory, not closed");
        assertEquals(240, e.lifetimeOf(syn.bib()));
        for (String border : BORDERS) {
            assertEquals(Nat64Engine.Idle.WAITING, e.onIdle(Protocol.TCP, host(1), 40000, border, BORDERS, true,
                    7_440_100), "the rewritten entries' timers run from their last hit: TRANS lasts its 4 min");
        }
        e.fromV6(Protocol.TCP, host(1), 40000, SERVER6, 80, Segment.FIN, 7_500_000);
        e.fromV4(Protocol.TCP, SERVER, 80, mapped.address(), mapped.port(), Segment.FIN, 7_500_100);
        assertEquals(Optional.of(TcpState.V4_FIN_V6_FIN_RCV),
                e.sessionsOf(syn.bib()).get(0).state());
        e.onIdle(Protocol.TCP, host(1), 40000, "border-1", BORDERS, true, 7_800_000);
        assertEquals(Nat64Engine.Idle.REMOVED, e.onIdle(Protocol.TCP, host(1), 40000, "border-2", BORDERS, true, 7_800_000));
        assertEquals(List.of(), e.store().bib());
        assertEquals(List.of(16, 10, 6, 7, 11), events());
        Session next = e.fromV6(Protocol.TCP, host(1), 40000, SERVER6, 80, Segment.SYN, 7_800_001).session().orElseThrow();
        assertNotEquals(mapped, next.bib().v4(), "the old port rests for 120 s");
    }

    @Test
    void aBlockWithoutMappingsGoesBackToThePoolAfterTheHoldAndIsLogged() {
        Nat64Engine e = engine(pool4("192.0.2.1/32"));
        e.fromV6(Protocol.UDP, host(1), 7000, SERVER6, 53, Segment.OTHER, 0);
        for (String border : BORDERS) {
            e.onIdle(Protocol.UDP, host(1), 7000, border, BORDERS, true, 300_000);
        }
        assertEquals(List.of(), e.expireBlocks(419_999), "the freed port still rests");
        assertEquals(1, e.expireBlocks(420_000).size());
        assertEquals(17, log.get(log.size() - 1).type().natEvent, "port block de-allocation");
    }

    @Test
    void packetsSeenOnOneBorderResetTheOtherBordersIdleReport() {
        Nat64Engine e = engine(pool4("192.0.2.1/32"));
        e.fromV6(Protocol.UDP, host(1), 7000, SERVER6, 53, Segment.OTHER, 0);
        e.onIdle(Protocol.UDP, host(1), 7000, "border-1", BORDERS, true, 300_000);
        e.fromV6(Protocol.UDP, host(1), 7000, POOL6.embed(Ipv4Address.parse("203.0.113.9", "r")), 53, Segment.OTHER,
                300_001);
        assertEquals(Nat64Engine.Idle.WAITING, e.onIdle(Protocol.UDP, host(1), 7000, "border-2", BORDERS, true, 600_000));
    }

    @Test
    void anIdleReportNotRenewedIsDroppedWhereSwitchesRenewThem() {
        Set<String> tables = Set.of("border-1|session_v6", "border-1|session_v4");
        for (boolean renewed : List.of(true, false)) {
            Nat64Engine e = engine(pool4("192.0.2.1/32"));
            e.fromV6(Protocol.UDP, host(1), 7000, SERVER6, 53, Segment.OTHER, 0);   // 300 s
            assertEquals(Nat64Engine.Idle.WAITING,
                    e.onIdle(Protocol.UDP, host(1), 7000, "border-1|session_v6", tables, renewed, 300_000));
            // the host sends again, the remote stops: 450 s later the other table's entry is idle
            Nat64Engine.Idle later = e.onIdle(Protocol.UDP, host(1), 7000, "border-1|session_v4", tables, renewed,
                    750_000);
            assertEquals(renewed ? Nat64Engine.Idle.WAITING : Nat64Engine.Idle.REMOVED, later,
                    "a P4Runtime server would have reported the first entry again had it stayed idle");
        }
        Nat64Engine e = engine(pool4("192.0.2.1/32"));
        e.fromV6(Protocol.UDP, host(1), 7000, SERVER6, 53, Segment.OTHER, 0);
        for (long at = 300_000; at < 10_000_000; at += 300_000) {
            e.onIdle(Protocol.UDP, host(1), 7000, "border-1|session_v6", tables, true, at);
        }
        assertEquals(Nat64Engine.Idle.REMOVED,
                e.onIdle(Protocol.UDP, host(1), 7000, "border-1|session_v4", tables, true, 10_000_000),
                "a report renewed each period still counts");
        e = engine(pool4("192.0.2.1/32"));
        e.fromV6(Protocol.UDP, host(1), 7000, SERVER6, 53, Segment.OTHER, 0);
        e.onIdle(Protocol.UDP, host(1), 7000, "border-1|session_v6", tables, true, 300_000);
        assertEquals(Nat64Engine.Idle.REMOVED,
                e.onIdle(Protocol.UDP, host(1), 7000, "border-1|session_v4", tables, true, 630_000),
                "330 s on, the first report's renewal (a lifetime and at most an eighth) may still be on its way");
    }

    @Test
    void exhaustionRefusesWithIcmpAndKeepsEverySession() {
        Nat64Engine e = engine(pool4("192.0.2.1/32").ports(Protocol.UDP, 1024, 1027).blockSize(2));
        for (int h = 1; h <= 2; h++) {
            for (int p = 0; p < 2; p++) {
                assertTrue(e.fromV6(Protocol.UDP, host(h), 6000 + p, SERVER6, 53, Segment.OTHER, 0).translated());
            }
        }
        Outcome refused = e.fromV6(Protocol.UDP, host(3), 6000, SERVER6, 53, Segment.OTHER, 0);
        assertEquals(Optional.of(Outcome.IcmpError.V6_ADDRESS_UNREACHABLE), refused.icmpError());
        assertEquals(12, log.get(log.size() - 1).type().natEvent, "NAT ports exhausted");
        assertEquals(4, e.store().sessions().size(), "nothing evicted");
        assertEquals(4, e.store().bib().size());
    }

    @Test
    void aSubscriberWhoseBlocksAreFullIsReportedWithItsLimitInEntries() {
        Nat64Engine e = engine(pool4("192.0.2.0/30").blockSize(8).blocksPerSubscriber(1));
        for (int port = 1; port <= 8; port++) {
            assertTrue(e.fromV6(Protocol.UDP, host(1), port, SERVER6, 53, Segment.OTHER, 0).translated());
        }
        assertFalse(e.fromV6(Protocol.UDP, host(1), 9, SERVER6, 53, Segment.OTHER, 0).translated());
        NatEvent quota = log.get(log.size() - 1);
        assertEquals(13, quota.type().natEvent);
        assertEquals(3, quota.fields().get("natQuotaExceededEvent"), "maximum entries per user");
        assertEquals(8, quota.fields().get("maxEntriesPerUser"), "one block of 8 ports, not 1 block");
    }

    @Test
    void aSubscriberOverItsSessionLimitIsRefusedAndOthersAreNot() {
        Nat64Engine e = engine(Nat64Config.builder().pool6(POOL6).pool4(pool4("192.0.2.1/32").build())
                .maxSessionsPerSubscriber(2), new InMemoryNatStore());
        e.fromV6(Protocol.UDP, host(1), 1, SERVER6, 53, Segment.OTHER, 0);
        e.fromV6(Protocol.UDP, host(1), 2, SERVER6, 53, Segment.OTHER, 0);
        Outcome over = e.fromV6(Protocol.UDP, host(1), 3, SERVER6, 53, Segment.OTHER, 0);
        assertEquals(Optional.of(Outcome.IcmpError.V6_ADDRESS_UNREACHABLE), over.icmpError());
        NatEvent quota = log.get(log.size() - 1);
        assertEquals(13, quota.type().natEvent);
        assertEquals(3, quota.fields().get("natQuotaExceededEvent"));
        assertTrue(e.fromV6(Protocol.UDP, host(2), 3, SERVER6, 53, Segment.OTHER, 0).translated());
    }

    @Test
    void pastTheSwitchesSessionTablesNoMappingIsMadeDynamicOrStatic() {
        Nat64Engine e = engine(pool4("192.0.2.0/30"));
        e.setBibCapacity(2);
        assertTrue(e.fromV6(Protocol.UDP, host(1), 5000, SERVER6, 53, Segment.OTHER, 0).translated());
        assertTrue(e.fromV6(Protocol.UDP, host(2), 5000, SERVER6, 53, Segment.OTHER, 0).translated());
        Outcome full = e.fromV6(Protocol.UDP, host(3), 5000, SERVER6, 53, Segment.OTHER, 0);
        assertFalse(full.translated());
        assertEquals(Optional.of(Outcome.IcmpError.V6_ADDRESS_UNREACHABLE), full.icmpError());
        assertTrue(e.fromV6(Protocol.UDP, host(1), 5000, SERVER6, 53, Segment.OTHER, 1).translated(),
                "a mapping the tables hold still translates");
        ConfigException refused = assertThrows(ConfigException.class, () -> e.addStaticBib(Protocol.TCP, host(7), 80,
                new TransportAddress(Ipv4Address.parse("192.0.2.2", "a"), 8080), 0, "bib"));
        assertEquals("bib", refused.field());
        assertTrue(refused.getMessage().contains("session tables are full"), refused.getMessage());
        assertEquals(2, e.store().bib().size(), "nothing was written past the tables' size");
        assertEquals(2, e.store().bibCount(), "counted without a copy, the same");
        e.removeBib(Protocol.UDP, host(2), 5000, 1);
        assertTrue(e.fromV6(Protocol.UDP, host(3), 5000, SERVER6, 53, Segment.OTHER, 2).translated(),
                "a freed entry makes room");
    }

    @Test
    void staticEntriesForwardInboundAndNeverExpireWhileTheirSessionsDo() {
        Nat64Engine e = engine(pool4("192.0.2.0/30"));
        TransportAddress web = new TransportAddress(Ipv4Address.parse("192.0.2.2", "a"), 8080);
        BibEntry entry = e.addStaticBib(Protocol.TCP, host(7), 80, web, 0, "bib");
        assertTrue(entry.isStatic());
        assertEquals(0, e.lifetimeOf(entry), "no idle timeout on its entries while it has no session");
        Outcome in = e.fromV4(Protocol.TCP, SERVER, 55555, web.address(), web.port(), Segment.SYN, 10);
        Session s = in.session().orElseThrow();
        assertEquals(Optional.of(TcpState.V4_INIT), s.state());
        assertEquals(SERVER6, s.remote6(), "the remote appears through pool6");
        assertTrue(in.reprogram());
        assertEquals(6, e.lifetimeOf(entry), "RFC 6146 3.5.2.2: the session lives TCP_INCOMING_SYN unless it opens");
        e.onIdle(Protocol.TCP, host(7), 80, "border-1", BORDERS, true, 100_000);
        assertEquals(Nat64Engine.Idle.REPROGRAM, e.onIdle(Protocol.TCP, host(7), 80, "border-2", BORDERS, true, 100_000));
        assertEquals(List.of(entry), e.store().bib(), "the static entry stays");
        assertEquals(List.of(), e.sessionsOf(entry), "its session ended");
        assertEquals(0, e.lifetimeOf(entry), "its entries are written back without aging");

        ConfigException taken = assertThrows(ConfigException.class,
                () -> e.addStaticBib(Protocol.TCP, host(8), 80, web, 0, "bib"));
        assertEquals("bib.ipv4Port", taken.field());
        ConfigException outside = assertThrows(ConfigException.class, () -> e.addStaticBib(Protocol.TCP, host(8), 80,
                new TransportAddress(SERVER, 80), 0, "bib"));
        assertEquals("bib.ipv4Address", outside.field());
        assertEquals(Optional.of(entry), e.removeBib(Protocol.TCP, host(7), 80, 200_000));
        assertEquals(List.of(), e.store().bib());
    }

    @Test
    void aStaticEntryAndAnEamMayNotClaimOneServerAndPortZeroServesNothing() {
        Nat64Engine e = engine(pool4("192.0.2.0/30"));
        TransportAddress web = new TransportAddress(Ipv4Address.parse("192.0.2.2", "a"), 8080);
        e.addEam(Eam.parse("2001:db8:7::/120", "198.18.7.0/24", "eam"), "eam");
        // the EAMT translates 2001:db8:7::5 statelessly: the static entry would never be used
        ConfigException inside = assertThrows(ConfigException.class,
                () -> e.addStaticBib(Protocol.TCP, Ipv6Address.parse("2001:db8:7::5", "h"), 80, web, 0, "bib"));
        assertEquals("bib.ipv6Address", inside.field());
        BibEntry entry = e.addStaticBib(Protocol.TCP, host(7), 80, web, 0, "bib");
        ConfigException over = assertThrows(ConfigException.class,
                () -> e.addEam(Eam.parse(host(7) + "/128", "198.18.8.1/32", "eam"), "eam"));
        assertEquals("eam.ipv6Prefix", over.field());
        assertEquals(List.of(entry), e.store().bib());
        assertEquals(1, e.store().eams().size());
        assertEquals("bib.ipv6Port", assertThrows(ConfigException.class,
                () -> e.addStaticBib(Protocol.UDP, host(8), 0, web, 0, "bib")).field());
    }

    @Test
    void addressDependentFilteringAdmitsOnlyRemotesTheHostSentTo() {
        Nat64Engine e = engine(Nat64Config.builder().pool6(POOL6).pool4(pool4("192.0.2.1/32").build())
                .addressDependentFiltering(true), new InMemoryNatStore());
        BibEntry b = e.fromV6(Protocol.UDP, host(1), 5000, SERVER6, 53, Segment.OTHER, 0).session().orElseThrow().bib();
        Ipv4Address stranger = Ipv4Address.parse("203.0.113.66", "x");
        assertFalse(e.fromV4(Protocol.UDP, stranger, 53, b.v4().address(), b.v4().port(), Segment.OTHER, 1).translated());
        Outcome otherPort = e.fromV4(Protocol.UDP, SERVER, 5353, b.v4().address(), b.v4().port(), Segment.OTHER, 1);
        assertTrue(otherPort.translated(), "address-dependent: any port of a known remote address");
        assertTrue(otherPort.reprogram(), "its remote_filter entry must be written");
    }

    @Test
    void theEamtIsBuiltAgainOnlyWhenItChangesAndEveryChangeReachesTheNextSetup() {
        Map<String, Map<String, Object>> maps = new ConcurrentHashMap<>();
        MapNatStore.Maps opener = new MapNatStore.Maps() {
            @Override
            @SuppressWarnings("unchecked")
            public <V> Map<String, V> open(String name) {
                return (Map<String, V>) maps.computeIfAbsent(name, n -> new ConcurrentHashMap<>());
            }
        };
        MapNatStore shared = new MapNatStore(opener, true) { };   // as in an ONOS cluster
        for (NatStore store : List.of(new InMemoryNatStore(), shared)) {
            Nat64Engine e = engine(Nat64Config.builder().pool6(POOL6).pool4(pool4("192.0.2.0/24").build()), store);
            Eam eam = Eam.parse("2001:db8:1::e00/120", "203.0.113.0/24", "eam");
            Ipv6Address eamHost = Ipv6Address.parse("2001:db8:1::e05", "h");
            assertFalse(e.fromV6(Protocol.UDP, host(1), 4000, eamHost, 53, Segment.OTHER, 0).translated(),
                    "neither in pool6 nor in the EAMT yet");
            e.addEam(eam, "eam");
            assertSame(e.eamt(), e.eamt(), "not built again while unchanged");
            Session s = e.fromV6(Protocol.UDP, host(1), 4001, eamHost, 53, Segment.OTHER, 0).session().orElseThrow();
            assertEquals(Ipv4Address.parse("203.0.113.5", "x"), s.remote4().address());
            assertTrue(e.removeEam(eam));
            assertFalse(e.fromV6(Protocol.UDP, host(1), 4002, eamHost, 53, Segment.OTHER, 0).translated(),
                    "removed: the next setup does not use it");
        }
        // Another instance of a cluster adds an EAM to the shared maps; this one sees it at its next setup.
        Nat64Engine e = engine(Nat64Config.builder().pool6(POOL6).pool4(pool4("192.0.2.0/24").build()), shared);
        e.eamt();
        Eam byOther = Eam.parse("2001:db8:2::e00/120", "203.0.113.0/24", "eam");
        maps.get("eamt").put(byOther.toString(), byOther);
        Session s = e.fromV6(Protocol.UDP, host(2), 4000, Ipv6Address.parse("2001:db8:2::e07", "h"), 53,
                Segment.OTHER, 0).session().orElseThrow();
        assertEquals(Ipv4Address.parse("203.0.113.7", "x"), s.remote4().address());
    }

    @Test
    void statelessAddressesAreAnEamsOrASiitPrefixsAndNoOther() {
        Nat64Engine e = engine(Nat64Config.builder().pool6(POOL6).pool4(pool4("192.0.2.0/24").build())
                .siitPrefixes(List.of(Ipv4Prefix.parse("198.18.0.0/24", "siit"))), new InMemoryNatStore());
        e.addEam(Eam.parse("2001:db8:1::e00/120", "203.0.113.0/24", "eam"), "eam");
        Ipv4Address siitHost = Ipv4Address.parse("198.18.0.9", "h");
        assertEquals(Optional.of(Ipv4Address.parse("203.0.113.5", "x")),
                e.statelessIpv4Of(Ipv6Address.parse("2001:db8:1::e05", "h")), "by its EAM");
        assertEquals(Optional.of(siitHost), e.statelessIpv4Of(POOL6.embed(siitHost)), "in pool6, of a SIIT prefix");
        assertEquals(Optional.empty(), e.statelessIpv4Of(SERVER6), "in pool6, of no SIIT prefix: stateful");
        assertEquals(Optional.empty(), e.statelessIpv4Of(host(1)), "a host a session maps");
        assertEquals(Optional.of(Ipv6Address.parse("2001:db8:1::e05", "x")),
                e.statelessIpv6Of(Ipv4Address.parse("203.0.113.5", "h")));
        assertEquals(Optional.of(POOL6.embed(siitHost)), e.statelessIpv6Of(siitHost));
        assertEquals(Optional.empty(), e.statelessIpv6Of(Ipv4Address.parse("192.0.2.7", "pool4")));
    }

    @Test
    void eamsThatWouldBeAmbiguousOrOverlapPool4AreRefused() {
        Nat64Engine e = engine(pool4("192.0.2.0/24"));
        Eam eam = Eam.parse("2001:db8:1::e00/120", "203.0.113.0/24", "eam");
        e.addEam(eam, "eam");
        assertEquals(List.of(eam), e.store().eams());
        assertEquals("eam.ipv6Prefix", assertThrows(ConfigException.class,
                () -> e.addEam(Eam.parse("2001:db8:1::e00/120", "198.51.100.0/24", "eam"), "eam")).field());
        assertEquals("eam.ipv4Prefix", assertThrows(ConfigException.class,
                () -> e.addEam(Eam.parse("2001:db8:2::/120", "192.0.2.0/24", "eam"), "eam")).field());
        Ipv6Address eamHost = Ipv6Address.parse("2001:db8:1::e05", "h");
        Session s = e.fromV6(Protocol.UDP, host(1), 4000, eamHost, 53, Segment.OTHER, 0).session().orElseThrow();
        assertEquals(Ipv4Address.parse("203.0.113.5", "x"), s.remote4().address(), "destination through the EAMT");
    }

    @Test
    void withoutDestinationLoggingSessionEventsLeaveItOut() {
        Nat64Engine e = engine(Nat64Config.builder().pool6(POOL6).pool4(pool4("192.0.2.1/32").build())
                .logDestination(false), new InMemoryNatStore());
        e.fromV6(Protocol.UDP, host(1), 5000, SERVER6, 53, Segment.OTHER, 0);
        NatEvent session = log.get(log.size() - 1);
        assertEquals(NatEvent.Type.NAT64_SESSION_CREATE, session.type());
        assertFalse(session.fields().containsKey("postNATDestinationIPv4Address"));
        assertFalse(session.toString().contains(SERVER.toString()), session.toString());
    }

    @Test
    void aNewEngineOverTheSameStoreKeepsEveryMapping() {
        NatStore store = new InMemoryNatStore();
        Nat64Config.Builder config = Nat64Config.builder().pool6(POOL6).pool4(pool4("192.0.2.1/32").build());
        Session before = engine(config, store).fromV6(Protocol.UDP, host(1), 5000, SERVER6, 53, Segment.OTHER, 0)
                .session().orElseThrow();
        log.clear();
        Nat64Engine restarted = engine(config, store);
        Outcome after = restarted.fromV6(Protocol.UDP, host(1), 5000, SERVER6, 53, Segment.OTHER, 5);
        assertEquals(before.bib(), after.session().orElseThrow().bib());
        assertEquals(List.of(), log, "nothing was created again");
        assertNotEquals(before.bib().v4(),
                restarted.fromV6(Protocol.UDP, host(2), 5000, SERVER6, 53, Segment.OTHER, 5).session().orElseThrow()
                        .bib().v4(), "the restarted engine does not hand out a port in use");
    }

    @Test
    void twoControllerInstancesSettingUpAtOnceNeverShareAnIpv4TransportAddress() throws InterruptedException {
        NatStore store = new InMemoryNatStore();
        Nat64Config.Builder config = Nat64Config.builder().pool6(POOL6)
                .pool4(pool4("192.0.2.0/30").blockSize(32).blocksPerSubscriber(64).build());
        Nat64Engine[] instances = {new Nat64Engine(config.build(), store, ev -> { }),
            new Nat64Engine(config.build(), store, ev -> { })};
        ConcurrentLinkedQueue<BibEntry> made = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException ex) {
                    return;
                }
                for (int i = 0; i < 500; i++) {
                    // threads 0/1 and 2/3 set up the same flows: the same mapping must come back
                    instances[id % 2].fromV6(Protocol.UDP, host(id / 2 * 1000 + i % 50), 1024 + i, SERVER6, 53,
                            Segment.OTHER, 0).session().ifPresent(s -> made.add(s.bib()));
                }
            });
            workers.add(w);
            w.start();
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        Set<TransportAddress> v4 = new HashSet<>();
        for (BibEntry b : store.bib()) {
            assertTrue(v4.add(b.v4()), "shared IPv4 transport address " + b.v4());
        }
        assertEquals(1000, store.bib().size(), "one BIB entry per flow, whichever instance set it up");
        assertEquals(new HashSet<>(store.bib()), new HashSet<>(made), "both instances answered with the stored entry");
    }
}
