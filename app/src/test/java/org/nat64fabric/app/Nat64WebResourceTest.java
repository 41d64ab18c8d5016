package org.nat64fabric.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import javax.ws.rs.client.Entity;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.nat64fabric.app.rest.Nat64WebApplication;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.p4.Constants;
import org.nat64fabric.core.p4.P4InfoConstants;
import org.glassfish.jersey.test.JerseyTest;
import org.glassfish.jersey.test.TestProperties;
import org.glassfish.jersey.test.jetty.JettyTestContainerFactory;
import org.glassfish.jersey.test.spi.TestContainerFactory;
import org.onlab.junit.TestUtils;
import org.onlab.osgi.TestServiceDirectory;
import org.onlab.rest.AuthorizationFilter;
import org.onlab.rest.BaseResource;
import org.onosproject.net.Link;
import org.onosproject.net.pi.model.PiCounterId;
import org.onosproject.net.pi.runtime.PiCounterCell;
import org.onosproject.net.pi.runtime.PiCounterCellId;

/**
 * The REST API as ONOS serves it: Nat64WebApplication in Jetty, in front of a Nat64Manager
 * running on ONOS's adapters. This is what ONOS's ResourceTest does; it is not used because its
 * constructor loads a filter from onos-rest's main jar, a web bundle whose classes sit under
 * WEB-INF/classes, out of a test's class path.
 */
class Nat64WebResourceTest extends JerseyTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private FakeOnos onos;
    private Nat64Manager manager;

    Nat64WebResourceTest() {
        super(ResourceConfig.forApplicationClass(Nat64WebApplication.class));
        forceSet(TestProperties.CONTAINER_PORT, "0");
        // ONOS's authorization filter, which AbstractWebApplication adds, wants a login; ONOS's tests lift it so.
        AuthorizationFilter.disableForTests();
    }

    @Override
    protected TestContainerFactory getTestContainerFactory() {
        return new JettyTestContainerFactory();
    }

    private void start(boolean configured) throws Exception {
        onos = new FakeOnos();
        onos.available.addAll(List.of(FakeOnos.LEAF, FakeOnos.BORDER1, FakeOnos.BORDER2));
        onos.mastered.addAll(onos.available);
        manager = onos.start();
        if (configured) {
            onos.pushNetcfg("{\"addresses\": [\"192.0.2.0/30\"]}");
            FakeOnos.await("configured", () -> {
                try {
                    return manager.devices().stream().allMatch(d -> d.connected);
                } catch (Nat64Service.NotConfigured e) {
                    return false;
                }
            });
        }
        // Where ONOS's web resources find services (BaseResource's directory), as ResourceTest sets it.
        TestUtils.setField(BaseResource.class, "services", new TestServiceDirectory().add(Nat64Service.class, manager));
    }

    /** JerseyTest starts and stops the server around each test itself. */
    @AfterEach
    void stop() {
        manager.deactivate();
    }

    private static JsonNode json(Response r) throws Exception {
        return MAPPER.readTree(r.readEntity(String.class));
    }

    private Response post(String path, String body) {
        return target(path).request().post(Entity.entity(body, MediaType.APPLICATION_JSON));
    }

    @Test
    void poolsAreServedFromTheNetcfg() throws Exception {
        start(true);
        Response r = target("pools").request().get();
        assertEquals(200, r.getStatus());
        JsonNode pools = json(r);
        assertEquals("2001:db8:64::/96", pools.path("pool6").asText());
        assertEquals("192.0.2.0/30", pools.path("pool4").path("addresses").get(0).asText());
    }

    @Test
    void anEamAddedOverRestIsOnTheSwitchesWhenTheAnswerComes() throws Exception {
        start(true);
        Response r = post("eamt", "{\"ipv6Prefix\": \"2001:db8:2::20/128\", \"ipv4Prefix\": \"198.18.0.20/32\"}");
        assertEquals(201, r.getStatus());
        for (var border : List.of(FakeOnos.BORDER1, FakeOnos.BORDER2)) {
            for (String table : List.of("eamt_v6_src", "eamt_v6_dst", "eamt_v4_src", "eamt_v4_dst", "eamt_v6_error_src",
                    "eamt_v4_error_src")) {
                assertEquals(1, onos.flowsOn(border, table).size(), border + " " + table);
            }
        }
        assertEquals("198.18.0.20/32", json(target("eamt").request().get()).path("eamt").get(0)
                .path("ipv4Prefix").asText());

        assertEquals(200, target("eamt").queryParam("ipv4Prefix", "198.18.0.20/32").request().delete().getStatus());
        assertTrue(onos.flowsOn(FakeOnos.BORDER1, "eamt_").isEmpty());
        assertTrue(onos.flowsOn(FakeOnos.BORDER2, "eamt_").isEmpty());
    }

    @Test
    void badInputIsA4xxNamingTheField() throws Exception {
        start(true);
        Response r = post("eamt", "{\"ipv6Prefix\": \"2001:db8:2::20/128\", \"ipv4Prefix\": \"198.18.0.300/32\"}");
        assertEquals(400, r.getStatus());
        assertEquals("eam.ipv4Prefix", json(r).path("field").asText());

        r = post("bib", "{\"protocol\": \"SCTP\"}");
        assertEquals(400, r.getStatus());
        assertEquals("bib.protocol", json(r).path("field").asText());

        r = post("bib", "not json");
        assertEquals(400, r.getStatus());
        assertEquals("body", json(r).path("field").asText());

        r = target("sessions").queryParam("ipv6Address", "2001:db8::zz").request().get();
        assertEquals(400, r.getStatus());
        assertEquals("ipv6Address", json(r).path("field").asText());

        r = target("eamt").queryParam("ipv4Prefix", "10.9.9.0/24").request().delete();
        assertEquals(404, r.getStatus());
        assertEquals("ipv4Prefix", json(r).path("field").asText());

        r = target("bib/TCP/2001:db8:1::10/70000").request().delete();
        assertEquals(400, r.getStatus());
        assertEquals("ipv6Port", json(r).path("field").asText());
    }

    @Test
    void theWebApplicationHasCoresLimitsAndErrorAnswers() throws Exception {
        start(true);
        Response r = post("bib", "{\"x\": \"" + "a".repeat(2 << 20) + "\"}");
        assertEquals(413, r.getStatus());
        assertEquals("body", json(r).path("field").asText());

        r = post("bib", "{\"protocol\": \"TCP\", \"ipv6Address\": \"fe80::1%eth0\", \"ipv6Port\": 80,"
                + " \"ipv4Address\": \"192.0.2.1\", \"ipv4Port\": 8080}");
        assertEquals(400, r.getStatus());
        assertEquals("bib.ipv6Address", json(r).path("field").asText());

        r = target("bib").queryParam("static", "maybe").request().get();
        assertEquals(400, r.getStatus());
        assertEquals("static", json(r).path("field").asText());

        r = post("eamt", "{\"ipv6Prefix\": \"2001:db8:9::/128\", \"ipv4Prefix\": \"127.0.0.1/32\"}");
        assertEquals(400, r.getStatus());
        assertEquals("eam.ipv4Prefix", json(r).path("field").asText());
    }

    @Test
    void ofConcurrentClaimsOfOneTransportAddressExactlyOneWins() throws Exception {
        start(true);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Callable<Integer>> claims = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            String body = String.format("{\"protocol\": \"TCP\", \"ipv6Address\": \"2001:db8:1::%x\", \"ipv6Port\": 80,"
                    + " \"ipv4Address\": \"192.0.2.1\", \"ipv4Port\": 8080}", 0x100 + i);
            claims.add(() -> post("bib", body).getStatus());
        }
        List<Integer> statuses = new ArrayList<>();
        for (Future<Integer> f : pool.invokeAll(claims)) {
            statuses.add(f.get());
        }
        pool.shutdown();
        assertEquals(1, statuses.stream().filter(s -> s == 201).count(), statuses.toString());
        assertTrue(statuses.stream().allMatch(s -> s == 201 || s == 400), statuses.toString());
        assertEquals(1, json(target("bib").queryParam("static", true).request().get()).path("bib").size());
    }

    /**
     * GET metrics, read by the Prometheus project's own client (PrometheusClient): each family's type, and the
     * values of what the test set up: a static TCP BIB entry, a UDP session set up from a packet-in, and a
     * border's counters as its P4Runtime client answers them.
     */
    @Test
    void metricsAreServedInThePrometheusTextFormat() throws Exception {
        start(true);
        assertEquals(201, post("bib", "{\"protocol\": \"TCP\", \"ipv6Address\": \"2001:db8:1::10\","
                + " \"ipv6Port\": 80, \"ipv4Address\": \"192.0.2.1\", \"ipv4Port\": 8080}").getStatus());
        onos.packetIn(FakeOnos.udpFrame(40000), Constants.PUNT_REASONS.indexOf("session_miss"));
        // The session is in the store once allocated; its latency is recorded after its packet-out.
        FakeOnos.await("the UDP session set up and its packet sent",
                () -> manager.stats().getOrDefault("setups.latencyUs.total.count", 0L) == 1);
        onos.counterCells.put(FakeOnos.BORDER1, List.of(
                cell(P4InfoConstants.NAT64_INGRESS_DROPS, Constants.DROP_REASONS.indexOf("no_route"), 5, 0),
                cell(P4InfoConstants.NAT64_INGRESS_TRANSLATIONS, 0, 7, 700)));
        manager.pollCounters();

        Response r = target("metrics").request().get();
        assertEquals(200, r.getStatus());
        MediaType type = r.getMediaType();   // the text format's version, as Prometheus asks for it
        assertEquals(List.of("text/plain", "0.0.4"), List.of(type.getType() + "/" + type.getSubtype(),
                type.getParameters().get("version")), type.toString());
        String text = r.readEntity(String.class);
        Map<String, PrometheusClient.Family> m = PrometheusClient.parse(text);

        for (String gauge : List.of("bib_entries", "sessions", "port_blocks", "pool4_ports", "switch_connected")) {
            assertEquals("gauge", m.get("nat64fabric_" + gauge).type, gauge + " in\n" + text);
        }
        assertEquals(1, m.get("nat64fabric_bib_entries").value("nat64fabric_bib_entries", "protocol", "tcp"));
        assertEquals(1, m.get("nat64fabric_bib_entries").value("nat64fabric_bib_entries", "protocol", "udp"));
        assertEquals(0, m.get("nat64fabric_sessions").value("nat64fabric_sessions", "protocol", "tcp"));
        assertEquals(1, m.get("nat64fabric_sessions").value("nat64fabric_sessions", "protocol", "udp"));
        assertEquals(1, m.get("nat64fabric_port_blocks").value("nat64fabric_port_blocks", "protocol", "udp"));
        assertEquals(4 * (65535 - 1024 + 1), m.get("nat64fabric_pool4_ports").value("nat64fabric_pool4_ports",
                "protocol", "tcp"), "192.0.2.0/30's addresses times the ports from 1024");
        PrometheusClient.Family connected = m.get("nat64fabric_switch_connected");
        assertEquals(1, connected.value("nat64fabric_switch_connected", "device", "device:leaf1", "role", "EDGE"));
        assertEquals(1, connected.value("nat64fabric_switch_connected", "device", "device:border2", "role", "BORDER"));

        // Counters: the client names a family without its samples' _total.
        assertEquals(1, counter(m, "nat64fabric_packet_ins").value("nat64fabric_packet_ins_total",
                "reason", "session_miss"));
        assertEquals(5, counter(m, "nat64fabric_dataplane_drops_packets").value(
                "nat64fabric_dataplane_drops_packets_total", "device", "device:border1", "reason", "no_route"));
        assertEquals(0, counter(m, "nat64fabric_dataplane_drops_packets").value(
                "nat64fabric_dataplane_drops_packets_total", "device", "device:border2", "reason", "no_route"));
        assertEquals(700, counter(m, "nat64fabric_dataplane_translations_bytes").value(
                "nat64fabric_dataplane_translations_bytes_total", "device", "device:border1", "kind", "6to4_stateful"));

        // The setup's latency: cumulative buckets up to +Inf holding the one setup, its count and a sum.
        PrometheusClient.Family latency = m.get("nat64fabric_setup_latency_seconds");
        assertEquals("histogram", latency.type);
        List<PrometheusClient.Sample> buckets = latency.samples.stream()
                .filter(s -> s.name.endsWith("_bucket") && s.has("stage", "total")).collect(Collectors.toList());
        assertTrue(buckets.size() > 2, buckets.toString());
        for (int i = 1; i < buckets.size(); i++) {
            assertTrue(buckets.get(i - 1).value <= buckets.get(i).value, "cumulative: " + buckets);
        }
        assertEquals("+Inf", buckets.get(buckets.size() - 1).labels.get("le"));
        assertEquals(1, buckets.get(buckets.size() - 1).value);
        assertEquals(1, latency.value("nat64fabric_setup_latency_seconds_count", "stage", "total"));
        double sum = latency.value("nat64fabric_setup_latency_seconds_sum", "stage", "total");
        assertTrue(sum > 0 && sum < 5, "seconds from the packet-in to its packet-out: " + sum);
    }

    private static PrometheusClient.Family counter(Map<String, PrometheusClient.Family> m, String family) {
        PrometheusClient.Family f = m.get(family);
        assertEquals("counter", f == null ? null : f.type, family + " in " + m.keySet());
        return f;
    }

    private static PiCounterCell cell(String counter, int index, long packets, long bytes) {
        return new PiCounterCell(PiCounterCellId.ofIndirect(PiCounterId.of(counter), index), packets, bytes);
    }

    @Test
    void withoutNetcfgTheApiSaysWhatToPush() throws Exception {
        start(false);
        Response r = target("sessions").request().get();
        assertEquals(503, r.getStatus());
        JsonNode error = json(r);
        assertEquals("apps.org.nat64fabric.app.nat64", error.path("field").asText());
        assertTrue(error.path("message").asText().contains("onos-netcfg"));
    }

    @Test
    void linksAreOnosOwnEvenWithoutNetcfg() throws Exception {
        start(false);
        onos.links.add(FakeOnos.link(FakeOnos.LEAF, 2, FakeOnos.BORDER1, 1, Link.State.ACTIVE));
        onos.links.add(FakeOnos.link(FakeOnos.BORDER1, 1, FakeOnos.LEAF, 2, Link.State.ACTIVE));
        Response r = target("links").request().get();
        assertEquals(200, r.getStatus());
        assertEquals(MAPPER.readTree("{\"links\": [{\"src\": {\"device\": \"device:border1\", \"port\": 1},"
                + " \"dst\": {\"device\": \"device:leaf1\", \"port\": 2}, \"type\": \"DIRECT\","
                + " \"bidirectional\": true, \"up\": true}]}"), json(r));
    }
}
