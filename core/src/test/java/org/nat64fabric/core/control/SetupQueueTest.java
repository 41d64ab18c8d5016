package org.nat64fabric.core.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-subscriber setup queues: their bounds, who is pushed out when the whole is full, the rounds. */
class SetupQueueTest {
    @Test
    void aSubscribersQueueIsBounded() {
        SetupQueue<String> q = new SetupQueue<>(2, 100);
        assertNull(q.offer("a", "a1"));
        assertNull(q.offer("a", "a2"));
        assertEquals("a3", q.offer("a", "a3"));
        assertEquals(2, q.size());
    }

    @Test
    void aFullWholeMakesRoomForAShortQueueAtTheLongestsExpense() {
        SetupQueue<String> q = new SetupQueue<>(10, 6);
        for (String p : List.of("a1", "a2", "a3", "b1", "b2")) {
            assertNull(q.offer(p.substring(0, 1), p));
        }
        assertNull(q.offer("c", "c1"));
        assertEquals("a3", q.offer("c", "c2"), "the newest packet of the longest queue goes");
        assertEquals("b2", q.offer("d", "d1"), "a and b are both 2 long now: the first to get there goes first");
        assertEquals("a2", q.offer("e", "e1"));
        assertEquals("e2", q.offer("e", "e2"), "no queue is longer than e's would be: refused");
        assertEquals(6, q.size());
    }

    @Test
    void oneSubscriberPerPacketFillsTheWholeAndTheNextIsRefused() {
        SetupQueue<Integer> q = new SetupQueue<>(256, 65_536);
        for (int i = 0; i < 65_536; i++) {
            assertNull(q.offer(i, i));
        }
        for (int i = 65_536; i < 70_000; i++) {
            assertEquals(i, q.offer(i, i));
        }
        assertEquals(65_536, q.size());
    }

    @Test
    void batchesTakeOnePacketPerSubscriberInTurnAndTheLengthsFollow() {
        SetupQueue<String> q = new SetupQueue<>(10, 5);
        for (String p : List.of("a1", "a2", "a3", "b1", "c1")) {
            assertNull(q.offer(p.substring(0, 1), p));
        }
        assertEquals(List.of("a1", "b1", "c1", "a2"), q.take(4, Integer.MAX_VALUE));
        assertEquals(1, q.size());
        // a has one left; d fills the whole and is the longest: a new subscriber pushes out d's newest.
        for (String p : List.of("d1", "d2", "d3", "d4")) {
            assertNull(q.offer("d", p));
        }
        assertEquals("d4", q.offer("e", "e1"));
        assertEquals(List.of("a3", "d1", "e1", "d2", "d3"), q.take(10, Integer.MAX_VALUE));
        assertEquals(0, q.size());
    }

    @Test
    void aBatchTakesAtMostItsShareFromEachSubscriber() {
        SetupQueue<String> q = new SetupQueue<>(100, 1000);
        for (int i = 0; i < 100; i++) {
            assertNull(q.offer("flooder", "f" + i));
        }
        assertNull(q.offer("polite", "p0"));
        assertEquals(List.of("f0", "p0", "f1", "f2"), q.take(1024, 3));
        assertEquals(97, q.size());
    }
}
