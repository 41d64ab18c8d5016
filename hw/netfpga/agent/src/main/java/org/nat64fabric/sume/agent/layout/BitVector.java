package org.nat64fabric.sume.agent.layout;

import java.math.BigInteger;

/**
 * SDNet's table words: fields concatenated most significant first, each cut to its width, as the
 * P4-NetFPGA CLI's {@code _hexify} builds a key, mask or value ({@code ret = (ret << bits) + (val & mask)}).
 */
public final class BitVector {
    private BitVector() {
    }

    public static BigInteger concat(BigInteger[] values, int[] widths) {
        if (values.length != widths.length) {
            throw new IllegalArgumentException(values.length + " values for " + widths.length + " fields");
        }
        BigInteger out = BigInteger.ZERO;
        for (int i = 0; i < values.length; i++) {
            out = out.shiftLeft(widths[i]).or(values[i].and(ones(widths[i])));
        }
        return out;
    }

    /** The fields of a word made by {@link #concat}, first field first. */
    public static BigInteger[] split(BigInteger word, int[] widths) {
        BigInteger[] out = new BigInteger[widths.length];
        for (int i = widths.length - 1; i >= 0; i--) {
            out[i] = word.and(ones(widths[i]));
            word = word.shiftRight(widths[i]);
        }
        return out;
    }

    public static BigInteger ones(int width) {
        return BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE);
    }

    /** The smallest width that holds every number up to {@code max} (at least 1). */
    public static int widthFor(int max) {
        return Math.max(1, 32 - Integer.numberOfLeadingZeros(max));
    }

    public static int sum(int[] widths) {
        int s = 0;
        for (int w : widths) {
            s += w;
        }
        return s;
    }
}
