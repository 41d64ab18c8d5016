package org.nat64fabric.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.nat64fabric.controller.TrackedMap.Changes;
import org.nat64fabric.controller.TrackedMap.RowWrite;
import org.nat64fabric.controller.TrackedMap.Snapshot;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;

class TrackedMapTest {
    private static final Ipv6Address HOST = Ipv6Address.parse("2001:db8:1::10", "host");

    private static Object value(Random random) {
        if (random.nextBoolean()) {
            return random.nextLong();
        }
        return new BibEntry(Protocol.UDP, HOST, random.nextInt(65536),
                new TransportAddress(Ipv4Address.of(0xc0000200 + random.nextInt(256)), random.nextInt(65536)),
                random.nextBoolean());
    }

    /** Keys of every length the store makes and more: ASCII, and a few past it (UTF-8 longer than their chars). */
    private static String key(Random random) {
        int n = random.nextInt(400);
        String base = "udp|2001:db8::" + Integer.toHexString(n) + "|" + (n * 7919 % 65536);
        switch (n % 7) {
            case 0:
                return base + "é";
            case 1:
                return base + "x".repeat(n);
            default:
                return base;
        }
    }

    /** The three ways the store holds its maps: per session (spread, bytes), port blocks (spread, decoded too), the EAMT (one segment). */
    private static final boolean[][] LAYOUTS = {{true, false}, {true, true}, {false, true}};

    /** Random changes, checked against a HashMap after each: with one segment and with 64, through growth, removal and reuse. */
    @Test
    void behavesAsAMapOfItsKeysThroughRandomChanges() {
        for (boolean[] layout : LAYOUTS) {
            Random random = new Random(layout[0] ? 1 : 2);
            TrackedMap<Object> map = new TrackedMap<>("m", new Changes(), layout[0], layout[1]);
            Map<String, Object> reference = new HashMap<>();
            for (int i = 0; i < 40_000; i++) {
                String k = key(random);
                Object v = value(random);
                switch (random.nextInt(6)) {
                    case 0:
                        assertEquals(reference.put(k, v), map.put(k, v));
                        break;
                    case 1:
                        assertEquals(reference.putIfAbsent(k, v), map.putIfAbsent(k, v));
                        break;
                    case 2:
                        assertEquals(reference.remove(k), map.remove(k));
                        break;
                    case 3:
                        Object held = reference.get(k);
                        assertEquals(reference.remove(k, held), map.remove(k, held));
                        break;
                    case 4:
                        assertEquals(reference.compute(k, (x, old) -> old == null ? v : null),
                                map.compute(k, (x, old) -> old == null ? v : null));
                        break;
                    default:
                        assertEquals(reference.get(k), map.get(k));
                        assertEquals(reference.containsKey(k), map.containsKey(k));
                }
                if (i % 5_000 == 0) {
                    assertEquals(reference, new HashMap<>(map), "after " + i + " changes");
                }
            }
            assertEquals(reference.size(), map.size());
            assertEquals(reference, new HashMap<>(map));
        }
    }

    @Test
    void aCommitGetsEachChangedKeysRowAsItIsThenAndTheRowsOfKeysGone() throws Exception {
        Changes changes = new Changes();
        TrackedMap<Object> map = new TrackedMap<>("bib6", changes, true, false);
        map.put("a", 1L);
        map.put("b", 2L);
        Snapshot first = changes.snapshot();
        assertEquals(2, first.writes.size());
        long seqOfA = first.writes.stream().filter(w -> w.key.equals("a")).findFirst().orElseThrow().seq;

        map.put("a", 3L);           // changed: the same row, the new value
        map.put("b", 2L);           // equal: nothing to write
        map.remove("c");            // absent: nothing
        map.put("d", 4L);
        map.remove("d");            // added and removed between two commits: its row is deleted
        Snapshot second = changes.snapshot();
        assertEquals(1, second.writes.size());
        RowWrite a = second.writes.get(0);
        assertEquals("a", a.key);
        assertEquals("bib6", a.map);
        assertEquals(seqOfA, a.seq);
        assertEquals(3L, StateCodec.decode(a.value));
        assertEquals(1, second.deletes.size());
        assertTrue(second.deletes.get(0) > seqOfA, "d had a row number of its own");

        map.remove("a");
        Snapshot third = changes.snapshot();
        assertTrue(third.writes.isEmpty());
        assertEquals(List.of(seqOfA), third.deletes);
    }

    @Test
    void aRowLoadedFromTheFileIsNotAChangeAndAKeyLoadsOnce() throws Exception {
        Changes changes = new Changes();
        TrackedMap<Object> map = new TrackedMap<>("ports", changes, true, false);
        assertTrue(map.load(41, "udp|192.0.2.1|1024", StateCodec.encode(Long.MAX_VALUE)));
        assertFalse(map.load(42, "udp|192.0.2.1|1024", StateCodec.encode(5L)));
        assertEquals(Long.MAX_VALUE, map.get("udp|192.0.2.1|1024"));
        assertTrue(changes.snapshot().isEmpty());
        map.put("udp|192.0.2.1|1025", 7L);
        assertTrue(changes.snapshot().writes.get(0).seq > 42, "new rows are numbered after every number read");
        assertNull(map.get(42), "a key that is no string is not there");
    }

    /** Four threads claim the same ports: each port has exactly one winner, and every claim is in the map. */
    @Test
    void aClaimHasOneWinnerAcrossThreads() throws Exception {
        TrackedMap<Object> map = new TrackedMap<>("ports", new Changes(), true, false);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        Map<String, Integer> winners = new ConcurrentHashMap<>();
        AtomicInteger wins = new AtomicInteger();
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int port = 0; port < 20_000; port++) {
                        String k = "udp|192.0.2.1|" + port;
                        if (map.putIfAbsent(k, (long) thread) == null) {
                            wins.incrementAndGet();
                            assertNull(winners.put(k, thread));
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(20_000, wins.get());
        assertEquals(20_000, map.size());
        winners.forEach((k, thread) -> assertEquals((long) thread, map.get(k)));
    }

    /**
     * A key with a char past ASCII whose UTF-8 has as many bytes as it has chars (a lone
     * surrogate becomes '?', as in the state file's text) is found again, not added twice.
     */
    @Test
    void aKeyWhoseUtf8IsAsLongAsItsCharsIsFoundAgain() {
        TrackedMap<Object> map = new TrackedMap<>("m", new Changes(), true, false);
        String k = "udp|x\uD800";
        assertNull(map.put(k, 1L));
        assertEquals(1L, map.get(k));
        assertEquals(1L, map.put(k, 2L));
        assertEquals(1, map.size());
        assertEquals(2L, map.remove(k));
        assertEquals(0, map.size());
    }

    /** A commit that failed has its keys marked again, as they are by then: the next snapshot writes them, and the rows deleted. */
    @Test
    void theChangesOfAFailedCommitGoIntoTheNext() throws Exception {
        Changes changes = new Changes();
        TrackedMap<Object> map = new TrackedMap<>("sessions", changes, true, false);
        map.put("a", 1L);
        map.put("b", 2L);
        map.put("gone", 3L);
        Snapshot committed = changes.snapshot();
        map.remove("gone");
        map.put("a", 5L);
        Snapshot failed = changes.snapshot();
        map.put("b", 6L);           // changed after the failed snapshot: marked already
        changes.retry(failed);
        Snapshot next = changes.snapshot();
        Map<String, Object> written = new HashMap<>();
        for (RowWrite w : next.writes) {
            written.put(w.key, StateCodec.decode(w.value));
        }
        assertEquals(Map.of("a", 5L, "b", 6L), written);
        long seqOfGone = committed.writes.stream().filter(w -> w.key.equals("gone")).findFirst().orElseThrow().seq;
        assertEquals(List.of(seqOfGone), next.deletes);
    }

    /**
     * Two threads change keys while a third commits, one commit in four failing and retried; the
     * commits replayed onto a model of the state file (rows by number, then deletions) end with
     * exactly the map's keys and values, one row each.
     */
    @Test
    void theCommittedRowsAreTheMapWhileThreadsChangeIt() throws Exception {
        for (boolean[] layout : LAYOUTS) {
            Changes changes = new Changes();
            TrackedMap<Object> map = new TrackedMap<>("bib4", changes, layout[0], layout[1]);
            Map<Long, RowWrite> file = new HashMap<>();
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<?>> writers = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    Random random = new Random(t);
                    writers.add(pool.submit(() -> {
                        for (int i = 0; i < 60_000; i++) {
                            String k = "k" + random.nextInt(2_000);
                            long v = random.nextInt(3);
                            switch (random.nextInt(4)) {
                                case 0:
                                    map.put(k, v);
                                    break;
                                case 1:
                                    map.putIfAbsent(k, v);
                                    break;
                                case 2:
                                    map.remove(k);
                                    break;
                                default:
                                    map.remove(k, v);
                            }
                        }
                    }));
                }
                int round = 0;
                while (!writers.stream().allMatch(Future::isDone)) {
                    commit(changes, file, round++ % 4 == 0);
                }
                for (Future<?> f : writers) {
                    f.get();
                }
                commit(changes, file, false);
            } finally {
                pool.shutdownNow();
            }
            Map<String, Object> rows = new HashMap<>();
            for (RowWrite w : file.values()) {
                assertNull(rows.put(w.key, StateCodec.decode(w.value)), "one row per key: " + w.key);
            }
            assertEquals(new HashMap<>(map), rows);
        }
    }

    private static void commit(Changes changes, Map<Long, RowWrite> file, boolean fails) {
        Snapshot s = changes.snapshot();
        if (fails) {
            changes.retry(s);
            return;
        }
        s.writes.forEach(w -> file.put(w.seq, w));
        s.deletes.forEach(file::remove);
    }
}
