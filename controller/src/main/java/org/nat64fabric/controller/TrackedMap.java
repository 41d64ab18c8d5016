package org.nat64fabric.controller;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
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
import java.util.function.UnaryOperator;

/**
 * One of the durable store's maps, held in memory: a ConcurrentHashMap whose every change of a
 * key is recorded in the store's {@link Changes}, so that the next commit writes the key's value
 * as it is then, or deletes its row when the key is gone. A key keeps the number of its row in
 * the state file from the moment it is added until it is removed. Views are read-only: every
 * change goes through a method that records it.
 */
final class TrackedMap<V> extends AbstractMap<String, V> implements ConcurrentMap<String, V> {
    /** A value and the number of its row. Replaced, never changed, when the value changes. */
    private static final class Row<V> {
        final V value;
        final long seq;

        Row(V value, long seq) {
            this.value = value;
            this.seq = seq;
        }
    }

    /** A row to write: its number, the map and key it holds, the value. */
    static final class RowWrite {
        final long seq;
        final String map;
        final String key;
        final Object value;

        RowWrite(long seq, String map, String key, Object value) {
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
        private static final Row<?> GONE = new Row<>(null, -1);

        /**
         * Cheaper than a ReentrantReadWriteLock, which every change of every setup would take; not
         * reentrant, so a change's remapping must not change the maps (MapNatStore's do not).
         */
        private final StampedLock lock = new StampedLock();
        /** Per changed key, its row as its last change left it (or GONE): a snapshot looks up nothing. */
        private final Map<Key, Row<?>> dirty = new ConcurrentHashMap<>();
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
                List<Key> keys = new ArrayList<>(dirty.size());
                List<RowWrite> writes = new ArrayList<>(dirty.size());
                dirty.forEach((k, row) -> {
                    keys.add(k);
                    if (row != GONE) {
                        writes.add(new RowWrite(row.seq, k.map.name, k.key, row.value));
                    }
                });
                dirty.clear();
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
                    Row<?> now = k.map.data.get(k.key);
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
    private final ConcurrentHashMap<String, Row<V>> data;
    private final Changes changes;

    /** {@code expectedSize}: the keys it is sized for, so that it does not rehash while it fills. */
    TrackedMap(String name, Changes changes, int expectedSize) {
        this.name = name;
        this.changes = changes;
        this.data = new ConcurrentHashMap<>(expectedSize);
    }

    /**
     * Loads a row read from the state file: not a change. False when the key has a row already
     * (the file is damaged: a key has one row).
     */
    boolean load(long seq, String key, V value) {
        changes.loaded(seq);
        return data.putIfAbsent(key, new Row<>(value, seq)) == null;
    }

    @Override
    public V get(Object key) {
        Row<V> row = data.get(key);
        return row == null ? null : row.value;
    }

    @Override
    public boolean containsKey(Object key) {
        return data.containsKey(key);
    }

    @Override
    public int size() {
        return data.size();
    }

    @Override
    public Set<Entry<String, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<String, V>> iterator() {
                Iterator<Entry<String, Row<V>>> rows = data.entrySet().iterator();
                return new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return rows.hasNext();
                    }

                    @Override
                    public Entry<String, V> next() {
                        Entry<String, Row<V>> e = rows.next();
                        return new SimpleImmutableEntry<>(e.getKey(), e.getValue().value);
                    }
                };
            }

            @Override
            public int size() {
                return data.size();
            }
        };
    }

    @Override
    public Set<String> keySet() {
        return Collections.unmodifiableSet(data.keySet());
    }

    /**
     * Every change comes here: the new value, from the current one (null: absent), atomically
     * for the key. A key added gets a new row number; one removed leaves its row number to
     * delete; a value that stays equal (a failed claim) changes nothing to write.
     */
    @Override
    public V compute(String key, BiFunction<? super String, ? super V, ? extends V> remapping) {
        long stamp = changes.lock.readLock();
        try {
            Row<V> after = data.compute(key, (k, row) -> {
                V value = remapping.apply(k, row == null ? null : row.value);
                Row<V> next = value == null ? null
                        : row != null && Objects.equals(row.value, value) ? row
                        : new Row<>(value, row == null ? changes.lastSeq.incrementAndGet() : row.seq);
                if (next != row) {
                    // recorded under the key's lock: of two threads changing a key, the later change is the one kept
                    changes.dirty.put(new Key(this, k), next == null ? Changes.GONE : next);
                    if (next == null) {
                        changes.deleted.add(row.seq);
                    }
                }
                return next;
            });
            return after == null ? null : after.value;
        } finally {
            changes.lock.unlockRead(stamp);
        }
    }

    /** Changes the key's value as {@link #compute} does; returns the value before. */
    private V update(Object key, UnaryOperator<V> change) {
        Object[] before = new Object[1];
        compute((String) key, (k, v) -> {
            before[0] = v;
            return change.apply(v);
        });
        @SuppressWarnings("unchecked")
        V was = (V) before[0];
        return was;
    }

    @Override
    public V put(String key, V value) {
        return update(key, v -> value);
    }

    @Override
    public V putIfAbsent(String key, V value) {
        return update(key, v -> v != null ? v : value);
    }

    @Override
    public V remove(Object key) {
        return update(key, v -> null);
    }

    @Override
    public boolean remove(Object key, Object value) {
        V was = update(key, v -> Objects.equals(v, value) ? null : v);
        return was != null && was.equals(value);
    }

    @Override
    public boolean replace(String key, V oldValue, V newValue) {
        V was = update(key, v -> v != null && v.equals(oldValue) ? newValue : v);
        return was != null && was.equals(oldValue);
    }

    @Override
    public V replace(String key, V value) {
        return update(key, v -> v == null ? null : value);
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
        data.keySet().forEach(this::remove);
    }
}
