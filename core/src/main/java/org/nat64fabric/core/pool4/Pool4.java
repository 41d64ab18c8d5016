package org.nat64fabric.core.pool4;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;

/**
 * Allocates IPv4 transport addresses (RFC 6146 3.5.1.1, RFC 6888): ports are handed to a
 * subscriber in blocks; a subscriber keeps one IPv4 address for all its blocks (paired pooling);
 * a port keeps the parity and the range (well-known, registered, dynamic) of the IPv6 source port
 * when it can; a subscriber over its block limit, or a full pool, is refused and nothing is
 * evicted; a freed port rests for the hold time before anyone gets it again. With deterministic
 * mapping (RFC 7422) a subscriber's blocks are computed from its prefix instead of chosen.
 *
 * <p>All state is in the {@link PortStore}, whose atomic claims keep addresses unique across
 * controller instances sharing it.
 */
public final class Pool4 {
    /** Why an allocation was refused. */
    public enum Refusal { EXHAUSTED, SUBSCRIBER_LIMIT, TAKEN, NOT_A_SUBSCRIBER, OUT_OF_POOL, PAIRED, OTHER_SUBSCRIBER }

    /** An allocation: the transport address, or why there is none; and the block it opened, if any. */
    public static final class Result {
        private final TransportAddress address;
        private final Refusal refusal;
        private final PortBlock newBlock;
        private final String why;

        private Result(TransportAddress address, Refusal refusal, PortBlock newBlock) {
            this(address, refusal, newBlock, null);
        }

        private Result(TransportAddress address, Refusal refusal, PortBlock newBlock, String why) {
            this.address = address;
            this.refusal = refusal;
            this.newBlock = newBlock;
            this.why = why;
        }

        private static Result refused(Refusal refusal, String why) {
            return new Result(null, refusal, null, why);
        }

        /** A refusal of {@link #reserve} in words, for the operator who asked. */
        public Optional<String> why() {
            return Optional.ofNullable(why);
        }

        public Optional<TransportAddress> address() {
            return Optional.ofNullable(address);
        }

        public Optional<Refusal> refusal() {
            return Optional.ofNullable(refusal);
        }

        /** A block handed to the subscriber for this allocation (to be logged once). */
        public Optional<PortBlock> newBlock() {
            return Optional.ofNullable(newBlock);
        }
    }

    private final Pool4Config config;
    private final PortStore store;
    private final List<Ipv4Address> addresses = new ArrayList<>();
    /** Per block, the port its next search starts at: a hint only, kept in memory. */
    private final Map<PortBlock, Integer> cursors = new HashMap<>();
    /**
     * Per block, by search (range class and parity asked for, each or any), a time before which
     * the block has no port for it: a search found every such port in use or resting, and none can
     * come free before the earliest of those rests ends or the hold time has passed. A subscriber's
     * full blocks are skipped until then, where each setup after its last block filled tried every
     * port of every one of them (thousands of claims in one setup).
     */
    private final Map<PortBlock, long[]> noPortBefore = new HashMap<>();
    /** Searches: range class -1 (any) to 2, times parity -1 (any) to 1. */
    private static final int SEARCHES = 4 * 3;
    /** Per protocol and subscriber, the block of its last claimed port: a hint only. */
    private final Map<Protocol, Map<Ipv6Address, PortBlock>> lastBlock = new EnumMap<>(Protocol.class);
    /**
     * Per protocol and subscriber, a refusal that stands until its time (ms): a search that finds
     * nothing probes every port of every block the subscriber holds, three times, and a
     * subscriber at its limit asks again with every new flow (a flood would have the setups
     * of everyone wait behind its searches). Freed ports rest for the hold time, so a second is
     * lost at most; a block given back to the pool ends the refusals at once.
     */
    private final Map<Protocol, Map<Ipv6Address, Refused>> refusedUntil = new EnumMap<>(Protocol.class);
    static final long REFUSAL_STANDS_MILLIS = 1000;
    /**
     * Per protocol, pool4's addresses by the blocks they hold, fewest first: where a subscriber's
     * first block goes. Counted from the store at the first need after each {@link #expire} (which
     * sees the blocks other controller instances opened too), and kept up by this instance's opens
     * and give-backs in between, where every first block listed every block held.
     */
    private final Map<Protocol, AddressLoad> loads = new EnumMap<>(Protocol.class);

    private static final class Refused {
        final Refusal refusal;
        final long until;

        Refused(Refusal refusal, long until) {
            this.refusal = refusal;
            this.until = until;
        }
    }

    /** Blocks held per address, and the addresses in order of that count (then of pool4). */
    private static final class AddressLoad {
        final Map<Ipv4Address, Long> blocks = new HashMap<>();
        final Map<Ipv4Address, Integer> position = new HashMap<>();
        /**
         * Per address and range class (any, then {@link #rangeClass} 0-2), a block index before
         * which every block of the class was held when last looked.
         */
        final Map<Ipv4Address, int[]> allHeldBefore = new HashMap<>();
        final TreeSet<Ipv4Address> fewestFirst = new TreeSet<>(
                Comparator.comparingLong((Ipv4Address a) -> blocks.getOrDefault(a, 0L)).thenComparing(position::get));

        AddressLoad(List<Ipv4Address> addresses, Protocol protocol, List<PortBlock> held) {
            for (Ipv4Address a : addresses) {
                position.put(a, position.size());
            }
            for (PortBlock b : held) {
                if (b.protocol() == protocol && position.containsKey(b.address())) {
                    blocks.merge(b.address(), 1L, Long::sum);
                }
            }
            fewestFirst.addAll(addresses);
        }

        void add(PortBlock b, int index, long delta) {
            Ipv4Address a = b.address();
            if (!position.containsKey(a)) {
                return;   // no longer in pool4 (renumbered): its subscribers keep it until their blocks go
            }
            if (fewestFirst.remove(a)) {   // taken out under its old count, put back under the new one
                blocks.merge(a, delta, Long::sum);
                fewestFirst.add(a);
            }
            int[] heldBefore = allHeldBefore.get(a);
            if (delta < 0 && heldBefore != null) {   // this block is free again: searches of its class, or of any, start there
                heldBefore[0] = Math.min(heldBefore[0], index);
                heldBefore[rangeClass(b.first()) + 1] = Math.min(heldBefore[rangeClass(b.first()) + 1], index);
            }
        }
    }

    public Pool4(Pool4Config config, PortStore store) {
        this.config = config;
        this.store = store;
        for (Ipv4Prefix p : config.addresses) {
            for (long i = 0; i < p.size(); i++) {
                addresses.add(p.at(i));
            }
        }
    }

    public Ipv6Address subscriberOf(Ipv6Address source) {
        return source.mask(config.subscriberPrefixLength);
    }

    /** Whether {@code address} is one pool4 hands out. */
    public boolean contains(Ipv4Address address) {
        return config.addresses.stream().anyMatch(p -> p.contains(address));
    }

    /** 0 well-known, 1 registered, 2 dynamic (RFC 6335). */
    static int rangeClass(int port) {
        return port < 1024 ? 0 : port < 49152 ? 1 : 2;
    }

    /** A new transport address for a mapping from {@code source} port {@code sourcePort}. */
    public synchronized Result allocate(Protocol protocol, Ipv6Address source, int sourcePort, long now) {
        Ipv6Address subscriber = subscriberOf(source);
        if (config.deterministic != null && !config.deterministic.contains(subscriber)) {
            return new Result(null, Refusal.NOT_A_SUBSCRIBER, null);
        }
        Refused standing = refusedUntil.getOrDefault(protocol, Map.of()).get(subscriber);
        if (standing != null && now < standing.until) {
            return new Result(null, standing.refusal, null);
        }
        int cls = rangeClass(sourcePort);
        int parity = sourcePort & 1;
        // The block that gave the last port is likely to give the next: try it first, on its own
        // while it is still the subscriber's (another instance sharing the store may have taken it
        // back), before listing and sorting all the subscriber's blocks (up to blocksPerSubscriber
        // look-ups, at every setup).
        PortBlock last = lastBlock.getOrDefault(protocol, Map.of()).get(subscriber);
        if (last != null && store.holds(last)) {
            Optional<TransportAddress> inLast = claim(List.of(last), now, cls, parity);
            if (inLast.isPresent()) {
                return new Result(inLast.get(), null, null);
            }
        }
        List<PortBlock> own = blocksOf(protocol, subscriber);
        own.sort(Comparator.comparing((PortBlock b) -> !b.equals(last)));
        Optional<TransportAddress> found = claim(own, now, cls, parity);
        if (found.isPresent()) {
            return new Result(found.get(), null, null);
        }
        Optional<Result> fresh = inNewBlock(protocol, subscriber, own, now, cls, parity);
        if (fresh.isPresent()) {
            return fresh.get();
        }
        // RFC 6146 3.5.1.1: range and parity SHOULD be kept; where the range cannot be, the parity still is
        found = claim(own, now, cls, -1).or(() -> claim(own, now, -1, parity)).or(() -> claim(own, now, -1, -1));
        if (found.isPresent()) {
            return new Result(found.get(), null, null);
        }
        return inNewBlock(protocol, subscriber, own, now, -1, parity).or(() -> {
            AddressLoad load = loads.get(protocol);
            if (load == null || load.allHeldBefore.isEmpty()) {
                return Optional.empty();
            }
            // Before a refusal: another controller instance may have given a block back where the hints say all are held.
            load.allHeldBefore.clear();
            return inNewBlock(protocol, subscriber, own, now, -1, parity);
        }).orElseGet(() -> {
            Refusal refusal = own.size() >= config.blocksPerSubscriber ? Refusal.SUBSCRIBER_LIMIT : Refusal.EXHAUSTED;
            refusedUntil.computeIfAbsent(protocol, k -> new HashMap<>())
                    .put(subscriber, new Refused(refusal, now + REFUSAL_STANDS_MILLIS));
            return new Result(null, refusal, null);
        });
    }

    /**
     * A chosen transport address for a static BIB entry. Refused when its block belongs to another
     * subscriber, would break paired pooling, or the port is in use or resting.
     */
    public synchronized Result reserve(Protocol protocol, TransportAddress wanted, Ipv6Address source, long now) {
        Ipv6Address subscriber = subscriberOf(source);
        if (!inPool4(protocol, wanted)) {
            int[] range = config.portRanges.get(protocol);
            return Result.refused(Refusal.OUT_OF_POOL, protocol + " " + wanted + (usable(protocol, wanted.port())
                    ? " is outside pool4 or its " + protocol + " range " + range[0] + "–" + range[1]
                    : ": port 0 is reserved (RFC 6335 6)"));
        }
        Optional<PortBlock> holder = store.blocks().stream()
                .filter(b -> b.protocol() == protocol && b.address().equals(wanted.address()) && b.contains(wanted.port()))
                .findFirst();
        PortBlock opened = null;
        if (holder.isEmpty()) {
            Optional<Ipv4Address> pair = pairedAddress(subscriber);
            if (pair.isPresent() && !pair.get().equals(wanted.address())) {
                return Result.refused(Refusal.PAIRED, subscriber + " is paired with " + pair.get()
                        + " (paired pooling, RFC 6888 REQ-2): its mappings all use that address");
            }
            opened = block(protocol, wanted.address(), wanted.port() / config.blockSize, subscriber);
            if (!store.claimBlock(opened)) {
                return Result.refused(Refusal.TAKEN, protocol + " " + wanted + " was just taken: its port block"
                        + " went to another subscriber");
            }
            counted(opened, 1);
        } else if (!holder.get().subscriber().equals(subscriber)) {
            PortBlock b = holder.get();
            return Result.refused(Refusal.OTHER_SUBSCRIBER, protocol + " " + wanted + " is in the port block "
                    + b.first() + "–" + b.last() + " of another subscriber, " + b.subscriber());
        }
        if (store.claimPort(protocol, wanted, now) != PortStore.CLAIMED) {
            if (opened != null) {
                giveBack(opened);
            }
            return Result.refused(Refusal.TAKEN, protocol + " " + wanted + " is in use, or resting for "
                    + config.holdMillis / 1000 + " s after its last use (RFC 6888 REQ-8)");
        }
        return new Result(wanted, null, opened);
    }

    /**
     * The transport address an IPv4 SYN held for a simultaneous open names, for the mapping of the
     * IPv6 host whose SYN completes it (RFC 6146 3.5.2.2), within what {@link #allocate} would let
     * the subscriber have: a free port of a block it holds, or of a block no one holds that it may
     * open (one of its deterministic blocks, RFC 7422; else under its block limit, on its paired
     * address). Asked of the store for that one block, as the setup path asks. A refusal leaves
     * the host to {@link #allocate}.
     */
    public synchronized Result claimForSimultaneousOpen(Protocol protocol, TransportAddress wanted, Ipv6Address source,
                                                        long now) {
        Ipv6Address subscriber = subscriberOf(source);
        if (config.deterministic != null && !config.deterministic.contains(subscriber)) {
            return new Result(null, Refusal.NOT_A_SUBSCRIBER, null);
        }
        if (!inPool4(protocol, wanted)) {
            return new Result(null, Refusal.OUT_OF_POOL, null);
        }
        PortBlock block = block(protocol, wanted.address(), wanted.port() / config.blockSize, subscriber);
        PortBlock opened = null;
        if (!store.holds(block)) {
            boolean mayOpen = config.deterministic != null ? deterministicBlocks(protocol, subscriber).contains(block)
                    : blocksOf(protocol, subscriber).size() < config.blocksPerSubscriber
                            && pairedAddress(subscriber).map(wanted.address()::equals).orElse(true);
            if (!mayOpen) {
                return new Result(null, Refusal.SUBSCRIBER_LIMIT, null);
            }
            if (!store.claimBlock(block)) {
                return new Result(null, Refusal.OTHER_SUBSCRIBER, null);
            }
            counted(block, 1);
            if (blocksOf(protocol, subscriber).size() > config.blocksPerSubscriber) {
                giveBack(block);   // another instance opened one for this subscriber meanwhile
                return new Result(null, Refusal.SUBSCRIBER_LIMIT, null);
            }
            opened = block;
        }
        if (store.claimPort(protocol, wanted, now) != PortStore.CLAIMED) {
            if (opened != null) {
                giveBack(opened);
            }
            return new Result(null, Refusal.TAKEN, null);
        }
        return new Result(wanted, null, opened);
    }

    /** Whether {@code wanted} is a pool4 address with a port of the protocol's range. */
    private boolean inPool4(Protocol protocol, TransportAddress wanted) {
        int[] range = config.portRanges.get(protocol);
        return addresses.contains(wanted.address()) && wanted.port() >= range[0] && wanted.port() <= range[1]
                && usable(protocol, wanted.port());
    }

    /** TCP and UDP port 0 is reserved (RFC 6335 6; as a UDP source, "no port": RFC 768): never handed out. */
    private static boolean usable(Protocol protocol, int port) {
        return port != 0 || protocol == Protocol.ICMP;
    }

    /** The mapping using {@code address} ended: its port rests for the hold time. */
    public void release(Protocol protocol, TransportAddress address, long now) {
        store.restPort(protocol, address, now + config.holdMillis);
    }

    /** Returns to the pool the blocks with no mapping and no resting port left; they are returned for logging. */
    public synchronized List<PortBlock> expire(long now) {
        refusedUntil.values().forEach(m -> m.values().removeIf(r -> r.until <= now));
        loads.clear();   // counted again from the store when next needed
        List<PortBlock> freed = new ArrayList<>();
        for (PortBlock b : store.blocks()) {
            boolean busy = false;
            for (int port = b.first(); port <= b.last() && !busy; port++) {
                busy = store.portBusy(b.protocol(), new TransportAddress(b.address(), port), now);
            }
            if (!busy) {
                giveBack(b);
                freed.add(b);
            }
        }
        return freed;
    }

    /** Gives a block back, and forgets the search hints about it (they would outlive every block). */
    private void giveBack(PortBlock b) {
        store.releaseBlock(b);
        counted(b, -1);
        cursors.remove(b);
        noPortBefore.remove(b);
        refusedUntil.remove(b.protocol());
        Map<Ipv6Address, PortBlock> last = lastBlock.get(b.protocol());
        if (last != null) {
            last.remove(b.subscriber(), b);
        }
    }

    /** The blocks a subscriber holds now. */
    public List<PortBlock> blocksOf(Ipv6Address subscriber) {
        return store.blocksOf(subscriber);
    }

    /**
     * RFC 7422: the blocks a subscriber gets under deterministic mapping, which an operator can
     * compute from the configuration alone (so blocks need no log record).
     */
    public List<PortBlock> deterministicBlocks(Protocol protocol, Ipv6Address subscriber) {
        long index = subscriberIndex(subscriber);
        int[] indexes = blockIndexes(protocol);
        long perAddress = indexes[1] - indexes[0] + 1L;
        List<PortBlock> out = new ArrayList<>();
        for (int j = 0; j < config.blocksPerSubscriber; j++) {
            long g = index * config.blocksPerSubscriber + j;
            out.add(block(protocol, addresses.get((int) (g / perAddress)), (int) (indexes[0] + g % perAddress),
                    subscriber));
        }
        return out;
    }

    private long subscriberIndex(Ipv6Address subscriber) {
        long index = 0;
        for (int i = config.deterministic.length(); i < config.subscriberPrefixLength; i++) {
            index = index << 1 | subscriber.bit(i);
        }
        return index;
    }

    /** The first and last block index inside the protocol's port range. */
    private int[] blockIndexes(Protocol protocol) {
        int[] range = config.portRanges.get(protocol);
        return new int[] {range[0] / config.blockSize, range[1] / config.blockSize};
    }

    private List<PortBlock> blocksOf(Protocol protocol, Ipv6Address subscriber) {
        return store.blocksOf(subscriber).stream().filter(b -> b.protocol() == protocol)
                .sorted(Comparator.comparingLong((PortBlock b) -> b.address().unsigned()).thenComparingInt(PortBlock::first))
                .collect(Collectors.toList());
    }

    private Optional<Ipv4Address> pairedAddress(Ipv6Address subscriber) {
        return store.blocksOf(subscriber).stream().map(PortBlock::address).findFirst();
    }

    /** Claims a usable port in {@code candidates}, of range class {@code cls} and {@code parity} (-1: any). */
    private Optional<TransportAddress> claim(List<PortBlock> candidates, long now, int cls, int parity) {
        int search = (cls + 1) * 3 + parity + 1;
        for (PortBlock b : candidates) {
            long[] noPort = noPortBefore.get(b);
            if (noPort != null && now < noPort[search]) {
                continue;   // it had none at its last search, and none can have come free since
            }
            // Start after the port claimed last in this block, so that a busy block is not probed
            // from its first port at every allocation; wrap round to reach ports freed since.
            int size = b.last() - b.first() + 1;
            int start = cursors.getOrDefault(b, b.first());
            // A port in use now rests for the hold time once released; a resting one is free at its rest's end.
            long soonest = now + config.holdMillis;
            for (int i = 0; i < size; i++) {
                int port = b.first() + (start - b.first() + i) % size;
                if ((cls < 0 || rangeClass(port) == cls) && (parity < 0 || (port & 1) == parity) && usable(b.protocol(), port)) {
                    TransportAddress t = new TransportAddress(b.address(), port);
                    long freeAt = store.claimPort(b.protocol(), t, now);
                    if (freeAt == PortStore.CLAIMED) {
                        cursors.put(b, port == b.last() ? b.first() : port + 1);
                        lastBlock.computeIfAbsent(b.protocol(), p -> new HashMap<>()).put(b.subscriber(), b);
                        return Optional.of(t);
                    }
                    soonest = Math.min(soonest, freeAt);
                }
            }
            noPortBefore.computeIfAbsent(b, k -> new long[SEARCHES])[search] = soonest;
        }
        return Optional.empty();
    }

    /** Opens a block for the subscriber (if under its limit) in range class {@code cls} and claims a port in it. */
    private Optional<Result> inNewBlock(Protocol protocol, Ipv6Address subscriber, List<PortBlock> own, long now,
                                        int cls, int parity) {
        if (own.size() >= config.blocksPerSubscriber) {
            return Optional.empty();
        }
        for (PortBlock candidate : candidateBlocks(protocol, subscriber, cls)) {
            if (!store.claimBlock(candidate)) {
                continue;   // another subscriber, or another controller instance, has it
            }
            counted(candidate, 1);
            if (blocksOf(protocol, subscriber).size() > config.blocksPerSubscriber) {
                giveBack(candidate);   // another instance opened one for this subscriber meanwhile
                return Optional.empty();
            }
            own.add(candidate);
            Optional<TransportAddress> t = claim(List.of(candidate), now, cls, parity)
                    .or(() -> claim(List.of(candidate), now, cls, -1))
                    .or(() -> claim(List.of(candidate), now, -1, parity))
                    .or(() -> claim(List.of(candidate), now, -1, -1));
            if (t.isPresent()) {
                return Optional.of(new Result(t.get(), null, candidate));
            }
        }
        return Optional.empty();
    }

    /** Blocks a subscriber may open, best first: its deterministic ones, or free ones on its paired (else least used) address. */
    private List<PortBlock> candidateBlocks(Protocol protocol, Ipv6Address subscriber, int cls) {
        if (config.deterministic != null) {
            List<PortBlock> out = new ArrayList<>();
            List<PortBlock> own = store.blocksOf(subscriber);
            for (PortBlock b : deterministicBlocks(protocol, subscriber)) {
                if ((cls < 0 || rangeClass(b.first()) == cls) && !own.contains(b)) {
                    out.add(b);
                }
            }
            return out;
        }
        Optional<Ipv4Address> pair = pairedAddress(subscriber);
        AddressLoad load = load(protocol);
        // the subscriber's first block goes on the address with the fewest blocks
        Iterable<Ipv4Address> choices = pair.isPresent() ? List.of(pair.get()) : load.fewestFirst;
        return freeBlocks(protocol, subscriber, cls, choices, load);
    }

    /** Up to nine blocks of range class {@code cls} (-1: any) no one holds, on {@code choices} in turn. */
    private List<PortBlock> freeBlocks(Protocol protocol, Ipv6Address subscriber, int cls,
                                       Iterable<Ipv4Address> choices, AddressLoad load) {
        List<PortBlock> out = new ArrayList<>();
        int[] indexes = blockIndexes(protocol);
        for (Ipv4Address a : choices) {
            int[] heldBefore = load.allHeldBefore.computeIfAbsent(a, k -> new int[] {0, 0, 0, 0});
            boolean allHeld = true;   // so far: where the next search of this class on this address starts
            for (int index = Math.max(indexes[0], heldBefore[cls + 1]); index <= indexes[1]; index++) {
                PortBlock b = block(protocol, a, index, subscriber);
                if (cls >= 0 && rangeClass(b.first()) != cls) {
                    continue;
                }
                // asked of the store per block, not by listing every block held: a subscriber opens
                // a block every few hundred mappings, and the blocks held grow with the subscribers
                if (store.blockStartHeld(b)) {
                    if (allHeld) {
                        heldBefore[cls + 1] = index + 1;
                    }
                    continue;
                }
                allHeld = false;
                out.add(b);
                if (out.size() > 8) {
                    return out;   // enough to survive races; the next call looks again
                }
            }
        }
        return out;
    }

    private AddressLoad load(Protocol protocol) {
        return loads.computeIfAbsent(protocol, p -> new AddressLoad(addresses, p, store.blocks()));
    }

    /** A block this instance opened ({@code +1}) or gave back ({@code -1}). */
    private void counted(PortBlock b, long delta) {
        AddressLoad load = loads.get(b.protocol());
        if (load != null) {
            load.add(b, b.first() / config.blockSize, delta);
        }
    }

    private PortBlock block(Protocol protocol, Ipv4Address a, int index, Ipv6Address subscriber) {
        int[] range = config.portRanges.get(protocol);
        int first = Math.max(index * config.blockSize, range[0]);
        int last = Math.min(index * config.blockSize + config.blockSize - 1, range[1]);
        return new PortBlock(protocol, a, first, last, subscriber);
    }
}
