package org.nat64fabric.core.fabric;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Prefix;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

/**
 * One switch of the fabric: its role, the addresses it answers for itself (ARP, ND, ping; the
 * source of the ICMP errors it sends), its routes and the IP MTU of its ports: {@code mtu} for
 * every port, {@code portMtus} for the ports that differ.
 *
 * <p>Roles: an EDGE switch routes (IPv6 clients are behind it); a BORDER switch also translates,
 * so it holds pool6, pool4, the EAMT and every session: IPv4 return traffic may enter at any
 * border, so each one holds every IPv4-to-IPv6 entry.
 */
public final class SwitchConfig {
    public enum Role { EDGE, BORDER }

    /** RFC 8200 5: every IPv6 link carries 1280 bytes. */
    public static final int IPV6_MIN_MTU = 1280;

    public final String deviceId;
    public final Role role;
    public final long routerMac;
    public final Ipv4Address address4;
    public final Ipv6Address address6;
    public final List<Route> routes;
    public final int mtu;
    public final Map<Integer, Integer> portMtus;

    public SwitchConfig(String deviceId, Role role, long routerMac, Ipv4Address address4, Ipv6Address address6,
                        List<Route> routes, int mtu, Map<Integer, Integer> portMtus) {
        this.deviceId = deviceId;
        this.role = role;
        this.routerMac = routerMac;
        this.address4 = address4;
        this.address6 = address6;
        this.routes = List.copyOf(routes);
        this.mtu = mtu;
        this.portMtus = Map.copyOf(portMtus);
    }

    public boolean translates() {
        return role == Role.BORDER;
    }

    /** The IP MTU of a port. */
    public int mtuOf(int port) {
        return portMtus.getOrDefault(port, mtu);
    }

    /** The MTU of the port of the route to {@code destination}; the switch's own without one. */
    public int mtuToward(String destination) {
        OptionalInt port = nextHopPort(destination);
        return port.isPresent() ? mtuOf(port.getAsInt()) : mtu;
    }

    /**
     * The port of the route the pipeline takes to {@code destination} (an IPv4 or IPv6 address,
     * longest prefix first); empty when no route holds it or the route is not a next hop.
     */
    public OptionalInt nextHopPort(String destination) {
        return nextHop(destination).map(r -> OptionalInt.of(r.port)).orElse(OptionalInt.empty());
    }

    /**
     * The route the pipeline takes to {@code destination} (an IPv4 or IPv6 address, longest
     * prefix first), with its port and MACs; empty when no route holds it or the route is not a
     * next hop.
     */
    public Optional<Route> nextHop(String destination) {
        return longestMatch(routes, destination).filter(r -> r.kind == Route.Kind.NEXT_HOP);
    }

    /** The route of {@code routes} that holds {@code destination} with the longest prefix; empty for none. */
    public static Optional<Route> longestMatch(List<Route> routes, String destination) {
        boolean ipv6 = destination.contains(":");
        Route best = null;
        int bestLength = -1;
        for (Route r : routes) {
            if (r.ipv6 != ipv6) {
                continue;
            }
            int length;
            boolean holds;
            if (ipv6) {
                Ipv6Prefix p = Ipv6Prefix.parse(r.prefix, "route");
                length = p.length();
                holds = p.contains(Ipv6Address.parse(destination, "destination"));
            } else {
                Ipv4Prefix p = Ipv4Prefix.parse(r.prefix, "route");
                length = p.length();
                holds = p.contains(Ipv4Address.parse(destination, "destination"));
            }
            if (holds && length > bestLength) {
                best = r;
                bestLength = length;
            }
        }
        return Optional.ofNullable(best);
    }
}
