package org.nat64fabric.core.control;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.nat64fabric.core.p4.Constants;
import org.nat64fabric.core.p4.P4InfoConstants;

/**
 * The switches' data-plane counters as last polled, each with its rate since the poll before,
 * per switch and summed over the fabric. A switch's counters start again from 0 when it
 * restarts; the fabric's sums keep what they counted before, so they never go down. A counter cell is named by what it counts (the
 * program's constants, {@link Constants}): drops by reason, punts by reason, ICMP errors sent by
 * type, translations by direction and kind, hits per table; a counter of another program by its
 * P4 name and index.
 */
public final class DataPlaneCounters {
    /** The fabric-wide sums' device name. */
    public static final String FABRIC = "fabric";

    /** What a family's cells are, and what names them. */
    private static final class Family {
        final String name;
        final String label;
        final List<String> cells;

        Family(String name, String label, List<String> cells) {
            this.name = name;
            this.label = label;
            this.cells = cells;
        }
    }

    private static final Map<String, Family> FAMILIES = Map.of(
            P4InfoConstants.NAT64_INGRESS_DROPS, new Family("drops", "reason", Constants.DROP_REASONS),
            P4InfoConstants.NAT64_INGRESS_PUNTS, new Family("punts", "reason", Constants.PUNT_REASONS),
            P4InfoConstants.NAT64_INGRESS_ICMP_ERROR_SENT,
            new Family("icmpErrorsSent", "type", Constants.ICMP_ERRORS_SENT),
            P4InfoConstants.NAT64_INGRESS_TRANSLATIONS, new Family("translations", "kind", Constants.TRANSLATIONS));
    private static final String TABLE_HITS = "tableHits";

    /** One cell of one switch (or of the fabric), as last read. */
    public static final class Value {
        public final String device;
        /** drops, punts, icmpErrorsSent, translations, tableHits, or another counter's P4 name */
        public final String family;
        /** What names the cell: reason, type, kind, table or index. */
        public final String labelName;
        public final String label;
        public final long packets;
        public final long bytes;
        public final double packetsPerSecond;

        Value(String device, String family, String labelName, String label, long packets, long bytes,
              double packetsPerSecond) {
            this.device = device;
            this.family = family;
            this.labelName = labelName;
            this.label = label;
            this.packets = packets;
            this.bytes = bytes;
            this.packetsPerSecond = packetsPerSecond;
        }
    }

    /** A cell's place: family, label name, label. */
    private static final class Key {
        final String family;
        final String labelName;
        final String label;

        Key(String family, String labelName, String label) {
            this.family = family;
            this.labelName = labelName;
            this.label = label;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key && ((Key) o).family.equals(family) && ((Key) o).label.equals(label);
        }

        @Override
        public int hashCode() {
            return family.hashCode() * 31 + label.hashCode();
        }
    }

    private static final class Sample {
        final long nanos;
        final Map<Key, CounterReading.Cell> cells;

        Sample(long nanos, Map<Key, CounterReading.Cell> cells) {
            this.nanos = nanos;
            this.cells = cells;
        }
    }

    /** Per device: the last reading, then the one before (for rates). */
    private final Map<String, Sample[]> samples = new TreeMap<>();
    /**
     * Per device and cell, packets and bytes counted before the switch's counters were last reset
     * (it restarted): the fabric's sums carry them, so that they only grow, as counters do.
     */
    private final Map<String, Map<Key, long[]>> beforeResets = new HashMap<>();

    /** Records a reading of {@code device} taken at {@code nanos} (System.nanoTime). */
    public synchronized void record(String device, CounterReading reading, long nanos) {
        Map<Key, CounterReading.Cell> cells = new HashMap<>();
        reading.counters.forEach((counter, list) -> {
            Family f = FAMILIES.get(counter);
            for (int i = 0; i < list.size(); i++) {
                boolean named = f != null && i < f.cells.size();
                CounterReading.Cell c = list.get(i);
                if (named || c.packets != 0 || c.bytes != 0) {   // unnamed cells only once they count
                    cells.put(f == null ? new Key(counter, "index", Integer.toString(i))
                            : new Key(f.name, f.label, named ? f.cells.get(i) : Integer.toString(i)), c);
                }
            }
        });
        reading.tableHits.forEach((table, c) -> cells.put(new Key(TABLE_HITS, "table", table), c));
        Sample[] s = samples.computeIfAbsent(device, d -> new Sample[2]);
        if (s[0] != null) {
            Map<Key, long[]> carried = beforeResets.computeIfAbsent(device, d -> new HashMap<>());
            s[0].cells.forEach((k, last) -> {
                CounterReading.Cell now = cells.get(k);
                // a table's hits are its entries' counters summed: a deleted entry lowers them, no reset
                if (!k.family.equals(TABLE_HITS)
                        && (now == null || now.packets < last.packets || now.bytes < last.bytes)) {
                    long[] c = carried.computeIfAbsent(k, x -> new long[2]);
                    c[0] += last.packets;
                    c[1] += last.bytes;
                }
            });
        }
        s[1] = s[0];
        s[0] = new Sample(nanos, cells);
    }

    /** Every cell of every switch polled, then the fabric's sums (device {@link #FABRIC}). */
    public synchronized List<Value> values() {
        List<Value> out = new ArrayList<>();
        Map<Key, long[]> fabric = new TreeMap<>((a, b) -> a.family.equals(b.family)
                ? a.label.compareTo(b.label) : a.family.compareTo(b.family));
        Map<Key, double[]> fabricRates = new HashMap<>();
        samples.forEach((device, s) -> {
            double seconds = s[1] == null ? 0 : (s[0].nanos - s[1].nanos) / 1e9;
            s[0].cells.forEach((k, c) -> {
                CounterReading.Cell before = s[1] == null ? null : s[1].cells.get(k);
                // A counter that went down was reset (the switch restarted): its rate counts from 0.
                long delta = before == null || before.packets > c.packets ? c.packets : c.packets - before.packets;
                double rate = seconds > 0 ? delta / seconds : 0;
                out.add(new Value(device, k.family, k.labelName, k.label, c.packets, c.bytes, rate));
                long[] sum = fabric.computeIfAbsent(k, x -> new long[2]);
                sum[0] += c.packets;
                sum[1] += c.bytes;
                fabricRates.computeIfAbsent(k, x -> new double[1])[0] += rate;
            });
        });
        beforeResets.forEach((device, carried) -> carried.forEach((k, c) -> {
            long[] sum = fabric.computeIfAbsent(k, x -> new long[2]);
            sum[0] += c[0];
            sum[1] += c[1];
            fabricRates.computeIfAbsent(k, x -> new double[1]);
        }));
        fabric.forEach((k, sum) -> out.add(new Value(FABRIC, k.family, k.labelName, k.label, sum[0], sum[1],
                fabricRates.get(k)[0])));
        return out;
    }

    /**
     * The counters as REST's and the CLI's stats show them, cells that counted something only:
     * {@code dataplane.DEVICE.FAMILY.LABEL} (packets), with {@code .perSecond} (since the poll
     * before) and, for translations, {@code .bytes}.
     */
    public Map<String, Long> stats() {
        Map<String, Long> out = new TreeMap<>();
        for (Value v : values()) {
            if (v.packets == 0 && v.bytes == 0) {
                continue;
            }
            String key = "dataplane." + v.device + "." + v.family + "." + v.label;
            out.put(key, v.packets);
            out.put(key + ".perSecond", Math.round(v.packetsPerSecond));
            if (v.family.equals("translations")) {
                out.put(key + ".bytes", v.bytes);
            }
        }
        return out;
    }
}
