package org.nat64fabric.softswitch.pipeline;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * All per-packet state of a pipeline: every header, struct, local variable and parameter of the
 * program lives at a fixed slot, assigned at compile time, in {@link #n} (values up to 64 bits)
 * or {@link #w} (wider values, such as IPv6 addresses). One State is reused packet after packet.
 */
public final class State {
    public final long[] n;
    public final BigInteger[] w;

    /** The packet being parsed; the parser's cursor counts bits. */
    public byte[] packet = new byte[0];
    public int packetLength;
    public int cursorBits;
    /** {@link #packet} is a caller's array ({@link #usePacket}), never to be written. */
    private boolean packetShared;

    /** The deparser's output. */
    public byte[] out = new byte[2048];
    public int outLength;

    /** Scratch bit buffer for checksums and hashes. */
    public final BitBuffer scratch = new BitBuffer();
    /** Scratch for a select's key values (a select does not nest). */
    private long[] selectValues = new long[4];
    private BigInteger wordsValue;
    private long[] words = new long[2];
    /**
     * Values of up to 128 bits met lately (an address read from every packet of a flow), each with
     * its two 64-bit words, at a place its value picks: read again from a packet, a value is the
     * same BigInteger (no allocation); sliced, its words are there (no shifts). Kept across packets:
     * a value is immutable, and only what it equals matters.
     */
    private final BigInteger[] recent = new BigInteger[RECENT];
    private final long[] recentHigh = new long[RECENT];
    private final long[] recentLow = new long[RECENT];
    private static final int RECENT = 16;
    /** The recent value asked for last. */
    private int lastRecent;

    /** Requests made by externs during this pass through a pipeline block. */
    public int cloneSession = -1;
    public int cloneType = -1;
    public int cloneFieldList;
    public int resubmitFieldList = -1;
    public int recirculateFieldList = -1;
    public int truncateLength = -1;
    /** The bytes a clone session cuts this copy to (P4Runtime 9.5.2), or -1: a truncate() cannot undo it. */
    public int cloneCut = -1;

    /** The last table applied: whether it hit and which of its actions ran (for switch/hit). */
    public boolean lastHit;
    public int lastActionIndex;
    /** The colour the direct meter of the table being applied gave its entry (direct_meter.read). */
    public int directMeterColor;
    /** An action run from inside an expression called exit; the enclosing statement stops. */
    public boolean exiting;
    /** Set by a failed extract or verify: the parser rejects with this error code. */
    public int parserError;

    public State(int narrow, int wide) {
        n = new long[narrow];
        w = new BigInteger[wide];
        Arrays.fill(w, BigInteger.ZERO);
    }

    /** Clears every slot and request; the packet buffer is kept for reuse. */
    public void reset() {
        Arrays.fill(n, 0L);
        // Most wide slots are still zero: storing a reference costs a GC barrier, reading one does not.
        BigInteger[] w = this.w;
        for (int i = 0; i < w.length; i++) {
            if (w[i] != BigInteger.ZERO) {
                w[i] = BigInteger.ZERO;
            }
        }
        cursorBits = 0;
        outLength = 0;
        cloneSession = -1;
        cloneType = -1;
        cloneFieldList = 0;
        resubmitFieldList = -1;
        recirculateFieldList = -1;
        truncateLength = -1;
        cloneCut = -1;
        exiting = false;
        parserError = 0;
    }

    /**
     * The 64-bit words of a non-negative wide value, lowest first, for the last value asked (by
     * identity: values are immutable): the slices of one value, such as the eight 16-bit words of
     * an address summed for a checksum, convert it once instead of shifting it once each.
     */
    public long[] wordsOf(BigInteger v) {
        if (v != wordsValue) {
            int count = (v.bitLength() + 63) >>> 6;
            if (words.length < count) {
                words = new long[count];
            }
            words[0] = v.longValue();
            BigInteger rest = v;
            for (int i = 1; i < count; i++) {
                rest = rest.shiftRight(64);
                words[i] = rest.longValue();
            }
            Arrays.fill(words, count, words.length, 0L);
            wordsValue = v;
        }
        return words;
    }

    /** {@code width} (up to 64) bits of {@code v} from bit {@code lo}: a slice of a wide value. */
    public long sliceOf(BigInteger v, int lo, int width) {
        return v.signum() >= 0 ? bitsOf(v, lo, width) : v.shiftRight(lo).longValue() & Bits.mask(width);
    }

    /** {@code width} (up to 64) bits of {@code v} (non-negative) from bit {@code lo}. */
    private long bitsOf(BigInteger v, int lo, int width) {
        int r = recentIndex(v);
        if (r >= 0) {
            long x = lo >= 128 ? 0 : lo >= 64 ? recentHigh[r] >>> (lo - 64)
                    : lo == 0 ? recentLow[r] : (recentLow[r] >>> lo) | (recentHigh[r] << (64 - lo));
            return x & Bits.mask(width);
        }
        long[] wd = wordsOf(v);
        int i = lo >>> 6;
        if (i >= wd.length) {
            return 0;
        }
        int shift = lo & 63;
        long x = wd[i] >>> shift;
        if (shift != 0 && i + 1 < wd.length) {
            x |= wd[i + 1] << (64 - shift);
        }
        return x & Bits.mask(width);
    }

    /**
     * Where {@code v} is among the recent values, placing it there first when it is a non-negative
     * value of up to 128 bits; -1 for any other.
     */
    private int recentIndex(BigInteger v) {
        BigInteger[] recent = this.recent;
        if (recent[lastRecent] == v) {   // the slices of one value come one after the other
            return lastRecent;
        }
        for (int i = 0; i < RECENT; i++) {
            if (recent[i] == v) {
                lastRecent = i;
                return i;
            }
        }
        if (v.signum() < 0 || v.bitLength() > 128) {
            return -1;
        }
        long low = v.longValue();
        long high = v.bitLength() > 64 ? v.shiftRight(64).longValue() : 0;
        int r = recentPlace(high, low);
        remember(r, v, high, low);
        lastRecent = r;
        return r;
    }

    private void remember(int place, BigInteger v, long high, long low) {
        recent[place] = v;
        recentHigh[place] = high;
        recentLow[place] = low;
    }

    private static int recentPlace(long high, long low) {
        long h = (high ^ low) * 0x9E3779B97F4A7C15L;
        return (int) (h >>> 60);   // RECENT = 16 places
    }

    /** Room for the values of a select with {@code keys} narrow keys, reused packet after packet. */
    public long[] selectValues(int keys) {
        if (selectValues.length < keys) {
            selectValues = new long[keys];
        }
        return selectValues;
    }

    /**
     * Parses {@code data} itself rather than a copy: the pipeline only reads the packet (within
     * packetLength), so the frame of a pass is shared until the next packet replaces it.
     */
    /** Parses {@code data}'s first {@code length} bytes in place (the array is the caller's, never written). */
    public void usePacket(byte[] data, int length) {
        packet = data;
        packetShared = true;
        packetLength = length;
        cursorBits = 0;
    }

    public void setPacket(byte[] data, int length) {
        if (packet.length < length || packetShared) {
            packet = new byte[Math.max(length, 2048)];
            packetShared = false;
        }
        System.arraycopy(data, 0, packet, 0, length);
        packetLength = length;
        cursorBits = 0;
    }

    /** The length of the frame the deparser made: its output, then the packet's unparsed rest. */
    public int frameLength() {
        return outLength + packetLength - Math.min(cursorBits / 8, packetLength);
    }

    /** The first {@code length} bytes (at most {@link #frameLength()}) of the frame the deparser made. */
    public byte[] frame(int length) {
        byte[] bytes = new byte[length];
        copyFrame(bytes, length);
        return bytes;
    }

    /** Copies the first {@code length} bytes of the frame the deparser made into {@code into}. */
    public void copyFrame(byte[] into, int length) {
        int head = Math.min(outLength, length);
        System.arraycopy(out, 0, into, 0, head);
        System.arraycopy(packet, Math.min(cursorBits / 8, packetLength), into, head, length - head);
    }

    /** Makes room for {@code more} bytes in the output buffer. */
    public void ensureOut(int more) {
        if (outLength + more > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, outLength + more));
        }
    }

    // Big-endian views of byte arrays: a run of whole bytes moves in at most three accesses, not a
    // load or store per byte (compiled code calls these with a constant count; the branches fold).
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORTS = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

    /** The {@code bytes} (up to 8) bytes at {@code at} as a big-endian number. */
    public static long getBytes(byte[] buf, int at, int bytes) {
        if (bytes == 8) {
            return (long) LONGS.get(buf, at);
        }
        long v = 0;
        int i = at;
        if ((bytes & 4) != 0) {
            v = (int) INTS.get(buf, i) & 0xFFFFFFFFL;
            i += 4;
        }
        if ((bytes & 2) != 0) {
            v = (v << 16) | ((short) SHORTS.get(buf, i) & 0xFFFF);
            i += 2;
        }
        if ((bytes & 1) != 0) {
            v = (v << 8) | (buf[i] & 0xFF);
        }
        return v;
    }

    /** Writes the low {@code bytes} (up to 8) bytes of {@code v} at {@code at}, big-endian. */
    public static void putBytes(byte[] buf, int at, int bytes, long v) {
        if (bytes == 8) {
            LONGS.set(buf, at, v);
            return;
        }
        int i = at + bytes;
        if ((bytes & 1) != 0) {
            buf[--i] = (byte) v;
            v >>>= 8;
        }
        if ((bytes & 2) != 0) {
            i -= 2;
            SHORTS.set(buf, i, (short) v);
            v >>>= 16;
        }
        if ((bytes & 4) != 0) {
            INTS.set(buf, i - 4, (int) v);
        }
    }

    /** Reads {@code width} (up to 64) bits at bit offset {@code bitOffset} of {@code buf}, big-endian. */
    public static long readBits(byte[] buf, int bitOffset, int width) {
        if ((bitOffset & 7) == 0 && (width & 7) == 0) {
            return getBytes(buf, bitOffset >>> 3, width >>> 3);
        }
        int first = bitOffset >>> 3;
        int skip = bitOffset & 7;
        if (skip + width <= 64) {
            // Gather the covering bytes (at most 8) into one word, then shift the field out.
            int last = (bitOffset + width - 1) >>> 3;
            long window = 0;
            for (int i = first; i <= last; i++) {
                window = (window << 8) | (buf[i] & 0xFF);
            }
            int trailing = (last - first + 1) * 8 - skip - width;
            return (window >>> trailing) & Bits.mask(width);
        }
        long v = 0;
        for (int b = 0; b < width; b++) {
            int pos = bitOffset + b;
            v = (v << 1) | ((buf[pos >>> 3] >>> (7 - (pos & 7))) & 1);
        }
        return v;
    }

    /** Writes the low {@code width} (up to 64) bits of {@code v} at bit offset {@code bitOffset}. */
    public static void writeBits(byte[] buf, int bitOffset, int width, long v) {
        if (width == 0) {
            return;
        }
        if ((bitOffset & 7) == 0 && (width & 7) == 0) {
            putBytes(buf, bitOffset >>> 3, width >>> 3, v);
            return;
        }
        int first = bitOffset >>> 3;
        int skip = bitOffset & 7;
        if (skip + width <= 64) {
            // Read-modify-write the covering bytes as one word.
            int last = (bitOffset + width - 1) >>> 3;
            int n = last - first + 1;
            long window = 0;
            for (int i = first; i <= last; i++) {
                window = (window << 8) | (buf[i] & 0xFF);
            }
            int trailing = n * 8 - skip - width;
            long mask = Bits.mask(width) << trailing;
            window = (window & ~mask) | ((v << trailing) & mask);
            for (int i = last; i >= first; i--) {
                buf[i] = (byte) window;
                window >>>= 8;
            }
            return;
        }
        for (int b = width - 1; b >= 0; b--) {
            int pos = bitOffset + b;
            int mask = 1 << (7 - (pos & 7));
            if ((v & 1) != 0) {
                buf[pos >>> 3] |= (byte) mask;
            } else {
                buf[pos >>> 3] &= (byte) ~mask;
            }
            v >>>= 1;
        }
    }

    /** Reads a wide field; one of up to 128 bits in whole bytes comes from the recent values when there. */
    public BigInteger readWideCached(byte[] buf, int bitOffset, int width) {
        if ((bitOffset & 7) == 0 && (width & 7) == 0 && width <= 128) {
            int at = bitOffset >>> 3;
            int bytes = width >>> 3;
            int lowBytes = Math.min(8, bytes);
            long high = getBytes(buf, at, bytes - lowBytes);
            long low = getBytes(buf, at + bytes - lowBytes, lowBytes);
            int r = recentPlace(high, low);
            BigInteger v = recent[r];
            if (v == null || recentHigh[r] != high || recentLow[r] != low) {
                v = new BigInteger(1, buf, at, bytes);
                remember(r, v, high, low);
            }
            return v;
        }
        return readWide(buf, bitOffset, width);
    }

    public static BigInteger readWide(byte[] buf, int bitOffset, int width) {
        if ((bitOffset & 7) == 0 && (width & 7) == 0) {
            return new BigInteger(1, buf, bitOffset >>> 3, width >>> 3);   // one allocation, not one per word
        }
        BigInteger v = BigInteger.ZERO;
        int done = 0;
        while (done < width) {
            int chunk = Math.min(64, width - done);
            v = v.shiftLeft(chunk).or(Bits.unsigned(readBits(buf, bitOffset + done, chunk)));
            done += chunk;
        }
        return v;
    }

    public static void writeWide(byte[] buf, int bitOffset, int width, BigInteger v) {
        if ((bitOffset & 7) == 0 && (width & 7) == 0 && v.signum() >= 0) {
            // Big-endian bytes, right-aligned in the field, zero-filled on the left (v fits the width).
            byte[] b = v.toByteArray();
            int at = bitOffset >>> 3;
            int len = width >>> 3;
            int skip = Math.max(0, b.length - len);   // toByteArray's sign byte, or bits above the width
            int copy = b.length - skip;
            Arrays.fill(buf, at, at + len - copy, (byte) 0);
            System.arraycopy(b, skip, buf, at + len - copy, copy);
            return;
        }
        int remaining = width;
        while (remaining > 0) {
            int chunk = Math.min(64, remaining);
            remaining -= chunk;
            writeBits(buf, bitOffset + remaining, chunk, v.shiftRight(width - remaining - chunk).longValue());
        }
    }
}
