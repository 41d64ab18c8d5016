package org.nat64fabric.core.event;

import java.util.ArrayList;
import java.util.List;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;

/**
 * Builds RFC 8158 events. With {@code logDestination} off, session events leave out the
 * destination (RFC 6888 REQ-12: an operator may be required not to log it).
 */
public final class NatEvents {
    private static final List<String> BIB = List.of("sourceIPv6Address", "postNATSourceIPv4Address",
            "protocolIdentifier", "sourceTransportPort", "postNAPTSourceTransportPort");
    private static final List<String> SESSION_WITH_DESTINATION = withAll(BIB, "destinationIPv6Address",
            "postNATDestinationIPv4Address", "destinationTransportPort", "postNAPTDestinationTransportPort");
    private static final List<String> PORT_BLOCK = List.of("sourceIPv6Address", "postNATSourceIPv4Address",
            "protocolIdentifier", "portRangeStart", "portRangeEnd", "portRangeStepSize", "portRangeNumPorts");
    private static final List<String> EXHAUSTED = List.of("protocolIdentifier");
    private static final List<String> QUOTA = List.of("natQuotaExceededEvent", "maxEntriesPerUser", "sourceIPv6Address");

    private final boolean logDestination;

    public NatEvents(boolean logDestination) {
        this.logDestination = logDestination;
    }

    public NatEvent bib(boolean created, BibEntry b, long now) {
        return new NatEvent(created ? NatEvent.Type.NAT64_BIB_CREATE : NatEvent.Type.NAT64_BIB_DELETE, now, BIB,
                b.address6(), b.v4().address(), b.protocol().number, b.port6(), b.v4().port());
    }

    public NatEvent session(boolean created, Session s, long now) {
        NatEvent.Type type = created ? NatEvent.Type.NAT64_SESSION_CREATE : NatEvent.Type.NAT64_SESSION_DELETE;
        BibEntry b = s.bib();
        if (!logDestination) {
            return new NatEvent(type, now, BIB, b.address6(), b.v4().address(), b.protocol().number, b.port6(),
                    b.v4().port());
        }
        return new NatEvent(type, now, SESSION_WITH_DESTINATION, b.address6(), b.v4().address(), b.protocol().number,
                b.port6(), b.v4().port(), s.remote6(), s.remote4().address(), s.remote4().port(), s.remote4().port());
    }

    public NatEvent portBlock(boolean allocated, PortBlock b, long now) {
        return new NatEvent(allocated ? NatEvent.Type.PORT_BLOCK_ALLOCATION : NatEvent.Type.PORT_BLOCK_DEALLOCATION,
                now, PORT_BLOCK, b.subscriber(), b.address(), b.protocol().number, b.first(), b.last(), 1,
                b.last() - b.first() + 1);
    }

    /** The pool has no port for a new mapping (natEvent 12), or no address at all (3). */
    public NatEvent exhausted(boolean addresses, Protocol protocol, long now) {
        return new NatEvent(addresses ? NatEvent.Type.NAT_ADDRESSES_EXHAUSTED : NatEvent.Type.NAT_PORTS_EXHAUSTED,
                now, EXHAUSTED, protocol.number);
    }

    /**
     * A subscriber hit a limit (natEvent 13); natQuotaExceededEvent 3 is "maximum entries per
     * user" (RFC 8158 4.1.2), used for both the block limit (in ports: blocks × block size) and the
     * session limit.
     */
    public NatEvent quotaExceeded(Ipv6Address subscriber, int limit, long now) {
        return new NatEvent(NatEvent.Type.QUOTA_EXCEEDED, now, QUOTA, 3, limit, subscriber);
    }

    private static List<String> withAll(List<String> first, String... more) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(more));
        return List.copyOf(all);
    }
}
