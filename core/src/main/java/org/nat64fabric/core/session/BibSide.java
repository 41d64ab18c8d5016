package org.nat64fabric.core.session;

import java.util.Objects;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.pool4.Protocol;

/**
 * A BIB entry's IPv6 side: protocol, address and port, which identify the entry within the BIB
 * (RFC 6146 3.1) and both its session table entries, with or without its IPv4 side.
 */
public final class BibSide {
    public final Protocol protocol;
    public final Ipv6Address address;
    public final int port;

    public BibSide(Protocol protocol, Ipv6Address address, int port) {
        this.protocol = protocol;
        this.address = address;
        this.port = port;
    }

    public static BibSide of(BibEntry bib) {
        return new BibSide(bib.protocol(), bib.address6(), bib.port6());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BibSide && ((BibSide) o).protocol == protocol && ((BibSide) o).address.equals(address)
                && ((BibSide) o).port == port;
    }

    @Override
    public int hashCode() {
        return Objects.hash(protocol, address, port);
    }

    @Override
    public String toString() {
        return BibEntry.key6(protocol, address, port);
    }
}
