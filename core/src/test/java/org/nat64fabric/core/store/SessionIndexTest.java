package org.nat64fabric.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class SessionIndexTest {
    @Test
    void eachEntryListsExactlyItsLiveSessionsInKeyOrderThroughAddsAndRemoves() {
        Random r = new Random(11);
        SessionIndex index = new SessionIndex(16);
        Map<String, TreeSet<String>> expected = new HashMap<>();
        for (int step = 0; step < 20000; step++) {
            String bib = "UDP [2001:db8::" + r.nextInt(20) + "]:1000";
            String session = bib + " -> 198.51.100." + r.nextInt(6) + ":53";
            if (r.nextInt(5) < 3) {   // adds outnumber removes: entries go from none to one to several and back
                index.add(bib, session);
                expected.computeIfAbsent(bib, k -> new TreeSet<>()).add(session);
            } else {
                index.remove(bib, session);
                expected.computeIfAbsent(bib, k -> new TreeSet<>()).remove(session);
            }
            assertEquals(List.copyOf(expected.get(bib)), index.keysOf(bib), bib + " after step " + step);
        }
        expected.forEach((bib, keys) -> assertEquals(List.copyOf(keys), index.keysOf(bib), bib));
        assertEquals(List.of(), index.keysOf("UDP [2001:db8::99]:1000"));
    }

    @Test
    void threadsAddingAndRemovingSessionsOfOneEntryLoseNone() throws Exception {
        SessionIndex index = new SessionIndex(16);
        String bib = "UDP [2001:db8::1]:1000";
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                done.add(threads.submit(() -> {
                    for (int i = 0; i < 20000; i++) {   // each thread keeps its even sessions, drops its odd ones
                        String key = bib + " -> " + thread + ":" + i;
                        index.add(bib, key);
                        if (i % 2 == 1) {
                            index.remove(bib, key);
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            threads.shutdown();
        }
        TreeSet<String> kept = new TreeSet<>();
        for (int t = 0; t < 4; t++) {
            for (int i = 0; i < 20000; i += 2) {
                kept.add(bib + " -> " + t + ":" + i);
            }
        }
        assertEquals(List.copyOf(kept), index.keysOf(bib));
    }
}
