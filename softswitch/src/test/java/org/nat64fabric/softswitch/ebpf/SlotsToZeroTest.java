package org.nat64fabric.softswitch.ebpf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.testutil.P4Programs;

/** Which slots a packet must start by zeroing: those read, on some path, before they are written. */
class SlotsToZeroTest {
    private static final String NO_PARSER = "switch (s->pstate) {\n}\n";

    /** The narrow slots (of 16) and units (of 4) the analysis zeroes for a body in the generator's shape. */
    private static SlotsToZero.Result zeroed(String parser, String body) {
        return SlotsToZero.of(parser, body, 16, 4);
    }

    private static BitSet slots(int... s) {
        BitSet b = new BitSet();
        for (int i : s) {
            b.set(i);
        }
        return b;
    }

    private static BitSet all(int n) {
        BitSet b = new BitSet();
        b.set(0, n);
        return b;
    }

    @Test void aSlotWrittenBeforeItIsReadIsNotZeroed() {
        SlotsToZero.Result r = zeroed(NO_PARSER, String.join("\n",
                "s->n[1] = (0x5ULL) & 0xffULL;",
                "s->n[2] = (s->n[1] + s->n[3]) & 0xffULL;",
                "s->w[0] = (s->w[1]) & (~(u128)0);"));
        assertEquals(slots(3), r.narrow);
        assertEquals(slots(1), r.units);
    }

    @Test void aSlotWrittenOnOneBranchOnlyIsZeroed() {
        SlotsToZero.Result r = zeroed(NO_PARSER, String.join("\n",
                "if (s->n[0] == 1) {",
                "    s->n[1] = 7;",
                "    s->n[2] = 7;",
                "}",
                "else {",
                "    s->n[2] = 8;",
                "}",
                "s->n[3] = (s->n[1] + s->n[2]) & 0xffULL;",
                "if (s->n[0]) s->n[4] = 1;",
                "s->n[5] = s->n[4];"));
        assertEquals(slots(0, 1, 4), r.narrow);
    }

    @Test void everyArmOfAnElseIfChainCounts() {
        SlotsToZero.Result r = zeroed(NO_PARSER, String.join("\n",
                "s->n[0] = 1;",
                "if (s->n[0] == 0) {",
                "    s->n[1] = 1;",
                "}",
                "else if (s->n[0] == 1) {",
                "    s->n[1] = 2;",
                "}",
                "else BAIL(3);",
                "s->n[2] = s->n[1];"));
        assertEquals(slots(), r.narrow);
    }

    @Test void aJumpOverAWriteJoinsAtItsLabel() {
        SlotsToZero.Result r = zeroed(NO_PARSER, String.join("\n",
                "s->n[1] = 1;",
                "if (s->n[1]) goto L0;",
                "s->n[2] = 1;",
                "L0:;",
                "s->n[3] = s->n[2];",
                "s->n[4] = 1;",
                "goto L1;",
                "s->n[5] = 1;",
                "L1:;",
                "s->n[6] = s->n[4] + s->n[1];"));
        assertEquals(slots(2), r.narrow);
    }

    @Test void readsThroughAReferenceReachWhatItWasBoundTo() {
        // Slot 9 refers to an aggregate at 4 or at 10; field 1 of it is read.
        SlotsToZero.Result r = zeroed(NO_PARSER, String.join("\n",
                "s->n[0] = 1;",
                "if (s->n[0]) {",
                "    s->n[9] = 4;",
                "}",
                "else {",
                "    s->n[9] = 10;",
                "}",
                "s->tn[0] = (s->n[9] + 1);",
                "s->n[1] = s->n[((s->n[9] + 0) + 1) & N_MASK] + s->n[(s->tn[0]) & N_MASK];",
                "copy_n(s, 12, (s->n[9] + 2), 2);",
                "s->n[2] = s->n[12] + s->n[13];"));
        assertEquals(slots(5, 6, 7, 11, 12, 13), r.narrow);
    }

    @Test void aReadItCannotPlaceZeroesEverySlotNotYetWritten() {
        SlotsToZero.Result r = zeroed(NO_PARSER, String.join("\n",
                "s->n[1] = 1;",
                "s->n[2] = s->n[(s->n[1] * 2) & N_MASK];",
                "s->w[0] = 0;",
                "s->w[1] = s->w[(s->tn[3] + 1) & W_MASK];"));
        BitSet narrow = all(16);
        narrow.clear(1);
        assertEquals(narrow, r.narrow);
        assertEquals(slots(1, 2, 3), r.units);
    }

    @Test void everyPlaceSomeStatementReadsIsKnownAsRead() {
        SlotsToZero.Result r = zeroed(NO_PARSER, String.join("\n",
                "s->n[1] = s->n[2];",
                "__builtin_memcpy(&s->n[4], &s->n[8], 16);",
                "barrier();",
                "__builtin_memset(&s->n[12], 0, 16);",
                "s->w[0] = s->w[3];",
                "if (s->n[5]) s->n[6] = 1;"));
        assertEquals(slots(2, 5, 8, 9, 16 + 3), r.read);
        // A copy moves its source's state to its target: 5, read before any write, holds what 9
        // held when the packet started, so 9 is zeroed; 4, a copy of 8, is never read.
        assertEquals(slots(2, 9), r.narrow);
        assertEquals(slots(3), r.units);
    }

    @Test void aReadItCannotPlaceLeavesTheReadPlacesUnknown() {
        SlotsToZero.Result r = zeroed(NO_PARSER, "s->n[1] = 1;\ns->n[2] = s->n[(s->n[1] * 2) & N_MASK];");
        assertNull(r.read);
    }

    @Test void aBackwardJumpZeroesEverything() {
        SlotsToZero.Result r = zeroed(NO_PARSER, String.join("\n",
                "L0:;",
                "s->n[1] = 1;",
                "if (s->n[1]) goto L0;"));
        assertEquals(all(16), r.narrow);
        assertEquals(all(4), r.units);
    }

    @Test void aLoopZeroesEverything() {
        SlotsToZero.Result r = zeroed(NO_PARSER, "for (int i = 0; i < 2; i++) {\ns->n[1] = 1;\n}\ns->n[2] = s->n[1];");
        assertEquals(all(16), r.narrow);
    }

    @Test void aJumpAmongOtherStatementsOnALineZeroesEverything() {
        SlotsToZero.Result r = zeroed(NO_PARSER, "s->n[1] = 1; goto L0;\nL0:;\ns->n[2] = s->n[1];");
        assertEquals(all(16), r.narrow);
    }

    @Test void parserStatesStartFromWhatWasWrittenBeforeTheParser() {
        String parser = String.join("\n",
                "switch (s->pstate) {",
                "    case 0: {",
                "        s->n[(3 + 1) & N_MASK] = rd(s->pkt, (s->cursor >> 3) + 0, 0, 8);",
                "        s->n[(3) & N_MASK] = 1;",
                "        s->tn[0] = s->n[4] + s->n[0];",
                "        if (1 && s->tn[0] == 1) NEXT_STATE(1);",
                "        ACCEPT();",
                "    }",
                "    case 1: {",
                "        s->tn[1] = s->n[4];",
                "        s->n[6] = 1;",
                "        ACCEPT();",
                "    }",
                "}");
        SlotsToZero.Result r = zeroed(parser, String.join("\n",
                "s->n[0] = 5;",
                "bpf_loop(PARSER_STEPS, parse_step, &pc, 0);",
                "s->n[7] = s->n[3] + s->n[6];"));
        // Slot 4 is read in state 1 without the write of state 0 on every way there; 3 and 6 are
        // written by some states only.
        assertEquals(slots(3, 4, 6), r.narrow);
    }

    // ---- reads under a guard ----

    /** A parser with one state extracting a header: its validity in slot 0, its fields in 1 and 2. */
    private static final String EXTRACT = String.join("\n",
            "switch (s->pstate) {",
            "    case 0: {",
            "        if (s->cursor + 16 > s->copied * 8) REJECT(1);",
            "        s->n[1] = rd(s->pkt, (s->cursor >> 3) + 0, 0, 8);",
            "        s->n[2] = rd(s->pkt, (s->cursor >> 3) + 1, 0, 8);",
            "        s->n[0] = 1;",
            "        ACCEPT();",
            "    }",
            "}");

    @Test void fieldsReadOnlyWhereTheirHeaderIsValidAreNotZeroed() {
        SlotsToZero.Result r = zeroed(EXTRACT, String.join("\n",
                "if (!parse_turn(s)) bpf_loop(PARSER_STEPS - 1, parse_step, &pc, 0);",
                "if (s->n[0]) {",
                "    s->n[6] = s->n[1];",
                "}",
                "s->n[7] = ((((s->n[0]) ? ((s->n[2] == 0x5ULL)) : (0)) != 0)) & 0x1ULL;",
                "if ((((s->n[0]) ? ((s->n[2] == 0x4ULL)) : (0)) != 0)) {",
                "    s->n[8] = s->n[1];",
                "}"));
        // The validity slot itself is read on paths where the parser did not set it.
        assertEquals(slots(0), r.narrow);
    }

    @Test void aFieldReadWithoutItsGuardIsZeroed() {
        SlotsToZero.Result r = zeroed(EXTRACT, String.join("\n",
                "if (!parse_turn(s)) bpf_loop(PARSER_STEPS - 1, parse_step, &pc, 0);",
                "if (s->n[0]) {",
                "    s->n[6] = s->n[1];",
                "}",
                "s->n[7] = s->n[2];",
                "s->n[8] = ((s->n[3]) ? (s->n[1]) : (0));"));
        assertEquals(slots(0, 2, 3), r.narrow, "2 is read unguarded; 3 guards nothing written");
    }

    @Test void aHeaderMadeValidWithoutAFieldHasThatFieldZeroed() {
        SlotsToZero.Result r = zeroed(NO_PARSER, String.join("\n",
                "if (s->n[3] == 1) {",
                "    s->n[0] = 1;",
                "    s->n[1] = 4;",
                "}",
                "if (s->n[0]) {",
                "    s->n[6] = s->n[1] + s->n[2];",
                "}"));
        assertEquals(slots(0, 2, 3), r.narrow);
    }

    @Test void aHeaderMadeInvalidHasNothingToZeroUnderItsGuard() {
        SlotsToZero.Result r = zeroed(EXTRACT, String.join("\n",
                "if (!parse_turn(s)) bpf_loop(PARSER_STEPS - 1, parse_step, &pc, 0);",
                "s->n[0] = 0;",
                "if (s->n[0]) {",
                "    s->n[6] = s->n[4];",
                "}",
                "if (s->n[5] == 1) s->n[0] = (s->n[9]) & 0x1ULL;",
                "if (s->n[0]) {",
                "    s->n[7] = s->n[2];",
                "}"));
        // Set to a value it may not be zero: what is written then is all its band holds.
        assertEquals(slots(2, 5, 9), r.narrow);
    }

    @Test void aCopiedHeaderKeepsItsGuard() {
        SlotsToZero.Result r = zeroed(EXTRACT, String.join("\n",
                "if (!parse_turn(s)) bpf_loop(PARSER_STEPS - 1, parse_step, &pc, 0);",
                "__builtin_memcpy(&s->n[8], &s->n[0], 24);",
                "if (s->n[8]) {",
                "    s->n[6] = s->n[9] + s->n[10];",
                "}",
                "s->n[7] = s->n[12];"));
        // 8 holds what 0 held (zeroed, where the parser did not set it); 12 was never written.
        assertEquals(slots(0, 12), r.narrow);
    }

    @Test void aStackElementExtractedAtARunTimeIndexIsValidWithItsFields() {
        String parser = String.join("\n",
                "switch (s->pstate) {",
                "    case 0: {",
                "        if (s->n[15] >= 2) REJECT(3);",
                "        s->n[(({ __u64 i_ = s->n[15]; i_ < 2 ? 2 + i_ * 2 : 6; }) + 1) & N_MASK] = rd(s->pkt, 0, 0, 8);",
                "        s->n[(({ __u64 i_ = s->n[15]; i_ < 2 ? 2 + i_ * 2 : 6; })) & N_MASK] = 1;",
                "        s->n[15]++;",
                "        if (s->n[15] < 2) NEXT_STATE(0);",
                "        ACCEPT();",
                "    }",
                "}");
        SlotsToZero.Result r = zeroed(parser, String.join("\n",
                "if (!parse_turn(s)) bpf_loop(PARSER_STEPS - 1, parse_step, &pc, 0);",
                "if (s->n[2]) {",
                "    s->n[10] = s->n[3];",
                "}",
                "if (s->n[4]) {",
                "    s->n[11] = s->n[5];",
                "}",
                "s->n[(({ __u64 i_ = 0x1ULL; i_ < 2 ? (0 + 2) + i_ * 2 : 6; })) & N_MASK] = 0;",
                "if (s->n[4]) {",
                "    s->n[12] = s->n[8];",
                "}"));
        // The index and the validity slots are read; 4 set invalid at constant index 1 guards nothing.
        assertEquals(slots(2, 4, 15), r.narrow);
    }

    @Test void anElementAlreadyValidKeepsWhatItsBandKnewWhenTheIndexGoesElsewhere() {
        // Element 0 (2: validity, 3 and 4: fields) is made valid with field 4 unset; then a whole
        // element is written at a run-time index, which may be 1 (at 5) or past the end (8).
        SlotsToZero.Result r = zeroed(NO_PARSER, String.join("\n",
                "s->n[2] = 1;",
                "s->n[3] = (0x7ULL) & 0xffULL;",
                "s->n[12] = (s->n[15]) & 0xffffffffULL;",
                "s->n[(({ __u64 i_ = s->n[12]; i_ < 2 ? 2 + i_ * 3 : 8; }) + 1) & N_MASK] = (0x1ULL) & 0xffULL;",
                "s->n[(({ __u64 i_ = s->n[12]; i_ < 2 ? 2 + i_ * 3 : 8; }) + 2) & N_MASK] = (0x2ULL) & 0xffULL;",
                "s->n[(({ __u64 i_ = s->n[12]; i_ < 2 ? 2 + i_ * 3 : 8; })) & N_MASK] = 1;",
                "if (s->n[2]) {",
                "    s->n[13] = s->n[4];",
                "}",
                "if (s->n[5]) {",
                "    s->n[14] = s->n[7];",
                "}"));
        assertTrue(r.narrow.get(4), "element 0 stays valid without field 4 when the index is not 0");
        assertTrue(!r.narrow.get(7), "element 1, invalid before, is valid only with its fields");
    }

    @Test void aCopyInTheParserMayUndoAWriteMadeBeforeIt() {
        String parser = String.join("\n",
                "switch (s->pstate) {",
                "    case 0: {",
                "        __builtin_memcpy(&s->n[4], &s->n[8], 16);",
                "        ACCEPT();",
                "    }",
                "}");
        SlotsToZero.Result r = zeroed(parser, String.join("\n",
                "s->n[4] = 1;",
                "s->n[5] = 1;",
                "if (!parse_turn(s)) bpf_loop(PARSER_STEPS - 1, parse_step, &pc, 0);",
                "s->n[6] = s->n[4];"));
        assertTrue(r.narrow.get(8), "4 may hold what 8 held when the packet started");
    }

    @Test void aWriteAtAnUnknownPlaceMayMakeAnyGuardNonzero() {
        SlotsToZero.Result r = zeroed(EXTRACT, String.join("\n",
                "if (!parse_turn(s)) bpf_loop(PARSER_STEPS - 1, parse_step, &pc, 0);",
                "s->n[0] = 0;",
                "s->n[(s->n[4] * 3) & N_MASK] = 1;",
                "if (s->n[0]) {",
                "    s->n[6] = s->n[1];",
                "}"));
        assertTrue(r.narrow.get(1), "slot 0 may have been set without its fields");
    }

    // ---- on programs ----

    private static final String HEADERS = "header tag_t { bit<8> kind; bit<8> a; bit<8> b; }\n"
            + "struct headers_t { tag_t tag; }\nstruct meta_t { bit<8> m; }\n";
    private static final String PARSER = "state start { pkt.extract(hdr.tag); transition accept; }";

    private static int zeroedSlots(Path dir, String ingress) {
        Program p = P4Programs.compile(dir, P4Programs.v1(HEADERS, PARSER, "", ingress, "", "pkt.emit(hdr.tag);"));
        KernelProgram x = new KernelProgram(p, KernelProgram.Hook.XDP, false);
        assertTrue(x.zeroed().narrow.cardinality() < p.narrowSlots, "some slots are written before they are read");
        return x.zeroed().narrow.cardinality();
    }

    @Test void aLocalWithoutInitialiserIsWrittenByItsDeclaration(@TempDir Path dir) {
        // The frontend declares it zero, as the interpreter reads it: nothing more to zero.
        String always = "bit<8> x; if (hdr.tag.kind == 1) { x = hdr.tag.a; } else { x = 3; }"
                + " hdr.tag.b = x; sm.egress_spec = 2;";
        String onePath = "bit<8> x; if (hdr.tag.kind == 1) { x = hdr.tag.a; } hdr.tag.b = x; sm.egress_spec = 2;";
        assertEquals(zeroedSlots(dir, always), zeroedSlots(dir, onePath));
    }

    @Test void metadataReadBeforeItIsWrittenOnOnePathIsZeroed(@TempDir Path dir) {
        String always = "hdr.tag.b = hdr.tag.a; meta.m = 3; if (hdr.tag.kind == 1) { meta.m = 4; }"
                + " hdr.tag.b = meta.m; sm.egress_spec = 2;";
        String onePath = "hdr.tag.b = hdr.tag.a; if (hdr.tag.kind == 1) { meta.m = 4; }"
                + " hdr.tag.b = meta.m; sm.egress_spec = 2;";
        assertEquals(zeroedSlots(dir, always) + 1, zeroedSlots(dir, onePath));
    }
}
