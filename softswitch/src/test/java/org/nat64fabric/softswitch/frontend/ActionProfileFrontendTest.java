package org.nat64fabric.softswitch.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.testutil.P4Programs;

/** The implementation property, action_profile, action_selector and selector key fields, and their located errors. */
class ActionProfileFrontendTest {
    @TempDir
    Path dir;

    private static final String HEADERS = "header h_t { bit<8> a; bit<8> b; }\nstruct headers_t { h_t h; }\nstruct meta_t { }\n";
    private static final String PARSER = "state start { pkt.extract(hdr.h); transition accept; }";

    private Program compile(String decls) {
        return P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSER,
                "action fwd(bit<9> p) { sm.egress_spec = p; }\n" + decls, "t.apply();", "", "pkt.emit(hdr.h);"));
    }

    private String error(String decls) {
        return assertThrows(P4CompileException.class, () -> compile(decls)).getMessage();
    }

    @Test
    void tablesShareADeclaredSelectorAndSelectorFieldsLeaveTheKey() {
        Program p = compile("action_selector(HashAlgorithm.crc32, 32w16, 32w8) sel;\n"
                + "table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { fwd; } implementation = sel; }\n"
                + "table u { key = { hdr.h.b: exact; hdr.h.a: selector; } actions = { fwd; } implementation = sel; }");
        assertEquals(1, p.table("I.t").keys.size());
        assertSame(p.table("I.t").profile(), p.table("I.u").profile());
        assertEquals("I.sel", p.table("I.t").profile().name);
        assertTrue(p.table("I.t").profile().withSelector);
        assertEquals(1, p.actionProfiles().size());
    }

    @Test
    void matchFieldIdsCountSelectorFieldsAsP4cNumbersThem() {
        Program p = compile("action_selector(HashAlgorithm.crc32, 32w16, 32w8) sel;\n"
                + "table t { key = { hdr.h.b: selector; hdr.h.a: exact; } actions = { fwd; } implementation = sel; }");
        var fields = org.nat64fabric.softswitch.p4info.P4InfoBuilder.build(p).getTables(0).getMatchFieldsList();
        assertEquals(1, fields.size());
        assertEquals(2, fields.get(0).getId(), "the selector field holds ID 1");
        assertEquals("hdr.h.a", fields.get(0).getName());
    }

    @Test
    void anInlineProfileIsNamedAfterItsTable() {
        Program p = compile("table t { key = { hdr.h.a: exact; } actions = { fwd; } implementation = action_profile(32w4); }");
        assertEquals("I.t", p.table("I.t").profile().name);
        assertEquals(4, p.table("I.t").profile().size);
        assertEquals(0, p.table("I.t").profile().maxGroupSize);
    }

    @Test
    void anInlineProfileTakesThePropertysNameAndAnnotationsAsInP4c() {
        Program p = compile("table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { fwd; } "
                + "@name(\"ap_ws\") @max_group_size(200) "
                + "implementation = action_selector(HashAlgorithm.identity, 32w1024, 32w10); }");
        assertEquals("ap_ws", p.table("I.t").profile().name);
        assertEquals(200, p.table("I.t").profile().maxGroupSize);
    }

    @Test
    void mismatchesAreLocatedErrors() {
        assertTrue(error("table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { fwd; } }")
                .contains("selector key fields but no action_selector"));
        assertTrue(error("table t { key = { hdr.h.a: exact; } actions = { fwd; } "
                + "implementation = action_selector(HashAlgorithm.crc16, 32w4, 32w8); }").contains("at least one key field"));
        assertTrue(error("table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { fwd; } "
                + "implementation = action_profile(32w4); }").contains("must be an action_selector"));
        assertTrue(error("table t { key = { hdr.h.a: exact; } actions = { fwd; } implementation = fwd; }")
                .contains("is not an action_profile or action_selector"));
        assertTrue(error("action_selector(HashAlgorithm.crc16, 32w4, 32w65) s;\n"
                + "table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { fwd; } implementation = s; }")
                .contains("output width"));
        assertTrue(error("table t { key = { hdr.h.a: exact; } actions = { fwd; } implementation = action_profile(32w4); "
                + "const entries = { 1: fwd(2); } }").contains("entries come from the control plane"));
        assertTrue(error("@max_group_size(0) action_selector(HashAlgorithm.crc16, 32w4, 32w8) s;\n"
                + "table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { fwd; } implementation = s; }")
                .contains("@max_group_size"));
        assertTrue(error("table t { key = { hdr.h.a: exact; } actions = { fwd; } implementation = action_profile(); }")
                .matches("(?s).+:\\d+:\\d+: action_profile takes 1 argument.*"));
    }
}
