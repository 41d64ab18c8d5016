package org.nat64fabric.core.control;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.nat64fabric.core.pool4.TransportAddress;

/**
 * IPv4 SYNs the NAT64 would not translate (to a pool4 address without a BIB entry, or filtered),
 * held as RFC 6146 3.5.2.2 and RFC 5382 REQ-4 ask: one may be half of a simultaneous open, whose
 * IPv6 side's SYN is on its way (a host's SYN to a held SYN's sender that needs a mapping gets the
 * address the held SYN names: {@link #heldFrom}). Each waits TCP_INCOMING_SYN; then, unless a
 * session for its flow has come meanwhile, it is answered with Port Unreachable. Nothing is answered sooner, so a
 * simultaneous open is never refused; a repeat of a held SYN waits with the first.
 *
 * <p>Each is held as the error that will answer it (at most 590 bytes), on a clock that does not
 * step. Bounded: past its capacity a SYN is dropped and counted, so a scan of pool4 costs at most
 * the capacity in errors.
 */
final class HeldSyns {
    /**
     * A held SYN: the switch and port it came in by, the error that answers it, the flow, and
     * when it is due.
     */
    static final class Held {
        final String deviceId;
        final int cameIn;
        final byte[] error;
        /** The pool4 side (the SYN's destination) and the remote (its source). */
        final TransportAddress local4;
        final TransportAddress remote4;
        final long dueAt;

        Held(String deviceId, int cameIn, byte[] error, TransportAddress local4, TransportAddress remote4,
             long dueAt) {
            this.deviceId = deviceId;
            this.cameIn = cameIn;
            this.error = error;
            this.local4 = local4;
            this.remote4 = remote4;
            this.dueAt = dueAt;
        }
    }

    /** What became of a SYN offered to be held; UNANSWERED: no error could be built (a switch without an IPv4 address). */
    enum Outcome { HELD, REPEATED, FULL, UNANSWERED }

    /** In arrival order, which is the order they are due in: one lifetime, a clock that does not step. */
    private final Map<List<TransportAddress>, Held> held = new LinkedHashMap<>();
    /** Per remote, the pool4 sides of the SYNs held from it, in arrival order. */
    private final Map<TransportAddress, List<TransportAddress>> byRemote = new HashMap<>();

    synchronized Outcome hold(String deviceId, int cameIn, Supplier<Optional<byte[]>> error, TransportAddress local4,
                              TransportAddress remote4, long now, long lifetimeMs, int capacity) {
        List<TransportAddress> flow = List.of(local4, remote4);
        if (held.containsKey(flow)) {
            return Outcome.REPEATED;          // a retransmission: its timer runs from the first
        }
        if (held.size() >= capacity) {
            return Outcome.FULL;
        }
        Optional<byte[]> answer = error.get();
        if (answer.isEmpty()) {
            return Outcome.UNANSWERED;
        }
        held.put(flow, new Held(deviceId, cameIn, answer.get(), local4, remote4, now + lifetimeMs));
        byRemote.computeIfAbsent(remote4, r -> new ArrayList<>(1)).add(local4);
        return Outcome.HELD;
    }

    /** The pool4 sides of the SYNs held from {@code remote4}, in arrival order. */
    synchronized List<TransportAddress> heldFrom(TransportAddress remote4) {
        return List.copyOf(byRemote.getOrDefault(remote4, List.of()));
    }

    /** The SYNs due by {@code now}, no longer held. */
    synchronized List<Held> due(long now) {
        List<Held> out = new ArrayList<>();
        for (Iterator<Held> i = held.values().iterator(); i.hasNext(); ) {
            Held h = i.next();
            if (h.dueAt > now) {
                break;
            }
            out.add(h);
            i.remove();
            List<TransportAddress> locals = byRemote.get(h.remote4);
            locals.remove(h.local4);
            if (locals.isEmpty()) {
                byRemote.remove(h.remote4);
            }
        }
        return out;
    }

    synchronized int size() {
        return held.size();
    }
}
