package org.nat64fabric.softswitch.ebpf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.testutil.P4Programs;

/** The shape of the C the fast path is compiled from, where it decides what a packet costs. */
class KernelProgramTest {
    private static final String HEADERS = "header tag_t { bit<8> kind; bit<8> a; bit<8> b; }\n"
            + "header big_t { bit<32> x; bit<32> y; bit<32> z; bit<32> u; bit<32> v; }\n"
            + "struct headers_t { tag_t tag; big_t big; }\nstruct meta_t { bit<32> m; }\n";
    private static final String PARSER = "state start { pkt.extract(hdr.tag); pkt.extract(hdr.big); transition accept; }";
    private static final String DEPARSER = "pkt.emit(hdr.tag); pkt.emit(hdr.big);";

    private static String c(Path dir, String declarations, String parser, String ingressDecls, String ingress) {
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS + declarations, parser, ingressDecls, ingress, "", DEPARSER));
        return new KernelProgram(p, KernelProgram.Hook.XDP, false).source();
    }

    @Test void anInParameterGetsACopyOfTheFieldsItsCalleeReadsOnly(@TempDir Path dir) {
        String oneField = c(dir, "control Peek(in headers_t h, inout meta_t m) { apply { m.m = (bit<32>) h.tag.a; } }",
                PARSER, "Peek() peek;", "peek.apply(hdr, meta); hdr.big.u = meta.m; sm.egress_spec = 2;");
        assertFalse(oneField.contains("__builtin_memcpy("), "no copy of the headers a slot at a time or in bulk");
        String threeFields = c(dir, "control Peek(in headers_t h, inout meta_t m) { apply { m.m = h.big.x + h.big.y + h.big.z; } }",
                PARSER, "Peek() peek;", "peek.apply(hdr, meta); hdr.big.u = meta.m; sm.egress_spec = 2;");
        assertEquals(1, threeFields.split("__builtin_memcpy\\(", -1).length - 1, threeFields);
        assertTrue(threeFields.contains(", 24);"), "x, y and z: three slots of 8 bytes");
    }

    @Test void aSlotNoStatementReadsIsNotWritten(@TempDir Path dir) {
        String unread = c(dir, "", PARSER, "", "sm.egress_spec = 2;");
        assertFalse(unread.contains("(bpf_ktime_get_ns() - cfg->start_ns) / 1000"), "no clock read for a timestamp nothing reads");
        String read = c(dir, "", PARSER, "", "hdr.big.u = (bit<32>) sm.ingress_global_timestamp; sm.egress_spec = 2;");
        assertTrue(read.contains("(bpf_ktime_get_ns() - cfg->start_ns) / 1000"), read);
    }

    @Test void aControlsInoutHeadersAreIndexedAtTheirPlaces(@TempDir Path dir) {
        String source = c(dir, "control Inc(inout headers_t h) { apply { h.tag.b = h.tag.a + 1; } }",
                PARSER, "Inc() inc;", "inc.apply(hdr); sm.egress_spec = 2;");
        assertTrue(source.contains("s->n["), source);
        assertFalse(source.contains("s->n[(s->n["), "no slot read to find where the headers are");
        assertFalse(source.contains("& N_MASK]"), "constant indices need no mask");
    }

    @Test void theParserJumpsForwardAndLoopsThroughAnotherTurn(@TempDir Path dir) {
        String parser = "state start { pkt.extract(hdr.tag); transition select(hdr.tag.kind) { 1: more; default: accept; } }\n"
                + "state more { pkt.extract(hdr.big); transition select(hdr.big.x) { 0: more; default: accept; } }";
        String source = c(dir, "", parser, "", "sm.egress_spec = 2;");
        assertTrue(source.contains("GOTO_STATE(1);"), "start to a later state: a jump");
        assertTrue(source.contains("S1:;"), "the state's label");
        assertTrue(source.contains("NEXT_STATE(1);"), "more to itself: the next turn of the loop");
    }

    @Test void bothHooksZeroOnlyWhatMayBeReadUnwritten(@TempDir Path dir) {
        // The hooks differ around the blocks only (taking the frame, changing its length, handing it up):
        // the analysis must read the TC program's lines as it reads XDP's, not give up and zero everything.
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS + "struct unused_t { bit<8> u; }", PARSER, "",
                "hdr.tag.a = hdr.tag.b; hdr.big.setInvalid(); sm.egress_spec = 2;", "", DEPARSER));
        KernelProgram xdp = new KernelProgram(p, KernelProgram.Hook.XDP, false);
        KernelProgram tc = new KernelProgram(p, KernelProgram.Hook.TC, false);
        assertNotNull(xdp.zeroed().read, "every read placed");
        assertTrue(xdp.zeroed().narrow.cardinality() < p.narrowSlots, "not every slot zeroed");
        assertEquals(xdp.zeroed().narrow, tc.zeroed().narrow);
        assertEquals(xdp.zeroed().units, tc.zeroed().units);
        assertEquals(xdp.zeroed().read, tc.zeroed().read);
        assertTrue(tc.source().contains("bpf_skb_change_proto") && tc.source().contains("hand_up(ctx)"), "the TC program");
    }

    @Test void theDeparserSkipsARunOfAbsentHeadersAtOneBranch(@TempDir Path dir) {
        // A deparser emits many headers of which a packet has a few; a branch per header was a sixth
        // of the NAT64 program's cost. The run is tested as a whole, then each header in it.
        String source = c(dir, "", PARSER, "", "sm.egress_spec = 2;");
        Matcher run = Pattern.compile(
                "if \\((s->n\\[\\d+\\]) \\| (s->n\\[\\d+\\])\\) \\{").matcher(source);
        assertTrue(run.find(), source);
        int tag = source.indexOf("if (" + run.group(1) + ") {", run.end());
        int big = source.indexOf("if (" + run.group(2) + ") {", run.end());
        assertTrue(tag > 0 && big > tag, "each header still under its own validity, in order: " + source);
    }
}
