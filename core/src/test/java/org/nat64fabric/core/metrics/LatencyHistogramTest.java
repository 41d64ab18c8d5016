package org.nat64fabric.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {
    private static final long MS = 1_000_000;

    @Test
    void emptyHistogramReadsZero() {
        LatencyHistogram h = new LatencyHistogram();
        assertEquals(0, h.count());
        assertEquals(0, h.quantileMicros(0.5));
    }

    @Test
    void quantilesAreTheUpperBoundOfTheirBucket() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 98; i++) {
            h.record(2 * MS + 100_000);        // 2.1 ms: the bucket up to 3 ms
        }
        h.record(40 * MS);                     // up to 50 ms
        h.record(40 * MS);
        assertEquals(100, h.count());
        assertEquals(98 * 2_100 + 2 * 40_000, h.sumMicros());
        assertEquals(3_000, h.quantileMicros(0.5));
        assertEquals(3_000, h.quantileMicros(0.98));
        assertEquals(50_000, h.quantileMicros(0.99));
        assertEquals(50_000, h.quantileMicros(1.0));
    }

    @Test
    void boundsAreInclusiveAndExtremesLandInTheEndBuckets() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(15_000);                      // exactly 15 µs
        assertEquals(15, h.quantileMicros(1.0));
        LatencyHistogram tiny = new LatencyHistogram();
        tiny.record(-5);                       // a clock step backwards
        assertEquals(10, tiny.quantileMicros(0.5));
        LatencyHistogram huge = new LatencyHistogram();
        huge.record(1_000 * 1_000 * MS);       // 1000 s, beyond the last bound
        assertEquals(100_000_000, huge.quantileMicros(0.5));
    }
}
