package org.nat64fabric.softswitch.pipeline;

import java.math.BigInteger;

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
    private final Transition[] transitions;

    /** Where a state goes next. */
    public abstract static class Transition {
        abstract int next(State s);
    }

    public static final class Direct extends Transition {
        private final int target;

        public Direct(int target) {
            this.target = target;
        }

        @Override int next(State s) { return target; }
    }

    /** select(keys) with cases in order; each case lists one keyset per key. */
    public static final class Select extends Transition {
        private final Expr[] keys;
        private final Keyset[][] cases;
        private final int[] targets;
        private final boolean wide;

        public Select(Expr[] keys, Keyset[][] cases, int[] targets) {
            this.keys = keys;
            this.cases = cases;
            this.targets = targets;
            boolean w = false;
            for (Expr k : keys) {
                w |= k.isWide();
            }
            this.wide = w;
        }

        @Override int next(State s) {
            if (!wide && keys.length == 1) {
                long v = keys[0].eval(s);
                for (int c = 0; c < cases.length; c++) {
                    if (cases[c][0].matches(v)) {
                        return targets[c];
                    }
                }
            } else {
                BigInteger[] values = new BigInteger[keys.length];
                for (int i = 0; i < keys.length; i++) {
                    values[i] = keys[i].evalWide(s);
                }
                outer:
                for (int c = 0; c < cases.length; c++) {
                    for (int i = 0; i < keys.length; i++) {
                        if (!cases[c][i].matches(values[i])) {
                            continue outer;
                        }
                    }
                    return targets[c];
                }
            }
            s.parserError = PacketIo.NO_MATCH;
            return REJECT_STATE;
        }
    }

    /** One component of a select case: a value, value &&& mask, low..high, or default/_. */
    public static final class Keyset {
        private final BigInteger value;
        private final BigInteger mask;
        private final BigInteger high;
        private final long v;
        private final long m;
        private final long h;

        private Keyset(BigInteger value, BigInteger mask, BigInteger high) {
            this.value = value;
            this.mask = mask;
            this.high = high;
            this.v = value.longValue();
            this.m = mask == null ? 0 : mask.longValue();
            this.h = high == null ? 0 : high.longValue();
        }

        public static Keyset value(BigInteger v, int width) {
            return new Keyset(v, Bits.wideMask(Math.max(width, 1)), null);
        }

        public static Keyset mask(BigInteger v, BigInteger mask) {
            return new Keyset(v.and(mask), mask, null);
        }

        public static Keyset range(BigInteger low, BigInteger high) {
            return new Keyset(low, null, high);
        }

        public static Keyset any() {
            return new Keyset(BigInteger.ZERO, BigInteger.ZERO, null);
        }

        boolean matches(long x) {
            if (high != null) {
                return Long.compareUnsigned(x, v) >= 0 && Long.compareUnsigned(x, h) <= 0;
            }
            return (x & m) == v;
        }

        boolean matches(BigInteger x) {
            if (high != null) {
                return x.compareTo(value) >= 0 && x.compareTo(high) <= 0;
            }
            return x.and(mask).equals(value);
        }
    }

    public Parser(String name, Stmt[] bodies, Transition[] transitions) {
        this.name = name;
        this.bodies = bodies;
        this.transitions = transitions;
    }

    /** Runs from the start state (index 0); returns true on accept, false on reject. */
    public boolean run(State s) {
        int state = 0;
        for (int steps = 0; steps < MAX_TRANSITIONS; steps++) {
            int r = bodies[state].exec(s);
            if (r == REJECT) {
                return false;
            }
            if (s.parserError != PacketIo.NO_ERROR) {
                return false;   // a lookahead past the end
            }
            state = transitions[state].next(s);
            if (state == ACCEPT_STATE) {
                return true;
            }
            if (state == REJECT_STATE) {
                return false;
            }
        }
        s.parserError = PacketIo.PARSER_TIMEOUT;
        return false;
    }
}
