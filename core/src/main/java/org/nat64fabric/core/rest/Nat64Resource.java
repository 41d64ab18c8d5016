package org.nat64fabric.core.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javax.ws.rs.Consumes;
import javax.ws.rs.DELETE;
import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.UriInfo;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.config.Json;
import org.nat64fabric.core.config.Nat64Config;
import org.nat64fabric.core.control.LinkStatus;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.metrics.PrometheusText;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.store.NatStore;

/**
 * The REST API for mapping management, the same in the ONOS app (under /onos/nat64fabric) and in
 * the embedded controller: pools, EAMT, static BIB entries, sessions with filters, switches, links
 * and counters. Bad input is answered 400 with {@code {"field": ..., "message": ...}} naming the
 * field; an unknown mapping 404. The runtime supplies the service and registers
 * {@link Nat64RestFeature} beside it. docs/rest.md documents every endpoint with curl; the build
 * generates the Swagger 2.0 description from these annotations and javadoc tags
 * ({@code @onos.rsModel} names a schema in src/main/resources/definitions).
 *
 * <p>Each runtime serves a subclass with its own {@code @Path} (class-level {@code @Path} is not
 * inherited); this one is what the swagger generator reads.
 */
@Path("")
@Produces(MediaType.APPLICATION_JSON)
public class Nat64Resource {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Supplier<Nat64Service> service;
    /** The request's URI, for its query parameters (a proxy to the current request's in a singleton). */
    @Context
    private UriInfo uri;

    public Nat64Resource(Supplier<Nat64Service> service) {
        this.service = service;
    }

    /**
     * Pools: pool6, pool4 with its port ranges and block settings, and the port blocks in use.
     *
     * @return 200 and the pools
     * @onos.rsModel Pools
     */
    @GET
    @Path("pools")
    public Response pools() {
        return handle(() -> {
            queryOnly();
            Nat64Config c = service.get().config();
            ObjectNode root = MAPPER.createObjectNode();
            root.put("pool6", c.pool6.prefix().toString());
            ObjectNode p4 = root.putObject("pool4");
            ArrayNode addresses = p4.putArray("addresses");
            c.pool4.addresses().forEach(a -> addresses.add(a.toString()));
            for (Protocol p : Protocol.values()) {
                int[] r = c.pool4.portRange(p);
                p4.putArray(p.name().toLowerCase(Locale.ROOT) + "Ports").add(r[0]).add(r[1]);
            }
            p4.put("blockSize", c.pool4.blockSize());
            p4.put("blocksPerSubscriber", c.pool4.blocksPerSubscriber());
            p4.put("holdSeconds", c.pool4.holdMillis() / 1000);
            c.pool4.deterministic().ifPresent(d -> p4.put("deterministic", d.toString()));
            ArrayNode blocks = root.putArray("blocks");
            service.get().blocks().stream().sorted(Comparator.comparing(PortBlock::toString))
                    .forEach(b -> blocks.add(block(b)));
            return ok(root);
        });
    }

    /**
     * The EAMT (RFC 7757), as IPv6 and IPv4 prefix pairs.
     *
     * @return 200 and the EAMT
     * @onos.rsModel Eamt
     */
    @GET
    @Path("eamt")
    public Response eamt() {
        return handle(() -> {
            queryOnly();
            ObjectNode root = MAPPER.createObjectNode();
            ArrayNode list = root.putArray("eamt");
            service.get().eamt().forEach(e -> list.add(eam(e)));
            return ok(root);
        });
    }

    /**
     * Adds an EAM, which reaches every switch before the answer.
     *
     * @param body the EAM: {"ipv6Prefix", "ipv4Prefix"}
     * @return 201 and the EAM; 400 naming the field at fault
     * @onos.rsModel Eam
     */
    @POST
    @Path("eamt")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response addEam(InputStream body) {
        return handle(() -> {
            queryOnly();
            Eam e = FabricConfig.eam(json(body), "eam");
            service.get().addEam(e);
            return Response.status(Response.Status.CREATED).entity(eam(e).toString()).type(MediaType.APPLICATION_JSON).build();
        });
    }

    /**
     * Removes the EAM of an IPv4 prefix.
     *
     * @param ipv4Prefix the EAM's IPv4 prefix
     * @return 200 and the removed EAM; 404 when none maps the prefix
     */
    @DELETE
    @Path("eamt")
    public Response removeEam(@QueryParam("ipv4Prefix") String ipv4Prefix) {
        return handle(() -> {
            queryOnly("ipv4Prefix");
            Ipv4Prefix p = Ipv4Prefix.parse(required("ipv4Prefix", ipv4Prefix), "ipv4Prefix");
            Optional<Eam> removed = service.get().removeEam(p);
            return removed.isPresent() ? ok(eam(removed.get()))
                    : notFound("ipv4Prefix", "no EAM maps " + p);
        });
    }

    /**
     * BIB entries, filtered by protocol, static or dynamic, IPv6 host and pool4 address.
     *
     * @param protocol optional: TCP, UDP or ICMP
     * @param isStatic optional: true for static entries only, false for dynamic ones only
     * @param ipv6 optional: the IPv6 host
     * @param ipv4 optional: its pool4 address
     * @param offset optional: skip this many entries (with limit: a page, in a stable order)
     * @param limit optional: at most this many entries
     * @return 200 and the entries, with the number that match in total
     * @onos.rsModel Bib
     */
    @GET
    @Path("bib")
    public Response bib(@QueryParam("protocol") String protocol, @QueryParam("static") String isStatic,
                        @QueryParam("ipv6Address") String ipv6, @QueryParam("ipv4Address") String ipv4,
                        @QueryParam("offset") String offset, @QueryParam("limit") String limit) {
        return handle(() -> {
            queryOnly("protocol", "static", "ipv6Address", "ipv4Address", "offset", "limit");
            Ipv6Address host = ipv6 == null ? null : Ipv6Address.parse(ipv6, "ipv6Address");
            Ipv4Address mapped = ipv4 == null ? null : Ipv4Address.parse(ipv4, "ipv4Address");
            List<BibEntry> found = service.get().bib(protocol(protocol), bool("static", isStatic)).stream()
                    .filter(b -> host == null || host.equals(b.address6()))
                    .filter(b -> mapped == null || mapped.equals(b.v4().address()))
                    .collect(Collectors.toList());
            ObjectNode root = MAPPER.createObjectNode().put("total", found.size());
            ArrayNode list = root.putArray("bib");
            page(found, BY_POOL4_SIDE, offset, limit).forEach(b -> list.add(bib(b)));
            return ok(root);
        });
    }

    /**
     * Adds a static BIB entry (port forwarding to an IPv6 server), written to every border switch.
     *
     * @param body the entry: {"protocol", "ipv6Address", "ipv6Port", "ipv4Address", "ipv4Port"}
     * @return 201 and the entry; 400 naming the field at fault
     * @onos.rsModel StaticBib
     */
    @POST
    @Path("bib")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response addStaticBib(InputStream body) {
        return handle(() -> {
            queryOnly();
            FabricConfig.StaticBib b = FabricConfig.staticBib(json(body), "bib");
            BibEntry added = service.get().addStaticBib(b.protocol, b.address6, b.port6, b.v4);
            return Response.status(Response.Status.CREATED).entity(bib(added).toString()).type(MediaType.APPLICATION_JSON).build();
        });
    }

    /**
     * Removes a BIB entry and its sessions.
     *
     * @param protocol the entry's protocol: TCP, UDP or ICMP
     * @param address the entry's IPv6 address
     * @param port the entry's IPv6 port (ICMP: identifier)
     * @return 200 and the removed entry; 404 when there is none
     */
    @DELETE
    @Path("bib/{protocol}/{ipv6Address}/{ipv6Port}")
    public Response removeBib(@PathParam("protocol") String protocol, @PathParam("ipv6Address") String address,
                              @PathParam("ipv6Port") String port) {
        return handle(() -> {
            queryOnly();
            Protocol proto = FabricConfig.protocol(protocol, "protocol");
            Ipv6Address a = Ipv6Address.parse(address, "ipv6Address");
            int p = port("ipv6Port", port);
            Optional<BibEntry> removed = service.get().removeBib(proto, a, p);
            return removed.isPresent() ? ok(bib(removed.get()))
                    : notFound("ipv6Address", "no BIB entry for " + proto + " [" + a + "]:" + p);
        });
    }

    /**
     * Sessions, filtered by protocol, IPv6 source, pool4 address and remote IPv4 address.
     *
     * @param protocol optional: TCP, UDP or ICMP
     * @param ipv6 optional: the IPv6 host
     * @param ipv4 optional: its pool4 address
     * @param remote optional: the remote IPv4 address
     * @param offset optional: skip this many sessions (with limit: a page, in a stable order)
     * @param limit optional: at most this many sessions
     * @return 200 and the sessions, with the number that match in total
     * @onos.rsModel Sessions
     */
    @GET
    @Path("sessions")
    public Response sessions(@QueryParam("protocol") String protocol, @QueryParam("ipv6Address") String ipv6,
                             @QueryParam("ipv4Address") String ipv4, @QueryParam("remote") String remote,
                             @QueryParam("offset") String offset, @QueryParam("limit") String limit) {
        return handle(() -> {
            queryOnly("protocol", "ipv6Address", "ipv4Address", "remote", "offset", "limit");
            List<Session> found = service.get().sessions(protocol(protocol),
                    ipv6 == null ? null : Ipv6Address.parse(ipv6, "ipv6Address"),
                    ipv4 == null ? null : Ipv4Address.parse(ipv4, "ipv4Address"),
                    remote == null ? null : Ipv4Address.parse(remote, "remote"));
            ObjectNode root = MAPPER.createObjectNode().put("total", found.size());
            ArrayNode list = root.putArray("sessions");
            page(found, Comparator.comparing(Session::bib, BY_POOL4_SIDE)
                    .thenComparingLong(x -> x.remote4().address().unsigned())
                    .thenComparingInt(x -> x.remote4().port()), offset, limit).forEach(x -> list.add(session(x)));
            return ok(root);
        });
    }

    /**
     * Counters: packet-ins by punt reason, setups, refusals, NAT events by type, table sizes.
     *
     * @return 200 and the counters
     * @onos.rsModel Stats
     */
    @GET
    @Path("stats")
    public Response stats() {
        return handle(() -> {
            queryOnly();
            ObjectNode root = MAPPER.createObjectNode();
            service.get().stats().forEach(root::put);
            return ok(root);
        });
    }

    /**
     * The controller's and the switches' counters, the setup latency histograms, BIB entries,
     * sessions and port blocks by protocol, pool4 use, in the Prometheus text format for a
     * Prometheus server to scrape, with the API's credentials (format version 0.0.4).
     *
     * @return 200 and the metrics
     */
    @GET
    @Path("metrics")
    @Produces(PrometheusText.CONTENT_TYPE)
    public Response metrics() {
        return handle(() -> {
            queryOnly();
            return Response.ok(service.get().metrics(), PrometheusText.CONTENT_TYPE).build();
        });
    }

    /**
     * The configured switches: role, connected or not, entries held.
     *
     * @return 200 and the switches
     * @onos.rsModel Devices
     */
    @GET
    @Path("devices")
    public Response devices() {
        return handle(() -> {
            queryOnly();
            ObjectNode root = MAPPER.createObjectNode();
            ArrayNode list = root.putArray("devices");
            for (Nat64Service.DeviceStatus d : service.get().devices()) {
                list.addObject().put("id", d.deviceId).put("role", d.role.name()).put("connected", d.connected)
                        .put("entries", d.entries);
            }
            return ok(root);
        });
    }

    /**
     * The links between the switches' ports, each once: its two ends, its type, whether it runs
     * both ways, and whether it is up as the runtime can know it (ONOS: its link state; the
     * embedded controller: both ends' switches connected).
     *
     * @return 200 and the links
     * @onos.rsModel Links
     */
    @GET
    @Path("links")
    public Response links() {
        return handle(() -> {
            queryOnly();
            ObjectNode root = MAPPER.createObjectNode();
            ArrayNode list = root.putArray("links");
            for (LinkStatus l : service.get().links()) {
                ObjectNode n = list.addObject();
                n.putObject("src").put("device", l.srcDevice).put("port", l.srcPort);
                n.putObject("dst").put("device", l.dstDevice).put("port", l.dstPort);
                n.put("type", l.type).put("bidirectional", l.bidirectional).put("up", l.up);
            }
            return ok(root);
        });
    }

    /**
     * This API's description (Swagger 2.0), generated by the build from these annotations.
     *
     * @return 200 and the description
     */
    @GET
    @Path("swagger.json")
    public Response swagger() {
        return handle(() -> {
            queryOnly();
            try (InputStream doc = Nat64Resource.class.getResourceAsStream("swagger.json")) {
                if (doc == null) {
                    return notFound("path", "this build has no API description (the onos-maven-plugin swagger goal)");
                }
                return Response.ok(withWhatTheGeneratorLeavesOut(MAPPER.readTree(doc)).toString(),
                        MediaType.APPLICATION_JSON).build();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /**
     * What the generator leaves out, from the annotations: an operation's own media type (GET
     * metrics, in Prometheus's text format), 201 for what POST creates, the errors every operation
     * may answer (a JSON body naming the field), and HTTP Basic authentication.
     */
    private static JsonNode withWhatTheGeneratorLeavesOut(JsonNode description) {
        for (java.lang.reflect.Method m : Nat64Resource.class.getMethods()) {
            Path path = m.getAnnotation(Path.class);
            String verb = m.isAnnotationPresent(GET.class) ? "get" : m.isAnnotationPresent(POST.class) ? "post"
                    : m.isAnnotationPresent(DELETE.class) ? "delete" : null;
            JsonNode found = path == null || verb == null ? null : description.path("paths").path("/" + path.value()).path(verb);
            if (found == null || !found.isObject()) {
                continue;
            }
            ObjectNode operation = (ObjectNode) found;
            Produces produces = m.getAnnotation(Produces.class);
            if (produces != null) {
                ArrayNode types = operation.putArray("produces");
                List.of(produces.value()).forEach(types::add);
            }
            ObjectNode responses = operation.with("responses");
            if (verb.equals("post") && responses.has("200")) {
                JsonNode created = responses.remove("200");
                ((ObjectNode) created).put("description", "created");
                responses.set("201", created);
                responses.putObject("413").put("description", "a body larger than 1 MiB");
                responses.putObject("415").put("description", "a body without Content-Type: application/json");
            }
            if (verb.equals("delete")) {
                responses.putObject("404").put("description", "nothing to remove: {\"field\", \"message\"}");
            }
            responses.putObject("400").put("description", "bad input: {\"field\", \"message\"} names the field at fault");
            responses.putObject("401").put("description", "no or wrong HTTP Basic credentials");
            responses.putObject("503").put("description", "not configured yet, or the state could not be written to"
                    + " disk: {\"field\", \"message\"}");
        }
        ((ObjectNode) description).putObject("securityDefinitions").putObject("basicAuth").put("type", "basic");
        ((ObjectNode) description).putArray("security").addObject().putArray("basicAuth");
        return description;
    }

    // ---- JSON --------------------------------------------------------------------------------------

    public static ObjectNode eam(Eam e) {
        return MAPPER.createObjectNode().put("ipv6Prefix", e.ipv6().toString()).put("ipv4Prefix", e.ipv4().toString());
    }

    public static ObjectNode bib(BibEntry b) {
        return MAPPER.createObjectNode().put("protocol", b.protocol().name())
                .put("ipv6Address", b.address6().toString()).put("ipv6Port", b.port6())
                .put("ipv4Address", b.v4().address().toString()).put("ipv4Port", b.v4().port())
                .put("static", b.isStatic());
    }

    public static ObjectNode session(Session s) {
        ObjectNode n = bib(s.bib());
        n.remove("static");
        n.put("remoteIpv4Address", s.remote4().address().toString()).put("remotePort", s.remote4().port())
                .put("remoteIpv6Address", s.remote6().toString());
        s.state().ifPresent(st -> n.put("tcpState", st.name()));
        n.put("lifetimeSeconds", s.lifetime()).put("createdMillis", s.createdMillis());
        return n;
    }

    public static ObjectNode block(PortBlock b) {
        return MAPPER.createObjectNode().put("protocol", b.protocol().name())
                .put("ipv4Address", b.address().toString()).put("firstPort", b.first()).put("lastPort", b.last())
                .put("subscriber", b.subscriber().toString());
    }

    // ---- errors ------------------------------------------------------------------------------------

    private interface Action {
        Response run();
    }

    private static Response handle(Action a) {
        try {
            return a.run();
        } catch (ConfigException e) {
            return Errors.of(400, e.field(), e.problem());
        } catch (RequestLimits.TooLarge e) {
            return RequestLimits.tooLarge();
        } catch (Nat64Service.NotConfigured e) {
            return Errors.of(503, e.field, e.getMessage());
        } catch (NatStore.NotDurable e) {
            return Errors.of(503, "state", e.getMessage() + "; free the disk and try again");
        } catch (RuntimeException e) {
            return new ErrorMappers.Unexpected().toResponse(e);   // a bug: logged with its stack trace
        }
    }

    /** The body as one JSON object, at most {@link RequestLimits#MAX_BODY} bytes, read strictly ({@link Json}). */
    private static JsonNode json(InputStream body) {
        JsonNode n = body == null ? null : Json.parse(RequestLimits.read(body), "body");
        if (n == null || !n.isObject()) {
            throw new ConfigException("body", "must be a JSON object");
        }
        return n;
    }

    /** A BIB entry's order in pages: by protocol and pool4 transport address, which name it uniquely. */
    private static final Comparator<BibEntry> BY_POOL4_SIDE = Comparator.comparing(BibEntry::protocol)
            .thenComparingLong(b -> b.v4().address().unsigned()).thenComparingInt(b -> b.v4().port());

    /** All of {@code all}, or, given an offset or a limit, that page of it in {@code order}. */
    private static <T> List<T> page(List<T> all, Comparator<T> order, String offset, String limit) {
        if (offset == null && limit == null) {
            return all;
        }
        int skip = count("offset", offset, 0);
        int most = count("limit", limit, Integer.MAX_VALUE);
        return all.stream().sorted(order).skip(skip).limit(most).collect(Collectors.toList());
    }

    private static int count(String field, String value, int byDefault) {
        if (value == null) {
            return byDefault;
        }
        if (!value.matches("\\d{1,9}")) {
            throw new ConfigException(field, ConfigException.quote(value) + " is not a whole number (0-999999999)");
        }
        return Integer.parseInt(value);
    }

    /** Refuses query parameters the endpoint does not know, or gives twice: a typo must not widen a filter. */
    private void queryOnly(String... known) {
        if (uri == null) {
            return;    // called directly, outside a container
        }
        // JAX-RS drops a parameter without a name ("?=false"): look at the raw query for one.
        String raw = uri.getRequestUri().getRawQuery();
        if (raw != null && List.of(raw.split("&")).stream().anyMatch(q -> q.startsWith("="))) {
            throw new ConfigException("query", "has a parameter without a name");
        }
        for (Map.Entry<String, List<String>> q : uri.getQueryParameters().entrySet()) {
            String name = q.getKey().matches("[A-Za-z0-9]{1,40}") ? q.getKey() : ConfigException.quote(q.getKey());
            if (!List.of(known).contains(q.getKey())) {
                throw new ConfigException(name, "unknown query parameter (this endpoint takes "
                        + (known.length == 0 ? "none" : String.join(", ", known)) + ")");
            }
            if (q.getValue().size() > 1) {
                throw new ConfigException(name, "given " + q.getValue().size() + " times: give it once");
            }
        }
    }

    private static Boolean bool(String field, String value) {
        if (value == null) {
            return null;
        }
        if (!value.equals("true") && !value.equals("false")) {
            throw new ConfigException(field, ConfigException.quote(value) + " is neither true nor false");
        }
        return Boolean.valueOf(value);
    }

    private static String required(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw new ConfigException(field, "missing");
        }
        return value;
    }

    private static int port(String field, String value) {
        if (value == null || !value.matches("\\d{1,5}") || Integer.parseInt(value) > 65535) {
            throw new ConfigException(field, ConfigException.quote(value) + " is not a port (0-65535)");
        }
        return Integer.parseInt(value);
    }

    private static Protocol protocol(String text) {
        return text == null ? null : FabricConfig.protocol(text, "protocol");
    }

    private static Response ok(JsonNode n) {
        return Response.ok(n.toString(), MediaType.APPLICATION_JSON).build();
    }

    private static Response notFound(String field, String message) {
        return Errors.of(404, field, message);
    }
}
