package org.nat64fabric.core.pool4;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.addr.Ipv6Prefix;
import org.nat64fabric.core.store.InMemoryNatStore;

class Pool4Test {
    private static Ipv6Address host(int n) {
        return Ipv6Address.of(0x20010db800010000L, n);
    }

    private static Pool4Config.Builder pool(String... prefixes) {
        List<Ipv4Prefix> list = new ArrayList<>();
        for (String p : prefixes) {
            list.add(Ipv4Prefix.parse(p, "pool4"));
        }
        return Pool4Config.builder().addresses(list);
    }

    private static Pool4 pool4(Pool4Config config) {
        return new Pool4(config, new InMemoryNatStore());
    }

    private static TransportAddress get(Pool4.Result r) {
        return r.address().orElseThrow(() -> new AssertionError("refused: " + r.refusal().orElseThrow()));
    }

    @Test
    void portsKeepParityAndRangeOfTheSourcePort() {
        Pool4 p = pool4(pool("192.0.2.1/32").ports(Protocol.UDP, 0, 65535).build());
        for (int source : new int[] {5060, 5061, 80, 81, 50000, 50001, 1023, 49152}) {
            TransportAddress t = get(p.allocate(Protocol.UDP, host(1), source, 0));
            assertEquals(source & 1, t.port() & 1, "parity of " + source);
            assertEquals(Pool4.rangeClass(source), Pool4.rangeClass(t.port()), "range of " + source + " -> " + t);
        }
    }

    @Test
    void portZeroIsNeverHandedOutAndTheParityIsKeptWhereTheRangeCannotBe() {
        // RFC 6335 6: TCP and UDP port 0 is reserved (as a UDP source, "no port": RFC 768)
        Pool4 all = pool4(pool("192.0.2.1/32").ports(Protocol.UDP, 0, 65535).ports(Protocol.TCP, 0, 65535).build());
        for (Protocol proto : List.of(Protocol.UDP, Protocol.TCP)) {
            for (int source = 0; source < 64; source += 2) {
                TransportAddress t = get(all.allocate(proto, host(1), source, 0));
                assertNotEquals(0, t.port(), proto + " source port " + source);
                assertEquals(0, t.port() & 1, proto + " parity of " + source);
            }
        }
        // The default ranges leave out 0-1023: a well-known source port keeps its parity (RFC 6146 3.5.1.1, RFC 4787 REQ-4),
        // a subscriber's first one too
        Pool4 registered = pool4(pool("192.0.2.1/32").build());
        for (int source : new int[] {123, 5001, 5002, 53, 80, 443, 22, 25, 1, 2}) {
            TransportAddress t = get(registered.allocate(Protocol.UDP, host(2), source, 0));
            assertEquals(source & 1, t.port() & 1, "parity of " + source + " -> " + t);
        }
        // nor is port 0 taken when asked for by address (a static BIB entry, a simultaneous open)
        assertTrue(all.reserve(Protocol.UDP, new TransportAddress(Ipv4Address.parse("192.0.2.1", "a"), 0), host(3), 0)
                .address().isEmpty());
    }

    @Test
    void aSubscriberKeepsOneAddressForEveryProtocolAndSubscribersSpreadOut() {
        Pool4 p = pool4(pool("192.0.2.0/30").build());
        Set<Ipv4Address> first = new HashSet<>();
        for (int s = 1; s <= 4; s++) {
            Set<Ipv4Address> used = new HashSet<>();
            for (Protocol proto : Protocol.values()) {
                for (int port = 2000; port < 2300; port++) {
                    used.add(get(p.allocate(proto, host(s), port, 0)).address());
                }
            }
            assertEquals(1, used.size(), "paired pooling for subscriber " + s + ": " + used);
            first.addAll(used);
        }
        assertEquals(4, first.size(), "four subscribers, four addresses: the least used one is chosen");
    }

    @Test
    void aSubscriberOverItsLimitIsRefusedAndOthersAreNotAffected() {
        Pool4 p = pool4(pool("192.0.2.1/32").blockSize(4).blocksPerSubscriber(2).build());
        for (int i = 0; i < 8; i++) {
            get(p.allocate(Protocol.TCP, host(1), 3000 + i, 0));
        }
        Pool4.Result over = p.allocate(Protocol.TCP, host(1), 4000, 0);
        assertEquals(Optional.of(Pool4.Refusal.SUBSCRIBER_LIMIT), over.refusal());
        get(p.allocate(Protocol.TCP, host(2), 3000, 0));
        assertEquals(2, p.blocksOf(host(1)).size());
    }

    /** Counts the ports probed. */
    private static final class CountingPorts implements PortStore {
        final InMemoryNatStore store;
        int probes;
        int listings;
        int heldChecks;
        int subscriberListings;

        CountingPorts() {
            this(new InMemoryNatStore());
        }

        CountingPorts(InMemoryNatStore store) {
            this.store = store;
        }

        @Override public boolean claimBlock(PortBlock block) {
            return store.claimBlock(block);
        }

        @Override public void releaseBlock(PortBlock block) {
            store.releaseBlock(block);
        }

        @Override public List<PortBlock> blocks() {
            listings++;
            return store.blocks();
        }

        @Override public List<PortBlock> blocksOf(Ipv6Address subscriber) {
            subscriberListings++;
            return store.blocksOf(subscriber);   // the store's index, as in the controller
        }

        @Override public boolean holds(PortBlock block) {
            return store.holds(block);
        }

        @Override public boolean blockStartHeld(PortBlock block) {
            heldChecks++;
            return store.blockStartHeld(block);
        }

        @Override public long claimPort(Protocol protocol, TransportAddress address, long now) {
            probes++;
            return store.claimPort(protocol, address, now);
        }

        @Override public void restPort(Protocol protocol, TransportAddress address, long until) {
            store.restPort(protocol, address, until);
        }

        @Override public boolean portBusy(Protocol protocol, TransportAddress address, long now) {
            return store.portBusy(protocol, address, now);
        }
    }

    @Test
    void firstBlocksGoToTheLeastUsedAddressWithoutListingEveryBlockHeld() {
        InMemoryNatStore shared = new InMemoryNatStore();
        CountingPorts ports = new CountingPorts(shared);
        Pool4Config config = pool("192.0.2.0/30").ports(Protocol.UDP, 0, 65535).blockSize(1024).build();
        Pool4 p = new Pool4(config, ports);
        List<TransportAddress> firsts = new ArrayList<>();
        for (int s = 1; s <= 40; s++) {
            firsts.add(get(p.allocate(Protocol.UDP, host(s), 5000, 0)));
        }
        Map<Ipv4Address, Long> perAddress = firsts.stream()
                .collect(Collectors.groupingBy(TransportAddress::address, Collectors.counting()));
        assertEquals(Set.of(10L), Set.copyOf(perAddress.values()), "the least used address first: " + perAddress);
        assertEquals(1, ports.listings, "the blocks held are counted once, then kept up");
        int held = ports.heldChecks;
        get(p.allocate(Protocol.UDP, host(41), 5000, 0));
        assertTrue(ports.heldChecks - held <= 10, "the 41st subscriber's first block starts after the blocks "
                + "held, not at the address's first block: " + (ports.heldChecks - held) + " checks");

        // Another controller instance on the same store opens two blocks, on the addresses it sees
        // least used; this one counts them at its next expiry, and its next first block goes to the
        // one address left with the fewest.
        Pool4 other = new Pool4(config, new CountingPorts(shared));
        get(other.allocate(Protocol.UDP, host(100), 5000, 0));
        get(other.allocate(Protocol.UDP, host(101), 5000, 0));
        assertEquals(List.of(), p.expire(0), "every block has a port in use");
        Map<Ipv4Address, Long> now = shared.blocks().stream()
                .collect(Collectors.groupingBy(PortBlock::address, Collectors.counting()));
        long min = now.values().stream().mapToLong(Long::longValue).min().orElseThrow();
        List<Ipv4Address> fewest = now.keySet().stream().filter(a -> now.get(a) == min).collect(Collectors.toList());
        assertEquals(1, fewest.size(), "one address has the fewest blocks: " + now);
        assertEquals(fewest.get(0), get(p.allocate(Protocol.UDP, host(200), 5000, 0)).address(),
                "blocks held: " + now);
    }

    @Test
    void aSubscriberPairedWithAnAddressNoLongerInPool4KeepsItsAddress() {
        InMemoryNatStore store = new InMemoryNatStore();
        Pool4 before = new Pool4(pool("192.0.2.1/32").blockSize(4).build(), store);
        for (int i = 0; i < 4; i++) {
            get(before.allocate(Protocol.UDP, host(1), 3000 + i, 0));   // its first block, full
        }
        Pool4 renumbered = new Pool4(pool("198.51.100.0/30").blockSize(4).build(), store);
        assertEquals("198.51.100.0", get(renumbered.allocate(Protocol.UDP, host(2), 3000, 0)).address().toString());
        assertEquals("192.0.2.1", get(renumbered.allocate(Protocol.UDP, host(1), 3010, 0)).address().toString(),
                "paired pooling: a second block on the address it has");
    }

    @Test
    void aBlockAnotherInstanceGaveBackIsFoundBeforeThePoolIsCalledExhausted() {
        InMemoryNatStore shared = new InMemoryNatStore();
        Pool4Config config = pool("192.0.2.1/32").ports(Protocol.UDP, 1024, 1039).blockSize(4).build();
        Pool4 p = new Pool4(config, shared);
        Pool4 other = new Pool4(config, shared);
        TransportAddress others = get(other.allocate(Protocol.UDP, host(1), 1030, 0));
        for (int s = 2; s <= 4; s++) {
            get(p.allocate(Protocol.UDP, host(s), 1030, 0));   // the other three blocks
        }
        assertEquals(Optional.of(Pool4.Refusal.EXHAUSTED), p.allocate(Protocol.UDP, host(5), 1030, 0).refusal());
        other.release(Protocol.UDP, others, 0);
        assertEquals(1, other.expire(config.holdMillis).size());
        long later = config.holdMillis + Pool4.REFUSAL_STANDS_MILLIS;
        assertEquals(others.port() / 4, get(p.allocate(Protocol.UDP, host(6), 1030, later)).port() / 4,
                "the block given back, found by this instance before its next expiry");
    }

    @Test
    void whileItsLastBlockHasPortsASubscriberGetsThemWithoutItsBlocksListed() {
        CountingPorts ports = new CountingPorts();
        Pool4 p = new Pool4(pool("192.0.2.1/32").ports(Protocol.UDP, 1024, 65535).blockSize(64).build(), ports);
        Set<TransportAddress> given = new HashSet<>();
        given.add(get(p.allocate(Protocol.UDP, host(1), 50000, 0)));   // its first block
        int listings = ports.subscriberListings;
        for (int i = 1; i < 32; i++) {   // the other even ports of that block of 64
            given.add(get(p.allocate(Protocol.UDP, host(1), 50000 + 2 * i, 0)));
        }
        assertEquals(32, given.size());
        assertEquals(listings, ports.subscriberListings, "31 ports of the last block, without listing the blocks");
        get(p.allocate(Protocol.UDP, host(1), 50000, 0));   // its block has no even port left: a second block
        assertTrue(ports.subscriberListings > listings, "the blocks are listed when the last one has no port");
        assertEquals(2, p.blocksOf(host(1)).size());
    }

    @Test
    void theBlockOfTheLastPortIsNotUsedOnceAnotherInstanceGaveItToAnotherSubscriber() {
        InMemoryNatStore shared = new InMemoryNatStore();
        Pool4Config config = pool("192.0.2.1/32").ports(Protocol.UDP, 1024, 1027).blockSize(4).build();   // one block
        Pool4 p = new Pool4(config, shared);
        Pool4 other = new Pool4(config, shared);
        TransportAddress first = get(p.allocate(Protocol.UDP, host(1), 1030, 0));
        other.release(Protocol.UDP, first, 0);   // the mapping ended, as seen by the other instance
        assertEquals(1, other.expire(config.holdMillis).size());
        long later = config.holdMillis + Pool4.REFUSAL_STANDS_MILLIS;
        TransportAddress second = get(other.allocate(Protocol.UDP, host(2), 1030, later));
        assertEquals(first.port() / 4, second.port() / 4, "host 2 holds the pool's only block now");
        assertEquals(Optional.of(Pool4.Refusal.EXHAUSTED), p.allocate(Protocol.UDP, host(1), 1030, later).refusal(),
                "host 1's last block is host 2's now: no port of it for host 1");
    }

    @Test
    void aSubscriberAtItsLimitIsRefusedForASecondWithoutSearchingAgain() {
        CountingPorts ports = new CountingPorts();
        Pool4 p = new Pool4(pool("192.0.2.1/32").blockSize(64).blocksPerSubscriber(4).build(), ports);
        List<TransportAddress> given = new ArrayList<>();
        for (int i = 0; i < 256; i++) {
            given.add(get(p.allocate(Protocol.UDP, host(1), 3000 + i, 0)));
        }
        int before = ports.probes;
        assertEquals(Optional.of(Pool4.Refusal.SUBSCRIBER_LIMIT), p.allocate(Protocol.UDP, host(1), 4000, 0).refusal());
        assertTrue(ports.probes - before >= 256, "the first refusal searched every port: " + (ports.probes - before));
        before = ports.probes;
        for (int i = 0; i < 1000; i++) {
            assertEquals(Optional.of(Pool4.Refusal.SUBSCRIBER_LIMIT),
                    p.allocate(Protocol.UDP, host(1), 4001 + i, 999).refusal());
        }
        assertEquals(before, ports.probes, "no port probed while the refusal stands");
        get(p.allocate(Protocol.UDP, host(2), 3000, 999));   // another subscriber is not affected
        before = ports.probes;
        assertEquals(Optional.of(Pool4.Refusal.SUBSCRIBER_LIMIT), p.allocate(Protocol.UDP, host(1), 5000, 1000).refusal());
        assertEquals(before, ports.probes,
                "a second later still no port probed: all are in use, and none can be free before a release and its rest");
        p.release(Protocol.UDP, given.get(100), 1000);
        before = ports.probes;
        assertEquals(Optional.of(Pool4.Refusal.SUBSCRIBER_LIMIT), p.allocate(Protocol.UDP, host(1), 5002, 2000).refusal());
        assertEquals(before, ports.probes, "the released port rests: still nothing to search");
        assertEquals(Optional.of(given.get(100)),
                p.allocate(Protocol.UDP, host(1), 3100, 1000 + Pool4Config.MIN_HOLD_MILLIS).address(),
                "the released port, once rested");
    }

    /**
     * When a subscriber's last block fills, the next setup searches that block and opens another;
     * the blocks it found full before are not searched again while no port in them can have come
     * free (each was in use, so the earliest is a release now plus the hold time), and they are
     * searched again once one can.
     */
    @Test
    void fullBlocksAreNotSearchedAgainUntilAPortInThemCanBeFree() {
        CountingPorts ports = new CountingPorts();
        Pool4 p = new Pool4(pool("192.0.2.1/32").blockSize(16).blocksPerSubscriber(8).build(), ports);
        for (int i = 0; i < 5 * 16; i++) {   // five full blocks, sources of both parities
            get(p.allocate(Protocol.UDP, host(1), 3000 + i, i));
        }
        assertEquals(5, p.blocksOf(host(1)).size());
        int before = ports.probes;
        get(p.allocate(Protocol.UDP, host(1), 4000, 100));
        assertEquals(6, p.blocksOf(host(1)).size());
        // the last full block's 8 even ports, then the first of the new block: not the 32 of the four before
        assertEquals(9, ports.probes - before, "probes of the setup that opened the sixth block");

        TransportAddress freed = get(p.allocate(Protocol.UDP, host(1), 4002, 200));
        PortBlock first = p.blocksOf(host(1)).stream().min(java.util.Comparator.comparingInt(PortBlock::first))
                .orElseThrow();
        TransportAddress inFirst = new TransportAddress(first.address(), first.first());
        p.release(Protocol.UDP, inFirst, 300);
        long free = 300 + Pool4Config.MIN_HOLD_MILLIS;
        for (int i = 0; i < 14; i++) {   // fill the sixth block, then the seventh and eighth, up to the limit
            get(p.allocate(Protocol.UDP, host(1), 5000 + 2 * i, 400 + i));
        }
        assertTrue(freed.port() != inFirst.port() || !freed.address().equals(inFirst.address()));
        // at the limit, once the released port has rested, a search finds it again
        int taken = 0;
        Pool4.Result r;
        do {
            r = p.allocate(Protocol.UDP, host(1), 6000 + 2 * taken, free);
            taken++;
        } while (r.address().isPresent() && !r.address().get().equals(inFirst) && taken < 100);
        assertEquals(Optional.of(inFirst), r.address(), "the port released in the first block, after its rest");
    }

    @Test
    void noSubscriberIsRefusedWhileOneOfItsBlocksHasAPortToGive() {
        CountingPorts ports = new CountingPorts();
        Pool4 p = new Pool4(pool("192.0.2.1/32").ports(Protocol.UDP, 1024, 1047).blockSize(4).blocksPerSubscriber(3)
                .build(), ports);
        java.util.Random r = new java.util.Random(5);
        List<List<TransportAddress>> held = List.of(new ArrayList<>(), new ArrayList<>());
        long now = 0;
        int refusalsChecked = 0;
        for (int step = 0; step < 5000; step++) {
            now += r.nextInt(400);
            int s = r.nextInt(2);
            List<TransportAddress> mine = held.get(s);
            if (!mine.isEmpty() && r.nextInt(3) == 0) {
                p.release(Protocol.UDP, mine.remove(r.nextInt(mine.size())), now);
                continue;
            }
            int probesBefore = ports.probes;
            Pool4.Result result = p.allocate(Protocol.UDP, host(s + 1), 1024 + r.nextInt(2000), now);
            if (result.address().isPresent()) {
                mine.add(result.address().get());
            } else if (ports.probes > probesBefore) {   // a search, not a refusal standing from the last second
                refusalsChecked++;
                for (PortBlock b : p.blocksOf(host(s + 1))) {
                    for (int port = b.first(); port <= b.last(); port++) {
                        assertTrue(ports.portBusy(Protocol.UDP, new TransportAddress(b.address(), port), now),
                                "refused at " + now + " ms while " + b.address() + ":" + port + " was free");
                    }
                }
            }
            if (step % 100 == 0) {
                p.expire(now);
            }
        }
        assertTrue(refusalsChecked > 20, "refusals that searched: " + refusalsChecked);
    }

    @Test
    void exhaustionRefusesCleanlyAndEvictsNothing() {
        Pool4 p = pool4(pool("192.0.2.1/32").ports(Protocol.UDP, 1024, 1031).blockSize(4).build());
        TransportAddress a = get(p.allocate(Protocol.UDP, host(1), 5000, 0));
        TransportAddress b = get(p.allocate(Protocol.UDP, host(2), 5000, 0));
        assertEquals(Optional.of(Pool4.Refusal.EXHAUSTED), p.allocate(Protocol.UDP, host(3), 5000, 0).refusal());
        p.release(Protocol.UDP, a, 0);
        assertEquals(Optional.of(Pool4.Refusal.EXHAUSTED), p.allocate(Protocol.UDP, host(3), 5000, 1).refusal(),
                "a released port rests: still nothing for a third subscriber");
        TransportAddress more = get(p.allocate(Protocol.UDP, host(2), 5002, 1));
        assertNotEquals(b, more, "b is still in use: nothing was evicted");
    }

    @Test
    void aFreedPortRestsFor120SecondsBeforeAnyoneGetsItAgain() {
        Pool4 p = pool4(pool("192.0.2.1/32").ports(Protocol.UDP, 1024, 1027).blockSize(4).blocksPerSubscriber(1)
                .build());
        List<TransportAddress> all = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            all.add(get(p.allocate(Protocol.UDP, host(1), 1024 + i, 0)));
        }
        p.release(Protocol.UDP, all.get(0), 1_000);
        assertTrue(p.allocate(Protocol.UDP, host(1), 1024, 120_999).refusal().isPresent(), "still resting");
        assertTrue(p.allocate(Protocol.UDP, host(1), 1024, 121_000).refusal().isPresent(),
                "the refusal stands for a second (REFUSAL_STANDS_MILLIS)");
        assertEquals(all.get(0), get(p.allocate(Protocol.UDP, host(1), 1024, 121_999)));
        for (TransportAddress t : all) {
            p.release(Protocol.UDP, t, 200_000);
        }
        assertEquals(List.of(), p.expire(319_999), "the block waits for its last resting port");
        assertEquals(1, p.expire(320_000).size());
        assertEquals(List.of(), p.blocksOf(host(1)));
        get(p.allocate(Protocol.UDP, host(2), 1024, 320_000));   // the block went back to the pool
    }

    @Test
    void staticEntriesReserveTheirPortUnlessAnotherSubscriberHoldsTheBlock() {
        Pool4 p = pool4(pool("192.0.2.1/32").blockSize(16).build());
        TransportAddress web = new TransportAddress(Ipv4Address.parse("192.0.2.1", "a"), 8080);
        Pool4.Result r = p.reserve(Protocol.TCP, web, host(1), 0);
        assertEquals(Optional.of(web), r.address());
        assertTrue(r.newBlock().isPresent(), "a new block is logged");
        assertEquals(Optional.of(Pool4.Refusal.TAKEN), p.reserve(Protocol.TCP, web, host(1), 0).refusal());
        TransportAddress next = new TransportAddress(web.address(), 8081);
        assertEquals(Optional.of(Pool4.Refusal.OTHER_SUBSCRIBER), p.reserve(Protocol.TCP, next, host(2), 0).refusal());
        assertEquals(Optional.of(next), p.reserve(Protocol.TCP, next, host(1), 0).address());
    }

    @Test
    void concurrentSetupsOnTwoControllerInstancesNeverShareATransportAddress() throws InterruptedException {
        Pool4Config config = pool("192.0.2.0/29").blockSize(64).blocksPerSubscriber(64).build();
        InMemoryNatStore shared = new InMemoryNatStore();
        Pool4[] instances = {new Pool4(config, shared), new Pool4(config, shared)};
        ConcurrentLinkedQueue<TransportAddress> got = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Pool4.Refusal> refused = new ConcurrentLinkedQueue<>();
        int threads = 8;
        int perThread = 3000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    Pool4.Result r = instances[i % 2].allocate(Protocol.TCP, host(id * 100 + i % 37), 1024 + i, 0);
                    r.address().ifPresent(got::add);
                    r.refusal().ifPresent(refused::add);
                }
            });
            workers.add(w);
            w.start();
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        Set<TransportAddress> unique = new HashSet<>(got);
        assertEquals(got.size(), unique.size(), "a transport address was handed out twice");
        assertEquals(threads * perThread, got.size() + refused.size());
        assertTrue(got.size() > threads * perThread / 2, "most setups succeed: " + got.size());
        Set<Pool4.Refusal> why = refused.stream().collect(Collectors.toSet());
        assertTrue(why.isEmpty() || why.equals(Set.of(Pool4.Refusal.SUBSCRIBER_LIMIT)) || why.contains(Pool4.Refusal.EXHAUSTED),
                why.toString());
    }

    @Test
    void deterministicMappingGivesEachSubscriberItsOwnComputableBlocks() {
        Pool4Config config = pool("192.0.2.0/29").blockSize(256).blocksPerSubscriber(4).subscriberPrefixLength(56)
                .deterministic(Ipv6Prefix.parse("2001:db8:100::/48", "d")).build();
        Pool4 p = pool4(config);
        Ipv6Address fifth = Ipv6Address.parse("2001:db8:100:500::1", "h");
        TransportAddress t = get(p.allocate(Protocol.UDP, fifth, 5000, 0));
        // subscriber 5, UDP 1024-65535 in 256-port blocks: 252 per address; its blocks are 20..23 after the first.
        assertEquals(Ipv4Address.parse("192.0.2.0", "a"), t.address());
        assertTrue(t.port() >= 6144 && t.port() <= 7167 && t.port() % 2 == 0, t.toString());
        assertEquals(p.deterministicBlocks(Protocol.UDP, p.subscriberOf(fifth)).subList(0, 1),
                p.blocksOf(p.subscriberOf(fifth)), "blocks open on demand, in their computed order");
        Set<String> ports = new HashSet<>();
        for (int s = 0; s < 256; s++) {
            Ipv6Address sub = Ipv6Address.of(0x20010db801000000L | (long) s << 8, 0);
            for (PortBlock b : p.deterministicBlocks(Protocol.UDP, sub)) {
                assertTrue(ports.add(b.address() + ":" + b.first()), "block given twice: " + b);
            }
        }
        assertEquals(Optional.of(Pool4.Refusal.NOT_A_SUBSCRIBER),
                p.allocate(Protocol.UDP, Ipv6Address.parse("2001:db8:200::1", "h"), 5000, 0).refusal());
        ConfigException tooSmall = assertThrows(ConfigException.class, () -> pool("192.0.2.0/30").blockSize(256)
                .blocksPerSubscriber(4).subscriberPrefixLength(56)
                .deterministic(Ipv6Prefix.parse("2001:db8:100::/48", "d")).build());
        assertEquals("pool4.deterministic", tooSmall.field());
    }

    @Test
    void badConfigurationNamesTheField() {
        ConfigException e = assertThrows(ConfigException.class, () -> pool("192.0.2.0/24").holdMillis(60_000).build());
        assertEquals("pool4.holdSeconds", e.field());
        e = assertThrows(ConfigException.class, () -> pool("192.0.2.0/24").blockSize(100).build());
        assertEquals("pool4.blockSize", e.field());
        e = assertThrows(ConfigException.class, () -> pool("192.0.2.0/24", "192.0.2.128/25").build());
        assertEquals("pool4.addresses[1]", e.field());
        e = assertThrows(ConfigException.class, () -> pool("192.0.2.0/24").ports(Protocol.TCP, 2000, 1000).build());
        assertEquals("pool4.tcpPorts", e.field());
        e = assertThrows(ConfigException.class, () -> pool().build());
        assertEquals("pool4.addresses", e.field());
    }
}
