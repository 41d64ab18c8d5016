package org.nat64fabric.core.control;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Punted packets waiting for their session setup, one queue per subscriber, served in rounds:
 * a batch takes one packet from each subscriber in turn, so a subscriber that floods delays only
 * itself. A subscriber's queue is bounded, and so is the whole (IPv4 packets are queued by
 * source, which a sender can vary at will); what does not fit is refused, not queued.
 */
final class SetupQueue<T> {
    private final int perSubscriber;
    private final int total;
    private final Map<Object, ArrayDeque<T>> queues = new LinkedHashMap<>();
    private int size;

    SetupQueue(int perSubscriber, int total) {
        this.perSubscriber = perSubscriber;
        this.total = total;
    }

    /** Queues {@code item} for {@code subscriber}; false when that subscriber's queue, or the whole, is full. */
    synchronized boolean offer(Object subscriber, T item) {
        if (size >= total) {
            return false;
        }
        ArrayDeque<T> q = queues.computeIfAbsent(subscriber, s -> new ArrayDeque<>());
        if (q.size() >= perSubscriber) {
            return false;
        }
        q.add(item);
        size++;
        return true;
    }

    /**
     * Up to {@code max} packets, taken round-robin across the subscribers that wait. A subscriber
     * served and still waiting goes to the back, so that the next batch starts with the ones this
     * one did not reach, however many keep their queues full.
     */
    synchronized List<T> take(int max) {
        List<T> batch = new ArrayList<>(Math.min(max, size));
        while (batch.size() < max && size > 0) {
            Iterator<Map.Entry<Object, ArrayDeque<T>>> it = queues.entrySet().iterator();
            List<Map.Entry<Object, ArrayDeque<T>>> again = new ArrayList<>();
            while (it.hasNext() && batch.size() < max) {
                Map.Entry<Object, ArrayDeque<T>> e = it.next();
                batch.add(e.getValue().poll());
                size--;
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
