package org.nat64fabric.core.control;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
    private final Map<Object, Entity> entities = new ConcurrentHashMap<>();
    private final Map<String, SessionEntries> sessions;

    /**
     * {@code expectedBibEntries}: a translating switch's map is made for a full session table at
     * once, so that it never grows in one piece while setups wait (growing past 98 304 entries
     * held setups for 30-90 ms).
     */
    HeldEntities(int expectedBibEntries) {
        sessions = new ConcurrentHashMap<>(Math.max(16, expectedBibEntries));
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
     * whether there were any.
     */
    boolean put(SessionEntries s, List<Update> updates) {
        SessionEntries h = sessions.put(s.key(), s);
        if (s.equals(h)) {
            return false;
        }
        List<TableEntry> now = s.entries();
        List<TableEntry> was = h == null ? null : h.entries();
        for (int i = 0; i < now.size(); i++) {
            TableEntry e = now.get(i);
            if (was == null) {
                updates.add(new Update(Update.Type.INSERT, e));
            } else if (was.get(i).key().equals(e.key())) {
                if (!was.get(i).equals(e)) {
                    updates.add(new Update(Update.Type.MODIFY, e));
                }
            } else {   // the same IPv6 side mapped to another IPv4 one: another session_v4 entry
                updates.add(new Update(Update.Type.DELETE, was.get(i)));
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

    /** No longer holding {@code e}, a session entry or any other, whatever the switch holds for it now. */
    void removeAny(Entity e) {
        SessionEntries.keyOf(e).ifPresentOrElse(sessions::remove, () -> entities.remove(e.key()));
    }

    /** A write that was never made: forgets {@code e} unless something else was put in its place since. */
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
