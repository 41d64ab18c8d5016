package org.nat64fabric.app;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.addr.Ipv6Prefix;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.PortStore;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.session.TcpState;
import org.nat64fabric.core.store.NatStore;
import org.onlab.util.KryoNamespace;
import org.onosproject.store.serializers.KryoNamespaces;
import org.onosproject.store.service.ConsistentMap;
import org.onosproject.store.service.Serializer;
import org.onosproject.store.service.StorageService;
import org.onosproject.store.service.Versioned;

/**
 * The NAT64 state on ONOS primitives: every map is a ConsistentMap (Raft in an ONOS cluster),
 * so a port, block or BIB entry claimed by one instance is refused to every other, and the
 * state outlives any instance.
 */
public final class DistributedNatStore implements NatStore {
    /** Serializes the core types into the cluster's maps. */
    public static final Serializer SERIALIZER = Serializer.using(KryoNamespace.newBuilder()
            .register(KryoNamespaces.API)
            .register(Ipv4Address.class, Ipv6Address.class, Ipv4Prefix.class, Ipv6Prefix.class, Protocol.class,
                    TransportAddress.class, PortBlock.class, BibEntry.class, Session.class, TcpState.class, Eam.class)
            .build("nat64fabric"));

    private static final long IN_USE = Long.MAX_VALUE;

    private final ConsistentMap<String, PortBlock> blocks;
    private final ConsistentMap<String, Long> ports;
    private final ConsistentMap<String, BibEntry> bib6;
    private final ConsistentMap<String, BibEntry> bib4;
    private final ConsistentMap<String, Session> sessions;
    private final ConsistentMap<String, Eam> eams;

    public DistributedNatStore(StorageService storage) {
        this.blocks = map(storage, "nat64fabric-port-blocks");
        this.ports = map(storage, "nat64fabric-ports");
        this.bib6 = map(storage, "nat64fabric-bib6");
        this.bib4 = map(storage, "nat64fabric-bib4");
        this.sessions = map(storage, "nat64fabric-sessions");
        this.eams = map(storage, "nat64fabric-eamt");
    }

    private static <V> ConsistentMap<String, V> map(StorageService storage, String name) {
        return storage.<String, V>consistentMapBuilder().withName(name).withSerializer(SERIALIZER).build();
    }

    private static <V> List<V> values(ConsistentMap<String, V> map) {
        return map.values().stream().map(Versioned::value).collect(Collectors.toList());
    }

    @Override
    public boolean claimBlock(PortBlock block) {
        return blocks.putIfAbsent(PortStore.blockKey(block), block) == null;
    }

    @Override
    public void releaseBlock(PortBlock block) {
        if (blocks.remove(PortStore.blockKey(block), block)) {
            for (int port = block.first(); port <= block.last(); port++) {
                ports.remove(PortStore.portKey(block.protocol(), new TransportAddress(block.address(), port)));
            }
        }
    }

    @Override
    public List<PortBlock> blocks() {
        return values(blocks);
    }

    @Override
    public boolean claimPort(Protocol protocol, TransportAddress address, long now) {
        Versioned<Long> before = ports.get(PortStore.portKey(protocol, address));
        if (before != null && before.value() > now) {
            return false;
        }
        // compute runs atomically in the map: of two racing claims, one sees the other's IN_USE.
        boolean[] claimed = {false};
        ports.compute(PortStore.portKey(protocol, address), (k, until) -> {
            claimed[0] = until == null || until <= now;
            return claimed[0] ? IN_USE : until;
        });
        return claimed[0];
    }

    @Override
    public void restPort(Protocol protocol, TransportAddress address, long until) {
        ports.put(PortStore.portKey(protocol, address), until);
    }

    @Override
    public boolean portBusy(Protocol protocol, TransportAddress address, long now) {
        Versioned<Long> until = ports.get(PortStore.portKey(protocol, address));
        return until != null && until.value() > now;
    }

    @Override
    public Optional<BibEntry> addBib(BibEntry entry) {
        Versioned<BibEntry> held4 = bib4.putIfAbsent(entry.key4(), entry);
        if (held4 != null) {
            return Optional.of(held4.value());
        }
        Versioned<BibEntry> held6 = bib6.putIfAbsent(entry.key6(), entry);
        if (held6 != null) {
            bib4.remove(entry.key4(), entry);   // the IPv6 side is mapped already: undo the claim
            return Optional.of(held6.value());
        }
        return Optional.empty();
    }

    @Override
    public boolean removeBib(BibEntry entry) {
        boolean removed = bib6.remove(entry.key6(), entry);
        if (removed) {
            bib4.remove(entry.key4(), entry);
        }
        return removed;
    }

    @Override
    public Optional<BibEntry> bibBy6(Protocol protocol, Ipv6Address address, int port) {
        return Optional.ofNullable(Versioned.valueOrNull(bib6.get(BibEntry.key6(protocol, address, port))));
    }

    @Override
    public Optional<BibEntry> bibBy4(Protocol protocol, TransportAddress address) {
        return Optional.ofNullable(Versioned.valueOrNull(bib4.get(BibEntry.key4(protocol, address))));
    }

    @Override
    public List<BibEntry> bib() {
        return values(bib6);
    }

    @Override
    public void putSession(Session session) {
        sessions.put(session.key(), session);
    }

    @Override
    public boolean removeSession(Session session) {
        return sessions.remove(session.key()) != null;
    }

    @Override
    public Optional<Session> session(String key) {
        return Optional.ofNullable(Versioned.valueOrNull(sessions.get(key)));
    }

    @Override
    public List<Session> sessions() {
        return values(sessions);
    }

    @Override
    public List<Eam> eams() {
        return values(eams).stream().sorted((a, b) -> a.toString().compareTo(b.toString()))
                .collect(Collectors.toList());
    }

    @Override
    public void addEam(Eam eam) {
        eams.put(eam.ipv6() + " " + eam.ipv4(), eam);
    }

    @Override
    public boolean removeEam(Eam eam) {
        return eams.remove(eam.ipv6() + " " + eam.ipv4()) != null;
    }
}
