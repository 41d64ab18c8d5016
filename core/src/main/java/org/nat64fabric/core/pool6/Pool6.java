package org.nat64fabric.core.pool6;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.addr.Ipv6Prefix;

/**
 * An RFC 6052 IPv4-embedded IPv6 prefix (pool6): IPv4 addresses written into IPv6 around the
 * reserved "u" octet (bits 64 to 71), for prefix lengths 32, 40, 48, 56, 64 and 96.
 */
public final class Pool6 {
    public static final Set<Integer> LENGTHS = Set.of(32, 40, 48, 56, 64, 96);
    public static final Ipv6Prefix WELL_KNOWN = Ipv6Prefix.parse("64:ff9b::/96", "well-known prefix");

    /**
     * RFC 6052 3.1: under the well-known prefix only global IPv4 may be represented. These are the
     * IANA IPv4 Special-Purpose Address Registry blocks that are not globally reachable, plus
     * multicast and the reserved 240/4.
     */
    public static final List<Ipv4Prefix> NON_GLOBAL = Stream.of(
            "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
            "192.0.0.0/24", "192.0.2.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
            "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4")
            .map(p -> Ipv4Prefix.parse(p, "non-global range")).collect(Collectors.toUnmodifiableList());

    /**
     * IPv4 that no router forwards, to or from (RFC 1812 4.2.2.11, 5.3.5.1, 5.3.7; RFC 3927 2.7;
     * RFC 5771): "this network", loopback, link-local, multicast and 240/4 with the limited
     * broadcast address. No pool6 represents them, whatever its prefix.
     */
    public static final List<Ipv4Prefix> NEVER_FORWARDED = Stream.of(
            "0.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "224.0.0.0/4", "240.0.0.0/4")
            .map(p -> Ipv4Prefix.parse(p, "never-forwarded range")).collect(Collectors.toUnmodifiableList());

    private final Ipv6Prefix prefix;

    private Pool6(Ipv6Prefix prefix) {
        this.prefix = prefix;
    }

    /** Checks RFC 6052 2.2: one of the six lengths, and a zero u octet when the prefix covers it. */
    public static Pool6 of(Ipv6Prefix prefix, String field) {
        if (!LENGTHS.contains(prefix.length())) {
            throw new ConfigException(field, "prefix length " + prefix.length()
                    + " is not one RFC 6052 allows (32, 40, 48, 56, 64 or 96)");
        }
        if (prefix.length() > 64 && ((prefix.address().low() >>> 56) & 0xff) != 0) {
            throw new ConfigException(field, prefix + " sets bits 64-71, which RFC 6052 2.2 reserves (must be zero)");
        }
        return new Pool6(prefix);
    }

    public static Pool6 parse(String text, String field) {
        return of(Ipv6Prefix.parse(text, field), field);
    }

    public Ipv6Prefix prefix() {
        return prefix;
    }

    public boolean isWellKnown() {
        return prefix.equals(WELL_KNOWN);
    }

    /** RFC 6052 3.1: the well-known prefix carries only global IPv4; other prefixes any IPv4 a router forwards. */
    public boolean mayRepresent(Ipv4Address a) {
        return unrepresented().stream().noneMatch(p -> p.contains(a));
    }

    /** The IPv4 ranges this pool6 does not represent: {@link #NON_GLOBAL} under the well-known prefix, else {@link #NEVER_FORWARDED}. */
    public List<Ipv4Prefix> unrepresented() {
        return isWellKnown() ? NON_GLOBAL : NEVER_FORWARDED;
    }

    /** Where bit {@code i} of the IPv4 address goes: after the prefix, stepping over the u octet. */
    private int position(int i) {
        int pos = prefix.length() + i;
        return prefix.length() <= 64 && pos >= 64 ? pos + 8 : pos;
    }

    public Ipv6Address embed(Ipv4Address a) {
        long high = prefix.address().high();
        long low = prefix.address().low();
        for (int i = 0; i < 32; i++) {
            if ((a.bits() >>> (31 - i) & 1) != 0) {
                int pos = position(i);
                if (pos < 64) {
                    high |= 1L << (63 - pos);
                } else {
                    low |= 1L << (127 - pos);
                }
            }
        }
        return Ipv6Address.of(high, low);
    }

    /** The IPv6 prefix that holds every address of {@code p} written into this one. */
    public Ipv6Prefix embed(Ipv4Prefix p) {
        int length = p.length() == 0 ? prefix.length() : position(p.length() - 1) + 1;
        return Ipv6Prefix.of(embed(p.address()), length, "pool6");
    }

    /** The IPv4 address inside {@code a}, which must be in the prefix. */
    public Ipv4Address extract(Ipv6Address a) {
        if (!prefix.contains(a)) {
            throw new IllegalArgumentException(a + " is not in pool6 " + prefix);
        }
        int v4 = 0;
        for (int i = 0; i < 32; i++) {
            v4 = v4 << 1 | a.bit(position(i));
        }
        return Ipv4Address.of(v4);
    }

    @Override
    public String toString() {
        return prefix.toString();
    }
}
