package org.nat64fabric.softswitch.pipeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A table's entries by their key words: open addressing with linear probing in one array of
 * entries, each entry holding its own key words and their hash. A hash map would add a node and a
 * key object per entry, two of the objects a session kept alive in the switch, which every young
 * collection after a setup copied. Not thread-safe: the table's writers and the pipeline take
 * turns, as they did around the map it replaces.
 */
final class EntryIndex {
    /** The load the slots are kept under: a lookup that misses probes about two slots. */
    private static final int LOAD_PERCENT = 75;

    private final int expected;
    /** Null until the first entry: a table nothing is written to costs no slots. */
    private Table.Entry[] slots;
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
        Table.Entry[] s = slots;
        if (s == null) {
            return null;
        }
        int mask = s.length - 1;
        for (int i = hash & mask; ; i = (i + 1) & mask) {
            Table.Entry e = s[i];
            if (e == null) {
                return null;
            }
            if (e.keyHash == hash && Arrays.equals(e.keyWords, words)) {
                return e;
            }
        }
    }

    /** Adds {@code e}, indexed by its key words; the caller has made sure none has the same. */
    void add(Table.Entry e) {
        if (slots == null) {
            slots = new Table.Entry[capacityFor(expected)];
        } else if ((long) (count + 1) * 100 > (long) slots.length * LOAD_PERCENT) {
            grow();
        }
        place(slots, e);
        count++;
    }

    /** Takes {@code e} out (by identity); false when it is not here. */
    boolean remove(Table.Entry e) {
        Table.Entry[] s = slots;
        if (s == null) {
            return false;
        }
        int mask = s.length - 1;
        int i = e.keyHash & mask;
        while (s[i] != e) {
            if (s[i] == null) {
                return false;
            }
            i = (i + 1) & mask;
        }
        // Backward-shift deletion: the entries after the gap that would no longer be reached
        // from their home slot move into it, so no marker of a removed entry is ever left.
        int gap = i;
        for (int j = (gap + 1) & mask; s[j] != null; j = (j + 1) & mask) {
            int home = s[j].keyHash & mask;
            // s[j] may fill the gap unless its home lies cyclically in (gap, j]
            if (((j - home) & mask) >= ((j - gap) & mask)) {
                s[gap] = s[j];
                gap = j;
            }
        }
        s[gap] = null;
        count--;
        return true;
    }

    int size() {
        return count;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** The entries, in slot order. */
    List<Table.Entry> entries() {
        List<Table.Entry> out = new ArrayList<>(count);
        if (slots != null) {
            for (Table.Entry e : slots) {
                if (e != null) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    private void grow() {
        Table.Entry[] bigger = new Table.Entry[slots.length * 2];
        for (Table.Entry e : slots) {
            if (e != null) {
                place(bigger, e);
            }
        }
        slots = bigger;
    }

    private static void place(Table.Entry[] s, Table.Entry e) {
        int mask = s.length - 1;
        int i = e.keyHash & mask;
        while (s[i] != null) {
            i = (i + 1) & mask;
        }
        s[i] = e;
    }

    /** The power of two holding {@code n} entries under the load limit. */
    private static int capacityFor(int n) {
        long needed = (long) n * 100 / LOAD_PERCENT + 1;
        return (int) Math.min(1L << 30, Math.max(8, Long.highestOneBit(needed - 1) << 1));
    }
}
