package org.nat64fabric.core.pool4;

import java.io.Serializable;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

/** Ports {@code first..last} of one IPv4 address, for one protocol, held by one subscriber. */
public final class PortBlock implements Serializable {
    /** Kept in the embedded controller's durable store. */
    private static final long serialVersionUID = 1L;

    private final Protocol protocol;
    private final Ipv4Address address;
    private final int first;
    private final int last;
    private final Ipv6Address subscriber;

    public PortBlock(Protocol protocol, Ipv4Address address, int first, int last, Ipv6Address subscriber) {
        this.protocol = protocol;
        this.address = address;
        this.first = first;
        this.last = last;
        this.subscriber = subscriber;
    }

    public Protocol protocol() {
        return protocol;
    }

    public Ipv4Address address() {
        return address;
    }

    public int first() {
        return first;
    }

    public int last() {
        return last;
    }

    /** The subscriber: its IPv6 address masked to the configured subscriber prefix length. */
    public Ipv6Address subscriber() {
        return subscriber;
    }

    public boolean contains(int port) {
        return port >= first && port <= last;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PortBlock)) {
            return false;
        }
        PortBlock b = (PortBlock) o;
        return b.protocol == protocol && b.address.equals(address) && b.first == first && b.last == last
                && b.subscriber.equals(subscriber);
    }

    @Override
    public int hashCode() {
        // no varargs array: the pool looks its hints up by block at every allocation
        return (((protocol.hashCode() * 31 + address.hashCode()) * 31 + first) * 31 + last) * 31 + subscriber.hashCode();
    }

    @Override
    public String toString() {
        return protocol + " " + address + ":" + first + "-" + last + " for " + subscriber;
    }
}
