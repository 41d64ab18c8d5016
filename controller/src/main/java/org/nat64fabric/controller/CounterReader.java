package org.nat64fabric.controller;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.nat64fabric.core.control.CounterReading;
import p4.config.v1.P4InfoOuterClass.Counter;
import p4.config.v1.P4InfoOuterClass.DirectCounter;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.config.v1.P4InfoOuterClass.Table;
import p4.v1.P4RuntimeOuterClass.CounterData;
import p4.v1.P4RuntimeOuterClass.CounterEntry;
import p4.v1.P4RuntimeOuterClass.DirectCounterEntry;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.TableEntry;

/**
 * The P4Runtime Read of a pipeline's counters, and its answer as a {@link CounterReading}: every
 * indirect counter whole (a wildcard CounterEntry), and the direct counters of the tables small
 * enough to sum at each poll (a wildcard DirectCounterEntry per table).
 */
final class CounterReader {
    private final Map<Integer, Counter> counters = new HashMap<>();
    private final Map<Integer, String> tables = new HashMap<>();
    private final List<Entity> request = new ArrayList<>();

    CounterReader(P4Info info) {
        for (Counter c : info.getCountersList()) {
            counters.put(c.getPreamble().getId(), c);
            request.add(Entity.newBuilder().setCounterEntry(CounterEntry.newBuilder()
                    .setCounterId(c.getPreamble().getId())).build());
        }
        Map<Integer, Table> byId = new HashMap<>();
        info.getTablesList().forEach(t -> byId.put(t.getPreamble().getId(), t));
        for (DirectCounter c : info.getDirectCountersList()) {
            Table t = byId.get(c.getDirectTableId());
            if (t != null && t.getSize() <= CounterReading.MAX_POLLED_TABLE_SIZE) {
                tables.put(t.getPreamble().getId(), t.getPreamble().getName());
                request.add(Entity.newBuilder().setDirectCounterEntry(DirectCounterEntry.newBuilder()
                        .setTableEntry(TableEntry.newBuilder().setTableId(t.getPreamble().getId()))).build());
            }
        }
    }

    /** The Read's request; empty when the pipeline has no counters (a NetFPGA SUME). */
    Optional<ReadRequest> request(long deviceId) {
        return request.isEmpty() ? Optional.empty()
                : Optional.of(ReadRequest.newBuilder().setDeviceId(deviceId).addAllEntities(request).build());
    }

    CounterReading decode(List<Entity> read) {
        Map<String, List<CounterReading.Cell>> cells = new HashMap<>();
        counters.values().forEach(c -> cells.put(c.getPreamble().getName(),
                new ArrayList<>(Collections.nCopies((int) c.getSize(), new CounterReading.Cell(0, 0)))));
        Map<String, long[]> hits = new HashMap<>();
        tables.values().forEach(t -> hits.put(t, new long[2]));
        for (Entity e : read) {
            if (e.hasCounterEntry()) {
                Counter c = counters.get(e.getCounterEntry().getCounterId());
                long index = e.getCounterEntry().getIndex().getIndex();
                if (c != null && index >= 0 && index < c.getSize()) {
                    CounterData d = e.getCounterEntry().getData();
                    cells.get(c.getPreamble().getName()).set((int) index,
                            new CounterReading.Cell(d.getPacketCount(), d.getByteCount()));
                }
            } else if (e.hasDirectCounterEntry()) {
                String table = tables.get(e.getDirectCounterEntry().getTableEntry().getTableId());
                if (table != null) {
                    CounterData d = e.getDirectCounterEntry().getData();
                    long[] sum = hits.get(table);
                    sum[0] += d.getPacketCount();
                    sum[1] += d.getByteCount();
                }
            }
        }
        Map<String, CounterReading.Cell> tableHits = new HashMap<>();
        hits.forEach((t, sum) -> tableHits.put(t, new CounterReading.Cell(sum[0], sum[1])));
        return new CounterReading(cells, tableHits);
    }
}
