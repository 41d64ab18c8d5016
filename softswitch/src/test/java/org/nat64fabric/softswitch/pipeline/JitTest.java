package org.nat64fabric.softswitch.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.frontend.Type;

/**
 * The bytecode compiler against the tree interpreter, node by node: the same statements run both
 * ways on the same random states must leave the same slots and say the same about how control
 * leaves them. (The P4 suites then run whole programs through the compiled code.)
 */
class JitTest {
    private static final int[] WIDTHS = {1, 3, 8, 13, 16, 32, 48, 63, 64};
    private final Random random = new Random(17);

    /** Slots 0 and 1 hold the operands, 2.. the results. */
    private long operand(int width) {
        long mask = Bits.mask(width);
        switch (random.nextInt(6)) {
            case 0: return 0;
            case 1: return mask;
            case 2: return random.nextInt(width + 2) & mask;   // around the width: shifts
            case 3: return (mask >>> 1) + random.nextInt(3) & mask;   // around the sign bit
            default: return random.nextLong() & mask;
        }
    }

    private void agree(Stmt tree, int slots, int width, int rounds) {
        Stmt compiled = Jit.compile(tree);
        assertNotSame(tree, compiled, "the tree was compiled");
        for (int i = 0; i < rounds; i++) {
            State interpreted = new State(slots, 1);
            State jit = new State(slots, 1);
            for (int k = 0; k < 2; k++) {
                interpreted.n[k] = jit.n[k] = operand(width);
            }
            int r1 = tree.exec(interpreted);
            int r2 = compiled.exec(jit);
            assertEquals(r1, r2, "how control leaves");
            for (int k = 0; k < slots; k++) {
                assertEquals(interpreted.n[k], jit.n[k], "slot " + k + " with operands " + Long.toUnsignedString(interpreted.n[0])
                        + ", " + Long.toUnsignedString(interpreted.n[1]) + " (width " + width + ")");
            }
        }
    }

    @Test void everyBinaryOperatorAtEveryWidthSignedAndNot() {
        for (int width : WIDTHS) {
            for (boolean signed : new boolean[] {false, true}) {
                Type t = new Type.Bits(width, signed);
                Expr a = new Expr.Slot(t, 0, width);
                Expr b = new Expr.Slot(t, 1, width);
                List<Stmt> body = new ArrayList<>();
                int slot = 2;
                for (Ops.Op op : Ops.Op.values()) {
                    if (op == Ops.Op.LAND || op == Ops.Op.LOR || op == Ops.Op.CONCAT && 2 * width > 64) {
                        continue;
                    }
                    boolean comparison = op.ordinal() >= Ops.Op.EQ.ordinal();
                    Type result = comparison ? Type.BOOL : op == Ops.Op.CONCAT ? new Type.Bits(2 * width, signed) : t;
                    int resultWidth = comparison ? 1 : op == Ops.Op.CONCAT ? 2 * width : width;
                    body.add(new Stmt.Assign(new Expr.Slot(result, slot++, resultWidth), new Ops.Binary(op, result, a, b)));
                }
                agree(new Stmt.Block(body), slot, width, 300);
            }
        }
    }

    @Test void unaryCastSliceConditionalAndLogic() {
        for (int width : WIDTHS) {
            Type t = new Type.Bits(width, false);
            Type signed = new Type.Bits(width, true);
            Expr a = new Expr.Slot(t, 0, width);
            Expr b = new Expr.Slot(t, 1, width);
            Expr aSigned = new Expr.Slot(signed, 0, width);
            Expr aIsZero = new Ops.Binary(Ops.Op.EQ, Type.BOOL, a, new Expr.Const(t, 0));
            Expr bIsOdd = new Ops.Binary(Ops.Op.NE, Type.BOOL, new Ops.Binary(Ops.Op.AND, t, b, new Expr.Const(t, 1)), new Expr.Const(t, 0));
            List<Stmt> body = new ArrayList<>();
            int slot = 2;
            for (char op : new char[] {'~', '-', '+'}) {
                body.add(new Stmt.Assign(new Expr.Slot(t, slot++, width), new Ops.Unary(op, t, a)));
            }
            body.add(new Stmt.Assign(new Expr.Slot(Type.BOOL, slot++, 1), new Ops.Unary('!', Type.BOOL, aIsZero)));
            for (int to : new int[] {1, 5, 16, 40, 64}) {
                Type target = new Type.Bits(to, false);
                body.add(new Stmt.Assign(new Expr.Slot(target, slot++, to), new Ops.Cast(target, a)));
                body.add(new Stmt.Assign(new Expr.Slot(target, slot++, to), new Ops.Cast(target, aSigned)));
            }
            int hi = width - 1;
            int lo = width / 3;
            Type sliceType = new Type.Bits(hi - lo + 1, false);
            body.add(new Stmt.Assign(new Expr.Slot(sliceType, slot++, hi - lo + 1), new Ops.Slice(sliceType, a, hi, lo)));
            Expr.Slot target = new Expr.Slot(t, slot++, width);
            body.add(new Stmt.Assign(target, b));
            body.add(new Stmt.Assign(new Ops.Slice(sliceType, target, hi, lo), a));
            body.add(new Stmt.Assign(new Expr.Slot(t, slot++, width), new Ops.Conditional(t, bIsOdd, a, b)));
            body.add(new Stmt.Assign(new Expr.Slot(Type.BOOL, slot++, 1), new Ops.Binary(Ops.Op.LAND, Type.BOOL, aIsZero, bIsOdd)));
            body.add(new Stmt.Assign(new Expr.Slot(Type.BOOL, slot++, 1), new Ops.Binary(Ops.Op.LOR, Type.BOOL, aIsZero, bIsOdd)));
            agree(new Stmt.Block(body), slot, width, 300);
        }
    }

    @Test void controlLeavesAsInTheTree() {
        Type t = new Type.Bits(8, false);
        Expr a = new Expr.Slot(t, 0, 8);
        Expr.Slot out = new Expr.Slot(t, 2, 8);
        Stmt mark = new Stmt.Assign(out, new Expr.Const(t, 7));
        // switch (a) { 1: 2: {out = 7; exit;}  3: return;  default: out = 7 }, then a statement after it.
        Stmt sw = new Stmt.Switch(a, new long[] {1, 2, 3}, new int[] {0, 0, 1},
                new Stmt[] {new Stmt.Block(List.of(mark, new Stmt.Exit())), new Stmt.Return(null), mark}, 2);
        Stmt after = new Stmt.Assign(new Expr.Slot(t, 3, 8), new Expr.Const(t, 9));
        Stmt ifExit = new Stmt.If(new Ops.Binary(Ops.Op.GT, Type.BOOL, a, new Expr.Const(t, 200)), new Stmt.Exit(), Stmt.EMPTY);
        Stmt callable = new Stmt.Callable(new Stmt.Block(List.of(ifExit, sw, after)));
        agree(new Stmt.Block(List.of(callable, after)), 4, 8, 500);
        agree(new Stmt.Block(List.of(ifExit, sw, after)), 4, 8, 500);
    }

    @Test void wideValuesGoThroughTheirOwnNodes() {
        Type t = new Type.Bits(128, false);
        Expr.WideSlot x = new Expr.WideSlot(t, 0, 128);
        Expr.Slot low = new Expr.Slot(new Type.Bits(64, false), 2, 64);
        Stmt tree = new Stmt.Block(List.of(
                new Stmt.Assign(x, new Ops.Binary(Ops.Op.ADD, t, x, new Expr.Const(t, BigInteger.ONE.shiftLeft(100)))),
                new Stmt.Assign(low, new Ops.Slice(new Type.Bits(64, false), x, 127, 64))));
        Stmt compiled = Jit.compile(tree);
        State interpreted = new State(3, 1);
        State jit = new State(3, 1);
        interpreted.w[0] = jit.w[0] = new BigInteger("fedcba9876543210fedcba9876543210", 16);
        tree.exec(interpreted);
        compiled.exec(jit);
        assertEquals(interpreted.w[0], jit.w[0]);
        assertEquals(interpreted.n[2], jit.n[2]);
    }

    /**
     * The compiled parser: a select's value, mask, range and default cases, a transition to
     * reject, no case matching (NoMatch), and a loop stopped after 4096 states (ParserTimeout).
     */
    @Test void parserSelectsRejectsAndStopsALoop() {
        Type t = new Type.Bits(8, false);
        Expr.Slot key = new Expr.Slot(t, 0, 8);
        Expr.Slot second = new Expr.Slot(t, 1, 8);
        Expr.Slot visits = new Expr.Slot(new Type.Bits(32, false), 2, 32);
        Stmt count = new Stmt.Assign(visits, new Ops.Binary(Ops.Op.ADD, visits.type, visits, new Expr.Const(visits.type, 1)));
        Parser.Keyset[][] first = {
            {Parser.Keyset.value(BigInteger.valueOf(5), 8)},
            {Parser.Keyset.mask(BigInteger.valueOf(0x10), BigInteger.valueOf(0xf0))},
            {Parser.Keyset.range(BigInteger.valueOf(0x20), BigInteger.valueOf(0x2f), 0)},
            {Parser.Keyset.any()}};
        Parser parser = new Parser("p", new Stmt[] {count, Stmt.EMPTY}, new Parser.Transition[] {
            new Parser.Select(new Expr[] {key}, first, new ValueSet[4], new int[] {Parser.ACCEPT_STATE, 1, Parser.REJECT_STATE, 0}, false),
            new Parser.Select(new Expr[] {second}, new Parser.Keyset[][] {{Parser.Keyset.value(BigInteger.ONE, 8)}},
                    new ValueSet[1], new int[] {Parser.ACCEPT_STATE}, false)});
        long[][] cases = {   // key, second, accepted (1/0), parser error, visits of state 0
            {5, 0, 1, PacketIo.NO_ERROR, 1},
            {0x13, 1, 1, PacketIo.NO_ERROR, 1},
            {0x1f, 2, 0, PacketIo.NO_MATCH, 1},
            {0x2a, 0, 0, PacketIo.NO_ERROR, 1},
            {0x99, 0, 0, PacketIo.PARSER_TIMEOUT, 4096}};
        for (long[] c : cases) {
            State s = new State(3, 0);
            s.n[0] = c[0];
            s.n[1] = c[1];
            boolean accepted = parser.run(s);
            String what = "key " + c[0] + ", second " + c[1];
            if (c[2] == 1) {
                assertTrue(accepted, what);
            } else {
                assertFalse(accepted, what);
            }
            assertEquals(c[3], s.parserError, what);
            assertEquals(c[4], s.n[2], what);
        }
    }
}
