package org.nat64fabric.core.fabric;

import java.util.List;
import java.util.Map;
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
}
