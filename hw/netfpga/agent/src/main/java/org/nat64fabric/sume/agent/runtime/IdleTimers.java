package org.nat64fabric.sume.agent.runtime;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.nat64fabric.sume.agent.card.CardException;

/**
 * Idle timeouts emulated for a card whose tables have none (hw/netfpga/README.md, "Idle
 * timeouts"): every aged entry holds a slot of one register of hit counts on the card, which the
 * card's pipe adds one to on each hit of the entry. A count that changed since it was last read
 * is a hit in between, seen at the read: an entry's last hit is the time of the read that saw its
 * count change. A poll reads an entry's count once an eighth of its timeout passed since the last
 * read, and always before reporting it: an entry is never reported before its timeout, and at
 * most an eighth of it (or one poll) after, at a few reads per timeout rather than one per poll.
 * Counts are only compared, so they may wrap: a 32-bit cell hides hits only if exactly 2^32 of
 * them come between two reads.
 *
 * <p>Notifications as softswitch sends them (P4Runtime 9.1.8): an entry with an idle timeout not
 * hit for it is reported, then again each timeout period while it stays idle; a hit starts its
 * timeout over. Slots are reused oldest-freed first, so that a hit of a deleted entry still in
 * flight is unlikely to land on the slot's next owner.
 *
 * @param <K> what names an entry (its table and match)
 */
public final class IdleTimers<K> {
    /** Reads a slot's hit count on the card. */
    public interface HitCounts {
        long read(int slot) throws CardException;
    }

    /** Reads of an entry's count per idle timeout, while it has not to be reported. */
    static final int READS_PER_TIMEOUT = 8;

    private static final class Timer {
        final int slot;
        long idleTimeoutNs;
        long count;
        long lastHitNs;
        long lastReadNs;
        /** The earliest time an idle entry is reported (again). */
        long reportAtNs;

        Timer(int slot, long idleTimeoutNs, long count, long now) {
            this.slot = slot;
            this.idleTimeoutNs = idleTimeoutNs;
            this.count = count;
            this.lastHitNs = now;
            this.lastReadNs = now;
            this.reportAtNs = now + idleTimeoutNs;
        }
    }

    private final HitCounts counts;
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private final Map<K, Timer> timers = new HashMap<>();

    public IdleTimers(int slots, HitCounts counts) {
        this.counts = counts;
        for (int s = 0; s < slots; s++) {
            free.add(s);
        }
    }

    /** The slot of a new entry, its count read as it is now, its last hit now; -1 when every slot is taken. */
    public int start(K entry, long idleTimeoutNs, long now) throws CardException {
        if (timers.containsKey(entry)) {
            throw new IllegalStateException("the entry has a slot already");
        }
        Integer slot = free.poll();
        if (slot == null) {
            return -1;
        }
        try {
            timers.put(entry, new Timer(slot, idleTimeoutNs, counts.read(slot), now));
        } catch (CardException e) {
            free.addFirst(slot);
            throw e;
        }
        return slot;
    }

    /** The entry's slot, or -1 when it has none. */
    public int slot(K entry) {
        Timer t = timers.get(entry);
        return t == null ? -1 : t.slot;
    }

    /** A MODIFY's new idle timeout: counted from the entry's last hit. */
    public void setTimeout(K entry, long idleTimeoutNs) {
        Timer t = timer(entry);
        t.idleTimeoutNs = idleTimeoutNs;
        t.reportAtNs = t.lastHitNs + idleTimeoutNs;
    }

    /** The entry is gone: its slot is free again. */
    public void stop(K entry) {
        Timer t = timers.remove(entry);
        if (t != null) {
            free.add(t.slot);
        }
    }

    public void clear() {
        for (Timer t : timers.values()) {
            free.add(t.slot);
        }
        timers.clear();
    }

    public int inUse() {
        return timers.size();
    }

    /** Nanoseconds since the entry's last hit (or its insertion), its count read now. */
    public long sinceLastHit(K entry, long now) throws CardException {
        Timer t = timer(entry);
        look(t, now);
        return now - t.lastHitNs;
    }

    /**
     * Reads the counts of the entries with an idle timeout whose read is due (an eighth of the
     * timeout after the last, or their report); those idle for it whose report is due.
     */
    public List<K> poll(long now) throws CardException {
        List<K> idle = new ArrayList<>();
        for (Map.Entry<K, Timer> e : timers.entrySet()) {
            Timer t = e.getValue();
            if (t.idleTimeoutNs == 0) {
                continue;
            }
            if (now - t.lastReadNs >= t.idleTimeoutNs / READS_PER_TIMEOUT || now - t.reportAtNs >= 0) {
                look(t, now);
            }
            if (now - t.reportAtNs >= 0) {
                idle.add(e.getKey());
                // P4Runtime: a notification resets the entry's timer (time_since_last_hit too).
                t.lastHitNs = now;
                t.reportAtNs = now + t.idleTimeoutNs;
            }
        }
        return idle;
    }

    private void look(Timer t, long now) throws CardException {
        long c = counts.read(t.slot);
        t.lastReadNs = now;
        if (c != t.count) {
            t.count = c;
            t.lastHitNs = now;
            t.reportAtNs = now + t.idleTimeoutNs;
        }
    }

    private Timer timer(K entry) {
        Timer t = timers.get(entry);
        if (t == null) {
            throw new IllegalStateException("the entry has no slot");
        }
        return t;
    }
}
