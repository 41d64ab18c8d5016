package org.nat64fabric.softswitch.v1model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.nat64fabric.softswitch.testutil.P4Programs.bytes;
import static org.nat64fabric.softswitch.testutil.P4Programs.hex;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.testutil.P4Programs;

/** Clone, resubmit, recirculate, multicast and table match kinds, through small programs. */
class ArchitectureTest {
    @TempDir
    Path dir;

    /** A one-header program: the header records what the pipeline saw. */
    private static final String HEADERS = String.join("\n",
            "header rec_t { bit<8> kind; bit<8> instance; bit<8> passes; bit<8> port; bit<16> rid; bit<16> key; }",
            "struct headers_t { rec_t rec; }",
            "struct meta_t { @field_list(1) bit<8> passes; bit<8> scratch; }");
    private static final String PARSE = "state start { pkt.extract(hdr.rec); transition accept; }";
    private static final String EGRESS_RECORD = String.join("\n",
            "hdr.rec.instance = (bit<8>) sm.instance_type;",
            "hdr.rec.port = (bit<8>) sm.egress_port;",
            "hdr.rec.rid = sm.egress_rid;",
            "hdr.rec.passes = meta.passes;");

    /** The record program with the given ingress declarations and apply body, and an empty egress. */
    private Program programWith(String ingressDecls, String ingress) {
        return P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSE, ingressDecls, ingress, "", "pkt.emit(hdr.rec);"));
    }

    private V1ModelSwitch switchFor(String ingressDecls, String ingress, String egress) {
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSE, ingressDecls, ingress, egress, "pkt.emit(hdr.rec);"));
        return new V1ModelSwitch(p);
    }

    @Test
    void ingressCloneSendsTheOriginalPacketToTheSessionPort() {
        V1ModelSwitch sw = switchFor("", "sm.egress_spec = 2; hdr.rec.kind = 0xee; clone(CloneType.I2E, 5);",
                "if (sm.instance_type == 1) { hdr.rec.setValid(); hdr.rec.kind = 0xcc; }" + EGRESS_RECORD);
        sw.setCloneSession(5, List.of(new V1ModelSwitch.Replica(9, 0)), 0);
        List<V1ModelSwitch.Output> out = sw.process(1, bytes("01000000 0000 0000 ffff"));
        assertEquals(2, out.size());
        V1ModelSwitch.Output clone = out.stream().filter(o -> o.port == 9).findFirst().orElseThrow();
        V1ModelSwitch.Output normal = out.stream().filter(o -> o.port == 2).findFirst().orElseThrow();
        assertEquals("ee000002" + "0000" + "0000" + "ffff", hex(normal.data));
        // The clone is the received packet parsed again, as simple_switch makes it: its egress finds
        // the record as received (kind 01, not ingress's ee) and rewrites it in place.
        assertEquals("cc010009" + "0000" + "0000" + "ffff", hex(clone.data));
    }

    @Test
    void aCloneSessionCutsItsCopiesToItsPacketLength() {
        V1ModelSwitch sw = switchFor("", "sm.egress_spec = 2; clone(CloneType.I2E, 5);", EGRESS_RECORD);
        sw.setCloneSession(5, List.of(new V1ModelSwitch.Replica(9, 0)), 6);
        List<V1ModelSwitch.Output> out = sw.process(1, bytes("01000000 0000 0000 ffff"));
        V1ModelSwitch.Output clone = out.stream().filter(o -> o.port == 9).findFirst().orElseThrow();
        V1ModelSwitch.Output normal = out.stream().filter(o -> o.port == 2).findFirst().orElseThrow();
        assertEquals(6, clone.data.length, "P4Runtime 9.5.2: packet_length_bytes cuts the copy");
        assertEquals(10, normal.data.length, "the packet itself is not cut");
    }

    @Test
    void aClonesCutStandsWhateverTruncateItsEgressCalls() {
        V1ModelSwitch sw = switchFor("", "sm.egress_spec = 2; clone(CloneType.I2E, 5);",
                "if (sm.instance_type == 1) { truncate(9); } else { truncate(4); }" + EGRESS_RECORD);
        sw.setCloneSession(5, List.of(new V1ModelSwitch.Replica(9, 0)), 6);
        List<V1ModelSwitch.Output> out = sw.process(1, bytes("01000000 0000 0000 ffff"));
        assertEquals(6, out.stream().filter(o -> o.port == 9).findFirst().orElseThrow().data.length,
                "a longer truncate() does not give the copy back the bytes its session cut");
        assertEquals(4, out.stream().filter(o -> o.port == 2).findFirst().orElseThrow().data.length);
        sw = switchFor("", "sm.egress_spec = 2; clone(CloneType.I2E, 5);",
                "if (sm.instance_type == 1) { truncate(3); }" + EGRESS_RECORD);
        sw.setCloneSession(5, List.of(new V1ModelSwitch.Replica(9, 0)), 8);
        out = sw.process(1, bytes("01000000 0000 0000 ffff"));
        assertEquals(3, out.stream().filter(o -> o.port == 9).findFirst().orElseThrow().data.length,
                "a shorter truncate() cuts the copy further");
    }

    @Test
    void egressCloneCopiesThePacketAfterEgress() {
        V1ModelSwitch sw = switchFor("", "sm.egress_spec = 2;",
                "if (sm.instance_type == 0) { clone(CloneType.E2E, 6); hdr.rec.kind = 0x11; } else { hdr.rec.kind = hdr.rec.kind + 1; }"
                + EGRESS_RECORD);
        sw.setCloneSession(6, List.of(new V1ModelSwitch.Replica(3, 0)), 0);
        List<V1ModelSwitch.Output> out = sw.process(1, bytes("00000000 0000 0000"));
        assertEquals(2, out.size());
        assertEquals("11000002" + "0000" + "0000", hex(out.get(0).data));
        assertEquals("12020003" + "0000" + "0000", hex(out.get(1).data), "the E2E copy sees the egress changes");
    }

    @Test
    void multicastReplicatesWithRids() {
        V1ModelSwitch sw = switchFor("", "sm.mcast_grp = 7;", EGRESS_RECORD);
        sw.setMulticastGroup(7, List.of(new V1ModelSwitch.Replica(1, 10), new V1ModelSwitch.Replica(4, 11)));
        List<V1ModelSwitch.Output> out = sw.process(0, bytes("00000000 0000 0000"));
        assertEquals(2, out.size());
        assertEquals("00050001" + "000a" + "0000", hex(out.get(0).data));
        assertEquals("00050004" + "000b" + "0000", hex(out.get(1).data));
    }

    @Test
    void recirculationPreservesTheFieldList() {
        V1ModelSwitch sw = switchFor("",
                "meta.passes = meta.passes + 1; meta.scratch = 9; sm.egress_spec = 3;",
                "if (meta.passes < 3) { recirculate_preserving_field_list(1); }" + EGRESS_RECORD);
        List<V1ModelSwitch.Output> out = sw.process(1, bytes("00000000 0000 0000"));
        assertEquals(1, out.size());
        assertEquals("00000303" + "0000" + "0000", hex(out.get(0).data), "three passes; egress sees a unicast copy, NORMAL");
    }

    @Test
    void resubmitRunsIngressAgainOnTheOriginalPacket() {
        V1ModelSwitch sw = switchFor("",
                "meta.passes = meta.passes + 1; hdr.rec.kind = 0x77; sm.egress_spec = 3;"
                + "if (meta.passes == 1) { resubmit_preserving_field_list(1); }",
                "hdr.rec.instance = (bit<8>) sm.instance_type; hdr.rec.passes = meta.passes;");
        List<V1ModelSwitch.Output> out = sw.process(1, bytes("00000000 0000 0000"));
        assertEquals(1, out.size());
        // ingress saw RESUBMITTED (6); a unicast copy reaches egress NORMAL (0), as simple_switch sets it
        assertEquals("77000200" + "0000" + "0000", hex(out.get(0).data));
    }

    @Test
    void ternaryRangeAndOptionalMatchHonourPriorities() {
        String decls = String.join("\n",
                "action set(bit<8> k) { hdr.rec.kind = k; }",
                "table t { key = { hdr.rec.key: ternary; hdr.rec.rid: range; hdr.rec.port: optional; }",
                "  actions = { set; NoAction; } default_action = set(0xff); }");
        Program p = programWith(decls, "sm.egress_spec = 1; t.apply();");
        V1ModelSwitch sw = new V1ModelSwitch(p);
        Table t = p.table("I.t");
        Table.FieldMatch anyRange = Table.FieldMatch.range(BigInteger.ZERO, BigInteger.valueOf(0xffff));
        t.insert(new Table.Entry(new Table.FieldMatch[] {
            Table.FieldMatch.ternary(BigInteger.valueOf(0x1200), BigInteger.valueOf(0xff00)), anyRange,
            Table.FieldMatch.wildcard()}, 10, P4Programs.call(p, "I.set", 1), 0));
        t.insert(new Table.Entry(new Table.FieldMatch[] {
            Table.FieldMatch.ternary(BigInteger.valueOf(0x1234), BigInteger.valueOf(0xffff)),
            Table.FieldMatch.range(BigInteger.valueOf(100), BigInteger.valueOf(200)),
            Table.FieldMatch.wildcard()}, 20, P4Programs.call(p, "I.set", 2), 0));
        t.insert(new Table.Entry(new Table.FieldMatch[] {
            Table.FieldMatch.wildcard(), anyRange, Table.FieldMatch.exact(BigInteger.valueOf(9), 8)},
            30, P4Programs.call(p, "I.set", 3), 0));
        assertEquals("02", kind(sw, "1234", "0096", "00"), "both 1 and 2 match; 2 has the higher priority");
        assertEquals("01", kind(sw, "1234", "0010", "00"), "rid 16 is outside 100..200");
        assertEquals("03", kind(sw, "1234", "0096", "09"), "the optional field matches, priority 30 wins");
        assertEquals("ff", kind(sw, "5555", "0096", "00"), "a miss runs the default action");
    }

    private static String kind(V1ModelSwitch sw, String key, String rid, String port) {
        byte[] in = bytes("000000" + port + rid + key);
        return hex(sw.process(0, in).get(0).data).substring(0, 2);
    }

    @Test
    void constEntriesAndExactMatch() {
        String decls = String.join("\n",
                "action set(bit<8> k) { hdr.rec.kind = k; }",
                "table t { key = { hdr.rec.key: exact; } actions = { set; }",
                "  const entries = { 0x0001: set(0x10); 0x0002: set(0x20); }",
                "  default_action = set(0); }");
        Program p = programWith(decls, "sm.egress_spec = 1; t.apply();");
        V1ModelSwitch sw = new V1ModelSwitch(p);
        assertEquals("20", hex(sw.process(0, bytes("00000000 0000 0002")).get(0).data).substring(0, 2));
        assertEquals("00", hex(sw.process(0, bytes("00000000 0000 0003")).get(0).data).substring(0, 2));
        assertEquals(true, p.table("I.t").constEntries);
    }

    @Test
    void switchOnActionRunAndHitMiss() {
        String decls = String.join("\n",
                "action a() { } action b() { }",
                "table t { key = { hdr.rec.key: exact; } actions = { a; b; } default_action = b(); }");
        String apply = String.join("\n",
                "sm.egress_spec = 1;",
                "switch (t.apply().action_run) { a: { hdr.rec.kind = 1; } b: { hdr.rec.kind = 2; } }",
                "if (t.apply().hit) { hdr.rec.passes = 1; } else { hdr.rec.passes = 2; }");
        Program p = programWith(decls, apply);
        V1ModelSwitch sw = new V1ModelSwitch(p);
        p.table("I.t").insert(new Table.Entry(new Table.FieldMatch[] {Table.FieldMatch.exact(BigInteger.ONE, 16)}, 0,
                P4Programs.call(p, "I.a"), 0));
        assertEquals("01000100", hex(sw.process(0, bytes("00000000 0000 0001")).get(0).data).substring(0, 8));
        assertEquals("02000200", hex(sw.process(0, bytes("00000000 0000 0002")).get(0).data).substring(0, 8));
    }

    @Test
    void exitEndsIngressAndMarkToDropDrops() {
        V1ModelSwitch sw = switchFor("", "sm.egress_spec = 1; if (hdr.rec.key == 1) { mark_to_drop(sm); exit; } sm.egress_spec = 2;",
                "");
        assertEquals(0, sw.process(0, bytes("00000000 0000 0001")).size());
        assertEquals(2, sw.process(0, bytes("00000000 0000 0002")).get(0).port);
        assertNull(sw.stats().get("drop: egress"));
    }
}
