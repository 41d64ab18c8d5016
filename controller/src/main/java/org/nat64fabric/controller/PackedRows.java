package org.nat64fabric.controller;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Rows of one of the durable store's maps (a string key, the row's number in the state file and
 * the value as {@link StateCodec} encodes it) held in primitive arrays: a hash index of ints and
 * chunks of bytes per segment. The collector neither copies nor scans them again, where a hash
 * map's node and row object per key, and the value objects they held (10 of the 21 objects the
 * controller kept per session), were copied by the young collection after each setup, and every
 * insertion into the map's table, in the old generation, left a card for it to scan.
 *
 * <p>A segment's memory is its peak: a removed record's bytes go to a free list of records of
 * its size, and its chunks and index are never given back. A map's records have nearly one size
 * (its keys and values have fixed formats), so that peak is its most keys at one time.
 *
 * <p>Keys are spread over segments by hash; a segment is used under its own
 * monitor ({@code synchronized (segment)}), so writers of different keys rarely wait for each
 * other, and a segment grows on its own (a rehash moves a 64th of the keys while the others go on).
 */
final class PackedRows {
    /** A record's header: key length (2 bytes), value length (2), row number (8); then the key (UTF-8) and value, the whole rounded up to 8 bytes. */
    private static final int HEADER = 12;
    private static final int UNIT = 8;
    /** The longest key, and the longest value, in bytes: a record fits in a chunk. */
    static final int MAX_FIELD = 4096;
    /**
     * A segment's records are in chunks, each allocated once and never copied to grow (a slab
     * grown by copying had young collections copy megabytes): the first of 1 KiB, each next twice
     * as large up to 64 KiB, so that a map of a few keys takes a few KiB. A record's place is its
     * chunk's number shifted by these bits, plus its offset in the chunk.
     */
    private static final int CHUNK_BITS = 16;
    private static final int FIRST_CHUNK_BITS = 10;
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);

    private final Segment[] segments;
    /** The hash's top bits that choose a segment. */
    private final int segmentShift;

    /**
     * {@code spread}: over 64 segments (a map that grows with the sessions), else one (a map read
     * whole, iterated without visiting 63 empty ones). {@code keepDecoded}: each value is kept as
     * the object put too, for a map read at every setup and seldom changed (the port blocks),
     * whose values would otherwise be decoded again at each read.
     */
    PackedRows(boolean spread, boolean keepDecoded) {
        segments = new Segment[spread ? 64 : 1];
        segmentShift = spread ? 32 - 6 : 32;
        for (int i = 0; i < segments.length; i++) {
            segments[i] = new Segment(keepDecoded);
        }
    }

    /** The key's hash as the index uses it (String's hash, mixed: similar keys differ in their low bits only). */
    static int hash(String key) {
        int h = key.hashCode();
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }

    /** The segment of a key with this hash; use it under its monitor. */
    Segment segment(int hash) {
        return segments[segmentShift == 32 ? 0 : hash >>> segmentShift];
    }

    int segmentCount() {
        return segments.length;
    }

    Segment segmentAt(int i) {
        return segments[i];
    }

    /** One segment: an open-addressing index (linear probing) of records in chunks. Not thread-safe. */
    static final class Segment {
        private static final int LOAD_PERCENT = 75;

        /**
         * Two ints per slot: its record's place plus one (0: empty), and its key's hash, beside it
         * so that a probe reads one cache line, and most that miss compare no key bytes.
         */
        private int[] index = new int[32];
        /** Per slot, its value decoded, where the map keeps them; else null. */
        private Object[] decoded;
        private int count;
        private byte[][] chunks = new byte[4][];
        /** Chunks in use; in the last of them, bytes in use up to {@link #top}. */
        private int chunkCount;
        private int top;
        /** Freed records' places by size in units, each a stack with its depth in {@link #freeDepth}. */
        private int[][] free = new int[0][];
        private int[] freeDepth = new int[0];

        Segment(boolean keepDecoded) {
            decoded = keepDecoded ? new Object[16] : null;
        }

        int size() {
            return count;
        }

        /** The value as put, where the map keeps values decoded; else null. */
        Object decoded(int slot) {
            return decoded == null ? null : decoded[slot];
        }

        /** Slots in the index, occupied or not: {@link #occupied} tells which. */
        int capacity() {
            return index.length / 2;
        }

        boolean occupied(int slot) {
            return index[2 * slot] != 0;
        }

        private int placeAt(int slot) {
            return index[2 * slot] - 1;
        }

        /** The slot holding {@code key}, or -1. */
        int find(String key, int hash) {
            int mask = capacity() - 1;
            for (int i = hash & mask; ; i = (i + 1) & mask) {
                int place = index[2 * i];
                if (place == 0) {
                    return -1;
                }
                if (index[2 * i + 1] == hash && keyEquals(place - 1, key)) {
                    return i;
                }
            }
        }

        long seq(int slot) {
            int place = placeAt(slot);
            return (long) LONG.get(chunk(place), offset(place) + 4);
        }

        String key(int slot) {
            int place = placeAt(slot);
            return new String(chunk(place), offset(place) + HEADER, keyLength(place), StandardCharsets.UTF_8);
        }

        /** The encoded value, read in place: decode it before the segment is let go. */
        ByteBuffer value(int slot) {
            int place = placeAt(slot);
            return ByteBuffer.wrap(chunk(place), offset(place) + HEADER + keyLength(place), valueLength(place));
        }

        /** A copy of the encoded value. */
        byte[] valueBytes(int slot) {
            int place = placeAt(slot);
            int from = offset(place) + HEADER + keyLength(place);
            return Arrays.copyOfRange(chunk(place), from, from + valueLength(place));
        }

        /**
         * Adds the key's record ({@code slot} -1: the key is not here) or replaces it: {@code
         * value} encoded as {@code bytes}.
         */
        void put(int slot, String key, int hash, long seq, byte[] bytes, Object value) {
            byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
            if (keyBytes.length > MAX_FIELD || bytes.length > MAX_FIELD) {
                throw new IllegalArgumentException("a row's key and value have at most " + MAX_FIELD + " bytes each");
            }
            int units = units(keyBytes.length, bytes.length);
            int place;
            if (slot >= 0 && units(keyLength(placeAt(slot)), valueLength(placeAt(slot))) == units) {
                place = placeAt(slot);   // the same size: in place
            } else {
                place = allocate(units);
                if (slot >= 0) {
                    release(placeAt(slot));
                }
            }
            byte[] c = chunk(place);
            int at = offset(place);
            SHORT.set(c, at, (short) keyBytes.length);
            SHORT.set(c, at + 2, (short) bytes.length);
            LONG.set(c, at + 4, seq);
            System.arraycopy(keyBytes, 0, c, at + HEADER, keyBytes.length);
            System.arraycopy(bytes, 0, c, at + HEADER + keyBytes.length, bytes.length);
            if (slot < 0) {
                if ((long) (count + 1) * 100 > (long) capacity() * LOAD_PERCENT) {
                    grow();
                }
                slot = freeSlot(index, hash);
                index[2 * slot + 1] = hash;
                count++;
            }
            index[2 * slot] = place + 1;
            if (decoded != null) {
                decoded[slot] = value;
            }
        }

        /** Takes the record at {@code slot} out. */
        void remove(int slot) {
            release(placeAt(slot));
            int mask = capacity() - 1;
            // Backward-shift deletion: records after the gap that would no longer be reached from
            // their home slot move into it, so no marker of a removed record is ever left.
            int gap = slot;
            for (int j = (gap + 1) & mask; index[2 * j] != 0; j = (j + 1) & mask) {
                int home = index[2 * j + 1] & mask;
                if (((j - home) & mask) >= ((j - gap) & mask)) {
                    index[2 * gap] = index[2 * j];
                    index[2 * gap + 1] = index[2 * j + 1];
                    if (decoded != null) {
                        decoded[gap] = decoded[j];
                    }
                    gap = j;
                }
            }
            index[2 * gap] = 0;
            index[2 * gap + 1] = 0;
            if (decoded != null) {
                decoded[gap] = null;
            }
            count--;
        }

        private byte[] chunk(int place) {
            return chunks[place >>> CHUNK_BITS];
        }

        private static int offset(int place) {
            return place & ((1 << CHUNK_BITS) - 1);
        }

        private int keyLength(int place) {
            return Short.toUnsignedInt((short) SHORT.get(chunk(place), offset(place)));
        }

        private int valueLength(int place) {
            return Short.toUnsignedInt((short) SHORT.get(chunk(place), offset(place) + 2));
        }

        private static int units(int keyLength, int valueLength) {
            return (HEADER + keyLength + valueLength + UNIT - 1) / UNIT;
        }

        /** Whether the record at {@code place} has this key, without encoding it where it is ASCII (every key the store makes). */
        private boolean keyEquals(int place, String key) {
            byte[] c = chunk(place);
            int from = offset(place) + HEADER;
            int length = keyLength(place);
            int n = key.length();
            if (length == n) {
                int i = 0;
                while (i < n && key.charAt(i) < 0x80) {
                    if (c[from + i] != (byte) key.charAt(i)) {
                        return false;
                    }
                    i++;
                }
                if (i == n) {
                    return true;
                }
            } else if (length < n) {
                return false;   // UTF-8 has at least a byte per char
            }
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            return Arrays.equals(c, from, from + length, bytes, 0, bytes.length);
        }

        private int allocate(int units) {
            if (units < freeDepth.length && freeDepth[units] > 0) {
                return free[units][--freeDepth[units]];
            }
            int bytes = units * UNIT;
            if (chunkCount == 0 || chunks[chunkCount - 1].length - top < bytes) {
                if (chunkCount == (Integer.MAX_VALUE >>> CHUNK_BITS)) {
                    throw new IllegalStateException("a segment of the NAT state holds 2 GB: no more rows fit");
                }
                if (chunkCount == chunks.length) {
                    chunks = Arrays.copyOf(chunks, chunkCount * 2);
                }
                chunks[chunkCount] = new byte[Math.max(bytes, 1 << Math.min(CHUNK_BITS, FIRST_CHUNK_BITS + chunkCount))];
                chunkCount++;
                top = 0;
            }
            int place = (chunkCount - 1) << CHUNK_BITS | top;
            top += bytes;
            return place;
        }

        private void release(int place) {
            int units = units(keyLength(place), valueLength(place));
            if (units >= freeDepth.length) {
                free = Arrays.copyOf(free, units + 1);
                freeDepth = Arrays.copyOf(freeDepth, units + 1);
            }
            int[] stack = free[units];
            if (stack == null || freeDepth[units] == stack.length) {
                free[units] = stack = stack == null ? new int[16] : Arrays.copyOf(stack, stack.length * 2);
            }
            stack[freeDepth[units]++] = place;
        }

        private void grow() {
            int[] bigger = new int[index.length * 2];
            Object[] biggerDecoded = decoded == null ? null : new Object[decoded.length * 2];
            for (int i = 0; i < capacity(); i++) {
                if (index[2 * i] != 0) {
                    int to = freeSlot(bigger, index[2 * i + 1]);
                    bigger[2 * to] = index[2 * i];
                    bigger[2 * to + 1] = index[2 * i + 1];
                    if (decoded != null) {
                        biggerDecoded[to] = decoded[i];
                    }
                }
            }
            index = bigger;
            decoded = biggerDecoded;
        }

        /** The first empty slot from the hash's home on. */
        private static int freeSlot(int[] index, int hash) {
            int mask = index.length / 2 - 1;
            int i = hash & mask;
            while (index[2 * i] != 0) {
                i = (i + 1) & mask;
            }
            return i;
        }
    }
}
