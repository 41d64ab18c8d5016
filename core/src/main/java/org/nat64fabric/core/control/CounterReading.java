package org.nat64fabric.core.control;

import java.util.List;
import java.util.Map;

/**
 * A switch's data-plane counters read at one moment: every cell of its indirect counters, and per
 * table the sum of its entries' direct counters (only for tables small enough to read whole at
 * each poll: the session tables' traffic is in the program's translations counter).
 */
public final class CounterReading {
    /**
     * Direct counters of larger tables (the session tables, a million entries each) are not
     * polled: their traffic is in the program's translations counter. Routing tables (65 536) are.
     */
    public static final long MAX_POLLED_TABLE_SIZE = 65_536;

    /** One cell's packets and bytes (0 for a counter that counts only the other). */
    public static final class Cell {
        public final long packets;
        public final long bytes;

        public Cell(long packets, long bytes) {
            this.packets = packets;
            this.bytes = bytes;
        }
    }

    /** By counter name (the P4Info's), its cells by index. */
    public final Map<String, List<Cell>> counters;
    /** By table name (the P4Info's), the sum of its entries' direct counters. */
    public final Map<String, Cell> tableHits;

    public CounterReading(Map<String, List<Cell>> counters, Map<String, Cell> tableHits) {
        this.counters = Map.copyOf(counters);
        this.tableHits = Map.copyOf(tableHits);
    }
}
