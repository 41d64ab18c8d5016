package org.nat64fabric.core.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.Nat64Config;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.eamt.Eamt;
import org.nat64fabric.core.event.NatEvent;
import org.nat64fabric.core.event.NatEvents;
import org.nat64fabric.core.pool4.Pool4;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.session.TcpState;
import org.nat64fabric.core.session.TcpStateMachine;
import org.nat64fabric.core.session.TcpStateMachine.Segment;
import org.nat64fabric.core.session.TcpStateMachine.Side;
import org.nat64fabric.core.store.NatStore;

/**
 * The stateful NAT64 (RFC 6146) as the controller runs it, driven by events: packets the
 * switches punt or copy (a session miss from IPv6, TCP SYN/FIN/RST copies from either side),
 * idle timeouts the switches report, and operator changes (static BIB entries, EAMs). State
 * lives in the {@link NatStore}; every change is logged as an RFC 8158 event.
 */
public final class Nat64Engine {
    private final Nat64Config config;
    private final NatStore store;
    private final Pool4 pool4;
    /** How many mappings the switches' session tables hold (each is one entry in each); unbounded until told. */
    private volatile long bibCapacity = Long.MAX_VALUE;
    private final TcpStateMachine tcp;
    private final NatEvents events;
    private final Consumer<NatEvent> log;
    /** The EAMT last built, and the store's entries it was built from ({@link #eamt()}). */
    private volatile EamtBuilt eamtBuilt = new EamtBuilt(List.of(), new Eamt());
    /**
     * BIB entries (by IPv6 key): the holders (a switch's table) that reported them idle since they
     * were last seen, and when each last did.
     */
    private final Map<String, Map<String, Long>> idleOn = new ConcurrentHashMap<>();
    /**
     * BIB entries (by IPv6 key) whose entries an idle report had rewritten with a new lifetime
     * (TCP established to transitory), and until when reports are still of the old lifetime: a
     * switch's idle timer runs from the entry's last hit, which a MODIFY keeps, so it reports the
     * rewritten entry again at once.
     */
    private final Map<String, Long> idleNotBefore = new ConcurrentHashMap<>();
    /**
     * How many SYNs held from one remote a host's SYN to it tries for its mapping: each try may ask
     * the store about a block, under this engine's lock, and a remote chooses how many it sends.
     */
    static final int HELD_SYNS_TRIED = 4;

    public Nat64Engine(Nat64Config config, NatStore store, Consumer<NatEvent> log) {
        this.config = config;
        this.store = store;
        this.pool4 = new Pool4(config.pool4, store);
        this.tcp = new TcpStateMachine(config.timeouts);
        this.events = new NatEvents(config.logDestination);
        this.log = log;
    }

    public NatStore store() {
        return store;
    }

    /**
     * The number of mappings the translating switches' session tables hold, the least of their sizes
     * (a NetFPGA SUME card holds 4 096): past it a new mapping is refused, dynamic or static, rather
     * than written to a switch that refuses it (RESOURCE_EXHAUSTED) and reconciled again and again.
     */
    public void setBibCapacity(long capacity) {
        bibCapacity = capacity;
    }

    /** Whether the switches' session tables have no room for one more mapping. */
    private boolean bibFull() {
        return bibCapacity != Long.MAX_VALUE && store.bibCount() >= bibCapacity;
    }

    /**
     * A packet from the IPv6 side: a session miss, or a copy of a TCP control segment. Finds or
     * creates the BIB entry (allocating from pool4) and the session, and advances TCP state.
     */
    public Outcome fromV6(Protocol protocol, Ipv6Address source, int sourcePort, Ipv6Address destination,
                          int destinationPort, Segment segment, long now) {
        return fromV6(protocol, source, sourcePort, destination, destinationPort, segment, remote -> List.of(), now);
    }

    /**
     * As above; {@code heldSynsFrom} names, for a remote, the pool4 transport addresses IPv4 SYNs
     * from it are held for ({@code HeldSyns}): a host's SYN to that remote that needs a mapping gets
     * the first of them pool4 lets it have (RFC 6146 3.5.2.2: the outbound SYN "for the connection"
     * of a simultaneous open), so the held SYN's connection is the one the host opens.
     */
    public synchronized Outcome fromV6(Protocol protocol, Ipv6Address source, int sourcePort, Ipv6Address destination,
                                       int destinationPort, Segment segment,
                                       Function<TransportAddress, List<TransportAddress>> heldSynsFrom, long now) {
        if (config.pool6.prefix().contains(source)) {
            // RFC 6146 3.5 (MUST): a source inside pool6 is a packet this NAT64 sent coming back; it
            // is discarded silently, else it would loop through the translator (hairpinning loop).
            return Outcome.drop(source + " is inside pool6 " + config.pool6.prefix() + ": a hairpinning loop");
        }
        Optional<Ipv4Address> remote = ipv4Of(destination);
        if (remote.isEmpty() || !config.pool6.mayRepresent(remote.get())) {
            return Outcome.drop(destination + " is neither in pool6 " + config.pool6.prefix()
                    + " nor in the EAMT, or is a non-global IPv4 address under the well-known prefix");
        }
        TransportAddress remote4 = new TransportAddress(remote.get(), destinationPort);
        Optional<BibEntry> found = store.bibBy6(protocol, source, sourcePort);
        boolean newBib = found.isEmpty();
        BibEntry bib;
        if (newBib) {
            if (protocol == Protocol.TCP && segment != Segment.SYN) {
                return Outcome.drop("a TCP segment other than SYN opens no mapping (RFC 6146 3.5.2.2)");
            }
            if (bibFull()) {
                return Outcome.refuse("the switches' session tables are full (" + bibCapacity + " mappings)",
                        Outcome.IcmpError.V6_ADDRESS_UNREACHABLE);
            }
            Ipv6Address subscriber = pool4.subscriberOf(source);
            if (sessionsOf(subscriber) >= config.maxSessionsPerSubscriber) {
                log.accept(events.quotaExceeded(subscriber, config.maxSessionsPerSubscriber, now));
                return Outcome.refuse("subscriber " + subscriber + " has " + config.maxSessionsPerSubscriber
                        + " sessions, its limit", Outcome.IcmpError.V6_ADDRESS_UNREACHABLE);
            }
            Pool4.Result r = (protocol == Protocol.TCP ? heldSynsFrom.apply(remote4) : List.<TransportAddress>of())
                    .stream().limit(HELD_SYNS_TRIED).map(held -> pool4.claimForSimultaneousOpen(protocol, held, source, now))
                    .filter(claimed -> claimed.address().isPresent()).findFirst()
                    .orElseGet(() -> pool4.allocate(protocol, source, sourcePort, now));
            if (r.address().isEmpty()) {
                return refused(protocol, subscriber, r.refusal().orElseThrow(), now);
            }
            r.newBlock().ifPresent(b -> log.accept(events.portBlock(true, b, now)));
            BibEntry created = new BibEntry(protocol, source, sourcePort, r.address().get(), false);
            Optional<BibEntry> held = store.addBib(created);
            if (held.isPresent()) {
                pool4.release(protocol, created.v4(), now);   // another controller instance mapped it first
                bib = held.get();
                newBib = false;
            } else {
                bib = created;
                log.accept(events.bib(true, bib, now));
            }
        } else {
            bib = found.get();
        }
        return advance(bib, remote4, destination, Side.V6, segment, newBib, now);
    }

    /**
     * A packet from the IPv4 side (a TCP control segment copy, or any packet the switch could not
     * place): it needs a BIB entry for its destination; with address-dependent filtering, also a
     * session with its source address.
     */
    public synchronized Outcome fromV4(Protocol protocol, Ipv4Address source, int sourcePort, Ipv4Address destination,
                                       int destinationPort, Segment segment, long now) {
        Optional<BibEntry> found = store.bibBy4(protocol, new TransportAddress(destination, destinationPort));
        if (found.isEmpty()) {
            return Outcome.drop("no BIB entry for " + protocol + " " + destination + ":" + destinationPort
                    + " (RFC 6146 3.5.1)");
        }
        BibEntry bib = found.get();
        TransportAddress remote4 = new TransportAddress(source, sourcePort);
        if (config.filters(protocol) && store.session(Session.key(bib, remote4)).isEmpty()
                && sessionsOf(bib).stream().noneMatch(s -> s.remote4().address().equals(source))) {
            return Outcome.drop(source + " is filtered: " + bib + " has not sent to it (address-dependent filtering, or externally initiated TCP dropped)");
        }
        return advance(bib, remote4, representation(source), Side.V4, segment, false, now);
    }

    private Outcome advance(BibEntry bib, TransportAddress remote4, Ipv6Address remote6, Side side, Segment segment,
                            boolean newBib, long now) {
        Optional<Session> existing = store.session(Session.key(bib, remote4));
        EntryState before = entryStateOf(bib);
        TcpState state = null;
        long lifetime;
        if (bib.protocol() == Protocol.TCP) {
            TcpStateMachine.Step step = tcp.onSegment(existing.flatMap(Session::state).orElse(TcpState.CLOSED), side,
                    segment);
            if (step.state == TcpState.CLOSED) {
                return Outcome.drop("a TCP segment other than SYN opens no session (RFC 6146 3.5.2.2)");
            }
            state = step.state;
            lifetime = step.lifetime;
        } else {
            lifetime = bib.protocol() == Protocol.UDP ? config.timeouts.udp : config.timeouts.icmp;
        }
        Session next = existing.isPresent() ? existing.get().with(state, lifetime)
                : new Session(bib, remote4, remote6, state, lifetime, now);
        store.putSession(next);
        if (existing.isEmpty()) {
            log.accept(events.session(true, next, now));
        }
        idleOn.remove(bib.key6());
        boolean reprogram = newBib || !entryStateOf(bib).equals(before)   // a new entry is written whatever it says
                || (existing.isEmpty() && config.filters(bib.protocol()));
        return Outcome.translate(next, reprogram);
    }

    /** What became of a BIB entry a switch reported idle. */
    public enum Idle {
        /** Other switches holding it have not reported it idle yet. */
        WAITING,
        /**
         * Sessions moved on (TCP established to transitory), or a static entry's ended: write the
         * entries with the new lifetime.
         */
        REPROGRAM,
        /** Its sessions ended and the entry is gone: delete its table entries everywhere. */
        REMOVED,
        /** No such entry (already removed). */
        UNKNOWN
    }

    /**
     * Holder {@code holder} (a switch's table) reports the entries of a BIB entry idle for their
     * lifetime. Once every holder in {@code holders} has, the sessions time out (RFC 6146 3.5.2.2 /
     * 4); a dynamic entry without sessions is removed and its port rests before reuse. With
     * {@code reportsRenewed} (a P4Runtime server reports an idle entry again each period it stays
     * idle: softswitch each lifetime, the SUME agent at most an eighth of one late, BMv2 every other
     * sweep) a report not renewed within a lifetime and an eighth (and a second) is dropped: its
     * entry was hit since, by traffic the controller does not see (one direction idle for a while,
     * then the other). After an idle report moved the sessions on (REPROGRAM), reports count again
     * once the new lifetime has passed.
     */
    public synchronized Idle onIdle(Protocol protocol, Ipv6Address address6, int port6, String holder,
                                    Set<String> holders, boolean reportsRenewed, long now) {
        Optional<BibEntry> found = store.bibBy6(protocol, address6, port6);
        if (found.isEmpty()) {
            return Idle.UNKNOWN;
        }
        BibEntry bib = found.get();
        Long notBefore = idleNotBefore.get(bib.key6());
        if (notBefore != null) {
            if (now < notBefore) {
                return Idle.WAITING;
            }
            idleNotBefore.remove(bib.key6());
        }
        Map<String, Long> idle = idleOn.computeIfAbsent(bib.key6(), k -> new ConcurrentHashMap<>());
        idle.put(holder, now);
        long lifetimeMs = 1000 * lifetimeOf(bib);
        if (reportsRenewed && lifetimeMs > 0) {
            long renewedWithinMs = lifetimeMs + lifetimeMs / 8 + 1000;
            idle.values().removeIf(at -> now - at > renewedWithinMs);
        }
        if (!idle.keySet().containsAll(holders)) {
            return Idle.WAITING;
        }
        idleOn.remove(bib.key6());
        for (Session s : sessionsOf(bib)) {
            TcpStateMachine.Step step = s.state().map(tcp::onIdle).orElse(null);
            if (step != null && step.state != TcpState.CLOSED) {
                store.putSession(s.with(step.state, step.lifetime));
            } else {
                endSession(s, now);
            }
        }
        if (!sessionsOf(bib).isEmpty() || bib.isStatic()) {
            long lifetime = lifetimeOf(bib);
            if (lifetime > 0) {
                idleNotBefore.put(bib.key6(), now + 1000 * lifetime);
            }
            return Idle.REPROGRAM;   // a static entry without sessions: its entries no longer age
        }
        removeBibEntry(bib, now);
        return Idle.REMOVED;
    }

    /**
     * A static BIB entry (RFC 6146 3.5.1: port forwarding to an IPv6 server), which never
     * expires. The configuration must allow it ({@link Nat64Config#checkStaticBib}) and its IPv4
     * transport address must be free in pool4; errors name fields under {@code at}.
     */
    public synchronized BibEntry addStaticBib(Protocol protocol, Ipv6Address address6, int port6, TransportAddress v4,
                                              long now, String at) {
        checkPort(at + ".ipv6Port", port6);
        checkPort(at + ".ipv4Port", v4.port());
        if (port6 == 0 && protocol != Protocol.ICMP) {
            throw new ConfigException(at + ".ipv6Port", "port 0 is reserved: no " + protocol + " server listens on it");
        }
        config.checkStaticBib(protocol, address6, v4, at);
        eamt().forIpv6(address6).ifPresent(eam -> {
            throw new ConfigException(at + ".ipv6Address", address6 + " is inside the EAM " + eam + ", which translates"
                    + " its packets statelessly: the static BIB entry would never be used (remove the EAM first)");
        });
        Optional<BibEntry> mapped = store.bibBy6(protocol, address6, port6);
        if (mapped.isPresent()) {
            throw new ConfigException(at + ".ipv6Address", protocol + " [" + address6 + "]:" + port6
                    + " is already mapped to " + mapped.get().v4());
        }
        if (bibFull()) {
            throw new ConfigException(at, "the switches' session tables are full: they hold " + bibCapacity
                    + " mappings (the least of their session tables' sizes); remove one first");
        }
        Pool4.Result r = pool4.reserve(protocol, v4, address6, now);
        if (r.address().isEmpty()) {
            throw new ConfigException(r.refusal().orElseThrow() == Pool4.Refusal.PAIRED ? at + ".ipv4Address"
                    : at + ".ipv4Port", r.why().orElseThrow());
        }
        r.newBlock().ifPresent(b -> log.accept(events.portBlock(true, b, now)));
        BibEntry entry = new BibEntry(protocol, address6, port6, v4, true);
        Optional<BibEntry> held = store.addBib(entry);
        if (held.isPresent()) {
            pool4.release(protocol, v4, now);
            throw new ConfigException(at + ".ipv4Port", protocol + " " + v4 + " is mapped by " + held.get());
        }
        log.accept(events.bib(true, entry, now));
        return entry;
    }

    /** Removes a BIB entry (static or dynamic) and its sessions; empty when there was none. */
    public synchronized Optional<BibEntry> removeBib(Protocol protocol, Ipv6Address address6, int port6, long now) {
        Optional<BibEntry> found = store.bibBy6(protocol, address6, port6);
        found.ifPresent(bib -> {
            sessionsOf(bib).forEach(s -> endSession(s, now));
            removeBibEntry(bib, now);
        });
        return found;
    }

    /**
     * Adds an EAM the configuration allows ({@link Nat64Config#checkEam}, errors under {@code at}),
     * refusing one whose IPv6 or IPv4 prefix is already mapped (also under {@code at}).
     */
    public synchronized void addEam(Eam eam, String at) {
        addEam(eam, at, Long.MAX_VALUE);
    }

    /**
     * {@link #addEam(Eam, String)}, refusing the EAM (under {@code at}) once the EAMT holds
     * {@code room} entries: the switches' tables hold no more. Checked last, so that an EAM the
     * table could never take is told why first.
     */
    public synchronized void addEam(Eam eam, String at, long room) {
        config.checkEam(eam, at);
        eamt().check(eam, at);    // throws ConfigException on an ambiguous entry
        store.staticBib().stream().filter(b -> eam.ipv6().contains(b.address6())).findFirst().ifPresent(b -> {
            throw new ConfigException(at + ".ipv6Prefix", eam.ipv6() + " holds " + b.address6() + ", the IPv6 server of"
                    + " the static BIB entry " + b + ", which the EAM would bypass (remove that entry first)");
        });
        if (store.eams().size() >= room) {
            throw new ConfigException(at, "the EAMT is full: a switch holds " + room + " EAMs (the least of its EAMT"
                    + " tables' sizes, less one for each SIIT prefix); remove one first, or merge EAMs into wider prefixes");
        }
        store.addEam(eam);
    }

    public synchronized boolean removeEam(Eam eam) {
        return store.removeEam(eam);
    }

    /**
     * The EAMT as the store holds it, built again only when the store's entries changed: every
     * session setup looks its destination up here, and an operator's EAMT may hold thousands.
     */
    public Eamt eamt() {
        List<Eam> entries = store.eams();
        EamtBuilt built = eamtBuilt;
        if (built.from != entries && !built.from.equals(entries)) {
            built = new EamtBuilt(entries, Eamt.of(entries));
            eamtBuilt = built;
        }
        return built.table;
    }

    /** The lookup table of a list of the store's EAMs. */
    private static final class EamtBuilt {
        final List<Eam> from;
        final Eamt table;

        EamtBuilt(List<Eam> from, Eamt table) {
            this.from = from;
            this.table = table;
        }
    }

    /** Gives back port blocks left without mappings or resting ports; returns them (each logged). */
    public synchronized List<PortBlock> expireBlocks(long now) {
        List<PortBlock> freed = pool4.expire(now);
        freed.forEach(b -> log.accept(events.portBlock(false, b, now)));
        return freed;
    }

    /**
     * The idle timeout, in seconds, of a BIB entry's table entries: its longest session lifetime,
     * so that sessions end when the mapping's traffic stops (a static entry's too; 0, no aging, for
     * a static entry without sessions, which stays).
     */
    public long lifetimeOf(BibEntry bib) {
        return entryStateOf(bib).lifetime;
    }

    /**
     * What a BIB entry's table entries say of its sessions: {@code lifetime}, as
     * {@link #lifetimeOf}; {@code transitory}, whether every session is in TCP's TRANS (RFC 6146
     * 3.5.2.2): the switch then copies the mapping's packets, the first of which but a RST takes
     * its session back to ESTABLISHED (the controller sees no other traffic); not while another
     * session is established, whose traffic would all be copied.
     */
    public static final class EntryState {
        public final long lifetime;
        public final boolean transitory;

        EntryState(long lifetime, boolean transitory) {
            this.lifetime = lifetime;
            this.transitory = transitory;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof EntryState && ((EntryState) o).lifetime == lifetime
                    && ((EntryState) o).transitory == transitory;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(lifetime) * 2 + (transitory ? 1 : 0);
        }
    }

    /** {@link EntryState} of a BIB entry, from one pass over its sessions (asked at every setup). */
    public EntryState entryStateOf(BibEntry bib) {
        long longest = 0;
        boolean allTransitory = bib.protocol() == Protocol.TCP;
        List<Session> sessions = sessionsOf(bib);
        for (Session s : sessions) {   // a loop, not a stream
            longest = Math.max(longest, s.lifetime());
            allTransitory &= s.state().orElse(null) == TcpState.TRANS;
        }
        return new EntryState(longest, allTransitory && !sessions.isEmpty());
    }

    public List<Session> sessionsOf(BibEntry bib) {
        return store.sessionsOf(bib);
    }

    public Pool4 pool4() {
        return pool4;
    }

    private long sessionsOf(Ipv6Address subscriber) {
        return store.sessionCount(subscriber, config.pool4.subscriberPrefixLength());
    }

    /** How the IPv6 side sees an IPv4 address: by its EAM, else embedded in pool6. */
    public Ipv6Address representation(Ipv4Address a) {
        return eamt().toIpv6(a).orElseGet(() -> inPool6(a));
    }

    /** An IPv4 address embedded in pool6 (RFC 6052), whatever the EAMT says: a hairpinned packet's source (RFC 7757 4.2). */
    public Ipv6Address inPool6(Ipv4Address a) {
        return config.pool6.embed(a);
    }

    /** The IPv4 address an IPv6 address represents: by its EAM, else extracted from pool6; empty for neither. */
    public Optional<Ipv4Address> ipv4Of(Ipv6Address a) {
        Optional<Ipv4Address> byEam = eamt().toIpv4(a);
        return byEam.isPresent() || !config.pool6.prefix().contains(a) ? byEam : Optional.of(config.pool6.extract(a));
    }

    /**
     * The IPv4 address of an IPv6 host translated without state, as the switch's {@code eamt_v6_src}
     * and {@code pool6_src} find it: by its EAM, else extracted from pool6 when in {@code siitPrefixes}.
     */
    public Optional<Ipv4Address> statelessIpv4Of(Ipv6Address host) {
        Optional<Ipv4Address> byEam = eamt().toIpv4(host);
        return byEam.isPresent() ? byEam : ipv4Of(host).filter(this::inSiitPrefixes);
    }

    /** The IPv6 address of an IPv4 destination translated without state (eamt_v4_dst, siit_v4_dst). */
    public Optional<Ipv6Address> statelessIpv6Of(Ipv4Address destination) {
        Optional<Ipv6Address> byEam = eamt().toIpv6(destination);
        return byEam.isPresent() || !inSiitPrefixes(destination) ? byEam
                : Optional.of(config.pool6.embed(destination));
    }

    private boolean inSiitPrefixes(Ipv4Address a) {
        return config.siitPrefixes.stream().anyMatch(p -> p.contains(a));
    }

    private Outcome refused(Protocol protocol, Ipv6Address subscriber, Pool4.Refusal why, long now) {
        switch (why) {
            case SUBSCRIBER_LIMIT:
                // the limit in entries (RFC 8158's maxEntriesPerUser): the mappings its blocks hold
                log.accept(events.quotaExceeded(subscriber,
                        config.pool4.blocksPerSubscriber() * config.pool4.blockSize(), now));
                return Outcome.refuse("subscriber " + subscriber + " holds its " + config.pool4.blocksPerSubscriber()
                        + " port blocks, all in use", Outcome.IcmpError.V6_ADDRESS_UNREACHABLE);
            case NOT_A_SUBSCRIBER:
                return Outcome.refuse(subscriber + " is outside the deterministic subscriber prefix",
                        Outcome.IcmpError.V6_ADDRESS_UNREACHABLE);
            default:
                log.accept(events.exhausted(false, protocol, now));
                return Outcome.refuse("pool4 has no free " + protocol + " port (RFC 6146 3.5.1.1)",
                        Outcome.IcmpError.V6_ADDRESS_UNREACHABLE);
        }
    }

    private void endSession(Session s, long now) {
        if (store.removeSession(s)) {
            log.accept(events.session(false, s, now));
        }
    }

    private void removeBibEntry(BibEntry bib, long now) {
        idleOn.remove(bib.key6());
        idleNotBefore.remove(bib.key6());
        if (store.removeBib(bib)) {
            pool4.release(bib.protocol(), bib.v4(), now);
            log.accept(events.bib(false, bib, now));
        }
    }

    private static void checkPort(String field, int port) {
        if (port < 0 || port > 65535) {
            throw new ConfigException(field, port + " is not a port (0-65535)");
        }
    }
}
