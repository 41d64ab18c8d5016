package org.nat64fabric.core.store;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys of each BIB entry's sessions, by the entry's IPv6 key: asked at every setup (a BIB
 * entry's lifetime is its sessions' longest). Nearly every entry has one session, so an entry
 * holds that session's key itself (one map node, the key shared with the session map) and a set
 * only once it has more. An ordered set of all session keys, searched by prefix, cost a skip-list
 * walk per question that grew with the sessions; a set per entry took seven times the room.
 * Safe for concurrent use: each entry changes in one atomic map operation.
 */
final class SessionIndex {
    /** Per BIB key: a String (its one session's key) or a concurrent Set of keys (two or more). */
    private final ConcurrentHashMap<String, Object> byBib;

    /**
     * {@code expectedEntries}: the BIB entries to size the map for at once, as the store's own
     * maps are: a hash map growing past a power of two rehashes every entry while setups wait.
     */
    SessionIndex(int expectedEntries) {
        byBib = new ConcurrentHashMap<>(expectedEntries);
    }

    void add(String bibKey, String sessionKey) {
        byBib.merge(bibKey, sessionKey, (held, key) -> {
            if (held instanceof String) {
                if (held.equals(key)) {
                    return held;
                }
                Set<String> keys = ConcurrentHashMap.newKeySet();
                keys.add((String) held);
                keys.add((String) key);
                return keys;
            }
            keysIn(held).add((String) key);
            return held;
        });
    }

    void remove(String bibKey, String sessionKey) {
        byBib.computeIfPresent(bibKey, (k, held) -> {
            if (held instanceof String) {
                return held.equals(sessionKey) ? null : held;
            }
            Set<String> keys = keysIn(held);
            keys.remove(sessionKey);
            return keys.size() == 1 ? keys.iterator().next() : keys.isEmpty() ? null : keys;
        });
    }

    /** The entry's session keys, in key order. */
    List<String> keysOf(String bibKey) {
        Object held = byBib.get(bibKey);
        if (held == null) {
            return List.of();
        }
        return held instanceof String ? List.of((String) held) : List.copyOf(new TreeSet<>(keysIn(held)));
    }

    @SuppressWarnings("unchecked")
    private static Set<String> keysIn(Object held) {
        return (Set<String>) held;
    }
}
