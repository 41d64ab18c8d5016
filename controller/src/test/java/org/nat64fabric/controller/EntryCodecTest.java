package org.nat64fabric.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.core.fabric.CloneSession;
import org.nat64fabric.core.fabric.Entity;
import org.nat64fabric.core.fabric.MeterConfig;
import org.nat64fabric.core.fabric.TableEntry;
import org.nat64fabric.core.p4.Constants;
import org.nat64fabric.core.p4.P4InfoConstants;
import p4.config.v1.P4InfoOuterClass.Meter;
import p4.config.v1.P4InfoOuterClass.MeterSpec;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.config.v1.P4InfoOuterClass.PkgInfo;
import p4.config.v1.P4InfoOuterClass.Preamble;
import p4.config.v1.P4InfoOuterClass.Table;
import p4.v1.P4RuntimeOuterClass;

/** Clone sessions and meter configurations to P4Runtime and back. */
class EntryCodecTest {
    private static final int PORT_METER_ID = 0x15000001;
    private static final EntryCodec WITH_METERS = new EntryCodec(P4Info.newBuilder()
            .addMeters(meter(PORT_METER_ID, P4InfoConstants.NAT64_INGRESS_PUNT_PORT_METER, 512))
            .addMeters(meter(0x15000002, P4InfoConstants.NAT64_INGRESS_PUNT_SOURCE_METER, 4096)).build());
    private static final MeterConfig PER_PORT = new MeterConfig(P4InfoConstants.NAT64_INGRESS_PUNT_PORT_METER, 20_000, 5_000, 20_000, 5_000);

    private static Meter meter(int id, String name, long size) {
        return Meter.newBuilder().setPreamble(Preamble.newBuilder().setId(id).setName(name))
                .setSpec(MeterSpec.newBuilder().setUnit(MeterSpec.Unit.PACKETS)).setSize(size).build();
    }

    @Test
    void aP4Runtime14P4InfoIsReadWithTheFieldsThe13ClassesLackLeftOut(@TempDir Path dir) throws Exception {
        // softswitch and p4c write P4Runtime 1.4's has_initial_entries, initial_default_action, sum_of_weights
        Path text = dir.resolve("p4info.txt");
        Files.writeString(text, "tables {\n  preamble {\n    id: 33554433\n    name: \"I.t\"\n  }\n  is_const_table: true\n"
                + "  has_initial_entries: true\n  initial_default_action {\n    action_id: 16777217\n    arguments {\n"
                + "      param_id: 1\n      value: \"\\001\"\n    }\n  }\n}\n"
                + "action_profiles {\n  with_selector: true\n  sum_of_weights {\n  }\n}\n");
        Table t = EntryCodec.load(text).p4info().getTables(0);
        assertEquals("I.t", t.getPreamble().getName());
        assertTrue(t.getIsConstTable());
        assertTrue(EntryCodec.load(text).p4info().getActionProfiles(0).getWithSelector());
        // also on one line, with a brace in its quoted bytes; a misspelt field is still refused
        assertEquals("tables { size: 8 }", EntryCodec.withoutInformativeP4Runtime14Fields(
                "tables { initial_default_action { action_id: 1 arguments { param_id: 1 value: \"{\\\"}\" } } size: 8 }")
                .replaceAll("\\s+", " "));
        Files.writeString(text, "tables {\n  has_initial_entrys: true\n}\n");
        assertThrows(com.google.protobuf.TextFormat.ParseException.class, () -> EntryCodec.load(text));
    }

    @Test
    void aMeterConfigIsWrittenToEveryCellAndReadBackAsOneWhenAllCellsAgree() {
        List<P4RuntimeOuterClass.Entity> cells = WITH_METERS.encode(PER_PORT);
        assertEquals(512, cells.size());
        for (int i = 0; i < cells.size(); i++) {
            P4RuntimeOuterClass.MeterEntry m = cells.get(i).getMeterEntry();
            assertEquals(PORT_METER_ID, m.getMeterId());
            assertEquals(i, m.getIndex().getIndex());
            assertEquals(List.of(20_000L, 5_000L, 20_000L, 5_000L), List.of(m.getConfig().getCir(),
                    m.getConfig().getCburst(), m.getConfig().getPir(), m.getConfig().getPburst()));
        }
        assertEquals(4096, WITH_METERS.encode(new MeterConfig(P4InfoConstants.NAT64_INGRESS_PUNT_SOURCE_METER, 1, 1, 1, 1)).size());
        assertEquals(List.of(PER_PORT), WITH_METERS.decode(cells));

        List<P4RuntimeOuterClass.Entity> oneDiffers = new ArrayList<>(cells);
        oneDiffers.set(7, cells.get(7).toBuilder().setMeterEntry(cells.get(7).getMeterEntry().toBuilder()
                .setConfig(cells.get(7).getMeterEntry().getConfig().toBuilder().setCir(1))).build());
        assertTrue(WITH_METERS.decode(oneDiffers).isEmpty(), "one cell off: the meter is written again");
        oneDiffers.set(7, cells.get(7).toBuilder().setMeterEntry(cells.get(7).getMeterEntry().toBuilder()
                .clearConfig()).build());
        assertTrue(WITH_METERS.decode(oneDiffers).isEmpty(), "one cell unconfigured: the meter is written again");
        assertTrue(WITH_METERS.decode(cells.subList(0, 511)).isEmpty(), "a cell missing from the read");
    }

    @Test
    void aPipelineWithoutTheMetersWritesAndReadsNoneOfThem() {
        EntryCodec without = new EntryCodec(P4Info.getDefaultInstance());
        assertTrue(without.unsupported(PER_PORT).isPresent());
        assertTrue(WITH_METERS.unsupported(PER_PORT).isEmpty());
        assertTrue(without.encode(PER_PORT).isEmpty());
        assertTrue(without.readRequest().stream().noneMatch(P4RuntimeOuterClass.Entity::hasMeterEntry));
        assertEquals(2, WITH_METERS.readRequest().stream().filter(P4RuntimeOuterClass.Entity::hasMeterEntry).count());
    }

    @Test
    void aSumePipelineHoldsNoCloneSessionsAndOnlyItsOwnTables() {
        EntryCodec sume = new EntryCodec(P4Info.newBuilder().setPkgInfo(PkgInfo.newBuilder().setArch("sume"))
                .addTables(Table.newBuilder().setPreamble(Preamble.newBuilder().setId(1).setName("Nat64Ingress.ipv4_routes")))
                .build());
        CloneSession cpu = new CloneSession(Constants.CPU_CLONE_SESSION, List.of(Constants.CPU_PORT));
        assertTrue(sume.unsupported(cpu).isPresent());
        assertTrue(WITH_METERS.unsupported(cpu).isEmpty(), "v1model replicates");
        assertTrue(sume.readRequest().stream().noneMatch(P4RuntimeOuterClass.Entity::hasPacketReplicationEngineEntry),
                "nor are clone sessions read from it");
        TableEntry.Builder route = TableEntry.in("Nat64Ingress.ipv4_routes").action("Nat64Ingress.no_route");
        assertTrue(sume.unsupported(route.build()).isEmpty());
        assertTrue(sume.unsupported(TableEntry.in("Nat64Ingress.punt_subscriber")
                .action("Nat64Ingress.set_subscriber_mask").build()).isPresent());
    }

    @Test
    void theCloneSessionRoundTrips() {
        CloneSession cpu = new CloneSession(Constants.CPU_CLONE_SESSION, List.of(Constants.CPU_PORT));
        List<P4RuntimeOuterClass.Entity> written = WITH_METERS.encode(cpu);
        P4RuntimeOuterClass.CloneSessionEntry c = written.get(0).getPacketReplicationEngineEntry().getCloneSessionEntry();
        assertEquals(99, c.getSessionId());
        assertEquals(255, c.getReplicas(0).getEgressPort());
        assertEquals(1, c.getReplicas(0).getInstance());
        List<Entity> back = WITH_METERS.decode(written);
        assertEquals(List.of(cpu), back);
        assertEquals(List.of(true), WITH_METERS.readRequest().stream().filter(e -> e.hasPacketReplicationEngineEntry())
                .map(e -> e.getPacketReplicationEngineEntry().hasCloneSessionEntry()).collect(Collectors.toList()));
    }
}
