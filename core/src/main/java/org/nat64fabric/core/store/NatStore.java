package org.nat64fabric.core.store;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.pool4.PortStore;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.addr.Ipv6Address;

/**
 * Everything the NAT64 must not lose: port blocks and ports (via {@link PortStore}), the BIB,
 * sessions and the EAMT. Implementations: {@link InMemoryNatStore} here, ONOS primitives in
 * the app, a durable database in the embedded controller. Writes that can race between
 * controller instances are atomic.
 */
public interface NatStore extends PortStore {
    /**
     * A commit that could not be made durable (a full or failing disk). The changes stay in memory
     * and go with the next commit; whoever made them was not told they happened.
     */
    final class NotDurable extends RuntimeException {
        public NotDurable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Adds the entry unless its IPv6 or IPv4 side is already in the BIB; then returns the entry
     * that holds it and stores nothing.
     */
    Optional<BibEntry> addBib(BibEntry entry);

    boolean removeBib(BibEntry entry);

    Optional<BibEntry> bibBy6(Protocol protocol, Ipv6Address address, int port);

    Optional<BibEntry> bibBy4(Protocol protocol, TransportAddress address);

    List<BibEntry> bib();

    /** How many BIB entries there are; a store that counts them without a copy says so faster. */
    default int bibCount() {
        return bib().size();
    }

    /**
     * The static BIB entries (an operator's port forwards). This default lists the whole BIB; a
     * store that indexes them answers from the few there are.
     */
    default List<BibEntry> staticBib() {
        return bib().stream().filter(BibEntry::isStatic).collect(java.util.stream.Collectors.toList());
    }

    void putSession(Session session);

    boolean removeSession(Session session);

    Optional<Session> session(String key);

    List<Session> sessions();

    /** The sessions of one BIB entry. */
    List<Session> sessionsOf(BibEntry bib);

    /** How many sessions the hosts in {@code subscriber}/{@code prefixLength} hold. */
    long sessionCount(Ipv6Address subscriber, int prefixLength);

    /**
     * Per protocol, how many BIB entries ({@code [0]}) and sessions ({@code [1]}) the store holds.
     * This default lists the whole BIB and every session; a store that keeps the counts answers at
     * once, so that a metrics scrape does not walk a million sessions while setups wait.
     */
    default Map<Protocol, long[]> counts() {
        Map<Protocol, long[]> by = new EnumMap<>(Protocol.class);
        for (Protocol p : Protocol.values()) {
            by.put(p, new long[2]);
        }
        bib().forEach(b -> by.get(b.protocol())[0]++);
        sessions().forEach(s -> by.get(s.bib().protocol())[1]++);
        return by;
    }

    /**
     * Runs {@code work}, whose changes a durable store may make durable together, once, when it
     * ends (group commit) instead of after each change. Nothing done inside may be acknowledged
     * to anyone before this returns.
     */
    void batch(Runnable work);

    /**
     * Runs {@code work} as {@link #batch} does, but returns without waiting for its changes to be
     * durable: the future completes once they are, or fails when they cannot be. Nothing done
     * inside may be acknowledged before it completes. A durable store makes such batches durable
     * in the order they ran, so the caller can go on with the next batch meanwhile; a store that
     * is not durable (or not this way) completes the future before returning it. Not inside a batch.
     */
    default CompletableFuture<Void> batchAsync(Runnable work) {
        batch(work);
        return CompletableFuture.completedFuture(null);
    }

    /** The EAMT's entries, in no particular order (lookups are longest-prefix). */
    List<Eam> eams();

    void addEam(Eam eam);

    boolean removeEam(Eam eam);
}
