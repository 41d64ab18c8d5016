package org.nat64fabric.core.control;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.nat64fabric.core.control.SwitchLink.Update;
import org.nat64fabric.core.fabric.Entity;
import org.nat64fabric.core.fabric.SessionEntries;
import org.nat64fabric.core.fabric.TableEntry;

/**
 * What one switch holds, as last written or read, so that a write carries only what changed. A
 * BIB entry's two session entries are kept as the {@link SessionEntries} they were made from
 * (by the BIB entry's key), every other entity as itself (by its key).
 */
final class HeldEntities {
    private final Map<Object, Entity> entities;
    private final Map<String, SessionEntries> sessions;

    /**
     * The maps are made for {@code expectedBibEntries} BIB entries and {@code expectedEntities}
     * other entities (a remote filter per session with address-dependent filtering) at once, so
     * that neither grows in one piece while setups wait (growing past 98 304 entries held setups
     * for 30-90 ms).
     */
    HeldEntities(int expectedBibEntries, int expectedEntities) {
        sessions = new ConcurrentHashMap<>(Math.max(16, expectedBibEntries));
        entities = new ConcurrentHashMap<>(Math.max(16, expectedEntities));
    }

    /** Records that the switch holds {@code e}; for a reconciled switch, which holds its desired state. */
    void hold(Entity e) {
        entities.put(e.key(), e);
    }

    void hold(SessionEntries s) {
        sessions.put(s.key(), s);
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
        SessionEntries h = sessions.put(s.key(), s);
        if (s.equals(h)) {
            return false;
        }
        List<TableEntry> now = made.apply(s);
        List<TableEntry> was = h == null ? null : h.entries();
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

    /** No longer holding the session entries of the BIB entry {@code key}: those it held, to delete. */
    List<TableEntry> removeSessions(String key) {
        SessionEntries h = sessions.remove(key);
        return h == null ? List.of() : h.entries();
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
        String bibKey = SessionEntries.keyOf(e).orElse(null);
        SessionEntries h = bibKey == null ? null : sessions.get(bibKey);
        if (h == null) {
            return false;
        }
        List<TableEntry> held = h.entries();
        if (held.stream().noneMatch(x -> x.key().equals(key))) {
            return false;   // the BIB entry's IPv6 side maps another IPv4 side by now
        }
        sessions.remove(bibKey, h);
        held.stream().filter(x -> !x.key().equals(key)).forEach(this::hold);
        return true;
    }

    /** A write that was never made: forgets {@code e} unless a different one was put in its place since. */
    void forget(Entity e) {
        entities.remove(e.key(), e);
    }

    void forget(SessionEntries s) {
        sessions.remove(s.key(), s);
    }

    /** How many entities the switch holds (two per BIB entry's session entries). */
    int size() {
        return entities.size() + 2 * sessions.size();
    }
}
