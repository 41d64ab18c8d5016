package org.nat64fabric.softswitch.v1model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.softswitch.testutil.P4Programs.bytes;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.frontend.P4CompileException;
import org.nat64fabric.softswitch.p4info.ConstantsWriter;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.runtime.Entities;
import org.nat64fabric.softswitch.runtime.EntityException;
import org.nat64fabric.softswitch.runtime.NewerFields;
import org.nat64fabric.softswitch.sim.Sim;
import org.nat64fabric.softswitch.testutil.P4Programs;
import p4.config.v1.P4InfoOuterClass.MeterSpec;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.DirectMeterEntry;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.Index;
import p4.v1.P4RuntimeOuterClass.MeterConfig;
import p4.v1.P4RuntimeOuterClass.MeterEntry;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;

/** meter and direct_meter in a program, configured and read through P4Runtime entities. */
class MeterTest {
    @TempDir
    Path dir;

    /** The packet carries the meter index in 'key'; ingress writes the colours into it. */
    private static final String HEADERS = String.join("\n",
            "header rec_t { bit<8> key; bit<8> color; bit<8> direct_color; bit<8> byte_color; }",
            "struct headers_t { rec_t rec; }",
            "struct meta_t { bit<8> unused; }");
    private static final String DECLS = String.join("\n",
            "meter(4, MeterType.packets) pkt_meter;",
            "meter(2, MeterType.bytes) byte_meter;",
            "direct_meter<bit<8>>(MeterType.packets) by_key;",
            "action metered() { by_key.read(hdr.rec.direct_color); }",
            "table keyed { key = { hdr.rec.key: exact; } actions = { metered; NoAction; } meters = by_key; }");
    private static final String APPLY = String.join("\n",
            "sm.egress_spec = 1;",
            "pkt_meter.execute_meter((bit<32>) hdr.rec.key, hdr.rec.color);",
            "byte_meter.execute_meter((bit<32>) hdr.rec.key, hdr.rec.byte_color);",
            "hdr.rec.direct_color = 9;",
            "keyed.apply();");

    private Program program;
    private V1ModelSwitch sw;
    private P4Info info;
    private Entities entities;

    @BeforeEach
    void setUp() {
        program = P4Programs.compile(dir, P4Programs.v1(HEADERS, "state start { pkt.extract(hdr.rec); transition accept; }",
                DECLS, APPLY, "", "pkt.emit(hdr.rec);"));
        sw = new V1ModelSwitch(program);
        info = P4InfoBuilder.build(program);
        entities = new Entities(sw, info);
    }

    private int id(String name) {
        for (var m : info.getMetersList()) {
            if (m.getPreamble().getName().equals(name)) {
                return m.getPreamble().getId();
            }
        }
        for (var t : info.getTablesList()) {
            if (t.getPreamble().getName().equals(name)) {
                return t.getPreamble().getId();
            }
        }
        for (var a : info.getActionsList()) {
            if (a.getPreamble().getName().equals(name)) {
                return a.getPreamble().getId();
            }
        }
        throw new AssertionError("no " + name);
    }

    /** Colours (packet meter, direct meter, byte meter) of packets with the given key. */
    private List<String> send(int key, int count) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] data = sw.process(0, bytes(String.format("%02x000000", key) + "00".repeat(96))).get(0).data;
            out.add(data[1] + "/" + data[2] + "/" + data[3]);
        }
        return out;
    }

    private static MeterConfig config(long cir, long cburst, long pir, long pburst) {
        return MeterConfig.newBuilder().setCir(cir).setCburst(cburst).setPir(pir).setPburst(pburst).build();
    }

    private void write(Update.Type type, Entity e) throws EntityException {
        entities.apply(type, e);
    }

    private Entity meterEntry(String meter, int index, MeterConfig config) {
        MeterEntry.Builder b = MeterEntry.newBuilder().setMeterId(id(meter)).setIndex(Index.newBuilder().setIndex(index));
        if (config != null) {
            b.setConfig(config);
        }
        return Entity.newBuilder().setMeterEntry(b).build();
    }

    private TableEntry keyedEntry(int key) {
        TableEntry.Builder b = TableEntry.newBuilder().setTableId(id("I.keyed"));
        b.addMatchBuilder().setFieldId(1).getExactBuilder().setValue(Entities.bytes(BigInteger.valueOf(key)));
        b.getActionBuilder().getActionBuilder().setActionId(id("I.metered"));
        return b.build();
    }

    @Test
    void p4InfoListsMetersWithTheirUnitsAndTheDirectMeterOfItsTable() {
        assertEquals(2, info.getMetersCount());
        var pkt = info.getMetersList().stream().filter(m -> m.getPreamble().getName().equals("I.pkt_meter")).findFirst().orElseThrow();
        assertEquals(MeterSpec.Unit.PACKETS, pkt.getSpec().getUnit());
        assertEquals(4, pkt.getSize());
        var bytesMeter = info.getMetersList().stream().filter(m -> m.getPreamble().getName().equals("I.byte_meter")).findFirst().orElseThrow();
        assertEquals(MeterSpec.Unit.BYTES, bytesMeter.getSpec().getUnit());
        assertEquals(1, info.getDirectMetersCount());
        var dm = info.getDirectMeters(0);
        assertEquals("I.by_key", dm.getPreamble().getName());
        assertEquals(id("I.keyed"), dm.getDirectTableId());
        assertEquals(0x15, dm.getPreamble().getId() >>> 24, "direct meter ID prefix");
        assertEquals(0x14, pkt.getPreamble().getId() >>> 24, "meter ID prefix");
        assertTrue(info.getTablesList().stream().filter(t -> t.getPreamble().getName().equals("I.keyed")).findFirst()
                .orElseThrow().getDirectResourceIdsList().contains(dm.getPreamble().getId()));
    }

    @Test
    void generatedConstantsNameTheMeters() {
        String java = ConstantsWriter.write(info, "x.Names", "prog.p4");
        assertTrue(java.contains("public static final String I_PKT_METER = \"I.pkt_meter\";"), java);
        assertTrue(java.contains("public static final String I_BY_KEY = \"I.by_key\";"), java);
    }

    @Test
    void unconfiguredMetersMarkEverythingGreen() {
        assertEquals(List.of("0/9/0", "0/9/0", "0/9/0"), send(1, 3));
    }

    @Test
    void aConfiguredPacketMeterMarksByTrTcmAndOnlyItsIndex() throws Exception {
        // 1 packet/s: within this test no token comes back. CBS 2, PBS 3: G G Y R R.
        write(Update.Type.MODIFY, meterEntry("I.pkt_meter", 2, config(1, 2, 1, 3)));
        assertEquals(List.of("0/9/0", "0/9/0", "1/9/0", "2/9/0", "2/9/0"), send(2, 5));
        assertEquals(List.of("0/9/0"), send(3, 1), "another index is not metered");
        // The configuration reads back; a MeterEntry without config resets the cell.
        List<Entity> read = entities.read(meterEntry("I.pkt_meter", 2, null));
        assertEquals(config(1, 2, 1, 3), read.get(0).getMeterEntry().getConfig());
        write(Update.Type.MODIFY, meterEntry("I.pkt_meter", 2, null));
        assertFalse(entities.read(meterEntry("I.pkt_meter", 2, null)).get(0).getMeterEntry().hasConfig());
        assertEquals(List.of("0/9/0", "0/9/0", "0/9/0", "0/9/0"), send(2, 4));
    }

    @Test
    void aByteMeterCountsThePacketLength() throws Exception {
        // Frames are 100 bytes: CBS 150 and PBS 250 pass one GREEN, one YELLOW, then RED.
        write(Update.Type.MODIFY, meterEntry("I.byte_meter", 1, config(1, 150, 1, 250)));
        assertEquals(List.of("0/9/0", "0/9/1", "0/9/2"), send(1, 3));
    }

    @Test
    void wildcardReadsEveryCellAndAWriteWithoutIndexConfiguresThemAll() throws Exception {
        write(Update.Type.MODIFY, Entity.newBuilder().setMeterEntry(MeterEntry.newBuilder().setMeterId(id("I.pkt_meter"))
                .setConfig(config(1, 1, 1, 1))).build());
        List<Entity> all = entities.read(Entity.newBuilder().setMeterEntry(MeterEntry.getDefaultInstance()).build());
        assertEquals(6, all.size(), "4 cells of pkt_meter and 2 of byte_meter");
        assertEquals(4, all.stream().filter(e -> e.getMeterEntry().hasConfig()).count());
        assertEquals(List.of("0/9/0", "2/9/0"), send(0, 2));
    }

    @Test
    void aDirectMeterMarksTheEntryItsTableHit() throws Exception {
        TableEntry e = keyedEntry(1);
        entities.apply(Update.Type.INSERT, Entity.newBuilder().setTableEntry(e).build());
        assertEquals(List.of("0/0/0", "0/0/0"), send(1, 2), "hit, no configuration: GREEN");
        DirectMeterEntry dm = DirectMeterEntry.newBuilder().setTableEntry(e.toBuilder().clearAction())
                .setConfig(config(1, 1, 1, 2)).build();
        write(Update.Type.MODIFY, Entity.newBuilder().setDirectMeterEntry(dm).build());
        assertEquals(List.of("0/0/0", "0/1/0", "0/2/0"), send(1, 3));
        assertEquals(List.of("0/9/0"), send(5, 1), "a miss runs no action");
        List<Entity> read = entities.read(Entity.newBuilder().setDirectMeterEntry(DirectMeterEntry.getDefaultInstance()).build());
        assertEquals(1, read.size());
        assertEquals(config(1, 1, 1, 2), read.get(0).getDirectMeterEntry().getConfig());
        assertEquals(e.getMatchList(), read.get(0).getDirectMeterEntry().getTableEntry().getMatchList());
    }

    @Test
    void theDefaultEntryHasADirectMeterLikeAnyEntry() throws Exception {
        TableEntry dflt = TableEntry.newBuilder().setTableId(id("I.keyed")).setIsDefaultAction(true).build();
        TableEntry metered = dflt.toBuilder().setAction(keyedEntry(0).getAction()).build();
        write(Update.Type.MODIFY, Entity.newBuilder().setTableEntry(metered.toBuilder().setMeterConfig(config(1, 1, 1, 2))).build());
        assertEquals(List.of("0/0/0", "0/1/0", "0/2/0"), send(5, 3), "misses metered by the default entry's meter (P4Runtime 9.1.5)");
        List<Entity> read = entities.read(Entity.newBuilder().setDirectMeterEntry(DirectMeterEntry.newBuilder().setTableEntry(dflt)).build());
        assertEquals(1, read.size());
        assertEquals(config(1, 1, 1, 2), read.get(0).getDirectMeterEntry().getConfig());
        assertEquals(dflt, read.get(0).getDirectMeterEntry().getTableEntry());
        assertEquals(config(1, 1, 1, 2), entities.read(Entity.newBuilder().setTableEntry(dflt.toBuilder()
                .setMeterConfig(MeterConfig.getDefaultInstance())).build()).get(0).getTableEntry().getMeterConfig());
        assertEquals(List.of(), entities.read(Entity.newBuilder().setDirectMeterEntry(DirectMeterEntry.newBuilder()
                .setTableEntry(TableEntry.newBuilder().setTableId(id("I.keyed")))).build()), "no regular entry is there");

        write(Update.Type.MODIFY, Entity.newBuilder().setDirectMeterEntry(DirectMeterEntry.newBuilder().setTableEntry(dflt)).build());
        assertEquals(List.of("0/0/0", "0/0/0"), send(5, 2), "a DirectMeterEntry without config resets it");
        write(Update.Type.MODIFY, Entity.newBuilder().setDirectMeterEntry(DirectMeterEntry.newBuilder().setTableEntry(dflt)
                .setConfig(config(1, 1, 1, 1))).build());
        write(Update.Type.MODIFY, Entity.newBuilder().setTableEntry(metered).build());
        assertEquals(List.of("0/0/0", "0/0/0"), send(5, 2), "a MODIFY without meter_config resets the meter, as for any entry");
        write(Update.Type.MODIFY, Entity.newBuilder().setTableEntry(metered.toBuilder().setMeterConfig(config(1, 1, 1, 1))).build());
        write(Update.Type.MODIFY, Entity.newBuilder().setTableEntry(dflt).build());
        assertEquals(List.of("0/9/0"), send(5, 1), "a reset: NoAction again");
        assertFalse(entities.read(Entity.newBuilder().setDirectMeterEntry(DirectMeterEntry.newBuilder().setTableEntry(dflt)).build())
                .get(0).getDirectMeterEntry().hasConfig(), "and the meter's configuration reset");
    }

    @Test
    void aConstDefaultEntrysMeterIsSetWithoutAnActionAndARollbackResetsIt() throws Exception {
        // keyed's default action runs its direct meter and is const; the table has no direct counter
        program = P4Programs.compile(dir, P4Programs.v1(HEADERS, "state start { pkt.extract(hdr.rec); transition accept; }",
                DECLS.replace("meters = by_key; }", "const default_action = metered(); meters = by_key; }"), APPLY, "",
                "pkt.emit(hdr.rec);"));
        sw = new V1ModelSwitch(program);
        info = P4InfoBuilder.build(program);
        entities = new Entities(sw, info);
        TableEntry dflt = TableEntry.newBuilder().setTableId(id("I.keyed")).setIsDefaultAction(true).build();
        Update set = Update.newBuilder().setType(Update.Type.MODIFY).setEntity(Entity.newBuilder()
                .setTableEntry(dflt.toBuilder().setMeterConfig(config(1, 1, 1, 1)))).build();
        List<Update> undo = entities.undoOf(set);
        write(set.getType(), set.getEntity());
        assertEquals(List.of("0/0/0", "0/2/0"), send(0, 2), "the const default entry's meter marks the misses");
        for (Update u : undo) {
            write(u.getType(), u.getEntity());
        }
        assertEquals(List.of("0/0/0", "0/0/0"), send(0, 2), "undone: unconfigured again, every packet GREEN");
        assertFalse(entities.read(Entity.newBuilder().setDirectMeterEntry(DirectMeterEntry.newBuilder().setTableEntry(dflt)).build())
                .get(0).getDirectMeterEntry().hasConfig());
    }

    @Test
    void aMeterWriteThatResetsItsCountsHasNoUndo() throws Exception {
        write(Update.Type.MODIFY, meterEntry("I.pkt_meter", 1, config(1, 1, 1, 2)));
        send(1, 3);
        Update reset = Update.newBuilder().setType(Update.Type.MODIFY).setEntity(Entity.newBuilder().setMeterEntry(
                NewerFields.withBytes(meterEntry("I.pkt_meter", 1, config(5, 5, 5, 5)).getMeterEntry().toBuilder(),
                        NewerFields.METER_ENTRY_COUNTER_DATA, NewerFields.meterCounterData(new long[6])))).build();
        // P4Runtime 12.2: the counts cannot be written back, so a batch that must be undoable refuses it
        assertEquals(EntityException.Code.UNIMPLEMENTED,
                assertThrows(EntityException.class, () -> entities.undoOf(reset)).code());
        Update configOnly = Update.newBuilder().setType(Update.Type.MODIFY)
                .setEntity(meterEntry("I.pkt_meter", 1, config(5, 5, 5, 5))).build();
        List<Update> undo = entities.undoOf(configOnly);
        write(configOnly.getType(), configOnly.getEntity());
        for (Update u : undo) {
            write(u.getType(), u.getEntity());
        }
        assertEquals(config(1, 1, 1, 2), entities.read(meterEntry("I.pkt_meter", 1, null)).get(0).getMeterEntry().getConfig());
    }

    @Test
    void theDefaultEntrysMeterCountsItsMissesByColour() throws Exception {
        TableEntry dflt = TableEntry.newBuilder().setTableId(id("I.keyed")).setIsDefaultAction(true).build();
        write(Update.Type.MODIFY, Entity.newBuilder().setTableEntry(dflt.toBuilder().setAction(keyedEntry(0).getAction())
                .setMeterConfig(config(1, 1, 1, 2))).build());
        send(5, 4);   // GREEN, YELLOW, RED, RED
        TableEntry asked = NewerFields.withBytes(dflt.toBuilder(), NewerFields.TABLE_ENTRY_METER_COUNTER_DATA,
                com.google.protobuf.ByteString.EMPTY).build();
        TableEntry read = entities.read(Entity.newBuilder().setTableEntry(asked).build()).get(0).getTableEntry();
        assertEquals(NewerFields.meterCounterData(new long[] {1, 100, 1, 100, 2, 200}),
                NewerFields.bytes(read, NewerFields.TABLE_ENTRY_METER_COUNTER_DATA), "P4Runtime 1.4 MeterCounterData");
        write(Update.Type.MODIFY, Entity.newBuilder().setTableEntry(NewerFields.withBytes(dflt.toBuilder(),
                NewerFields.TABLE_ENTRY_METER_COUNTER_DATA, NewerFields.meterCounterData(new long[6]))).build());
        read = entities.read(Entity.newBuilder().setTableEntry(asked).build()).get(0).getTableEntry();
        assertEquals(NewerFields.meterCounterData(new long[6]), NewerFields.bytes(read, NewerFields.TABLE_ENTRY_METER_COUNTER_DATA),
                "a write of zeros resets them");
        send(5, 1);   // GREEN again: the meter was reset by the MODIFY without meter_config
        assertEquals(EntityException.Code.INVALID_ARGUMENT, assertThrows(EntityException.class, () -> write(Update.Type.MODIFY,
                Entity.newBuilder().setTableEntry(NewerFields.withBytes(dflt.toBuilder(), NewerFields.TABLE_ENTRY_METER_COUNTER_DATA,
                        NewerFields.meterCounterData(new long[] {0, 0, 0, 0, 1, 0}))).build())).code(), "only zeros");
        read = entities.read(Entity.newBuilder().setTableEntry(asked).build()).get(0).getTableEntry();
        assertEquals(NewerFields.meterCounterData(new long[] {1, 100, 0, 0, 0, 0}),
                NewerFields.bytes(read, NewerFields.TABLE_ENTRY_METER_COUNTER_DATA), "the refused write changed nothing");
    }

    @Test
    void aTableEntryMayCarryItsDirectMeterConfiguration() throws Exception {
        TableEntry e = keyedEntry(4).toBuilder().setMeterConfig(config(1, 1, 1, 1)).build();
        entities.apply(Update.Type.INSERT, Entity.newBuilder().setTableEntry(e).build());
        assertEquals(List.of("0/0/0", "0/2/0"), send(4, 2));
        TableEntry query = TableEntry.newBuilder().setTableId(id("I.keyed")).setMeterConfig(MeterConfig.getDefaultInstance()).build();
        List<Entity> read = entities.read(Entity.newBuilder().setTableEntry(query).build());
        assertEquals(config(1, 1, 1, 1), read.get(0).getTableEntry().getMeterConfig());
    }

    @Test
    void simEntriesConfigureMeters() throws Exception {
        Path file = P4Programs.write(dir, "entries.txt", "entities { meter_entry { meter_id: " + id("I.pkt_meter")
                + " index { index: 2 } config { cir: 1 cburst: 1 pir: 1 pburst: 1 } } }\n");
        Sim.loadEntries(entities, file);
        assertEquals(List.of("0/9/0", "2/9/0"), send(2, 2));
    }

    @Test
    void badMeterWritesGetTheirP4RuntimeCodes() {
        EntityException e = assertThrows(EntityException.class,
                () -> write(Update.Type.MODIFY, meterEntry("I.pkt_meter", 4, config(1, 1, 1, 1))));
        assertEquals(EntityException.Code.OUT_OF_RANGE, e.code());
        e = assertThrows(EntityException.class, () -> entities.read(meterEntry("I.pkt_meter", 7, null)));
        assertEquals(EntityException.Code.OUT_OF_RANGE, e.code());
        e = assertThrows(EntityException.class,
                () -> write(Update.Type.INSERT, meterEntry("I.pkt_meter", 0, config(1, 1, 1, 1))));
        assertEquals(EntityException.Code.INVALID_ARGUMENT, e.code());
        e = assertThrows(EntityException.class, () -> write(Update.Type.DELETE, meterEntry("I.pkt_meter", 0, null)));
        assertEquals(EntityException.Code.INVALID_ARGUMENT, e.code());
        e = assertThrows(EntityException.class, () -> write(Update.Type.MODIFY,
                Entity.newBuilder().setMeterEntry(MeterEntry.newBuilder().setMeterId(0x14000001)).build()));
        assertEquals(EntityException.Code.NOT_FOUND, e.code());
        e = assertThrows(EntityException.class,
                () -> write(Update.Type.MODIFY, meterEntry("I.pkt_meter", 0, config(10, 1, 5, 1))));
        assertEquals(EntityException.Code.INVALID_ARGUMENT, e.code(), "PIR below CIR");
        DirectMeterEntry missing = DirectMeterEntry.newBuilder().setTableEntry(keyedEntry(3).toBuilder().clearAction())
                .setConfig(config(1, 1, 1, 1)).build();
        e = assertThrows(EntityException.class,
                () -> write(Update.Type.MODIFY, Entity.newBuilder().setDirectMeterEntry(missing).build()));
        assertEquals(EntityException.Code.NOT_FOUND, e.code());
    }

    @Test
    void meterDeclarationsAreChecked() {
        P4CompileException e = assertThrows(P4CompileException.class, () -> P4Programs.compile(dir, P4Programs.v1(HEADERS,
                "state start { pkt.extract(hdr.rec); transition accept; }", "meter(4) m;", "", "", "")));
        assertTrue(e.getMessage().contains("meter takes 2 arguments"), e.getMessage());
        e = assertThrows(P4CompileException.class, () -> P4Programs.compile(dir, P4Programs.v1(HEADERS,
                "state start { pkt.extract(hdr.rec); transition accept; }",
                "direct_counter(CounterType.packets) c; table t { key = { hdr.rec.key: exact; } actions = { NoAction; } meters = c; }",
                "t.apply();", "", "")));
        assertTrue(e.getMessage().contains("is not a direct_meter"), e.getMessage());
    }
}
