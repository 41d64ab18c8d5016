package org.nat64fabric.softswitch.pipeline;

/**
 * The two-rate three-color marker of RFC 2698, colour-blind mode. Tokens are kept in units of
 * one billionth of a packet or byte, so a rate in units per second adds exactly {@code rate}
 * tokens per nanosecond and no rounding accumulates.
 */
public final class TwoRateMarker {
    public static final int GREEN = 0;
    public static final int YELLOW = 1;
    public static final int RED = 2;
    /** MeterType.bytes in v1model.p4's order (packets is 0): the unit a packet's size is counted in. */
    public static final int UNIT_BYTES = 1;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /** A meter's configuration as P4Runtime's MeterConfig carries it. */
    public static final class Config {
        public final long cir;
        public final long cburst;
        public final long pir;
        public final long pburst;

        public Config(long cir, long cburst, long pir, long pburst) {
            this.cir = cir;
            this.cburst = cburst;
            this.pir = pir;
            this.pburst = pburst;
        }
    }

    public final Config config;
    private final long committedCapacity;
    private final long peakCapacity;
    private long committedTokens;
    private long peakTokens;
    private long lastNanos;

    /** Both buckets start full (RFC 2698 section 3), at time {@code nowNanos}. */
    public TwoRateMarker(Config config, long nowNanos) {
        this.config = config;
        this.committedCapacity = scaled(config.cburst);
        this.peakCapacity = scaled(config.pburst);
        this.committedTokens = committedCapacity;
        this.peakTokens = peakCapacity;
        this.lastNanos = nowNanos;
    }

    private static long scaled(long units) {
        return units > Long.MAX_VALUE / NANOS_PER_SECOND ? Long.MAX_VALUE : units * NANOS_PER_SECOND;
    }

    /** Longs per meter cell in a colour count array: packets and bytes of GREEN, YELLOW, then RED. */
    public static final int COUNTS_PER_CELL = 6;

    /** Counts a packet of {@code bytes} of colour {@code color} in the cell at {@code cell} of {@code counts}. */
    public static void count(long[] counts, int cell, int color, long bytes) {
        int at = cell * COUNTS_PER_CELL + 2 * color;
        counts[at]++;
        counts[at + 1] += bytes;
    }

    /**
     * The colour of a packet through a meter cell in the meter's {@code unit} (v1model MeterType):
     * GREEN while the cell is unconfigured ({@code marker} null), as BMv2 does.
     */
    public static int colorOf(TwoRateMarker marker, int unit, long packetLength, long nowNanos) {
        return marker == null ? GREEN : marker.mark(nowNanos, unit == UNIT_BYTES ? packetLength : 1);
    }

    /** The colour of a packet of {@code size} units (1 for packet meters, its length for byte meters). */
    public synchronized int mark(long nowNanos, long size) {
        long elapsed = Math.max(0, nowNanos - lastNanos);
        lastNanos = Math.max(lastNanos, nowNanos);
        committedTokens = refill(committedTokens, committedCapacity, config.cir, elapsed);
        peakTokens = refill(peakTokens, peakCapacity, config.pir, elapsed);
        long need = scaled(size);
        if (peakTokens < need) {
            return RED;
        }
        if (committedTokens < need) {
            peakTokens -= need;
            return YELLOW;
        }
        peakTokens -= need;
        committedTokens -= need;
        return GREEN;
    }

    private static long refill(long tokens, long capacity, long rate, long elapsedNanos) {
        if (rate <= 0 || elapsedNanos == 0) {
            return tokens;
        }
        // Saturate instead of overflowing: long idle periods or high rates simply fill the bucket.
        long room = capacity - tokens;
        if (elapsedNanos >= room / rate + 1) {
            return capacity;
        }
        return tokens + rate * elapsedNanos;
    }
}
