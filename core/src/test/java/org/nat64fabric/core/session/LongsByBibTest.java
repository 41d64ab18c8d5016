package org.nat64fabric.core.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.testing.Concurrently;

class LongsByBibTest {
    private static BibSide side(Random r, int hosts) {
        // few hosts and ports: keys that differ in one word only, and collide often in a small table
        return new BibSide(Protocol.values()[r.nextInt(3)], Ipv6Address.of(0x20010db800000000L, r.nextInt(hosts)),
                r.nextBoolean() ? 65535 : r.nextInt(40));
    }

    @Test
    void agreesWithAHashMapThroughGrowthAndRemovalsInEveryOrder() {
        Random r = new Random(5);
        LongsByBib table = new LongsByBib(2);
        Map<BibSide, long[]> model = new HashMap<>();
        for (int step = 0; step < 300_000; step++) {
            // first mostly puts (the segments double several times), then mostly removals (shifts back)
            boolean filling = step < 150_000;
            BibSide k = side(r, 600);
            int op = r.nextInt(10);
            if (op < (filling ? 6 : 2)) {
                long[] v = {r.nextLong(), step};
                assertArrayEquals(model.put(k, v), table.put(k, v), k + " at step " + step);
            } else if (op < 8) {
                assertArrayEquals(model.remove(k), table.remove(k), k + " at step " + step);
            } else if (op == 8) {
                long[] held = model.get(k);
                long[] v = {step, -step};
                assertTrue(table.replace(k, held, v), "replaced what it holds");
                model.put(k, v);
                assertFalse(table.replace(k, held, null), "not what it holds any more");
            } else {
                assertArrayEquals(model.get(k), table.get(k), k + " at step " + step);
            }
        }
        assertEquals(model.size(), table.size());
        model.forEach((k, v) -> assertArrayEquals(v, table.get(k), k.toString()));
        for (BibSide k : new ArrayList<>(model.keySet())) {
            assertArrayEquals(model.remove(k), table.remove(k));
        }
        assertEquals(0, table.size());
    }

    @Test
    void aValueOfTheWrongWidthIsRefused() {
        LongsByBib table = new LongsByBib(2);
        BibSide k = new BibSide(Protocol.UDP, Ipv6Address.of(1, 2), 3);
        assertThrows(IllegalArgumentException.class, () -> table.put(k, 1L));
        assertNull(table.get(k));
        assertThrows(IllegalArgumentException.class, () -> new LongsByBib(0));
    }

    @Test
    void threadsWritingTheirOwnKeysLoseNone() throws Exception {
        LongsByBib table = new LongsByBib(1);
        Concurrently.run(4, thread -> {
            for (int i = 0; i < 50_000; i++) {   // each keeps its even keys, drops its odd ones
                BibSide k = new BibSide(Protocol.TCP, Ipv6Address.of(thread, i), i & 0xffff);
                table.put(k, i);
                if (i % 2 == 1) {
                    table.remove(k);
                }
            }
        });
        assertEquals(100_000, table.size());
        for (int t = 0; t < 4; t++) {
            for (int i = 0; i < 50_000; i++) {
                long[] v = table.get(new BibSide(Protocol.TCP, Ipv6Address.of(t, i), i & 0xffff));
                if (i % 2 == 0) {
                    assertArrayEquals(new long[] {i}, v);
                } else {
                    assertNull(v);
                }
            }
        }
    }
}
