package org.nat64fabric.core.store;

import java.util.concurrent.ConcurrentHashMap;

/** The store in memory: for tests and single-instance runs that may forget. */
public final class InMemoryNatStore extends MapNatStore {
    public InMemoryNatStore() {
        super(InMemoryNatStore::map);
    }

    private static <V> ConcurrentHashMap<String, V> map(String name) {
        return new ConcurrentHashMap<>();
    }
}
