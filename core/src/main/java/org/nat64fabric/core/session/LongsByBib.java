package org.nat64fabric.core.session;

import java.util.Arrays;

/**
 * A few longs per BIB entry, by the entry's IPv6 side ({@link BibSide}), held in
 * primitive arrays. The controller keeps something per BIB entry in more than one place (what
 * each border holds, the index of an entry's sessions); as objects (a map node, the key string,
 * the value and what it points to) those were all that a young collection still had to copy
 * after each setup, and each insert into a map's table dirtied a card for it to scan. Here an
 * entry is a run of longs in an array: no object to copy, no reference to scan.
 *
 * <p>Keys are spread over 64 segments by hash; each segment is an open-addressing table (linear
 * probing, deletion by shifting back, so no tombstones) used under its own monitor, and grows on
 * its own by doubling (a rehash moves a 64th of the entries while the others go on), so none
 * is made large up front.
 */
public final class LongsByBib {
    private static final int SEGMENT_BITS = 6;
    private static final int KEY_WORDS = 3;
    private static final int LOAD_PERCENT = 75;

    private final Segment[] segments = new Segment[1 << SEGMENT_BITS];
    private final int width;

    /** {@code width} longs per entry. */
    public LongsByBib(int width) {
        if (width < 1) {
            throw new IllegalArgumentException("width " + width + ": at least one long per entry");
        }
        this.width = width;
        for (int i = 0; i < segments.length; i++) {
            segments[i] = new Segment(width, 16);
        }
    }

    /** The value of the entry, a new array; null when there is none. */
    public long[] get(BibSide side) {
        return locked(side, (s, slot) -> slot < 0 ? null : s.value(slot));
    }

    /** Puts the value ({@code width} longs); the value before, or null when there was none. */
    public long[] put(BibSide side, long... value) {
        return replace(side, null, true, value);
    }

    /** Removes the entry; its value, or null when there was none. */
    public long[] remove(BibSide side) {
        return replace(side, null, true, null);
    }

    /**
     * Sets the entry to {@code value} (null: removes it) if it holds {@code expected} now (null:
     * holds none); whether it did.
     */
    public boolean replace(BibSide side, long[] expected, long[] value) {
        long[] before = replace(side, expected, false, value);
        return before != NOT_REPLACED;
    }

    /** How many entries there are. */
    public int size() {
        int n = 0;
        for (Segment s : segments) {
            synchronized (s) {
                n += s.count;
            }
        }
        return n;
    }

    private static final long[] NOT_REPLACED = new long[0];

    /** {@code always}: whatever it holds; else only when it holds {@code expected} (NOT_REPLACED when not). Returns the value before. */
    private long[] replace(BibSide side, long[] expected, boolean always, long[] value) {
        if (value != null && value.length != width) {
            throw new IllegalArgumentException(value.length + " longs for entries of " + width);
        }
        return locked(side, (s, slot) -> {
            long[] before = slot < 0 ? null : s.value(slot);
            if (!always && !Arrays.equals(before, expected)) {
                return NOT_REPLACED;
            }
            if (value == null) {
                if (slot >= 0) {
                    s.delete(slot);
                }
            } else if (slot >= 0) {
                s.setValue(slot, value);
            } else {
                s.insert(side.address.high(), side.address.low(), thirdWord(side), value);
            }
            return before;
        });
    }

    /** What {@code work} makes of the key's segment and slot (-1: absent), under the segment's monitor. */
    private long[] locked(BibSide side, SlotWork work) {
        long k0 = side.address.high();
        long k1 = side.address.low();
        long k2 = thirdWord(side);
        int h = hash(k0, k1, k2);
        Segment s = segments[h >>> (32 - SEGMENT_BITS)];
        synchronized (s) {
            return work.apply(s, s.find(k0, k1, k2, h));
        }
    }

    private interface SlotWork {
        long[] apply(Segment segment, int slot);
    }

    /** Protocol and port in one word, never 0 (the mark of an empty slot). */
    private static long thirdWord(BibSide side) {
        return ((long) (side.protocol.ordinal() + 1) << 32) | (side.port & 0xffffffffL);
    }

    private static int hash(long k0, long k1, long k2) {
        long h = k0 * 0x9E3779B97F4A7C15L;
        h = (h ^ (h >>> 29) ^ k1) * 0xBF58476D1CE4E5B9L;
        h = (h ^ (h >>> 32) ^ k2) * 0x94D049BB133111EBL;
        return (int) (h ^ (h >>> 31) ^ (h >>> 47));
    }

    /** One segment: slots of {@code KEY_WORDS + width} longs, the third key word 0 in an empty one. Not thread-safe. */
    private static final class Segment {
        private final int width;
        private final int stride;
        private long[] slots;
        private int mask;
        private int count;

        Segment(int width, int slotCount) {
            this.width = width;
            this.stride = KEY_WORDS + width;
            this.slots = new long[slotCount * stride];
            this.mask = slotCount - 1;
        }

        /** The slot holding the key, or -1. */
        int find(long k0, long k1, long k2, int hash) {
            for (int i = hash & mask; ; i = (i + 1) & mask) {
                int at = i * stride;
                long w2 = slots[at + 2];
                if (w2 == 0) {
                    return -1;
                }
                if (w2 == k2 && slots[at] == k0 && slots[at + 1] == k1) {
                    return i;
                }
            }
        }

        long[] value(int slot) {
            int at = slot * stride + KEY_WORDS;
            return Arrays.copyOfRange(slots, at, at + width);
        }

        void setValue(int slot, long[] value) {
            System.arraycopy(value, 0, slots, slot * stride + KEY_WORDS, width);
        }

        void insert(long k0, long k1, long k2, long[] value) {
            if ((count + 1) * 100L > (mask + 1) * (long) LOAD_PERCENT) {
                grow();
            }
            int i = hash(k0, k1, k2) & mask;
            while (slots[i * stride + 2] != 0) {
                i = (i + 1) & mask;
            }
            int at = i * stride;
            slots[at] = k0;
            slots[at + 1] = k1;
            slots[at + 2] = k2;
            setValue(i, value);
            count++;
        }

        /** Empties the slot, shifting back the entries after it that probing would no longer reach. */
        void delete(int slot) {
            int hole = slot;
            for (int i = (slot + 1) & mask; ; i = (i + 1) & mask) {
                int at = i * stride;
                if (slots[at + 2] == 0) {
                    break;
                }
                int home = hash(slots[at], slots[at + 1], slots[at + 2]) & mask;
                // the entry at i may fill the hole if its home is not cyclically in (hole, i]
                boolean reachable = hole <= i ? home > hole && home <= i : home > hole || home <= i;
                if (!reachable) {
                    System.arraycopy(slots, at, slots, hole * stride, stride);
                    hole = i;
                }
            }
            Arrays.fill(slots, hole * stride, hole * stride + stride, 0L);
            count--;
        }

        private void grow() {
            long[] old = slots;
            int oldSlots = mask + 1;
            slots = new long[oldSlots * 2 * stride];
            mask = oldSlots * 2 - 1;
            for (int i = 0; i < oldSlots; i++) {
                int at = i * stride;
                if (old[at + 2] != 0) {
                    int j = hash(old[at], old[at + 1], old[at + 2]) & mask;
                    while (slots[j * stride + 2] != 0) {
                        j = (j + 1) & mask;
                    }
                    System.arraycopy(old, at, slots, j * stride, stride);
                }
            }
        }
    }
}
