package org.nat64fabric.core.addr;

import java.io.Serializable;
import org.nat64fabric.core.ConfigException;

/** An IPv4 prefix: address and length, with no bits set past the length. */
public final class Ipv4Prefix implements Serializable {
    /** Kept in the embedded controller's durable store. */
    private static final long serialVersionUID = 1L;

    private final Ipv4Address address;
    private final int length;

    private Ipv4Prefix(Ipv4Address address, int length) {
        this.address = address;
        this.length = length;
    }

    public static Ipv4Prefix of(Ipv4Address address, int length, String field) {
        if (length < 0 || length > 32) {
            throw new ConfigException(field, "prefix length " + length + " is not between 0 and 32");
        }
        if ((address.bits() & ~mask(length)) != 0) {
            throw new ConfigException(field, address + "/" + length + " has bits set after the prefix length"
                    + " (did you mean " + Ipv4Address.of(address.bits() & mask(length)) + "/" + length + "?)");
        }
        return new Ipv4Prefix(address, length);
    }

    /** Parses {@code a.b.c.d/n}; a bare address is a /32. */
    public static Ipv4Prefix parse(String text, String field) {
        if (text == null) {
            throw new ConfigException(field, "missing");
        }
        int slash = text.indexOf('/');
        Ipv4Address a = Ipv4Address.parse(slash < 0 ? text : text.substring(0, slash), field);
        return of(a, slash < 0 ? 32 : Prefixes.length(text.substring(slash + 1), field), field);
    }

    static int mask(int length) {
        return length == 0 ? 0 : -1 << (32 - length);
    }

    public Ipv4Address address() {
        return address;
    }

    public int length() {
        return length;
    }

    /** Number of addresses in the prefix. */
    public long size() {
        return 1L << (32 - length);
    }

    public boolean contains(Ipv4Address a) {
        return (a.bits() & mask(length)) == address.bits();
    }

    public boolean overlaps(Ipv4Prefix o) {
        int shorter = Math.min(length, o.length);
        return ((address.bits() ^ o.address.bits()) & mask(shorter)) == 0;
    }

    /** The {@code i}-th address of the prefix. */
    public Ipv4Address at(long i) {
        return Ipv4Address.of((int) (address.unsigned() + i));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ipv4Prefix && ((Ipv4Prefix) o).address.equals(address) && ((Ipv4Prefix) o).length == length;
    }

    @Override
    public int hashCode() {
        return address.hashCode() * 33 + length;
    }

    @Override
    public String toString() {
        return address + "/" + length;
    }
}
