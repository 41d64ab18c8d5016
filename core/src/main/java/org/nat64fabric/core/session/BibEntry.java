package org.nat64fabric.core.session;

import java.io.Serializable;
import java.util.Objects;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;

/**
 * An RFC 6146 BIB entry: the IPv6 transport address (X', x) of a host and the IPv4 transport
 * address (T, t) it is known by. Endpoint-independent: one entry serves every remote. Static
 * entries (port forwarding to an IPv6 server) never expire.
 */
public final class BibEntry implements Serializable {
    /** Kept in the embedded controller's durable store. */
    private static final long serialVersionUID = 1L;

    private final Protocol protocol;
    private final Ipv6Address address6;
    private final int port6;
    private final TransportAddress v4;
    private final boolean isStatic;
    /** The key, made once: the store, its indexes and the sessions' keys ask for it at every setup (key4 is kept by {@link TransportAddress#key}). */
    private transient String key6;

    public BibEntry(Protocol protocol, Ipv6Address address6, int port6, TransportAddress v4, boolean isStatic) {
        this.protocol = protocol;
        this.address6 = address6;
        this.port6 = port6;
        this.v4 = v4;
        this.isStatic = isStatic;
    }

    public Protocol protocol() {
        return protocol;
    }

    public Ipv6Address address6() {
        return address6;
    }

    public int port6() {
        return port6;
    }

    public TransportAddress v4() {
        return v4;
    }

    public boolean isStatic() {
        return isStatic;
    }

    /** Identifies the entry by its IPv6 side, unique within the BIB. */
    public String key6() {
        String k = key6;
        if (k == null) {
            k = key6(protocol, address6, port6);
            key6 = k;
        }
        return k;
    }

    public static String key6(Protocol protocol, Ipv6Address address6, int port6) {
        return protocol + " [" + address6 + "]:" + port6;
    }

    /** Identifies the entry by its IPv4 side, unique within the BIB. */
    public String key4() {
        return key4(protocol, v4);
    }

    public static String key4(Protocol protocol, TransportAddress v4) {
        return v4.key(protocol);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof BibEntry)) {
            return false;
        }
        BibEntry b = (BibEntry) o;
        return b.protocol == protocol && b.address6.equals(address6) && b.port6 == port6 && b.v4.equals(v4)
                && b.isStatic == isStatic;
    }

    @Override
    public int hashCode() {
        return Objects.hash(protocol, address6, port6, v4, isStatic);
    }

    @Override
    public String toString() {
        return key6() + " <-> " + v4 + (isStatic ? " (static)" : "");
    }
}
