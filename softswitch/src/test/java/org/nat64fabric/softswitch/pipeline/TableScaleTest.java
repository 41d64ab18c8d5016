package org.nat64fabric.softswitch.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.frontend.Type;

/**
 * An exact table with 100 000 session-like keys (100 IPv6 hosts x 1000 ports: keys that differ in
 * few low bits of two fields) is filled, looked up and emptied in well under the time limit.
 * Before, such keys collided in a sum-of-31-multiples hash and deletes shifted an array list.
 */
class TableScaleTest {
    private static final int HOSTS = 100;
    private static final int PORTS = 1000;

    private static Table sessionTable() {
        Expr host = new Expr.Slot(new Type.Bits(128, false), 0, 128);
        Expr port = new Expr.Slot(new Type.Bits(16, false), 1, 16);
        Action snat = new Action("snat", Map.of(), List.of());
        return new Table("session", Map.of(), List.of(
                new Table.KeyField(1, "src_addr", Table.MatchKind.EXACT, 128, host, Map.of()),
                new Table.KeyField(2, "src_port", Table.MatchKind.EXACT, 16, port, Map.of())),
                List.of(new Table.ActionRef(snat, false, false, Map.of())), 1 << 20, true, false, false, false,
                null, 0, null, 0, new Table.ActionCall(snat, new BigInteger[0]));
    }

    private static Table.Entry entry(Table t, int host, int port) {
        BigInteger addr = BigInteger.valueOf(0x20010db8L).shiftLeft(96).add(BigInteger.valueOf(host));
        return new Table.Entry(new Table.FieldMatch[] {Table.FieldMatch.exact(addr, 128),
                Table.FieldMatch.exact(BigInteger.valueOf(1024 + port), 16)}, 0,
                t.defaultAction(), 0);
    }

    @Test
    void sessionLikeKeysSpreadOverDistinctHashes() {
        // Words as the table lays them out: protocol, address (two words), port.
        Set<Integer> hashes = new HashSet<>();
        for (int h = 0; h < HOSTS; h++) {
            for (int p = 0; p < PORTS; p++) {
                hashes.add(EntryIndex.hash(new long[] {17, 0x20010db800000000L, h, 1024 + p}));
            }
        }
        // A sum of 31-multiples gives 4 069 distinct values here (a host one up and a port
        // 31 down collide); random 32-bit hashes of 100 000 keys give all but about one.
        assertTrue(hashes.size() > HOSTS * PORTS * 99 / 100, hashes.size() + " distinct hashes");
    }

    @Test
    void oneHundredThousandSessionKeysInsertFindAndDeleteQuickly() {
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            Table t = sessionTable();
            for (int h = 0; h < HOSTS; h++) {
                for (int p = 0; p < PORTS; p++) {
                    t.insert(entry(t, h, p));
                }
            }
            assertEquals(HOSTS * PORTS, t.entryCount());
            assertEquals(HOSTS * PORTS, t.entries().size());
            Table.Entry probe = entry(t, 51, 742);
            Table.Entry found = t.find(probe);
            assertTrue(t.entries().contains(found));
            assertEquals(probe.match()[1].value, found.match()[1].value);
            assertEquals(probe.match()[0].value, found.match()[0].value);
            assertNull(t.find(entry(t, HOSTS, 0)));
            // Newest first: the deletes a list scanned from the oldest entry makes quadratic.
            for (int h = HOSTS - 1; h >= 0; h--) {
                for (int p = PORTS - 1; p >= 0; p--) {
                    t.remove(entry(t, h, p));
                }
            }
            assertEquals(0, t.entryCount());
        });
    }
}
