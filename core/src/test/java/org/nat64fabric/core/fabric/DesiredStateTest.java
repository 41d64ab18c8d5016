package org.nat64fabric.core.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.core.p4.P4InfoConstants.*;

import java.math.BigInteger;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.IcmpErrors;
import org.nat64fabric.core.config.Nat64Config;
import org.nat64fabric.core.config.PuntPolicing;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.pool4.Pool4Config;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.pool6.Pool6;
import org.nat64fabric.core.session.BibEntry;

class DesiredStateTest {
    private static final Nat64Config CONFIG = Nat64Config.builder().pool6(Pool6.of(Pool6.WELL_KNOWN, "pool6"))
            .pool4(Pool4Config.builder().addresses(List.of(Ipv4Prefix.parse("192.0.2.0/24", "p"))).build()).build();
    private static final BibEntry BIB = new BibEntry(Protocol.UDP, Ipv6Address.parse("2001:db8:1::5", "h"), 5353,
            new TransportAddress(Ipv4Address.parse("192.0.2.7", "a"), 40001), false);
    private static final Eam EAM = Eam.parse("2001:db8:1::e00/120", "203.0.113.0/24", "eam");

    private static SwitchConfig sw(SwitchConfig.Role role) {
        return new SwitchConfig("device:" + role, role, 0x0000000000aaL, Ipv4Address.parse("192.0.2.254", "a"),
                Ipv6Address.parse("2001:db8::1", "a"),
                List.of(Route.nextHop("2001:db8:1::/64", 1, 0xaa, 0xbb, "routes[0]"),
                        Route.nextHop("198.51.100.0/24", 2, 0xaa, 0xcc, "routes[1]")),
                9000, Map.of(2, 1400));
    }

    private static List<TableEntry> in(List<? extends Entity> entities, String table) {
        return tables(entities).stream().filter(e -> e.table().equals(table)).collect(Collectors.toList());
    }

    private static List<TableEntry> tables(List<? extends Entity> entities) {
        return entities.stream().filter(e -> e instanceof TableEntry).map(e -> (TableEntry) e)
                .collect(Collectors.toList());
    }

    @Test
    void entryValuesUpTo128BitsKeepTheirValueBytesAndHexAndWiderOnesAreRefused() {
        java.util.Random random = new java.util.Random(1);
        List<BigInteger> values = new java.util.ArrayList<>();
        for (int bits : new int[] {0, 1, 8, 32, 63, 64, 65, 96, 127, 128, 129}) {
            BigInteger top = BigInteger.ONE.shiftLeft(bits);
            values.addAll(List.of(top, top.subtract(BigInteger.ONE), top.add(BigInteger.ONE),
                    new BigInteger(bits, random)));
        }
        values.add(BigInteger.valueOf(-5));
        for (BigInteger v : values) {
            if (v.signum() < 0 || v.bitLength() > 128) {
                assertThrows(IllegalArgumentException.class, () -> TableEntry.in("t").exact("f", v), v.toString());
                continue;
            }
            TableEntry e = TableEntry.in("t").exact("f", v).action("a").param("p", v).build();
            byte[] raw = v.toByteArray();
            byte[] canonical = raw.length > 1 && raw[0] == 0 ? java.util.Arrays.copyOfRange(raw, 1, raw.length) : raw;
            assertEquals(v, e.matches().get(0).value(), v.toString());
            assertEquals(v, e.params().get("p"), v.toString());
            assertArrayEquals(canonical, e.matches().get(0).bytes(), v.toString());
            assertArrayEquals(canonical, e.paramBytes("p"), v.toString());
            assertEquals("t [f=" + v.toString(16) + "]", e.key().toString());
            assertEquals("t [f=" + v.toString(16) + "] -> a(p=" + v.toString(16) + ")", e.toString());
        }
    }

    @Test
    void everyPortHasTheSwitchMtuAsDefaultAndOverridesPerPort() {
        List<TableEntry> mtu = in(DesiredState.routing(sw(SwitchConfig.Role.EDGE)), NAT64_INGRESS_EGRESS_MTU);
        TableEntry all = TableEntry.in(NAT64_INGRESS_EGRESS_MTU).action(NAT64_INGRESS_SET_MTU).param(MTU, 9000).build();
        TableEntry port2 = TableEntry.in(NAT64_INGRESS_EGRESS_MTU).exact(HDR_PORT, 2).action(NAT64_INGRESS_SET_MTU)
                .param(MTU, 1400).build();
        assertEquals(List.of(all, port2), mtu);
        assertTrue(all.isDefault(), "the switch's MTU is the table's default action: it covers every port");
        // The same MTUs by ingress port, for translated Packet Too Big / Fragmentation Needed.
        assertEquals(List.of(
                TableEntry.in(NAT64_INGRESS_INGRESS_MTU).action(NAT64_INGRESS_SET_INGRESS_MTU).param(MTU, 9000).build(),
                TableEntry.in(NAT64_INGRESS_INGRESS_MTU).exact(HDR_PORT, 2).action(NAT64_INGRESS_SET_INGRESS_MTU)
                        .param(MTU, 1400).build()),
                in(DesiredState.routing(sw(SwitchConfig.Role.EDGE)), NAT64_INGRESS_INGRESS_MTU));
    }

    @Test
    void bordersTranslateAndHoldEverySessionEdgesOnlyRoute() {
        List<TableEntry> border = tables(DesiredState.of(sw(SwitchConfig.Role.BORDER), CONFIG, List.of(EAM),
                List.of(new SessionEntries(BIB, 300, CONFIG.addressDependentFiltering, false)),  List.of()));
        List<TableEntry> edge = tables(DesiredState.of(sw(SwitchConfig.Role.EDGE), CONFIG, List.of(EAM), List.of(new SessionEntries(BIB, 300, CONFIG.addressDependentFiltering, false)),
                 List.of()));
        assertEquals(Set.of(NAT64_INGRESS_LOCAL_HOST_LOCAL_IPV4, NAT64_INGRESS_LOCAL_HOST_LOCAL_IPV6,
                NAT64_INGRESS_ICMP_ERROR_ICMP_SOURCE, NAT64_INGRESS_IPV6_ROUTES, NAT64_INGRESS_IPV4_ROUTES,
                NAT64_INGRESS_EGRESS_MTU, NAT64_INGRESS_INGRESS_MTU, NAT64_INGRESS_PUNT_SUBSCRIBER), edge.stream().map(TableEntry::table).collect(Collectors.toSet()));
        assertTrue(border.containsAll(edge), "a border routes like an edge");
        TableEntry v4 = in(border, NAT64_INGRESS_TRANSLATE_SESSION_V4).get(0);
        assertEquals(List.of(BigInteger.valueOf(17), BigInteger.valueOf(0xc0000207L), BigInteger.valueOf(40001)),
                v4.matches().stream().map(m -> m.value()).collect(Collectors.toList()));
        assertEquals(NAT64_INGRESS_TRANSLATE_DNAT, v4.action());
        assertEquals(new BigInteger("20010db8000100000000000000000005", 16), v4.params().get(DST6));
        assertEquals(300, v4.idleTimeoutSeconds());
        assertEquals(6, border.stream().filter(e -> e.table().contains("eamt_") && e.action().contains(".eam_")).count(),
                "one EAM, four tables and the two for the sources of ICMP errors");
        // The keyless tables' defaults are written off too: a switch that kept them from another
        // setting follows this one.
        SwitchConfig noIpv6 = new SwitchConfig("device:v4only", SwitchConfig.Role.EDGE, 0xaaL,
                Ipv4Address.parse("192.0.2.254", "a"), null, List.of(), 1500, Map.of());
        assertEquals(List.of(TableEntry.in(NAT64_INGRESS_ICMP_ERROR_ICMP_SOURCE).action(NO_ACTION).build()),
                in(DesiredState.routing(noIpv6), NAT64_INGRESS_ICMP_ERROR_ICMP_SOURCE), "no errors without both addresses");
        SwitchConfig noIpv4 = new SwitchConfig("device:v6only", SwitchConfig.Role.BORDER, 0xaaL, null,
                Ipv6Address.parse("2001:db8::1", "a"), List.of(), 1500, Map.of());
        assertEquals(TableEntry.in(NAT64_INGRESS_TRANSLATE_RFC6791_POOL).action(NO_ACTION).build(),
                DesiredState.rfc6791Pool(noIpv4, CONFIG.icmpErrors), "no RFC 6791 pool, no address of its own");
        assertEquals(List.of(TableEntry.in(NAT64_INGRESS_TRANSLATE_UDP_ZERO_CHECKSUM).action(NO_ACTION).build()),
                in(border, NAT64_INGRESS_TRANSLATE_UDP_ZERO_CHECKSUM), "UDP without checksum: computed");
        assertEquals(List.of(TableEntry.in(NAT64_INGRESS_TRANSLATE_INBOUND_SYN).action(NAT64_INGRESS_TRANSLATE_HOLD_INBOUND_SYNS)
                .build()), in(border, NAT64_INGRESS_TRANSLATE_INBOUND_SYN), "SYNs without a mapping: held");
        assertEquals(List.of(new MeterConfig(NAT64_INGRESS_INBOUND_SYN_METER, 86, 512, 86, 512)),
                DesiredState.of(sw(SwitchConfig.Role.BORDER), CONFIG, List.of(), List.of(), List.of()).stream()
                        .filter(e -> e instanceof MeterConfig && ((MeterConfig) e).meter.equals(NAT64_INGRESS_INBOUND_SYN_METER))
                        .collect(Collectors.toList()), "1024 held SYNs: a burst of 512, the other 512 over 6 s");
        Nat64Config noSyns = Nat64Config.builder().pool6(CONFIG.pool6).pool4(CONFIG.pool4)
                .dropExternallyInitiatedTcp(true).build();
        assertEquals(List.of(TableEntry.in(NAT64_INGRESS_TRANSLATE_INBOUND_SYN).action(NAT64_INGRESS_TRANSLATE_CHECK_INBOUND_SYNS)
                .build()), in(DesiredState.translation(noSyns, List.of()), NAT64_INGRESS_TRANSLATE_INBOUND_SYN),
                "dropped, but for those the address filter lets in: the controller checks them");
        Nat64Config noneHeld = Nat64Config.builder().pool6(CONFIG.pool6).pool4(CONFIG.pool4).maxHeldSyns(0).build();
        assertEquals(List.of(TableEntry.in(NAT64_INGRESS_TRANSLATE_INBOUND_SYN).action(NO_ACTION).build()),
                in(DesiredState.translation(noneHeld, List.of()), NAT64_INGRESS_TRANSLATE_INBOUND_SYN));
        assertEquals(List.of(TableEntry.in(NAT64_INGRESS_LOWEST_IPV6_MTU).action(NAT64_INGRESS_SET_LOWEST_IPV6_MTU)
                .param(MTU, 1280).build()), in(border, NAT64_INGRESS_LOWEST_IPV6_MTU));
        Nat64Config dropping = Nat64Config.builder().pool6(CONFIG.pool6).pool4(CONFIG.pool4)
                .computeUdpZeroChecksum(false).build();
        assertEquals(List.of(TableEntry.in(NAT64_INGRESS_TRANSLATE_UDP_ZERO_CHECKSUM)
                .action(NAT64_INGRESS_TRANSLATE_DROP_UDP_WITHOUT_CHECKSUM).build()),
                in(DesiredState.translation(dropping, List.of()), NAT64_INGRESS_TRANSLATE_UDP_ZERO_CHECKSUM));
        assertEquals(1, in(border, NAT64_INGRESS_TRANSLATE_POOL4).size());
        assertEquals(List.of(TableEntry.in(NAT64_INGRESS_REWRITE_TRAFFIC_CLASS).action(NAT64_INGRESS_REWRITE_CLASS_AND_TOS)
                .param(ZERO_CLASS, 0).param(FIX_TOS, 0).param(TOS_VALUE, 0).build()),
                in(border, NAT64_INGRESS_REWRITE_TRAFFIC_CLASS), "RFC 7915 4.1, 5.1: copied by default");
        Nat64Config classed = Nat64Config.builder().pool6(CONFIG.pool6).pool4(CONFIG.pool4).zeroTrafficClass(true)
                .ipv4Tos(0x28).build();
        assertEquals(List.of(TableEntry.in(NAT64_INGRESS_REWRITE_TRAFFIC_CLASS).action(NAT64_INGRESS_REWRITE_CLASS_AND_TOS)
                .param(ZERO_CLASS, 1).param(FIX_TOS, 1).param(TOS_VALUE, 0x28).build()),
                in(DesiredState.translation(classed, List.of()), NAT64_INGRESS_REWRITE_TRAFFIC_CLASS));
    }

    @Test
    void siitPrefixesAreTranslatedByPool6BothWays() {
        Nat64Config siit = Nat64Config.builder().pool6(Pool6.parse("2001:db8:64::/56", "pool6")).pool4(CONFIG.pool4)
                .siitPrefixes(List.of(Ipv4Prefix.parse("198.51.100.0/24", "p"))).build();
        List<TableEntry> t = DesiredState.translation(siit, List.of());
        // 198.51.100.0/24 in a /56 pool6: 8 bits, the u octet, then 16 bits: a /88; the rest of
        // pool6 stands for IPv4 hosts.
        BigInteger pool6 = new BigInteger("20010db8006400000000000000000000", 16);
        assertEquals(List.of(TableEntry.in(NAT64_INGRESS_TRANSLATE_POOL6_SRC).lpm(HDR_SRC_ADDR, pool6, 56)
                .action(NAT64_INGRESS_TRANSLATE_IPV4_HOST_SOURCE).build(), TableEntry.in(NAT64_INGRESS_TRANSLATE_POOL6_SRC)
                .lpm(HDR_SRC_ADDR, new BigInteger("20010db8006400c60033640000000000", 16), 88)
                .action(NAT64_INGRESS_TRANSLATE_EXTRACT_56).build()), in(t, NAT64_INGRESS_TRANSLATE_POOL6_SRC).stream()
                .filter(e -> !e.action().equals(NAT64_INGRESS_TRANSLATE_NOT_GLOBAL)).collect(Collectors.toList()));
        assertEquals(List.of(TableEntry.in(NAT64_INGRESS_TRANSLATE_EAMT_V6_ERROR_SRC)
                .lpm(HDR_IPV6_ADDR, new BigInteger("20010db8006400c60033640000000000", 16), 88)
                .action(NAT64_INGRESS_TRANSLATE_EXTRACT_56).build()), in(t, NAT64_INGRESS_TRANSLATE_EAMT_V6_ERROR_SRC),
                "a router numbered in a SIIT prefix keeps its IPv4 address as an error's source (RFC 6791 1)");
        assertEquals(List.of(TableEntry.in(NAT64_INGRESS_TRANSLATE_SIIT_V4_DST)
                .lpm(HDR_DST_ADDR, BigInteger.valueOf(0xc6336400L), 24).action(NAT64_INGRESS_TRANSLATE_EMBED_DST)
                .param(PREFIX, pool6).param(LENGTH, 56).build()),
                in(t, NAT64_INGRESS_TRANSLATE_SIIT_V4_DST));
        assertTrue(in(t, NAT64_INGRESS_IPV4_ROUTES).contains(TableEntry.in(NAT64_INGRESS_IPV4_ROUTES)
                .lpm(HDR_DST_ADDR, BigInteger.valueOf(0xc6336400L), 24).action(NAT64_INGRESS_HAIRPIN).build()),
                "IPv6 to a SIIT host hairpins, as to pool4");
        assertEquals(List.of(NAT64_INGRESS_TRANSLATE_IPV4_HOST_SOURCE), in(DesiredState.translation(CONFIG, List.of()),
                NAT64_INGRESS_TRANSLATE_POOL6_SRC).stream().map(TableEntry::action)
                .filter(a -> !a.equals(NAT64_INGRESS_TRANSLATE_NOT_GLOBAL)).collect(Collectors.toList()));
    }

    @Test
    void aDefaultRouteIsAnLpmEntryWithoutTheField() {
        // P4Runtime 9.1.1: a don't-care LPM match (length 0) is left out; a switch refuses it written
        TableEntry route = TableEntry.in(NAT64_INGRESS_IPV4_ROUTES).lpm(HDR_DST_ADDR, BigInteger.ZERO, 0)
                .action(NAT64_INGRESS_HAIRPIN).build();
        assertTrue(route.matches().isEmpty());
        assertEquals(1, TableEntry.in(NAT64_INGRESS_IPV4_ROUTES).lpm(HDR_DST_ADDR, BigInteger.ZERO, 1)
                .action(NAT64_INGRESS_HAIRPIN).build().matches().size());
    }

    @Test
    void addressesNoRouterForwardsAreNeitherTranslatedNorMapped() {
        // any pool6: IPv4 no router forwards, both ways (RFC 1812 5.3.7, RFC 3927, RFC 5771)
        Nat64Config nsp = Nat64Config.builder().pool6(Pool6.parse("2001:db8:64::/56", "pool6")).pool4(CONFIG.pool4).build();
        List<TableEntry> t = DesiredState.translation(nsp, List.of());
        TableEntry loopback = in(t, NAT64_INGRESS_TRANSLATE_POOL6).stream()
                .filter(e -> e.action().equals(NAT64_INGRESS_TRANSLATE_NOT_GLOBAL)
                        && e.matches().get(0).value().equals(new BigInteger("20010db80064007f0000000000000000", 16)))
                .findFirst().orElseThrow(() -> new AssertionError("no entry for 127.0.0.0/8 in a /56 pool6"));
        assertEquals(64, loopback.matches().get(0).prefixLength, "8 bits after the /56, before the u octet");
        assertEquals(Pool6.NEVER_FORWARDED.size(), in(t, NAT64_INGRESS_TRANSLATE_POOL6_EMBED).stream()
                .filter(e -> e.action().equals(NAT64_INGRESS_TRANSLATE_NOT_GLOBAL_SOURCE)).count());
        // IPv6 sources no router forwards make no mapping: dropped before the session lookup
        List<BigInteger> refused = in(t, NAT64_INGRESS_TRANSLATE_POOL6_SRC).stream()
                .filter(e -> e.action().equals(NAT64_INGRESS_TRANSLATE_NOT_GLOBAL))
                .map(e -> e.matches().get(0).value()).collect(Collectors.toList());
        assertTrue(refused.contains(new BigInteger("fe800000000000000000000000000000", 16)), "link-local");
        assertTrue(refused.contains(new BigInteger("ff000000000000000000000000000000", 16)), "multicast");
        assertTrue(refused.contains(BigInteger.ZERO), "unspecified and IPv4-compatible (::/96)");
    }

    @Test
    void theWellKnownPrefixRefusesEveryNonGlobalRangeBothWays() {
        List<TableEntry> t = DesiredState.translation(CONFIG, List.of());
        List<TableEntry> pool6 = in(t, NAT64_INGRESS_TRANSLATE_POOL6);
        assertEquals(1 + Pool6.NON_GLOBAL.size(), pool6.size());
        BigInteger tenNet = new BigInteger("0064ff9b00000000000000000a000000", 16);
        TableEntry ten = pool6.stream().filter(x -> x.matches().get(0).value().equals(tenNet)).findFirst()
                .orElseThrow(() -> new AssertionError("no entry for 10.0.0.0/8 under 64:ff9b::/96"));
        assertEquals(104, ten.matches().get(0).prefixLength);
        assertEquals(NAT64_INGRESS_TRANSLATE_NOT_GLOBAL, ten.action());
        assertEquals(Pool6.NON_GLOBAL.size(), in(t, NAT64_INGRESS_TRANSLATE_POOL6_EMBED).stream()
                .filter(e -> e.action().equals(NAT64_INGRESS_TRANSLATE_NOT_GLOBAL_SOURCE)).count());
        assertEquals(Pool6.NON_GLOBAL.size(), in(t, NAT64_INGRESS_TRANSLATE_NON_GLOBAL_ROUTER).size(),
                "nor an ICMPv4 error's router (RFC 6052 3.1)");
        Nat64Config nsp = Nat64Config.builder().pool6(Pool6.parse("2001:db8:64::/96", "pool6")).pool4(CONFIG.pool4).build();
        assertEquals(List.of(), in(DesiredState.translation(nsp, List.of()), NAT64_INGRESS_TRANSLATE_NON_GLOBAL_ROUTER),
                "under a network-specific prefix an illegal router is translated for troubleshooting (RFC 7915 4.1)");
    }

    @Test
    void anEntrysKeyIsItsTableAndMatchWhateverItsActionOrTimeout() {
        Ipv6Address host = Ipv6Address.of(0x20010db800000000L, 1);
        TableEntry entry = TableEntry.in("t").exact("a", host.high(), host.low()).exact("p", 80).action("x")
                .param("v", 1).build();
        TableEntry sameMatch = TableEntry.in("t").exact("a", host.high(), host.low()).exact("p", 80).action("y")
                .param("w", 2).idleTimeout(30).build();
        assertEquals(entry.key(), sameMatch.key());
        assertEquals(entry.key().hashCode(), sameMatch.key().hashCode());
        assertEquals("t [a=20010db8000000000000000000000001, p=50]", entry.key().toString());
        List<TableEntry> others = List.of(
                TableEntry.in("u").exact("a", host.high(), host.low()).exact("p", 80).action("x").build(),
                TableEntry.in("t").exact("a", host.high(), host.low() + 1).exact("p", 80).action("x").build(),
                TableEntry.in("t").exact("a", host.high() + 1, host.low()).exact("p", 80).action("x").build(),
                TableEntry.in("t").exact("a", host.high(), host.low()).exact("p", 81).action("x").build(),
                TableEntry.in("t").exact("a", host.high(), host.low()).exact("q", 80).action("x").build(),
                TableEntry.in("t").lpm("a", new BigInteger(1, host.toBytes()), 128).exact("p", 80).action("x").build(),
                TableEntry.in("t").action("x").build());
        for (TableEntry other : others) {
            assertFalse(entry.key().equals(other.key()), other.key() + " is not " + entry.key());
        }
        assertEquals("t default", TableEntry.in("t").action("x").build().key().toString());
    }

    @Test
    void everyEntryOfASwitchHasItsOwnKeySoReconciliationCanDiffThem() {
        List<Entity> border = DesiredState.of(sw(SwitchConfig.Role.BORDER), CONFIG, List.of(EAM), List.of(new SessionEntries(BIB, 300, CONFIG.addressDependentFiltering, false)),
                 List.of());
        Set<Object> keys = new HashSet<>();
        for (Entity e : border) {
            assertTrue(keys.add(e.key()), "two entries for " + e.key());
        }
    }

    @Test
    void everySwitchHoldsTheCpuCloneSessionAndThePuntMetersLimits() {
        Nat64Config limited = Nat64Config.builder().pool6(CONFIG.pool6).pool4(CONFIG.pool4)
                .puntPolicing(PuntPolicing.of(1000, 100, 50, 10)).build();
        for (SwitchConfig.Role role : SwitchConfig.Role.values()) {
            List<Entity> all = DesiredState.of(sw(role), limited, List.of(), List.of(), List.of());
            assertTrue(all.contains(new CloneSession(99, List.of(255))),
                    role + ": TCP control copies reach CPU port 255 through session 99");
            assertTrue(all.contains(new MeterConfig("Nat64Ingress.punt_port_meter", 1000, 100, 1000, 100)), role.name());
            assertTrue(all.contains(new MeterConfig("Nat64Ingress.punt_source_meter", 50, 10, 50, 10)), role.name());
            assertTrue(all.stream().filter(e -> e instanceof MeterConfig).allMatch(Entity::alwaysPresent),
                    "meter cells exist without the controller: written by MODIFY only");
        }
        List<Entity> defaults = DesiredState.of(sw(SwitchConfig.Role.EDGE), CONFIG, List.of(), List.of(),
                List.of());
        assertTrue(defaults.contains(new MeterConfig("Nat64Ingress.punt_port_meter", 20_000, 5_000, 20_000, 5_000)));
        assertTrue(defaults.contains(new MeterConfig("Nat64Ingress.punt_source_meter", 500, 250, 500, 250)));
    }

    @Test
    void everySwitchLimitsItsIcmpErrorsAndBordersAnswerUnmappedUdpAsConfigured() {
        Nat64Config quiet = Nat64Config.builder().pool6(CONFIG.pool6).pool4(CONFIG.pool4)
                .icmpErrors(IcmpErrors.of(10, 5, false, Optional.of(Ipv4Prefix.parse("198.51.100.8/29", "p")))).build();
        for (SwitchConfig.Role role : SwitchConfig.Role.values()) {
            assertTrue(DesiredState.of(sw(role), quiet, List.of(), List.of(), List.of())
                    .contains(new MeterConfig("Nat64Ingress.icmp_error.error_meter", 10, 5, 10, 5)), role.name());
        }
        for (Nat64Config c : List.of(CONFIG, quiet)) {
            List<TableEntry> pool4 = DesiredState.of(sw(SwitchConfig.Role.BORDER), c, List.of(), List.of(),
                    List.of()).stream().filter(e -> e instanceof TableEntry).map(e -> (TableEntry) e)
                    .filter(e -> e.table().equals(NAT64_INGRESS_TRANSLATE_POOL4)).collect(Collectors.toList());
            assertFalse(pool4.isEmpty());
            BigInteger expected = BigInteger.valueOf(c.icmpErrors.unmappedPortUnreachable ? 1 : 0);
            assertTrue(pool4.stream().allMatch(e -> e.params().get(UNMAPPED_PORT_UNREACHABLE).equals(expected)),
                    pool4.toString());
        }
        // RFC 6791: the pool's first address and size, the default action of a keyless table;
        // without a pool the switch's own IPv4 address (a pool of one), without that none.
        SwitchConfig border = sw(SwitchConfig.Role.BORDER);
        TableEntry pool = DesiredState.rfc6791Pool(border, quiet.icmpErrors);
        assertTrue(pool.isDefault());
        assertEquals(Map.of(FIRST, BigInteger.valueOf(0xc6336408L), COUNT, BigInteger.valueOf(8)), pool.params());
        assertEquals(Map.of(FIRST, BigInteger.valueOf(0xc00002feL), COUNT, BigInteger.ONE),
                DesiredState.rfc6791Pool(border, CONFIG.icmpErrors).params());
        assertEquals(1, DesiredState.of(border, CONFIG, List.of(), List.of(), List.of()).stream()
                .filter(e -> e instanceof TableEntry && ((TableEntry) e).table().equals(NAT64_INGRESS_TRANSLATE_RFC6791_POOL))
                .count());
    }

    @Test
    void theSourceMeterCountsTheSubscribersPrefixNotTheHost() {
        BigInteger slash56 = new BigInteger("ffffffffffffff000000000000000000", 16);
        List<TableEntry> subscriber = in(DesiredState.punting(PuntPolicing.DEFAULTS, 56), NAT64_INGRESS_PUNT_SUBSCRIBER);
        assertEquals(1, subscriber.size());
        assertTrue(subscriber.get(0).isDefault(), "a keyless table: its default action holds the mask");
        assertEquals(slash56, subscriber.get(0).params().get(MASK));
        BigInteger all = BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE);
        assertEquals(all, in(DesiredState.punting(PuntPolicing.DEFAULTS, 128), NAT64_INGRESS_PUNT_SUBSCRIBER)
                .get(0).params().get(MASK));
    }

    @Test
    void badRoutesNameTheField() {
        assertEquals("routes[3].port", org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> Route.nextHop("10.0.0.0/8", 999, 0, 0, "routes[3]")).field());
        assertEquals("routes[0].prefix", org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> Route.of("10.0.0.1/8", Route.Kind.NO_ROUTE, "routes[0]")).field());
        assertEquals("sw.mac", org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> Route.mac("00:11:22:33:44", "sw.mac")).field());
    }
}
