package org.nat64fabric.softswitch.pipeline;

import static org.objectweb.asm.Opcodes.*;

import java.math.BigInteger;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;

/** A compiled parser: states with bodies and transitions, run until accept or reject. */
public final class Parser {
    /** Returned by parser statements that reject (the error is in {@link State#parserError}). */
    public static final int REJECT = 3;
    public static final int ACCEPT_STATE = -1;
    public static final int REJECT_STATE = -2;
    /** Transitions allowed per packet: a program that loops without consuming is stopped. */
    private static final int MAX_TRANSITIONS = 4096;

    public final String name;
    private final Stmt[] bodies;
    /** The parser as it runs, compiled to JVM bytecode ({@link Jit}): exec gives ACCEPTED or not. */
    private final Stmt code;
    private static final int ACCEPTED = 1;
    private final Transition[] transitions;

    /** Where a state goes next. */
    public abstract static class Transition {
        abstract int next(State s);

        /**
         * Goes to the next state in JVM bytecode: jumps to {@code states[target]}, {@code accept} or
         * {@code reject}. By default the transition's own next decides, through {@code goTo}.
         */
        void jvm(Jit j, Label[] states, Label accept, Label reject, Label goTo, int stateLocal) {
            j.constant(this);
            j.state();
            j.code().visitMethodInsn(INVOKEVIRTUAL, j.typeOf(this), "next", "(" + org.objectweb.asm.Type.getDescriptor(State.class) + ")I", false);
            j.code().visitVarInsn(ISTORE, stateLocal);
            j.code().visitJumpInsn(GOTO, goTo);
        }

        /** Goes to the next state from state {@code from} (in C; see {@link Parser#c}). */
        abstract void c(CodeWriter w, int from);
    }

    /** A state written after {@code from} is jumped to (forward, so no loop for the verifier); an earlier one waits for the next turn. */
    static String cGoto(int from, int target) {
        return target == ACCEPT_STATE ? "ACCEPT();" : target == REJECT_STATE ? "REJECT(" + PacketIo.NO_MATCH + ");"
                : target > from ? "GOTO_STATE(" + target + ");" : "NEXT_STATE(" + target + ");";
    }

    public static final class Direct extends Transition {
        private final int target;

        public Direct(int target) {
            this.target = target;
        }

        @Override int next(State s) { return target; }

        @Override void jvm(Jit j, Label[] states, Label accept, Label reject, Label goTo, int stateLocal) {
            jump(j, target, states, accept, reject);
        }
        @Override void c(CodeWriter w, int from) { w.line(cGoto(from, target)); }
    }

    /**
     * select(keys) with cases in order; each case lists one keyset per key, or is a value set
     * (sets[c] non-null) whose members it matches against all the keys.
     */
    public static final class Select extends Transition {
        private final Expr[] keys;
        private final Keyset[][] cases;
        private final ValueSet[] sets;
        private final int[] targets;
        private final boolean wide;
        /** A key peeks at the packet (lookahead): past its end the select rejects (P4_16 12.8.3) before any case is taken. */
        private final boolean peeks;

        public Select(Expr[] keys, Keyset[][] cases, ValueSet[] sets, int[] targets, boolean peeks) {
            this.keys = keys;
            this.peeks = peeks;
            this.cases = cases;
            this.sets = sets;
            this.targets = targets;
            boolean w = false;
            for (Expr k : keys) {
                w |= k.isWide();
            }
            this.wide = w;
        }

        @Override void jvm(Jit j, Label[] states, Label accept, Label reject, Label goTo, int stateLocal) {
            boolean sets = false;
            for (ValueSet set : this.sets) {
                sets |= set != null;
            }
            if (wide || sets) {
                super.jvm(j, states, accept, reject, goTo, stateLocal);
                return;
            }
            MethodVisitor m = j.code();
            int[] values = new int[keys.length];
            for (int i = 0; i < keys.length; i++) {
                values[i] = j.newLocal(2);
                j.narrow(keys[i]);
                m.visitVarInsn(LSTORE, values[i]);
            }
            if (peeks) {
                j.stateField("parserError", "I");
                m.visitJumpInsn(IFNE, reject);
            }
            for (int c = 0; c < cases.length; c++) {
                Label next = new Label();
                for (int i = 0; i < keys.length; i++) {
                    cases[c][i].jvmTest(j, values[i], next);
                }
                jump(j, targets[c], states, accept, reject);
                m.visitLabel(next);
            }
            j.state();
            j.pushInt(PacketIo.NO_MATCH);
            m.visitFieldInsn(PUTFIELD, org.objectweb.asm.Type.getInternalName(State.class), "parserError", "I");
            m.visitJumpInsn(GOTO, reject);
        }

        @Override int next(State s) {
            // Keys over 64 bits make the select compare BigIntegers; otherwise longs, without allocating.
            long[] narrow = wide ? null : s.selectValues(keys.length);
            BigInteger[] wideValues = wide ? new BigInteger[keys.length] : null;
            for (int i = 0; i < keys.length; i++) {
                if (wide) {
                    wideValues[i] = keys[i].evalWide(s);
                } else {
                    narrow[i] = keys[i].eval(s);
                }
            }
            if (peeks && s.parserError != PacketIo.NO_ERROR) {
                return REJECT_STATE;
            }
            outer:
            for (int c = 0; c < cases.length; c++) {
                if (sets[c] != null) {
                    if (wide ? sets[c].matches(wideValues) : sets[c].matches(narrow)) {
                        return targets[c];
                    }
                    continue;
                }
                for (int i = 0; i < keys.length; i++) {
                    if (!(wide ? cases[c][i].matches(wideValues[i]) : cases[c][i].matches(narrow[i]))) {
                        continue outer;
                    }
                }
                return targets[c];
            }
            s.parserError = PacketIo.NO_MATCH;
            return REJECT_STATE;
        }

        @Override void c(CodeWriter w, int from) {
            for (ValueSet set : sets) {
                if (set != null) {
                    throw new CodeWriter.Unsupported("a parser value set");
                }
            }
            String[] v = new String[keys.length];
            for (int i = 0; i < keys.length; i++) {
                v[i] = keys[i].isWide() ? w.tempWide() : w.tempNarrow();
                w.line(v[i] + " = " + keys[i].c(w) + ";");
            }
            if (peeks) {
                w.line("if (s->perr) REJECT(s->perr);");
            }
            for (int c = 0; c < cases.length; c++) {
                StringBuilder cond = new StringBuilder("1");
                for (int i = 0; i < keys.length; i++) {
                    String k = cases[c][i].c(v[i], Math.max(keys[i].width(), 1));
                    if (k != null) {
                        cond.append(" && ").append(k);
                    }
                }
                w.line("if (" + cond + ") " + cGoto(from, targets[c]));
            }
            w.line("REJECT(" + PacketIo.NO_MATCH + ");");
        }
    }

    /**
     * One component of a select case: a value, value &&& mask, low..high, or default/_. A range
     * over an int<W> key compares with the key's sign bit flipped (both bounds are stored so), which
     * puts signed values in the order of unsigned ones.
     */
    public static final class Keyset {
        private final BigInteger value;
        private final BigInteger mask;
        private final BigInteger high;
        private final BigInteger flip;
        private final long v;
        private final long m;
        private final long h;
        private final long f;

        private Keyset(BigInteger value, BigInteger mask, BigInteger high, BigInteger flip) {
            this.value = value;
            this.mask = mask;
            this.high = high;
            this.flip = flip;
            this.v = value.longValue();
            this.m = mask == null ? 0 : mask.longValue();
            this.h = high == null ? 0 : high.longValue();
            this.f = flip.longValue();
        }

        public static Keyset value(BigInteger v, int width) {
            return new Keyset(v, Bits.wideMask(Math.max(width, 1)), null, BigInteger.ZERO);
        }

        public static Keyset mask(BigInteger v, BigInteger mask) {
            return new Keyset(v.and(mask), mask, null, BigInteger.ZERO);
        }

        /** low .. high, both as the key's bits; {@code signedWidth} the width of an int<W> key, else 0. */
        public static Keyset range(BigInteger low, BigInteger high, int signedWidth) {
            BigInteger flip = signedWidth == 0 ? BigInteger.ZERO : BigInteger.ONE.shiftLeft(signedWidth - 1);
            return new Keyset(low.xor(flip), null, high.xor(flip), flip);
        }

        public static Keyset any() {
            return new Keyset(BigInteger.ZERO, BigInteger.ZERO, null, BigInteger.ZERO);
        }

        /** The match of C value {@code x} as a C condition; null when it matches anything. */
        String c(String x, int width) {
            if (high != null) {
                String k = flip.signum() == 0 ? x : "(" + x + " ^ " + CodeWriter.constant(flip, width) + ")";
                return "(" + k + " >= " + CodeWriter.constant(value, width) + " && " + k + " <= " + CodeWriter.constant(high, width) + ")";
            }
            if (mask.signum() == 0) {
                return null;
            }
            return "((" + x + " & " + CodeWriter.constant(mask, width) + ") == " + CodeWriter.constant(value, width) + ")";
        }

        /** Jumps to {@code fail} unless the long in local {@code value} matches. */
        void jvmTest(Jit j, int value, Label fail) {
            MethodVisitor code = j.code();
            if (high != null) {
                code.visitVarInsn(LLOAD, value);
                flip(j);
                j.pushLong(v);
                code.visitMethodInsn(INVOKESTATIC, "java/lang/Long", "compareUnsigned", "(JJ)I", false);
                code.visitJumpInsn(IFLT, fail);
                code.visitVarInsn(LLOAD, value);
                flip(j);
                j.pushLong(h);
                code.visitMethodInsn(INVOKESTATIC, "java/lang/Long", "compareUnsigned", "(JJ)I", false);
                code.visitJumpInsn(IFGT, fail);
                return;
            }
            if (m == 0) {
                return;
            }
            code.visitVarInsn(LLOAD, value);
            j.and(m);
            j.pushLong(v);
            code.visitInsn(LCMP);
            code.visitJumpInsn(IFNE, fail);
        }

        private void flip(Jit j) {
            if (f != 0) {
                j.pushLong(f);
                j.code().visitInsn(LXOR);
            }
        }

        boolean matches(long x) {
            if (high != null) {
                return Long.compareUnsigned(x ^ f, v) >= 0 && Long.compareUnsigned(x ^ f, h) <= 0;
            }
            return (x & m) == v;
        }

        boolean matches(BigInteger x) {
            if (high != null) {
                BigInteger k = x.xor(flip);
                return k.compareTo(value) >= 0 && k.compareTo(high) <= 0;
            }
            return x.and(mask).equals(value);
        }
    }

    public Parser(String name, Stmt[] bodies, Transition[] transitions) {
        this.name = name;
        this.bodies = bodies;
        this.transitions = transitions;
        this.code = Jit.compile(new Run());
    }

    /** In JVM bytecode: to a state's code, accept or reject. */
    private static void jump(Jit j, int target, Label[] states, Label accept, Label reject) {
        j.code().visitJumpInsn(GOTO, target == ACCEPT_STATE ? accept : target == REJECT_STATE ? reject : states[target]);
    }

    /**
     * The parser's states in C, as the cases of a switch on s->pstate, for a loop that runs a
     * turn from the state in s->pstate until a transition to an earlier state (or to itself) ends
     * it: a transition to a later state jumps to its label, S followed by its number (each turn is
     * a function call, which costs more than the state; the generator defines ACCEPT, REJECT,
     * NEXT_STATE and GOTO_STATE). A statement without a C form jumps to the interpreter.
     */
    public void c(CodeWriter w) {
        w.open("switch (s->pstate)");
        for (int i = 0; i < bodies.length; i++) {
            int state = i;
            w.open("case " + i + ":");
            w.append("S" + i + ":;\n");
            w.statement(bodies[i]);
            w.line("if (s->perr) REJECT(s->perr);");
            w.guarded(() -> transitions[state].c(w, state));
            w.close();
        }
        w.line("default: " + w.bail("a parser state out of range") + ";");
        w.close();
    }

    /** Runs from the start state (index 0); returns true on accept, false on reject. */
    public boolean run(State s) {
        return code.exec(s) == ACCEPTED;
    }

    /** The parser's run as a statement, to be compiled: gives ACCEPTED, or 0 on reject. */
    private final class Run extends Stmt {
        @Override public int exec(State s) {
            int state = 0;
            for (int steps = 0; steps < MAX_TRANSITIONS; steps++) {
                int r = bodies[state].exec(s);
                if (r == REJECT) {
                    return 0;
                }
                if (s.parserError != PacketIo.NO_ERROR) {
                    return 0;   // a lookahead past the end
                }
                state = transitions[state].next(s);
                if (state == ACCEPT_STATE) {
                    return ACCEPTED;
                }
                if (state == REJECT_STATE) {
                    return 0;
                }
            }
            s.parserError = PacketIo.PARSER_TIMEOUT;
            return 0;
        }

        /**
         * The same loop, every state's code at a label: a transition jumps straight to the next
         * state's label, counting the step; one that is decided per packet stores the state and
         * goes through a switch on it.
         */
        @Override public boolean jvm(Jit j) {
            MethodVisitor m = j.code();
            int state = j.newLocal(1);
            int steps = j.newLocal(1);
            Label[] entries = new Label[bodies.length];
            for (int i = 0; i < bodies.length; i++) {
                entries[i] = new Label();
            }
            Label accept = new Label();
            Label reject = new Label();
            Label timeout = new Label();
            Label dispatch = new Label();
            Label done = new Label();
            m.visitInsn(ICONST_0);
            m.visitVarInsn(ISTORE, steps);
            m.visitJumpInsn(GOTO, entries[0]);
            m.visitLabel(dispatch);
            m.visitVarInsn(ILOAD, state);
            m.visitInsn(ICONST_M1);
            m.visitJumpInsn(IF_ICMPEQ, accept);
            m.visitVarInsn(ILOAD, state);
            j.pushInt(REJECT_STATE);
            m.visitJumpInsn(IF_ICMPEQ, reject);
            m.visitVarInsn(ILOAD, state);
            m.visitTableSwitchInsn(0, bodies.length - 1, reject, entries);
            for (int i = 0; i < bodies.length; i++) {
                // Entering a state counts a step (the interpreter counts the transitions it takes).
                m.visitLabel(entries[i]);
                m.visitIincInsn(steps, 1);
                m.visitVarInsn(ILOAD, steps);
                j.pushInt(MAX_TRANSITIONS);
                m.visitJumpInsn(IF_ICMPGT, timeout);
                j.stmtPushing(bodies[i]);
                j.pushInt(REJECT);
                m.visitJumpInsn(IF_ICMPEQ, reject);
                j.stateField("parserError", "I");
                m.visitJumpInsn(IFNE, reject);
                transitions[i].jvm(j, entries, accept, reject, dispatch, state);
            }
            m.visitLabel(timeout);
            j.state();
            j.pushInt(PacketIo.PARSER_TIMEOUT);
            m.visitFieldInsn(PUTFIELD, org.objectweb.asm.Type.getInternalName(State.class), "parserError", "I");
            m.visitLabel(reject);
            m.visitInsn(ICONST_0);
            m.visitJumpInsn(GOTO, done);
            m.visitLabel(accept);
            j.pushInt(ACCEPTED);
            m.visitLabel(done);
            return true;
        }
    }
}
