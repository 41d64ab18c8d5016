package org.nat64fabric.softswitch.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.nat64fabric.softswitch.testutil.P4Programs.bytes;
import static org.nat64fabric.softswitch.testutil.P4Programs.hex;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.runtime.Entities;
import org.nat64fabric.softswitch.runtime.EntityException;
import org.nat64fabric.softswitch.testutil.P4Programs;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.ValueSetEntry;
import p4.v1.P4RuntimeOuterClass.ValueSetMember;

/**
 * P4_16 1.2.x constructs beyond the basics, each in a program of src/test/resources/language/
 * that runs packets through the interpreter; the test reads back what the program emits.
 */
class LanguageFeaturesTest {
    private static final Path PROGRAMS = Path.of("src/test/resources/language");

    /** The frames a program sends for one packet received on port 0, as hex. */
    private static List<String> run(String program, String input) {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve(program)));
        return sw.process(0, bytes(input)).stream().map(o -> hex(o.data)).collect(Collectors.toList());
    }

    @Test
    void newTypesCrossIntoTheirBitsByCastsAndKeysetsTakeParentheses() {
        // kind 1 (DATA) becomes 7 by the table, v 0x15 matches (0x10 &&& 0xf0): size 8 + 1, v = 7 |+| 0xf0
        assertEquals(List.of("07f709"), run("new_types_and_keysets.p4", "01 15 00"));
        // kind 2 becomes 8 by the parenthesized entry, v 0x25 in (0x20 .. 0x2f): size 8 + 2
        assertEquals(List.of("08250a"), run("new_types_and_keysets.p4", "02 25 00"));
        // no entry, no keyset: size is v's 8 bits alone
        assertEquals(List.of("033008"), run("new_types_and_keysets.p4", "03 30 00"));
    }

    @Test
    void aListCastToAStructOrHeaderGivesItsFieldsInOrder() {
        // g = (h_t){ s.y, ((S2){5, 6}).x } = {4, 5}; h equal to (h_t){1, 2} gets a = 9
        assertEquals(List.of("0902" + "0405"), run("positional_casts.p4", "01 02"));
        assertEquals(List.of("0708" + "0405"), run("positional_casts.p4", "07 08"));
    }

    @Test
    void functionsOfOneNameAreToldApartByTheirArgumentsCountOrNames() {
        // c = twice(3) = 6, d = twice(3, 4) = 14, a = combine(big = 4, small = 1) = 3, b = combine(x = 4, y = 1) = 5
        assertEquals(List.of("0305060e"), run("function_overloads.p4", "03 04 00 00"));
    }

    @Test
    void aRegisterHoldsCellsWiderThan64Bits() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("register_wide.p4")));
        String a = "20010db8000000000000000000000001";
        String b = "20010db8ffffffffffffffffffffff02";
        assertEquals("1:" + "0".repeat(32), out(sw, a));
        assertEquals("1:" + a, out(sw, b));
        assertEquals("1:" + b, out(sw, a));
    }

    @Test
    void aProgramForTheV1modelOf2018NamesItsOwnPortIdType() {
        assertEquals(List.of("0102"), run("v1model_2018_port_type.p4", "00 02"));
    }

    @Test
    void explicitTypeArgumentsOnExtractEmitAndLookahead() {
        // lookahead<bit<16>> saw the tag before extract<h_t> took it; lookahead<bit<8>> then sees 0x22
        assertEquals(List.of("abcd" + "abcd11" + "22"), run("type_arguments.p4", "abcd 11 22"));
        // a 0xff after the header sends the parser to the state that overwrites what was peeked
        assertEquals(List.of("ffff" + "abcd11" + "ff"), run("type_arguments.p4", "abcd 11 ff"));
    }

    @Test
    void structureValuedExpressionsAssignByFieldName() {
        // p = {x = b + 1, y = a} = {0x03, 0x01}; n.p = {x = p.y, y = p.x} = {0x01, 0x03};
        // out_h = {a = n.z, b = n.p.y, c = 0x1234}, valid; in_h's a and b swapped
        assertEquals(List.of("020103ee" + "5a031234" + "99"),
                run("struct_initialisers.p4", "01 02 03ee 99"));
    }

    @Test
    void boolAndSerializableEnumHeaderFieldsTravelOnTheWire() {
        // urgent (first bit) and kind CONTROL: v + 1, kind becomes DATA, urgent cleared, extra parsed
        assertEquals(List.of("000111" + "02" + "55"), run("header_field_types.p4", "80 02 10 ee 55"));
        // neither urgent nor CONTROL, pad bits kept
        assertEquals(List.of("050110" + "55"), run("header_field_types.p4", "05 01 10 55"));
        // a kind no member has is kept as read
        assertEquals(List.of("810711" + "55"), run("header_field_types.p4", "81 07 10 55"));
    }

    @Test
    void structHeaderFieldsLieOnTheWireInDeclarationOrder() {
        String h = "01" + "53" + "a2" + "1234" + "0000000000000000ff" + "ee";
        // tag 1; p = {hi 5, lo 3}; flags = {urgent, n 2, CONTROL}; seq 0x123, pad 4; w = {0xff, 0xee};
        // then two e_t (0x9a, 0xbc) and a payload byte.
        // The const entry on p.lo = 3 sets seq 0xabc; p's nibbles swap; urgent clears, n + 1, kind DATA;
        // w.v + 1 carries into its 8th byte; w.e = lo nibble of the looked-ahead e_t (0xa);
        // es[1].p = es[0].p; copy = h with tag 0x77
        String out = "35" + "31" + "abc4" + "000000000000000100" + "0a";
        assertEquals(List.of("01" + out + "9a9a" + "77" + out + "dd"), run("header_struct_fields.p4", h + "9abc dd"));
        // p.lo = 4: no entry, seq stays 0x123
        assertEquals(List.of("01" + "45" + "31" + "1234" + "000000000000000100" + "0a" + "9a9a"
                        + "77" + "45" + "31" + "1234" + "000000000000000100" + "0a" + "dd"),
                run("header_struct_fields.p4", "01 54 a2 1234 0000000000000000ff ee 9abc dd"));
        // tag 0: h is invalidated and not emitted, nor is the copy; the rest is payload
        assertEquals(List.of("9abcdd"), run("header_struct_fields.p4", "00 53 a2 1234 0000000000000000ff ee 9abc dd"));
    }

    @Test
    void structFieldsOfAHeaderTakeListValuesAndCountInHashData() {
        // h = {x 0x56, p {9, 9}}; h.p = {0xa, 9}; the csum16 of h's bytes 56 a9 is ~0x56a9 = 0xa956, its low
        // byte goes to h.x; g = {0x11, {2, 3}}, then g.p.b |+| 15 saturates at 0xf
        assertEquals(List.of("56a9" + "112f"), run("header_struct_values.p4", "5699"));
        // h.p = {0xa, 1}: ~0x00a1 = 0xff5e
        assertEquals(List.of("5ea1" + "112f"), run("header_struct_values.p4", "0011"));
    }

    @Test
    void aHeaderWithAStructFieldAndAVarbitFieldKeepsBoth() {
        // p = {1, 2} swapped to {2, 1}; len 2: data aabb; tail + 1; then the payload
        assertEquals(List.of("21" + "02" + "aabb" + "06" + "99"), run("header_struct_varbit.p4", "12 02 aabb 05 99"));
        // len 0: an empty varbit, tail right after len
        assertEquals(List.of("43" + "00" + "10" + "99"), run("header_struct_varbit.p4", "34 00 0f 99"));
    }

    @Test
    void headerUnionMembersWithStructFields() {
        // tag 1: x = {p {1, 2}}; y = {0xee, x.p} makes y the valid member, x is not emitted
        assertEquals(List.of("01" + "ee12" + "3399"), run("header_struct_union.p4", "01 12 3399"));
        // tag 2: y = {0x12, q {3, 3}}; q.a = 0xf
        assertEquals(List.of("02" + "12f3" + "99"), run("header_struct_union.p4", "02 12 33 99"));
    }

    @Test
    void aTableMatchesAStructFieldOfAHeaderByItsDottedName() {
        var info = P4InfoBuilder.build(Frontend.compile(PROGRAMS.resolve("header_struct_fields.p4")));
        var table = info.getTablesList().stream().filter(t -> t.getPreamble().getName().equals("I.by_nibble")).findFirst()
                .orElseThrow();
        assertEquals(List.of("hdr.h.p.lo 4 EXACT"), table.getMatchFieldsList().stream()
                .map(m -> m.getName() + " " + m.getBitwidth() + " " + m.getMatchType()).collect(Collectors.toList()));
    }

    @Test
    void actionsListBindsDirectionalArgumentsAndTheControlPlaneTheRest() {
        Program p = Frontend.compile(PROGRAMS.resolve("bound_actions.p4"));
        // the control plane gives add_to its amount; u binds its target to hdr.h.a, t to hdr.h.b
        p.table("I.u").insert(new Table.Entry(new Table.FieldMatch[] {Table.FieldMatch.exact(BigInteger.valueOf(3), 8)}, 0,
                P4Programs.call(p, "I.add_to", 7), 0));
        p.table("I.t").insert(new Table.Entry(new Table.FieldMatch[] {Table.FieldMatch.exact(BigInteger.valueOf(4), 8)}, 0,
                P4Programs.call(p, "I.add_to", 1), 0));
        V1ModelSwitch sw = new V1ModelSwitch(p);
        assertEquals("2:0111bb", out(sw, "01 aa bb"));   // const entry set_port(2, 0x11)
        assertEquals("1:02aac0", out(sw, "02 aa bb"));   // const entry add_to(hdr.h.b, 5)
        assertEquals("2:03f5bb", out(sw, "03 aa bb"));   // default set_port(2, 0xee), then u adds 7 to a
        assertEquals("1:04aabc", out(sw, "04 aa bb"));   // inserted add_to(1) on t's binding, b
        // P4Info lists only the control-plane parameters
        var info = P4InfoBuilder.build(p);
        for (var a : info.getActionsList()) {
            if (a.getPreamble().getName().equals("I.add_to")) {
                assertEquals(List.of("amount"), a.getParamsList().stream().map(x -> x.getName()).collect(Collectors.toList()));
            }
        }
        assertEquals(1, info.getActionsList().stream().filter(a -> a.getPreamble().getName().equals("I.add_to")).count());
    }

    private static String out(V1ModelSwitch sw, String input) {
        List<V1ModelSwitch.Output> o = sw.process(0, bytes(input));
        assertEquals(1, o.size());
        return o.get(0).port + ":" + hex(o.get(0).data);
    }

    @Test
    void aControlTypeAppliedDirectlyIsALocalInstanceNamedAfterTheTypeEachTime() {
        Program p = Frontend.compile(PROGRAMS.resolve("direct_invocation.p4"));
        V1ModelSwitch sw = new V1ModelSwitch(p);
        // the default add(1) in I.Bump and in E.Bump; Count adds 1 (register first), 1, then 2 (second)
        assertEquals("1:0516", out(sw, "05 10"));
        // the ingress instance's table is I.Bump.t, for the control plane too: + 10 there; Count adds
        // 2 (first), 3 and 4 (second, which both later instances count in)
        p.table("I.Bump.t").insert(new Table.Entry(new Table.FieldMatch[] {Table.FieldMatch.exact(BigInteger.valueOf(5), 8)},
                0, P4Programs.call(p, "I.Bump.add", 10), 0));
        assertEquals("1:0524", out(sw, "05 10"));
        assertEquals(List.of("E.Bump.t", "I.Bump.t"), P4InfoBuilder.build(p).getTablesList().stream()
                .map(t -> t.getPreamble().getName()).sorted().collect(Collectors.toList()));
    }

    @Test
    void subParsersRunToAcceptOrRejectTheirCaller() {
        assertEquals(List.of("01" + "05" + "99"), run("sub_parsers.p4", "01 05 99"));       // instance pa
        assertEquals(List.of("02" + "1234" + "99"), run("sub_parsers.p4", "02 1234 99"));   // ParseB.apply
        // ParseA's select has no case for 0xff: NoMatch reaches ingress, the extracted a is kept
        assertEquals(List.of("ee" + "ff" + "99"), run("sub_parsers.p4", "01 ff 99"));
    }

    @Test
    void aSerializableEnumIsAnActionParameter() {
        assertEquals(List.of("02" + "22"), run("enum_action_parameter.p4", "01 00"));   // paint(GREEN)
        assertEquals(List.of("01" + "11"), run("enum_action_parameter.p4", "02 00"));   // paint(RED)
    }

    @Test
    void aHeaderUnionKeepsAtMostOneMemberValid() {
        assertEquals(List.of("04" + "10" + "99"), run("header_union.p4", "04 10 99"));       // v4 kept
        assertEquals(List.of("06" + "0606" + "99"), run("header_union.p4", "04 00 99"));     // setValid of v6 drops v4
        assertEquals(List.of("04" + "44" + "99"), run("header_union.p4", "06 0000 99"));     // v4 assigned drops v6
        assertEquals(List.of("ff" + "99"), run("header_union.p4", "07 99"));                 // no member valid
        assertEquals(List.of("41" + "99"), run("header_union.p4", "04 01 99"));     // v6.setInvalid() drops v4
        assertEquals(List.of("61" + "99"), run("header_union.p4", "06 0001 99"));   // an invalid v4 assigned drops v6
    }

    /** A test program running in a switch, with its P4Info and the P4Runtime entities that write to it. */
    private static final class Driven {
        final V1ModelSwitch sw;
        final P4Info info;
        final Entities entities;

        Driven(String program) {
            Program p = Frontend.compile(PROGRAMS.resolve(program));
            sw = new V1ModelSwitch(p);
            info = P4InfoBuilder.build(p);
            entities = new Entities(sw, info);
        }
    }

    @Test
    void aRegisterOfASerializableEnumHoldsItsValuesAndP4RuntimeReadsThemAsEnumValues() throws EntityException {
        Driven d = new Driven("register_serializable_enum.p4");
        assertEquals("EthTypes", d.info.getRegisters(0).getTypeSpec().getSerializableEnum().getName());
        // each packet leaves with the type the one before it wrote (0 for the first)
        assertEquals("1:0000" + "aa", out(d.sw, "0806 aa"));
        assertEquals("1:0806" + "bb", out(d.sw, "0800 bb"));
        Entity cell = Entity.newBuilder().setRegisterEntry(p4.v1.P4RuntimeOuterClass.RegisterEntry.newBuilder()
                .setRegisterId(d.info.getRegisters(0).getPreamble().getId())
                .setIndex(p4.v1.P4RuntimeOuterClass.Index.newBuilder().setIndex(0))).build();
        assertEquals("0800", hex(d.entities.read(cell).get(0).getRegisterEntry().getData().getEnumValue().toByteArray()));
        d.entities.apply(Update.Type.MODIFY, cell.toBuilder().setRegisterEntry(cell.getRegisterEntry().toBuilder()
                .setData(p4.v1.P4DataOuterClass.P4Data.newBuilder().setEnumValue(com.google.protobuf.ByteString
                        .copyFrom(bytes("0806"))))).build());
        assertEquals("1:0806" + "cc", out(d.sw, "0800 cc"));
    }

    @Test
    void serializableEnumsServeAsTheirUnderlyingTypeAndParenthesizedTypeNamesCast() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("enum_operands_and_casts.p4")));
        // x = 2: sum 3 + 5 + 2, shl 1 << 2, cat 0x0500, inv ~3, cast x + 1, ecast x, ishift 1 << 3
        assertEquals("1:02" + "0a" + "04" + "0500" + "fc" + "03" + "02" + "08",
                out(sw, "02 00 00 0000 00 00 00 00"));
    }

    @Test
    void signedRegistersAreTypedIntAndTheirCellsReadAndWrittenAsTwosComplement() throws EntityException {
        Driven d = new Driven("register_signed.p4");
        var small = d.info.getRegistersList().stream().filter(r -> r.getPreamble().getName().equals("I.small")).findFirst()
                .orElseThrow();
        var wide = d.info.getRegistersList().stream().filter(r -> r.getPreamble().getName().equals("I.wide")).findFirst()
                .orElseThrow();
        assertEquals(8, small.getTypeSpec().getBitstring().getInt().getBitwidth(), "int<8>, as p4c writes it");
        java.util.function.BiFunction<Integer, Integer, Entity> cell = (id, index) -> Entity.newBuilder()
                .setRegisterEntry(p4.v1.P4RuntimeOuterClass.RegisterEntry.newBuilder().setRegisterId(id)
                        .setIndex(p4.v1.P4RuntimeOuterClass.Index.newBuilder().setIndex(index))).build();
        java.util.function.BiFunction<Entity, String, Entity> with = (c, value) -> c.toBuilder().setRegisterEntry(
                c.getRegisterEntry().toBuilder().setData(p4.v1.P4DataOuterClass.P4Data.newBuilder()
                        .setBitstring(com.google.protobuf.ByteString.copyFrom(bytes(value))))).build();
        Entity small0 = cell.apply(small.getPreamble().getId(), 0);
        d.entities.apply(Update.Type.MODIFY, with.apply(small0, "ff9d"));   // -99, sign-extended to 16 bits
        assertEquals("1:9d", out(d.sw, "05"), "the data plane reads -99");
        assertEquals("9d", hex(d.entities.read(small0).get(0).getRegisterEntry().getData().getBitstring().toByteArray()));
        for (String outOfRange : List.of("009d", "0080", "ff7f")) {   // +157, +128, -129: not int<8>s
            assertEquals(EntityException.Code.OUT_OF_RANGE, assertThrows(EntityException.class,
                    () -> d.entities.apply(Update.Type.MODIFY, with.apply(small0, outOfRange))).code(), outOfRange);
        }
        d.entities.apply(Update.Type.MODIFY, with.apply(small0, "80"));   // -128: the least int<8>
        assertEquals("1:80", out(d.sw, "05"));
        Entity wide0 = cell.apply(wide.getPreamble().getId(), 0);
        d.entities.apply(Update.Type.MODIFY, with.apply(wide0, "0080"));   // +128
        assertEquals("0080", hex(d.entities.read(wide0).get(0).getRegisterEntry().getData().getBitstring().toByteArray()),
                "+128 keeps a zero byte for its sign");
        d.entities.apply(Update.Type.MODIFY, with.apply(wide0, "ffff"));   // -1, longer than it need be
        assertEquals("ff", hex(d.entities.read(wide0).get(0).getRegisterEntry().getData().getBitstring().toByteArray()),
                "-1 read back as the shortest string");
        out(d.sw, "fe");   // the data plane writes -2 into wide[1]
        assertEquals("fe", hex(d.entities.read(cell.apply(wide.getPreamble().getId(), 1)).get(0).getRegisterEntry()
                .getData().getBitstring().toByteArray()));
    }

    @Test
    void parserValueSetsMatchWhatTheControlPlaneWrites() throws EntityException {
        Driven d = new Driven("value_sets.p4");
        var typesInfo = valueSetInfo(d.info, "P.tagged_types");
        var pairsInfo = valueSetInfo(d.info, "P.pairs");
        int types = typesInfo.getPreamble().getId();
        int pairs = pairsInfo.getPreamble().getId();
        assertEquals(4, typesInfo.getSize());
        assertEquals(List.of(" 16 EXACT"), typesInfo.getMatchList().stream()
                .map(m -> m.getName() + " " + m.getBitwidth() + " " + m.getMatchType()).collect(Collectors.toList()));
        assertEquals(List.of("a 8 EXACT", "b 8 TERNARY"), pairsInfo.getMatchList().stream()
                .map(m -> m.getName() + " " + m.getBitwidth() + " " + m.getMatchType()).collect(Collectors.toList()));
        assertEquals("1:810005" + "99", out(d.sw, "8100 05 99"));   // an empty set matches nothing
        var typesEntry = valueSet(types, exact(1, 0x8100), exact(1, 0x88a8));
        d.entities.apply(Update.Type.MODIFY, typesEntry);
        assertEquals("1:810006" + "99", out(d.sw, "8100 05 99"));
        assertEquals("1:88a806" + "99", out(d.sw, "88a8 05 99"));
        assertEquals("1:080005" + "99", out(d.sw, "0800 05 99"));   // not a member: the next case
        var pairsEntry = valueSet(pairs, exact(1, 0x01).toBuilder().addMatch(ternary(2, 0x10, 0xf0)).build());
        d.entities.apply(Update.Type.MODIFY, pairsEntry);
        assertEquals("1:0800ee1f" + "99", out(d.sw, "0800 01 1f 99"));
        assertEquals("1:0800012f" + "99", out(d.sw, "0800 01 2f 99"));
        // read back as written; a MODIFY replaces the members
        assertEquals(List.of(typesEntry), d.entities.read(valueSet(types)));
        d.entities.apply(Update.Type.MODIFY, valueSet(types));
        assertEquals("1:810005" + "99", out(d.sw, "8100 05 99"));
        // P4Runtime's rules for value set writes
        assertEquals(EntityException.Code.INVALID_ARGUMENT, assertThrows(EntityException.class,
                () -> d.entities.apply(Update.Type.INSERT, typesEntry)).code());
        assertEquals(EntityException.Code.RESOURCE_EXHAUSTED, assertThrows(EntityException.class,
                () -> d.entities.apply(Update.Type.MODIFY, valueSet(pairs, exact(1, 1), exact(1, 2), exact(1, 3)))).code());
        assertEquals(EntityException.Code.INVALID_ARGUMENT, assertThrows(EntityException.class,
                () -> d.entities.apply(Update.Type.MODIFY, valueSet(pairs, exact(1, 1).toBuilder().addMatch(
                        exactField(2, 0x10)).build()))).code());
        assertEquals(EntityException.Code.OUT_OF_RANGE, assertThrows(EntityException.class,
                () -> d.entities.apply(Update.Type.MODIFY, valueSet(types, exact(1, 0x10000)))).code());
        d.entities.apply(Update.Type.MODIFY, typesEntry);
        assertEquals(EntityException.Code.ALREADY_EXISTS, assertThrows(EntityException.class,
                () -> d.entities.apply(Update.Type.MODIFY, valueSet(types, exact(1, 0x0800), exact(1, 0x0800)))).code(),
                "a member twice (P4Runtime 9.6)");
        assertEquals(List.of(typesEntry), d.entities.read(valueSet(types)), "a refused MODIFY leaves the members");
    }

    private static Entity valueSet(int id, ValueSetMember... members) {
        return Entity.newBuilder().setValueSetEntry(ValueSetEntry.newBuilder().setValueSetId(id)
                .addAllMembers(List.of(members))).build();
    }

    private static ValueSetMember exact(int field, long value) {
        return ValueSetMember.newBuilder().addMatch(exactField(field, value)).build();
    }

    private static FieldMatch ternary(int field, long value, long mask) {
        return FieldMatch.newBuilder().setFieldId(field).setTernary(FieldMatch.Ternary.newBuilder()
                .setValue(Entities.bytes(BigInteger.valueOf(value))).setMask(Entities.bytes(BigInteger.valueOf(mask)))).build();
    }

    private static FieldMatch exactField(int field, long value) {
        return FieldMatch.newBuilder().setFieldId(field).setExact(FieldMatch.Exact.newBuilder()
                .setValue(Entities.bytes(BigInteger.valueOf(value)))).build();
    }

    private static p4.config.v1.P4InfoOuterClass.ValueSet valueSetInfo(p4.config.v1.P4InfoOuterClass.P4Info info, String name) {
        return info.getValueSetsList().stream().filter(v -> v.getPreamble().getName().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void forLoopsWithBreakAndContinue() {
        // n = 6: sum 1..6 = 21, five even numbers in 0..9, 3 * 2 == 6, 2 | 4 | 8
        assertEquals(List.of("06" + "15" + "05" + "02" + "0e"), run("for_loops.p4", "06 00 00 00 00"));
        // n = 5: sum 15; 3 * i == 5 (mod 256) first at i = 87, found by running up to the range's end
        assertEquals(List.of("05" + "0f" + "05" + "57" + "0e"), run("for_loops.p4", "05 00 00 00 00"));
        // n = 0: the three-clause loop does not run
        assertEquals(List.of("00" + "00" + "05" + "00" + "0e"), run("for_loops.p4", "00 00 00 00 00"));
    }

    @Test
    void forOverAHeaderStackTakesCopiesAndAConditionalChoosesHeadersAndStructs() {
        // two elements summed (the element set valid during the loop is not seen); sel 1: a chosen
        // (sum_of(a) = 0x15, chosen = a), the struct choice takes two: b.y = b.x, the lists' {3, 4}:
        // a.x + 4; the deparser's choice emits a again
        assertEquals(List.of("0201030215" + "010240" + "0e0b" + "0c0c" + "0a0b" + "0e0b"),
                run("for_over_stacks_and_choices.p4", "02 01 00 00 00 01 02 0a 0b 0c 0d"));
        // no element; sel 2: b for sum_of (0x19), chosen invalid ({#}), one for the struct: b.y = a.x,
        // {1, 2}: a.x + 2
        assertEquals(List.of("0002000019" + "40" + "0c0b" + "0c0a" + "0c0b"),
                run("for_over_stacks_and_choices.p4", "00 02 00 00 00 0a 0b 0c 0d"));
        // one element; sel 3: b for both header choices
        assertEquals(List.of("0103070119" + "0740" + "0e0b" + "0c0a" + "0c0d" + "0e0b"),
                run("for_over_stacks_and_choices.p4", "01 03 00 00 00 07 0a 0b 0c 0d"));
    }

    @Test
    void smallerPrioritiesWinWhereTheTableSaysSo() {
        assertEquals(List.of("120300"), run("smallest_priority_wins.p4", "12 00 00"));
        assertEquals(List.of("130300"), run("smallest_priority_wins.p4", "13 00 00"));
        assertEquals(List.of("210100"), run("smallest_priority_wins.p4", "21 00 00"));
        assertEquals(List.of("330600"), run("smallest_priority_wins.p4", "33 00 00"));
        assertEquals(List.of("340700"), run("smallest_priority_wins.p4", "34 00 00"));
        assertEquals(List.of("410001"), run("smallest_priority_wins.p4", "41 00 00"));
        assertEquals(List.of("500005"), run("smallest_priority_wins.p4", "50 00 00"));
        assertEquals(List.of("990000"), run("smallest_priority_wins.p4", "99 00 00"));
    }

    @Test
    void externInstancesGivenAsConstructorArgumentsAreShared() throws EntityException {
        Driven d = new Driven("extern_constructor_arguments.p4");
        // first and second add into the one shared register: a = 0 + 1, b = 1 + 2; apart into its own
        assertEquals("1:" + "01" + "03" + "05", out(d.sw, "01 02 05"));
        assertEquals("1:" + "04" + "06" + "0b", out(d.sw, "01 02 06"));
        // no other register or counter than the three declared; the counter counted every apply
        assertEquals(List.of("I.shared", "kept"), d.info.getRegistersList().stream()
                .map(r -> r.getPreamble().getName()).sorted().collect(Collectors.toList()));
        assertEquals(1, d.info.getCountersCount());
        Entity bumps = Entity.newBuilder().setCounterEntry(p4.v1.P4RuntimeOuterClass.CounterEntry.newBuilder()
                .setCounterId(d.info.getCounters(0).getPreamble().getId())
                .setIndex(p4.v1.P4RuntimeOuterClass.Index.newBuilder().setIndex(0))).build();
        assertEquals(6, d.entities.read(bumps).get(0).getCounterEntry().getData().getPacketCount());
    }

    @Test
    void externInstancesGivenAtApplyAreUsedByReference() throws EntityException {
        Driven d = new Driven("extern_apply_arguments.p4");
        // a, b: one Bump adds each into 'shared' (1, then 1 + 2); c: the Bump Twice was given adds it into 'apart'
        // twice (3, 6); d: what the sub-parser wrote into the register it was given (a as it came);
        // e: d plus what the constructed sub-parser wrote (b as it came)
        assertEquals("1:" + "01" + "03" + "06" + "01" + "03", out(d.sw, "01 02 03 00 00"));
        assertEquals("1:" + "04" + "06" + "12" + "01" + "03", out(d.sw, "01 02 03 00 00"));
        // the registers declared, each once (the parser's own among them), and one counter, which
        // every Bump counted into: two applies of first and two of once (by Twice) per packet
        assertEquals(List.of("I.apart", "I.shared", "P.mine", "seen"), d.info.getRegistersList().stream()
                .map(r -> r.getPreamble().getName()).sorted().collect(Collectors.toList()));
        assertEquals(1, d.info.getCountersCount());
        Entity bumps = Entity.newBuilder().setCounterEntry(p4.v1.P4RuntimeOuterClass.CounterEntry.newBuilder()
                .setCounterId(d.info.getCounters(0).getPreamble().getId())
                .setIndex(p4.v1.P4RuntimeOuterClass.Index.newBuilder().setIndex(0))).build();
        assertEquals(8, d.entities.read(bumps).get(0).getCounterEntry().getData().getPacketCount());
    }

    @Test
    void aVarbitsDefaultValueIsEmpty() {
        // w = {0x77, ...} then its len = b: two bytes, no options; v keeps its two bytes of options
        assertEquals(List.of("0200" + "0a0bcc" + "00"), run("varbit_default.p4", "02 00 0a 0b cc"));
        // b = 1: v = {0x55, ...} loses them
        assertEquals(List.of("0201" + "55" + "01"), run("varbit_default.p4", "02 01 0a 0b cc"));
    }

    @Test
    void aListGivenWhereATypeArgumentNamesAStructHasItsFieldsTypes() {
        // both hashes are CRC-16 (ARC) of the bytes 07 03: the list's 3 is S's bit<8>
        assertEquals(List.of("07" + "3142" + "3142"), run("list_as_struct_argument.p4", "07 0000 0000"));
    }

    @Test
    void zeroWidthBitStringsHoldNothingAndTakeNoBits() {
        // h is a then b on the wire (z takes no bits); o: equal, (bit<8>) z + 1, a ++ v ++ b, b + 3,
        // the meter's colour in a bit<0> (0), the low byte of z ++ a 64-bit value
        assertEquals(List.of("1122" + "01" + "01" + "1122" + "25" + "00" + "88"), run("zero_width.p4", "11 22"));
    }

    @Test
    void signedValuesWiderThan64BitsAreTwosComplement() {
        String a = "fffffffffffffffffe";   // -2
        String b = "000000000000000005";   // 5
        String zero = "000000000000000000";
        // -2 < 5 and > -5; -2 >> 100 is all ones; -2 + 5 = 3; 5 |+| max = max; (int<72>) -3; 0x80 >> 2^64
        assertEquals(List.of(a + b + "01" + "ff" + "000000000000000003" + "7fffffffffffffffff" + "fffffffffffffffffd" + "00"),
                run("wide_signed.p4", a + b + "00" + "00" + zero + zero + zero + "00"));
    }

    @Test
    void aVarbitFieldOfAStructKeepsItsLengthThroughCopies() {
        // two bytes of options saved in a struct, copied, compared and given to a second header
        assertEquals(List.of("0201" + "aabb" + "aabb"), run("varbit_in_struct.p4", "02 00 aabb"));
        // none: both empty, equal
        assertEquals(List.of("0001"), run("varbit_in_struct.p4", "00 00"));
    }

    @Test
    void mainsPackageGivesConstructorArguments() {
        Driven d = new Driven("main_constructor_arguments.p4");
        // the parser adds its step (1) to b; the ingress adds 10 and what the register kept to a
        assertEquals("1:" + "0f" + "01", out(d.sw, "05 00"));
        assertEquals("1:" + "1e" + "03", out(d.sw, "05 02"));
        assertEquals(List.of("last"), d.info.getRegistersList().stream().map(r -> r.getPreamble().getName())
                .collect(Collectors.toList()));
    }

    @Test
    void aSelectRangeOverASignedKeyComparesSignedNumbers() {
        assertEquals(List.of("fd01"), run("signed_select_range.p4", "fd 00"));   // -3
        assertEquals(List.of("0401"), run("signed_select_range.p4", "04 00"));
        assertEquals(List.of("fb01"), run("signed_select_range.p4", "fb 00"));   // -5, the bound
        assertEquals(List.of("6400"), run("signed_select_range.p4", "64 00"));   // 100
        assertEquals(List.of("9c00"), run("signed_select_range.p4", "9c 00"));   // -100
    }

    @Test
    void aTypedefOfAnExternTypeInstantiatesIt() {
        Driven d = new Driven("typedef_extern.p4");
        // each packet leaves with the value the one before it left in the register<bit<8>>
        assertEquals("1:00", out(d.sw, "05"));
        assertEquals("1:05", out(d.sw, "07"));
        assertEquals(8, d.info.getRegisters(0).getTypeSpec().getBitstring().getBit().getBitwidth());
    }

    @Test
    void varbitFieldsTakeTheirLengthFromExtract() {
        // one 32-bit word of options, emitted twice (the header and its copy)
        assertEquals(List.of("1106" + "aabbccdd" + "08" + "aabbccdd" + "99"), run("varbit.p4", "11 06 aabbccdd 07 99"));
        // no options: an empty varbit
        assertEquals(List.of("1006" + "08" + "99"), run("varbit.p4", "10 06 07 99"));
        // three words (96 bits)
        assertEquals(List.of("1306" + "000102030405060708090a0b" + "08" + "000102030405060708090a0b" + "99"),
                run("varbit.p4", "13 06 000102030405060708090a0b 07 99"));
        // 15 words = 480 bits > varbit<320>: HeaderTooShort, nothing after the base header is parsed
        String words15 = "00".repeat(59) + "01";
        assertEquals(List.of("1fee" + words15 + "0799"), run("varbit.p4", "1f 06" + words15 + "07 99"));
        // ... and with fewer bytes left than the length asks: PacketTooShort, checked first
        assertEquals(List.of("1fdd" + "0102030405"), run("varbit.p4", "1f 06 0102030405"));
    }

    @Test
    void varbitFieldsCompareByLengthAndBitsAndGoIntoChecksumsAtTheirLength() {
        // Checksums worked by hand: csum16 over words_a, words_b, flags (8 bits) and a.v at its length.
        // One word each, the same bits, the checksum right (0x7766 over 1100 aabb ccdd): equal; new checksum over 1101 aabb ccdd
        assertEquals(List.of("1101" + "7765" + "aabbccdd" + "aabbccdd" + "99"), run("varbit_values.p4", "11 00 7766 aabbccdd aabbccdd 99"));
        // the same with a wrong checksum: checksum_error set (0x80)
        assertEquals(List.of("1181" + "76e5" + "aabbccdd" + "aabbccdd" + "99"), run("varbit_values.p4", "11 00 0000 aabbccdd aabbccdd 99"));
        // one word against two: different
        assertEquals(List.of("1202" + "7664" + "aabbccdd" + "aabbccddeeff0011" + "99"),
                run("varbit_values.p4", "12 00 7666 aabbccdd aabbccddeeff0011 99"));
        // zeros of different lengths: the same number, not the same varbit
        assertEquals(List.of("1202" + "edfd" + "00000000" + "0000000000000000" + "99"),
                run("varbit_values.p4", "12 00 edff 00000000 0000000000000000 99"));
        // both empty: equal, and the checksum covers no varbit bits
        assertEquals(List.of("0001" + "fffe" + "99"), run("varbit_values.p4", "00 00 ffff 99"));
    }

    @Test
    void headersAndStructsCompareFieldByFieldAndByValidity() {
        // both valid, the same fields: a == b, and the structs holding them are equal (1 | 4)
        assertEquals(List.of("010105" + "112222" + "112222" + "99"), run("header_equality.p4", "01 01 00 112222 112222 99"));
        // both valid, one field differs: a != b (2)
        assertEquals(List.of("010102" + "112222" + "112223" + "99"), run("header_equality.p4", "01 01 00 112222 112223 99"));
        // a valid, b invalid: not equal (2)
        assertEquals(List.of("010002" + "112222" + "99"), run("header_equality.p4", "01 00 00 112222 99"));
        // both invalid: equal, whatever their fields hold (1 | 4)
        assertEquals(List.of("000005" + "99"), run("header_equality.p4", "00 00 00 99"));
    }

    @Test
    void genericFunctionsAreCompiledForEachBindingOfTheirTypes() {
        // a and b swapped (bit<8>); c the larger of itself and 0x0100 (bit<16>); then a = larger(7, 3)
        assertEquals(List.of("07" + "11" + "0100" + "99"), run("generic_functions.p4", "11 22 0042 99"));
        assertEquals(List.of("07" + "11" + "0500" + "99"), run("generic_functions.p4", "11 22 0500 99"));
    }

    @Test
    void defaultValuesAndTheInvalidHeader() {
        // in_h as it came; made = { b = in_h.a, ... }, valid; gone, u and the default header not
        // emitted; res: Kind 0, Colour.RED, error.NoError, false, 0, the tuple { 7, false }, every
        // comparison with {#} true (0x1f), and valid_of({#}) 0, valid_of({ a = 1, ... }) 1 (0x02)
        assertEquals(List.of("aabbcccc" + "00aa0000" + "00" + "01" + "01" + "00" + "00" + "07" + "00" + "1f" + "02" + "99"),
                run("default_values.p4", "aabbcccc 11223333 99"));
    }

    @Test
    void functionsReturnHeadersAndStructsOnceWhereTheStatementStands() {
        // h = {0x10, 0x20}: bumped gives x = 0x11; swapped exchanges x and y; the second call of fresh
        // returned an invalid header, the fourth a valid {0xaa, 4}, which made takes
        assertEquals(List.of("2011" + "aa04" + "99"), run("function_aggregate_result.p4", "10 20 99"));
    }

    @Test
    void extractIntoDontCareSkipsAHeaderAndChecksItsLength() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("extract_dontcare.p4")));
        // the two bytes of skipped_t are gone; b and the payload remain
        assertEquals("1:2299", out(sw, "1111 22 99"));
        // one byte: too short for skipped_t, and b never extracted
        assertEquals("2:11", out(sw, "11"));
    }

    @Test
    void aTableDeclaredWithEmptyParenthesesIsAnOrdinaryTable() {
        Program p = Frontend.compile(PROGRAMS.resolve("table_empty_parens.p4"));
        assertEquals(List.of("I.t"), p.tables.stream().map(t -> t.name).collect(Collectors.toList()));
        V1ModelSwitch sw = new V1ModelSwitch(p);
        assertEquals("1:0111", out(sw, "01 00"));   // the const entry
        assertEquals("1:02ee", out(sw, "02 00"));   // the default action
    }

    @Test
    void annotationBodiesOfAnyTokensAndStructuredAnnotationsAreRead() {
        Program p = Frontend.compile(PROGRAMS.resolve("annotation_bodies.p4"));
        Table t = p.tables.get(0);
        assertEquals("renamed", t.name);                                  // @name["..."]: a leading dot names it globally
        assertEquals(List.of(String.valueOf(0x0200abcd)), t.annotations.get("id"));
        assertEquals(List.of("exact,bit<8>key"), t.annotations.get("match"));   // kept as tokens
        V1ModelSwitch sw = new V1ModelSwitch(p);
        assertEquals("1:0111", out(sw, "01 00"));
        assertEquals("1:02ee", out(sw, "02 00"));
    }

    @Test
    void markToDropWithoutAnArgumentDropsThePacket() {
        assertEquals(List.of("0199"), run("mark_to_drop_no_argument.p4", "01 99"));
        assertEquals(List.of(), run("mark_to_drop_no_argument.p4", "00 99"));
    }

    @Test
    void aSerializableEnumKeyTakesMasksOfItsUnderlyingType() {
        assertEquals(List.of("0a01" + "01"), run("enum_key_mask.p4", "0a01 00"));   // Kind.A
        assertEquals(List.of("0bff" + "02"), run("enum_key_mask.p4", "0bff 00"));   // 0x0b00 &&& 0xff00
        assertEquals(List.of("0a02" + "ee"), run("enum_key_mask.p4", "0a02 00"));   // neither: the default
    }

    @Test
    void lookaheadOfAStructPeeksAndALookaheadAloneOnlyReads() {
        // peek: version 1, flags 2, kind 0x77: h extracted; first = the nibbles swapped
        assertEquals(List.of("21" + "1277" + "99"), run("lookahead_struct.p4", "12 77 99"));
        // kind 0x66: h not extracted, the bytes stay payload
        assertEquals(List.of("21" + "1266" + "99"), run("lookahead_struct.p4", "12 66 99"));
    }

    @Test
    void controlsAndParsersTakeConstructorArguments() {
        Program p = Frontend.compile(PROGRAMS.resolve("constructor_parameters.p4"));
        // each instance has its own table
        assertEquals(List.of("I.first.t", "I.other.t"), p.tables.stream().map(t -> t.name).sorted().collect(Collectors.toList()));
        V1ModelSwitch sw = new V1ModelSwitch(p);
        // Tail adds its 0x10 to t.v; first (port 3) writes a, other (port 4, second = true) writes b
        assertEquals("3:01a100" + "15" + "99", out(sw, "01 00 00 05 99"));
        assertEquals("4:0200b2" + "15" + "99", out(sw, "02 00 00 05 99"));
    }

    @Test
    void aSerializableEnumGoesWhereItsUnderlyingTypeIsExpected() {
        assertEquals(List.of("011012"), run("enum_implicit_cast.p4", "01 10 00"));   // Op.Add: a + Op.Sub
        assertEquals(List.of("021006"), run("enum_implicit_cast.p4", "02 10 00"));   // twice(2) + twice(1)
    }

    @Test
    void mainsBlocksMayBeNamedInAnyOrder() {
        // ingress adds 1, then egress doubles: (3 + 1) << 1
        assertEquals("2:0899", out(new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("named_package_arguments.p4"))), "03 99"));
    }

    @Test
    void aHeaderThatIsNotWholeBytesIsPaddedToThemOnTheWire() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("header_not_whole_bytes.p4")));
        // flag 1 and 0x7f of padding, written back; the tag made valid: 5 in its 3 bits, then 0s
        assertEquals("1:a0" + "06ff" + "99", out(sw, "05 ff 99"));
        // flag 0 and 0x40 of padding
        assertEquals("2:0640" + "99", out(sw, "05 40 99"));
    }

    @Test
    void aStackOfHeaderUnionsTakesExtractsIntoItsNextElementsMembers() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("header_union_stack.p4")));
        // two wide elements: the narrow member made valid in element 0 is invalid again, not emitted
        assertEquals("2:03" + "1235" + "5678" + "99", out(sw, "03 1234 5678 99"));
        assertEquals("1:00" + "11" + "aa" + "99", out(sw, "00 11 22 99"));     // two narrow ones
        assertEquals("2:02" + "11" + "5678" + "99", out(sw, "02 11 5678 99"));  // narrow, then wide
        assertEquals(List.of(), run("header_union_stack.p4", "03 1234"));       // element 1 missing: dropped
    }

    @Test
    void aVarbitMemberExtractedIntoAStackOfHeaderUnionsMovesItsNextIndexOn() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("header_union_stack_varbit.p4")));
        // sized (4 bytes), fixed, sized (2 bytes): three elements, all emitted
        assertEquals("3:" + "0504aabb" + "00" + "0702" + "ff", out(sw, "0504aabb 00 0702 ff"));
        // fixed, then sized (6 bytes): the sized option is element 1, not written over element 0
        assertEquals("2:" + "00" + "0906a1a2a3a4" + "ff", out(sw, "00 0906a1a2a3a4 ff"));
    }

    @Test
    void constantsOfStructAndHeaderTypesAreReadComparedPassedAndAssigned() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("struct_constants.p4")));
        // byte 3 names the constant the first two bytes equal; byte 4 is 9 + 8 + (3 + 4) + 0x20
        assertEquals("1:01020138", out(sw, "01020000"));
        assertEquals("1:03040238", out(sw, "03040000"));
        assertEquals("1:05060638", out(sw, "05060000"));   // equal to (inner_t) { x = 5, y = 6 }: LOCAL.y
        assertEquals("1:09090338", out(sw, "09090000"));
        // a header constant assigned whole: valid, its fields, equal to itself
        assertEquals("2:11000338" + "1122", out(sw, "11000000"));
    }

    @Test
    void aDotNamesTheTopLevelActionInAnActionsListAndADefaultAction() {
        Program p = Frontend.compile(PROGRAMS.resolve("top_level_action_ref.p4"));
        assertEquals(List.of("mark"), p.table("I.t").actions.stream().map(r -> r.action.name).collect(Collectors.toList()));
        assertEquals("1:01", out(new V1ModelSwitch(p), "09"));   // the top-level mark writes 1, the control's 2
    }

    @Test
    void tuplesAreStructFieldsTheEmptyTupleToo() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("tuple_fields.p4")));
        assertEquals("1:0607", out(sw, "0500"));   // { a + 1, b == 0 }: 6, and true gives 7
        assertEquals("1:0609", out(sw, "0503"));   // b != 0: false gives 9
    }

    @Test
    void aFieldOfAFunctionsStructResultIsReadAfterItsCall() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("field_of_call_result.p4")));
        assertEquals("1:050d02", out(sw, "050000"));   // (5 + 1) + (5 + 2), and the function called twice
    }

    @Test
    void aStackIsAssignedFromAListOfItsElementsValues() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("stack_expressions.p4")));
        assertEquals("1:011101", out(sw, "01aa"));   // { { 0x11 }, {#}, first }: the invalid one not emitted
        assertEquals("1:0222aa", out(sw, "02aa"));   // { tags[2] (invalid), { 0x22 }, tags[0] }, read first
    }

    @Test
    void aControlInstanceGivenToTwoControlsIsOneInstance() {
        Program p = Frontend.compile(PROGRAMS.resolve("control_instance_arguments.p4"));
        assertEquals(List.of("I.b.t"), p.tables.stream().map(t -> t.name).collect(Collectors.toList()));
        V1ModelSwitch sw = new V1ModelSwitch(p);
        assertEquals("1:0019", out(sw, "0001"));   // ((1 << 1) + 1) << 3, + 1
        // one entry of the shared table serves both: its default action now adds 4
        p.table("I.b.t").setDefaultAction(P4Programs.call(p, "I.b.add", 4));
        assertEquals("1:0034", out(sw, "0001"));   // ((1 << 1) + 4) << 3, + 4
    }

    @Test
    void headersWithAVarbitFieldFillAStackAndStacksCompare() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("varbit_stack.p4")));
        // three equal headers: h == a[0], [h, a[0]] == a, a[0] == a[1]
        assertEquals("1:01aabb" + "01aabb" + "01aabb" + "03" + "99", out(sw, "01aabb 01aabb 01aabb 99"));
        // a[1] differs: only h == a[0], and a[0] != a[1]
        assertEquals("1:01aabb" + "01aabb" + "02ccdd" + "05" + "99", out(sw, "01aabb 01aabb 02ccdd 99"));
    }

    @Test
    void logMsgPrintsAPlainEnumAndAnErrorAsTheirNumbers() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("log_msg_enum_error.p4")));
        List<String> lines = new java.util.ArrayList<>();
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override public void publish(java.util.logging.LogRecord r) {
                lines.add(r.getMessage());
            }

            @Override public void flush() {
            }

            @Override public void close() {
            }
        };
        java.util.logging.Level was = V1ModelSwitch.LOG.getLevel();
        V1ModelSwitch.LOG.addHandler(capture);
        V1ModelSwitch.LOG.setLevel(java.util.logging.Level.FINE);
        try {
            out(sw, "01");
        } finally {
            V1ModelSwitch.LOG.removeHandler(capture);
            V1ModelSwitch.LOG.setLevel(was);
        }
        assertEquals(List.of("color=2 error=0 a=1"), lines);   // Color.Blue, error.NoError
    }

    @Test
    void tupleVariablesTakeListsCopiesAndConstantIndices() {
        // a = 0x01 + 0x20, b bumped once, c = 3 + 0x100 (u == t), d the identity hash of t's 24 bits
        // modulo 0xffff; b was 5 when the list read it
        assertEquals("1:2106" + "0103" + "0004",
                out(new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("tuple_variables.p4"))), "01 05 0003 0000"));
    }

    @Test
    void aLookaheadPastThePacketsEndRejectsWithPacketTooShort() {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve("lookahead_past_the_end.p4")));
        assertEquals("1:01" + "1122334455667788", out(sw, "01 1122334455667788"));   // 8 bytes to peek at
        assertEquals(2, port(sw, "01 1122"));                                         // a header's lookahead alone
        assertEquals(3, port(sw, "02 11223344"));                                     // 32 bits for the select
        assertEquals(2, port(sw, "02 1122"));                                         // rejected before 'marked'
        assertEquals(3, port(sw, "03 11223344"));
        assertEquals(2, port(sw, "03 1122"));                                         // rejected before meta.marked = 1
    }

    private static int port(V1ModelSwitch sw, String input) {
        List<V1ModelSwitch.Output> o = sw.process(0, bytes(input));
        assertEquals(1, o.size());
        return o.get(0).port;
    }

    @Test
    void argumentsLeftOutTakeTheirParametersDefaults() {
        assertEquals(List.of("10" + "21" + "77"), run("default_arguments.p4", "00 20 00"));   // every default
        assertEquals(List.of("04" + "25" + "11"), run("default_arguments.p4", "01 20 00"));   // some, by name
    }

    @Test
    void varbitValuesAssignWithTheirLength() {
        // a: one word, b: two words; swapped, a emits b's two words and b a's one (base unchanged)
        assertEquals(List.of("12" + "0000000200000003" + "00000001" + "99"),
                run("varbit_assign.p4", "12 00000001 0000000200000003 99"));
        // a empty, b one word: after the swap a holds one word; with b empty too, a holds no bits (0xf)
        assertEquals(List.of("01" + "aabbccdd" + "99"), run("varbit_assign.p4", "01 aabbccdd 99"));
        assertEquals(List.of("f0" + "99"), run("varbit_assign.p4", "00 99"));
    }
}
