package org.nat64fabric.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.app.FakeOnos.BORDER1;
import static org.nat64fabric.app.FakeOnos.BORDER2;
import static org.nat64fabric.app.FakeOnos.LEAF;
import static org.nat64fabric.app.FakeOnos.await;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.control.SwitchLink;
import org.nat64fabric.core.p4.Constants;
import org.nat64fabric.core.p4.P4InfoConstants;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.DefaultFlowEntry;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.pi.model.PiCounterId;
import org.onosproject.net.pi.runtime.PiCounterCell;
import org.onosproject.net.pi.runtime.PiCounterCellId;

/** The app's counter poll: indirect counters through P4Runtime, table hits from flow entries, into stats and metrics. */
class CountersTest {
    private FakeOnos onos;
    private Nat64Manager manager;

    @BeforeEach
    void setUp() throws Exception {
        onos = new FakeOnos();
        onos.available.addAll(List.of(LEAF, BORDER1, BORDER2));
        onos.mastered.addAll(List.of(LEAF, BORDER1, BORDER2));
        manager = onos.start();
        onos.pushNetcfg("{\"addresses\": [\"192.0.2.0/30\"]}");
        await("the switches programmed", () -> {
            try {
                return manager.devices().stream().allMatch(d -> d.connected);
            } catch (Nat64Service.NotConfigured e) {
                return false;
            }
        });
        onos.settle();
    }

    @AfterEach
    void tearDown() {
        manager.deactivate();
    }

    private static PiCounterCell cell(String counter, int index, long packets, long bytes) {
        return new PiCounterCell(PiCounterCellId.ofIndirect(PiCounterId.of(counter), index), packets, bytes);
    }

    /** Gives every flow entry of the device's table these packets and bytes, as ONOS's flow stats would. */
    private void count(DeviceId d, String table, long packets, long bytes) {
        for (FlowEntry f : onos.flowsOn(d, table)) {
            onos.flows.put(f.id(), new DefaultFlowEntry(f, FlowEntry.FlowEntryState.ADDED, 1, packets, bytes));
        }
    }

    @Test
    void indirectCountersAndTableHitsReachStatsAndMetrics() {
        int noRoute = Constants.DROP_REASONS.indexOf("no_route");
        onos.counterCells.put(LEAF, List.of(cell(P4InfoConstants.NAT64_INGRESS_DROPS, noRoute, 5, 0),
                cell(P4InfoConstants.NAT64_INGRESS_TRANSLATIONS, 0, 7, 700),
                cell(P4InfoConstants.NAT64_INGRESS_DROPS, 999, 9, 0)));   // beyond the counter: ignored
        onos.counterCells.put(BORDER1, List.of(cell(P4InfoConstants.NAT64_INGRESS_DROPS, noRoute, 2, 0)));
        int routes = onos.flowsOn(LEAF, P4InfoConstants.NAT64_INGRESS_IPV6_ROUTES).size();
        assertTrue(routes > 0, "the leaf holds IPv6 routes");
        count(LEAF, P4InfoConstants.NAT64_INGRESS_IPV6_ROUTES, 3, 300);

        manager.pollCounters();

        // One Read per switch, at its P4Runtime device_id, of the pipeline's indirect counters only.
        assertTrue(onos.counterReads.contains("device:leaf1 1 Nat64Ingress.drops,Nat64Ingress.translations"),
                onos.counterReads.toString());
        assertEquals(3, onos.counterReads.size(), onos.counterReads.toString());
        Map<String, Long> stats = manager.stats();
        assertEquals(5L, stats.get("dataplane.device:leaf1.drops.no_route"));
        assertEquals(7L, stats.get("dataplane.fabric.drops.no_route"), "the fabric's sum");
        assertEquals(7L, stats.get("dataplane.device:leaf1.translations.6to4_stateful"));
        assertEquals(700L, stats.get("dataplane.device:leaf1.translations.6to4_stateful.bytes"));
        assertEquals(3L * routes, stats.get("dataplane.device:leaf1.tableHits." + P4InfoConstants.NAT64_INGRESS_IPV6_ROUTES));
        assertFalse(stats.keySet().stream().anyMatch(k -> k.contains("session_v6")),
                "session tables are too large to sum at each poll: " + stats.keySet());
        String metrics = manager.metrics();
        assertTrue(metrics.contains("nat64fabric_dataplane_drops_packets_total{device=\"device:leaf1\",reason=\"no_route\"} 5"),
                metrics);
        assertTrue(metrics.contains("nat64fabric_dataplane_table_hits_bytes_total{device=\"device:leaf1\",table=\""
                + P4InfoConstants.NAT64_INGRESS_IPV6_ROUTES + "\"} " + 300L * routes), metrics);
    }

    @Test
    void theManagerPollsByItself() throws InterruptedException {
        onos.counterCells.put(BORDER2, List.of(cell(P4InfoConstants.NAT64_INGRESS_DROPS, 1, 6, 0)));
        long deadline = System.nanoTime() + 10_000_000_000L;   // the poll runs every 5 s
        while (!manager.stats().containsKey("dataplane.device:border2.drops.bad_checksum")
                && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(6L, manager.stats().get("dataplane.device:border2.drops.bad_checksum"));
        assertTrue(onos.counterReads.stream().anyMatch(r -> r.startsWith("device:border2 3 ")), onos.counterReads.toString());
    }

    @Test
    void aFailedReadIsCountedAndTheLastReadingStays() {
        onos.counterCells.put(LEAF, List.of(cell(P4InfoConstants.NAT64_INGRESS_DROPS, 0, 4, 0)));
        manager.pollCounters();
        onos.counterReadFails = true;
        manager.pollCounters();
        Map<String, Long> stats = manager.stats();
        assertEquals(3L, stats.get("counters.readFailed"), "each switch's failed read");
        assertEquals(4L, stats.get("dataplane.device:leaf1.drops.parser_error"));
    }

    @Test
    void theP4RuntimeDeviceIdComesFromTheManagementAddress() {
        DeviceId d = DeviceId.deviceId("device:s1");
        assertEquals(42L, P4RuntimeCounterCells.p4DeviceId(d, "grpc://10.0.0.1:50001?device_id=42"));
        assertEquals(7L, P4RuntimeCounterCells.p4DeviceId(d, "grpc://10.0.0.1:50001?x=1&device_id=7"));
        for (String bad : List.of("grpc://10.0.0.1:50001", "grpc://10.0.0.1:50001?device_id=x", "not a uri")) {
            SwitchLink.SwitchException e = assertThrows(SwitchLink.SwitchException.class,
                    () -> P4RuntimeCounterCells.p4DeviceId(d, bad));
            assertTrue(e.getMessage().startsWith("device:s1: "), e.getMessage());
        }
        assertThrows(SwitchLink.SwitchException.class, () -> P4RuntimeCounterCells.p4DeviceId(d, null));
    }
}
