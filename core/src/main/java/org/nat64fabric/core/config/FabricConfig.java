package org.nat64fabric.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.addr.Ipv6Prefix;
import org.nat64fabric.core.addr.Reserved;
import org.nat64fabric.core.control.DataPlaneCounters;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.eamt.Eamt;
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
    /** Where the NAT64's section is in the user's file. */
    public static final String NAT64 = "apps." + APP + ".nat64";
    /** The IP MTU of a port the configuration does not name (Ethernet's). */
    public static final int DEFAULT_MTU = 1500;
    /**
     * An IPv4 link's smallest MTU here: 576, the size of the ICMPv4 errors the switch sends,
     * routes and translates (RFC 1812 4.3.2.3), which pass no MTU check and must fit any port.
     */
    private static final int IPV4_MIN_MTU = 576;
    /** The largest MTU the pipeline holds (16 bits). */
    private static final int MAX_MTU = 65535;
    /** ONOS's netcfg subject keys: a fabric file may carry sections for ONOS beside ours. */
    private static final String[] ROOT_KEYS = {"apps", "devices", "ports", "hosts", "links", "regions", "layouts"};

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

    /**
     * A link between two switch ports, from {@code links."DEVICE/PORT-DEVICE/PORT".basic} (ONOS 2.7's
     * BasicLinkConfig): what the embedded controller lists as the fabric's links.
     */
    public static final class Link {
        public final String srcDevice;
        public final int srcPort;
        public final String dstDevice;
        public final int dstPort;
        /** ONOS's link type, upper case: one of {@link #LINK_TYPES}. */
        public final String type;
        /** Runs both ways (ONOS's default). */
        public final boolean bidirectional;

        Link(String srcDevice, int srcPort, String dstDevice, int dstPort, String type, boolean bidirectional) {
            this.srcDevice = srcDevice;
            this.srcPort = srcPort;
            this.dstDevice = dstDevice;
            this.dstPort = dstPort;
            this.type = type;
            this.bidirectional = bidirectional;
        }
    }

    /** ONOS 2.7's link types (org.onosproject.net.Link.Type). */
    public static final List<String> LINK_TYPES = List.of("DIRECT", "INDIRECT", "EDGE", "TUNNEL", "OPTICAL", "VIRTUAL");
    /** BasicLinkConfig's numeric fields, checked and not used here (ONOS's path computation uses them). */
    private static final String[] LINK_NUMBERS = {"metric", "latency", "bandwidth", "jitter", "delay", "loss",
        "availability", "flapping", "tier", "meteredUsage"};
    private static final String[] LINK_BOOLEANS = {"allowed", "durable", "bidirectional", "metered"};
    private static final String[] LINK_FIELDS = Stream.of(List.of("type"), List.of(LINK_BOOLEANS), List.of(LINK_NUMBERS))
            .flatMap(List::stream).toArray(String[]::new);

    /** The NAT64's section ({@link #NAT64}), as the ONOS app's netcfg class receives it alone. */
    public static final class Nat64Section {
        public final Nat64Config nat64;
        public final List<Eam> eamt;
        public final List<StaticBib> staticBib;
        /** Where NAT events are exported as IPFIX; empty: not exported. */
        public final Optional<IpfixConfig> ipfix;

        private Nat64Section(Nat64Config nat64, List<Eam> eamt, List<StaticBib> staticBib,
                             Optional<IpfixConfig> ipfix) {
            this.nat64 = nat64;
            this.eamt = List.copyOf(eamt);
            this.staticBib = List.copyOf(staticBib);
            this.ipfix = ipfix;
        }
    }

    public final Nat64Config nat64;
    public final List<Eam> eamt;
    public final List<StaticBib> staticBib;
    public final Optional<IpfixConfig> ipfix;
    public final Map<String, Device> devices;
    /** The links between the switches, as configured (a link that {@code allowed: false} bars is not one). */
    public final List<Link> links;

    private FabricConfig(Nat64Section section, Map<String, Device> devices, List<Link> links) {
        this.nat64 = section.nat64;
        this.eamt = section.eamt;
        this.staticBib = section.staticBib;
        this.ipfix = section.ipfix;
        this.devices = Map.copyOf(devices);
        this.links = List.copyOf(links);
    }

    public static FabricConfig read(Path file) throws IOException {
        JsonNode root = Json.parse(Files.readAllBytes(file), file.toString());
        if (root == null || !root.isObject()) {
            throw new ConfigException(file.toString(), "must hold a JSON object (docs/netcfg.md)");
        }
        return parse(root);
    }

    public static FabricConfig parse(JsonNode root) {
        Json.only(root, "", ROOT_KEYS);
        JsonNode apps = root.path("apps").path(APP);
        if (apps.isObject()) {
            Json.only(apps, "apps." + APP, "nat64");
        }
        JsonNode nat = apps.path("nat64");
        if (!nat.isObject()) {
            throw new ConfigException(NAT64, "missing: the NAT64's pools and timers go here");
        }
        Nat64Section section = nat64Section(nat, NAT64);
        Map<String, Device> devices = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.path("devices").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> d = it.next();
            JsonNode sw = d.getValue().path("nat64fabric");
            if (sw.isObject()) {
                checkDeviceId(d.getKey());
                String field = "devices." + d.getKey();
                JsonNode mgmt = d.getValue().path("basic").path("managementAddress");
                devices.put(d.getKey(), new Device(switchConfig(d.getKey(), sw, field + ".nat64fabric"),
                        mgmt.isTextual() ? mgmt.asText() : null));
            }
        }
        FabricConfig config = new FabricConfig(section, devices, links(root.path("links"), devices));
        for (int i = 0; i < config.eamt.size(); i++) {
            config.checkSwitchAddresses(config.eamt.get(i), NAT64 + ".eamt[" + i + "]");
        }
        Map<String, String> byAddress = new java.util.HashMap<>();
        for (Map.Entry<String, Device> d : devices.entrySet()) {
            String field = "devices." + d.getKey();
            Ipv6Address v6 = d.getValue().config.address6;
            if (v6 != null && section.nat64.pool6.prefix().contains(v6)) {
                throw new ConfigException(field + ".nat64fabric.ipv6", v6 + " is inside pool6 "
                        + section.nat64.pool6.prefix() + ", whose addresses stand for IPv4 hosts");
            }
            String mgmt = d.getValue().managementAddress;
            String other = mgmt == null ? null : byAddress.putIfAbsent(
                    ManagementAddress.parse(mgmt, field + ".basic.managementAddress").switchKey(), d.getKey());
            if (other != null) {
                throw new ConfigException(field + ".basic.managementAddress", mgmt + " is devices." + other
                        + "'s address too: each switch has its own");
            }
        }
        return config;
    }

    /**
     * {@code links}: ONOS's link subjects, keyed {@code DEVICE/PORT-DEVICE/PORT} (ONOS splits the key
     * on '-'), each end a configured switch and a data-plane port; a link is the subject's
     * {@code basic} section, whose fields ONOS 2.7's BasicLinkConfig has (other sections are ONOS's).
     */
    private static List<Link> links(JsonNode links, Map<String, Device> devices) {
        if (links.isMissingNode()) {
            return List.of();
        }
        object(links, "links");
        List<Link> out = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = links.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> l = it.next();
            String at = "links." + (l.getKey().matches("[A-Za-z0-9:/._-]{1,100}") ? l.getKey()
                    : ConfigException.quote(l.getKey()));
            object(l.getValue(), at);
            String[] ends = l.getKey().split("-", -1);
            if (ends.length != 2) {
                throw new ConfigException(at, "a link's key is its two ends, DEVICE/PORT-DEVICE/PORT"
                        + " (device:leaf1/2-device:border1/1), with no other '-'");
            }
            String srcDevice = linkDevice(ends[0], devices, at);
            int srcPort = linkPort(ends[0], at);
            String dstDevice = linkDevice(ends[1], devices, at);
            int dstPort = linkPort(ends[1], at);
            if (srcDevice.equals(dstDevice) && srcPort == dstPort) {
                throw new ConfigException(at, "both ends are port " + srcPort + " of " + srcDevice
                        + ": a link joins two ports");
            }
            JsonNode basic = l.getValue().path("basic");
            if (basic.isMissingNode()) {
                continue;   // another app's section about this link: not a link of ONOS's without basic
            }
            String b = at + ".basic";
            object(basic, b);
            Json.only(basic, b, LINK_FIELDS);
            for (String number : LINK_NUMBERS) {
                if (basic.has(number) && !basic.get(number).isNumber()) {
                    throw new ConfigException(b + "." + number, "must be a number");
                }
            }
            for (String flag : LINK_BOOLEANS) {
                if (basic.has(flag)) {
                    bool(basic, flag, b);
                }
            }
            String type = basic.has("type") ? text(basic, "type", b).toUpperCase(Locale.ROOT) : "DIRECT";
            if (!LINK_TYPES.contains(type)) {
                throw new ConfigException(b + ".type", ConfigException.quote(basic.get("type").asText())
                        + " is not a link type: " + String.join(", ", LINK_TYPES));
            }
            if (basic.path("allowed").asBoolean(true)) {
                out.add(new Link(srcDevice, srcPort, dstDevice, dstPort, type, basic.path("bidirectional").asBoolean(true)));
            }
        }
        return out;
    }

    /** A link end's device, DEVICE in DEVICE/PORT: one of the fabric's switches. */
    private static String linkDevice(String end, Map<String, Device> devices, String at) {
        int slash = end.lastIndexOf('/');
        if (slash <= 0) {
            throw new ConfigException(at, ConfigException.quote(end) + " is not a link end: DEVICE/PORT"
                    + " (device:leaf1/2)");
        }
        String device = end.substring(0, slash);
        if (!devices.containsKey(device)) {
            throw new ConfigException(at, ConfigException.quote(device) + " is not a switch of the fabric:"
                    + " a link's ends are switches configured under devices (with a nat64fabric section)");
        }
        return device;
    }

    /** A link end's port, PORT in DEVICE/PORT: a data-plane port number. */
    private static int linkPort(String end, String at) {
        String port = end.substring(end.lastIndexOf('/') + 1);
        if (!port.matches("[0-9]{1,3}") || Integer.parseInt(port) > Route.MAX_PORT) {
            throw new ConfigException(at, ConfigException.quote(port) + " in " + ConfigException.quote(end)
                    + " is not a data-plane port number (0-" + Route.MAX_PORT + ")");
        }
        return Integer.parseInt(port);
    }

    /**
     * The NAT64's section with everything that section alone decides: types, ranges, unknown
     * fields, and the EAMs and static BIB entries the pools rule out. Errors name fields under {@code at}.
     */
    public static Nat64Section nat64Section(JsonNode nat, String at) {
        Json.only(nat, at, "pool6", "pool4", "timeouts", "addressDependentFiltering", "maxSessionsPerSubscriber",
                "logDestination", "eamt", "staticBib", "puntPolicing", "setupQueues", "icmpErrors", "udpZeroChecksum", "siitPrefixes", "lowestIpv6Mtu", "ipfix",
                "externallyInitiatedTcp", "maxHeldSyns", "zeroTrafficClass", "ipv4Tos");
        Nat64Config nat64 = nat64(nat, at);
        nat64.icmpErrors.rfc6791Pool().ifPresent(pool -> nat64.pool4.addresses().stream().filter(pool::overlaps).findFirst()
                .ifPresent(p -> {
                    throw new ConfigException(at + ".icmpErrors.rfc6791Pool", pool + " overlaps pool4 " + p
                            + ": an ICMP error's source would look like a session's address (RFC 6791 2)");
                }));
        List<Eam> eamt = new ArrayList<>();
        Eamt table = new Eamt();
        JsonNode eams = list(nat, "eamt", at);
        for (int i = 0; i < eams.size(); i++) {
            String field = at + ".eamt[" + i + "]";
            Eam e = eam(eams.get(i), field);
            nat64.checkEam(e, field);
            table.add(e, field);
            eamt.add(e);
        }
        List<StaticBib> bib = new ArrayList<>();
        JsonNode statics = list(nat, "staticBib", at);
        for (int i = 0; i < statics.size(); i++) {
            String field = at + ".staticBib[" + i + "]";
            StaticBib b = staticBib(statics.get(i), field);
            nat64.checkStaticBib(b.protocol, b.address6, b.v4, field);
            for (int j = 0; j < bib.size(); j++) {
                StaticBib o = bib.get(j);
                if (o.protocol == b.protocol && (o.address6.equals(b.address6) && o.port6 == b.port6 || o.v4.equals(b.v4))) {
                    throw new ConfigException(field, "maps " + (o.v4.equals(b.v4) ? "the IPv4 side" : "the IPv6 side")
                            + " of staticBib[" + j + "] again: one entry per transport address");
                }
            }
            bib.add(b);
        }
        Optional<IpfixConfig> ipfix = nat.has("ipfix") ? Optional.of(ipfix(nat.path("ipfix"), at + ".ipfix"))
                : Optional.empty();
        return new Nat64Section(nat64, eamt, bib, ipfix);
    }

    /**
     * Refuses an EAM that maps a switch's own address: the switch answers for that address
     * itself (ARP, ND, ping, the source of its ICMP errors), so no host may own it.
     */
    public void checkSwitchAddresses(Eam eam, String at) {
        for (Map.Entry<String, Device> d : devices.entrySet()) {
            SwitchConfig sw = d.getValue().config;
            if (sw.address4 != null && eam.ipv4().contains(sw.address4)) {
                throw new ConfigException(at + ".ipv4Prefix", eam.ipv4() + " holds " + sw.address4
                        + ", the address of the switch " + d.getKey() + " (devices." + d.getKey() + ".nat64fabric.ipv4)");
            }
            if (sw.address6 != null && eam.ipv6().contains(sw.address6)) {
                throw new ConfigException(at + ".ipv6Prefix", eam.ipv6() + " holds " + sw.address6
                        + ", the address of the switch " + d.getKey() + " (devices." + d.getKey() + ".nat64fabric.ipv6)");
            }
        }
    }

    /** Refuses a static BIB entry's IPv6 server that is a switch's own address ({@code field} names it). */
    public void checkSwitchAddress(Ipv6Address server, String field) {
        devices.forEach((id, d) -> {
            if (server.equals(d.config.address6)) {
                throw new ConfigException(field, server + " is the address of the switch " + id + " (devices." + id
                        + ".nat64fabric.ipv6), not a server's");
            }
        });
    }

    private static Nat64Config nat64(JsonNode nat, String at) {
        Pool6 pool6 = Pool6.parse(text(nat, "pool6", at), at + ".pool6");
        Reserved.why(pool6.prefix()).ifPresent(why -> {
            throw new ConfigException(at + ".pool6", why);
        });
        Nat64Config.Builder b = Nat64Config.builder().pool6(pool6).pool4(pool4(nat.path("pool4"), at + ".pool4"));
        JsonNode t = nat.path("timeouts");
        if (!t.isMissingNode()) {
            object(t, at + ".timeouts");
            Json.only(t, at + ".timeouts", "udp", "tcpEstablished", "tcpTransitory", "tcpIncomingSyn", "icmp",
                    "belowRfcMinimums");
        }
        Timeouts d = Timeouts.DEFAULTS;
        long udp = number(t, "udp", d.udp, at + ".timeouts");
        long established = number(t, "tcpEstablished", d.tcpEstablished, at + ".timeouts");
        long transitory = number(t, "tcpTransitory", d.tcpTransitory, at + ".timeouts");
        long syn = number(t, "tcpIncomingSyn", d.tcpIncomingSyn, at + ".timeouts");
        long icmp = number(t, "icmp", d.icmp, at + ".timeouts");
        boolean lab = t.has("belowRfcMinimums") && bool(t, "belowRfcMinimums", at + ".timeouts");
        within(at, () -> b.timeouts(Timeouts.of(udp, established, transitory, syn, icmp, lab)));
        if (nat.has("addressDependentFiltering")) {
            b.addressDependentFiltering(bool(nat, "addressDependentFiltering", at));
        }
        if (nat.has("maxSessionsPerSubscriber")) {
            b.maxSessionsPerSubscriber((int) number(nat, "maxSessionsPerSubscriber", 0, Integer.MAX_VALUE, at));
        }
        if (nat.has("logDestination")) {
            b.logDestination(bool(nat, "logDestination", at));
        }
        if (nat.has("puntPolicing")) {
            b.puntPolicing(puntPolicing(nat.path("puntPolicing"), at + ".puntPolicing"));
        }
        if (nat.has("setupQueues")) {
            b.setupQueues(setupQueues(nat.path("setupQueues"), at + ".setupQueues"));
        }
        if (nat.has("icmpErrors")) {
            b.icmpErrors(icmpErrors(nat.path("icmpErrors"), at + ".icmpErrors"));
        }
        if (nat.has("lowestIpv6Mtu")) {
            b.lowestIpv6Mtu((int) number(nat, "lowestIpv6Mtu", 0, Integer.MAX_VALUE, at));
        }
        if (nat.has("siitPrefixes")) {
            b.siitPrefixes(ipv4Prefixes(list(nat, "siitPrefixes", at), at + ".siitPrefixes"));
        }
        if (nat.has("udpZeroChecksum")) {
            b.computeUdpZeroChecksum(eitherOr(nat, "udpZeroChecksum", "compute", "drop", at));
        }
        if (nat.has("externallyInitiatedTcp")) {
            b.dropExternallyInitiatedTcp(!eitherOr(nat, "externallyInitiatedTcp", "allow", "drop", at));
        }
        if (nat.has("zeroTrafficClass")) {
            b.zeroTrafficClass(bool(nat, "zeroTrafficClass", at));
        }
        if (nat.has("ipv4Tos")) {
            b.ipv4Tos((int) number(nat, "ipv4Tos", 0, 255, at));
        }
        if (nat.has("maxHeldSyns")) {
            b.maxHeldSyns((int) number(nat, "maxHeldSyns", 0, Nat64Config.MAX_HELD_SYNS, at));
        }
        return within(at, b::build);
    }

    /** A setting of two words: true for {@code first}, false for {@code second}, refused otherwise. */
    private static boolean eitherOr(JsonNode node, String name, String first, String second, String at) {
        String choice = text(node, name, at);
        if (!choice.equals(first) && !choice.equals(second)) {
            throw new ConfigException(at + "." + name, "must be \"" + first + "\" or \"" + second + "\", not "
                    + ConfigException.quote(choice));
        }
        return choice.equals(first);
    }

    /** A list of IPv4 prefixes of unicast ranges ({@link Reserved}); errors name the element. */
    private static List<Ipv4Prefix> ipv4Prefixes(JsonNode list, String at) {
        List<Ipv4Prefix> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String field = at + "[" + i + "]";
            if (!list.get(i).isTextual()) {
                throw new ConfigException(field, "must be a string, an IPv4 prefix");
            }
            Ipv4Prefix prefix = Ipv4Prefix.parse(list.get(i).asText(), field);
            Reserved.why(prefix).ifPresent(why -> {
                throw new ConfigException(field, why);
            });
            out.add(prefix);
        }
        return out;
    }

    /** {@code puntPolicing}: any of its four fields, the others keep their defaults. */
    private static PuntPolicing puntPolicing(JsonNode p, String at) {
        object(p, at);
        Json.only(p, at, "perPortPps", "perPortBurst", "perSourcePps", "perSourceBurst");
        PuntPolicing d = PuntPolicing.DEFAULTS;
        long portPps = number(p, "perPortPps", d.perPortPps, PuntPolicing.MAX, at);
        long portBurst = number(p, "perPortBurst", d.perPortBurst, PuntPolicing.MAX, at);
        long sourcePps = number(p, "perSourcePps", d.perSourcePps, PuntPolicing.MAX, at);
        long sourceBurst = number(p, "perSourceBurst", d.perSourceBurst, PuntPolicing.MAX, at);
        return within(at, () -> PuntPolicing.of(portPps, portBurst, sourcePps, sourceBurst));
    }

    /** {@code setupQueues}: either field, the other keeps its default (perSubscriber at most the total). */
    private static SetupQueues setupQueues(JsonNode q, String at) {
        object(q, at);
        Json.only(q, at, "perSubscriber", "total");
        SetupQueues d = SetupQueues.DEFAULTS;
        long total = number(q, "total", d.total, SetupQueues.MAX, at);
        long perSubscriber = number(q, "perSubscriber", Math.min(d.perSubscriber, total), SetupQueues.MAX, at);
        return within(at, () -> SetupQueues.of(perSubscriber, total));
    }

    /** {@code ipfix}: the collector's address is required, the rest have defaults. */
    private static IpfixConfig ipfix(JsonNode i, String at) {
        object(i, at);
        Json.only(i, at, "collector", "port", "observationDomainId", "templateRefreshSeconds");
        String collector = text(i, "collector", at);
        int port = (int) number(i, "port", IpfixConfig.DEFAULT_PORT, 65535, at);
        long domain = number(i, "observationDomainId", IpfixConfig.DEFAULT_OBSERVATION_DOMAIN_ID,
                IpfixConfig.MAX_OBSERVATION_DOMAIN_ID, at);
        long refresh = number(i, "templateRefreshSeconds", IpfixConfig.DEFAULT_TEMPLATE_REFRESH_SECONDS,
                IpfixConfig.MAX_TEMPLATE_REFRESH_SECONDS, at);
        return within(at, () -> IpfixConfig.of(collector, port, domain, refresh));
    }

    /** {@code icmpErrors}: any of its fields, the others keep their defaults. */
    private static IcmpErrors icmpErrors(JsonNode e, String at) {
        object(e, at);
        Json.only(e, at, "perPortPps", "perPortBurst", "unmappedPortUnreachable", "rfc6791Pool");
        IcmpErrors d = IcmpErrors.DEFAULTS;
        long pps = number(e, "perPortPps", d.perPortPps, PuntPolicing.MAX, at);
        long burst = number(e, "perPortBurst", d.perPortBurst, PuntPolicing.MAX, at);
        boolean unreachable = e.has("unmappedPortUnreachable") ? bool(e, "unmappedPortUnreachable", at)
                : d.unmappedPortUnreachable;
        Optional<Ipv4Prefix> pool = Optional.empty();
        if (e.has("rfc6791Pool")) {
            String field = at + ".rfc6791Pool";
            Ipv4Prefix prefix = Ipv4Prefix.parse(text(e, "rfc6791Pool", at), field);
            Reserved.why(prefix).ifPresent(why -> {
                throw new ConfigException(field, why);
            });
            if (prefix.length() < 16) {
                throw new ConfigException(field, prefix + " is " + (1L << (32 - prefix.length()))
                        + " addresses: an RFC 6791 pool is a few (give a prefix of /16 or longer)");
            }
            pool = Optional.of(prefix);
        }
        Optional<Ipv4Prefix> rfc6791Pool = pool;
        return within(at, () -> IcmpErrors.of(pps, burst, unreachable, rfc6791Pool));
    }

    private static Pool4Config pool4(JsonNode p, String at) {
        if (!p.isObject()) {
            throw new ConfigException(at, "missing: give pool4.addresses, a list of IPv4 prefixes");
        }
        Json.only(p, at, "addresses", "tcpPorts", "udpPorts", "icmpPorts", "blockSize", "blocksPerSubscriber",
                "subscriberPrefixLength", "holdSeconds", "deterministic");
        Pool4Config.Builder b = Pool4Config.builder();
        JsonNode list = p.path("addresses");
        if (!list.isArray()) {
            throw new ConfigException(at + ".addresses", "must be a list of IPv4 prefixes");
        }
        b.addresses(ipv4Prefixes(list, at + ".addresses"));
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
            b.blockSize((int) number(p, "blockSize", 0, Integer.MAX_VALUE, at));
        }
        if (p.has("blocksPerSubscriber")) {
            b.blocksPerSubscriber((int) number(p, "blocksPerSubscriber", 0, Integer.MAX_VALUE, at));
        }
        if (p.has("subscriberPrefixLength")) {
            b.subscriberPrefixLength((int) number(p, "subscriberPrefixLength", 0, Integer.MAX_VALUE, at));
        }
        if (p.has("holdSeconds")) {
            b.holdMillis(number(p, "holdSeconds", 0, Integer.MAX_VALUE, at) * 1000);
        }
        if (p.has("deterministic")) {
            b.deterministic(Ipv6Prefix.parse(text(p, "deterministic", at), at + ".deterministic"));
        }
        // The builder names fields from the NAT64 section ("pool4.tcpPorts"): put them under its path.
        return within(at.substring(0, at.lastIndexOf('.')), b::build);
    }

    /** An EAM object: {"ipv6Prefix", "ipv4Prefix"}, nothing else. */
    public static Eam eam(JsonNode e, String at) {
        object(e, at);
        Json.only(e, at, "ipv6Prefix", "ipv4Prefix");
        return Eam.of(Ipv6Prefix.parse(text(e, "ipv6Prefix", at), at + ".ipv6Prefix"),
                Ipv4Prefix.parse(text(e, "ipv4Prefix", at), at + ".ipv4Prefix"), at);
    }

    /** A static BIB object: {"protocol", "ipv6Address", "ipv6Port", "ipv4Address", "ipv4Port"}, nothing else. */
    public static StaticBib staticBib(JsonNode e, String at) {
        object(e, at);
        Json.only(e, at, "protocol", "ipv6Address", "ipv6Port", "ipv4Address", "ipv4Port");
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
            throw new ConfigException(field, ConfigException.quote(text) + " is not a protocol: TCP, UDP or ICMP");
        }
    }

    /**
     * A device ID is a URI, as ONOS's are ({@code device:leaf1}): it goes into logs, metrics labels
     * and REST paths, where a space or a line break would split or forge what a reader sees.
     */
    private static void checkDeviceId(String id) {
        try {
            new java.net.URI(id);
        } catch (java.net.URISyntaxException e) {
            StringBuilder shown = new StringBuilder();
            id.codePoints().forEach(c -> shown.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", c)
                    : new String(Character.toChars(c))));
            throw new ConfigException("devices", "\"" + shown + "\" is no device ID: a device ID is a URI such as"
                    + " device:leaf1 (" + e.getReason() + " at index " + e.getIndex() + ")");
        }
        if (id.equals(DataPlaneCounters.FABRIC)) {
            // the counters' name for the sums over every switch: a switch of that name would hide in them
            throw new ConfigException("devices", "\"" + id + "\" names the whole fabric in the counters (GET /stats,"
                    + " /metrics): give the switch another ID, such as device:" + id);
        }
    }

    public static SwitchConfig switchConfig(String deviceId, JsonNode sw, String at) {
        Json.only(sw, at, "role", "routerMac", "ipv4", "ipv6", "routes", "mtu", "portMtus");
        SwitchConfig.Role role;
        try {
            role = SwitchConfig.Role.valueOf(text(sw, "role", at).toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(at + ".role", "must be EDGE (routes only) or BORDER (also translates)");
        }
        long routerMac = Route.mac(text(sw, "routerMac", at), at + ".routerMac");
        if (routerMac == 0 || (routerMac >>> 40 & 1) == 1) {
            throw new ConfigException(at + ".routerMac", text(sw, "routerMac", at) + " is " + (routerMac == 0 ? "zero"
                    : "a group (multicast) address") + ": a router's frames come from a unicast MAC (IEEE 802)");
        }
        Ipv4Address v4 = sw.has("ipv4") ? Ipv4Address.parse(text(sw, "ipv4", at), at + ".ipv4") : null;
        Ipv6Address v6 = sw.has("ipv6") ? Ipv6Address.parse(text(sw, "ipv6", at), at + ".ipv6") : null;
        if (v4 != null) {
            Reserved.why(Ipv4Prefix.of(v4, 32, at + ".ipv4")).ifPresent(why -> {
                throw new ConfigException(at + ".ipv4", why + ": the switch sources ICMP errors and answers ARP from it");
            });
        }
        if (v6 != null) {
            Reserved.why(v6).ifPresent(why -> {
                throw new ConfigException(at + ".ipv6", why + ": the switch sources ICMPv6 errors from it, off its links too");
            });
        }
        List<Route> routes = new ArrayList<>();
        JsonNode list = list(sw, "routes", at);
        for (int i = 0; i < list.size(); i++) {
            JsonNode r = list.get(i);
            String field = at + ".routes[" + i + "]";
            object(r, field);
            Json.only(r, field, "prefix", "port", "nextHopMac", "srcMac", "action");
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
                routes.add(Route.nextHop(prefix, (int) number(r, "port", -1, Integer.MAX_VALUE, field), src,
                        Route.mac(text(r, "nextHopMac", field), field + ".nextHopMac"), field));
            }
        }
        int mtu = (int) number(sw, "mtu", DEFAULT_MTU, MAX_MTU, at);
        checkMtu(mtu, SwitchConfig.IPV6_MIN_MTU, "IPv6's minimum, RFC 8200 5", at + ".mtu");
        Map<Integer, Integer> mtus = new LinkedHashMap<>();
        JsonNode portMtus = sw.path("portMtus");
        if (!portMtus.isMissingNode()) {
            object(portMtus, at + ".portMtus");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = portMtus.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> m = it.next();
            String field = at + ".portMtus." + (m.getKey().matches("[0-9]{1,3}") ? m.getKey()
                    : ConfigException.quote(m.getKey()));
            if (!m.getKey().matches("[0-9]{1,3}") || Integer.parseInt(m.getKey()) > Route.MAX_PORT) {
                throw new ConfigException(field, "keys are data-plane port numbers (0-" + Route.MAX_PORT + ")");
            }
            if (!m.getValue().isInt()) {
                throw new ConfigException(field, "must be a whole number, the port's IP MTU");
            }
            checkMtu(m.getValue().asInt(), IPV4_MIN_MTU, "for an IPv4 link: its ICMP errors, RFC 1812 4.3.2.3;"
                    + " an IPv6 link needs 1280", field);
            mtus.put(Integer.parseInt(m.getKey()), m.getValue().asInt());
        }
        for (int i = 0; i < routes.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (routes.get(i).prefix.equals(routes.get(j).prefix)) {
                    throw new ConfigException(at + ".routes[" + i + "].prefix", routes.get(i).prefix + " is routes[" + j
                            + "]'s prefix too: one route per prefix");
                }
            }
        }
        SwitchConfig config = new SwitchConfig(deviceId, role, routerMac, v4, v6, routes, mtu, mtus);
        for (int i = 0; i < routes.size(); i++) {
            Route r = routes.get(i);
            if (r.ipv6 && r.kind == Route.Kind.NEXT_HOP && config.mtuOf(r.port) < SwitchConfig.IPV6_MIN_MTU) {
                throw new ConfigException(at + ".routes[" + i + "].port", "port " + r.port + " has an MTU of "
                        + config.mtuOf(r.port) + " (portMtus), below IPv6's minimum of 1280 (RFC 8200 5): route IPv6"
                        + " through another port, or give this one 1280 or more");
            }
        }
        return config;
    }

    /**
     * A port's MTU: from 576 for the IPv4 links in portMtus, from 1280 for the switch's own (every
     * port not named, the IPv6 links among them); the pipeline's MTU field has 16 bits.
     */
    private static void checkMtu(int mtu, int min, String why, String field) {
        if (mtu < min || mtu > MAX_MTU) {
            throw new ConfigException(field, mtu + " is not an IP MTU from " + min + " (" + why + ") to " + MAX_MTU);
        }
    }

    /** Runs a builder whose errors name fields relative to a section, and puts them under its path. */
    private static <T> T within(String section, Supplier<T> build) {
        try {
            return build.get();
        } catch (ConfigException e) {
            throw e.under(section);
        }
    }

    private static void object(JsonNode node, String at) {
        if (!node.isObject()) {
            throw new ConfigException(at, "must be a JSON object");
        }
    }

    /** An optional list: missing is empty, anything else but a list is refused. */
    private static JsonNode list(JsonNode node, String name, String at) {
        JsonNode v = node.path(name);
        if (!v.isMissingNode() && !v.isArray()) {
            throw new ConfigException(at + "." + name, "must be a list");
        }
        return v;
    }

    private static String text(JsonNode node, String name, String at) {
        JsonNode v = node.path(name);
        if (!v.isTextual()) {
            throw new ConfigException(at + "." + name, v.isMissingNode() ? "missing" : "must be a string");
        }
        return v.asText();
    }

    /** A whole number from 0 to {@code max}; missing gives {@code otherwise}, or is refused when that is negative. */
    private static long number(JsonNode node, String name, long otherwise, long max, String at) {
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
        // canConvertToLong first: asLong() wraps numbers past 64 bits around (2^64 + 80 would be 80).
        if (!v.canConvertToLong() || v.asLong() < 0 || v.asLong() > max) {
            throw new ConfigException(at + "." + name, ConfigException.quote(v.asText()) + " is not from 0 to " + max);
        }
        return v.asLong();
    }

    private static long number(JsonNode node, String name, long otherwise, String at) {
        return number(node, name, otherwise, Integer.MAX_VALUE, at);
    }

    private static int port(JsonNode node, String name, String at) {
        JsonNode v = node.path(name);
        if (v.isIntegralNumber() && !(v.canConvertToLong() && v.asLong() >= 0 && v.asLong() <= 65535)) {
            throw new ConfigException(at + "." + name, ConfigException.quote(v.asText()) + " is not a port (0-65535)");
        }
        return (int) number(node, name, -1, 65535, at);
    }

    private static boolean bool(JsonNode node, String name, String at) {
        JsonNode v = node.path(name);
        if (!v.isBoolean()) {
            throw new ConfigException(at + "." + name, "must be true or false");
        }
        return v.asBoolean();
    }
}
