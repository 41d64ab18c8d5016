package org.nat64fabric.softswitch.pipeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A table's entries by their key words: open addressing with linear probing over an index of
 * ints (an entry's number and its key's hash, side by side), the entries in an array by number.
 * A hash map would add a node and a key object per entry, which every young collection after a
 * setup copied. Numbers are handed out in order (a removed entry's number is reused), so the
 * entries a batch adds land side by side in the array: an index of references, where each entry
 * went to a slot at random, made every insertion dirty a card of that array in the old
 * generation, and each young collection scanned a card per entry added since the last one.
 * Not thread-safe: the table's writers and the pipeline take turns.
 */
final class EntryIndex {
    /** The load the slots are kept under: a lookup that misses probes about two slots. */
    private static final int LOAD_PERCENT = 75;

    private final int expected;
    /** Two ints per slot: the entry's number plus one (0: empty) and its key's hash. Null until the first entry. */
    private int[] slots;
    private Table.Entry[] byNumber;
    /** Numbers below this have been handed out; those of removed entries wait in {@link #freeNumbers}. */
    private int numbered;
    private int[] freeNumbers = new int[0];
    private int freeCount;
    private int count;

    /** {@code expected}: the entries to size the slots for at the first insert (the table's size). */
    EntryIndex(int expected) {
        this.expected = Math.max(expected, 1);
    }

    /** The hash of key words, as an entry keeps it. */
    static int hash(long[] words) {
        long h = words.length;
        for (long w : words) {
            h = Bits.mix(h ^ w) + w;
        }
        return (int) (h ^ (h >>> 32));
    }

    /** The entry whose key words are {@code words} (with hash {@code hash}), or null. */
    Table.Entry get(long[] words, int hash) {
        int[] s = slots;
        if (s == null) {
            return null;
        }
        int mask = s.length / 2 - 1;
        for (int i = hash & mask; ; i = (i + 1) & mask) {
            int number = s[2 * i];
            if (number == 0) {
                return null;
            }
            if (s[2 * i + 1] == hash) {
                Table.Entry e = byNumber[number - 1];
                if (e.hasKey(words)) {
                    return e;
                }
            }
        }
    }

    /** Adds {@code e}, indexed by its key words; the caller has made sure none has the same. */
    void add(Table.Entry e) {
        if (slots == null) {
            int capacity = capacityFor(expected);
            slots = new int[2 * capacity];
            byNumber = new Table.Entry[Math.min(capacity, 1024)];
        } else if ((long) (count + 1) * 100 > (long) (slots.length / 2) * LOAD_PERCENT) {
            grow();
        }
        int number;
        if (freeCount > 0) {
            number = freeNumbers[--freeCount];
        } else {
            if (numbered == byNumber.length) {
                byNumber = Arrays.copyOf(byNumber, byNumber.length * 2);
            }
            number = numbered++;
        }
        byNumber[number] = e;
        place(slots, number + 1, e.keyHash);
        count++;
    }

    /** Takes {@code e} out (by identity); false when it is not here. */
    boolean remove(Table.Entry e) {
        int[] s = slots;
        if (s == null) {
            return false;
        }
        int mask = s.length / 2 - 1;
        int i = e.keyHash & mask;
        while (s[2 * i] == 0 || byNumber[s[2 * i] - 1] != e) {
            if (s[2 * i] == 0) {
                return false;
            }
            i = (i + 1) & mask;
        }
        int number = s[2 * i] - 1;
        byNumber[number] = null;
        if (freeCount == freeNumbers.length) {
            freeNumbers = Arrays.copyOf(freeNumbers, Math.max(16, freeCount * 2));
        }
        freeNumbers[freeCount++] = number;
        // Backward-shift deletion: the entries after the gap that would no longer be reached
        // from their home slot move into it, so no marker of a removed entry is ever left.
        int gap = i;
        for (int j = (gap + 1) & mask; s[2 * j] != 0; j = (j + 1) & mask) {
            int home = s[2 * j + 1] & mask;
            // slot j may fill the gap unless its home lies cyclically in (gap, j]
            if (((j - home) & mask) >= ((j - gap) & mask)) {
                s[2 * gap] = s[2 * j];
                s[2 * gap + 1] = s[2 * j + 1];
                gap = j;
            }
        }
        s[2 * gap] = 0;
        s[2 * gap + 1] = 0;
        count--;
        return true;
    }

    int size() {
        return count;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** The entries, by number (about the order they were added in). */
    List<Table.Entry> entries() {
        List<Table.Entry> out = new ArrayList<>(count);
        for (int i = 0; i < numbered; i++) {
            if (byNumber[i] != null) {
                out.add(byNumber[i]);
            }
        }
        return out;
    }

    private void grow() {
        int[] bigger = new int[slots.length * 2];
        for (int i = 0; i < slots.length; i += 2) {
            if (slots[i] != 0) {
                place(bigger, slots[i], slots[i + 1]);
            }
        }
        slots = bigger;
    }

    private static void place(int[] s, int number, int hash) {
        int mask = s.length / 2 - 1;
        int i = hash & mask;
        while (s[2 * i] != 0) {
            i = (i + 1) & mask;
        }
        s[2 * i] = number;
        s[2 * i + 1] = hash;
    }

    /** The power of two holding {@code n} entries under the load limit. */
    private static int capacityFor(int n) {
        long needed = (long) n * 100 / LOAD_PERCENT + 1;
        return (int) Math.min(1L << 29, Math.max(8, Long.highestOneBit(needed - 1) << 1));
    }
}
