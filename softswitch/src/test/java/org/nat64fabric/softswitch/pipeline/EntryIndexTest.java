package org.nat64fabric.softswitch.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The open-addressing index agrees with a hash map through random adds and removes: with few
 * slots, so that probe runs wrap around the array and removals shift entries back across the
 * wrap, and past its first size, so that it grows.
 */
class EntryIndexTest {
    private static Table.Entry entry(long key) {
        Table.Entry e = new Table.Entry(new Table.FieldMatch[] {Table.FieldMatch.exact(BigInteger.valueOf(key), 64)},
                0, null, 0);
        e.setKey(new long[] {key});
        return e;
    }

    private static Table.Entry get(EntryIndex index, long key) {
        long[] words = {key};
        return index.get(words, EntryIndex.hash(words));
    }

    @Test
    void agreesWithAHashMapThroughRandomAddsAndRemoves() {
        for (int expected : new int[] {1, 6, 40}) {
            Random random = new Random(expected);
            EntryIndex index = new EntryIndex(expected);
            Map<Long, Table.Entry> model = new HashMap<>();
            for (int step = 0; step < 20_000; step++) {
                long key = random.nextInt(60);
                Table.Entry held = model.get(key);
                if (held == null) {
                    Table.Entry e = entry(key);
                    index.add(e);
                    model.put(key, e);
                } else {
                    assertTrue(index.remove(held));
                    assertFalse(index.remove(held), "removed once only");
                    model.remove(key);
                }
                assertEquals(model.size(), index.size());
                for (long k = 0; k < 60; k++) {
                    assertSame(model.get(k), get(index, k), "key " + k + " after step " + step);
                }
            }
            assertEquals(new HashSet<>(model.values()), new HashSet<>(index.entries()));
        }
    }

    @Test
    void anEmptyIndexFindsNothingAndRemovesNothing() {
        EntryIndex index = new EntryIndex(1 << 20);
        assertNull(get(index, 7));
        assertFalse(index.remove(entry(7)));
        assertTrue(index.isEmpty());
        assertTrue(index.entries().isEmpty());
    }

    @Test
    void anEntryWithTheSameKeyButAnotherIdentityIsNotRemoved() {
        EntryIndex index = new EntryIndex(4);
        Table.Entry e = entry(3);
        index.add(e);
        assertFalse(index.remove(entry(3)));
        assertSame(e, get(index, 3));
    }

    @Test
    void anEntryHasItsOwnKeyOnlyWhateverItsLength() {
        // up to four words sit in the entry's fields, more in an array; the index compares
        // hashes first, so a word that hasKey ignored would show only in a collision: tested here
        for (int n = 1; n <= 6; n++) {
            long[] words = new long[n];
            for (int i = 0; i < n; i++) {
                words[i] = Long.MIN_VALUE + 31 * i;
            }
            Table.Entry e = new Table.Entry(new Table.FieldMatch[0], 0, null, 0);
            e.setKey(words.clone());
            assertTrue(e.hasKey(words.clone()), n + " words");
            for (int i = 0; i < n; i++) {
                long[] other = words.clone();
                other[i] ^= 1L << (i * 13 % 64);
                assertFalse(e.hasKey(other), n + " words, word " + i + " differs");
            }
        }
    }
}
