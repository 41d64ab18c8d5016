package org.nat64fabric.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.testing.Concurrently;

class SessionIndexTest {
    private static BibEntry bib(int host) {
        return new BibEntry(Protocol.UDP, Ipv6Address.of(0x20010db800000000L, host), 1000,
                new TransportAddress(Ipv4Address.of(0xc0000201), 2000 + host), false);
    }

    private static Session session(BibEntry bib, int remoteHost, int remotePort) {
        TransportAddress remote = new TransportAddress(Ipv4Address.of(0xc6336400 + remoteHost), remotePort);
        return new Session(bib, remote, Ipv6Address.of(0x0064ff9b00000000L, remote.address().bits()), null, 300, 0);
    }

    @Test
    void eachEntryListsExactlyItsLiveSessionsInKeyOrderThroughAddsAndRemoves() {
        Random r = new Random(11);
        SessionIndex index = new SessionIndex();
        Map<BibEntry, TreeSet<String>> expected = new HashMap<>();
        for (int step = 0; step < 20000; step++) {
            BibEntry bib = bib(r.nextInt(20));
            // the remote's highest address and port too: the packed form keeps all 48 bits
            Session session = session(bib, r.nextBoolean() ? 255 : r.nextInt(6), r.nextBoolean() ? 65535 : 53);
            if (r.nextInt(5) < 3) {   // adds outnumber removes: entries go from none to one to several and back
                index.add(session);
                expected.computeIfAbsent(bib, k -> new TreeSet<>()).add(session.key());
            } else {
                index.remove(session);
                expected.computeIfAbsent(bib, k -> new TreeSet<>()).remove(session.key());
            }
            assertEquals(List.copyOf(expected.get(bib)), index.keysOf(bib), bib + " after step " + step);
        }
        expected.forEach((bib, keys) -> assertEquals(List.copyOf(keys), index.keysOf(bib), bib.toString()));
        assertEquals(List.of(), index.keysOf(bib(99)));
    }

    @Test
    void threadsAddingAndRemovingSessionsOfOneEntryLoseNone() throws Exception {
        SessionIndex index = new SessionIndex();
        BibEntry bib = bib(1);
        Concurrently.run(4, thread -> {
            for (int i = 0; i < 20000; i++) {   // each thread keeps its even sessions, drops its odd ones
                Session s = session(bib, thread, i);
                index.add(s);
                if (i % 2 == 1) {
                    index.remove(s);
                }
            }
        });
        TreeSet<String> kept = new TreeSet<>();
        for (int t = 0; t < 4; t++) {
            for (int i = 0; i < 20000; i += 2) {
                kept.add(session(bib, t, i).key());
            }
        }
        assertEquals(List.copyOf(kept), index.keysOf(bib));
    }
}
