package org.nat64fabric.core.addr;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Address ranges that name no host a NAT64 can map, with the reason an error gives.
 *
 * <p>IPv6 (RFC 4291, RFC 3879, RFC 6145): unspecified, loopback, IPv4-mapped and IPv4-compatible,
 * the IPv4-translated addresses of the first SIIT, link-local and site-local, multicast. Unique local addresses (fc00::/7) are allowed: RFC 4193
 * gives them global scope inside a site, and an IPv6-only site numbered with them is a
 * legitimate NAT64 customer. The documentation prefix 2001:db8::/32 is allowed too: it is global
 * unicast in form (RFC 3849), and the examples and test fabrics use it.
 *
 * <p>IPv4 (RFC 6890): "this network", loopback, link-local, multicast and the reserved class E
 * with the limited broadcast address. Private and shared address space stay allowed: EAMs and pools may
 * well be private (RFC 7757 3).
 */
public final class Reserved {
    private static final Map<Ipv6Prefix, String> V6 = new LinkedHashMap<>();
    private static final Map<Ipv4Prefix, String> V4 = new LinkedHashMap<>();

    static {
        v6("::/128", "the unspecified address (RFC 4291 2.5.2)");
        v6("::1/128", "the loopback address (RFC 4291 2.5.3)");
        // Built from bits: Java's parser turns IPv4-mapped text into an IPv4 address.
        V6.put(Ipv6Prefix.of(Ipv6Address.of(0, 0xffff_0000_0000L), 96, "reserved"),
                "IPv4-mapped (RFC 4291 2.5.5.2), an IPv4 host inside one machine");
        v6("::/96", "IPv4-compatible, deprecated (RFC 4291 2.5.5.1)");
        V6.put(Ipv6Prefix.of(Ipv6Address.of(0, 0xffff_0000_0000_0000L), 96, "reserved"),
                "IPv4-translated (RFC 2765), retired by RFC 6145 1.3: SIIT maps with pool6 or the EAMT now");
        v6("fe80::/10", "link-local (RFC 4291 2.5.6), a different host on every link");
        v6("fec0::/10", "site-local, deprecated (RFC 3879)");
        v6("ff00::/8", "multicast (RFC 4291 2.7)");
        v4("0.0.0.0/8", "'this network' (RFC 6890), never a destination");
        v4("127.0.0.0/8", "loopback (RFC 6890)");
        v4("169.254.0.0/16", "link-local (RFC 3927), which no router forwards (RFC 6890)");
        v4("224.0.0.0/4", "multicast (RFC 5771)");
        v4("240.0.0.0/4", "reserved (RFC 6890), with the limited broadcast address 255.255.255.255");
    }

    private Reserved() {
    }

    /** The reserved IPv6 ranges, for the switches' tables. */
    public static final List<Ipv6Prefix> IPV6 = List.copyOf(V6.keySet());

    private static void v6(String prefix, String why) {
        V6.put(Ipv6Prefix.parse(prefix, "reserved"), why);
    }

    private static void v4(String prefix, String why) {
        V4.put(Ipv4Prefix.parse(prefix, "reserved"), why);
    }

    /** Why {@code a} is no host's unicast address, if it is not. */
    public static Optional<String> why(Ipv6Address a) {
        return V6.entrySet().stream().filter(e -> e.getKey().contains(a))
                .map(e -> a + " is " + e.getValue()).findFirst();
    }

    /** Why {@code p} may not be mapped: it holds reserved addresses. */
    public static Optional<String> why(Ipv6Prefix p) {
        return V6.entrySet().stream().filter(e -> e.getKey().overlaps(p))
                .map(e -> p + " overlaps " + e.getKey() + ", " + e.getValue()).findFirst();
    }

    /** Why {@code p} may not be mapped: it holds reserved addresses. */
    public static Optional<String> why(Ipv4Prefix p) {
        return V4.entrySet().stream().filter(e -> e.getKey().overlaps(p))
                .map(e -> p + " overlaps " + e.getKey() + ", " + e.getValue()).findFirst();
    }
}
