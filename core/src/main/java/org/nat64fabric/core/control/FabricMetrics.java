package org.nat64fabric.core.control;

import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.nat64fabric.core.event.NatEvent;
import org.nat64fabric.core.metrics.LatencyHistogram;
import org.nat64fabric.core.metrics.PrometheusText;
import org.nat64fabric.core.p4.Constants;
import org.nat64fabric.core.pool4.Pool4Config;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.store.NatStore;

/** The controller's and the data plane's state as Prometheus metrics (GET .../metrics). */
final class FabricMetrics {
    private static final String P = "nat64fabric_";

    private FabricMetrics() {
    }

    static String write(Map<String, Long> counters, Map<Nat64Fabric.SetupStage, LatencyHistogram> latency, NatStore store,
                        Pool4Config pool4, List<Nat64Service.DeviceStatus> devices,
                        List<DataPlaneCounters.Value> dataPlane) {
        PrometheusText out = new PrometheusText();
        controllerCounters(out, counters);
        out.family(P + "setup_latency_seconds", "histogram", "Time from a packet-in to its packet-out, by stage"
                + " (queued, durable, written, sending; total)");
        latency.forEach((stage, h) -> out.histogram(P + "setup_latency_seconds", h,
                "stage", stage.name().toLowerCase(Locale.ROOT)));
        state(out, store, pool4);
        out.family(P + "switch_connected", "gauge", "1 when the switch is connected and programmed");
        out.family(P + "switch_entries", "gauge", "Entities the controller holds on the switch");
        for (Nat64Service.DeviceStatus d : devices) {
            out.sample(P + "switch_connected", d.connected ? 1 : 0, "device", d.deviceId, "role", d.role.name());
            out.sample(P + "switch_entries", d.entries, "device", d.deviceId);
        }
        List<DataPlaneCounters.Value> perSwitch = dataPlane.stream()
                .filter(v -> !v.device.equals(DataPlaneCounters.FABRIC))   // Prometheus sums over devices itself
                .sorted(Comparator.comparing((DataPlaneCounters.Value v) -> v.family).thenComparing(v -> v.device)
                        .thenComparing(v -> v.label))
                .collect(Collectors.toList());
        for (String unit : List.of("packets", "bytes")) {
            for (DataPlaneCounters.Value v : perSwitch) {
                boolean bytes = unit.equals("bytes");
                if (bytes && !v.family.equals("translations") && !v.family.equals("tableHits")) {
                    continue;   // the other counters count packets only
                }
                String name = P + "dataplane_" + snake(v.family) + "_" + unit + "_total";
                out.family(name, "counter", "Data-plane counter " + v.family + " (" + unit + ") by " + v.labelName
                        + ", as last polled from the switch");
                out.sample(name, bytes ? v.bytes : v.packets, "device", v.device, v.labelName, v.label);
            }
        }
        return out.toString();
    }

    /** The outcomes Nat64Fabric counts setups by ({@code setups.OUTCOME}). */
    private static final List<String> SETUP_OUTCOMES =
            List.of("translated", "refused", "dropped", "failed", "coalesced", "queueFull", "batches");

    /**
     * Packet-ins by punt reason, setups by outcome, NAT events by type (every one of these known
     * label values from the start, at 0 until it counts, so that a rate or an alert sees its
     * first event); the rest by name.
     */
    private static void controllerCounters(PrometheusText out, Map<String, Long> counted) {
        Map<String, Long> counters = new TreeMap<>(counted);
        for (int reason = 1; reason < Constants.PUNT_REASONS.size(); reason++) {   // 0: no punt
            counters.putIfAbsent("packetIn." + reason, 0L);
        }
        SETUP_OUTCOMES.forEach(o -> counters.putIfAbsent("setups." + o, 0L));
        for (NatEvent.Type t : NatEvent.Type.values()) {
            counters.putIfAbsent("events." + t, 0L);
        }
        out.family(P + "packet_ins_total", "counter", "Packet-ins taken by the controller, by punt reason");
        out.family(P + "setups_total", "counter", "Session setups and their batches, by outcome");
        out.family(P + "nat_events_total", "counter", "NAT events (RFC 8158) logged, by type");
        out.family(P + "ipfix_records_total", "counter", "NAT events exported as IPFIX records, by outcome"
                + " (exported; dropped: the queue was full; sendFailed)");
        out.family(P + "controller_events_total", "counter", "Other controller counters, by name");
        counters.forEach((key, value) -> {
            int dot = key.indexOf('.');
            String head = dot < 0 ? key : key.substring(0, dot);
            String tail = dot < 0 ? "" : key.substring(dot + 1);
            if (head.equals("packetIn") && tail.matches("\\d+")) {
                int reason = Integer.parseInt(tail);
                out.sample(P + "packet_ins_total", value, "reason",
                        reason < Constants.PUNT_REASONS.size() ? Constants.PUNT_REASONS.get(reason) : tail);
            } else if (head.equals("setups") && !tail.isEmpty()) {
                out.sample(P + "setups_total", value, "outcome", tail);
            } else if (head.equals("events") && !tail.isEmpty()) {
                out.sample(P + "nat_events_total", value, "type", tail);
            } else if (head.equals("ipfix") && !tail.isEmpty() && !tail.equals("messages")) {
                out.sample(P + "ipfix_records_total", value, "outcome", tail);
            } else {
                out.sample(P + "controller_events_total", value, "name", key);
            }
        });
    }

    /** BIB entries, sessions and port blocks by protocol; EAMT; pool4's ports in blocks and in all. */
    private static void state(PrometheusText out, NatStore store, Pool4Config pool4) {
        Map<Protocol, long[]> by = new EnumMap<>(Protocol.class);   // bib, sessions, blocks, ports in blocks
        store.counts().forEach((p, n) -> by.put(p, new long[] {n[0], n[1], 0, 0}));
        for (PortBlock b : store.blocks()) {
            long[] n = by.get(b.protocol());
            n[2]++;
            n[3] += b.last() - b.first() + 1;
        }
        long addresses = pool4.addresses().stream().mapToLong(prefix -> 1L << (32 - prefix.length())).sum();
        out.family(P + "bib_entries", "gauge", "BIB entries, by protocol");
        out.family(P + "sessions", "gauge", "Sessions, by protocol");
        out.family(P + "port_blocks", "gauge", "Port blocks held by subscribers, by protocol");
        out.family(P + "pool4_ports_in_blocks", "gauge", "pool4 ports in the blocks held, by protocol");
        out.family(P + "pool4_ports", "gauge", "pool4 ports in all (addresses times the protocol's range)");
        by.forEach((p, n) -> {
            String proto = p.name().toLowerCase(Locale.ROOT);
            int[] range = pool4.portRange(p);
            out.sample(P + "bib_entries", n[0], "protocol", proto)
                    .sample(P + "sessions", n[1], "protocol", proto)
                    .sample(P + "port_blocks", n[2], "protocol", proto)
                    .sample(P + "pool4_ports_in_blocks", n[3], "protocol", proto)
                    .sample(P + "pool4_ports", addresses * (range[1] - range[0] + 1), "protocol", proto);
        });
        out.family(P + "eamt_entries", "gauge", "Explicit address mappings (RFC 7757)");
        out.sample(P + "eamt_entries", store.eams().size());
    }

    /** camelCase → snake_case. */
    private static String snake(String name) {
        return name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").replaceAll("[^A-Za-z0-9_]", "_").toLowerCase(Locale.ROOT);
    }
}
