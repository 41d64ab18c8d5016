package org.nat64fabric.controller;

import java.util.AbstractMap;
import java.util.Collection;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * One of the durable store's maps, held in memory: a ConcurrentHashMap whose every change of a
 * key records that key in the store's dirty set, so that the next commit writes the key's value
 * as it is then (or deletes the row when the key is gone). Views are read-only: every change goes
 * through a method that records it.
 */
final class TrackedMap<V> extends AbstractMap<String, V> implements ConcurrentMap<String, V> {
    /** A row of the state file: the map's name and the key within it. */
    static final class RowKey {
        final String map;
        final String key;

        RowKey(String map, String key) {
            this.map = map;
            this.key = key;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RowKey && ((RowKey) o).map.equals(map) && ((RowKey) o).key.equals(key);
        }

        @Override
        public int hashCode() {
            return map.hashCode() * 31 + key.hashCode();
        }
    }

    private final String name;
    private final ConcurrentHashMap<String, V> data = new ConcurrentHashMap<>();
    private final Set<RowKey> dirty;

    TrackedMap(String name, Set<RowKey> dirty) {
        this.name = name;
        this.dirty = dirty;
    }

    /** Loads a row read from the state file: not a change. */
    void load(String key, V value) {
        data.put(key, value);
    }

    /** The map changes first, then the key is marked: a commit that drains the mark sees the change. */
    private <T> T mark(Object key, T result) {
        dirty.add(new RowKey(name, (String) key));
        return result;
    }

    @Override
    public V get(Object key) {
        return data.get(key);
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
        return Collections.unmodifiableSet(data.entrySet());
    }

    @Override
    public Set<String> keySet() {
        return Collections.unmodifiableSet(data.keySet());
    }

    @Override
    public Collection<V> values() {
        return Collections.unmodifiableCollection(data.values());
    }

    @Override
    public V put(String key, V value) {
        return mark(key, data.put(key, value));
    }

    @Override
    public V putIfAbsent(String key, V value) {
        V held = data.putIfAbsent(key, value);
        return held == null ? mark(key, null) : held;
    }

    @Override
    public V remove(Object key) {
        V removed = data.remove(key);
        return removed == null ? null : mark(key, removed);
    }

    @Override
    public boolean remove(Object key, Object value) {
        return data.remove(key, value) && mark(key, true);
    }

    @Override
    public boolean replace(String key, V oldValue, V newValue) {
        return data.replace(key, oldValue, newValue) && mark(key, true);
    }

    @Override
    public V replace(String key, V value) {
        V old = data.replace(key, value);
        return old == null ? null : mark(key, old);
    }

    @Override
    public V compute(String key, BiFunction<? super String, ? super V, ? extends V> remapping) {
        Object[] before = new Object[1];
        V after = data.compute(key, (k, v) -> {
            before[0] = v;
            return remapping.apply(k, v);
        });
        // A remapping that keeps the value (a failed claim) changes nothing to write.
        return Objects.equals(before[0], after) ? after : mark(key, after);
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
