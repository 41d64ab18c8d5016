package org.nat64fabric.core.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Collectors;
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
 * durable store's maps (the embedded controller's SQLite-backed maps, which then commit in
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

    /**
     * The sessions the fabric is made for: the session tables' size in p4/include. A hash map
     * that grows with the sessions is made this large at once: growing past a power of two, it
     * rehashes every entry while its writers wait.
     */
    public static final int EXPECTED_SESSIONS = 1 << 20;

    /** The maps with an entry (or about one) per session. */
    public static final Set<String> PER_SESSION_MAPS = Set.of("ports", "bib6", "bib4", "sessions");

    /** A port in use never rests out. Boxed once: in maps of objects, every port in use holds this one value. */
    private static final Long IN_USE = Long.MAX_VALUE;

    private final Map<String, PortBlock> blocks;
    private final Map<String, Long> ports;   // key -> rests until (ms)
    private final Map<String, BibEntry> bib6;
    private final Map<String, BibEntry> bib4;
    private final Map<String, Session> sessions;
    private final Map<String, Eam> eams;
    /**
     * Indexes of the sessions, kept in memory by this instance: session keys by BIB entry, and
     * session counts by IPv6 host in address order (a subscriber is a range of hosts). Null when
     * other instances change the maps too: then every question scans the sessions.
     */
    private final SessionIndex sessionsByBib;
    /** Block keys by subscriber, for the same instances: an allocation looks at its subscriber's blocks only. */
    private final Map<Ipv6Address, Set<String>> blocksBySubscriber;
    private final NavigableMap<Ipv6Address, Integer> sessionsByHost;
    /** The static BIB entries by their IPv6 side's key; null when shared. */
    private final Map<String, BibEntry> staticBib;
    /** BIB entries and sessions by protocol ({@code 2 * ordinal}, {@code 2 * ordinal + 1}); null when shared. */
    private final AtomicLongArray counted;
    /** Other instances change the maps too. */
    private final boolean shared;
    /** {@link #eams()}, kept between changes when not shared: a session setup asks for it. */
    private volatile List<Eam> eamList;
    private final Object eamListLock = new Object();
    private final ThreadLocal<int[]> batchDepth = ThreadLocal.withInitial(() -> new int[1]);

    /** A store whose maps only this instance changes. */
    public MapNatStore(Maps maps) {
        this(maps, false);
    }

    /** {@code shared}: other instances change the same maps (a cluster), so no local index can be kept. */
    protected MapNatStore(Maps maps, boolean shared) {
        blocks = maps.open("blocks");
        ports = maps.open("ports");
        bib6 = maps.open("bib6");
        bib4 = maps.open("bib4");
        sessions = maps.open("sessions");
        eams = maps.open("eamt");
        this.shared = shared;
        sessionsByBib = shared ? null : new SessionIndex();
        blocksBySubscriber = shared ? null : new ConcurrentHashMap<>();
        sessionsByHost = shared ? null : new ConcurrentSkipListMap<>(MapNatStore::unsignedOrder);
        counted = shared ? null : new AtomicLongArray(2 * Protocol.values().length);
        staticBib = shared ? null : new ConcurrentHashMap<>();
        if (!shared) {
            bib6.values().forEach(b -> {
                counted.incrementAndGet(2 * b.protocol().ordinal());
                if (b.isStatic()) {
                    staticBib.put(b.key6(), b);
                }
            });
            sessions.values().forEach(this::indexed);
            blocks.forEach((key, b) -> blockIndex(b).add(key));
        }
    }

    /** Called after every change (once after a batch); a durable store commits here. */
    protected void changed() {
    }

    /**
     * Called once after a {@link #batchAsync} batch: a durable store starts its commit here and
     * completes the future when it is done. By default, {@link #changed()} and a completed future.
     */
    protected CompletableFuture<Void> changedAsync() {
        changed();
        return CompletableFuture.completedFuture(null);
    }

    private void committed() {
        if (batchDepth.get()[0] == 0) {
            changed();
        }
    }

    @Override
    public void batch(Runnable work) {
        int[] depth = batchDepth.get();
        depth[0]++;
        try {
            work.run();
        } finally {
            if (--depth[0] == 0) {
                changed();
            }
        }
    }

    @Override
    public CompletableFuture<Void> batchAsync(Runnable work) {
        int[] depth = batchDepth.get();
        if (depth[0] != 0) {
            throw new IllegalStateException("batchAsync inside a batch: the outer batch would commit its changes");
        }
        depth[0]++;
        CompletableFuture<Void> durable;
        try {
            work.run();
        } finally {
            depth[0]--;
            durable = changedAsync();
        }
        return durable;
    }

    @Override
    public boolean claimBlock(PortBlock block) {
        String key = PortStore.blockKey(block);
        boolean claimed = blocks.putIfAbsent(key, block) == null;
        if (claimed && blocksBySubscriber != null) {
            blockIndex(block).add(key);
        }
        committed();
        return claimed;
    }

    private Set<String> blockIndex(PortBlock block) {
        return blocksBySubscriber.computeIfAbsent(block.subscriber(), s -> ConcurrentHashMap.newKeySet());
    }

    @Override
    public void releaseBlock(PortBlock block) {
        String key = PortStore.blockKey(block);
        if (blocks.remove(key, block)) {
            if (blocksBySubscriber != null) {
                unindex(blocksBySubscriber, block.subscriber(), key);
            }
            for (int port = block.first(); port <= block.last(); port++) {
                ports.remove(PortStore.portKey(block.protocol(), new TransportAddress(block.address(), port)));
            }
        }
        committed();
    }

    @Override
    public List<PortBlock> blocks() {
        return new ArrayList<>(blocks.values());
    }

    @Override
    public boolean blockStartHeld(PortBlock block) {
        return blocks.containsKey(PortStore.blockKey(block));
    }

    @Override
    public boolean holds(PortBlock block) {
        return block.equals(blocks.get(PortStore.blockKey(block)));
    }

    @Override
    public List<PortBlock> blocksOf(Ipv6Address subscriber) {
        if (blocksBySubscriber == null) {
            return NatStore.super.blocksOf(subscriber);
        }
        List<PortBlock> out = new ArrayList<>();
        for (String key : blocksBySubscriber.getOrDefault(subscriber, Set.of())) {
            PortBlock b = blocks.get(key);
            if (b != null) {
                out.add(b);
            }
        }
        return out;
    }

    @Override
    public long claimPort(Protocol protocol, TransportAddress address, long now) {
        long[] result = {PortStore.CLAIMED};
        ports.compute(PortStore.portKey(protocol, address), (k, until) -> {
            if (until == null || until <= now) {
                result[0] = PortStore.CLAIMED;
                return IN_USE;
            }
            result[0] = until;
            return until;
        });
        committed();
        return result[0];
    }

    @Override
    public void restPort(Protocol protocol, TransportAddress address, long until) {
        ports.put(PortStore.portKey(protocol, address), until);
        committed();
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
            committed();
            return Optional.of(held);
        }
        if (counted != null) {
            counted.incrementAndGet(2 * entry.protocol().ordinal());
        }
        if (staticBib != null && entry.isStatic()) {
            staticBib.put(entry.key6(), entry);
        }
        committed();
        return Optional.empty();
    }

    @Override
    public boolean removeBib(BibEntry entry) {
        boolean removed = bib6.remove(entry.key6(), entry);
        if (removed) {
            bib4.remove(entry.key4(), entry);
            if (counted != null) {
                counted.decrementAndGet(2 * entry.protocol().ordinal());
            }
            if (staticBib != null) {
                staticBib.remove(entry.key6(), entry);
            }
            committed();
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
    public int bibCount() {
        return bib6.size();   // every session setup may ask (Nat64Engine's capacity check): no copy
    }

    @Override
    public List<BibEntry> staticBib() {
        return staticBib == null ? NatStore.super.staticBib() : new ArrayList<>(staticBib.values());
    }

    @Override
    public void putSession(Session session) {
        if (sessions.put(session.key(), session) == null && sessionsByBib != null) {
            indexed(session);
        }
        committed();
    }

    @Override
    public boolean removeSession(Session session) {
        boolean removed = sessions.remove(session.key()) != null;
        if (removed && sessionsByBib != null) {
            sessionsByBib.remove(session);
            sessionsByHost.computeIfPresent(session.bib().address6(), (k, n) -> n == 1 ? null : n - 1);
            counted.decrementAndGet(2 * session.bib().protocol().ordinal() + 1);
        }
        committed();
        return removed;
    }

    private void indexed(Session s) {
        sessionsByBib.add(s);
        sessionsByHost.merge(s.bib().address6(), 1, Integer::sum);
        counted.incrementAndGet(2 * s.bib().protocol().ordinal() + 1);
    }

    @Override
    public Map<Protocol, long[]> counts() {
        if (counted == null) {
            return NatStore.super.counts();
        }
        Map<Protocol, long[]> by = new EnumMap<>(Protocol.class);
        for (Protocol p : Protocol.values()) {
            by.put(p, new long[] {counted.get(2 * p.ordinal()), counted.get(2 * p.ordinal() + 1)});
        }
        return by;
    }

    @Override
    public List<Session> sessionsOf(BibEntry bib) {
        String key6 = bib.key6();
        if (sessionsByBib == null) {
            return sessions.values().stream().filter(s -> s.bib().key6().equals(key6)).collect(Collectors.toList());
        }
        List<Session> out = new ArrayList<>();
        for (String key : sessionsByBib.keysOf(bib)) {
            Session s = sessions.get(key);
            if (s != null) {
                out.add(s);
            }
        }
        return out;
    }

    @Override
    public long sessionCount(Ipv6Address subscriber, int prefixLength) {
        Ipv6Address first = subscriber.mask(prefixLength);
        if (sessionsByHost == null) {
            return sessions.values().stream().filter(s -> s.bib().address6().mask(prefixLength).equals(first)).count();
        }
        Ipv6Address network = Ipv6Address.of(-1L, -1L).mask(prefixLength);
        Ipv6Address last = Ipv6Address.of(first.high() | ~network.high(), first.low() | ~network.low());
        long count = 0;   // a loop, not a stream: asked at every setup
        for (int n : sessionsByHost.subMap(first, true, last, true).values()) {
            count += n;
        }
        return count;
    }

    /** Takes {@code member} out of the set-valued index at {@code key}, and the set once it is empty. */
    private static <K, M> void unindex(Map<K, Set<M>> index, K key, M member) {
        index.computeIfPresent(key, (k, members) -> {
            members.remove(member);
            return members.isEmpty() ? null : members;
        });
    }

    private static int unsignedOrder(Ipv6Address a, Ipv6Address b) {
        int c = Long.compareUnsigned(a.high(), b.high());
        return c != 0 ? c : Long.compareUnsigned(a.low(), b.low());
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
        List<Eam> list = eamList;
        if (list != null) {
            return list;
        }
        synchronized (eamListLock) {   // so that a change's reset cannot come between the read and the keeping
            List<Eam> sorted = new ArrayList<>(eams.values());
            sorted.sort(Comparator.comparing(Eam::toString));
            list = List.copyOf(sorted);
            if (!shared) {
                eamList = list;   // until this instance changes the EAMT; no other one can
            }
            return list;
        }
    }

    @Override
    public void addEam(Eam eam) {
        eams.put(eam.toString(), eam);
        forgetEamList();
        committed();
    }

    private void forgetEamList() {
        synchronized (eamListLock) {
            eamList = null;
        }
    }

    @Override
    public boolean removeEam(Eam eam) {
        boolean removed = eams.remove(eam.toString(), eam);
        forgetEamList();
        committed();
        return removed;
    }
}
