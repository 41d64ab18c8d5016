package org.nat64fabric.softswitch.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.runtime.Entities;
import org.nat64fabric.softswitch.runtime.EntityException;
import org.nat64fabric.softswitch.runtime.NewerFields;
import org.nat64fabric.softswitch.testutil.P4Programs;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.ActionProfileGroup;
import p4.v1.P4RuntimeOuterClass.ActionProfileMember;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.Update;

/** The implementation property, action_profile, action_selector and selector key fields, and their located errors. */
class ActionProfileFrontendTest {
    @TempDir
    Path dir;

    private static final String HEADERS = "header h_t { bit<8> a; bit<8> b; }\nstruct headers_t { h_t h; }\nstruct meta_t { }\n";
    private static final String PARSER = "state start { pkt.extract(hdr.h); transition accept; }";

    private Program compile(String decls) {
        return compile(decls, "t.apply();");
    }

    private Program compile(String decls, String apply) {
        return P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSER,
                "action fwd(bit<9> p) { sm.egress_spec = p; }\n" + decls, apply, "", "pkt.emit(hdr.h);"));
    }

    private String error(String decls) {
        return assertThrows(P4CompileException.class, () -> compile(decls)).getMessage();
    }

    @Test
    void tablesShareADeclaredSelectorAndSelectorFieldsLeaveTheKey() {
        Program p = compile("action_selector(HashAlgorithm.crc32, 32w16, 32w8) sel;\n"
                + "table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { fwd; } implementation = sel; }\n"
                + "table u { key = { hdr.h.b: exact; hdr.h.a: selector; } actions = { fwd; } implementation = sel; }",
                "t.apply(); u.apply();");
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
    void anInlineProfileTakesThePropertysNameAndAnnotations() {
        Program p = compile("table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { fwd; } "
                + "@name(\"ap_ws\") @max_group_size(200) "
                + "implementation = action_selector(HashAlgorithm.identity, 32w1024, 32w10); }");
        assertEquals("ap_ws", p.table("I.t").profile().name, "the @name as written, as p4c's P4Info names it");
        assertEquals(200, p.table("I.t").profile().maxGroupSize);
    }

    @Test
    void sumOfMembersSizesGroupsByMemberCountAndBoundsEachWeight() throws Exception {
        Program p = compile("@max_group_size(2) @selector_size_semantics(\"sum_of_members\") @max_member_weight(4)\n"
                + "action_selector(HashAlgorithm.crc16, 32w16, 32w16) sel;\n"
                + "table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { fwd; } implementation = sel; }");
        P4Info info = P4InfoBuilder.build(p);
        assertEquals(4, NewerFields.maxMemberWeight(info.getActionProfiles(0)), "P4Info sum_of_members.max_member_weight");
        assertTrue(P4InfoBuilder.text(info).contains("  max_group_size: 2\n  sum_of_members {\n    max_member_weight: 4\n  }\n"),
                "written by name in the text format, as P4Runtime 1.4 parsers read it");
        Entities entities = new Entities(new V1ModelSwitch(p), info);
        int profile = info.getActionProfiles(0).getPreamble().getId();
        int fwd = info.getActionsList().stream().filter(a -> a.getPreamble().getName().equals("I.fwd")).findFirst()
                .orElseThrow().getPreamble().getId();
        for (int m = 1; m <= 3; m++) {
            entities.apply(Update.Type.INSERT, Entity.newBuilder().setActionProfileMember(ActionProfileMember.newBuilder()
                    .setActionProfileId(profile).setMemberId(m).setAction(Action.newBuilder().setActionId(fwd)
                            .addParams(Action.Param.newBuilder().setParamId(1).setValue(ByteString.copyFrom(new byte[] {(byte) m})))))
                    .build());
        }
        entities.apply(Update.Type.INSERT, group(profile, 1, 1, 4, 2, 4));   // size 2: weights do not count
        assertEquals(EntityException.Code.RESOURCE_EXHAUSTED, assertThrows(EntityException.class,
                () -> entities.apply(Update.Type.INSERT, group(profile, 2, 1, 5))).code(), "over max_member_weight");
        assertEquals(EntityException.Code.RESOURCE_EXHAUSTED, assertThrows(EntityException.class,
                () -> entities.apply(Update.Type.INSERT, group(profile, 2, 1, 1, 2, 1, 3, 1))).code(), "3 members");
        assertTrue(error("@max_member_weight(4) action_selector(HashAlgorithm.crc16, 32w16, 32w16) sel;\n"
                + "table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { fwd; } implementation = sel; }")
                .contains("@max_member_weight needs @selector_size_semantics"));
        assertTrue(error("@selector_size_semantics(\"sum_of_everything\") action_selector(HashAlgorithm.crc16, 32w16, 32w16) s;\n"
                + "table t { key = { hdr.h.a: exact; hdr.h.b: selector; } actions = { fwd; } implementation = s; }")
                .contains("@selector_size_semantics takes"));
    }

    private static Entity group(int profile, int id, int... memberAndWeight) {
        ActionProfileGroup.Builder g = ActionProfileGroup.newBuilder().setActionProfileId(profile).setGroupId(id)
                .setMaxSize(2);   // where the selector has a max_group_size (2), a group gives its max_size
        for (int i = 0; i < memberAndWeight.length; i += 2) {
            g.addMembers(ActionProfileGroup.Member.newBuilder().setMemberId(memberAndWeight[i]).setWeight(memberAndWeight[i + 1]));
        }
        return Entity.newBuilder().setActionProfileGroup(g).build();
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
                .contains("the argument of @max_group_size must be a positive size"));
        assertTrue(error("table t { key = { hdr.h.a: exact; } actions = { fwd; } implementation = action_profile(); }")
                .matches("(?s).+:\\d+:\\d+: action_profile takes 1 argument.*"));
    }
}
