package org.nat64fabric.core.control;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Punted packets waiting for their session setup, one queue per subscriber, served in rounds:
 * a batch takes one packet from each subscriber in turn, so a subscriber that floods delays only
 * itself. A subscriber's queue is bounded, and so is the whole (IPv4 packets are queued by
 * source, which a sender can vary at will); what does not fit is refused, not queued, and a full
 * whole makes room for a short queue at the expense of the longest.
 */
final class SetupQueue<T> {
    private final int perSubscriber;
    private final int total;
    private final Map<Object, ArrayDeque<T>> queues = new LinkedHashMap<>();
    /**
     * The subscribers with a packet waiting, by the length of their queue: a full whole finds its
     * longest queue without looking at every queue (a flood from many IPv4 sources fills the
     * whole with tens of thousands of one-packet queues, and each of its packets asks).
     */
    private final Map<Integer, Set<Object>> byLength = new HashMap<>();
    private int longest;
    private int size;

    SetupQueue(int perSubscriber, int total) {
        this.perSubscriber = perSubscriber;
        this.total = total;
    }

    /**
     * Queues {@code item} for {@code subscriber}. Returns what is refused: null when nothing is,
     * {@code item} when its subscriber's queue is full, or when the whole is full and no queue is
     * longer than its subscriber's; else the newest packet of the longest queue, pushed out to
     * make room. So many flooding sources together still cannot shut out one that sends little.
     */
    synchronized T offer(Object subscriber, T item) {
        ArrayDeque<T> q = queues.get(subscriber);
        int mine = q == null ? 0 : q.size();
        if (mine >= perSubscriber) {
            return item;
        }
        T pushedOut = null;
        if (size >= total) {
            if (longest <= mine + 1) {
                return item;
            }
            Object victim = byLength.get(longest).iterator().next();
            ArrayDeque<T> v = queues.get(victim);
            pushedOut = v.pollLast();
            size--;
            lengthChanged(victim, v.size() + 1, v.size());
        }
        if (q == null) {
            q = new ArrayDeque<>();
            queues.put(subscriber, q);
        }
        q.add(item);
        size++;
        lengthChanged(subscriber, q.size() - 1, q.size());
        return pushedOut;
    }

    /** Moves {@code subscriber} between the length buckets (0: none), keeping {@link #longest}. */
    private void lengthChanged(Object subscriber, int from, int to) {
        if (from > 0) {
            Set<Object> s = byLength.get(from);
            s.remove(subscriber);
            if (s.isEmpty()) {
                byLength.remove(from);
            }
        }
        if (to > 0) {
            byLength.computeIfAbsent(to, k -> new LinkedHashSet<>()).add(subscriber);
        }
        longest = Math.max(longest, to);
        while (longest > 0 && !byLength.containsKey(longest)) {
            longest--;
        }
    }

    /**
     * Up to {@code max} packets, taken round-robin across the subscribers that wait, at most
     * {@code perSubscriber} from each: a subscriber alone with a full queue makes small batches,
     * which leave the pipeline soon to whoever asks next. A subscriber served and still waiting
     * goes to the back, so that the next batch starts with the ones this one did not reach,
     * however many keep their queues full.
     */
    synchronized List<T> take(int max, int perSubscriber) {
        List<T> batch = new ArrayList<>(Math.min(max, size));
        for (int round = 0; round < perSubscriber && batch.size() < max && size > 0; round++) {
            Iterator<Map.Entry<Object, ArrayDeque<T>>> it = queues.entrySet().iterator();
            List<Map.Entry<Object, ArrayDeque<T>>> again = new ArrayList<>();
            while (it.hasNext() && batch.size() < max) {
                Map.Entry<Object, ArrayDeque<T>> e = it.next();
                batch.add(e.getValue().poll());
                size--;
                lengthChanged(e.getKey(), e.getValue().size() + 1, e.getValue().size());
                it.remove();
                if (!e.getValue().isEmpty()) {
                    again.add(e);
                }
            }
            again.forEach(e -> queues.put(e.getKey(), e.getValue()));   // behind the ones not yet served
        }
        return batch;
    }

    synchronized int size() {
        return size;
    }
}
