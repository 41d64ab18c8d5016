package org.nat64fabric.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.PortStore;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;

class MapNatStoreTest {
    /** The same maps without the local indexes: every answer comes from a scan. */
    static final class ScanningStore extends MapNatStore {
        ScanningStore() {
            super(new Maps() {
                @Override
                public <V> java.util.Map<String, V> open(String name) {
                    return new ConcurrentHashMap<>();
                }
            }, true);
        }
    }

    /** Counts commits. */
    static final class CountingStore extends MapNatStore {
        int commits;

        CountingStore() {
            super(new Maps() {
                @Override
                public <V> java.util.Map<String, V> open(String name) {
                    return new ConcurrentHashMap<>();
                }
            });
        }

        @Override
        protected void changed() {
            commits++;
        }
    }

    /** Maps that a second store opened on them finds as the first left them. */
    private static MapNatStore.Maps reopenableMaps() {
        java.util.Map<String, java.util.Map<String, Object>> shared = new java.util.HashMap<>();
        return new MapNatStore.Maps() {
            @Override
            @SuppressWarnings("unchecked")
            public <V> java.util.Map<String, V> open(String name) {
                return (java.util.Map<String, V>) (java.util.Map<String, ?>) shared.computeIfAbsent(name,
                        n -> new ConcurrentHashMap<>());
            }
        };
    }

    private static Session session(Random r) {
        // hosts spread over a few /64s and /96s so that prefix counts cross index boundaries
        Ipv6Address host = Ipv6Address.of(0x20010db800000000L | r.nextInt(4),
                (long) r.nextInt(3) << 32 | r.nextInt(6) | (r.nextBoolean() ? 0x8000000000000000L : 0));
        BibEntry bib = new BibEntry(Protocol.UDP, host, 1000 + r.nextInt(5),
                new TransportAddress(Ipv4Address.of(0xc0000200), 2000 + r.nextInt(50)), false);
        return new Session(bib, new TransportAddress(Ipv4Address.of(0xc6336400 | r.nextInt(4)), 53), host,
                null, 300, 0);
    }

    private static List<String> keys(List<Session> sessions) {
        return sessions.stream().map(Session::key).sorted().collect(Collectors.toList());
    }

    @Test
    void theIndexesAnswerAsAScanDoesThroughPutsAndRemoves() {
        Random r = new Random(7);
        MapNatStore indexed = new InMemoryNatStore();
        MapNatStore scanned = new ScanningStore();
        List<Session> live = new ArrayList<>();
        for (int step = 0; step < 3000; step++) {
            if (live.isEmpty() || r.nextInt(3) > 0) {
                Session s = session(r);
                indexed.putSession(s);
                scanned.putSession(s);
                live.add(s);
            } else {
                Session s = live.remove(r.nextInt(live.size()));
                assertEquals(scanned.removeSession(s), indexed.removeSession(s));
            }
            if (!live.isEmpty()) {   // a BIB entry with sessions: one, several, or none left
                BibEntry held = live.get(r.nextInt(live.size())).bib();
                assertEquals(keys(scanned.sessionsOf(held)), keys(indexed.sessionsOf(held)));
            }
            if (step % 50 == 0) {
                Session probe = session(r);
                assertEquals(keys(scanned.sessionsOf(probe.bib())), keys(indexed.sessionsOf(probe.bib())));
                for (int length : new int[] {0, 32, 62, 64, 65, 96, 127, 128}) {
                    Ipv6Address h = probe.bib().address6();
                    assertEquals(scanned.sessionCount(h, length), indexed.sessionCount(h, length),
                            "sessions under " + h.mask(length) + "/" + length);
                }
            }
        }
        assertEquals(indexed.sessions().size(), indexed.sessionCount(Ipv6Address.of(0, 0), 0));
    }

    @Test
    void theCountsByProtocolAreThoseAScanFindsThroughAddsRemovesAndAReopen() {
        Random r = new Random(11);
        MapNatStore.Maps maps = reopenableMaps();
        MapNatStore counting = new MapNatStore(maps);
        MapNatStore scanned = new ScanningStore();
        List<Session> live = new ArrayList<>();
        for (int step = 0; step < 3000; step++) {
            if (live.isEmpty() || r.nextInt(3) > 0) {
                Protocol protocol = Protocol.values()[r.nextInt(3)];
                Ipv6Address host = Ipv6Address.of(0x20010db800000000L, r.nextInt(20));
                BibEntry bib = new BibEntry(protocol, host, 1000 + r.nextInt(30),
                        new TransportAddress(Ipv4Address.of(0xc0000200), 2000 + r.nextInt(600)), false);
                // a BIB entry refused by one store is refused by the other: both hold the same
                assertEquals(scanned.addBib(bib).isPresent(), counting.addBib(bib).isPresent());
                BibEntry held = counting.bibBy6(protocol, host, bib.port6()).orElse(null);
                if (held != null) {
                    Session s = new Session(held, new TransportAddress(Ipv4Address.of(0xc6336400 | r.nextInt(4)), 53),
                            host, null, 300, 0);
                    counting.putSession(s);
                    scanned.putSession(s);
                    live.add(s);
                }
            } else {
                Session s = live.remove(r.nextInt(live.size()));
                assertEquals(scanned.removeSession(s), counting.removeSession(s));
                if (r.nextBoolean()) {
                    assertEquals(scanned.removeBib(s.bib()), counting.removeBib(s.bib()));
                }
            }
            if (step % 100 == 0) {
                assertCounts(scanned, counting);
            }
        }
        assertCounts(scanned, counting);
        assertCounts(scanned, new MapNatStore(maps));   // counted again from the maps
    }

    @Test
    void theStaticEntriesFromTheIndexAreThoseAScanFindsThroughAddsRemovesAndAReopen() {
        Random r = new Random(13);
        MapNatStore.Maps maps = reopenableMaps();
        MapNatStore indexed = new MapNatStore(maps);
        MapNatStore scanned = new ScanningStore();
        for (int step = 0; step < 2000; step++) {
            BibEntry bib = new BibEntry(Protocol.values()[r.nextInt(3)], Ipv6Address.of(0x20010db800000000L, r.nextInt(20)),
                    1000 + r.nextInt(10), new TransportAddress(Ipv4Address.of(0xc0000200), 2000 + r.nextInt(100)),
                    r.nextInt(4) == 0);
            if (r.nextBoolean()) {
                assertEquals(scanned.addBib(bib).isPresent(), indexed.addBib(bib).isPresent());
            } else {
                assertEquals(scanned.removeBib(bib), indexed.removeBib(bib));
            }
            if (step % 100 == 0) {
                assertEquals(staticKeys(scanned), staticKeys(indexed));
            }
        }
        assertEquals(staticKeys(scanned), staticKeys(indexed));
        assertEquals(staticKeys(scanned), staticKeys(new MapNatStore(maps)));   // indexed again from the maps
    }

    private static List<String> staticKeys(MapNatStore store) {
        List<String> keys = store.staticBib().stream().map(BibEntry::key6).sorted().collect(Collectors.toList());
        assertEquals(store.bib().stream().filter(BibEntry::isStatic).count(), keys.size());
        return keys;
    }

    private static void assertCounts(MapNatStore scanned, MapNatStore counting) {
        java.util.Map<Protocol, long[]> expected = scanned.counts();
        java.util.Map<Protocol, long[]> counted = counting.counts();
        for (Protocol p : Protocol.values()) {
            assertEquals(java.util.Arrays.toString(expected.get(p)), java.util.Arrays.toString(counted.get(p)), p.name());
        }
    }

    @Test
    void aSubscribersBlocksFromTheIndexAreThoseAScanFindsThroughClaimsReleasesAndAReopen() {
        Random r = new Random(5);
        MapNatStore.Maps maps = reopenableMaps();
        MapNatStore indexed = new MapNatStore(maps);
        MapNatStore scanned = new ScanningStore();
        List<PortBlock> held = new ArrayList<>();
        Ipv6Address[] subscribers = new Ipv6Address[5];
        for (int i = 0; i < subscribers.length; i++) {
            subscribers[i] = Ipv6Address.of(0x20010db800010000L + i, 0);
        }
        for (int step = 0; step < 2000; step++) {
            if (held.isEmpty() || r.nextInt(3) > 0) {
                int first = 1024 + 64 * r.nextInt(900);
                PortBlock b = new PortBlock(Protocol.values()[r.nextInt(3)], Ipv4Address.of(0xc0000200 | r.nextInt(4)),
                        first, first + 63, subscribers[r.nextInt(subscribers.length)]);
                assertEquals(scanned.claimBlock(b), indexed.claimBlock(b));
                held.add(b);
            } else {
                PortBlock b = held.remove(r.nextInt(held.size()));
                indexed.releaseBlock(b);
                scanned.releaseBlock(b);
            }
        }
        MapNatStore reopened = new MapNatStore(maps);
        for (Ipv6Address s : subscribers) {
            List<String> expected = blockKeys(scanned.blocksOf(s));
            assertEquals(expected, blockKeys(indexed.blocksOf(s)), s.toString());
            assertEquals(expected, blockKeys(reopened.blocksOf(s)), "rebuilt from the maps: " + s);
        }
    }

    private static List<String> blockKeys(List<PortBlock> blocks) {
        return blocks.stream().map(PortStore::blockKey).sorted().collect(Collectors.toList());
    }

    @Test
    void anIndexedStoreRebuildsItsIndexesFromItsMaps() {
        Random r = new Random(11);
        ConcurrentHashMap<String, Object> sessions = new ConcurrentHashMap<>();
        MapNatStore.Maps maps = new MapNatStore.Maps() {
            @Override
            @SuppressWarnings("unchecked")
            public <V> java.util.Map<String, V> open(String name) {
                return name.equals("sessions") ? (java.util.Map<String, V>) sessions : new ConcurrentHashMap<>();
            }
        };
        MapNatStore first = new MapNatStore(maps);
        Session s = session(r);
        first.putSession(s);
        MapNatStore reopened = new MapNatStore(maps);
        assertEquals(List.of(s.key()), keys(reopened.sessionsOf(s.bib())));
        assertEquals(1, reopened.sessionCount(s.bib().address6(), 128));
    }

    @Test
    void aBatchCommitsOnceAtItsEnd() {
        CountingStore store = new CountingStore();
        Random r = new Random(3);
        store.putSession(session(r));
        assertEquals(1, store.commits);
        store.batch(() -> {
            for (int i = 0; i < 100; i++) {
                store.putSession(session(r));
            }
            store.batch(() -> store.putSession(session(r)));   // nested: still one commit, at the outer end
            assertEquals(1, store.commits);
        });
        assertEquals(2, store.commits);
    }
}
