package org.nat64fabric.softswitch.pipeline;

import java.math.BigInteger;
import java.util.Arrays;

/** A growable big-endian bit string: the data of checksum and hash externs is packed here. */
public final class BitBuffer {
    private byte[] bytes = new byte[256];
    private int bits;

    public void clear() {
        bits = 0;
    }

    public void append(long value, int width) {
        ensure(width);
        State.writeBits(bytes, bits, width, value);
        bits += width;
    }

    public void append(BigInteger value, int width) {
        ensure(width);
        State.writeWide(bytes, bits, width, value);
        bits += width;
    }

    public void appendBytes(byte[] src, int from, int length) {
        ensure(length * 8);
        if ((bits & 7) == 0) {
            System.arraycopy(src, from, bytes, bits >>> 3, length);
            bits += length * 8;
        } else {
            for (int i = 0; i < length; i++) {
                append(src[from + i] & 0xFF, 8);
            }
        }
    }

    private void ensure(int moreBits) {
        int needBytes = (bits + moreBits + 7) / 8 + 1;
        if (needBytes > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, needBytes));
        }
    }

    /** The bits written so far, zero-padded to whole bytes, are {@code bytes()[0 .. byteLength())}. */
    public byte[] bytes() {
        if ((bits & 7) != 0) {
            int last = bits >>> 3;
            bytes[last] &= (byte) (0xFF << (8 - (bits & 7)));
        }
        return bytes;
    }

    public int bitLength() {
        return bits;
    }

    public int byteLength() {
        return (bits + 7) >>> 3;
    }
}
