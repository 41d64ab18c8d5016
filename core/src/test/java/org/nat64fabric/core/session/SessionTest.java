package org.nat64fabric.core.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;

/** A session's key names its row in the durable store: its text must not change between releases. */
class SessionTest {
    private static final BibEntry BIB = new BibEntry(Protocol.UDP, Ipv6Address.parse("2001:db8::1", "a"), 1234,
            new TransportAddress(Ipv4Address.parse("192.0.2.1", "b"), 2000), false);

    @Test
    void theKeyIsTheBibEntrysIpv6SideAndTheRemoteIpv4Address() {
        Session s = new Session(BIB, new TransportAddress(Ipv4Address.parse("198.51.100.7", "r"), 53),
                Ipv6Address.parse("64:ff9b::c633:6407", "r6"), null, 300, 0);
        assertEquals("UDP [2001:db8::1]:1234 -> 198.51.100.7:53", s.key());
        assertSame(s.key(), s.with(null, 120).key());   // the same flow's key, not made again
    }

    @Property
    void theKeyReadsAsItsPartsWritten(@ForAll int address, @ForAll @IntRange(max = 65535) int port) {
        TransportAddress remote4 = new TransportAddress(Ipv4Address.of(address), port);
        assertEquals(BIB.key6() + " -> " + remote4.address() + ":" + port, Session.key(BIB, remote4));
    }
}
