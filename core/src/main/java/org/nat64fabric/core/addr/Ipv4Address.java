package org.nat64fabric.core.addr;

import java.io.Serializable;
import com.google.common.net.InetAddresses;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.regex.Pattern;
import org.nat64fabric.core.ConfigException;

/** An IPv4 address as a 32-bit value. */
public final class Ipv4Address implements Serializable {
    /** Kept in the embedded controller's durable store. */
    private static final long serialVersionUID = 1L;

    /** ASCII hex digits, colons and dots only; at most 45 characters, the longest IPv6 text. */
    private static final Pattern LITERAL = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

    private final int bits;

    private Ipv4Address(int bits) {
        this.bits = bits;
    }

    /** Addresses made lately, shared as {@link Ipv6Address#of} shares them. */
    private static final Ipv4Address[] RECENT = new Ipv4Address[4096];

    public static Ipv4Address of(int bits) {
        int slot = (bits * 0x9E3779B9) >>> 20;
        Ipv4Address a = RECENT[slot];
        if (a == null || a.bits != bits) {
            a = new Ipv4Address(bits);
            RECENT[slot] = a;
        }
        return a;
    }

    /** Parses dotted-quad text; {@code field} names the value in the error. */
    public static Ipv4Address parse(String text, String field) {
        InetAddress a = text == null ? null : InetAddresses.forString(checkLiteral(text, field));
        if (!(a instanceof Inet4Address) || text.indexOf(':') >= 0) {   // Java reads ::ffff:a.b.c.d as IPv4
            throw new ConfigException(field, ConfigException.quote(text) + " is not an IPv4 address"
                    + (a instanceof Inet4Address ? " but IPv4-mapped IPv6 text: give the IPv4 address alone" : ""));
        }
        byte[] b = a.getAddress();
        return of((b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff));
    }

    /**
     * Refuses what Guava's parser would take but a NAT64 must not: zone indexes ({@code %eth0},
     * which name a link, not a host) and non-ASCII digits (Guava reads full-width ones).
     */
    static String checkLiteral(String text, String field) {
        if (text.indexOf('%') >= 0) {
            throw new ConfigException(field, ConfigException.quote(text) + " has a zone index (%...): a zone names"
                    + " a link of one machine, give the address alone");
        }
        if (!LITERAL.matcher(text).matches() || !InetAddresses.isInetAddress(text)) {
            throw new ConfigException(field, ConfigException.quote(text) + " is not an IP address");
        }
        return text;
    }


    public int bits() {
        return bits;
    }

    /** The address as an unsigned number. */
    public long unsigned() {
        return bits & 0xffffffffL;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ipv4Address && ((Ipv4Address) o).bits == bits;
    }

    @Override
    public int hashCode() {
        return bits;
    }

    @Override
    public String toString() {
        return appendTo(new StringBuilder(15)).toString();
    }

    /** Appends the dotted-decimal text to {@code s}: keys that hold an address build it in place. */
    public StringBuilder appendTo(StringBuilder s) {
        return s.append(bits >>> 24).append('.').append(bits >>> 16 & 0xff).append('.').append(bits >>> 8 & 0xff)
                .append('.').append(bits & 0xff);
    }
}
