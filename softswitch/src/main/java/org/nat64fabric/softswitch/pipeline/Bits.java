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

    /** All-ones masks by width, shared: every exact match field of every entry holds one. */
    private static final BigInteger[] WIDE_MASKS = new BigInteger[1025];

    static {
        for (int w = 0; w < WIDE_MASKS.length; w++) {
            WIDE_MASKS[w] = BigInteger.ONE.shiftLeft(w).subtract(BigInteger.ONE);
        }
    }

    /** The two's-complement value of {@code width} bits. */
    public static BigInteger signed(BigInteger bits, int width) {
        return width > 0 && bits.testBit(width - 1) ? bits.subtract(BigInteger.ONE.shiftLeft(width)) : bits;
    }

    public static BigInteger wideMask(int width) {
        return width < WIDE_MASKS.length ? WIDE_MASKS[width] : BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE);
    }

    /**
     * Values below 2^16 (ports, protocol numbers, small ids), each made once and shared: table
     * entries hold them by the million. Filled as asked; a race makes two equal values, both right.
     */
    private static final BigInteger[] SMALL = new BigInteger[1 << 16];

    /** The unsigned big-endian {@code bytes} as a number; one shared instance per value below 2^16. */
    public static BigInteger unsigned(byte[] bytes) {
        if (bytes.length > 2) {
            return new BigInteger(1, bytes);
        }
        int n = 0;
        for (byte b : bytes) {
            n = n << 8 | (b & 0xff);
        }
        BigInteger v = SMALL[n];
        if (v == null) {
            v = BigInteger.valueOf(n);
            SMALL[n] = v;
        }
        return v;
    }

    /** {@code v} cut to {@code width} bits ({@code mask} is wideMask(width)): v itself when it fits, without allocating. */
    public static BigInteger fit(BigInteger v, int width, BigInteger mask) {
        return v.signum() >= 0 && v.bitLength() <= width ? v : v.and(mask);
    }

    /**
     * Scrambles a hash (the finaliser of MurmurHash3's 64-bit variant): keys that differ in a few
     * low bits of several fields, as addresses and ports of sessions do, must not collide the way
     * a sum of 31-multiples makes them.
     */
    public static long mix(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
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
