package org.nat64fabric.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.addr.Ipv6Prefix;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.fabric.Route;
import org.nat64fabric.core.fabric.SwitchConfig;
import org.nat64fabric.core.pool4.Pool4Config;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.pool6.Pool6;
import org.nat64fabric.core.session.Timeouts;

/**
 * The fabric's configuration in ONOS network-configuration form, read the same way by the ONOS
 * app (from netcfg) and by the embedded controller (from a file): the NAT64 under
 * {@code apps."org.nat64fabric.app".nat64}, each switch under {@code devices.ID.nat64fabric},
 * and its P4Runtime address under {@code devices.ID.basic.managementAddress}. Every error names
 * the field by its JSON path. The schema is in docs/netcfg.md.
 */
public final class FabricConfig {
    public static final String APP = "org.nat64fabric.app";

    /** A static BIB entry as configured (RFC 6146 3.5.1: port forwarding to an IPv6 server). */
    public static final class StaticBib {
        public final Protocol protocol;
        public final Ipv6Address address6;
        public final int port6;
        public final TransportAddress v4;

        public StaticBib(Protocol protocol, Ipv6Address address6, int port6, TransportAddress v4) {
            this.protocol = protocol;
            this.address6 = address6;
            this.port6 = port6;
            this.v4 = v4;
        }
    }

    /** A switch: what it must hold, and where its P4Runtime server listens (null: ONOS knows). */
    public static final class Device {
        public final SwitchConfig config;
        public final String managementAddress;

        Device(SwitchConfig config, String managementAddress) {
            this.config = config;
            this.managementAddress = managementAddress;
        }
    }

    public final Nat64Config nat64;
    public final List<Eam> eamt;
    public final List<StaticBib> staticBib;
    public final Map<String, Device> devices;

    private FabricConfig(Nat64Config nat64, List<Eam> eamt, List<StaticBib> staticBib, Map<String, Device> devices) {
        this.nat64 = nat64;
        this.eamt = List.copyOf(eamt);
        this.staticBib = List.copyOf(staticBib);
        this.devices = Map.copyOf(devices);
    }

    public static FabricConfig read(Path file) throws IOException {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new ConfigException(file.toString(), "is not JSON: " + e.getMessage());
        }
        return parse(root);
    }

    public static FabricConfig parse(JsonNode root) {
        String at = "apps." + APP + ".nat64";
        JsonNode nat = root.path("apps").path(APP).path("nat64");
        if (!nat.isObject()) {
            throw new ConfigException(at, "missing: the NAT64's pools and timers go here");
        }
        Nat64Config nat64 = nat64(nat, at);
        List<Eam> eamt = new ArrayList<>();
        JsonNode eams = nat.path("eamt");
        for (int i = 0; i < eams.size(); i++) {
            eamt.add(eam(eams.get(i), at + ".eamt[" + i + "]"));
        }
        List<StaticBib> bib = new ArrayList<>();
        JsonNode statics = nat.path("staticBib");
        for (int i = 0; i < statics.size(); i++) {
            bib.add(staticBib(statics.get(i), at + ".staticBib[" + i + "]"));
        }
        Map<String, Device> devices = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.path("devices").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> d = it.next();
            JsonNode sw = d.getValue().path("nat64fabric");
            if (sw.isObject()) {
                String field = "devices." + d.getKey();
                JsonNode mgmt = d.getValue().path("basic").path("managementAddress");
                devices.put(d.getKey(), new Device(switchConfig(d.getKey(), sw, field + ".nat64fabric"),
                        mgmt.isTextual() ? mgmt.asText() : null));
            }
        }
        return new FabricConfig(nat64, eamt, bib, devices);
    }

    public static Nat64Config nat64(JsonNode nat, String at) {
        Nat64Config.Builder b = Nat64Config.builder()
                .pool6(Pool6.parse(text(nat, "pool6", at), at + ".pool6"))
                .pool4(pool4(nat.path("pool4"), at + ".pool4"));
        JsonNode t = nat.path("timeouts");
        Timeouts d = Timeouts.DEFAULTS;
        b.timeouts(Timeouts.of(number(t, "udp", d.udp, at + ".timeouts"),
                number(t, "tcpEstablished", d.tcpEstablished, at + ".timeouts"),
                number(t, "tcpTransitory", d.tcpTransitory, at + ".timeouts"),
                number(t, "tcpIncomingSyn", d.tcpIncomingSyn, at + ".timeouts"),
                number(t, "icmp", d.icmp, at + ".timeouts")));
        if (nat.has("addressDependentFiltering")) {
            b.addressDependentFiltering(bool(nat, "addressDependentFiltering", at));
        }
        if (nat.has("maxSessionsPerSubscriber")) {
            b.maxSessionsPerSubscriber((int) number(nat, "maxSessionsPerSubscriber", 0, at));
        }
        if (nat.has("logDestination")) {
            b.logDestination(bool(nat, "logDestination", at));
        }
        return b.build();
    }

    private static Pool4Config pool4(JsonNode p, String at) {
        if (!p.isObject()) {
            throw new ConfigException(at, "missing: give pool4.addresses, a list of IPv4 prefixes");
        }
        Pool4Config.Builder b = Pool4Config.builder();
        List<Ipv4Prefix> addresses = new ArrayList<>();
        JsonNode list = p.path("addresses");
        if (!list.isArray()) {
            throw new ConfigException(at + ".addresses", "must be a list of IPv4 prefixes");
        }
        for (int i = 0; i < list.size(); i++) {
            addresses.add(Ipv4Prefix.parse(list.get(i).asText(), at + ".addresses[" + i + "]"));
        }
        b.addresses(addresses);
        for (Protocol proto : Protocol.values()) {
            String name = proto.name().toLowerCase(Locale.ROOT) + "Ports";
            JsonNode range = p.path(name);
            if (!range.isMissingNode()) {
                if (!range.isArray() || range.size() != 2 || !range.get(0).isInt() || !range.get(1).isInt()) {
                    throw new ConfigException(at + "." + name, "must be [first, last], two port numbers");
                }
                b.ports(proto, range.get(0).asInt(), range.get(1).asInt());
            }
        }
        if (p.has("blockSize")) {
            b.blockSize((int) number(p, "blockSize", 0, at));
        }
        if (p.has("blocksPerSubscriber")) {
            b.blocksPerSubscriber((int) number(p, "blocksPerSubscriber", 0, at));
        }
        if (p.has("subscriberPrefixLength")) {
            b.subscriberPrefixLength((int) number(p, "subscriberPrefixLength", 0, at));
        }
        if (p.has("holdSeconds")) {
            b.holdMillis(number(p, "holdSeconds", 0, at) * 1000);
        }
        if (p.has("deterministic")) {
            b.deterministic(Ipv6Prefix.parse(text(p, "deterministic", at), at + ".deterministic"));
        }
        return b.build();
    }

    public static Eam eam(JsonNode e, String at) {
        return Eam.of(Ipv6Prefix.parse(text(e, "ipv6Prefix", at), at + ".ipv6Prefix"),
                Ipv4Prefix.parse(text(e, "ipv4Prefix", at), at + ".ipv4Prefix"), at);
    }

    public static StaticBib staticBib(JsonNode e, String at) {
        return new StaticBib(protocol(text(e, "protocol", at), at + ".protocol"),
                Ipv6Address.parse(text(e, "ipv6Address", at), at + ".ipv6Address"),
                port(e, "ipv6Port", at),
                new TransportAddress(Ipv4Address.parse(text(e, "ipv4Address", at), at + ".ipv4Address"),
                        port(e, "ipv4Port", at)));
    }

    public static Protocol protocol(String text, String field) {
        try {
            return Protocol.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(field, "'" + text + "' is not a protocol: TCP, UDP or ICMP");
        }
    }

    public static SwitchConfig switchConfig(String deviceId, JsonNode sw, String at) {
        SwitchConfig.Role role;
        try {
            role = SwitchConfig.Role.valueOf(text(sw, "role", at).toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(at + ".role", "must be EDGE (routes only) or BORDER (also translates)");
        }
        long routerMac = Route.mac(text(sw, "routerMac", at), at + ".routerMac");
        Ipv4Address v4 = sw.has("ipv4") ? Ipv4Address.parse(text(sw, "ipv4", at), at + ".ipv4") : null;
        Ipv6Address v6 = sw.has("ipv6") ? Ipv6Address.parse(text(sw, "ipv6", at), at + ".ipv6") : null;
        List<Route> routes = new ArrayList<>();
        JsonNode list = sw.path("routes");
        for (int i = 0; i < list.size(); i++) {
            JsonNode r = list.get(i);
            String field = at + ".routes[" + i + "]";
            String prefix = text(r, "prefix", field);
            if (r.has("action")) {
                Route.Kind kind;
                try {
                    kind = Route.Kind.valueOf(text(r, "action", field).toUpperCase(Locale.ROOT).replace('-', '_'));
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(field + ".action", "must be hairpin, no_route or punt"
                            + " (or give port and nextHopMac for a next hop)");
                }
                routes.add(Route.of(prefix, kind, field));
            } else {
                long src = r.has("srcMac") ? Route.mac(text(r, "srcMac", field), field + ".srcMac") : routerMac;
                routes.add(Route.nextHop(prefix, (int) number(r, "port", -1, field), src,
                        Route.mac(text(r, "nextHopMac", field), field + ".nextHopMac"), field));
            }
        }
        Map<Integer, Integer> mtus = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = sw.path("portMtus").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> m = it.next();
            String field = at + ".portMtus." + m.getKey();
            if (!m.getKey().matches("\\d{1,3}") || !m.getValue().isInt() || m.getValue().asInt() < 1280) {
                throw new ConfigException(field, "must map a port number to an MTU of at least 1280");
            }
            mtus.put(Integer.parseInt(m.getKey()), m.getValue().asInt());
        }
        return new SwitchConfig(deviceId, role, routerMac, v4, v6, routes, mtus);
    }

    private static String text(JsonNode node, String name, String at) {
        JsonNode v = node.path(name);
        if (!v.isTextual()) {
            throw new ConfigException(at + "." + name, v.isMissingNode() ? "missing" : "must be a string");
        }
        return v.asText();
    }

    private static long number(JsonNode node, String name, long otherwise, String at) {
        JsonNode v = node.path(name);
        if (v.isMissingNode()) {
            if (otherwise < 0) {
                throw new ConfigException(at + "." + name, "missing");
            }
            return otherwise;
        }
        if (!v.isIntegralNumber()) {
            throw new ConfigException(at + "." + name, "must be a whole number");
        }
        return v.asLong();
    }

    private static int port(JsonNode node, String name, String at) {
        long p = number(node, name, -1, at);
        if (p < 0 || p > 65535) {
            throw new ConfigException(at + "." + name, p + " is not a port (0-65535)");
        }
        return (int) p;
    }

    private static boolean bool(JsonNode node, String name, String at) {
        JsonNode v = node.path(name);
        if (!v.isBoolean()) {
            throw new ConfigException(at + "." + name, "must be true or false");
        }
        return v.asBoolean();
    }
}
