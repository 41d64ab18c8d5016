package org.nat64fabric.core.control;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.nat64fabric.core.control.SwitchLink.Update;
import org.nat64fabric.core.fabric.Entity;
import org.nat64fabric.core.fabric.SessionEntries;
import org.nat64fabric.core.fabric.TableEntry;
import org.nat64fabric.core.session.BibSide;
import org.nat64fabric.core.session.LongsByBib;

/**
 * What one switch holds, as last written or read, so that a write carries only what changed. A
 * BIB entry's two session entries are kept as the {@link SessionEntries} they were made from,
 * packed into longs by the BIB entry's IPv6 side (no object per BIB entry for the collector),
 * every other entity as itself (by its key).
 */
final class HeldEntities {
    private final Map<Object, Entity> entities;
    private final LongsByBib sessions = new LongsByBib(2);

    /**
     * The map of other entities is made for {@code expectedEntities} (a remote filter per session
     * with address-dependent filtering) at once, so that it does not grow in one piece while
     * setups wait (growing past 98 304 entries held setups for 30-90 ms).
     */
    HeldEntities(int expectedEntities) {
        entities = new ConcurrentHashMap<>(Math.max(16, expectedEntities));
    }

    /** Records that the switch holds {@code e}; for a reconciled switch, which holds its desired state. */
    void hold(Entity e) {
        entities.put(e.key(), e);
    }

    void hold(SessionEntries s) {
        sessions.put(s.side(), s.packed());
    }

    /** Holding {@code e} from now: the update that gets the switch there, or null when it held {@code e} already. */
    Update put(Entity e) {
        Entity h = entities.put(e.key(), e);
        return h == null ? new Update(Update.Type.INSERT, e)
                : h.equals(e) ? null : new Update(Update.Type.MODIFY, e);
    }

    /**
     * Holding {@code s} from now: adds the updates that get the switch there to {@code updates};
     * whether there were any. {@code made} gives its entries ({@link SessionEntries#entries}),
     * made once for every switch they go to.
     */
    boolean put(SessionEntries s, Function<SessionEntries, List<TableEntry>> made, List<Update> updates) {
        BibSide side = s.side();
        long[] packed = s.packed();
        long[] h = sessions.put(side, packed);
        if (Arrays.equals(packed, h)) {
            return false;
        }
        List<TableEntry> now = made.apply(s);
        List<TableEntry> was = h == null ? null : SessionEntries.unpacked(side, h).entries();
        for (int i = 0; i < now.size(); i++) {
            TableEntry e = now.get(i);
            if (was == null) {
                updates.add(new Update(Update.Type.INSERT, e));
            } else if (was.get(i).key().equals(e.key())) {
                if (!was.get(i).equals(e)) {
                    updates.add(new Update(Update.Type.MODIFY, e));
                }
            } else {
                // The same IPv6 side mapped to another IPv4 one: another session_v4 entry. The
                // one before is not deleted here (another BIB entry may map that IPv4 side by
                // now); the switch reports it idle, and nothing maps it then.
                updates.add(new Update(Update.Type.INSERT, e));
            }
        }
        return true;
    }

    /** No longer holding {@code e}: whether it held it (so that it is deleted). */
    boolean remove(Entity e) {
        return entities.remove(e.key()) != null;
    }

    /** No longer holding the session entries of the BIB entry of this side: those it held, to delete. */
    List<TableEntry> removeSessions(BibSide side) {
        long[] h = sessions.remove(side);
        return h == null ? List.of() : SessionEntries.unpacked(side, h).entries();
    }

    /**
     * No longer holding the entity with {@code e}'s key, a session entry or any other (a switch
     * reported it idle, and nothing maps it); whether it held one. Of a BIB entry's session entries
     * held as one, the other stays held.
     */
    boolean removeEntry(Entity e) {
        Object key = e.key();
        if (entities.remove(key) != null) {
            return true;
        }
        BibSide side = SessionEntries.sideOf(e).orElse(null);
        long[] h = side == null ? null : sessions.get(side);
        if (h == null) {
            return false;
        }
        List<TableEntry> held = SessionEntries.unpacked(side, h).entries();
        if (held.stream().noneMatch(x -> x.key().equals(key))) {
            return false;   // the BIB entry's IPv6 side maps another IPv4 side by now
        }
        sessions.replace(side, h, null);
        held.stream().filter(x -> !x.key().equals(key)).forEach(this::hold);
        return true;
    }

    /** A write that was never made: forgets {@code e} unless a different one was put in its place since. */
    void forget(Entity e) {
        entities.remove(e.key(), e);
    }

    void forget(SessionEntries s) {
        sessions.replace(s.side(), s.packed(), null);
    }

    /** How many entities the switch holds (two per BIB entry's session entries). */
    int size() {
        return entities.size() + 2 * sessions.size();
    }
}
