package org.nat64fabric.controller;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.StampedLock;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * One of the durable store's maps, held in memory as {@link PackedRows} (each value encoded as its
 * row in the state file), whose every change of a key is recorded in the store's {@link Changes},
 * so that the next commit writes the key's row as it is then, or deletes it when the key is gone.
 * A key keeps the number of its row in the state file from the moment it is added until it is
 * removed. Values are decoded when read (a value read is then a copy, equal to the one put),
 * except in a map that keeps them decoded as well. Views are read-only: every change goes through
 * a method that records it.
 */
final class TrackedMap<V> extends AbstractMap<String, V> implements ConcurrentMap<String, V> {
    /** A row as a change left it: its number and encoded value. */
    static final class Row {
        final long seq;
        final byte[] value;

        Row(long seq, byte[] value) {
            this.seq = seq;
            this.value = value;
        }
    }

    /** A row to write: its number, the map and key it holds, the value. */
    static final class RowWrite {
        final long seq;
        final String map;
        final String key;
        final byte[] value;

        RowWrite(long seq, String map, String key, byte[] value) {
            this.seq = seq;
            this.map = map;
            this.key = key;
            this.value = value;
        }
    }

    /** What one commit writes: the rows of keys that are there, and the numbers of rows whose keys are gone. */
    static final class Snapshot {
        final List<RowWrite> writes;
        final List<Long> deletes;
        /** The changed keys, marked again should the commit fail. */
        private final List<Key> keys;

        private Snapshot(List<RowWrite> writes, List<Long> deletes, List<Key> keys) {
            this.writes = writes;
            this.deletes = deletes;
            this.keys = keys;
        }

        boolean isEmpty() {
            return writes.isEmpty() && deletes.isEmpty();
        }
    }

    /**
     * The changes of all maps of one store since the last snapshot, and the row numbers they hand
     * out. Changes take the lock shared, a snapshot exclusively: it sees each change whole, so a
     * key removed and added again has its old row deleted in the same commit that writes its new
     * one, and no key ever has two rows.
     */
    static final class Changes {
        /** In {@link #dirty}: the key is gone. */
        private static final Row GONE = new Row(-1, null);

        /**
         * Cheaper than a ReentrantReadWriteLock, which every change of every setup would take; not
         * reentrant, so a change's remapping must not change the maps (MapNatStore's do not).
         */
        private final StampedLock lock = new StampedLock();
        /**
         * Per changed key, its row as its last change left it (or GONE): a snapshot looks up nothing.
         * Read and changed under {@link #lock}; a snapshot takes the map whole and puts a new one in
         * its place. Cleared instead, it kept the table of its largest batch, and every later
         * snapshot walked that table twice (forEach, clear): after one burst of 30 000 setups/s,
         * each batch of a few setups paid for thousands of empty bins.
         */
        private Map<Key, Row> dirty = new ConcurrentHashMap<>();
        private final Queue<Long> deleted = new ConcurrentLinkedQueue<>();
        private final AtomicLong lastSeq = new AtomicLong();

        /** Rows loaded from the file are numbered up to {@code seq}: new ones come after. */
        void loaded(long seq) {
            lastSeq.accumulateAndGet(seq, Math::max);
        }

        /** What changed since the last snapshot, taken whole; the marks are cleared. */
        Snapshot snapshot() {
            long stamp = lock.writeLock();
            try {
                Map<Key, Row> taken = dirty;
                dirty = new ConcurrentHashMap<>();
                List<Key> keys = new ArrayList<>(taken.size());
                List<RowWrite> writes = new ArrayList<>(taken.size());
                taken.forEach((k, row) -> {
                    keys.add(k);
                    if (row != GONE) {
                        writes.add(new RowWrite(row.seq, k.map.name, k.key, row.value));
                    }
                });
                List<Long> deletes = new ArrayList<>(deleted);
                deleted.clear();
                return new Snapshot(writes, deletes, keys);
            } finally {
                lock.unlockWrite(stamp);
            }
        }

        /**
         * A snapshot that did not reach the disk: its keys, as they are now unless changed since
         * (then already marked), and its deletions go into the next one.
         */
        void retry(Snapshot s) {
            long stamp = lock.writeLock();
            try {
                for (Key k : s.keys) {
                    Row now = k.map.row(k.key);
                    dirty.putIfAbsent(k, now == null ? GONE : now);
                }
                deleted.addAll(s.deletes);
            } finally {
                lock.unlockWrite(stamp);
            }
        }
    }

    /** A changed key of one of the maps (a store has few, compared by identity). */
    private static final class Key {
        final TrackedMap<?> map;
        final String key;

        Key(TrackedMap<?> map, String key) {
            this.map = map;
            this.key = key;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).map == map && ((Key) o).key.equals(key);
        }

        @Override
        public int hashCode() {
            return 31 * map.name.hashCode() + key.hashCode();
        }
    }

    private final String name;
    private final PackedRows rows;
    private final Changes changes;

    /** {@code spread} and {@code keepDecoded}: how its rows are held ({@link PackedRows}). */
    TrackedMap(String name, Changes changes, boolean spread, boolean keepDecoded) {
        this.name = name;
        this.changes = changes;
        this.rows = new PackedRows(spread, keepDecoded);
    }

    /** What {@link #find} hands on: the key's segment, under its monitor, and the key's slot there or -1. */
    private interface Found<R> {
        R at(PackedRows.Segment segment, int slot);
    }

    /** Looks the key up under its segment's monitor. */
    private <R> R find(String key, Found<R> then) {
        int hash = PackedRows.hash(key);
        PackedRows.Segment segment = rows.segment(hash);
        synchronized (segment) {
            return then.at(segment, segment.find(key, hash));
        }
    }

    /**
     * Loads a row read from the state file, its value checked by decoding it: not a change. False
     * when the key has a row already (the file is damaged: a key has one row).
     */
    boolean load(long seq, String key, byte[] value) throws IOException {
        changes.loaded(seq);
        Object decoded = StateCodec.decode(value);
        return find(key, (segment, slot) -> {
            if (slot >= 0) {
                return false;
            }
            segment.put(-1, key, PackedRows.hash(key), seq, value, decoded);
            return true;
        });
    }

    /** The key's row as it is now, or null. */
    private Row row(String key) {
        return find(key, (segment, slot) -> slot < 0 ? null : new Row(segment.seq(slot), segment.valueBytes(slot)));
    }

    @Override
    public V get(Object key) {
        return key instanceof String ? find((String) key, (segment, slot) -> slot < 0 ? null : decode(segment, slot)) : null;
    }

    @Override
    public boolean containsKey(Object key) {
        return key instanceof String && find((String) key, (segment, slot) -> slot >= 0);
    }

    @Override
    public int size() {
        int n = 0;
        for (int i = 0; i < rows.segmentCount(); i++) {
            PackedRows.Segment segment = rows.segmentAt(i);
            synchronized (segment) {
                n += segment.size();
            }
        }
        return n;
    }

    /** The entries of one segment, decoded under its monitor; those of the next are read as the iteration gets there. */
    private List<Entry<String, V>> entriesOf(int i) {
        PackedRows.Segment segment = rows.segmentAt(i);
        synchronized (segment) {
            List<Entry<String, V>> out = new ArrayList<>(segment.size());
            for (int slot = 0; slot < segment.capacity(); slot++) {
                if (segment.occupied(slot)) {
                    out.add(new SimpleImmutableEntry<>(segment.key(slot), decode(segment, slot)));
                }
            }
            return out;
        }
    }

    @Override
    public Set<Entry<String, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<String, V>> iterator() {
                return new Iterator<>() {
                    private int next;
                    private Iterator<Entry<String, V>> current = Collections.emptyIterator();

                    @Override
                    public boolean hasNext() {
                        while (!current.hasNext() && next < rows.segmentCount()) {
                            current = entriesOf(next++).iterator();
                        }
                        return current.hasNext();
                    }

                    @Override
                    public Entry<String, V> next() {
                        if (!hasNext()) {
                            throw new NoSuchElementException();
                        }
                        return current.next();
                    }
                };
            }

            @Override
            public int size() {
                return TrackedMap.this.size();
            }
        };
    }

    @SuppressWarnings("unchecked")
    private V decode(PackedRows.Segment segment, int slot) {
        Object kept = segment.decoded(slot);
        if (kept != null) {
            return (V) kept;
        }
        try {
            return (V) StateCodec.decode(segment.value(slot));
        } catch (IOException e) {
            throw new UncheckedIOException("a row of " + name + " held in memory does not decode", e);
        }
    }

    private static byte[] encode(Object value) {
        try {
            return StateCodec.encode(value);
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /**
     * Every change comes here: the new value, from the current one (null: absent), atomically
     * for the key. A key added gets a new row number; one removed leaves its row number to
     * delete; a value that stays equal (a failed claim) changes nothing to write. The remapping
     * runs under the key's segment's monitor and the store's lock: it must not read or change the
     * store's maps (MapNatStore's do not).
     */
    @Override
    public V compute(String key, BiFunction<? super String, ? super V, ? extends V> remapping) {
        return change(key, remapping, false);
    }

    /** Changes the key's value as {@link #compute} does; returns the value before. */
    private V update(Object key, BiFunction<? super String, ? super V, ? extends V> change) {
        return change((String) key, change, true);
    }

    /** {@link #compute}: returns the value after, or ({@code returnBefore}) the value before. */
    private V change(String key, BiFunction<? super String, ? super V, ? extends V> remapping, boolean returnBefore) {
        int hash = PackedRows.hash(key);
        PackedRows.Segment segment = rows.segment(hash);
        long stamp = changes.lock.readLock();
        try {
            synchronized (segment) {
                int slot = segment.find(key, hash);
                V before = slot < 0 ? null : decode(segment, slot);
                V value = remapping.apply(key, before);
                // recorded under the key's monitor: of two threads changing a key, the later change is the one kept
                if (value == null) {
                    if (slot >= 0) {
                        changes.deleted.add(segment.seq(slot));
                        segment.remove(slot);
                        changes.dirty.put(new Key(this, key), Changes.GONE);
                    }
                } else if (!value.equals(before)) {
                    byte[] bytes = encode(value);
                    long seq = slot < 0 ? changes.lastSeq.incrementAndGet() : segment.seq(slot);
                    segment.put(slot, key, hash, seq, bytes, value);
                    changes.dirty.put(new Key(this, key), new Row(seq, bytes));
                }
                return returnBefore ? before : value;
            }
        } finally {
            changes.lock.unlockRead(stamp);
        }
    }

    @Override
    public V put(String key, V value) {
        return update(key, (k, v) -> value);
    }

    @Override
    public V putIfAbsent(String key, V value) {
        return update(key, (k, v) -> v != null ? v : value);
    }

    @Override
    public V remove(Object key) {
        return update(key, (k, v) -> null);
    }

    @Override
    public boolean remove(Object key, Object value) {
        V was = update(key, (k, v) -> Objects.equals(v, value) ? null : v);
        return was != null && was.equals(value);
    }

    @Override
    public boolean replace(String key, V oldValue, V newValue) {
        V was = update(key, (k, v) -> v != null && v.equals(oldValue) ? newValue : v);
        return was != null && was.equals(oldValue);
    }

    @Override
    public V replace(String key, V value) {
        return update(key, (k, v) -> v == null ? null : value);
    }

    @Override
    public V computeIfAbsent(String key, Function<? super String, ? extends V> mapping) {
        return compute(key, (k, v) -> v != null ? v : mapping.apply(k));
    }

    @Override
    public V computeIfPresent(String key, BiFunction<? super String, ? super V, ? extends V> remapping) {
        return compute(key, (k, v) -> v == null ? null : remapping.apply(k, v));
    }

    @Override
    public V merge(String key, V value, BiFunction<? super V, ? super V, ? extends V> remapping) {
        return compute(key, (k, v) -> v == null ? value : remapping.apply(v, value));
    }

    @Override
    public void clear() {
        List<String> keys = new ArrayList<>();
        entrySet().forEach(e -> keys.add(e.getKey()));
        keys.forEach(this::remove);
    }
}
