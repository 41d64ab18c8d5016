package org.nat64fabric.core.event;

import java.util.LinkedHashMap;
import java.util.Map;
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
    private final boolean logDestination;

    public NatEvents(boolean logDestination) {
        this.logDestination = logDestination;
    }

    public NatEvent bib(boolean created, BibEntry b, long now) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("sourceIPv6Address", b.address6());
        f.put("postNATSourceIPv4Address", b.v4().address());
        f.put("protocolIdentifier", b.protocol().number);
        f.put("sourceTransportPort", b.port6());
        f.put("postNAPTSourceTransportPort", b.v4().port());
        return new NatEvent(created ? NatEvent.Type.NAT64_BIB_CREATE : NatEvent.Type.NAT64_BIB_DELETE, now, f);
    }

    public NatEvent session(boolean created, Session s, long now) {
        Map<String, Object> f = new LinkedHashMap<>();
        BibEntry b = s.bib();
        f.put("sourceIPv6Address", b.address6());
        f.put("postNATSourceIPv4Address", b.v4().address());
        f.put("protocolIdentifier", b.protocol().number);
        f.put("sourceTransportPort", b.port6());
        f.put("postNAPTSourceTransportPort", b.v4().port());
        if (logDestination) {
            f.put("destinationIPv6Address", s.remote6());
            f.put("postNATDestinationIPv4Address", s.remote4().address());
            f.put("destinationTransportPort", s.remote4().port());
            f.put("postNAPTDestinationTransportPort", s.remote4().port());
        }
        return new NatEvent(created ? NatEvent.Type.NAT64_SESSION_CREATE : NatEvent.Type.NAT64_SESSION_DELETE, now, f);
    }

    public NatEvent portBlock(boolean allocated, PortBlock b, long now) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("sourceIPv6Address", b.subscriber());
        f.put("postNATSourceIPv4Address", b.address());
        f.put("protocolIdentifier", b.protocol().number);
        f.put("portRangeStart", b.first());
        f.put("portRangeEnd", b.last());
        f.put("portRangeStepSize", 1);
        f.put("portRangeNumPorts", b.last() - b.first() + 1);
        return new NatEvent(allocated ? NatEvent.Type.PORT_BLOCK_ALLOCATION : NatEvent.Type.PORT_BLOCK_DEALLOCATION,
                now, f);
    }

    /** The pool has no port for a new mapping (natEvent 10), or no address at all (3). */
    public NatEvent exhausted(boolean addresses, Protocol protocol, long now) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("protocolIdentifier", protocol.number);
        return new NatEvent(addresses ? NatEvent.Type.NAT_ADDRESSES_EXHAUSTED : NatEvent.Type.NAT_PORTS_EXHAUSTED,
                now, f);
    }

    /**
     * A subscriber hit a limit (natEvent 11); natQuotaExceededEvent 3 is "maximum entries per
     * user" (RFC 8158 4.1.2), used for both the block and the session limit.
     */
    public NatEvent quotaExceeded(Ipv6Address subscriber, int limit, long now) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("natQuotaExceededEvent", 3);
        f.put("maxEntriesPerUser", limit);
        f.put("sourceIPv6Address", subscriber);
        return new NatEvent(NatEvent.Type.QUOTA_EXCEEDED, now, f);
    }
}
