package org.nat64fabric.softswitch.p4info;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.UnknownFieldSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.testutil.P4Programs;
import org.onosproject.net.pi.model.PiActionId;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.model.PiMatchType;
import org.onosproject.net.pi.model.PiPacketOperationType;
import org.onosproject.net.pi.model.PiPipelineModel;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.model.PiTableModel;
import org.onosproject.p4runtime.model.P4InfoParser;
import p4.config.v1.P4InfoOuterClass.MatchField;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.config.v1.P4InfoOuterClass.Table;

class P4InfoBuilderTest {
    private static final Path L3 = Path.of("examples/l3_forwarding.p4");

    @Test
    void describesTablesActionsAndControllerHeaders() {
        P4Info info = P4InfoBuilder.build(Frontend.compile(L3));
        assertEquals("v1model", info.getPkgInfo().getArch());
        Table v4 = info.getTablesList().stream().filter(t -> t.getPreamble().getName().equals("L3Ingress.ipv4_lpm"))
                .findFirst().orElseThrow();
        assertEquals("ipv4_lpm", v4.getPreamble().getAlias());
        assertEquals(0x02, v4.getPreamble().getId() >>> 24, "table IDs carry the TABLE prefix");
        assertEquals(1, v4.getMatchFieldsCount());
        MatchField f = v4.getMatchFields(0);
        assertEquals("hdr.ipv4.dst_addr", f.getName());
        assertEquals(32, f.getBitwidth());
        assertEquals(MatchField.MatchType.LPM, f.getMatchType());
        assertEquals(131072, v4.getSize());
        assertEquals(1, v4.getDirectResourceIdsCount());
        assertEquals(v4.getDirectResourceIds(0), info.getDirectCounters(0).getPreamble().getId());
        assertEquals(v4.getPreamble().getId(), info.getDirectCounters(0).getDirectTableId());
        Table v6 = info.getTablesList().stream().filter(t -> t.getPreamble().getName().equals("L3Ingress.ipv6_lpm"))
                .findFirst().orElseThrow();
        assertEquals(Table.IdleTimeoutBehavior.NOTIFY_CONTROL, v6.getIdleTimeoutBehavior());
        assertEquals(128, v6.getMatchFields(0).getBitwidth());

        var hop = info.getActionsList().stream().filter(a -> a.getPreamble().getName().equals("L3Ingress.set_next_hop_v4"))
                .findFirst().orElseThrow();
        assertEquals(3, hop.getParamsCount());
        assertEquals("port", hop.getParams(0).getName());
        assertEquals(9, hop.getParams(0).getBitwidth());
        assertEquals(48, hop.getParams(2).getBitwidth());

        var packetIn = info.getControllerPacketMetadataList().stream()
                .filter(c -> c.getPreamble().getName().equals("packet_in")).findFirst().orElseThrow();
        assertEquals("ingress_port", packetIn.getMetadata(0).getName());
        assertEquals(9, packetIn.getMetadata(0).getBitwidth());
        assertEquals(512, info.getCounters(0).getSize());
    }

    @Test
    void idsAreStableAcrossCompilations() {
        P4Info a = P4InfoBuilder.build(Frontend.compile(L3));
        P4Info b = P4InfoBuilder.build(Frontend.compile(L3));
        assertEquals(a, b);
    }

    @Test
    void idAnnotationsAreHonoured(@TempDir Path dir) throws Exception {
        String src = Files.readString(L3).replace("table ipv4_lpm {", "@id(0x02000077) table ipv4_lpm {")
                .replace("action drop() {", "@id(5) action drop() {");
        Path p = dir.resolve("ids.p4");
        Files.writeString(p, src);
        P4Info info = P4InfoBuilder.build(Frontend.compile(p));
        assertTrue(info.getTablesList().stream().anyMatch(t -> t.getPreamble().getId() == 0x02000077));
        assertTrue(info.getActionsList().stream().anyMatch(t -> t.getPreamble().getId() == 0x01000005));
    }

    @Test
    void aDirectCounterConstructedInItsTablesPropertyIsNamedAfterTheTable(@TempDir Path dir) throws Exception {
        Program p = P4Programs.compile(dir, P4Programs.v1("header h_t { bit<8> a; }\nstruct headers_t { h_t h; }\n"
                        + "struct meta_t { }\n", "state start { pkt.extract(hdr.h); transition accept; }",
                "table t { key = { hdr.h.a: exact; } actions = { NoAction; } counters = direct_counter(CounterType.bytes); }",
                "t.apply();", "", "pkt.emit(hdr.h);"));
        P4Info info = P4InfoBuilder.build(p);
        Table t = info.getTables(0);
        assertEquals("I.t", info.getDirectCounters(0).getPreamble().getName());
        assertEquals(t.getPreamble().getId(), info.getDirectCounters(0).getDirectTableId());
        assertEquals(List.of(info.getDirectCounters(0).getPreamble().getId()), t.getDirectResourceIdsList());
        assertEquals("BYTES", info.getDirectCounters(0).getSpec().getUnit().name());
    }

    @Test
    void externAndKeyIdsAndDocumentationAreHonoured() {
        // as p4c writes them: @id on counters, direct counters, meters and registers, and on a key
        // element (its match field ID; the others keep their position); @brief and @description
        P4Info info = P4InfoBuilder.build(Frontend.compile(Path.of("src/test/resources/p4info/ids_and_docs.p4")));
        assertEquals(0x12000099, info.getCounters(0).getPreamble().getId());
        assertEquals(0x13000005, info.getDirectCounters(0).getPreamble().getId());
        assertEquals(0x16000007, info.getRegisters(0).getPreamble().getId());
        Table t = info.getTables(0);
        assertEquals(0x13000005, t.getDirectResourceIds(0));
        assertEquals(7, t.getMatchFields(0).getId());
        assertEquals(2, t.getMatchFields(1).getId());
        assertEquals("the table", t.getPreamble().getDoc().getBrief());
        assertEquals("drop counter", info.getMeters(0).getPreamble().getDoc().getBrief());
        assertEquals("counts what is dropped", info.getMeters(0).getPreamble().getDoc().getDescription());
        // p4c's numbering: @id(2) on the first element moves the second past it, to 3
        Table moved = P4InfoBuilder.build(Frontend.compile(Path.of("src/test/resources/frontend-corpus/key_id_at_another_position.p4")))
                .getTables(0);
        assertEquals(List.of(2, 3), List.of(moved.getMatchFields(0).getId(), moved.getMatchFields(1).getId()));
    }

    @Test
    void constAndInitialEntriesAreMarked() {
        // P4Runtime 1.4: is_const_table for const entries; has_initial_entries (field 11, which the
        // 1.3 classes keep as an unknown field) for entries const or not
        P4Info info = P4InfoBuilder.build(Frontend.compile(Path.of("src/test/resources/p4info/initial_entries.p4")));
        assertEquals(List.of("I.fixed true true", "I.seeded false true", "I.empty false false", "I.none false false"),
                info.getTablesList().stream().map(t -> t.getPreamble().getName() + " " + t.getIsConstTable() + " "
                        + !t.getUnknownFields().getField(11).getVarintList().isEmpty()).collect(Collectors.toList()));
        assertEquals(List.of(1L), info.getTables(1).getUnknownFields().getField(11).getVarintList());
    }

    @Test
    void aliasesInitialDefaultActionsAndProfilesAreAsP4RuntimeDescribesThem() throws Exception {
        P4Info info = P4InfoBuilder.build(Frontend.compile(Path.of("src/test/resources/p4info/aliases_and_defaults.p4")));
        // Preamble.alias: unique among the objects, the shortest suffix that is
        assertEquals(List.of("c1.cnt", "c2.cnt"), info.getCountersList().stream().map(c -> c.getPreamble().getAlias())
                .collect(Collectors.toList()));
        assertEquals(List.of("c1.r", "c2.r"), info.getRegistersList().stream().map(r -> r.getPreamble().getAlias())
                .collect(Collectors.toList()));
        // ActionProfile.max_group_size: "0 if the action profile does not have a selector"
        assertEquals(0, info.getActionProfiles(0).getMaxGroupSize());
        // an indirect table's default action is a constant NoAction (P4Runtime 9.1.5), as p4c's P4Info says
        p4.config.v1.P4InfoOuterClass.Table indirect = info.getTables(1);
        assertEquals(info.getActionProfiles(0).getPreamble().getId(), indirect.getImplementationId());
        assertEquals(List.of("hdr.h.b", "hdr.h.$valid$"), indirect.getMatchFieldsList().stream().map(MatchField::getName)
                .collect(Collectors.toList()));
        assertEquals(info.getActionsList().stream().filter(a -> a.getPreamble().getName().equals("NoAction")).findFirst()
                .orElseThrow().getPreamble().getId(), indirect.getConstDefaultActionId());
        // Table.initial_default_action (1.4, field 5): set(8, 0x0808), each argument in its width's bytes
        UnknownFieldSet call = UnknownFieldSet.parseFrom(info.getTables(0).getUnknownFields().getField(5)
                .getLengthDelimitedList().get(0));
        assertEquals(List.of(Integer.toUnsignedLong(info.getActions(0).getPreamble().getId())), call.getField(1).getVarintList());
        List<String> arguments = new java.util.ArrayList<>();
        for (com.google.protobuf.ByteString a : call.getField(4).getLengthDelimitedList()) {
            UnknownFieldSet argument = UnknownFieldSet.parseFrom(a);
            arguments.add(argument.getField(2).getVarintList().get(0) + "=" + P4Programs.hex(argument.getField(3)
                    .getLengthDelimitedList().get(0).toByteArray()));
        }
        assertEquals(List.of("1=08", "2=0808"), arguments);
        assertEquals("I.set", info.getActions(0).getPreamble().getName());
        assertTrue(info.hasTypeInfo(), "type_info is there, empty, as p4c writes it");
        assertEquals(0, info.getActionsList().stream().filter(a -> a.getPreamble().getName().equals("I.bump")).findFirst()
                .orElseThrow().getParamsCount(), "an action called from apply is listed, its inout parameter not");
        // not an action called from an action only, nor a @hidden action or table, nor the actions only it lists,
        // nor a table never applied (p4c's front end removes it) and its action
        assertEquals(List.of("I.set", "NoAction", "I.bump"), info.getActionsList().stream().map(a -> a.getPreamble().getName())
                .collect(Collectors.toList()));
        assertEquals(List.of("I.t", "I.p"), info.getTablesList().stream().map(t -> t.getPreamble().getName())
                .collect(Collectors.toList()));
        // a controller header's ID is hashed from its type's name, as p4c's (4 << 24 | hash & 0xFFFFFF)
        assertEquals(0x04000000 | (P4InfoBuilder.hash("packet_in_header_t") & 0xFFFFFF),
                info.getControllerPacketMetadata(0).getPreamble().getId());
        assertEquals("packet_in", info.getControllerPacketMetadata(0).getPreamble().getName());
    }

    @Test
    void anActionRefsScopeIsAlsoItsAnnotation(@TempDir Path dir) {
        Program program = P4Programs.compile(dir, P4Programs.v1("header h_t { bit<8> a; }\nstruct headers_t { h_t h; }\n"
                + "struct meta_t { }", "state start { pkt.extract(hdr.h); transition accept; }",
                "action a() { }\naction b() { }\ntable t { key = { hdr.h.a: exact; } actions = { a; @defaultonly b; @tableonly NoAction; }"
                + " default_action = b(); }", "t.apply();", "", "pkt.emit(hdr.h);"));
        assertEquals(List.of("TABLE_AND_DEFAULT []", "DEFAULT_ONLY [@defaultonly]", "TABLE_ONLY [@tableonly]"),
                P4InfoBuilder.build(program).getTables(0).getActionRefsList().stream()
                        .map(r -> r.getScope() + " " + r.getAnnotationsList()).collect(Collectors.toList()));
    }

    /** P4Runtime 8.5.6 and 8.5.7, with the chains of the P4Runtime repository's P4Info guidance (Examples 2 to 4). */
    @Test
    void userDefinedTypesAreNamedAndTranslatedTypesTakeTheControllersWidth(@TempDir Path dir) {
        Program program = P4Programs.compile(dir, P4Programs.v1(
                "typedef bit<10> T1uint_t;\n"
                        + "@p4runtime_translation(\"example.org/v1/T1_t\", 32) type T1uint_t T1_t;\n"
                        + "type T1_t T2_t;\n"
                        + "@p4runtime_translation(\"example.org/v1/T3_t\", bit<18>) type T1_t T3_t;\n"
                        + "type int<8> S_t;\n"
                        + "header h_t { T2_t a; T1_t b; T3_t c; bit<10> d; }\nstruct headers_t { h_t h; }\n"
                        + "struct meta_t { S_t s; }",
                "state start { pkt.extract(hdr.h); transition accept; }",
                "action set(T1_t p, S_t q, bit<10> r) { hdr.h.b = p; meta.s = q; hdr.h.d = r; }\n"
                        + "table t { key = { hdr.h.a: exact; hdr.h.b: exact; hdr.h.c: exact; hdr.h.d: exact; meta.s: exact; }"
                        + " actions = { set; } }",
                "t.apply();", "", "pkt.emit(hdr.h);"));
        P4Info info = P4InfoBuilder.build(program);
        assertEquals(List.of("hdr.h.a 10 T2_t", "hdr.h.b 32 T1_t", "hdr.h.c 18 T3_t", "hdr.h.d 10 ", "meta.s 8 S_t"),
                info.getTables(0).getMatchFieldsList().stream()
                        .map(f -> f.getName() + " " + f.getBitwidth() + " " + f.getTypeName().getName()).collect(Collectors.toList()));
        assertEquals(List.of("p 32 T1_t", "q 8 S_t", "r 10 "), info.getActions(0).getParamsList().stream()
                .map(p -> p.getName() + " " + p.getBitwidth() + " " + p.getTypeName().getName()).collect(Collectors.toList()));
        var types = info.getTypeInfo().getNewTypesMap();
        assertEquals(java.util.Set.of("T1_t", "T2_t", "T3_t", "S_t"), types.keySet(), "only the types a P4Info value has");
        // the first `type` of a chain names it; without its own annotation nothing is translated (Example 3)
        assertEquals(10, types.get("T2_t").getOriginalType().getBitstring().getBit().getBitwidth());
        assertEquals("example.org/v1/T1_t", types.get("T1_t").getTranslatedType().getUri());
        assertEquals(32, types.get("T1_t").getTranslatedType().getSdnBitwidth());
        assertEquals(18, types.get("T3_t").getTranslatedType().getSdnBitwidth());
        assertEquals(8, types.get("S_t").getOriginalType().getBitstring().getInt().getBitwidth());
    }

    @Test
    void aTranslationIsAUriAndTheControllersTypeOnATypeOverBits(@TempDir Path dir) {
        String struct = "header h_t { bit<8> a; }\nstruct headers_t { h_t h; }\nstruct meta_t { }";
        for (String[] bad : new String[][] {
                {"@p4runtime_translation(\"u\") type bit<9> PortT;", "takes a URI and the controller's type"},
                {"@p4runtime_translation(\"u\", bit<0>) type bit<9> PortT;", "from 1 to 65535, not 0"},
                {"@p4runtime_translation(\"u\", 32) type int<9> PortT;", "a type over bit<W>"}}) {
            org.nat64fabric.softswitch.frontend.P4CompileException e = org.junit.jupiter.api.Assertions.assertThrows(
                    org.nat64fabric.softswitch.frontend.P4CompileException.class, () -> P4Programs.compile(dir,
                            P4Programs.v1(bad[0] + "\n" + struct, "state start { transition accept; }", "", "", "", "")));
            assertTrue(e.getMessage().matches("(?s).*prog\\.p4:\\d+:\\d+: .*" + java.util.regex.Pattern.quote(bad[1]) + ".*"),
                    e.getMessage());
        }
        Program strings = P4Programs.compile(dir, P4Programs.v1("@p4runtime_translation(\"u\", string) type bit<9> PortT;\n"
                + "header h_t { PortT a; }\nstruct headers_t { h_t h; }\nstruct meta_t { }",
                "state start { pkt.extract(hdr.h); transition accept; }", "table t { key = { hdr.h.a: exact; } actions = { NoAction; } }",
                "t.apply();", "", ""));
        MatchField a = P4InfoBuilder.build(strings).getTables(0).getMatchFields(0);
        assertEquals(0, a.getBitwidth(), "a string's bitwidth is unset (8.5.7)");
        assertTrue(P4InfoBuilder.build(strings).getTypeInfo().getNewTypesOrThrow("PortT").getTranslatedType().hasSdnString());
    }

    @Test
    void aSerializableEnumOfAnActionParameterIsDescribedInTypeInfo() {
        P4Info info = P4InfoBuilder.build(Frontend.compile(Path.of("src/test/resources/language/enum_action_parameter.p4")));
        p4.config.v1.P4Types.P4SerializableEnumTypeSpec e = info.getTypeInfo().getSerializableEnumsOrThrow("Color_t");
        assertEquals(8, e.getUnderlyingType().getBitwidth());
        assertEquals(List.of("RED=01", "GREEN=02"), e.getMembersList().stream()
                .map(m -> m.getName() + "=" + P4Programs.hex(m.getValue().toByteArray())).collect(Collectors.toList()));
        // and of a key
        assertEquals(1, P4InfoBuilder.build(Frontend.compile(Path.of("src/test/resources/language/enum_key_mask.p4")))
                .getTypeInfo().getSerializableEnumsCount());
    }

    @Test
    void onosParsesItsP4Runtime13Form(@TempDir Path dir) throws Exception {
        // ONOS 2.7 reads P4Info text with P4Runtime 1.3's classes (compile --p4runtime-version 1.3)
        Program program = Frontend.compile(L3);
        Path file = dir.resolve("p4info.txt");
        Files.writeString(file, P4InfoBuilder.text(P4InfoBuilder.withoutP4Runtime14Fields(P4InfoBuilder.build(program))));
        PiPipelineModel model = P4InfoParser.parse(file.toUri().toURL());
        PiTableModel t = model.table(PiTableId.of("L3Ingress.ipv4_lpm")).orElseThrow();
        assertEquals(PiMatchType.LPM, t.matchField(PiMatchFieldId.of("hdr.ipv4.dst_addr")).orElseThrow().matchType());
        assertEquals(32, t.matchField(PiMatchFieldId.of("hdr.ipv4.dst_addr")).orElseThrow().bitWidth());
        assertTrue(t.action(PiActionId.of("L3Ingress.set_next_hop_v4")).isPresent());
        assertEquals(2, model.packetOperationModel(PiPacketOperationType.PACKET_IN).orElseThrow().metadatas().size());
        assertTrue(model.table(PiTableId.of("L3Ingress.ipv6_lpm")).orElseThrow().supportsAging());
    }
}
