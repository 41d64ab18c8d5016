package org.nat64fabric.core.store;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.BibSide;
import org.nat64fabric.core.session.LongsByBib;
import org.nat64fabric.core.session.Session;

/**
 * The remotes of each BIB entry's sessions, by the entry's IPv6 side: asked at every setup (a BIB
 * entry's lifetime is its sessions' longest). Nearly every entry has one session, so an entry
 * holds that session's remote as one long in primitive arrays (no object per session for the
 * young collection to copy), and a set only once it has more. An ordered set of all session
 * keys, searched by prefix, cost a skip-list walk per question that grew with the sessions.
 * Safe for concurrent use: a change or question holds one of 64 locks, by the entry's hash.
 */
final class SessionIndex {
    /** The value of an entry whose remotes are in {@link #more}: no remote packs to it (48 bits). */
    private static final long MORE = -1L;

    /** Per BIB entry, its one session's remote ({@link TransportAddress#packed}), or MORE. */
    private final LongsByBib remotes = new LongsByBib(1);
    /**
     * The remotes of the entries with two sessions or more, each set changed under its entry's
     * lock; sized at its first use for a full session table, so that it never grows in one piece
     * while setups wait.
     */
    private final Map<BibSide, Set<TransportAddress>> more = new ConcurrentHashMap<>(MapNatStore.EXPECTED_SESSIONS);
    private final Object[] locks = new Object[64];

    SessionIndex() {
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new Object();
        }
    }

    private Object lockOf(BibSide side) {
        return locks[(side.hashCode() * 0x9E3779B9) >>> 26];
    }

    void add(Session s) {
        BibSide side = BibSide.of(s.bib());
        synchronized (lockOf(side)) {
            add(side, s.remote4());
        }
    }

    private void add(BibSide side, TransportAddress remote4) {
        long remote = remote4.packed();
        long[] held = remotes.get(side);
        if (held == null) {
            remotes.put(side, remote);
        } else if (held[0] == MORE) {
            more.get(side).add(remote4);
        } else if (held[0] != remote) {
            Set<TransportAddress> both = new HashSet<>();
            both.add(TransportAddress.unpacked(held[0]));
            both.add(remote4);
            more.put(side, both);
            remotes.put(side, MORE);
        }
    }

    void remove(Session s) {
        BibSide side = BibSide.of(s.bib());
        synchronized (lockOf(side)) {
            remove(side, s.remote4());
        }
    }

    private void remove(BibSide side, TransportAddress remote4) {
        long[] held = remotes.get(side);
        if (held == null) {
            return;
        }
        if (held[0] != MORE) {
            if (held[0] == remote4.packed()) {
                remotes.remove(side);
            }
            return;
        }
        Set<TransportAddress> left = more.get(side);
        left.remove(remote4);
        if (left.size() == 1) {
            more.remove(side);
            remotes.put(side, left.iterator().next().packed());
        }
    }

    /** The keys of the entry's sessions ({@link Session#key}), in key order. */
    List<String> keysOf(BibEntry bib) {
        BibSide side = BibSide.of(bib);
        synchronized (lockOf(side)) {
            long[] held = remotes.get(side);
            if (held == null) {
                return List.of();
            }
            if (held[0] != MORE) {
                return List.of(Session.key(bib, TransportAddress.unpacked(held[0])));
            }
            return more.get(side).stream().map(r -> Session.key(bib, r)).sorted().collect(Collectors.toList());
        }
    }
}
