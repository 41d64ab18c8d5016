package org.nat64fabric.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.Nat64Config;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.engine.Nat64Engine;
import org.nat64fabric.core.pool4.Pool4Config;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.pool6.Pool6;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.session.TcpState;
import org.nat64fabric.core.session.TcpStateMachine.Segment;
import org.onosproject.store.service.ConsistentMapBuilder;
import org.onosproject.store.service.TestStorageService;

class DistributedNatStoreTest {
    private static final Pool6 POOL6 = Pool6.parse("2001:db8:64::/96", "pool6");
    private static final Ipv6Address SERVER6 = POOL6.embed(Ipv4Address.parse("198.51.100.10", "s"));

    /** One cluster's storage: every instance that builds a map by a name gets the same map. */
    private static final class ClusterStorage extends TestStorageService {
        private final Map<String, Object> maps = new ConcurrentHashMap<>();

        @Override
        @SuppressWarnings("unchecked")
        public <K, V> ConsistentMapBuilder<K, V> consistentMapBuilder() {
            ConsistentMapBuilder<K, V> real = super.consistentMapBuilder();
            return new ConsistentMapBuilder<K, V>() {
                @Override
                public org.onosproject.store.service.AsyncConsistentMap<K, V> buildAsyncMap() {
                    return real.withName(name()).withSerializer(serializer()).buildAsyncMap();
                }

                @Override
                public org.onosproject.store.service.ConsistentMap<K, V> build() {
                    return (org.onosproject.store.service.ConsistentMap<K, V>) maps.computeIfAbsent(name(),
                            n -> real.withName(n).withSerializer(serializer()).build());
                }
            };
        }
    }

    private static Nat64Config config() {
        return Nat64Config.builder().pool6(POOL6).pool4(Pool4Config.builder()
                .addresses(List.of(Ipv4Prefix.parse("192.0.2.0/30", "pool4"))).blockSize(32).blocksPerSubscriber(64)
                .build()).build();
    }

    private static Ipv6Address host(int n) {
        return Ipv6Address.of(0x20010db800010000L, n);
    }

    @Test
    void everyStoredTypeSurvivesTheClusterSerializer() {
        BibEntry bib = new BibEntry(Protocol.TCP, host(1), 40000,
                new TransportAddress(Ipv4Address.parse("192.0.2.1", "a"), 2048), true);
        Session s = new Session(bib, new TransportAddress(Ipv4Address.parse("198.51.100.10", "r"), 80), SERVER6,
                TcpState.ESTABLISHED, 7440, 123);
        PortBlock block = new PortBlock(Protocol.UDP, Ipv4Address.parse("192.0.2.2", "a"), 1024, 1151, host(0));
        Eam eam = Eam.parse("2001:db8:1::e00/120", "203.0.113.0/24", "eam");
        for (Object o : List.of(bib, s, block, eam)) {
            assertEquals(o, DistributedNatStore.SERIALIZER.decode(DistributedNatStore.SERIALIZER.encode(o)));
        }
    }

    @Test
    void twoOnosInstancesSettingUpAtOnceNeverShareAnIpv4TransportAddress() throws InterruptedException {
        ClusterStorage cluster = new ClusterStorage();
        Nat64Engine[] instances = {new Nat64Engine(config(), new DistributedNatStore(cluster), e -> { }),
            new Nat64Engine(config(), new DistributedNatStore(cluster), e -> { })};
        CountDownLatch start = new CountDownLatch(1);
        List<Throwable> failed = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException ex) {
                    return;
                }
                try {
                    for (int i = 0; i < 300; i++) {
                        instances[id % 2].fromV6(Protocol.UDP, host(id / 2 * 1000 + i % 30), 1024 + i, SERVER6, 53,
                                Segment.OTHER, 0);
                    }
                } catch (RuntimeException ex) {
                    failed.add(ex);
                }
            });
            workers.add(w);
            w.start();
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertEquals(List.of(), failed, "no instance failed");
        List<BibEntry> bib = new DistributedNatStore(cluster).bib();
        Set<TransportAddress> v4 = new HashSet<>();
        for (BibEntry b : bib) {
            assertTrue(v4.add(b.v4()), "two flows share " + b.v4());
        }
        assertEquals(600, bib.size(), "one BIB entry per flow, whichever instance set it up");
    }

    @Test
    void aRestartedInstanceFindsEveryMapping() {
        ClusterStorage cluster = new ClusterStorage();
        Session before = new Nat64Engine(config(), new DistributedNatStore(cluster), e -> { })
                .fromV6(Protocol.UDP, host(1), 5000, SERVER6, 53, Segment.OTHER, 0).session().orElseThrow();
        Nat64Engine restarted = new Nat64Engine(config(), new DistributedNatStore(cluster), e -> { });
        assertEquals(before.bib(), restarted.fromV6(Protocol.UDP, host(1), 5000, SERVER6, 53, Segment.OTHER, 1)
                .session().orElseThrow().bib());
        assertEquals(1, restarted.store().sessions().size());
    }
}
