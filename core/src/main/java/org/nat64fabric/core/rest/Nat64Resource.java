package org.nat64fabric.core.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import javax.ws.rs.Consumes;
import javax.ws.rs.DELETE;
import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.Produces;
import javax.ws.rs.QueryParam;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.config.Nat64Config;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;

/**
 * The REST API for mapping management, the same in the ONOS app (under /onos/nat64fabric) and in
 * the embedded controller: pools, EAMT, static BIB entries, sessions with filters, switches and
 * counters. Bad input is answered 400 with {@code {"field": ..., "message": ...}} naming the
 * field; an unknown mapping 404. The runtime supplies the service. docs/rest.md documents every
 * endpoint with curl; the ONOS app's build generates its swagger.json from these annotations.
 *
 * <p>Each runtime serves a subclass with its own {@code @Path} (class-level {@code @Path} is not
 * inherited); this one is what the swagger generator reads.
 */
@Path("")
@Produces(MediaType.APPLICATION_JSON)
public class Nat64Resource {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Supplier<Nat64Service> service;

    public Nat64Resource(Supplier<Nat64Service> service) {
        this.service = service;
    }

    /** Pools: pool6, pool4 with its port ranges and block settings, and the port blocks in use. */
    @GET
    @Path("pools")
    public Response pools() {
        return handle(() -> {
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

    /** The EAMT (RFC 7757), as IPv6 and IPv4 prefix pairs. */
    @GET
    @Path("eamt")
    public Response eamt() {
        return handle(() -> {
            ObjectNode root = MAPPER.createObjectNode();
            ArrayNode list = root.putArray("eamt");
            service.get().eamt().forEach(e -> list.add(eam(e)));
            return ok(root);
        });
    }

    /** Adds an EAM: body {"ipv6Prefix": ..., "ipv4Prefix": ...}; it reaches every switch before the answer. */
    @POST
    @Path("eamt")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response addEam(InputStream body) {
        return handle(() -> {
            Eam e = FabricConfig.eam(json(body), "eam");
            service.get().addEam(e);
            return Response.status(Response.Status.CREATED).entity(eam(e).toString()).type(MediaType.APPLICATION_JSON).build();
        });
    }

    /** Removes the EAM of an IPv4 prefix. */
    @DELETE
    @Path("eamt")
    public Response removeEam(@QueryParam("ipv4Prefix") String ipv4Prefix) {
        return handle(() -> {
            Ipv4Prefix p = Ipv4Prefix.parse(required("ipv4Prefix", ipv4Prefix), "ipv4Prefix");
            Optional<Eam> removed = service.get().removeEam(p);
            return removed.isPresent() ? ok(eam(removed.get()))
                    : notFound("ipv4Prefix", "no EAM maps " + p);
        });
    }

    /** BIB entries, filtered by protocol (TCP, UDP, ICMP) and static or dynamic. */
    @GET
    @Path("bib")
    public Response bib(@QueryParam("protocol") String protocol, @QueryParam("static") Boolean isStatic) {
        return handle(() -> {
            ObjectNode root = MAPPER.createObjectNode();
            ArrayNode list = root.putArray("bib");
            service.get().bib(protocol(protocol), isStatic).forEach(b -> list.add(bib(b)));
            return ok(root);
        });
    }

    /** Adds a static BIB entry: body {"protocol", "ipv6Address", "ipv6Port", "ipv4Address", "ipv4Port"}. */
    @POST
    @Path("bib")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response addStaticBib(InputStream body) {
        return handle(() -> {
            FabricConfig.StaticBib b = FabricConfig.staticBib(json(body), "bib");
            BibEntry added = service.get().addStaticBib(b.protocol, b.address6, b.port6, b.v4);
            return Response.status(Response.Status.CREATED).entity(bib(added).toString()).type(MediaType.APPLICATION_JSON).build();
        });
    }

    /** Removes a BIB entry and its sessions. */
    @DELETE
    @Path("bib/{protocol}/{ipv6Address}/{ipv6Port}")
    public Response removeBib(@PathParam("protocol") String protocol, @PathParam("ipv6Address") String address,
                              @PathParam("ipv6Port") String port) {
        return handle(() -> {
            Protocol proto = FabricConfig.protocol(protocol, "protocol");
            Ipv6Address a = Ipv6Address.parse(address, "ipv6Address");
            int p = port("ipv6Port", port);
            Optional<BibEntry> removed = service.get().removeBib(proto, a, p);
            return removed.isPresent() ? ok(bib(removed.get()))
                    : notFound("ipv6Address", "no BIB entry for " + proto + " [" + a + "]:" + p);
        });
    }

    /** Sessions, filtered by protocol, IPv6 source, pool4 address and remote IPv4 address. */
    @GET
    @Path("sessions")
    public Response sessions(@QueryParam("protocol") String protocol, @QueryParam("ipv6Address") String ipv6,
                             @QueryParam("ipv4Address") String ipv4, @QueryParam("remote") String remote) {
        return handle(() -> {
            List<Session> found = service.get().sessions(protocol(protocol),
                    ipv6 == null ? null : Ipv6Address.parse(ipv6, "ipv6Address"),
                    ipv4 == null ? null : Ipv4Address.parse(ipv4, "ipv4Address"),
                    remote == null ? null : Ipv4Address.parse(remote, "remote"));
            ObjectNode root = MAPPER.createObjectNode();
            ArrayNode list = root.putArray("sessions");
            found.forEach(x -> list.add(session(x)));
            return ok(root);
        });
    }

    /** Counters: packet-ins by punt reason, setups, refusals, NAT events by type, table sizes. */
    @GET
    @Path("stats")
    public Response stats() {
        return handle(() -> {
            ObjectNode root = MAPPER.createObjectNode();
            service.get().stats().forEach(root::put);
            return ok(root);
        });
    }

    /** The configured switches: role, connected or not, entries held. */
    @GET
    @Path("devices")
    public Response devices() {
        return handle(() -> {
            ObjectNode root = MAPPER.createObjectNode();
            ArrayNode list = root.putArray("devices");
            for (Nat64Service.DeviceStatus d : service.get().devices()) {
                list.addObject().put("id", d.deviceId).put("role", d.role.name()).put("connected", d.connected)
                        .put("entries", d.entries);
            }
            return ok(root);
        });
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
            return error(Response.Status.BAD_REQUEST, e.field(), e.problem());
        } catch (Nat64Service.NotConfigured e) {
            return error(Response.Status.SERVICE_UNAVAILABLE, e.field, e.getMessage());
        }
    }

    private static JsonNode json(InputStream body) {
        try {
            JsonNode n = body == null ? null : MAPPER.readTree(body);
            if (n == null || !n.isObject()) {
                throw new ConfigException("body", "must be a JSON object");
            }
            return n;
        } catch (JsonProcessingException e) {
            throw new ConfigException("body", "is not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ConfigException("body", "could not be read: " + e.getMessage());
        }
    }

    private static String required(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw new ConfigException(field, "missing");
        }
        return value;
    }

    private static int port(String field, String value) {
        if (value == null || !value.matches("\\d{1,5}") || Integer.parseInt(value) > 65535) {
            throw new ConfigException(field, "'" + value + "' is not a port (0-65535)");
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
        return error(Response.Status.NOT_FOUND, field, message);
    }

    private static Response error(Response.Status status, String field, String message) {
        ObjectNode n = MAPPER.createObjectNode().put("field", field).put("message", message);
        return Response.status(status).entity(n.toString()).type(MediaType.APPLICATION_JSON).build();
    }
}
