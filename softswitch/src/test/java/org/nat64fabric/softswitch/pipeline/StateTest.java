package org.nat64fabric.softswitch.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Packet bytes to values and back, and slices of wide values, against byte-by-byte and BigInteger arithmetic. */
class StateTest {
    private final Random random = new Random(7);

    @Test
    void wholeBytesReadAndWrittenBigEndian() {
        for (int round = 0; round < 2000; round++) {
            byte[] buf = new byte[24];
            random.nextBytes(buf);
            int bytes = random.nextInt(9);
            int at = random.nextInt(buf.length - bytes + 1);
            long expected = 0;
            for (int i = 0; i < bytes; i++) {
                expected = (expected << 8) | (buf[at + i] & 0xFF);
            }
            assertEquals(expected, State.getBytes(buf, at, bytes), bytes + " bytes at " + at);

            long v = random.nextLong();
            byte[] written = buf.clone();
            State.putBytes(written, at, bytes, v);
            byte[] reference = buf.clone();
            for (int i = bytes - 1; i >= 0; i--) {
                reference[at + i] = (byte) (v >>> (8 * (bytes - 1 - i)));
            }
            assertArrayEquals(reference, written, bytes + " bytes at " + at);
        }
    }

    @Test
    void wideFieldsReadAsTheirBytes() {
        State s = new State(1, 1);
        byte[] buf = new byte[64];
        byte[][] values = new byte[40][];
        // More distinct values than the recent ones hold, so that places are shared and reused; the
        // odd ones end in the same 64 bits (addresses with one interface ID under different prefixes).
        byte[] sharedLow = new byte[8];
        random.nextBytes(sharedLow);
        for (int round = 0; round < 400; round++) {
            int which = random.nextInt(values.length);
            int width = new int[] {72, 96, 128}[which % 3];
            if (values[which] == null) {
                values[which] = new byte[width / 8];
                random.nextBytes(values[which]);
                if (which % 2 == 1) {
                    System.arraycopy(sharedLow, 0, values[which], width / 8 - 8, 8);
                }
            }
            int at = random.nextInt(buf.length - width / 8 + 1);
            System.arraycopy(values[which], 0, buf, at, width / 8);
            BigInteger v = s.readWideCached(buf, 8 * at, width);
            assertEquals(new BigInteger(1, values[which]), v, "value " + which);
        }
        // Read twice in a row, a value is the same object (that is what spares the allocation).
        byte[] again = values[0] != null ? values[0] : new byte[16];
        System.arraycopy(again, 0, buf, 0, again.length);
        assertSame(s.readWideCached(buf, 0, 8 * again.length), s.readWideCached(buf, 0, 8 * again.length));
        // Not in whole bytes: read bit by bit, as before.
        assertEquals(State.readWide(buf, 3, 100), s.readWideCached(buf, 3, 100));
    }

    @Test
    void slicesOfWideValues() {
        State s = new State(1, 1);
        for (int round = 0; round < 5000; round++) {
            int bits = 1 + random.nextInt(200);
            BigInteger v = new BigInteger(bits, random);
            if (random.nextInt(10) == 0) {
                v = v.negate();
            }
            int lo = random.nextInt(bits + 8);
            int width = 1 + random.nextInt(64);
            long expected = v.shiftRight(lo).longValue() & (width == 64 ? -1L : (1L << width) - 1);
            assertEquals(expected, s.sliceOf(v, lo, width), v + "[" + (lo + width - 1) + ":" + lo + "]");
            // Asked again (now among the recent values) and after others took its place.
            assertEquals(expected, s.sliceOf(v, lo, width));
        }
    }
}
