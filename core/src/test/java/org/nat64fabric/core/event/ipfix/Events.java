package org.nat64fabric.core.event.ipfix;

import java.util.List;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.event.NatEvent;
import org.nat64fabric.core.event.NatEvents;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.session.TcpState;

/** NAT events as the engine builds them, for the IPFIX tests. */
final class Events {
    static final Ipv6Address HOST = Ipv6Address.parse("2001:db8:1::5", "test");
    static final Ipv6Address SERVER6 = Ipv6Address.parse("64:ff9b::c633:6407", "test");
    static final Ipv4Address SERVER = Ipv4Address.parse("198.51.100.7", "test");
    static final Ipv4Address MAPPED = Ipv4Address.parse("192.0.2.9", "test");
    static final BibEntry BIB = new BibEntry(Protocol.UDP, HOST, 5000, new TransportAddress(MAPPED, 1025), false);
    static final Session SESSION = new Session(BIB, new TransportAddress(SERVER, 53), SERVER6, TcpState.CLOSED, 300,
            1_000);
    static final long NOW = 1_795_511_469_016L;

    private Events() {
    }

    /** One of each kind NatEvents builds, destinations logged or not. */
    static List<NatEvent> everyKind() {
        NatEvents logged = new NatEvents(true);
        NatEvents quiet = new NatEvents(false);
        PortBlock block = new PortBlock(Protocol.UDP, MAPPED, 1024, 1087, HOST);
        return List.of(logged.session(true, SESSION, NOW), logged.session(false, SESSION, NOW),
                quiet.session(true, SESSION, NOW), quiet.session(false, SESSION, NOW),
                logged.bib(true, BIB, NOW), logged.bib(false, BIB, NOW),
                logged.portBlock(true, block, NOW), logged.portBlock(false, block, NOW),
                logged.exhausted(true, Protocol.TCP, NOW), logged.exhausted(false, Protocol.ICMP, NOW),
                logged.quotaExceeded(HOST, 4096, NOW));
    }
}
