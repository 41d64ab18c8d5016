package org.nat64fabric.softswitch.pipeline;

import java.math.BigInteger;

/** Helpers for W-bit values held in a long (W up to 64) or a BigInteger (W over 64). */
public final class Bits {
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    private Bits() {
    }

    public static long mask(int width) {
        return width >= 64 ? -1L : (1L << width) - 1;
    }

    public static BigInteger wideMask(int width) {
        return BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE);
    }

    /** Sign-extends a W-bit two's complement value. */
    public static long signExtend(long v, int width) {
        int shift = 64 - width;
        return shift <= 0 ? v : (v << shift) >> shift;
    }

    public static BigInteger unsigned(long v) {
        BigInteger b = BigInteger.valueOf(v);
        return v < 0 ? b.add(TWO_64) : b;
    }
}
