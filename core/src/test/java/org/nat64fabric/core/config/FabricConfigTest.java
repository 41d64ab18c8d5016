package org.nat64fabric.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.nat64fabric.core.pool4.Protocol;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.fabric.SwitchConfig;

/** The config file as users write it: every error names the field by its path in their file. */
class FabricConfigTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String NAT = "apps.org.nat64fabric.app.nat64";
    private static final String GOOD = "{\"apps\": {\"org.nat64fabric.app\": {\"nat64\": {"
            + "\"pool6\": \"64:ff9b::/96\", \"pool4\": {\"addresses\": [\"192.0.2.0/30\"]},"
            + "\"eamt\": [{\"ipv6Prefix\": \"2001:db8:6::/120\", \"ipv4Prefix\": \"198.18.6.0/24\"}],"
            + "\"staticBib\": [{\"protocol\": \"TCP\", \"ipv6Address\": \"2001:db8::80\", \"ipv6Port\": 80,"
            + " \"ipv4Address\": \"192.0.2.1\", \"ipv4Port\": 8080}]}}},"
            + "\"devices\": {\"device:b1\": {\"nat64fabric\": {\"role\": \"BORDER\", \"routerMac\": \"00:00:00:00:b1:01\","
            + " \"ipv4\": \"198.51.100.1\", \"ipv6\": \"2001:db8:ff::1\", \"routes\": []}}}}";

    private static ObjectNode good() throws Exception {
        return (ObjectNode) MAPPER.readTree(GOOD);
    }

    private static ObjectNode nat(ObjectNode root) {
        return (ObjectNode) root.path("apps").path("org.nat64fabric.app").path("nat64");
    }

    private static ObjectNode device(ObjectNode root) {
        return (ObjectNode) root.path("devices").path("device:b1").path("nat64fabric");
    }

    /** The error of the config {@code change} makes to the good one. */
    private static ConfigException refused(Consumer<ObjectNode> change) throws Exception {
        ObjectNode root = good();
        change.accept(root);
        return assertThrows(ConfigException.class, () -> FabricConfig.parse(root));
    }

    /** A change that sets {@code puntPolicing} to the given JSON. */
    private static Consumer<ObjectNode> policing(String text) throws Exception {
        JsonNode p = json(text);
        return r -> nat(r).set("puntPolicing", p);
    }

    private static JsonNode json(String text) throws Exception {
        return MAPPER.readTree(text);
    }

    @Test
    void theGoodConfigIsReadWithDefaultMtu() throws Exception {
        FabricConfig c = FabricConfig.parse(good());
        assertEquals(1, c.staticBib.size());
        assertEquals(1500, c.devices.get("device:b1").config.mtu, "every port's IP MTU unless stated");
    }

    @Test
    void aSwitchMayNotTakeTheNameTheCountersGiveTheWholeFabric() throws Exception {
        ConfigException e = refused(r -> ((ObjectNode) r.path("devices")).set("fabric", r.path("devices").path("device:b1")));
        assertEquals("devices", e.field());
        assertTrue(e.getMessage().contains("names the whole fabric"), e.getMessage());
    }

    @Test
    void aDeviceIdThatIsNoUriIsRefusedShownWithItsControlCharactersEscaped() throws Exception {
        for (String id : List.of("device:x\ny", "device: b1", "device:b1\t")) {
            ConfigException e = refused(r -> ((ObjectNode) r.path("devices")).set(id,
                    r.path("devices").path("device:b1")));
            assertEquals("devices", e.field(), e.getMessage());
            assertTrue(e.getMessage().contains("is no device ID"), e.getMessage());
            assertFalse(e.getMessage().contains("\n") || e.getMessage().contains("\t"), "one line: " + e.getMessage());
        }
        ObjectNode root = good();
        ObjectNode devices = (ObjectNode) root.path("devices");
        devices.set("of:0000000000000001", devices.remove("device:b1"));
        assertEquals(List.of("of:0000000000000001"), List.copyOf(FabricConfig.parse(root).devices.keySet()),
                "any URI is an ID, as ONOS takes them");
    }

    @Test
    void puntPolicingHasDefaultsTakesAnyOfItsFieldsAndRefusesTheRestByPath() throws Exception {
        assertEquals(PuntPolicing.DEFAULTS, FabricConfig.parse(good()).nat64.puntPolicing);
        ObjectNode root = good();
        nat(root).set("puntPolicing", json("{\"perSourcePps\": 100, \"perPortBurst\": 1000}"));
        PuntPolicing p = FabricConfig.parse(root).nat64.puntPolicing;
        assertEquals(List.of(20_000L, 1000L, 100L, 250L),
                List.of(p.perPortPps, p.perPortBurst, p.perSourcePps, p.perSourceBurst));

        ConfigException e = refused(policing("{\"perSourcePPS\": 100}"));
        assertEquals(NAT + ".puntPolicing.perSourcePPS", e.field());
        assertTrue(e.getMessage().contains("did you mean 'perSourcePps'?"), e.getMessage());
        e = refused(policing("{\"perPortPps\": 0}"));
        assertEquals(NAT + ".puntPolicing.perPortPps", e.field());
        assertTrue(e.problem().contains("cut the controller off"), e.problem());
        e = refused(policing("{\"perSourceBurst\": 1.5}"));
        assertEquals(NAT + ".puntPolicing.perSourceBurst", e.field());
        e = refused(policing("{\"perPortBurst\": 100000001}"));
        assertEquals(NAT + ".puntPolicing.perPortBurst", e.field());
        e = refused(r -> nat(r).put("puntPolicing", 500));
        assertEquals(NAT + ".puntPolicing", e.field());
    }

    @Test
    void setupQueuesHaveDefaultsTakeEitherFieldAndRefuseTheRestByPath() throws Exception {
        SetupQueues d = FabricConfig.parse(good()).nat64.setupQueues;
        assertEquals(List.of(256, 65_536), List.of(d.perSubscriber, d.total));
        ObjectNode root = good();
        nat(root).set("setupQueues", json("{\"perSubscriber\": 32}"));
        SetupQueues q = FabricConfig.parse(root).nat64.setupQueues;
        assertEquals(List.of(32, 65_536), List.of(q.perSubscriber, q.total));

        nat(root).set("setupQueues", json("{\"total\": 100}"));
        q = FabricConfig.parse(root).nat64.setupQueues;
        assertEquals(List.of(100, 100), List.of(q.perSubscriber, q.total), "the default per subscriber, cut to the total");

        JsonNode overTotal = json("{\"perSubscriber\": 20, \"total\": 10}");
        ConfigException e = refused(r -> nat(r).set("setupQueues", overTotal));
        assertEquals(NAT + ".setupQueues.perSubscriber", e.field());
        JsonNode zero = json("{\"total\": 0}");
        e = refused(r -> nat(r).set("setupQueues", zero));
        assertEquals(NAT + ".setupQueues.total", e.field());
        JsonNode huge = json("{\"total\": 1048577}");
        e = refused(r -> nat(r).set("setupQueues", huge));
        assertEquals(NAT + ".setupQueues.total", e.field());
        JsonNode typo = json("{\"perSubscribers\": 5}");
        e = refused(r -> nat(r).set("setupQueues", typo));
        assertEquals(NAT + ".setupQueues.perSubscribers", e.field());
    }

    @Test
    void icmpErrorsHaveDefaultsTakeAnyOfTheirFieldsAndRefuseTheRestByPath() throws Exception {
        IcmpErrors d = FabricConfig.parse(good()).nat64.icmpErrors;
        assertEquals(List.of(1000L, 200L, true), List.of(d.perPortPps, d.perPortBurst, d.unmappedPortUnreachable));
        ObjectNode root = good();
        nat(root).set("icmpErrors", json("{\"perPortPps\": 50, \"unmappedPortUnreachable\": false}"));
        IcmpErrors e = FabricConfig.parse(root).nat64.icmpErrors;
        assertEquals(List.of(50L, 200L, false), List.of(e.perPortPps, e.perPortBurst, e.unmappedPortUnreachable));
        nat(root).set("icmpErrors", json("{\"perPortPps\": 0}"));
        IcmpErrors none = FabricConfig.parse(root).nat64.icmpErrors;
        assertEquals(List.of(0L, 0L, false), List.of(none.perPortPps, none.perPortBurst, none.sent()),
                "RFC 7915 4.4, 5.4: errors may be not sent; the burst goes with the rate");

        JsonNode bad = json("{\"unmappedPortUnreachable\": \"yes\"}");
        ConfigException x = refused(r -> nat(r).set("icmpErrors", bad));
        assertEquals(NAT + ".icmpErrors.unmappedPortUnreachable", x.field());
        JsonNode zero = json("{\"perPortBurst\": 0}");
        x = refused(r -> nat(r).set("icmpErrors", zero));
        assertEquals(NAT + ".icmpErrors.perPortBurst", x.field());
        JsonNode typo = json("{\"perPortPPS\": 10}");
        x = refused(r -> nat(r).set("icmpErrors", typo));
        assertEquals(NAT + ".icmpErrors.perPortPPS", x.field());

        assertTrue(d.rfc6791Pool().isEmpty(), "no RFC 6791 pool unless configured");
        nat(root).set("icmpErrors", json("{\"rfc6791Pool\": \"198.51.100.8/29\"}"));
        assertEquals("198.51.100.8/29", FabricConfig.parse(root).nat64.icmpErrors.rfc6791Pool().orElseThrow().toString());
        for (String pool : List.of("\"198.51.100.0/12\"", "\"127.0.0.0/29\"", "\"198.51.100.300/29\"", "29")) {
            JsonNode refusedPool = json("{\"rfc6791Pool\": " + pool + "}");
            x = refused(r -> nat(r).set("icmpErrors", refusedPool));
            assertEquals(NAT + ".icmpErrors.rfc6791Pool", x.field(), pool);
        }
    }

    @Test
    void ipfixNeedsACollectorAddressHasDefaultsAndRefusesTheRestByPath() throws Exception {
        assertTrue(FabricConfig.parse(good()).ipfix.isEmpty(), "no export unless configured");
        ObjectNode root = good();
        nat(root).set("ipfix", json("{\"collector\": \"2001:db8::99\"}"));
        IpfixConfig d = FabricConfig.parse(root).ipfix.orElseThrow();
        assertEquals("2001:db8:0:0:0:0:0:99", d.collector.getAddress().getHostAddress());
        assertEquals(List.of(4739, 1L, 600L), List.of(d.collector.getPort(), d.observationDomainId,
                d.templateRefreshSeconds), "IANA's IPFIX port, domain 1, RFC 6728's 600 s");
        nat(root).set("ipfix", json("{\"collector\": \"192.0.2.99\", \"port\": 2055,"
                + " \"observationDomainId\": 4294967295, \"templateRefreshSeconds\": 30}"));
        IpfixConfig c = FabricConfig.parse(root).ipfix.orElseThrow();
        assertEquals(List.of("192.0.2.99", 2055, 4294967295L, 30L), List.of(c.collector.getAddress().getHostAddress(),
                c.collector.getPort(), c.observationDomainId, c.templateRefreshSeconds));

        Map<String, String> bad = Map.of(
                "{\"port\": 4739}", "collector",
                "{\"collector\": \"collector.example\"}", "collector",
                "{\"collector\": \"192.0.2.99%eth0\"}", "collector",
                "{\"collector\": \"192.0.2.99\", \"port\": 0}", "port",
                "{\"collector\": \"192.0.2.99\", \"port\": 65536}", "port",
                "{\"collector\": \"192.0.2.99\", \"observationDomainId\": 4294967296}", "observationDomainId",
                "{\"collector\": \"192.0.2.99\", \"templateRefreshSeconds\": 0}", "templateRefreshSeconds",
                "{\"collector\": \"192.0.2.99\", \"templateRefresh\": 60}", "templateRefresh",
                "\"192.0.2.99\"", "");
        for (Map.Entry<String, String> b : bad.entrySet()) {
            JsonNode section = json(b.getKey());
            ConfigException e = refused(r -> nat(r).set("ipfix", section));
            assertEquals(NAT + ".ipfix" + (b.getValue().isEmpty() ? "" : "." + b.getValue()), e.field(), b.getKey());
        }
    }

    @Test
    void udpWithoutChecksumIsComputedUnlessTheConfigSaysDrop() throws Exception {
        assertTrue(FabricConfig.parse(good()).nat64.computeUdpZeroChecksum, "RFC 6146 3.4: compute by default");
        ObjectNode root = good();
        nat(root).put("udpZeroChecksum", "drop");
        assertEquals(false, FabricConfig.parse(root).nat64.computeUdpZeroChecksum);
        ConfigException x = refused(r -> nat(r).put("udpZeroChecksum", "amend"));
        assertEquals(NAT + ".udpZeroChecksum", x.field());
        assertTrue(x.problem().contains("'amend'"), x.problem());
        x = refused(r -> nat(r).put("udpZeroChecksum", true));
        assertEquals(NAT + ".udpZeroChecksum", x.field());
    }

    @Test
    void externallyInitiatedTcpIsAllowedAndUnmappedSynsHeldUnlessTheConfigSaysDrop() throws Exception {
        Nat64Config defaults = FabricConfig.parse(good()).nat64;
        assertEquals(false, defaults.dropExternallyInitiatedTcp, "RFC 6146 3.5.2.2, RFC 5382 REQ-4: held by default");
        assertEquals(1024, defaults.maxHeldSyns);
        assertEquals(false, defaults.filters(Protocol.TCP));
        ObjectNode root = good();
        nat(root).put("externallyInitiatedTcp", "drop").put("maxHeldSyns", 0);
        Nat64Config dropping = FabricConfig.parse(root).nat64;
        assertEquals(true, dropping.dropExternallyInitiatedTcp);
        assertEquals(0, dropping.maxHeldSyns);
        assertEquals(List.of(true, false), List.of(dropping.filters(Protocol.TCP), dropping.filters(Protocol.UDP)),
                "TCP is let in only from remotes a mapping has sent to; UDP stays endpoint-independent");
        ConfigException x = refused(r -> nat(r).put("externallyInitiatedTcp", "hold"));
        assertEquals(NAT + ".externallyInitiatedTcp", x.field());
        assertTrue(x.problem().contains("'hold'"), x.problem());
        x = refused(r -> nat(r).put("maxHeldSyns", -1));
        assertEquals(NAT + ".maxHeldSyns", x.field());
        x = refused(r -> nat(r).put("maxHeldSyns", 2_000_000));
        assertEquals(NAT + ".maxHeldSyns", x.field());
    }

    @Test
    void siitPrefixesAreGlobalUnicastOutsidePool4AndNamedByPathWhenNot() throws Exception {
        ObjectNode root = good();
        assertTrue(FabricConfig.parse(root).nat64.siitPrefixes.isEmpty(), "no stateless SIIT unless configured");
        JsonNode documentation = json("[\"198.51.100.0/28\"]");
        ConfigException wellKnown = refused(r -> nat(r).set("siitPrefixes", documentation));
        assertTrue(wellKnown.problem().contains("RFC 6052 3.1"), wellKnown.problem());
        nat(root).put("pool6", "2001:db8:64::/96").set("siitPrefixes", documentation);
        assertEquals("[198.51.100.0/28]", FabricConfig.parse(root).nat64.siitPrefixes.toString());
        for (String bad : List.of("[\"127.0.0.0/8\"]", "[\"198.51.100.0/28\", 7]", "[\"198.51.100.1/28\"]")) {
            JsonNode list = json(bad);
            ConfigException x = refused(r -> nat(r).put("pool6", "2001:db8:64::/96").set("siitPrefixes", list));
            assertTrue(x.field().startsWith(NAT + ".siitPrefixes["), bad + ": " + x.field());
        }
        String pool4 = FabricConfig.parse(good()).nat64.pool4.addresses().get(0).toString();
        JsonNode overlapping = json("[\"" + pool4 + "\"]");
        ConfigException x = refused(r -> nat(r).put("pool6", "2001:db8:64::/96").set("siitPrefixes", overlapping));
        assertEquals(NAT + ".siitPrefixes[0]", x.field());
        assertTrue(x.problem().contains("pool4"), x.problem());
        // an EAM may not take a SIIT prefix's hosts, which live at their pool6 addresses
        JsonNode eam = json("[{\"ipv6Prefix\": \"2001:db8:113::/124\", \"ipv4Prefix\": \"198.51.100.0/28\"}]");
        ConfigException taken = refused(r -> nat(r).put("pool6", "2001:db8:64::/96").<ObjectNode>set("siitPrefixes", documentation)
                .set("eamt", eam));
        assertEquals(NAT + ".eamt[0].ipv4Prefix", taken.field());
        assertTrue(taken.problem().contains("overlaps siitPrefixes[0]"), taken.problem());
    }

    @Test
    void switchesAndStaticEntriesThatCouldNotServeAreRefusedNamingTheField() throws Exception {
        String dev = "devices.device:b1";
        Object[][] cases = {
            {(Consumer<ObjectNode>) r -> device(r).put("routerMac", "01:00:5e:00:00:01"), dev + ".nat64fabric.routerMac", "multicast"},
            {(Consumer<ObjectNode>) r -> device(r).put("routerMac", "00:00:00:00:00:00"), dev + ".nat64fabric.routerMac", "zero"},
            {(Consumer<ObjectNode>) r -> device(r).put("ipv4", "255.255.255.255"), dev + ".nat64fabric.ipv4", "broadcast"},
            {(Consumer<ObjectNode>) r -> device(r).put("ipv4", "169.254.0.1"), dev + ".nat64fabric.ipv4", "link-local"},
            {(Consumer<ObjectNode>) r -> device(r).put("ipv6", "fe80::1"), dev + ".nat64fabric.ipv6", "link-local"},
            {(Consumer<ObjectNode>) r -> device(r).put("ipv6", "64:ff9b::c633:6401"), dev + ".nat64fabric.ipv6", "inside pool6"},
            {(Consumer<ObjectNode>) r -> device(r).set("routes", jsonOf("[{\"prefix\": \"2001:db8:1::/64\", \"port\": 1,"
                    + " \"nextHopMac\": \"00:00:00:00:01:10\"}, {\"prefix\": \"2001:db8:1::/64\", \"action\": \"no_route\"}]")),
                dev + ".nat64fabric.routes[1].prefix", "routes[0]'s prefix too"},
            {(Consumer<ObjectNode>) r -> nat(r).putObject("icmpErrors").put("rfc6791Pool", "192.0.2.0/30"),
                NAT + ".icmpErrors.rfc6791Pool", "overlaps pool4"},
            {(Consumer<ObjectNode>) r -> ((com.fasterxml.jackson.databind.node.ArrayNode) nat(r).path("staticBib"))
                .add(nat(r).path("staticBib").get(0).deepCopy()), NAT + ".staticBib[1]", "staticBib[0] again"},
        };
        for (Object[] c : cases) {
            @SuppressWarnings("unchecked")
            ConfigException x = refused((Consumer<ObjectNode>) c[0]);
            assertEquals(c[1], x.field(), x.getMessage());
            assertTrue(x.problem().contains((String) c[2]), x.problem());
        }
        ConfigException twice = refused(r -> {
            ((ObjectNode) r.path("devices")).set("device:b2", r.path("devices").path("device:b1").deepCopy());
            ((ObjectNode) r.path("devices").path("device:b2").path("nat64fabric")).put("routerMac", "00:00:00:00:b2:01")
                    .put("ipv4", "198.51.100.2").put("ipv6", "2001:db8:ff::2");
            // one switch, written two ways: device_id 1 is the default, and a host name's case means nothing
            ((ObjectNode) r.path("devices").path("device:b1")).putObject("basic").put("managementAddress", "grpc://LocalHost:50001?device_id=1");
            ((ObjectNode) r.path("devices").path("device:b2")).putObject("basic").put("managementAddress", "grpc://localhost:50001");
        });
        assertEquals("devices.device:b2.basic.managementAddress", twice.field());
    }

    private static JsonNode jsonOf(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void theLowestIpv6MtuIs1280UnlessSetAndNeverBelow() throws Exception {
        assertEquals(1280, FabricConfig.parse(good()).nat64.lowestIpv6Mtu);
        ObjectNode root = good();
        nat(root).put("lowestIpv6Mtu", 1500);
        assertEquals(1500, FabricConfig.parse(root).nat64.lowestIpv6Mtu);
        for (int bad : new int[] {1279, 70000}) {
            ConfigException x = refused(r -> nat(r).put("lowestIpv6Mtu", bad));
            assertEquals(NAT + ".lowestIpv6Mtu", x.field(), String.valueOf(bad));
        }
    }

    @Test
    void trafficClassAndTosAreCopiedUnlessSetAndATosIsAnOctet() throws Exception {
        Nat64Config defaults = FabricConfig.parse(good()).nat64;
        assertEquals(List.of(false, -1), List.of(defaults.zeroTrafficClass, defaults.ipv4Tos));
        ObjectNode root = good();
        nat(root).put("zeroTrafficClass", true).put("ipv4Tos", 0);
        Nat64Config set = FabricConfig.parse(root).nat64;
        assertEquals(List.of(true, 0), List.of(set.zeroTrafficClass, set.ipv4Tos));
        for (String bad : List.of("256", "-1", "\"af11\"")) {
            JsonNode value = json(bad);
            ConfigException x = refused(r -> nat(r).set("ipv4Tos", value));
            assertEquals(NAT + ".ipv4Tos", x.field(), bad);
        }
        assertEquals(NAT + ".zeroTrafficClass", refused(r -> nat(r).put("zeroTrafficClass", "yes")).field());
    }

    @Test
    void misspeltFieldsAreRefusedWithTheirRightSpelling() throws Exception {
        ConfigException e = refused(r -> ((ObjectNode) nat(r).path("pool4")).put("blocksize", 64));
        assertEquals(NAT + ".pool4.blocksize", e.field());
        assertTrue(e.problem().contains("did you mean 'blockSize'?"), e.problem());
        e = refused(r -> nat(r).put("pool7", "x"));
        assertEquals(NAT + ".pool7", e.field());
        assertTrue(e.problem().contains("'pool6'"), e.problem());
        e = refused(r -> device(r).putObject("portMtu"));
        assertEquals("devices.device:b1.nat64fabric.portMtu", e.field());
        e = refused(r -> ((ObjectNode) nat(r).path("staticBib").get(0)).put("static", true));
        assertEquals(NAT + ".staticBib[0].static", e.field());
        e = refused(r -> r.putObject("device"));
        assertEquals("device", e.field());
        assertTrue(e.problem().contains("did you mean 'devices'? (the top level has apps, devices"), e.problem());
    }

    @Test
    void errorsNameThePathInTheUsersFile() throws Exception {
        assertEquals(NAT + ".pool4.tcpPorts", refused(r -> ((ObjectNode) nat(r).path("pool4")).putArray("tcpPorts")
                .add(5).add(1)).field());
        assertEquals(NAT + ".pool4.holdSeconds", refused(r -> ((ObjectNode) nat(r).path("pool4"))
                .put("holdSeconds", 5)).field());
        assertEquals(NAT + ".timeouts.udp", refused(r -> nat(r).putObject("timeouts").put("udp", 5)).field());
        assertEquals(NAT + ".timeouts.icmp", refused(r -> nat(r).putObject("timeouts").put("icmp", 30)).field());
        assertEquals(NAT + ".timeouts.belowRfcMinimums", refused(r -> nat(r).putObject("timeouts")
                .put("belowRfcMinimums", "yes")).field());
        assertEquals(NAT + ".maxSessionsPerSubscriber", refused(r -> nat(r).put("maxSessionsPerSubscriber", 0)).field());
        assertEquals(NAT + ".staticBib[0].ipv4Address", refused(r -> ((ObjectNode) nat(r).path("staticBib").get(0))
                .put("ipv4Address", "192.0.2.9")).field());
    }

    @Test
    void staticBibNeedsAHostOutsidePool6AndAPortInsideTheRange() throws Exception {
        for (String bad : new String[] {"::", "::1", "ff02::1", "fe80::1", "64:ff9b::c000:201"}) {
            ConfigException e = refused(r -> ((ObjectNode) nat(r).path("staticBib").get(0)).put("ipv6Address", bad));
            assertEquals(NAT + ".staticBib[0].ipv6Address", e.field(), bad);
        }
        ConfigException e = refused(r -> ((ObjectNode) nat(r).path("staticBib").get(0)).put("ipv4Port", 80));
        assertEquals(NAT + ".staticBib[0].ipv4Port", e.field());
        assertEquals("port 80 is outside the TCP range 1024–65535 (pool4.tcpPorts)", e.problem());
    }

    @Test
    void eamsMayNotMapReservedPoolOrSwitchAddresses() throws Exception {
        Map<String, String> bad = Map.of(
                "127.0.0.1/32", NAT + ".eamt[0].ipv4Prefix",
                "224.0.0.0/24", NAT + ".eamt[0].ipv4Prefix",
                "192.0.2.0/32", NAT + ".eamt[0].ipv4Prefix",          // pool4
                "198.51.100.1/32", NAT + ".eamt[0].ipv4Prefix");      // the switch's own address
        bad.forEach((v4, field) -> assertEquals(field, assertThrows(ConfigException.class, () -> {
            ObjectNode root = good();
            ((ObjectNode) nat(root).path("eamt").get(0)).put("ipv6Prefix", "2001:db8:7::/" + (96 + Integer.parseInt(v4.split("/")[1])))
                    .put("ipv4Prefix", v4);
            FabricConfig.parse(root);
        }).field(), v4));
        assertEquals(NAT + ".eamt[0].ipv6Prefix", refused(r -> ((ObjectNode) nat(r).path("eamt").get(0))
                .put("ipv6Prefix", "64:ff9b::/120")).field(), "pool6");
        assertEquals(NAT + ".eamt[0].ipv6Prefix", refused(r -> ((ObjectNode) nat(r).path("eamt").get(0))
                .put("ipv6Prefix", "2001:db8:ff::1/128").put("ipv4Prefix", "198.18.0.1/32")).field(), "switch");
        ConfigException twice = refused(r -> ((com.fasterxml.jackson.databind.node.ArrayNode) nat(r).path("eamt"))
                .addObject().put("ipv6Prefix", "2001:db8:6::/120").put("ipv4Prefix", "198.18.7.0/24"));
        assertEquals(NAT + ".eamt[1].ipv6Prefix", twice.field());
    }

    @Test
    void addressesTakeAsciiDigitsAndNoZone() throws Exception {
        assertEquals(NAT + ".staticBib[0].ipv6Address", refused(r -> ((ObjectNode) nat(r).path("staticBib").get(0))
                .put("ipv6Address", "fe80::1%eth0")).field());
        assertEquals(NAT + ".pool4.addresses[0]", refused(r -> ((ObjectNode) nat(r).path("pool4")).putArray("addresses")
                .add("１９２.0.2.0/30")).field());
        assertEquals(NAT + ".pool4.addresses[0]", refused(r -> ((ObjectNode) nat(r).path("pool4")).putArray("addresses")
                .add("192.0.2.0/３０")).field());
    }

    @Test
    void numbersPast64BitsDoNotWrapAround() throws Exception {
        ObjectNode root = good();
        ((ObjectNode) nat(root).path("staticBib").get(0)).put("ipv4Port", new java.math.BigInteger("18446744073709559696"));
        assertEquals(NAT + ".staticBib[0].ipv4Port", assertThrows(ConfigException.class,
                () -> FabricConfig.parse(root)).field());
    }

    @Test
    void mtusAreCheckedAndKeptPerPort() throws Exception {
        ObjectNode root = good();
        device(root).put("mtu", 9000).putObject("portMtus").put("3", 1400);
        FabricConfig c = FabricConfig.parse(root);
        assertEquals(9000, c.devices.get("device:b1").config.mtu);
        assertEquals(Map.of(3, 1400), c.devices.get("device:b1").config.portMtus);
        assertEquals("devices.device:b1.nat64fabric.mtu", refused(r -> device(r).put("mtu", 1000)).field());
        assertEquals("devices.device:b1.nat64fabric.portMtus.3",
                refused(r -> device(r).putObject("portMtus").put("3", 70000)).field());
        assertEquals("devices.device:b1.nat64fabric.portMtus.600",
                refused(r -> device(r).putObject("portMtus").put("600", 1500)).field());
    }

    @Test
    void anIpv4LinkMayBeSmallerThanIpv6AllowsButCarriesNoIpv6() throws Exception {
        ObjectNode root = good();
        device(root).putObject("portMtus").put("2", 576);
        ArrayNode routes = device(root).putArray("routes");
        routes.addObject().put("prefix", "198.51.100.0/24").put("port", 2).put("nextHopMac", "00:00:00:00:00:02");
        routes.addObject().put("prefix", "2001:db8:1::/64").put("port", 1).put("nextHopMac", "00:00:00:00:00:01");
        SwitchConfig sw = FabricConfig.parse(root).devices.get("device:b1").config;
        assertEquals(576, sw.mtuOf(2));
        assertEquals(1500, sw.mtuOf(1));
        assertEquals(576, sw.mtuToward("198.51.100.7"));
        assertEquals(1500, sw.mtuToward("2001:db8:1::7"), "IPv6 fragments fit their own route's link");
        assertEquals(1500, sw.mtuToward("203.0.113.1"), "no route: the switch's MTU");
        assertEquals("devices.device:b1.nat64fabric.portMtus.2",
                refused(r -> device(r).putObject("portMtus").put("2", 575)).field(), "576 at least");
        ConfigException ipv6Through = refused(r -> {
            device(r).putObject("portMtus").put("2", 1000);
            device(r).putArray("routes").addObject().put("prefix", "2001:db8:2::/64").put("port", 2)
                    .put("nextHopMac", "00:00:00:00:00:02");
        });
        assertEquals("devices.device:b1.nat64fabric.routes[0].port", ipv6Through.field());
        assertTrue(ipv6Through.getMessage().contains("below IPv6's minimum of 1280"), ipv6Through.getMessage());
    }

    @Test
    void strictJsonRefusesDuplicateKeysDeepNestingAndTrailingContent() {
        ConfigException dup = assertThrows(ConfigException.class,
                () -> Json.parse("{\"a\": 1, \"a\": 2}".getBytes(StandardCharsets.UTF_8), "f.json"));
        assertEquals("f.json", dup.field());
        assertTrue(dup.problem().contains("Duplicate field 'a'"), dup.problem());
        byte[] deep = "[".repeat(100_000).getBytes(StandardCharsets.UTF_8);
        assertTrue(assertThrows(ConfigException.class, () -> Json.parse(deep, "body")).problem().contains("deeper"));
        assertThrows(ConfigException.class, () -> Json.parse("{} {}".getBytes(StandardCharsets.UTF_8), "body"));
        byte[] token = ("{\"a\": " + "x".repeat(1_000_000) + "}").getBytes(StandardCharsets.UTF_8);
        assertTrue(assertThrows(ConfigException.class, () -> Json.parse(token, "body")).problem().length() < 300,
                "a bad token is not echoed whole");
    }

    @Test
    void errorsQuoteOnlyAShortPrefix() throws Exception {
        ConfigException e = assertThrows(ConfigException.class,
                () -> FabricConfig.staticBib(json("{\"protocol\": \"" + "T".repeat(100_000) + "\"}"), "bib"));
        assertEquals("bib.protocol", e.field());
        assertTrue(e.problem().length() < 200, e.problem());
    }

    /** The good config with a second switch, device:e1, and these links (JSON of the links object). */
    private static ObjectNode withLinks(String links) throws Exception {
        ObjectNode root = good();
        ((ObjectNode) root.path("devices")).set("device:e1", json("{\"nat64fabric\": {\"role\": \"EDGE\","
                + " \"routerMac\": \"00:00:00:00:e1:01\"}}"));
        root.set("links", json(links));
        return root;
    }

    private static ConfigException refusedLinks(String links) throws Exception {
        ObjectNode root = withLinks(links);
        return assertThrows(ConfigException.class, () -> FabricConfig.parse(root));
    }

    @Test
    void linksAreReadAsOnosNetcfgHasThem() throws Exception {
        assertEquals(List.of(), FabricConfig.parse(good()).links);
        FabricConfig c = FabricConfig.parse(withLinks("{\"device:e1/2-device:b1/1\": {\"basic\": {}},"
                + " \"device:b1/4-device:e1/7\": {\"basic\": {\"type\": \"optical\", \"bidirectional\": false,"
                + " \"durable\": true, \"metric\": 10, \"latency\": 2000, \"bandwidth\": 10000, \"loss\": 0.5}},"
                + " \"device:e1/3-device:b1/3\": {\"basic\": {\"allowed\": false}},"
                + " \"device:e1/5-device:b1/5\": {\"someOtherApp\": {}}}"));
        assertEquals(2, c.links.size(), "a link barred (allowed: false) or without basic is none");
        FabricConfig.Link first = c.links.get(0);
        assertEquals(List.of("device:e1", 2, "device:b1", 1, "DIRECT", true),
                List.of(first.srcDevice, first.srcPort, first.dstDevice, first.dstPort, first.type, first.bidirectional));
        FabricConfig.Link second = c.links.get(1);
        assertEquals(List.of("device:b1", 4, "device:e1", 7, "OPTICAL", false), List.of(second.srcDevice,
                second.srcPort, second.dstDevice, second.dstPort, second.type, second.bidirectional));
    }

    @Test
    void badLinksAreRefusedNamingTheField() throws Exception {
        ConfigException e = refusedLinks("{\"device:e1/2-device:x9/1\": {\"basic\": {}}}");
        assertEquals("links.device:e1/2-device:x9/1", e.field());
        assertTrue(e.problem().contains("'device:x9' is not a switch of the fabric"), e.problem());
        e = refusedLinks("{\"device:e1/2-device:b1/511\": {\"basic\": {}}}");
        assertEquals("links.device:e1/2-device:b1/511", e.field());
        assertTrue(e.problem().contains("'511'") && e.problem().contains("0-510"), e.problem());
        e = refusedLinks("{\"device:e1/x-device:b1/1\": {\"basic\": {}}}");
        assertTrue(e.problem().contains("is not a data-plane port number"), e.problem());
        e = refusedLinks("{\"device:e1-device:b1/1\": {\"basic\": {}}}");
        assertTrue(e.problem().contains("'device:e1' is not a link end: DEVICE/PORT"), e.problem());
        e = refusedLinks("{\"device:e1/2\": {\"basic\": {}}}");
        assertTrue(e.problem().contains("DEVICE/PORT-DEVICE/PORT"), e.problem());
        e = refusedLinks("{\"device:e1/2-device:e1/2\": {\"basic\": {}}}");
        assertTrue(e.problem().contains("a link joins two ports"), e.problem());
        assertEquals("links.device:e1/2-device:b1/1.basic.bidirectional",
                refusedLinks("{\"device:e1/2-device:b1/1\": {\"basic\": {\"bidirectional\": \"yes\"}}}").field());
        assertEquals("links.device:e1/2-device:b1/1.basic.type",
                refusedLinks("{\"device:e1/2-device:b1/1\": {\"basic\": {\"type\": \"WIRELESS\"}}}").field());
        assertEquals("links.device:e1/2-device:b1/1.basic.bandwidth",
                refusedLinks("{\"device:e1/2-device:b1/1\": {\"basic\": {\"bandwidth\": \"10G\"}}}").field());
        e = refusedLinks("{\"device:e1/2-device:b1/1\": {\"basic\": {\"bidirectionnal\": true}}}");
        assertEquals("links.device:e1/2-device:b1/1.basic.bidirectionnal", e.field());
        assertTrue(e.problem().contains("did you mean 'bidirectional'?"), e.problem());
        assertEquals("links.device:e1/2-device:b1/1.basic",
                refusedLinks("{\"device:e1/2-device:b1/1\": {\"basic\": []}}").field());
        assertEquals("links", refusedLinks("[]").field());
    }
}
