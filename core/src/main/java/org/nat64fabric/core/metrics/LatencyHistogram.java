package org.nat64fabric.core.metrics;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Durations counted in fixed buckets (1, 1.5, 2, 3, 5 and 7 times each power of ten, from 10 µs
 * to 100 s), as Prometheus histograms keep them: recording is two atomic additions and takes no
 * lock, so the setup path records every packet; a quantile reads as the upper bound of its bucket.
 */
public final class LatencyHistogram {
    private static final long[] STEPS = {10, 15, 20, 30, 50, 70};
    /** Upper bounds of the buckets, in microseconds; a last bucket takes everything longer. */
    private static final long[] BOUNDS_US = bounds();

    private final AtomicLongArray counts = new AtomicLongArray(BOUNDS_US.length + 1);
    private final AtomicLong sumMicros = new AtomicLong();

    private static long[] bounds() {
        int decades = 7;                         // 10 µs .. 70 s, then 100 s
        long[] b = new long[decades * STEPS.length + 1];
        long scale = 1;
        for (int d = 0; d < decades; d++, scale *= 10) {
            for (int s = 0; s < STEPS.length; s++) {
                b[d * STEPS.length + s] = STEPS[s] * scale;
            }
        }
        b[b.length - 1] = 10 * scale;
        return b;
    }

    /** Records one duration, in nanoseconds (a negative one, from a clock step, counts as 0). */
    public void record(long nanos) {
        long us = Math.max(0, nanos / 1000);
        int i = Arrays.binarySearch(BOUNDS_US, us);
        counts.incrementAndGet(i >= 0 ? i : -i - 1);      // the first bound at or above it
        sumMicros.addAndGet(us);
    }

    /** The sum of every duration recorded, in microseconds: with {@link #count()}, a mean over any interval. */
    public long sumMicros() {
        return sumMicros.get();
    }

    public long count() {
        long n = 0;
        for (int i = 0; i < counts.length(); i++) {
            n += counts.get(i);
        }
        return n;
    }

    /** The buckets' upper bounds in microseconds, in order; a last bucket beyond them takes the rest. */
    public static long[] boundsMicros() {
        return BOUNDS_US.clone();
    }

    /** Each bucket's count, in the order of {@link #boundsMicros()}, then the bucket beyond the last bound. */
    public long[] bucketCounts() {
        long[] out = new long[counts.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = counts.get(i);
        }
        return out;
    }

    /**
     * The upper bound, in microseconds, of the bucket holding quantile {@code q} (0 to 1); 0 when
     * nothing was recorded, and the largest bound for durations beyond it.
     */
    public long quantileMicros(double q) {
        long rank = Math.max(1, (long) Math.ceil(q * count()));
        long seen = 0;
        for (int i = 0; i < BOUNDS_US.length; i++) {
            seen += counts.get(i);
            if (seen >= rank) {
                return BOUNDS_US[i];
            }
        }
        return count() == 0 ? 0 : BOUNDS_US[BOUNDS_US.length - 1];
    }
}
