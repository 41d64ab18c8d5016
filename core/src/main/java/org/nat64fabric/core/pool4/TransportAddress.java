package org.nat64fabric.core.pool4;

import java.io.Serializable;
import org.nat64fabric.core.addr.Ipv4Address;

/** An IPv4 address and a port (or ICMP identifier). */
public final class TransportAddress implements Serializable {
    /** Kept in the embedded controller's durable store. */
    private static final long serialVersionUID = 1L;

    private final Ipv4Address address;
    private final int port;
    /**
     * The last {@link #key} made: the port store claims a port by it, and the BIB entry mapping
     * that port is kept by it too, so the two share one string (in the object's padding: no
     * bytes more per address).
     */
    private transient String key;

    public TransportAddress(Ipv4Address address, int port) {
        this.address = address;
        this.port = port;
    }

    public Ipv4Address address() {
        return address;
    }

    public int port() {
        return port;
    }

    /** The address's key for {@code protocol} in a store's maps (claimed ports, the BIB by IPv4 side). */
    public String key(Protocol protocol) {
        String k = key;
        String name = protocol.name();
        if (k == null || !k.startsWith(name) || k.charAt(name.length()) != ' ') {
            k = name + " " + this;
            key = k;
        }
        return k;
    }

    /** The address and port in the low 48 bits of a long ({@link #unpacked} makes it again), for tables of longs. */
    public long packed() {
        return (address.bits() & 0xffffffffL) << 16 | (port & 0xffff);
    }

    public static TransportAddress unpacked(long packed) {
        return new TransportAddress(Ipv4Address.of((int) (packed >>> 16)), (int) packed & 0xffff);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TransportAddress && ((TransportAddress) o).address.equals(address)
                && ((TransportAddress) o).port == port;
    }

    @Override
    public int hashCode() {
        return address.hashCode() * 65537 + port;
    }

    @Override
    public String toString() {
        return address + ":" + port;
    }
}
