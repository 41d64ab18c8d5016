package org.nat64fabric.sume.agent.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.nat64fabric.sume.agent.card.CardException;

/** Slot allocation and the poll logic of the emulated idle timeouts, against a register of counts in memory. */
class IdleTimersTest {
    private static final long S = 1_000_000_000L;

    /** The card's register of hit counts: a packet adds one to its entry's cell. */
    private final long[] cells = new long[4];
    private final IdleTimers<String> timers = new IdleTimers<>(cells.length, slot -> cells[slot]);

    private void hit(String entry) {
        cells[timers.slot(entry)]++;
    }

    @Test
    void slotsAreDistinctUntilTheyRunOutAndTheOldestFreedIsReusedFirst() throws Exception {
        assertEquals(0, timers.start("a", S, 0));
        assertEquals(1, timers.start("b", S, 0));
        assertEquals(2, timers.start("c", 0, 0));
        assertEquals(3, timers.start("d", S, 0));
        assertEquals(-1, timers.start("e", S, 0), "every slot is held");
        timers.stop("c");
        timers.stop("a");
        assertEquals(2, timers.start("e", S, 0), "c's, freed first");
        assertEquals(0, timers.start("f", S, 0));
        assertEquals(4, timers.inUse());
        timers.clear();
        assertEquals(0, timers.inUse());
        assertEquals(-1, timers.slot("b"));
    }

    @Test
    void aNewEntryStartsFromItsSlotsCountAsItIsNot0() throws Exception {
        cells[0] = 41;   // left by the slot's last owner
        timers.start("a", S, 0);
        assertEquals(List.of("a"), timers.poll(S), "the old count is no hit");
    }

    @Test
    void anIdleEntryIsReportedAtItsTimeoutThenEachPeriodWhileIdle() throws Exception {
        timers.start("a", S, 0);
        assertEquals(List.of(), timers.poll(S - 1));
        assertEquals(List.of("a"), timers.poll(S));
        assertEquals(List.of(), timers.poll(S + S / 2));
        assertEquals(List.of("a"), timers.poll(2 * S));
        assertEquals(S / 4, timers.sinceLastHit("a", 2 * S + S / 4),
                "P4Runtime: a notification resets the entry's timer, time_since_last_hit too");
    }

    @Test
    void aHitSeenByAPollStartsTheTimeoutOverFromThatPoll() throws Exception {
        timers.start("a", S, 0);
        timers.start("b", S, 0);
        hit("a");
        assertEquals(List.of(), timers.poll(S / 4));
        assertEquals(List.of("b"), timers.poll(S));
        hit("a");
        hit("a");
        assertEquals(List.of(), timers.poll(S + S / 5), "two hits between reads: one change");
        assertEquals(S / 10, timers.sinceLastHit("a", S + 3 * S / 10));
        assertEquals(List.of("b"), timers.poll(2 * S), "b, still idle; a, hit seen at 1.2 s, not yet");
        assertEquals(List.of("a"), timers.poll(2 * S + S / 5));
    }

    @Test
    void aPollReadsACountAnEighthOfItsTimeoutApartAndBeforeAReport() throws Exception {
        int[] reads = {0};
        IdleTimers<String> counted = new IdleTimers<>(1, slot -> {
            reads[0]++;
            return cells[slot];
        });
        counted.start("a", 8 * S, 0);
        reads[0] = 0;
        List<String> reported = new java.util.ArrayList<>();
        for (long t = S / 10; t < 8 * S; t += S / 10) {   // polls every 100 ms
            reported.addAll(counted.poll(t));
            if (t == 35 * S / 10) {
                cells[0]++;                                 // a hit at 3.5 s, seen by the read at 4 s
            }
        }
        assertEquals(List.of(), reported);
        assertEquals(7, reads[0], "at 1, 2, ... 7 s: not at each of the 79 polls");
        assertEquals(List.of(), counted.poll(8 * S), "read before the report is due: the hit seen at 4 s");
        assertEquals(List.of(), counted.poll(12 * S - 1));
        assertEquals(List.of("a"), counted.poll(12 * S), "idle for its timeout since the read that saw the hit");
    }

    @Test
    void aCountThatWrappedStillCountsAsAHit() throws Exception {
        cells[0] = 0xffffffffL;
        timers.start("a", S, 0);
        cells[0] = 0;   // the 32-bit cell wrapped
        assertEquals(List.of(), timers.poll(S));
        assertEquals(0, timers.sinceLastHit("a", S));
    }

    @Test
    void anEntryWithoutATimeoutIsNeverReportedButKnowsItsLastHit() throws Exception {
        timers.start("a", 0, 0);
        assertEquals(List.of(), timers.poll(100 * S));
        hit("a");
        assertEquals(0, timers.sinceLastHit("a", 100 * S));
        assertEquals(S, timers.sinceLastHit("a", 101 * S));
    }

    @Test
    void aNewTimeoutCountsFromTheLastHit() throws Exception {
        timers.start("a", 10 * S, 0);
        timers.setTimeout("a", S);
        assertEquals(List.of("a"), timers.poll(S));
    }

    @Test
    void aCardThatCannotBeReadLeavesTheSlotFree() {
        IdleTimers<String> broken = new IdleTimers<>(1, slot -> {
            throw new CardException(CardException.Reason.BAD_ADDRESS, "no register");
        });
        assertThrows(CardException.class, () -> broken.start("a", S, 0));
        assertEquals(0, broken.inUse());
        assertEquals(-1, broken.slot("a"));
    }
}
