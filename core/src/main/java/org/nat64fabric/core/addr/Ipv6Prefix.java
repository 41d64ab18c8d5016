package org.nat64fabric.core.addr;

import java.io.Serializable;
import org.nat64fabric.core.ConfigException;

/** An IPv6 prefix: address and length, with no bits set past the length. */
public final class Ipv6Prefix implements Serializable {
    /** Kept in the embedded controller's durable store. */
    private static final long serialVersionUID = 1L;

    private final Ipv6Address address;
    private final int length;

    private Ipv6Prefix(Ipv6Address address, int length) {
        this.address = address;
        this.length = length;
    }

    public static Ipv6Prefix of(Ipv6Address address, int length, String field) {
        if (length < 0 || length > 128) {
            throw new ConfigException(field, "prefix length " + length + " is not between 0 and 128");
        }
        if (!address.mask(length).equals(address)) {
            throw new ConfigException(field, address + "/" + length + " has bits set after the prefix length"
                    + " (did you mean " + address.mask(length) + "/" + length + "?)");
        }
        return new Ipv6Prefix(address, length);
    }

    /** Parses {@code addr/n}; a bare address is a /128. */
    public static Ipv6Prefix parse(String text, String field) {
        if (text == null) {
            throw new ConfigException(field, "missing");
        }
        int slash = text.indexOf('/');
        Ipv6Address a = Ipv6Address.parse(slash < 0 ? text : text.substring(0, slash), field);
        return of(a, slash < 0 ? 128 : Prefixes.length(text.substring(slash + 1), field), field);
    }

    public Ipv6Address address() {
        return address;
    }

    public int length() {
        return length;
    }

    public boolean contains(Ipv6Address a) {
        return a.mask(length).equals(address);
    }

    public boolean overlaps(Ipv6Prefix o) {
        int shorter = Math.min(length, o.length);
        return address.mask(shorter).equals(o.address.mask(shorter));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ipv6Prefix && ((Ipv6Prefix) o).address.equals(address) && ((Ipv6Prefix) o).length == length;
    }

    @Override
    public int hashCode() {
        return address.hashCode() * 129 + length;
    }

    @Override
    public String toString() {
        return address + "/" + length;
    }
}
