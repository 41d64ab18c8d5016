package org.nat64fabric.core.fabric;

import org.nat64fabric.core.ConfigException;

/**
 * A route on a switch: an IPv4 or IPv6 prefix and a next hop (port and MACs), or one of the
 * pipeline's other route actions. Prefixes are kept as text, checked by {@link #parse}.
 */
public final class Route {
    public enum Kind { NEXT_HOP, HAIRPIN, NO_ROUTE, PUNT }

    /** The highest data-plane port (nat64.p4's 9-bit ports; 511 is v1model's drop port, Constants.CPU_PORT the CPU's). */
    public static final int MAX_PORT = 510;

    public final String prefix;
    public final boolean ipv6;
    public final Kind kind;
    public final int port;
    public final long srcMac;
    public final long dstMac;

    private Route(String prefix, boolean ipv6, Kind kind, int port, long srcMac, long dstMac) {
        this.prefix = prefix;
        this.ipv6 = ipv6;
        this.kind = kind;
        this.port = port;
        this.srcMac = srcMac;
        this.dstMac = dstMac;
    }

    public static Route nextHop(String prefix, int port, long srcMac, long dstMac, String field) {
        if (port < 0 || port > MAX_PORT) {
            throw new ConfigException(field + ".port", port + " is not a data-plane port (0-" + MAX_PORT + ")");
        }
        return new Route(check(prefix, field), prefix.contains(":"), Kind.NEXT_HOP, port, srcMac, dstMac);
    }

    public static Route of(String prefix, Kind kind, String field) {
        if (kind == Kind.NEXT_HOP) {
            throw new ConfigException(field + ".action", "a next hop needs a port and MACs");
        }
        if (kind == Kind.HAIRPIN && prefix.contains(":")) {
            throw new ConfigException(field + ".action", "hairpin is for IPv4 prefixes (pool4 and EAM addresses)");
        }
        return new Route(check(prefix, field), prefix.contains(":"), kind, 0, 0, 0);
    }

    /** A MAC address written as six hex bytes separated by colons. */
    public static long mac(String text, String field) {
        String[] parts = text.split(":");
        if (parts.length != 6) {
            throw new ConfigException(field, ConfigException.quote(text) + " is not a MAC address (six hex bytes, aa:bb:cc:dd:ee:ff)");
        }
        long mac = 0;
        for (String p : parts) {
            if (!p.matches("[0-9A-Fa-f]{1,2}")) {
                throw new ConfigException(field, ConfigException.quote(text) + " is not a MAC address (six hex bytes, aa:bb:cc:dd:ee:ff)");
            }
            mac = mac << 8 | Integer.parseInt(p, 16);
        }
        return mac;
    }

    private static String check(String prefix, String field) {
        if (prefix.contains(":")) {
            org.nat64fabric.core.addr.Ipv6Prefix.parse(prefix, field + ".prefix");
        } else {
            org.nat64fabric.core.addr.Ipv4Prefix.parse(prefix, field + ".prefix");
        }
        return prefix;
    }

    @Override
    public String toString() {
        return prefix + " " + kind + (kind == Kind.NEXT_HOP ? " port " + port : "");
    }
}
