package org.nat64fabric.core.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.PortStore;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;

/**
 * The store on maps which its creator supplies by name: in memory ({@link InMemoryNatStore}), a
 * durable store's maps (the embedded controller's MVStore, which then commits in
 * {@link #changed()}), or ONOS's ConsistentMaps (the app's distributed store). Every claim is one
 * atomic map operation, so it holds across threads and across the instances sharing the maps.
 */
public class MapNatStore implements NatStore {
    /**
     * Supplies the store's named maps, whose {@code putIfAbsent}, {@code compute} and
     * {@code remove(key, value)} are atomic: a ConcurrentMap, or a ConsistentMap as a Java map.
     */
    public interface Maps {
        <V> Map<String, V> open(String name);
    }

    /** A port in use never rests out. */
    private static final long IN_USE = Long.MAX_VALUE;

    private final Map<String, PortBlock> blocks;
    private final Map<String, Long> ports;   // key -> rests until (ms)
    private final Map<String, BibEntry> bib6;
    private final Map<String, BibEntry> bib4;
    private final Map<String, Session> sessions;
    private final Map<String, Eam> eams;

    public MapNatStore(Maps maps) {
        blocks = maps.open("blocks");
        ports = maps.open("ports");
        bib6 = maps.open("bib6");
        bib4 = maps.open("bib4");
        sessions = maps.open("sessions");
        eams = maps.open("eamt");
    }

    /** Called after every change; a durable store commits here. */
    protected void changed() {
    }

    @Override
    public boolean claimBlock(PortBlock block) {
        boolean claimed = blocks.putIfAbsent(PortStore.blockKey(block), block) == null;
        changed();
        return claimed;
    }

    @Override
    public void releaseBlock(PortBlock block) {
        if (blocks.remove(PortStore.blockKey(block), block)) {
            for (int port = block.first(); port <= block.last(); port++) {
                ports.remove(PortStore.portKey(block.protocol(), new TransportAddress(block.address(), port)));
            }
        }
        changed();
    }

    @Override
    public List<PortBlock> blocks() {
        return new ArrayList<>(blocks.values());
    }

    @Override
    public boolean claimPort(Protocol protocol, TransportAddress address, long now) {
        boolean[] claimed = {false};
        ports.compute(PortStore.portKey(protocol, address), (k, until) -> {
            if (until == null || until <= now) {
                claimed[0] = true;
                return IN_USE;
            }
            return until;
        });
        changed();
        return claimed[0];
    }

    @Override
    public void restPort(Protocol protocol, TransportAddress address, long until) {
        ports.put(PortStore.portKey(protocol, address), until);
        changed();
    }

    @Override
    public boolean portBusy(Protocol protocol, TransportAddress address, long now) {
        Long until = ports.get(PortStore.portKey(protocol, address));
        return until != null && until > now;
    }

    @Override
    public Optional<BibEntry> addBib(BibEntry entry) {
        BibEntry held = bib4.putIfAbsent(entry.key4(), entry);
        if (held != null) {
            return Optional.of(held);
        }
        held = bib6.putIfAbsent(entry.key6(), entry);
        if (held != null) {
            bib4.remove(entry.key4(), entry);   // the IPv6 side is mapped already: undo the claim
            changed();
            return Optional.of(held);
        }
        changed();
        return Optional.empty();
    }

    @Override
    public boolean removeBib(BibEntry entry) {
        boolean removed = bib6.remove(entry.key6(), entry);
        if (removed) {
            bib4.remove(entry.key4(), entry);
            changed();
        }
        return removed;
    }

    @Override
    public Optional<BibEntry> bibBy6(Protocol protocol, Ipv6Address address, int port) {
        return Optional.ofNullable(bib6.get(BibEntry.key6(protocol, address, port)));
    }

    @Override
    public Optional<BibEntry> bibBy4(Protocol protocol, TransportAddress address) {
        return Optional.ofNullable(bib4.get(BibEntry.key4(protocol, address)));
    }

    @Override
    public List<BibEntry> bib() {
        return new ArrayList<>(bib6.values());
    }

    @Override
    public void putSession(Session session) {
        sessions.put(session.key(), session);
        changed();
    }

    @Override
    public boolean removeSession(Session session) {
        boolean removed = sessions.remove(session.key()) != null;
        changed();
        return removed;
    }

    @Override
    public Optional<Session> session(String key) {
        return Optional.ofNullable(sessions.get(key));
    }

    @Override
    public List<Session> sessions() {
        return new ArrayList<>(sessions.values());
    }

    @Override
    public List<Eam> eams() {
        List<Eam> list = new ArrayList<>(eams.values());
        list.sort(Comparator.comparing(Eam::toString));
        return list;
    }

    @Override
    public void addEam(Eam eam) {
        eams.put(eam.toString(), eam);
        changed();
    }

    @Override
    public boolean removeEam(Eam eam) {
        boolean removed = eams.remove(eam.toString(), eam);
        changed();
        return removed;
    }
}
