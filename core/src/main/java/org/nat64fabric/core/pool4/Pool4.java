package org.nat64fabric.core.pool4;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;

/**
 * Allocates IPv4 transport addresses (RFC 6146 3.5.1.1, RFC 6888): ports are handed to a
 * subscriber in blocks; a subscriber keeps one IPv4 address for all its blocks (paired pooling);
 * a port keeps the parity and the range (well-known, registered, dynamic) of the IPv6 source port
 * when it can; a subscriber over its block limit, or a full pool, is refused and nothing is
 * evicted; a freed port rests for the hold time before anyone gets it again. Thread-safe.
 */
public final class Pool4 {
    /** Why an allocation was refused. */
    public enum Refusal { EXHAUSTED, SUBSCRIBER_LIMIT, TAKEN }

    /** An allocation: the transport address, or why there is none; and the block it opened, if any. */
    public static final class Result {
        private final TransportAddress address;
        private final Refusal refusal;
        private final PortBlock newBlock;

        private Result(TransportAddress address, Refusal refusal, PortBlock newBlock) {
            this.address = address;
            this.refusal = refusal;
            this.newBlock = newBlock;
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

    /** A usable port and the block it is in. */
    private static final class Free {
        final Block block;
        final int port;

        Free(Block block, int port) {
            this.block = block;
            this.port = port;
        }
    }

    private static final class Block {
        final PortBlock info;
        final BitSet used = new BitSet();
        final Map<Integer, Long> resting = new HashMap<>();   // port -> when it may be used again

        Block(PortBlock info) {
            this.info = info;
        }

        boolean usable(int port, long now) {
            return !used.get(port - info.first()) && resting.getOrDefault(port, 0L) <= now;
        }

        boolean idle(long now) {
            return used.isEmpty() && resting.values().stream().allMatch(t -> t <= now);
        }
    }

    private final Pool4Config config;
    private final List<Ipv4Address> addresses = new ArrayList<>();
    private final Map<Protocol, Map<Long, Block>> blocks = new EnumMap<>(Protocol.class);   // key: address << 16 | block
    private final Map<Ipv6Address, Ipv4Address> paired = new HashMap<>();

    public Pool4(Pool4Config config) {
        this.config = config;
        for (Ipv4Prefix p : config.addresses) {
            for (long i = 0; i < p.size(); i++) {
                addresses.add(p.at(i));
            }
        }
        for (Protocol p : Protocol.values()) {
            blocks.put(p, new HashMap<>());
        }
    }

    public Ipv6Address subscriberOf(Ipv6Address source) {
        return source.mask(config.subscriberPrefixLength);
    }

    /** 0 well-known, 1 registered, 2 dynamic (RFC 6335). */
    static int rangeClass(int port) {
        return port < 1024 ? 0 : port < 49152 ? 1 : 2;
    }

    private static long key(Ipv4Address a, int blockIndex) {
        return a.unsigned() << 16 | blockIndex;
    }

    /** A new transport address for a mapping from {@code source} port {@code sourcePort}. */
    public synchronized Result allocate(Protocol protocol, Ipv6Address source, int sourcePort, long now) {
        Ipv6Address subscriber = subscriberOf(source);
        List<Block> own = blocksOf(protocol, subscriber);
        int cls = rangeClass(sourcePort);
        int parity = sourcePort & 1;
        Optional<Free> found = find(own, now, cls, parity);
        if (found.isPresent()) {
            return take(found.get(), null);
        }
        if (own.size() < config.blocksPerSubscriber) {
            Optional<Block> fresh = openBlock(protocol, subscriber, cls);
            if (fresh.isPresent()) {
                own.add(fresh.get());
                return take(find(List.of(fresh.get()), now, cls, parity)
                        .or(() -> find(List.of(fresh.get()), now, cls, -1)).orElseThrow(), fresh.get().info);
            }
        }
        found = find(own, now, cls, -1).or(() -> find(own, now, -1, -1));
        if (found.isPresent()) {
            return take(found.get(), null);
        }
        if (own.size() < config.blocksPerSubscriber) {
            Optional<Block> fresh = openBlock(protocol, subscriber, -1);
            if (fresh.isPresent()) {
                own.add(fresh.get());
                return take(find(List.of(fresh.get()), now, -1, -1).orElseThrow(), fresh.get().info);
            }
        }
        return new Result(null, own.size() >= config.blocksPerSubscriber ? Refusal.SUBSCRIBER_LIMIT
                : Refusal.EXHAUSTED, null);
    }

    /**
     * A chosen transport address for a static BIB entry. Refused when its block belongs to another
     * subscriber or the port is in use or resting.
     */
    public synchronized Result reserve(Protocol protocol, TransportAddress wanted, Ipv6Address source, long now) {
        Ipv6Address subscriber = subscriberOf(source);
        int index = wanted.port() / config.blockSize;
        int[] range = config.portRanges.get(protocol);
        if (!addresses.contains(wanted.address()) || wanted.port() < range[0] || wanted.port() > range[1]) {
            return new Result(null, Refusal.TAKEN, null);
        }
        Block b = blocks.get(protocol).get(key(wanted.address(), index));
        PortBlock opened = null;
        if (b == null) {
            Ipv4Address pair = paired.get(subscriber);
            if (pair != null && !pair.equals(wanted.address())) {
                return new Result(null, Refusal.TAKEN, null);   // would break paired pooling
            }
            b = newBlock(protocol, wanted.address(), index, subscriber);
            opened = b.info;
        } else if (!b.info.subscriber().equals(subscriber) || !b.usable(wanted.port(), now)) {
            return new Result(null, Refusal.TAKEN, null);
        }
        b.used.set(wanted.port() - b.info.first());
        return new Result(wanted, null, opened);
    }

    /** The mapping using {@code address} ended: its port rests for the hold time. */
    public synchronized void release(Protocol protocol, TransportAddress address, long now) {
        Block b = blocks.get(protocol).get(key(address.address(), address.port() / config.blockSize));
        if (b == null || !b.used.get(address.port() - b.info.first())) {
            throw new IllegalStateException(protocol + " " + address + " is not allocated");
        }
        b.used.clear(address.port() - b.info.first());
        b.resting.put(address.port(), now + config.holdMillis);
    }

    /** Returns to the pool the blocks with no mapping and no resting port left; they are returned for logging. */
    public synchronized List<PortBlock> expire(long now) {
        List<PortBlock> freed = new ArrayList<>();
        for (Map<Long, Block> byKey : blocks.values()) {
            for (Iterator<Block> it = byKey.values().iterator(); it.hasNext(); ) {
                Block b = it.next();
                if (b.idle(now)) {
                    it.remove();
                    freed.add(b.info);
                }
            }
        }
        for (PortBlock f : freed) {
            boolean stillHolds = blocks.values().stream()
                    .anyMatch(m -> m.values().stream().anyMatch(b -> b.info.subscriber().equals(f.subscriber())));
            if (!stillHolds) {
                paired.remove(f.subscriber());
            }
        }
        return freed;
    }

    /** The blocks a subscriber holds now. */
    public synchronized List<PortBlock> blocksOf(Ipv6Address subscriber) {
        List<PortBlock> out = new ArrayList<>();
        for (Map<Long, Block> byKey : blocks.values()) {
            byKey.values().stream().filter(b -> b.info.subscriber().equals(subscriber)).forEach(b -> out.add(b.info));
        }
        return out;
    }

    private List<Block> blocksOf(Protocol protocol, Ipv6Address subscriber) {
        List<Block> own = new ArrayList<>();
        blocks.get(protocol).values().stream().filter(b -> b.info.subscriber().equals(subscriber))
                .sorted(Comparator.comparingInt(b -> b.info.first())).forEach(own::add);
        return own;
    }

    /** A usable port in {@code candidates}, of range class {@code cls} and {@code parity} (-1: any). */
    private static Optional<Free> find(List<Block> candidates, long now, int cls, int parity) {
        for (Block b : candidates) {
            for (int port = b.info.first(); port <= b.info.last(); port++) {
                if ((cls < 0 || rangeClass(port) == cls) && (parity < 0 || (port & 1) == parity) && b.usable(port, now)) {
                    return Optional.of(new Free(b, port));
                }
            }
        }
        return Optional.empty();
    }

    private static Result take(Free f, PortBlock opened) {
        f.block.used.set(f.port - f.block.info.first());
        return new Result(new TransportAddress(f.block.info.address(), f.port), null, opened);
    }

    /** A free block for the subscriber on its paired address (or the least used one), in range class {@code cls}. */
    private Optional<Block> openBlock(Protocol protocol, Ipv6Address subscriber, int cls) {
        int[] range = config.portRanges.get(protocol);
        Ipv4Address pair = paired.get(subscriber);
        List<Ipv4Address> choices = new ArrayList<>(pair != null ? List.of(pair) : addresses);
        if (pair == null) {
            Map<Ipv4Address, Long> load = new HashMap<>();
            for (Block b : blocks.get(protocol).values()) {
                load.merge(b.info.address(), 1L, Long::sum);
            }
            choices.sort(Comparator.comparingLong((Ipv4Address a) -> load.getOrDefault(a, 0L)));
        }
        for (Ipv4Address a : choices) {
            for (int index = range[0] / config.blockSize; index <= range[1] / config.blockSize; index++) {
                int first = Math.max(index * config.blockSize, range[0]);
                if ((cls < 0 || rangeClass(first) == cls) && !blocks.get(protocol).containsKey(key(a, index))) {
                    return Optional.of(newBlock(protocol, a, index, subscriber));
                }
            }
        }
        return Optional.empty();
    }

    private Block newBlock(Protocol protocol, Ipv4Address a, int index, Ipv6Address subscriber) {
        int[] range = config.portRanges.get(protocol);
        int first = Math.max(index * config.blockSize, range[0]);
        int last = Math.min(index * config.blockSize + config.blockSize - 1, range[1]);
        Block b = new Block(new PortBlock(protocol, a, first, last, subscriber));
        blocks.get(protocol).put(key(a, index), b);
        paired.putIfAbsent(subscriber, a);
        return b;
    }
}
