package org.nat64fabric.core.pool4;

import java.io.Serializable;
import org.nat64fabric.core.addr.Ipv4Address;

/** An IPv4 address and a port (or ICMP identifier). */
public final class TransportAddress implements Serializable {
    /** Kept in the embedded controller's durable store. */
    private static final long serialVersionUID = 1L;

    private final Ipv4Address address;
    private final int port;

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
