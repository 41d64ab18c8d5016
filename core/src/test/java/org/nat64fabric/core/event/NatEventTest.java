package org.nat64fabric.core.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.session.TcpState;

class NatEventTest {
    private static final BibEntry BIB = new BibEntry(Protocol.TCP, Ipv6Address.parse("2001:db8:1::5", "test"), 40000,
            new TransportAddress(Ipv4Address.parse("192.0.2.9", "test"), 1025), false);
    private static final Session SESSION = new Session(BIB,
            new TransportAddress(Ipv4Address.parse("198.51.100.7", "test"), 443),
            Ipv6Address.parse("64:ff9b::c633:6407", "test"), TcpState.ESTABLISHED, 7440, 1_000);

    @Test
    void aSessionEventIsOneLineOfItsTemplatesFieldsInOrder() {
        NatEvent e = new NatEvents(true).session(true, SESSION, 1_795_511_469_016L);
        assertEquals("natEvent=6 (NAT64_SESSION_CREATE) observationTimeMilliseconds=1795511469016"
                + " sourceIPv6Address=2001:db8:1::5 postNATSourceIPv4Address=192.0.2.9 protocolIdentifier=6"
                + " sourceTransportPort=40000 postNAPTSourceTransportPort=1025"
                + " destinationIPv6Address=64:ff9b::c633:6407 postNATDestinationIPv4Address=198.51.100.7"
                + " destinationTransportPort=443 postNAPTDestinationTransportPort=443", e.toString());
    }

    @Test
    void appendToAddsTheSameLineToWhatABuilderHolds() {
        NatEvent e = new NatEvents(false).bib(false, BIB, 5);
        StringBuilder line = new StringBuilder("before|");
        assertEquals("before|" + e, e.appendTo(line).toString());
        assertEquals("natEvent=11 (NAT64_BIB_DELETE) observationTimeMilliseconds=5 sourceIPv6Address=2001:db8:1::5"
                + " postNATSourceIPv4Address=192.0.2.9 protocolIdentifier=6 sourceTransportPort=40000"
                + " postNAPTSourceTransportPort=1025", e.toString());
    }

    @Test
    void aFieldIsFoundByItsNameAndTheFieldsKeepTheTemplatesOrder() {
        NatEvent e = new NatEvents(false).session(true, SESSION, 5);
        assertEquals(java.util.List.of("sourceIPv6Address", "postNATSourceIPv4Address", "protocolIdentifier",
                "sourceTransportPort", "postNAPTSourceTransportPort"), java.util.List.copyOf(e.fields().keySet()));
        assertEquals(e.fieldNames(), java.util.List.copyOf(e.fields().keySet()));
        for (String name : e.fieldNames()) {
            assertEquals(e.fields().get(name), e.field(name), name);
        }
        assertEquals(40000, e.field("sourceTransportPort"));
        assertNull(e.field("destinationIPv6Address"), "the destination is not logged");
    }
}
