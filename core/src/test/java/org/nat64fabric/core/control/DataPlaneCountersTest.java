package org.nat64fabric.core.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DataPlaneCountersTest {
    private static CounterReading reading(long packets) {
        return new CounterReading(Map.of("my_counter", List.of(new CounterReading.Cell(packets, packets * 10))), Map.of());
    }

    @Test
    void theFabricsSumsKeepWhatARestartedSwitchCountedBeforeItsReset() {
        DataPlaneCounters c = new DataPlaneCounters();
        c.record("b1", reading(10), 0);
        c.record("b2", reading(5), 0);
        assertEquals(15L, c.stats().get("dataplane.fabric.my_counter.0"));
        c.record("b1", reading(3), 1_000_000_000L);   // b1 restarted: its counters start again
        Map<String, Long> after = c.stats();
        assertEquals(3L, after.get("dataplane.b1.my_counter.0"), "a switch's own counter shows its reset");
        assertEquals(18L, after.get("dataplane.fabric.my_counter.0"), "10 before the reset, 3 since, 5 of b2");
        assertEquals(3L, after.get("dataplane.b1.my_counter.0.perSecond"), "the rate counts from 0 after a reset");
        c.record("b1", reading(4), 2_000_000_000L);
        assertEquals(19L, c.stats().get("dataplane.fabric.my_counter.0"));
        c.record("b1", reading(0), 3_000_000_000L);   // restarted again, nothing counted yet
        assertEquals(19L, c.stats().get("dataplane.fabric.my_counter.0"), "never down");
    }

    @Test
    void aTablesHitsGoingDownIsAnEntryDeletedNotAReset() {
        DataPlaneCounters c = new DataPlaneCounters();
        c.record("b1", new CounterReading(Map.of(), Map.of("routes", new CounterReading.Cell(1010, 0))), 0);
        // the entry that had 10 hits was deleted: the others' 1000 are all the table's hits now
        c.record("b1", new CounterReading(Map.of(), Map.of("routes", new CounterReading.Cell(1000, 0))), 1_000_000_000L);
        assertEquals(1000L, c.stats().get("dataplane.fabric.tableHits.routes"));
    }
}
