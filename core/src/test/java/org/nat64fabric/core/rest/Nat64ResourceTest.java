package org.nat64fabric.core.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import org.glassfish.jersey.jdkhttp.JdkHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.control.Nat64Fabric;
import org.nat64fabric.core.store.InMemoryNatStore;

/** Core's REST resource with {@link Nat64RestFeature}, on Jersey as the embedded controller serves it. */
class Nat64ResourceTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String CONFIG = "{\"apps\": {\"org.nat64fabric.app\": {\"nat64\": {"
            + "\"pool6\": \"64:ff9b::/96\", \"pool4\": {\"addresses\": [\"192.0.2.0/30\"]}}}},"
            + "\"devices\": {\"device:b1\": {\"nat64fabric\": {\"role\": \"BORDER\", \"routerMac\": \"00:00:00:00:b1:01\","
            + " \"ipv4\": \"198.51.100.1\", \"ipv6\": \"2001:db8:ff::1\"}}}}";

    @Path("/onos/nat64fabric")
    public static final class Api extends Nat64Resource {
        Api(Nat64Fabric fabric) {
            super(() -> fabric);
        }

        /** A bug, for the catch-all. */
        @GET
        @Path("bug")
        public String bug() {
            throw new IllegalStateException("a bug");
        }
    }

    private static HttpServer server;
    private static String base;
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @BeforeAll
    static void serve() throws Exception {
        Nat64Fabric fabric = new Nat64Fabric(FabricConfig.parse(MAPPER.readTree(CONFIG)), new InMemoryNatStore(),
                e -> { }, System::currentTimeMillis);
        server = JdkHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:0/"),
                new ResourceConfig().register(new Api(fabric)).register(Nat64RestFeature.class));
        base = "http://127.0.0.1:" + server.getAddress().getPort() + "/onos/nat64fabric";
    }

    @AfterAll
    static void stop() {
        server.stop(0);
    }

    private static HttpResponse<String> send(String method, String path, HttpRequest.BodyPublisher body,
                                             Map<String, String> headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).method(method, body);
        headers.forEach(b::header);
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String path, String json) throws Exception {
        return send("POST", path, HttpRequest.BodyPublishers.ofString(json), Map.of("Content-Type", "application/json"));
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return send("GET", path, HttpRequest.BodyPublishers.noBody(), Map.of());
    }

    /** The error's field, after checking its status. */
    private static String field(int status, HttpResponse<String> r) throws Exception {
        assertEquals(status, r.statusCode(), r.body());
        JsonNode n = MAPPER.readTree(r.body());
        return n.path("field").asText();
    }

    private static String bib(String ipv6, int port4) {
        return "{\"protocol\": \"TCP\", \"ipv6Address\": \"" + ipv6 + "\", \"ipv6Port\": 80,"
                + " \"ipv4Address\": \"192.0.2.1\", \"ipv4Port\": " + port4 + "}";
    }

    @Test
    void scopedAddressesAreRefusedNamingTheField() throws Exception {
        assertEquals("bib.ipv6Address", field(400, post("/bib", bib("fe80::1%eth0", 8080))));
        assertEquals("ipv6Address", field(400, send("DELETE", "/bib/TCP/fe80::1%25eth0/80",
                HttpRequest.BodyPublishers.noBody(), Map.of())));
        assertEquals("ipv6Address", field(400, get("/sessions?ipv6Address=fe80::1%25eth0")));
        assertEquals("eam.ipv6Prefix", field(400, post("/eamt",
                "{\"ipv6Prefix\": \"fe80::1%eth0/128\", \"ipv4Prefix\": \"198.18.0.1/32\"}")));
        assertEquals("bib.ipv6Address", field(400, post("/bib", bib("２００１:db8::1", 8080))));
    }

    @Test
    void bodiesOverOneMebibyteAre413EvenWithoutContentLength() throws Exception {
        String big = "{\"x\": \"" + "a".repeat(2 << 20) + "\"}";
        assertEquals("body", field(413, post("/bib", big)));
        // A body of unknown length (chunked): cut off while it is read.
        InputStream chunks = new java.io.ByteArrayInputStream(big.getBytes());
        HttpResponse<String> r = send("POST", "/bib", HttpRequest.BodyPublishers.ofInputStream(() -> chunks),
                Map.of("Content-Type", "application/json"));
        assertEquals("body", field(413, r));
    }

    @Test
    void deepDuplicateAndUnknownJsonIsRefused() throws Exception {
        assertTrue(MAPPER.readTree(post("/bib", "[".repeat(100_000)).body()).path("message").asText()
                .contains("deeper"));
        assertEquals("body", field(400, post("/bib", "{\"protocol\": \"TCP\", \"protocol\": \"UDP\"}")));
        assertEquals("bib.static", field(400, post("/bib", bib("2001:db8::1", 8080).replace("}", ", \"static\": true}"))));
    }

    @Test
    void badQueryValuesAndUnknownQueryParametersAreRefused() throws Exception {
        assertEquals("static", field(400, get("/bib?static=maybe")));
        assertEquals("statik", field(400, get("/bib?statik=true")));
        assertEquals("protocol", field(400, get("/bib?protocol=TCP&protocol=UDP")));
        assertEquals(200, get("/bib?static=false").statusCode());
    }

    @Test
    void staticBibErrorsSayTheRealReason() throws Exception {
        for (String host : List.of("::", "::1", "ff02::1", "fe80::1", "64:ff9b::1")) {
            assertEquals("bib.ipv6Address", field(400, post("/bib", bib(host, 8080))), host);
        }
        HttpResponse<String> range = post("/bib", bib("2001:db8::1", 80));
        assertEquals("bib.ipv4Port", field(400, range));
        assertTrue(range.body().contains("port 80 is outside the TCP range 1024–65535"), range.body());
        assertEquals(201, post("/bib", bib("2001:db8::a", 8080)).statusCode());
        HttpResponse<String> paired = post("/bib", bib("2001:db8::a", 8090).replace("192.0.2.1", "192.0.2.2")
                .replace("\"ipv6Port\": 80", "\"ipv6Port\": 81"));
        assertEquals("bib.ipv4Address", field(400, paired));
        assertTrue(paired.body().contains("2001:db8::a is paired with 192.0.2.1 (paired pooling, RFC 6888 REQ-2)"),
                paired.body());
        HttpResponse<String> inUse = post("/bib", bib("2001:db8::a", 8080).replace("\"ipv6Port\": 80", "\"ipv6Port\": 82"));
        assertEquals("bib.ipv4Port", field(400, inUse));
        assertTrue(inUse.body().contains("in use"), inUse.body());
    }

    @Test
    void eamsOfReservedOrSwitchAddressesAreRefused() throws Exception {
        assertEquals("eam.ipv4Prefix", field(400, post("/eamt",
                "{\"ipv6Prefix\": \"2001:db8:9::/128\", \"ipv4Prefix\": \"127.0.0.1/32\"}")));
        assertEquals("eam.ipv4Prefix", field(400, post("/eamt",
                "{\"ipv6Prefix\": \"2001:db8:9::/128\", \"ipv4Prefix\": \"198.51.100.1/32\"}")));
        assertEquals("eam.ipv6Prefix", field(400, post("/eamt",
                "{\"ipv6Prefix\": \"2001:db8:ff::1/128\", \"ipv4Prefix\": \"198.18.0.1/32\"}")));
    }

    @Test
    void containerErrorsAreJsonAndBugsAreLogged() throws Exception {
        assertEquals("path", field(404, get("/nothing")));
        assertEquals("method", field(405, send("PUT", "/bib", HttpRequest.BodyPublishers.noBody(), Map.of())));
        assertEquals("Content-Type", field(415, send("POST", "/bib", HttpRequest.BodyPublishers.ofString("x"),
                Map.of("Content-Type", "text/plain"))));
        List<LogRecord> logged = new java.util.ArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                logged.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger.getLogger(ErrorMappers.class.getName()).addHandler(h);
        try {
            HttpResponse<String> r = get("/bug");
            assertEquals(500, r.statusCode());
            assertTrue(r.body().contains("log"), r.body());
            assertTrue(!r.body().contains("at org."), "no stack trace to the client");
            assertEquals(1, logged.size());
            assertEquals("a bug", logged.get(0).getThrown().getMessage(), "the log has the stack trace");
        } finally {
            Logger.getLogger(ErrorMappers.class.getName()).removeHandler(h);
        }
    }
}
