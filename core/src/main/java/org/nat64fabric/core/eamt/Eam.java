package org.nat64fabric.core.eamt;

import java.io.Serializable;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.addr.Ipv6Prefix;

/**
 * One RFC 7757 Explicit Address Mapping: an IPv6 prefix and an IPv4 prefix with the same number
 * of suffix bits, which are copied unchanged in both directions.
 */
public final class Eam implements Serializable {
    /** Kept in the embedded controller's durable store. */
    private static final long serialVersionUID = 1L;

    private final Ipv6Prefix ipv6;
    private final Ipv4Prefix ipv4;

    private Eam(Ipv6Prefix ipv6, Ipv4Prefix ipv4) {
        this.ipv6 = ipv6;
        this.ipv4 = ipv4;
    }

    public static Eam of(Ipv6Prefix ipv6, Ipv4Prefix ipv4, String field) {
        int suffix6 = 128 - ipv6.length();
        int suffix4 = 32 - ipv4.length();
        if (suffix6 != suffix4) {
            throw new ConfigException(field, ipv6 + " leaves " + suffix6 + " suffix bits but " + ipv4 + " leaves "
                    + suffix4 + ": an EAM copies the suffix, so both must leave the same number (RFC 7757 3.2)");
        }
        return new Eam(ipv6, ipv4);
    }

    public static Eam parse(String ipv6, String ipv4, String field) {
        return of(Ipv6Prefix.parse(ipv6, field + ".ipv6"), Ipv4Prefix.parse(ipv4, field + ".ipv4"), field);
    }

    public Ipv6Prefix ipv6() {
        return ipv6;
    }

    public Ipv4Prefix ipv4() {
        return ipv4;
    }

    /** The suffix bits, as a mask over the IPv4 address (the data plane's suffix_mask). */
    public int suffixMask() {
        int suffix = 32 - ipv4.length();
        return suffix == 0 ? 0 : (int) ((1L << suffix) - 1);
    }

    public Ipv4Address toIpv4(Ipv6Address a) {
        return Ipv4Address.of(ipv4.address().bits() | ((int) a.low() & suffixMask()));
    }

    public Ipv6Address toIpv6(Ipv4Address a) {
        Ipv6Address p = ipv6.address();
        return Ipv6Address.of(p.high(), p.low() | (a.bits() & suffixMask() & 0xffffffffL));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Eam && ((Eam) o).ipv6.equals(ipv6) && ((Eam) o).ipv4.equals(ipv4);
    }

    @Override
    public int hashCode() {
        return ipv6.hashCode() * 31 + ipv4.hashCode();
    }

    @Override
    public String toString() {
        return ipv6 + " <-> " + ipv4;
    }
}
