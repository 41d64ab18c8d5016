package org.nat64fabric.softswitch.runtime;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.function.Executable;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.testutil.P4Programs;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.CounterData;
import p4.v1.P4RuntimeOuterClass.DirectCounterEntry;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.PacketReplicationEngineEntry;
import p4.v1.P4RuntimeOuterClass.Replica;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;

/** The P4Runtime 1.4 specification's rows for entities (sections 9 and 11), one test per row. */
class EntitiesSpecTest {
    private static final String PROGRAM = P4Programs.v1(
            "header eth_t { bit<48> dst; bit<48> src; bit<16> type; }\n"
                    + "struct headers_t { eth_t eth; }\nstruct meta_t { }",
            "state start { pkt.extract(hdr.eth); transition accept; }",
            "direct_counter(CounterType.packets_and_bytes) fwd_counter;\n"
                    + "counter(8, CounterType.packets) hits;\n"
                    + "action drop() { mark_to_drop(sm); }\n"
                    + "action forward(bit<9> port) { sm.egress_spec = port; }\n"
                    + "action punt() { sm.egress_spec = 255; }\n"
                    + "table fwd {\n key = { hdr.eth.dst: exact; }\n actions = { forward; @defaultonly punt; @tableonly drop; }\n"
                    + " default_action = punt();\n counters = fwd_counter;\n support_timeout = true;\n size = 64;\n}\n"
                    + "table types {\n key = { hdr.eth.type: exact; }\n actions = { forward; drop; }\n"
                    + " const entries = { 0x0800 : forward(1); 0x86dd : forward(2); }\n default_action = drop();\n}\n"
                    + "table ranked {\n key = { hdr.eth.type: ternary; }\n actions = { forward; NoAction; }\n"
                    + " const entries = { 0x0800 &&& 0xffff : forward(3); _ : forward(4); }\n}\n"
                    + "table keyless {\n actions = { forward; drop; }\n default_action = drop();\n}\n"
                    + "direct_counter(CounterType.packets_and_bytes) fixed_counter;\n"
                    + "table fixed {\n key = { hdr.eth.src: exact; }\n actions = { forward; drop; }\n"
                    + " const entries = { 1 : forward(5); }\n const default_action = drop();\n counters = fixed_counter;\n}\n"
                    + "table acl {\n key = { hdr.eth.type: range; hdr.eth.src: ternary; hdr.eth.dst: optional; }\n"
                    + " actions = { forward; NoAction; }\n size = 16;\n}\n",
            "hits.count(0); fwd.apply(); types.apply(); ranked.apply(); keyless.apply(); acl.apply(); fixed.apply();",
            "", "pkt.emit(hdr.eth);");

    @TempDir
    Path dir;
    private P4Info info;
    private V1ModelSwitch sw;
    private Entities entities;

    @BeforeEach
    void setUp() {
        Program program = P4Programs.compile(dir, PROGRAM);
        info = P4InfoBuilder.build(program);
        sw = new V1ModelSwitch(program);
        entities = new Entities(sw, info);
    }

    private int table(String name) {
        return info.getTablesList().stream().filter(t -> t.getPreamble().getName().equals(name)).findFirst()
                .orElseThrow().getPreamble().getId();
    }

    private int action(String name) {
        return info.getActionsList().stream().filter(a -> a.getPreamble().getName().equals(name)).findFirst()
                .orElseThrow().getPreamble().getId();
    }

    private static ByteString bytes(long v) {
        return Entities.bytes(BigInteger.valueOf(v));
    }

    /** An entry of I.fwd for a MAC address; with {@code port} >= 0, its action is forward(port). */
    private TableEntry.Builder fwd(long mac, int port) {
        TableEntry.Builder b = TableEntry.newBuilder().setTableId(table("I.fwd"));
        b.addMatchBuilder().setFieldId(1).getExactBuilder().setValue(bytes(mac));
        if (port >= 0) {
            b.getActionBuilder().getActionBuilder().setActionId(action("I.forward"))
                    .addParamsBuilder().setParamId(1).setValue(bytes(port));
        }
        return b;
    }

    private void write(Update.Type type, TableEntry.Builder e) throws EntityException {
        entities.apply(type, Entity.newBuilder().setTableEntry(e).build());
    }

    private List<Entity> read(Entity.Builder query) throws EntityException {
        return entities.read(query.build());
    }

    private static EntityException.Code code(Executable write) {
        return assertThrows(EntityException.class, write).code();
    }

    @Test
    void wildcardReadsOfKindsTheProgramLacksAreEmptyAndTheirIdsNotFound() throws Exception {
        List<Entity.Builder> wildcards = List.of(
                Entity.newBuilder().setActionProfileMember(p4.v1.P4RuntimeOuterClass.ActionProfileMember.getDefaultInstance()),
                Entity.newBuilder().setActionProfileGroup(p4.v1.P4RuntimeOuterClass.ActionProfileGroup.getDefaultInstance()),
                Entity.newBuilder().setValueSetEntry(p4.v1.P4RuntimeOuterClass.ValueSetEntry.getDefaultInstance()),
                Entity.newBuilder().setDigestEntry(p4.v1.P4RuntimeOuterClass.DigestEntry.getDefaultInstance()),
                Entity.newBuilder().setExternEntry(p4.v1.P4RuntimeOuterClass.ExternEntry.getDefaultInstance()),
                Entity.newBuilder().setMeterEntry(p4.v1.P4RuntimeOuterClass.MeterEntry.getDefaultInstance()),
                Entity.newBuilder().setRegisterEntry(p4.v1.P4RuntimeOuterClass.RegisterEntry.getDefaultInstance()),
                Entity.newBuilder().setDirectMeterEntry(p4.v1.P4RuntimeOuterClass.DirectMeterEntry.getDefaultInstance()),
                Entity.newBuilder().setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                        .setMulticastGroupEntry(p4.v1.P4RuntimeOuterClass.MulticastGroupEntry.getDefaultInstance())),
                Entity.newBuilder().setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                        .setCloneSessionEntry(p4.v1.P4RuntimeOuterClass.CloneSessionEntry.getDefaultInstance())));
        for (Entity.Builder q : wildcards) {
            assertEquals(List.of(), read(q), q.getEntityCase() + " wildcard");
        }
        assertEquals(EntityException.Code.NOT_FOUND, code(() -> read(Entity.newBuilder().setActionProfileMember(
                p4.v1.P4RuntimeOuterClass.ActionProfileMember.newBuilder().setActionProfileId(0x11000001)))));
        assertEquals(EntityException.Code.NOT_FOUND, code(() -> read(Entity.newBuilder().setValueSetEntry(
                p4.v1.P4RuntimeOuterClass.ValueSetEntry.newBuilder().setValueSetId(0x03000001)))));
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> read(Entity.newBuilder())), "an empty Entity");
        assertEquals(EntityException.Code.NOT_FOUND, code(() -> entities.apply(Update.Type.INSERT, Entity.newBuilder()
                .setActionProfileMember(p4.v1.P4RuntimeOuterClass.ActionProfileMember.newBuilder()
                        .setActionProfileId(0x11000001).setMemberId(1)).build())));
    }

    @Test
    void modifyWithAnActionReplacesTheEntryAndWithoutOneLeavesIt() throws Exception {
        write(Update.Type.INSERT, fwd(0xa, 1).setIdleTimeoutNs(1_000_000_000L).setMetadata(ByteString.copyFromUtf8("m")));
        write(Update.Type.MODIFY, fwd(0xa, -1).setIdleTimeoutNs(0));
        TableEntry read = read(Entity.newBuilder().setTableEntry(fwd(0xa, -1))).get(0).getTableEntry();
        assertEquals(1_000_000_000L, read.getIdleTimeoutNs(), "P4Runtime 9.1.2: without an action or a direct "
                + "resource a MODIFY is a no-op");
        assertEquals(fwd(0xa, 1).getAction(), read.getAction(), "a MODIFY without an action keeps the action");
        assertEquals(ByteString.copyFromUtf8("m"), read.getMetadata());
        write(Update.Type.MODIFY, fwd(0xa, 2).setIdleTimeoutNs(5_000_000_000L));
        read = read(Entity.newBuilder().setTableEntry(fwd(0xa, -1))).get(0).getTableEntry();
        assertEquals(fwd(0xa, 2).getAction(), read.getAction());
        assertEquals(5_000_000_000L, read.getIdleTimeoutNs());
        assertEquals(ByteString.EMPTY, read.getMetadata(), "a MODIFY with an action is the entry's new snapshot");
        write(Update.Type.MODIFY, fwd(0xa, 3).setIdleTimeoutNs(0));
        read = read(Entity.newBuilder().setTableEntry(fwd(0xa, -1))).get(0).getTableEntry();
        assertEquals(0, read.getIdleTimeoutNs(), "MODIFY sets the idle timeout it carries, 0 included");
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.INSERT, fwd(0xb, -1))),
                "an INSERT needs an action");
    }

    @Test
    void theDefaultEntryTakesNoPriorityNorIdleTimeoutAndResetsWithoutAnAction() throws Exception {
        TableEntry.Builder dflt = TableEntry.newBuilder().setTableId(table("I.fwd")).setIsDefaultAction(true);
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.MODIFY, dflt.clone().setPriority(3))));
        assertEquals(EntityException.Code.INVALID_ARGUMENT,
                code(() -> write(Update.Type.MODIFY, dflt.clone().setIdleTimeoutNs(1000))));
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.MODIFY,
                dflt.clone().setTimeSinceLastHit(TableEntry.IdleTimeout.getDefaultInstance()))));
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.INSERT, dflt.clone())));
        TableEntry.Builder drop = dflt.clone();
        drop.getActionBuilder().getActionBuilder().setActionId(action("I.drop"));
        assertEquals(EntityException.Code.PERMISSION_DENIED, code(() -> write(Update.Type.MODIFY, drop)),
                "drop is @tableonly: not a default action");
        TableEntry.Builder forward = dflt.clone().setAction(fwd(0, 7).getAction());
        write(Update.Type.MODIFY, forward);
        assertEquals(action("I.forward"), defaultAction("I.fwd"));
        write(Update.Type.MODIFY, dflt.clone());
        assertEquals(action("I.punt"), defaultAction("I.fwd"), "MODIFY without an action: the program's default again");
    }

    private int defaultAction(String table) throws EntityException {
        return read(Entity.newBuilder().setTableEntry(TableEntry.newBuilder().setTableId(table(table)).setIsDefaultAction(true)))
                .get(0).getTableEntry().getAction().getAction().getActionId();
    }

    @Test
    void constEntriesReadWithPriorityZeroInExactTablesAndOrderedPrioritiesOtherwise() throws Exception {
        List<Entity> types = read(Entity.newBuilder().setTableEntry(TableEntry.newBuilder().setTableId(table("I.types"))));
        assertEquals(2, types.size());
        for (Entity e : types) {
            assertEquals(0, e.getTableEntry().getPriority(), "an exact table's entries have priority 0");
            assertEquals(1, NewerFields.varint(e.getTableEntry(), NewerFields.TABLE_ENTRY_IS_CONST), "is_const is set");
        }
        List<Entity> ranked = read(Entity.newBuilder().setTableEntry(TableEntry.newBuilder().setTableId(table("I.ranked"))));
        assertEquals(List.of(2, 1), ranked.stream().map(e -> e.getTableEntry().getPriority()).sorted((a, b) -> b - a).collect(java.util.stream.Collectors.toList()));
        TableEntry first = ranked.stream().filter(e -> e.getTableEntry().getPriority() == 2).findFirst().orElseThrow()
                .getTableEntry();
        assertEquals(1, first.getMatchCount(), "the first entry (0x0800) ranks highest, from 1 for the last");
        // A const entry is found by its key (priority 0 here) and may only see its direct resources modified.
        TableEntry key = types.get(0).getTableEntry().toBuilder().clearAction()
                .setUnknownFields(com.google.protobuf.UnknownFieldSet.getDefaultInstance()).build();
        assertEquals(1, read(Entity.newBuilder().setTableEntry(key)).size());
        entities.apply(Update.Type.MODIFY, Entity.newBuilder().setTableEntry(key).build());
        assertEquals(EntityException.Code.PERMISSION_DENIED, code(() -> entities.apply(Update.Type.MODIFY,
                Entity.newBuilder().setTableEntry(types.get(0).getTableEntry().toBuilder()
                        .setUnknownFields(com.google.protobuf.UnknownFieldSet.getDefaultInstance())).build())));
        assertEquals(EntityException.Code.PERMISSION_DENIED, code(() -> entities.apply(Update.Type.DELETE,
                Entity.newBuilder().setTableEntry(key).build())));
        for (TableEntry withMetadata : List.of(key.toBuilder().setMetadata(com.google.protobuf.ByteString.copyFromUtf8("m")).build(),
                key.toBuilder().setControllerMetadata(3).build())) {
            assertEquals(EntityException.Code.PERMISSION_DENIED, code(() -> entities.apply(Update.Type.MODIFY,
                    Entity.newBuilder().setTableEntry(withMetadata).build())), "9.1.6: a const entry's metadata is its own");
        }
    }

    @Test
    void aReadByMatchWithPriorityZeroFindsThatMatchAtEveryPriority() throws Exception {
        // 9.1.6 (wildcard reads): the match filters exactly; a priority of 0 does not filter
        TableEntry.Builder key = TableEntry.newBuilder().setTableId(table("I.acl"));
        key.addMatchBuilder().setFieldId(1).getRangeBuilder().setLow(bytes(0x0800)).setHigh(bytes(0x08ff));
        TableEntry.Builder other = key.clone();
        other.getMatchBuilder(0).getRangeBuilder().setHigh(bytes(0x0801));
        for (TableEntry.Builder e : List.of(key.clone().setPriority(5), key.clone().setPriority(9), other.clone().setPriority(5))) {
            e.getActionBuilder().getActionBuilder().setActionId(action("NoAction"));
            write(Update.Type.INSERT, e);
        }
        assertEquals(List.of(5, 9), read(Entity.newBuilder().setTableEntry(key.clone())).stream()
                .map(e -> e.getTableEntry().getPriority()).sorted().collect(java.util.stream.Collectors.toList()));
        assertEquals(List.of(9), read(Entity.newBuilder().setTableEntry(key.clone().setPriority(9))).stream()
                .map(e -> e.getTableEntry().getPriority()).collect(java.util.stream.Collectors.toList()));
        assertEquals(0, read(Entity.newBuilder().setTableEntry(key.clone().setPriority(7))).size());
        assertEquals(3, read(Entity.newBuilder().setTableEntry(TableEntry.newBuilder().setTableId(table("I.acl")))).size());
    }

    @Test
    void aConstEntryAmongMutableEntriesIsConstAndTheOthersAreNot() throws Exception {
        // P4_16 14.2.1.4: in 'entries' (not 'const entries') an entry marked const may not be modified
        // or removed by the control plane; the others may, and entries may be added
        Program program = P4Programs.compile(dir, P4Programs.v1(
                "header eth_t { bit<48> dst; bit<48> src; bit<16> type; }\nstruct headers_t { eth_t eth; }\nstruct meta_t { }",
                "state start { pkt.extract(hdr.eth); transition accept; }",
                "action forward(bit<9> port) { sm.egress_spec = port; }\n"
                        + "table mixed {\n key = { hdr.eth.type: exact; }\n actions = { forward; NoAction; }\n"
                        + " entries = { const 0x0800 : forward(6); 0x86dd : forward(7); }\n}\n",
                "mixed.apply();", "", "pkt.emit(hdr.eth);"));
        P4Info mixedInfo = P4InfoBuilder.build(program);
        Entities mixed = new Entities(new V1ModelSwitch(program), mixedInfo);
        int tid = mixedInfo.getTables(0).getPreamble().getId();
        int forward = mixedInfo.getActionsList().stream().filter(a -> a.getPreamble().getName().equals("I.forward"))
                .findFirst().orElseThrow().getPreamble().getId();
        java.util.function.Function<Long, TableEntry.Builder> entry = type -> TableEntry.newBuilder().setTableId(tid)
                .addMatch(p4.v1.P4RuntimeOuterClass.FieldMatch.newBuilder().setFieldId(1)
                        .setExact(p4.v1.P4RuntimeOuterClass.FieldMatch.Exact.newBuilder().setValue(bytes(type))));
        java.util.Map<Long, Long> isConst = new java.util.HashMap<>();
        for (Entity e : mixed.read(Entity.newBuilder().setTableEntry(TableEntry.newBuilder().setTableId(tid)).build())) {
            isConst.put(new BigInteger(1, e.getTableEntry().getMatch(0).getExact().getValue().toByteArray()).longValue(),
                    NewerFields.varint(e.getTableEntry(), NewerFields.TABLE_ENTRY_IS_CONST));
        }
        assertEquals(java.util.Map.of(0x0800L, 1L, 0x86ddL, 0L), isConst);
        Entity changed = Entity.newBuilder().setTableEntry(entry.apply(0x0800L).setAction(p4.v1.P4RuntimeOuterClass.TableAction
                .newBuilder().setAction(p4.v1.P4RuntimeOuterClass.Action.newBuilder().setActionId(forward)
                        .addParams(p4.v1.P4RuntimeOuterClass.Action.Param.newBuilder().setParamId(1).setValue(bytes(9)))))).build();
        assertEquals(EntityException.Code.PERMISSION_DENIED, code(() -> mixed.apply(Update.Type.MODIFY, changed)));
        assertEquals(EntityException.Code.PERMISSION_DENIED, code(() -> mixed.apply(Update.Type.DELETE,
                Entity.newBuilder().setTableEntry(entry.apply(0x0800L)).build())));
        mixed.apply(Update.Type.MODIFY, Entity.newBuilder().setTableEntry(entry.apply(0x0800L)).build());   // its counters only
        mixed.apply(Update.Type.MODIFY, changed.toBuilder().setTableEntry(changed.getTableEntry().toBuilder()
                .setMatch(0, entry.apply(0x86ddL).getMatch(0))).build());
        mixed.apply(Update.Type.DELETE, Entity.newBuilder().setTableEntry(entry.apply(0x86ddL)).build());
        mixed.apply(Update.Type.INSERT, changed.toBuilder().setTableEntry(changed.getTableEntry().toBuilder()
                .setMatch(0, entry.apply(0x0806L).getMatch(0))).build());
        assertEquals(2, mixed.read(Entity.newBuilder().setTableEntry(TableEntry.newBuilder().setTableId(tid)).build()).size());
    }

    @Test
    void writesTheSpecificationRefusesAreInvalidArguments() throws Exception {
        TableEntry.Builder keyless = TableEntry.newBuilder().setTableId(table("I.keyless"))
                .setAction(fwd(0, 1).getAction());
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.INSERT, keyless)),
                "a keyless table has only its default entry");
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.INSERT,
                fwd(0xc, 1).setTimeSinceLastHit(TableEntry.IdleTimeout.getDefaultInstance()))));
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.INSERT,
                NewerFields.withVarint(fwd(0xc, 1), NewerFields.TABLE_ENTRY_IS_CONST, 1))));
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.INSERT,
                fwd(0xc, 1).clearMatch())), "the exact field is missing");
        TableEntry.Builder punt = fwd(0xc, -1);
        punt.getActionBuilder().getActionBuilder().setActionId(action("I.punt"));
        assertEquals(EntityException.Code.PERMISSION_DENIED, code(() -> write(Update.Type.INSERT, punt)),
                "punt is @defaultonly");
        TableEntry.Builder unknownAction = fwd(0xc, -1);
        unknownAction.getActionBuilder().getActionBuilder().setActionId(0x01ffffff);
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.INSERT, unknownAction)));
        TableEntry.Builder member = fwd(0xc, -1);
        member.getActionBuilder().setActionProfileMemberId(1);
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.INSERT, member)),
                "an action profile member for a direct table");
        write(Update.Type.INSERT, fwd(0xc, 1));
        write(Update.Type.DELETE, fwd(0xc, -1).setIdleTimeoutNs(-5).setAction(unknownAction.getAction()));
        assertEquals(List.of(), read(Entity.newBuilder().setTableEntry(fwd(0xc, -1))), "DELETE looks at the key only");
    }

    @Test
    void counterDataSetsTheDirectCounterOnInsertAndModify() throws Exception {
        write(Update.Type.INSERT, fwd(0xd, 1).setCounterData(
                p4.v1.P4RuntimeOuterClass.CounterData.newBuilder().setPacketCount(5).setByteCount(500)));
        TableEntry q = fwd(0xd, -1).setCounterData(p4.v1.P4RuntimeOuterClass.CounterData.getDefaultInstance()).build();
        assertEquals(5, read(Entity.newBuilder().setTableEntry(q)).get(0).getTableEntry().getCounterData().getPacketCount());
        write(Update.Type.MODIFY, fwd(0xd, -1).setCounterData(p4.v1.P4RuntimeOuterClass.CounterData.getDefaultInstance()));
        assertEquals(0, read(Entity.newBuilder().setTableEntry(q)).get(0).getTableEntry().getCounterData().getPacketCount());
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> read(Entity.newBuilder().setCounterEntry(
                p4.v1.P4RuntimeOuterClass.CounterEntry.newBuilder().setCounterId(info.getCounters(0).getPreamble().getId())
                        .setIndex(p4.v1.P4RuntimeOuterClass.Index.newBuilder().setIndex(-1))))), "a negative index");
    }

    /** An Ethernet frame to a MAC address, of 60 bytes. */
    private static byte[] frameTo(long mac) {
        return P4Programs.bytes(String.format("%012x", mac) + "0000000000010800" + "00".repeat(46));
    }

    private static CounterData counts(long packets, long bytes) {
        return CounterData.newBuilder().setPacketCount(packets).setByteCount(bytes).build();
    }

    @Test
    void theDefaultEntryHasADirectCounterThatCountsMisses() throws Exception {
        write(Update.Type.INSERT, fwd(0xa, 1));
        sw.process(0, frameTo(0xa));
        sw.process(0, frameTo(0xb));
        sw.process(0, frameTo(0xc));
        TableEntry.Builder defaultEntry = TableEntry.newBuilder().setTableId(table("I.fwd")).setIsDefaultAction(true);
        assertEquals(counts(2, 120), read(Entity.newBuilder().setTableEntry(defaultEntry.clone()
                .setCounterData(CounterData.getDefaultInstance()))).get(0).getTableEntry().getCounterData(),
                "P4Runtime 9.1.5: the default entry is treated like a regular entry with regard to direct resources");
        List<Entity> direct = read(Entity.newBuilder().setDirectCounterEntry(DirectCounterEntry.newBuilder().setTableEntry(defaultEntry)));
        assertEquals(1, direct.size());
        assertEquals(counts(2, 120), direct.get(0).getDirectCounterEntry().getData());
        assertEquals(defaultEntry.build(), direct.get(0).getDirectCounterEntry().getTableEntry());
        List<Entity> wildcard = read(Entity.newBuilder().setDirectCounterEntry(DirectCounterEntry.newBuilder()
                .setTableEntry(TableEntry.newBuilder().setTableId(table("I.fwd")))));
        assertEquals(1, wildcard.size(), "without is_default_action a read names the regular entries only");
        assertEquals(counts(1, 60), wildcard.get(0).getDirectCounterEntry().getData());

        entities.apply(Update.Type.MODIFY, Entity.newBuilder().setDirectCounterEntry(DirectCounterEntry.newBuilder()
                .setTableEntry(defaultEntry).setData(counts(7, 700))).build());
        assertEquals(counts(7, 700), read(Entity.newBuilder().setDirectCounterEntry(DirectCounterEntry.newBuilder()
                .setTableEntry(defaultEntry))).get(0).getDirectCounterEntry().getData());
        write(Update.Type.MODIFY, defaultEntry.clone().setCounterData(counts(3, 30)));
        sw.process(0, frameTo(0xd));
        assertEquals(counts(4, 90), read(Entity.newBuilder().setTableEntry(defaultEntry.clone()
                .setCounterData(CounterData.getDefaultInstance()))).get(0).getTableEntry().getCounterData(),
                "a MODIFY's counter_data sets the default entry's counter");
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.MODIFY, TableEntry.newBuilder()
                .setTableId(table("I.types")).setIsDefaultAction(true).setCounterData(counts(1, 1)))), "types has no direct counter");
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> read(Entity.newBuilder().setDirectCounterEntry(
                DirectCounterEntry.newBuilder().setTableEntry(defaultEntry.clone().setPriority(3))))), "a default entry has priority 0");
    }

    @Test
    void aConstDefaultEntrysCounterIsWrittenWithoutAnAction() throws Exception {
        TableEntry.Builder constDefault = TableEntry.newBuilder().setTableId(table("I.fixed")).setIsDefaultAction(true);
        write(Update.Type.MODIFY, constDefault.clone().setCounterData(counts(2, 20)));
        sw.process(0, frameTo(0xa));   // from 00:00:00:00:00:01, the const entry's source: a hit
        assertEquals(counts(2, 20), read(Entity.newBuilder().setTableEntry(constDefault.clone()
                .setCounterData(CounterData.getDefaultInstance()))).get(0).getTableEntry().getCounterData());
        TableEntry.Builder withAction = constDefault.clone().setCounterData(counts(0, 0));
        withAction.getActionBuilder().getActionBuilder().setActionId(action("I.drop"));
        assertEquals(EntityException.Code.PERMISSION_DENIED, code(() -> write(Update.Type.MODIFY, withAction)),
                "the default action is const, even set to itself");
        assertEquals(EntityException.Code.PERMISSION_DENIED, code(() -> write(Update.Type.MODIFY, constDefault)),
                "nor can it be reset");
        assertEquals(EntityException.Code.PERMISSION_DENIED, code(() -> write(Update.Type.MODIFY, constDefault.clone()
                .setCounterData(counts(0, 0)).setControllerMetadata(3))), "nor its metadata set");
    }

    @Test
    void aConstDefaultEntryReadsBackAsConst() throws Exception {
        TableEntry constDefault = read(Entity.newBuilder().setTableEntry(TableEntry.newBuilder()
                .setTableId(table("I.fixed")).setIsDefaultAction(true))).get(0).getTableEntry();
        assertEquals(1, NewerFields.varint(constDefault, NewerFields.TABLE_ENTRY_IS_CONST),
                "P4Runtime 1.4: is_const, for the default entry of a table with a const default_action too");
        TableEntry fwdDefault = read(Entity.newBuilder().setTableEntry(TableEntry.newBuilder()
                .setTableId(table("I.fwd")).setIsDefaultAction(true))).get(0).getTableEntry();
        assertEquals(0, NewerFields.varint(fwdDefault, NewerFields.TABLE_ENTRY_IS_CONST));
    }

    @Test
    void aWriteNamingObjectIdZeroIsInvalid() {
        for (Entity.Builder e : List.of(
                Entity.newBuilder().setTableEntry(fwd(0xa, 1).setTableId(0)),
                Entity.newBuilder().setCounterEntry(p4.v1.P4RuntimeOuterClass.CounterEntry.newBuilder()
                        .setIndex(p4.v1.P4RuntimeOuterClass.Index.newBuilder().setIndex(1))),
                Entity.newBuilder().setMeterEntry(p4.v1.P4RuntimeOuterClass.MeterEntry.getDefaultInstance()),
                Entity.newBuilder().setDirectCounterEntry(DirectCounterEntry.newBuilder().setTableEntry(fwd(0xa, -1).setTableId(0))),
                Entity.newBuilder().setDirectMeterEntry(p4.v1.P4RuntimeOuterClass.DirectMeterEntry.getDefaultInstance()),
                Entity.newBuilder().setRegisterEntry(p4.v1.P4RuntimeOuterClass.RegisterEntry.getDefaultInstance()))) {
            for (Update.Type type : List.of(Update.Type.INSERT, Update.Type.MODIFY, Update.Type.DELETE)) {
                assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> entities.apply(type, e.build())),
                        "P4Runtime: ID 0 in a non-read request is an error: " + type + " " + e.getEntityCase());
            }
        }
    }

    @Test
    void aDirectCounterReadOfEveryTableNamesNoEntry() {
        for (TableEntry.Builder q : List.of(TableEntry.newBuilder().setIsDefaultAction(true), fwd(0xa, -1).setTableId(0))) {
            assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> read(Entity.newBuilder()
                    .setDirectCounterEntry(DirectCounterEntry.newBuilder().setTableEntry(q)))), q.toString());
        }
    }

    @Test
    void aModifyOfADirectCounterIsUndoneAlsoForConstAndDefaultEntries() throws Exception {
        TableEntry.Builder constEntry = TableEntry.newBuilder().setTableId(table("I.fixed"));
        constEntry.addMatchBuilder().setFieldId(1).getExactBuilder().setValue(bytes(1));
        TableEntry.Builder constDefault = TableEntry.newBuilder().setTableId(table("I.fixed")).setIsDefaultAction(true);
        TableEntry.Builder fwdDefault = TableEntry.newBuilder().setTableId(table("I.fwd")).setIsDefaultAction(true);
        for (TableEntry.Builder e : List.of(constEntry, constDefault, fwdDefault)) {
            write(Update.Type.MODIFY, e.clone().setCounterData(counts(5, 50)));
            Update u = Update.newBuilder().setType(Update.Type.MODIFY).setEntity(Entity.newBuilder()
                    .setTableEntry(e.clone().setCounterData(counts(9, 90)))).build();
            List<Update> undo = entities.undoOf(u);
            entities.apply(u.getType(), u.getEntity());
            for (Update back : undo) {
                entities.apply(back.getType(), back.getEntity());
            }
            assertEquals(counts(5, 50), read(Entity.newBuilder().setTableEntry(e.clone()
                    .setCounterData(CounterData.getDefaultInstance()))).get(0).getTableEntry().getCounterData());
        }
    }

    /** An entry of I.acl (priority 10, action NoAction) with the given match fields. */
    private TableEntry.Builder acl(p4.v1.P4RuntimeOuterClass.FieldMatch... match) {
        TableEntry.Builder b = TableEntry.newBuilder().setTableId(table("I.acl")).setPriority(10).addAllMatch(List.of(match));
        b.getActionBuilder().getActionBuilder().setActionId(action("NoAction"));
        return b;
    }

    private static p4.v1.P4RuntimeOuterClass.FieldMatch range(long low, long high) {
        return p4.v1.P4RuntimeOuterClass.FieldMatch.newBuilder().setFieldId(1).setRange(
                p4.v1.P4RuntimeOuterClass.FieldMatch.Range.newBuilder().setLow(bytes(low)).setHigh(bytes(high))).build();
    }

    private static p4.v1.P4RuntimeOuterClass.FieldMatch ternary(ByteString value, ByteString mask) {
        return p4.v1.P4RuntimeOuterClass.FieldMatch.newBuilder().setFieldId(2).setTernary(
                p4.v1.P4RuntimeOuterClass.FieldMatch.Ternary.newBuilder().setValue(value).setMask(mask)).build();
    }

    @Test
    void dontCareMatchesMustBeOmittedAndTernaryValuesNoLongerThanTheirMask() throws Exception {
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.INSERT, acl(range(0, 0xffff)))),
                "a range of every value is a don't care (9.1.1)");
        write(Update.Type.INSERT, acl(range(0, 0xfffe)));
        write(Update.Type.INSERT, acl(range(1, 0xffff)).setPriority(11));
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.INSERT,
                acl(ternary(bytes(0), bytes(0))))), "a ternary mask of zeros is a don't care");
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.INSERT,
                acl(ternary(ByteString.copyFrom(new byte[] {0, 0, 5}), bytes(0xff))))), "value longer than the mask");
        write(Update.Type.INSERT, acl(ternary(ByteString.copyFrom(new byte[] {0, 5}), ByteString.copyFrom(new byte[] {0, (byte) 0xff}))));
        TableEntry read = read(Entity.newBuilder().setTableEntry(acl(ternary(bytes(5), bytes(0xff))).clearAction()))
                .get(0).getTableEntry();
        assertEquals(ternary(bytes(5), bytes(0xff)), read.getMatch(0), "read back in canonical form");
        assertEquals(3, read(Entity.newBuilder().setTableEntry(TableEntry.newBuilder().setTableId(table("I.acl")))).size());
    }

    @Test
    void anEmptyByteStringIsOutOfRangeAsATooWideOneIs() {
        TableEntry.Builder empty = fwd(0, 1);
        empty.getMatchBuilder(0).getExactBuilder().setValue(ByteString.EMPTY);
        assertEquals(EntityException.Code.OUT_OF_RANGE, code(() -> write(Update.Type.INSERT, empty)), "8.4");
        TableEntry.Builder wide = fwd(1L << 48, 1);
        assertEquals(EntityException.Code.OUT_OF_RANGE, code(() -> write(Update.Type.INSERT, wide)));
        TableEntry.Builder padded = fwd(0, 1);
        padded.getMatchBuilder(0).getExactBuilder().setValue(ByteString.copyFrom(new byte[10]));
        assertEquals(EntityException.Code.OUT_OF_RANGE, code(() -> write(Update.Type.INSERT, fwd(0, 1 << 9))), "bit<9> port");
        assertDoesNotThrow(() -> write(Update.Type.INSERT, padded), "leading zero bytes are accepted whatever their number");
    }

    @Test
    void aReadOfEveryTableTakesNoOtherFilter() throws Exception {
        write(Update.Type.INSERT, fwd(0xe, 1));
        assertEquals(6, read(Entity.newBuilder().setTableEntry(TableEntry.getDefaultInstance())).size(),
                "every table: fwd's entry and the const entries of types, ranked and fixed");
        for (TableEntry.Builder q : List.of(TableEntry.newBuilder().setPriority(1), TableEntry.newBuilder().setIsDefaultAction(true),
                TableEntry.newBuilder().setMetadata(ByteString.copyFromUtf8("m")), TableEntry.newBuilder().setControllerMetadata(1),
                TableEntry.newBuilder().setAction(fwd(0, 1).getAction()), fwd(0xe, -1).setTableId(0))) {
            assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> read(Entity.newBuilder().setTableEntry(q))), q.toString());
        }
    }

    @Test
    void theDefaultEntryKeepsItsMetadataUntilItIsReset() throws Exception {
        TableEntry.Builder dflt = TableEntry.newBuilder().setTableId(table("I.fwd")).setIsDefaultAction(true);
        write(Update.Type.MODIFY, dflt.clone().setAction(fwd(0, 7).getAction()).setMetadata(ByteString.copyFromUtf8("why"))
                .setControllerMetadata(42));
        TableEntry read = read(Entity.newBuilder().setTableEntry(dflt)).get(0).getTableEntry();
        assertEquals(ByteString.copyFromUtf8("why"), read.getMetadata(), "read-write symmetry (9.1.5)");
        assertEquals(42, read.getControllerMetadata());
        write(Update.Type.MODIFY, dflt.clone());
        read = read(Entity.newBuilder().setTableEntry(dflt)).get(0).getTableEntry();
        assertEquals(ByteString.EMPTY, read.getMetadata(), "a reset resets the metadata too");
        assertEquals(0, read.getControllerMetadata());
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> write(Update.Type.MODIFY, dflt.clone()
                .setMeterConfig(p4.v1.P4RuntimeOuterClass.MeterConfig.newBuilder().setCir(1).setPir(1)))), "fwd has no direct meter");
    }

    private static Replica portReplica(long port, int instance) {
        return NewerFields.withBytes(Replica.newBuilder().setInstance(instance), NewerFields.REPLICA_PORT, bytes(port)).build();
    }

    private void group(Update.Type type, int id, Replica... replicas) throws EntityException {
        entities.apply(type, Entity.newBuilder().setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                .setMulticastGroupEntry(p4.v1.P4RuntimeOuterClass.MulticastGroupEntry.newBuilder()
                        .setMulticastGroupId(id).addAllReplicas(List.of(replicas)))).build());
    }

    @Test
    void replicasNameTheirPortByBytesOrByTheDeprecatedEgressPortNotBoth() throws Exception {
        group(Update.Type.INSERT, 1, portReplica(2, 1), portReplica(3, 1));
        group(Update.Type.INSERT, 2, Replica.newBuilder().setEgressPort(4).setInstance(1).build());
        List<Entity> groups = read(Entity.newBuilder().setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                .setMulticastGroupEntry(p4.v1.P4RuntimeOuterClass.MulticastGroupEntry.getDefaultInstance())));
        var first = groups.get(0).getPacketReplicationEngineEntry().getMulticastGroupEntry();
        assertEquals(List.of(portReplica(2, 1), portReplica(3, 1)), first.getReplicasList(), "read back as port bytes");
        var second = groups.get(1).getPacketReplicationEngineEntry().getMulticastGroupEntry();
        assertEquals(4, second.getReplicas(0).getEgressPort());
        assertFalse(NewerFields.has(second.getReplicas(0), NewerFields.REPLICA_PORT), "read back as egress_port");

        Replica both = NewerFields.withBytes(Replica.newBuilder().setEgressPort(2).setInstance(1),
                NewerFields.REPLICA_PORT, bytes(2)).build();
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> group(Update.Type.INSERT, 3, both)));
        Replica wide = NewerFields.withBytes(Replica.newBuilder(), NewerFields.REPLICA_PORT,
                ByteString.copyFrom(new byte[] {0, 0, 0, 0, 2})).build();
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> group(Update.Type.INSERT, 3, wide)), "5 bytes");
        assertEquals(EntityException.Code.INVALID_ARGUMENT,
                code(() -> group(Update.Type.INSERT, 3, portReplica(5, 1), portReplica(5, 1))), "the same replica twice");
        assertEquals(EntityException.Code.INVALID_ARGUMENT, code(() -> entities.apply(Update.Type.INSERT,
                Entity.newBuilder().setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                        .setCloneSessionEntry(p4.v1.P4RuntimeOuterClass.CloneSessionEntry.newBuilder().setSessionId(5)
                                .addReplicas(portReplica(5, 1)).addReplicas(Replica.newBuilder().setEgressPort(5)
                                        .setInstance(1)))).build())), "the same replica in both forms");
        group(Update.Type.INSERT, 3, portReplica(5, 1), portReplica(5, 2));
        assertTrue(read(Entity.newBuilder().setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                .setCloneSessionEntry(p4.v1.P4RuntimeOuterClass.CloneSessionEntry.getDefaultInstance()))).isEmpty(),
                "refused writes leave nothing behind");
    }
}
