package org.nat64fabric.softswitch.v1model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.nat64fabric.softswitch.testutil.P4Programs.bytes;
import static org.nat64fabric.softswitch.testutil.P4Programs.hex;

import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.testutil.P4Programs;

/** Expression semantics, header stacks, checksum and hash externs. */
class ExpressionsTest {
    @TempDir
    Path dir;

    private static final String HEADERS = String.join("\n",
            "header h_t { bit<8> a; bit<8> b; bit<16> c; int<8> s; bit<32> d; bit<128> w; }",
            "header out_t { bit<64> r0; bit<64> r1; bit<64> r2; bit<64> r3; }",
            "header label_t { bit<8> v; bit<7> pad; bit<1> bos; }",
            "struct headers_t { h_t h; label_t[4] labels; label_t[4] copy; out_t o; }",
            "struct meta_t { bit<8> x; }");

    private String run(String parse, String ingress, String input) {
        return run("", parse, "", ingress, input);
    }

    /** With declarations after the headers ({@code global}) and in the ingress control ({@code decls}). */
    private String run(String global, String parse, String decls, String ingress, String input) {
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS + "\n" + global, parse, decls,
                "sm.egress_spec = 1; hdr.o.setValid();\n" + ingress, "", "pkt.emit(hdr.o);"));
        if (!"false".equals(System.getProperty("softswitch.jit"))) {
            assertNotSame(p.ingress, p.ingressCode, "ingress compiled to JVM bytecode");
        }
        return hex(new V1ModelSwitch(p).process(0, bytes(input)).get(0).data);
    }

    private static final String PARSE_H = "state start { pkt.extract(hdr.h); transition accept; }";
    /** Labels until the one with bottom-of-stack set. */
    private static final String PARSE_LABELS = String.join("\n",
            "state start { transition parse_label; }",
            "state parse_label { pkt.extract(hdr.labels.next);",
            "  transition select(hdr.labels.last.bos) { 1: parsed; default: parse_label; } }",
            "state parsed { transition accept; }");
    // a=0xf0 b=0x20 c=0x0003 s=-3 d=0x80000001 w=2^127+1
    private static final String H = "f0 20 0003 fd 80000001 80000000000000000000000000000001";

    private static String words(long... v) {
        StringBuilder sb = new StringBuilder();
        for (long x : v) {
            sb.append(String.format("%016x", x));
        }
        return sb.toString();
    }

    @Test
    void arithmeticWrapsAroundAtTheWidth() {
        assertEquals(words(0x10, 0xd0, 0xe0, 0xd0 >> 3), run(PARSE_H,
                "hdr.o.r0 = (bit<64>) (hdr.h.a + hdr.h.b);"        // 0x110 wraps to 0x10
                + "hdr.o.r1 = (bit<64>) (hdr.h.a - hdr.h.b);"
                + "hdr.o.r2 = (bit<64>) (hdr.h.a * 8w2);"
                + "hdr.o.r3 = (bit<64>) (hdr.h.a |-| hdr.h.b) >> 3;", H));   // the cast binds tighter than >>
    }

    @Test
    void saturatingShiftsSlicesAndConcatenation() {
        assertEquals(words(0xff, 0x0f, 0xf020, 0x80000001L << 16 | 3), run(PARSE_H,
                "hdr.o.r0 = (bit<64>) (hdr.h.a |+| hdr.h.b);"
                + "hdr.o.r1 = (bit<64>) hdr.h.a[7:4];"
                + "hdr.o.r2 = (bit<64>) (hdr.h.a ++ hdr.h.b);"
                + "hdr.o.r3 = (bit<64>) (hdr.h.d ++ hdr.h.c);", H));
    }

    @Test
    void saturatingArithmeticOnIntClampsToItsRangeAtEveryWidth() {
        // P4_16 8.6: int<W> |+| and |-| stay within [-2^(W-1), 2^(W-1) - 1]; at 64 bits the sum
        // overflows a long too.
        assertEquals(words(0x7fffffffffffffffL, 0x8000000000000000L, 0x8000000000000000L, 0x80), run(PARSE_H,
                "int<64> big = (int<64>) 64w0x4000000000000000; int<64> min = (int<64>) 64w0x8000000000000000;"
                + "int<64> max = (int<64>) 64w0x7fffffffffffffff; int<64> minus5 = -5;"
                + "hdr.o.r0 = (bit<64>) (big |+| big);"
                + "hdr.o.r1 = (bit<64>) (min |+| -1);"
                + "hdr.o.r2 = (bit<64>) (minus5 |-| max);"
                + "hdr.o.r3 = (bit<64>) (bit<8>) (hdr.h.s |-| 8s127);", H));   // -3 - 127 clamps at -128
    }

    @Test
    void signedValuesCompareAndShiftWithTheirSign() {
        assertEquals(words(1, 0xfe, 0xfffffffffffffffdL, 0), run(PARSE_H,
                "if (hdr.h.s < 0) { hdr.o.r0 = 1; }"
                + "hdr.o.r1 = (bit<64>) (bit<8>) (hdr.h.s >> 1);"   // -3 >> 1 = -2 = 0xfe
                + "hdr.o.r2 = (bit<64>) (int<64>) hdr.h.s;"          // sign extension
                + "if (hdr.h.s > 8s1) { hdr.o.r3 = 1; }", H));
    }

    @Test
    void wideValuesKeepAllTheirBits() {
        assertEquals(words(0x8000000000000000L, 2, 1, 2), run(PARSE_H,
                "bit<128> x = hdr.h.w + 1;"
                + "hdr.o.r0 = x[127:64];"
                + "hdr.o.r1 = x[63:0];"
                + "if (hdr.h.w == 0x80000000000000000000000000000001) { hdr.o.r2 = 1; }"
                + "hdr.o.r3 = (bit<64>) (hdr.h.w << 1);", H));   // the top bit shifts out
    }

    @Test
    void sliceAssignmentAndBoolCasts() {
        assertEquals(words(0x5f, 1, 0, 0), run(PARSE_H,
                "bit<8> v = hdr.h.a; v[7:4] = 4w5; v[3:0] = 0xf; hdr.o.r0 = (bit<64>) v;"
                + "bool t = (bool) hdr.h.a[7:7]; hdr.o.r1 = (bit<64>) (bit<1>) t;", H));
    }

    @Test
    void headerStacksExtractUntilBottomOfStack() {
        // three labels, the third with bottom-of-stack set
        // the unparsed rest (ffff) follows the emitted headers
        // lastIndex is read in the parser (P4_16 8.18: only there)
        assertEquals(words(3, 0x0a0b0c, 1, 0) + "ffff", run(PARSE_LABELS.replace("state parsed {",
                        "state parsed { meta.x = (bit<8>) hdr.labels.lastIndex + 1;"),
                "hdr.o.r0 = (bit<64>) meta.x;"
                + "hdr.o.r1 = (bit<64>) (hdr.labels[0].v ++ hdr.labels[1].v ++ hdr.labels[2].v);"
                + "if (!hdr.labels[3].isValid()) { hdr.o.r2 = 1; }", "0a00 0b00 0c01 ffff"));
    }

    @Test
    void lastOfAnEmptyStackRejectsWithStackOutOfBounds() {
        // P4_16 8.18: in a parser, hs.last with nextIndex 0 is error.StackOutOfBounds (v1model then
        // runs ingress with parser_error set); read by a select, and by a statement
        String select = "state start { transition select(hdr.labels.last.bos) { 1: accept; default: accept; } }";
        String statement = "state start { hdr.h.setValid(); hdr.h.a = hdr.labels.last.v; transition accept; }";
        String report = "if (sm.parser_error == error.StackOutOfBounds) { hdr.o.r0 = 1; }"
                + "if (sm.parser_error == error.NoError) { hdr.o.r1 = 1; }";
        assertEquals(words(1, 0, 0, 0) + "0a00", run(select, report, "0a00"));
        assertEquals(words(1, 0, 0, 0) + "0a00", run(statement, report, "0a00"));
        assertEquals(words(1, 0, 0, 0) + "0a00", run("bit<8> first = hdr.labels.last.v; state start { transition accept; }",
                report, "0a00"));   // a parser's local variable, initialised before start
        assertEquals(words(0, 1, 0, 0), run(PARSE_LABELS, report, "0a01"));   // with an element: none
    }

    @Test
    void aStackAssignedToAnotherCopiesEveryElementAndItsValidity() {
        // the copy's nextIndex, read in the parser after the original is emptied
        assertEquals(words(2, 0x0a0b, 1, 1) + "ffff", run(PARSE_LABELS.replace("state parsed {",
                        "state parsed { hdr.copy = hdr.labels; hdr.labels.pop_front(4);"
                        + " meta.x = (bit<8>) hdr.copy.lastIndex + 1;"),
                "hdr.o.r0 = (bit<64>) meta.x;"
                + "hdr.o.r1 = (bit<64>) (hdr.copy[0].v ++ hdr.copy[1].v);"
                + "if (!hdr.copy[2].isValid()) { hdr.o.r2 = 1; }"
                + "if (!hdr.labels[0].isValid()) { hdr.o.r3 = 1; }", "0a00 0b01 ffff"));
    }

    @Test
    void shiftingAStackByMoreThanItsSizeEmptiesIt() {
        assertEquals(words(1, 1, 0, 0) + "ffff", run(PARSE_LABELS,
                "hdr.copy = hdr.labels; hdr.labels.pop_front(1000); hdr.copy.push_front(1000);"
                + "if (!hdr.labels[0].isValid() && !hdr.labels[3].isValid()) { hdr.o.r0 = 1; }"
                + "if (!hdr.copy[0].isValid() && !hdr.copy[3].isValid()) { hdr.o.r1 = 1; }", "0a00 0b01 ffff"));
    }

    @Test
    void stackOverflowIsAParserError() {
        // no label here has v = 0
        String parse = "state start { pkt.extract(hdr.labels.next); transition select(hdr.labels.last.v) { 0: accept; default: start; } }";
        // the fifth extract fails: four labels were consumed, the fifth stays as payload
        assertEquals(words(3, 0, 0, 0) + "0500", run(parse,
                "if (sm.parser_error == error.StackOutOfBounds) { hdr.o.r0 = 3; }", "0100 0200 0300 0400 0500"));
        // no fifth label either: the packet's length is checked first (P4_16 12.8.1)
        assertEquals(words(2, 0, 0, 0), run(parse,
                "if (sm.parser_error == error.PacketTooShort) { hdr.o.r0 = 2; }", "0100 0200 0300 0400"));
    }

    @Test
    void indexedSlicesTakeWidthBitsFromL() {
        // P4_16 8.5: e[L+:W]; an L not known at compile time reads as a shift by L (bits past the width are 0)
        assertEquals(words(0xf, 0xe, 0, 0x0c), run(PARSE_H,
                "hdr.o.r0 = (bit<64>) hdr.h.a[4+:4];"
                + "hdr.o.r1 = (bit<64>) hdr.h.a[hdr.h.c +: 4];"     // c = 3
                + "hdr.o.r2 = (bit<64>) hdr.h.a[hdr.h.b +: 4];"     // b = 0x20, past the width
                + "bit<8> v = 0; v[2+:2] = 2w3; hdr.o.r3 = (bit<64>) v;", H));
    }

    @Test
    void anExitInATableAppliedInAnExpressionEndsItsStatement() {
        // P4_16 12.4: the expression's evaluation ends; a switch runs no case, an if neither branch, an
        // assignment or a declaration's initialisation does not happen, nor does what follows
        String decls = "action leave() { exit; } table t { actions = { leave; } default_action = leave(); }"
                + "action put(bool f) { hdr.o.r1 = f ? 64w6 : 64w7; }";
        String before = "hdr.o.r0 = 1; hdr.o.r1 = 5;";
        String after = "hdr.o.r2 = 9;";
        for (String statement : List.of(
                "switch (t.apply().action_run) { leave: { hdr.o.r1 = 6; } default: { hdr.o.r1 = 7; } }",
                "if (t.apply().hit) { hdr.o.r1 = 6; } else { hdr.o.r1 = 7; }",
                "hdr.o.r1 = t.apply().miss ? 64w6 : 64w7;",
                "bit<64> v = t.apply().miss ? 64w6 : 64w7; hdr.o.r1 = v;",
                "hdr.o.r1 = (bit<64>) (bit<1>) (hdr.h.a == 0 || t.apply().miss);",
                "put(t.apply().hit);")) {   // the call does not happen
            assertEquals(words(1, 5, 0, 0), run("", PARSE_H, decls, before + statement + after, H), statement);
        }
        // in a for loop's update: the body ran once, the update does not complete and the loop ends
        assertEquals(words(1, 6, 0, 0), run("", PARSE_H, decls, before
                + "for (bit<8> i = 0; i < 4; i = i + (t.apply().hit ? 8w1 : 8w1)) { hdr.o.r1 = hdr.o.r1 + 1; }" + after, H));
        // a table applied in another table's key: refused, located
        RuntimeException e = assertThrows(RuntimeException.class, () -> run("", PARSE_H,
                decls + "table u { key = { t.apply().hit : exact; } actions = { leave; } }", "u.apply();", H));
        assertTrue(e.getMessage().contains("applies no table in another table's key"), e.getMessage());
        // a table whose action does not exit: the statement completes
        String stays = "action stay() { } table u { actions = { stay; } default_action = stay(); }";
        assertEquals(words(1, 6, 9, 0), run("", PARSE_H, stays,
                before + "switch (u.apply().action_run) { stay: { hdr.o.r1 = 6; } }" + after, H));
    }

    @Test
    void switchStatementsRunInActionsAndFunctions() {
        // P4_16 12.7: in controls, actions and functions; over bit<W>, enums and error; a last label
        // without a body has an empty one
        String global = "bit<64> pick(in bit<8> v) { switch (v) { 0xf0: { return 1; } 0x20: default: { return 2; } } }";
        String decls = "action classify(in bit<8> v) { switch (v) { 0x20: { hdr.o.r1 = 3; } 0x21: } }";
        assertEquals(words(1, 3, 2, 4), run(global, PARSE_H, decls,
                "hdr.o.r0 = pick(hdr.h.a); classify(hdr.h.b); hdr.o.r2 = pick(hdr.h.c[7:0]);"
                + "switch (sm.parser_error) { error.NoError: { hdr.o.r3 = 4; } default: { hdr.o.r3 = 5; } }", H));
    }

    @Test
    void aParserThatCannotReachAcceptIsLegalAndStopsWithParserTimeout() {
        // P4_16 sets no rule that accept be reachable; a loop that consumes nothing is cut short
        String parse = "state start { transition select(pkt.lookahead<bit<8>>()) { 0: reject; default: start; } }";
        assertEquals(words(4, 0, 0, 0) + "0100", run(parse,
                "if (sm.parser_error == error.ParserTimeout) { hdr.o.r0 = 4; }", "0100"));
    }

    @Test
    void checksumWithPayloadCoversTheUnparsedBytes() {
        // csum16 over h.c ++ payload, computed independently below
        String input = H + "01020304";
        String out = run(PARSE_H + " ", "", input);
        byte[] data = bytes("0003 01020304");
        long sum = 0;
        for (int i = 0; i < data.length; i += 2) {
            sum += ((data[i] & 0xff) << 8) | (data[i + 1] & 0xff);
        }
        sum = ~((sum & 0xffff) + (sum >> 16)) & 0xffff;
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSE_H, "",
                "sm.egress_spec = 1; hdr.o.setValid(); bit<16> c = 0;"
                + "update_checksum_with_payload(true, { hdr.h.c }, c, HashAlgorithm.csum16); hdr.o.r0 = (bit<64>) c;",
                "", "pkt.emit(hdr.o);"));
        String got = hex(new V1ModelSwitch(p).process(0, bytes(input)).get(0).data);
        assertEquals(words(sum, 0, 0, 0) + "01020304", got);
        assertEquals(words(0, 0, 0, 0) + "01020304", out);
    }

    @Test
    void hashAlgorithmsMatchTheirDefinitions() {
        CRC32 crc = new CRC32();
        crc.update(bytes("f020"));
        String out = run(PARSE_H,
                "bit<32> h32; hash(h32, HashAlgorithm.crc32, 32w0, { hdr.h.a, hdr.h.b }, 64w0x100000000); hdr.o.r0 = (bit<64>) h32;"
                + "bit<16> h16; hash(h16, HashAlgorithm.crc16, 16w0, { 72w0x313233343536373839 }, 32w0x10000); hdr.o.r1 = (bit<64>) h16;"
                + "bit<16> id; hash(id, HashAlgorithm.identity, 16w0, { hdr.h.a, hdr.h.b }, 32w0x10000); hdr.o.r2 = (bit<64>) id;"
                + "bit<16> m; hash(m, HashAlgorithm.identity, 16w100, { hdr.h.c }, 32w2);"
                + "bit<16> none; hash(none, HashAlgorithm.crc16, 16w7, { hdr.h.c }, 32w0);"   // max 0: always base
                + "hdr.o.r3 = (bit<64>) (m ++ none);", H);
        // CRC-16/ARC check value of "123456789" is 0xbb3d
        assertEquals(words(crc.getValue(), 0xbb3d, 0xf020, 101L << 16 | 7), out);
    }

    @Test
    void theIdentityHashIsTheFirstEightBytesOfThePackedDataAsBmv2TakesThem() {
        // 12 bits pack into 0xf0 0x20 (padded at the low end); 80 bits keep their first 8 bytes
        String out = run(PARSE_H,
                "bit<32> a; hash(a, HashAlgorithm.identity, 32w0, { hdr.h.a, hdr.h.b[7:4] }, 64w0x100000000); hdr.o.r0 = (bit<64>) a;"
                + "bit<64> b; hash(b, HashAlgorithm.identity, 64w0, { 80w0x0102030405060708abcd }, 72w0x10000000000000000);"
                + " hdr.o.r1 = b;", H);
        assertEquals(words(0xf020, 0x0102030405060708L, 0, 0), out);
    }

    @Test
    void aHashMaxWiderThan64BitsKeepsItsHighBits() {
        // v1model.p4: base + (H % max); a max of 2^64 or more is above any 64-bit hash, so H stays whole
        String out = run(PARSE_H,
                "bit<32> a; hash(a, HashAlgorithm.identity, 32w0, { hdr.h.a, hdr.h.b }, 72w0x10000000000000000); hdr.o.r0 = (bit<64>) a;"
                + "bit<32> b; hash(b, HashAlgorithm.identity, 32w0, { hdr.h.a, hdr.h.b }, 72w0x10000000000000010); hdr.o.r1 = (bit<64>) b;"
                + "bit<32> c; hash(c, HashAlgorithm.identity, 32w0, { hdr.h.a, hdr.h.b }, 72w0x10); hdr.o.r2 = (bit<64>) c;", H);
        assertEquals(words(0xf020, 0xf020, 0, 0), out);
    }

    @Test
    void p4cV1modelsIndexTypesPortIdAndCustomCrcsAreAccepted() {
        // p4c's v1model.p4 (V1MODEL_VERSION 20200408): register<T, I>, counter<I>, meter<I>,
        // PortId_t; crc32_custom and crc16_custom compute BMv2's defaults, crc32 and crc16.
        CRC32 crc = new CRC32();
        crc.update(bytes("f020"));
        String decls = "register<bit<32>, bit<4>>(16) r; counter<bit<4>>(16, CounterType.packets) c;"
                + " meter<bit<4>>(16, MeterType.packets) m;";
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSE_H, decls,
                "PortId_t port = 1; sm.egress_spec = port; hdr.o.setValid(); bit<4> i = 4w9;"
                + "bit<32> v; r.read(v, i); v = v + 5; r.write(i, v); c.count(i); bit<2> colour; m.execute_meter(i, colour);"
                + "hdr.o.r0 = (bit<64>) v;"
                + "bit<32> h32; hash(h32, HashAlgorithm.crc32_custom, 32w0, { hdr.h.a, hdr.h.b }, 64w0x100000000); hdr.o.r1 = (bit<64>) h32;"
                + "bit<16> h16; hash(h16, HashAlgorithm.crc16_custom, 16w0, { 72w0x313233343536373839 }, 32w0x10000);"
                + " hdr.o.r2 = (bit<64>) h16;", "", "pkt.emit(hdr.o);"));
        V1ModelSwitch sw = new V1ModelSwitch(p);
        sw.process(0, bytes(H));
        assertEquals(words(10, crc.getValue(), 0xbb3d, 0), hex(sw.process(0, bytes(H)).get(0).data));
    }

    @Test
    void headerUnionsAreEqualWhenTheSameMemberIsValidAndEqualOrNoneIs() {
        // P4_16 8.20: u == v when both have the same member valid with equal fields, or none valid
        String headers = String.join("\n", "header a_t { bit<8> x; }", "header b_t { bit<16> y; }",
                "header_union u_t { a_t a; b_t b; }",
                "header out_t { bit<8> r0; bit<8> r1; bit<8> r2; bit<8> r3; }",
                "struct headers_t { u_t u; u_t v; out_t o; }", "struct meta_t { bit<8> x; }");
        Program p = P4Programs.compile(dir, P4Programs.v1(headers, "state start { transition accept; }", "",
                "sm.egress_spec = 1; hdr.o.setValid();"
                + "if (hdr.u == hdr.v) { hdr.o.r0 = 1; }"                                   // none valid
                + "hdr.u.a.setValid(); hdr.u.a.x = 5; hdr.v.a.setValid(); hdr.v.a.x = 5;"
                + "if (hdr.u == hdr.v) { hdr.o.r1 = 1; }"                                   // a, equal
                + "hdr.v.b.setValid(); hdr.v.b.y = 5;"
                + "if (hdr.u != hdr.v) { hdr.o.r2 = 1; }"                                   // a against b
                + "u_t[2] s; u_t[2] t; s[0] = hdr.u; t[0] = hdr.u; if (s == t) { hdr.o.r3 = 1; }",
                "", "pkt.emit(hdr.o);"));
        assertEquals("01010101", hex(new V1ModelSwitch(p).process(0, bytes("")).get(0).data));
    }

    @Test
    void registersAndFunctionsKeepState() {
        String decls = "register<bit<32>>(8) r;";
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSE_H, decls,
                "sm.egress_spec = 1; hdr.o.setValid(); bit<32> v; r.read(v, 3); v = v + 5; r.write(3, v);"
                + "hdr.o.r0 = (bit<64>) v;", "", "pkt.emit(hdr.o);"));
        V1ModelSwitch sw = new V1ModelSwitch(p);
        sw.process(0, bytes(H));
        assertEquals(words(10, 0, 0, 0), hex(sw.process(0, bytes(H)).get(0).data));
    }

    @Test
    void truncateCutsTheOutputAndRandomStaysInItsRange() {
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSE_H, "",
                "sm.egress_spec = 1; hdr.o.setValid(); bit<16> r; random(r, 16w10, 16w12);"
                + "hdr.o.r0 = (bit<64>) r; truncate(10);", "", "pkt.emit(hdr.o);"));
        V1ModelSwitch sw = new V1ModelSwitch(p);
        java.util.Set<Long> seen = new java.util.TreeSet<>();
        for (int i = 0; i < 200; i++) {
            byte[] out = sw.process(0, bytes(H)).get(0).data;
            assertEquals(10, out.length);
            seen.add(Long.parseLong(hex(out).substring(0, 16), 16));
        }
        assertEquals(java.util.Set.of(10L, 11L, 12L), seen);
    }
}
