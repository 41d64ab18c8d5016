package org.nat64fabric.softswitch.pipeline;

/**
 * for loops (the P4_16 working draft after 1.2.5; p4c implements them). The body ends early on break and continue; exit and return leave the
 * loop. A loop that turns more than {@link #MAX_ITERATIONS} times fails the packet (the switch
 * drops and counts it) instead of stalling the data plane. The fast path leaves loops to the
 * interpreter (no C form).
 */
public final class Loop {
    public static final int MAX_ITERATIONS = 1 << 16;

    private Loop() {
    }

    public static final Stmt BREAK = new Stmt() {
        @Override public int exec(State s) { return BREAK; }
    };

    public static final Stmt CONTINUE = new Stmt() {
        @Override public int exec(State s) { return CONTINUE; }
    };

    /** What the loop does after one run of its body: -1 to go on, else the loop's own result. */
    static int after(int r) {
        if (r == Stmt.BREAK) {
            return Stmt.NEXT;
        }
        return r == Stmt.NEXT || r == Stmt.CONTINUE ? -1 : r;
    }

    static void count(int turns) {
        if (turns >= MAX_ITERATIONS) {
            throw new IllegalStateException("a for loop turned " + MAX_ITERATIONS + " times");
        }
    }

    /** for (init; cond; update) body, the init statements run before. */
    public static final class ThreeClause extends Stmt {
        private final Expr cond;
        private final Stmt body;
        private final Stmt update;

        /** cond null: no condition. */
        public ThreeClause(Expr cond, Stmt body, Stmt update) {
            this.cond = cond;
            this.body = body;
            this.update = update;
        }

        @Override public int exec(State s) {
            for (int turns = 0; cond == null || cond.eval(s) != 0; turns++) {
                count(turns);
                int r = after(body.exec(s));
                if (r >= 0) {
                    return r;
                }
                if (update.exec(s) == EXIT) {
                    return EXIT;   // a table applied in the update exited
                }
            }
            return NEXT;
        }
    }

    /** for (T v in lo .. hi) body: v takes lo, lo + 1, ..., hi (none when lo > hi), both evaluated once. */
    public static final class Range extends Stmt {
        private final Expr.LValue var;
        private final Expr lo;
        private final Expr hi;
        private final int width;
        private final boolean signed;
        private final Stmt body;

        /** width: of v, at most 64 bits. */
        public Range(Expr.LValue var, Expr lo, Expr hi, int width, boolean signed, Stmt body) {
            this.var = var;
            this.lo = lo;
            this.hi = hi;
            this.width = width;
            this.signed = signed;
            this.body = body;
        }

        @Override public int exec(State s) {
            long mask = Bits.mask(width);
            long from = lo.eval(s) & mask;
            long to = hi.eval(s) & mask;
            int shift = 64 - width;
            if (signed ? (from << shift >> shift) > (to << shift >> shift) : Long.compareUnsigned(from, to) > 0) {
                return NEXT;
            }
            for (long v = from, turns = 0; ; v = (v + 1) & mask, turns++) {
                count((int) Math.min(turns, MAX_ITERATIONS));
                var.set(s, v);
                int r = after(body.exec(s));
                if (r >= 0) {
                    return r;
                }
                if (v == to) {
                    return NEXT;
                }
            }
        }
    }

    /**
     * for (T v in collection) body: each bind assigns v one element (of a list or header stack,
     * evaluated before the loop), then the body runs.
     */
    public static final class Each extends Stmt {
        private final Stmt[] binds;
        private final Stmt body;

        public Each(Stmt[] binds, Stmt body) {
            this.binds = binds;
            this.body = body;
        }

        @Override public int exec(State s) {
            for (Stmt bind : binds) {
                bind.exec(s);
                int r = after(body.exec(s));
                if (r >= 0) {
                    return r;
                }
            }
            return NEXT;
        }
    }
}
