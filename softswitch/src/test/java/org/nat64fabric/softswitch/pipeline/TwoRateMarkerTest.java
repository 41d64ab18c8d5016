package org.nat64fabric.softswitch.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.nat64fabric.softswitch.pipeline.TwoRateMarker.GREEN;
import static org.nat64fabric.softswitch.pipeline.TwoRateMarker.RED;
import static org.nat64fabric.softswitch.pipeline.TwoRateMarker.YELLOW;

import org.junit.jupiter.api.Test;

/**
 * RFC 2698 colour-blind marking with an explicit clock. Each expected colour follows the RFC's
 * rule (RED if Tp - B < 0, else YELLOW if Tc - B < 0, else GREEN) from the bucket levels noted.
 */
class TwoRateMarkerTest {
    private static final long SECOND = 1_000_000_000L;

    private static int[] marks(TwoRateMarker m, long now, long... sizes) {
        int[] out = new int[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            out[i] = m.mark(now, sizes[i]);
        }
        return out;
    }

    private static void assertColors(int[] expected, int[] actual) {
        assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(actual));
    }

    @Test
    void packetsBeyondTheCommittedBurstAreYellowAndBeyondThePeakBurstRed() {
        // CIR 1/s, CBS 2, PIR 2/s, PBS 4: both buckets start full (Tc 2, Tp 4).
        TwoRateMarker m = new TwoRateMarker(new TwoRateMarker.Config(1, 2, 2, 4), 0);
        assertColors(new int[] {GREEN, GREEN, YELLOW, YELLOW, RED, RED}, marks(m, 0, 1, 1, 1, 1, 1, 1));
        // One second later: Tc 1, Tp 2.
        assertColors(new int[] {GREEN, YELLOW, RED}, marks(m, SECOND, 1, 1, 1));
        // Half a second later: Tc 0.5, Tp 1: enough peak tokens, not enough committed ones.
        assertColors(new int[] {YELLOW, RED}, marks(m, SECOND + SECOND / 2, 1, 1));
    }

    @Test
    void bucketsFillAtTheirRatesAndNoFurtherThanTheirBursts() {
        TwoRateMarker m = new TwoRateMarker(new TwoRateMarker.Config(1, 2, 2, 4), 0);
        marks(m, 0, 1, 1, 1, 1);   // empties both buckets
        // A thousand seconds idle fills them to CBS and PBS only: the first sequence again.
        assertColors(new int[] {GREEN, GREEN, YELLOW, YELLOW, RED}, marks(m, 1000 * SECOND, 1, 1, 1, 1, 1));
        // A rate of a packet per 100 ms (PIR 10/s, CIR 5/s) admits one per step at that pace.
        TwoRateMarker fast = new TwoRateMarker(new TwoRateMarker.Config(5, 1, 10, 1), 0);
        assertColors(new int[] {GREEN, RED}, marks(fast, 0, 1, 1));
        assertColors(new int[] {YELLOW}, marks(fast, SECOND / 10, 1));   // Tc 0.5, Tp 1
        assertColors(new int[] {GREEN}, marks(fast, 3 * SECOND / 10, 1)); // Tc 1 (capped), Tp 1
    }

    @Test
    void byteMetersTakeThePacketLength() {
        // CIR 1000 B/s, CBS 1500, PIR 2000 B/s, PBS 3000.
        TwoRateMarker m = new TwoRateMarker(new TwoRateMarker.Config(1000, 1500, 2000, 3000), 0);
        // Tc 1500 Tp 3000 → G (500, 2000) → Y (500, 1000) → Y (500, 0) → R.
        assertColors(new int[] {GREEN, YELLOW, YELLOW, RED}, marks(m, 0, 1000, 1000, 1000, 1000));
        // 250 ms later: Tc 750, Tp 500. 600 bytes exceed Tp: RED; 400 fit both: GREEN.
        assertColors(new int[] {RED, GREEN}, marks(m, SECOND / 4, 600, 400));
        // A packet larger than the peak burst is always RED, however long the meter idled.
        assertColors(new int[] {RED, GREEN}, marks(m, 100 * SECOND, 3001, 1500));
    }

    @Test
    void zeroRatesAndBurstsMarkEverythingRed() {
        TwoRateMarker m = new TwoRateMarker(new TwoRateMarker.Config(0, 0, 0, 0), 0);
        assertColors(new int[] {RED, RED}, marks(m, 0, 1, 1));
        assertColors(new int[] {RED}, marks(m, 10 * SECOND, 1));
    }

    @Test
    void hugeRatesAndBurstsDoNotOverflow() {
        TwoRateMarker m = new TwoRateMarker(new TwoRateMarker.Config(Long.MAX_VALUE, Long.MAX_VALUE,
                Long.MAX_VALUE, Long.MAX_VALUE), 0);
        assertColors(new int[] {GREEN, GREEN}, marks(m, 0, 1_000_000, 1));
        assertColors(new int[] {GREEN}, marks(m, Long.MAX_VALUE / 2, 1500));
    }

    @Test
    void aClockGoingBackwardsAddsNoTokens() {
        TwoRateMarker m = new TwoRateMarker(new TwoRateMarker.Config(1, 1, 1, 1), 5 * SECOND);
        assertColors(new int[] {GREEN, RED}, marks(m, 5 * SECOND, 1, 1));
        assertColors(new int[] {RED}, marks(m, 4 * SECOND, 1));
        assertColors(new int[] {RED}, marks(m, 5 * SECOND + SECOND / 2, 1));
        assertColors(new int[] {GREEN}, marks(m, 6 * SECOND, 1));
    }
}
