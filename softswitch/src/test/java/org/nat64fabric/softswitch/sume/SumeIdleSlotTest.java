package org.nat64fabric.softswitch.sume;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.softswitch.testutil.P4Programs.bytes;

import com.google.protobuf.ByteString;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.frontend.P4CompileException;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.runtime.Entities;
import org.nat64fabric.softswitch.runtime.EntityException;
import org.nat64fabric.softswitch.testutil.P4Programs;
import org.nat64fabric.softswitch.v1model.Externs;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.config.v1.P4InfoOuterClass;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;

/**
 * P4-NetFPGA's RAW register extern and the action parameter the SUME target fills
 * (@sume_idle_slot): a table whose entries count their hits in a register through a slot has idle
 * timeouts in its P4Info, and its actions lack the slot there.
 */
class SumeIdleSlotTest {
    private static final String PROGRAM = String.join("\n",
            "#include <core.p4>",
            "#include <sume_switch.p4>",
            "header eth_t { bit<48> dst; bit<48> src; bit<16> type; }",
            "struct h_t { eth_t eth; }",
            "struct m_t { bit<4> slot; bool hit; }",
            "struct d_t { bit<8> unused; }",
            "#define REG_WRITE 8w1",
            "#define REG_ADD 8w2",
            "@Xilinx_MaxLatency(1)",
            "@Xilinx_ControlWidth(4)",
            "extern void hits_reg_raw(in bit<4> index, in bit<32> newVal, in bit<32> incVal, in bit<8> opCode, out bit<32> result);",
            "parser P(packet_in b, out h_t h, out m_t m, out d_t d, inout sume_metadata_t s) {",
            "    state start { b.extract(h.eth); transition accept; }",
            "}",
            "control C(inout h_t h, inout m_t m, inout d_t d, inout sume_metadata_t s) {",
            "    action fwd(bit<8> port, @sume_idle_slot(\"hits\") bit<4> slot) { s.dst_port = port; m.slot = slot; m.hit = true; }",
            "    table macs {",
            "        key = { h.eth.dst: exact; }",
            "        actions = { fwd; @defaultonly NoAction; }",
            "        default_action = NoAction();",
            "        size = 16;",
            "    }",
            "    apply {",
            "        m.hit = false;",
            "        macs.apply();",
            "        bit<32> count = 0;",
            "        if (m.hit) { hits_reg_raw(m.slot, 0, 1, REG_ADD, count); }",
            "        if (h.eth.type == 0x9999) { hits_reg_raw(0, 7, 0, REG_WRITE, count); }",
            "        h.eth.src = (bit<48>) count;",
            "    }",
            "}",
            "control D(packet_out b, in h_t h, in m_t m, inout d_t d, inout sume_metadata_t s) { apply { b.emit(h.eth); } }",
            "SimpleSumeSwitch(P(), C(), D()) main;",
            "");

    @TempDir
    Path dir;

    private static byte[] frame(long dst, int type) {
        return bytes(String.format("%012x", dst) + "000000000001" + String.format("%04x", type));
    }

    private static Externs.Register hits(Program p) {
        return p.registers.stream().filter(r -> r.name.equals("hits")).findFirst().orElseThrow();
    }

    @Test
    void eachHitAddsOneToItsSlotsCellAndTheResultIsTheNewCount() {
        Program p = P4Programs.compile(dir, PROGRAM);
        V1ModelSwitch sw = new V1ModelSwitch(p);
        p.table("C.macs").insert(new Table.Entry(new Table.FieldMatch[] {Table.FieldMatch.exact(BigInteger.TWO, 48)}, 0,
                P4Programs.call(p, "C.fwd", 0b100, 5), 0));
        assertEquals(16, hits(p).size, "2^4 cells: the index's width");
        for (int i = 1; i <= 3; i++) {
            var out = sw.process(0, frame(2, 0x0800));
            assertEquals(1, out.get(0).port);
            assertEquals(i, out.get(0).data[11], "result: the cell after the add");
        }
        assertEquals(BigInteger.valueOf(3), hits(p).get(5));
        hits(p).put(5, BigInteger.valueOf(0xffffffffL));
        sw.process(0, frame(2, 0x0800));
        assertEquals(BigInteger.ZERO, hits(p).get(5), "32 bits wrap");
        sw.process(0, frame(3, 0x9999));
        assertEquals(BigInteger.valueOf(7), hits(p).get(0), "REG_WRITE");
    }

    @Test
    void theP4InfoHasIdleTimeoutsAndNoSlotNorRegister() {
        P4InfoOuterClass.P4Info info = P4InfoBuilder.build(P4Programs.compile(dir, PROGRAM));
        P4InfoOuterClass.Table macs = info.getTables(0);
        assertEquals(P4InfoOuterClass.Table.IdleTimeoutBehavior.NOTIFY_CONTROL, macs.getIdleTimeoutBehavior());
        P4InfoOuterClass.Action fwd = info.getActionsList().stream()
                .filter(a -> a.getPreamble().getName().equals("C.fwd")).findFirst().orElseThrow();
        assertEquals(List.of("port"), fwd.getParamsList().stream().map(P4InfoOuterClass.Action.Param::getName).collect(java.util.stream.Collectors.toList()));
        assertEquals(List.of("@sume_idle_slot(\"hits\", 4)"), fwd.getPreamble().getAnnotationsList());
        assertEquals(0, info.getRegistersCount(), "P4-NetFPGA's registers are the card's, not P4Runtime's");
    }

    @Test
    void softswitchTakesEntriesWithoutTheSlotAndAgesThemItself() throws Exception {
        Program p = P4Programs.compile(dir, PROGRAM);
        P4InfoOuterClass.P4Info info = P4InfoBuilder.build(p);
        Entities entities = new Entities(new V1ModelSwitch(p), info);
        int table = info.getTables(0).getPreamble().getId();
        int fwd = info.getActionsList().stream().filter(a -> a.getPreamble().getName().equals("C.fwd")).findFirst()
                .orElseThrow().getPreamble().getId();
        TableEntry.Builder e = TableEntry.newBuilder().setTableId(table).setIdleTimeoutNs(1_000_000_000L)
                .addMatch(FieldMatch.newBuilder().setFieldId(1).setExact(FieldMatch.Exact.newBuilder().setValue(ByteString.copyFrom(new byte[] {2}))))
                .setAction(TableAction.newBuilder().setAction(Action.newBuilder().setActionId(fwd)
                        .addParams(Action.Param.newBuilder().setParamId(1).setValue(ByteString.copyFrom(new byte[] {4})))));
        entities.apply(Update.Type.INSERT, Entity.newBuilder().setTableEntry(e).build());
        assertTrue(p.table("C.macs").supportTimeout);
        TableEntry read = entities.read(Entity.newBuilder().setTableEntry(TableEntry.newBuilder().setTableId(table)).build())
                .get(0).getTableEntry();
        assertEquals(e.build().getAction(), read.getAction(), "the slot is not read back");
        TableEntry.Builder withSlot = e.clone().setMatch(0, e.getMatch(0).toBuilder().setExact(FieldMatch.Exact.newBuilder()
                .setValue(ByteString.copyFrom(new byte[] {3}))));
        withSlot.getActionBuilder().getActionBuilder().addParams(Action.Param.newBuilder().setParamId(2)
                .setValue(ByteString.copyFrom(new byte[] {1})));
        EntityException x = assertThrows(EntityException.class, () -> entities.apply(Update.Type.INSERT,
                Entity.newBuilder().setTableEntry(withSlot).build()));
        assertEquals(EntityException.Code.INVALID_ARGUMENT, x.code());
    }

    private String compileError(String source) {
        P4CompileException e = assertThrows(P4CompileException.class, () -> Frontend.compile(P4Programs.write(dir, "bad.p4", source)));
        assertTrue(e.line() > 0, e.getMessage());
        return e.detail();
    }

    @Test
    void aSlotIsTheLastParameterOfEveryEntryActionOfItsTable() {
        assertTrue(compileError(PROGRAM.replace("action fwd(bit<8> port, @sume_idle_slot(\"hits\") bit<4> slot)",
                "action fwd(@sume_idle_slot(\"hits\") bit<4> slot, bit<8> port)")).contains("must be the last parameter"));
        assertTrue(compileError(PROGRAM.replace("@sume_idle_slot(\"hits\") bit<4>", "@sume_idle_slot bit<4>"))
                .contains("annotated with the register"));
        String other = PROGRAM.replace("    table macs {", "    action other() { }\n    table macs {")
                .replace("actions = { fwd;", "actions = { fwd; other;");
        assertTrue(compileError(other).contains("1 of its 2 entry actions"));
        assertTrue(compileError(PROGRAM.replace("in bit<32> newVal", "in bit<16> newVal")).contains("one bit<W>"));
        String v1model = P4Programs.v1("struct headers_t { } struct meta_t { }", "state start { transition accept; }",
                "action fwd(bit<9> port, @sume_idle_slot(\"hits\") bit<4> slot) { sm.egress_spec = port; }", "", "", "");
        assertTrue(compileError(v1model).contains("only a SimpleSumeSwitch program's actions"));
    }
}
