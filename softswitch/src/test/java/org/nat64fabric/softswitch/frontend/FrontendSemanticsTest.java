package org.nat64fabric.softswitch.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.softswitch.testutil.P4Programs.bytes;
import static org.nat64fabric.softswitch.testutil.P4Programs.hex;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.testutil.P4Programs;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;

/**
 * What the frontend makes of constructs whose meaning the specification fixes: each program runs
 * in the interpreter on one packet, and the test reads back the bytes it emits.
 */
class FrontendSemanticsTest {
    @TempDir
    Path dir;

    /** A packet of one byte h.a followed by four one-byte stack elements s[0..3]. */
    private static final String HEADERS = String.join("\n",
            "header h_t { bit<8> a; }",
            "header s_t { bit<8> v; }",
            "struct headers_t { h_t h; s_t[4] s; }",
            "struct meta_t { bit<32> i; bit<8> x; }");
    private static final String PARSE_ALL = "state start { pkt.extract(hdr.h); pkt.extract(hdr.s[0]); pkt.extract(hdr.s[1]);"
            + " pkt.extract(hdr.s[2]); pkt.extract(hdr.s[3]); transition accept; }";
    private static final String EMIT_ALL = "pkt.emit(hdr.h); pkt.emit(hdr.s);";

    private String run(String topLevel, String ingressDecls, String ingressApply, String input) {
        String source = P4Programs.v1(HEADERS + "\n" + topLevel, PARSE_ALL, ingressDecls,
                "sm.egress_spec = 1;\n" + ingressApply, "", EMIT_ALL);
        Program p = P4Programs.compile(dir, source);
        return hex(new V1ModelSwitch(p).process(0, bytes(input)).get(0).data);
    }

    private static final String BUMP = "bit<32> bump(inout bit<32> i) { i = i + 1; return i; }";

    @Test
    void aLeftHandSideIndexIsEvaluatedBeforeTheRightHandSide() {
        // P4_16 6.7: the index bump() of the left side runs first (i = 1), then the right side's (i = 2)
        assertEquals("00" + "00" + "02" + "00" + "00", run(BUMP, "",
                "meta.i = 0; hdr.s[bump(meta.i)].v = (bit<8>) bump(meta.i);", "00 00 00 00 00"));
    }

    @Test
    void anInoutArgumentIsEvaluatedOnceForCopyInAndCopyOut() {
        assertEquals("00" + "00" + "0b" + "14" + "1e", run(BUMP,
                "action incr(inout bit<8> x) { x = x + 1; }",
                "meta.i = 0; incr(hdr.s[bump(meta.i)].v);", "00 00 0a 14 1e"));
    }

    @Test
    void anInoutHeaderIsCopiedInAndOutWhileTheActionNamesItsVariableToo() {
        // P4_16 6.8: x is a copy of hdr.s[0]; hdr.s[0] read by name inside the action is the
        // value before the call (0x0a), and the copy-out (0x66) lands after the body.
        assertEquals("0a" + "66" + "14" + "1e" + "28", run("",
                "action set(inout s_t x) { x.v = 0x66; hdr.h.a = hdr.s[0].v; }",
                "set(hdr.s[0]);", "00 0a 14 1e 28"));
    }

    @Test
    void anInoutHeaderIsCopiedInAndOutWhileAnActionItCallsNamesItsVariable() {
        // the same through a call: inner names hdr.s[0], outer only its parameter
        assertEquals("0a" + "66" + "14" + "1e" + "28", run("",
                "action inner() { hdr.h.a = hdr.s[0].v; }"
                + "action outer(inout s_t x) { x.v = 0x66; inner(); }",
                "outer(hdr.s[0]);", "00 0a 14 1e 28"));
    }

    @Test
    void argumentsThatOverlapAreCopiesCopiedBackLeftToRight() {
        // P4_16 6.8: each argument is a temporary, never aliased to another, copied back in order
        String top = "void twice(inout s_t a, inout s_t b) { a.v = 1; b.v = b.v + 2; }"
                + "void field(inout bit<8> x, inout s_t whole) { x = 0x77; }"
                + "void stack(inout s_t[4] st, inout s_t e) { st[0].v = 0x55; e.v = e.v + 1; }"
                + "bit<8> touch(inout s_t e) { e.v = 0x44; return 0; }"
                + "void later(inout s_t e, in bit<8> unused) { e.v = e.v + 1; }";
        // twice: b is its own copy (0x0a + 2), copied back last; field: whole copied back after x;
        // stack: e (s[2] + 1) copied back after st; later: e copied in before touch() changed s[3]
        assertEquals("0c" + "55" + "0a" + "15" + "1f", run(top, "",
                "twice(hdr.s[0], hdr.s[0]); hdr.h.a = hdr.s[0].v;"
                + "field(hdr.s[1].v, hdr.s[1]); stack(hdr.s, hdr.s[2]); later(hdr.s[3], touch(hdr.s[3]));",
                "00 0a 0a 14 1e"));
        // the same for a control applied with one header twice, and for an action called directly
        assertEquals("0c" + "0e" + "14" + "1e" + "28", run(
                "control Twice(inout s_t a, inout s_t b) { apply { a.v = 1; b.v = b.v + 2; } }",
                "Twice() t; action act(inout s_t a, inout s_t b) { a.v = 1; b.v = b.v + 2; }",
                "t.apply(hdr.s[0], hdr.s[0]); hdr.h.a = hdr.s[0].v; act(hdr.s[0], hdr.s[0]);", "00 0a 14 1e 28"));
        // an action a table runs with arguments bound in its list; an index holding a slice, a stack's element
        assertEquals("00" + "0b" + "14" + "20" + "28", run(top,
                "action f(inout bit<8> y, inout s_t x) { y = 7; x.v = x.v + 1; }"
                + "table u { actions = { f(hdr.s[0].v, hdr.s[0]); } default_action = f(hdr.s[0].v, hdr.s[0]); }",
                "u.apply(); meta.x = 2; twice(hdr.s[meta.x[1:0]], hdr.s[2]);", "00 0a 14 1e 28"));
    }

    @Test
    void anInoutStructIsCopiedInAndOutWhileTheActionNamesItsVariableToo() {
        assertEquals("22" + "77" + "14" + "1e" + "28", run("",
                "action set(inout meta_t x) { x.x = 0x77; hdr.h.a = meta.x; hdr.s[0].v = x.x; }",
                "meta.x = 0x22; set(meta);", "00 0a 14 1e 28"));
    }

    @Test
    void literalsTakeTheOtherOperandsWidthAndSizesAndStructCastsAreConstants() {
        // P4_16: x | 0xF01 on bit<8> is x | 8w0x01 (the literal cut to the width);
        // h_t.minSizeInBits() is 8, meta_t.maxSizeInBytes() 5; (S){ ... } names the struct type.
        assertEquals("0b" + "08" + "05" + "14" + "28", run("struct S { bit<8> a; bit<8> b; }", "",
                "S s = (S){ b = 20, a = 10 };"
                + "hdr.h.a = 0xF00 | s.a | 0xF01;"   // cut on either side
                + "hdr.s[0].v = (bit<8>) hdr.h.minSizeInBits();"
                + "hdr.s[1].v = (bit<8>) meta.maxSizeInBytes();"
                + "hdr.s[2].v = s.b;", "00 00 00 00 28"));
    }

    @Test
    void anIntThatDoesNotFitWhereItGoesIsCutWithAWarning() {
        // P4_16 8.11.2: an implicit cast, as (bit<8>) 300 = 44; "overflow warning"
        String source = P4Programs.v1(HEADERS, PARSE_ALL, "",
                "sm.egress_spec = 1; hdr.h.a = 300; if (hdr.s[0].v < 300) { hdr.s[1].v = 1; }", "", EMIT_ALL);
        Program p = P4Programs.compile(dir, source);
        assertEquals(2, p.warnings.size(), p.warnings.toString());   // each place once
        for (String w : p.warnings) {
            assertTrue(w.matches(".*prog\\.p4:\\d+:\\d+: warning: the value 300 does not fit in bit<8>: it is cut to 44 .*"), w);
        }
        // s[0] = 0x2b < 44: s[1] set; 0x2c is not below 44
        assertEquals("2c" + "2b" + "01", hex(new V1ModelSwitch(p).process(0, bytes("00 2b 00 00 00")).get(0).data).substring(0, 6));
        assertEquals("2c" + "2c" + "00", hex(new V1ModelSwitch(p).process(0, bytes("00 2c 00 00 00")).get(0).data).substring(0, 6));
    }

    @Test
    void compileTimeValuesCastToIntSliceAsIntsAndTypesHaveSizes() {
        // P4_16 8.11.1: bit<W> and int<W> to int keep the value; an int's slice is of its two's
        // complement; minSizeInBits() of a type by its name
        assertEquals("05" + "fa" + "ff" + "fd" + "02", run(
                "const bit<8> C = 250; typedef bit<12> B12;", "",
                "hdr.h.a = (bit<8>) ((int) C + 10 - 255);"
                + "hdr.s[0].v = (bit<8>) ((int) (-8s3) * 2);"
                + "hdr.s[1].v = 0x1FF[7:0];"
                + "hdr.s[2].v = (-3)[7:0];"
                + "hdr.s[3].v = (bit<8>) B12.maxSizeInBytes();", "00 00 00 00 00"));
        RuntimeException e = assertThrows(RuntimeException.class, () -> run("", "",
                "hdr.h.a = (bit<8>) ((int) hdr.s[0].v);", "00 00 00 00 00"));
        assertTrue(e.getMessage().contains("only a compile-time known value can be an int"), e.getMessage());
    }

    @Test
    void aHeaderUnionsSizesAreItsLargestMembers() {
        // P4_16's table of sizes: a header_union's minSizeInBits and maxSizeInBits are the max over its fields
        assertEquals("10" + "02" + "10" + "20" + "10", run(
                "header a_t { bit<8> v; } header b_t { bit<16> v; } header_union U { a_t a; b_t b; }", "",
                "U u; U[2] us;"
                + "hdr.h.a = (bit<8>) u.minSizeInBits();"
                + "hdr.s[0].v = (bit<8>) u.minSizeInBytes();"
                + "hdr.s[1].v = (bit<8>) u.maxSizeInBits();"
                + "hdr.s[2].v = (bit<8>) us.minSizeInBits();"
                + "hdr.s[3].v = (bit<8>) U.minSizeInBits();", "00 00 00 00 28"));
    }

    private static final String TERNARY_TABLE = String.join("\n",
            "action set(bit<8> v) { hdr.h.a = v; }",
            "table t {",
            "  key = { hdr.h.a: ternary; }",
            "  actions = { set; }",
            "  %s",
            "}");

    private Program compileTable(String properties) {
        return P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSE_ALL, String.format(TERNARY_TABLE, properties),
                "sm.egress_spec = 1; t.apply();", "", EMIT_ALL));
    }

    private static String firstByteOut(Program p, String input) {
        return hex(new V1ModelSwitch(p).process(0, bytes(input)).get(0).data).substring(0, 2);
    }

    private static List<Integer> priorities(Program p) {
        return p.table("I.t").entries().stream().map(e -> e.priority).collect(Collectors.toList());
    }

    @Test
    void priorityAnnotationsOnEntriesDecideTheMatch() {
        // The catch-all is listed first but has the lower @priority: the specific entry wins. (In
        // 'const entries' the order alone ranks them, and a priority is an error: the corpus's
        // priority_in_const_entries.p4.)
        Program p = compileTable("entries = {"
                + " const 0x00 &&& 0x00 : set(1) @priority(1);"
                + " const 0x0f &&& 0x0f : set(2) @priority(10); }");
        assertEquals("02", firstByteOut(p, "0f 00 00 00 00"));
        assertEquals("01", firstByteOut(p, "10 00 00 00 00"));
        assertEquals(List.of(10, 1), sortedDescending(priorities(p)));
    }

    @Test
    void entriesWithoutPrioritiesRankInTheOrderWritten() {
        // 14.2.1.4: the last entry gets 1, each earlier one priority_delta more
        Program p = compileTable("priority_delta = 10; const entries = {"
                + " 0x0f &&& 0x0f : set(2);"
                + " 0x00 &&& 0x00 : set(1); }");
        assertEquals("02", firstByteOut(p, "0f 00 00 00 00"));
        assertEquals(List.of(11, 1), sortedDescending(priorities(p)));
    }

    @Test
    void anEntryWithoutAPriorityTakesItsPredecessorsMinusTheDelta() {
        Program p = compileTable("priority_delta = 5; entries = {"
                + " priority = 20: 0x01 &&& 0xff : set(1);"
                + " 0x02 &&& 0xff : set(2);"
                + " priority = 3: 0x03 &&& 0xff : set(3); }");
        assertEquals(List.of(20, 15, 3), sortedDescending(priorities(p)));
    }

    private static List<Integer> sortedDescending(List<Integer> v) {
        return v.stream().sorted((a, b) -> b - a).collect(Collectors.toList());
    }

    @Test
    void exactTablesKeepTheirConstEntriesWithoutPriority() {
        // P4Runtime: an entry of a table without ternary, range or optional fields has priority 0
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSE_ALL,
                "action set(bit<8> v) { hdr.h.a = v; }\n"
                + "table t { key = { hdr.h.a: exact; } actions = { set; } const entries = { 1: set(5); 2: set(6); } }",
                "sm.egress_spec = 1; t.apply();", "", EMIT_ALL));
        for (Table.Entry e : p.table("I.t").entries()) {
            assertEquals(0, e.priority);
        }
        assertEquals("06", firstByteOut(p, "02 00 00 00 00"));
    }

    @Test
    void controlLocalInitialisersRunAtEachApply() {
        // the initialiser gives 7 however the previous packet left the variable
        String decls = "bit<8> seven = 7;";
        String apply = "hdr.s[0].v = seven; seven = seven + 1; hdr.s[1].v = seven;";
        assertEquals("00" + "07" + "08" + "00" + "00", run("", decls, apply, "00 00 00 00 00"));
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSE_ALL, decls, "sm.egress_spec = 1;\n" + apply, "", EMIT_ALL));
        V1ModelSwitch sw = new V1ModelSwitch(p);
        sw.process(0, bytes("00 00 00 00 00"));
        assertEquals("0007080000", hex(sw.process(0, bytes("00 00 00 00 00")).get(0).data));
    }

    @Test
    void compoundAssignmentsOperateAndAssign() {
        // 10 += 5, 200 |+|= 100 (saturates), 1 <<= 3, 0xf0 ^= 0xff
        assertEquals("00" + "0f" + "ff" + "08" + "0f", run("", "",
                "hdr.s[0].v += 5; hdr.s[1].v |+|= 100; hdr.s[2].v <<= 3; hdr.s[3].v ^= 0xff;", "00 0a c8 01 f0"));
    }

    @Test
    void aCompoundAssignmentEvaluatesItsPlaceOnce() {
        assertEquals("00" + "0b" + "00" + "00" + "00", run(BUMP, "",
                "meta.i = 0; hdr.s[bump(meta.i) - 1].v += 1;", "00 0a 00 00 00"));
    }

    @Test
    void aTableWithAnEmptyActionListRunsNoAction() {
        // P4_16 14.2.1: the compiler adds NoAction as the default action (an actions property is
        // required: frontend-corpus/table_without_actions.p4)
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSE_ALL,
                "table t { key = { hdr.h.a: exact; } actions = { } }", "sm.egress_spec = 1; t.apply(); hdr.h.a = 9;", "", EMIT_ALL));
        assertEquals("NoAction", p.table("I.t").defaultAction().action.name);
        assertEquals("0901020304", hex(new V1ModelSwitch(p).process(0, bytes("00 01 02 03 04")).get(0).data));
    }

    @Test
    void anEntryKeysetMayBeAListOfAValuePerKeyField() {
        // as p4c takes them: { (4w1 ++ 4w2) } for one key field, { 3, 4 } for two
        String decls = "action set(bit<8> v) { hdr.s[0].v = v; }\n"
                + "table one { key = { hdr.h.a: exact; } actions = { set; } const entries = { { (4w1 ++ 4w2) } : set(0xaa); } }\n"
                + "table two { key = { hdr.h.a: exact; hdr.s[1].v: exact; } actions = { set; }"
                + " const entries = { { 3, 4 } : set(0xbb); } }";
        assertEquals("12" + "aa" + "00" + "00" + "00", run("", decls, "one.apply();", "12 00 00 00 00"));
        assertEquals("03" + "bb" + "04" + "00" + "00", run("", decls, "two.apply();", "03 00 04 00 00"));
    }

    @Test
    void logMsgTakesAFormatAndItsData() {
        run("", "", "log_msg(\"a={} s0={}\", {hdr.h.a, hdr.s[0].v}); log_msg(\"no data\");", "01 02 03 04 05");
    }

    @Test
    void aControlNothingInstantiatesIsCheckedButAddsNoTable() {
        // Checked as p4c checks every declaration (frontend-corpus/unused_control_type_error.p4 is
        // refused), but its tables are not the program's: they reach no P4Info.
        String spare = "control Spare(inout headers_t hdr, inout meta_t meta) {\n"
                + "    action set(bit<8> v) { meta.x = v; }\n"
                + "    table spare_table { key = { hdr.h.a: exact; } actions = { set; } }\n"
                + "    apply { spare_table.apply(); }\n}";
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS + "\n" + spare, PARSE_ALL,
                "table t { key = { hdr.h.a: exact; } actions = { } }", "sm.egress_spec = 1; t.apply();", "", EMIT_ALL));
        assertEquals(List.of("I.t"), p.tables.stream().map(t -> t.name).collect(Collectors.toList()));
    }

    @Test
    void aGenericControlIsBoundToTheTypesEachInstanceGives() {
        // One generic control, two instances: one swaps two bit<8> values, the other two headers
        // (the local variable t takes each instance's T); each instance keeps a table of its own.
        // Another takes a constructor argument of its T.
        String swap = "control Swap<T>(inout T a, inout T b) {\n"
                + "    table seen { key = { } actions = { NoAction; } }\n"
                + "    apply { seen.apply(); T t = a; a = b; b = t; }\n}\n"
                + "control Fill<T>(out T v)(T value) { apply { v = value; } }";
        String source = P4Programs.v1(HEADERS + "\n" + swap, PARSE_ALL,
                "Swap<bit<8>>() swap8; Swap<s_t>() swapS; Fill<bit<8>>(9) nine;",
                "sm.egress_spec = 1; swap8.apply(hdr.h.a, hdr.s[0].v); swapS.apply(hdr.s[1], hdr.s[2]);"
                + " nine.apply(hdr.s[3].v);", "", EMIT_ALL);
        Program p = P4Programs.compile(dir, source);
        assertEquals("02" + "01" + "04" + "03" + "09", hex(new V1ModelSwitch(p).process(0, bytes("01 02 03 04 05")).get(0).data));
        assertEquals(List.of("I.swap8.seen", "I.swapS.seen"), p.tables.stream().map(t -> t.name).sorted()
                .collect(Collectors.toList()));
    }

    @Test
    void aGenericSubParserExtractsTheHeaderTypeItIsGiven() {
        String take = "parser Take<H>(packet_in pkt, out H h) { state start { pkt.extract(h); transition accept; } }";
        String parse = "Take<h_t>() takeH; Take<s_t>() takeS;\n"
                + "state start { takeH.apply(pkt, hdr.h); takeS.apply(pkt, hdr.s[2]); transition accept; }";
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS + "\n" + take, parse, "", "sm.egress_spec = 1;", "",
                EMIT_ALL));
        // h takes the first byte, s[2] the second; the rest is the payload, after what is emitted
        assertEquals("07" + "08" + "0909", hex(new V1ModelSwitch(p).process(0, bytes("07 08 09 09")).get(0).data));
    }
}
