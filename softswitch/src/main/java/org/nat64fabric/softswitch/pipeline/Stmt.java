package org.nat64fabric.softswitch.pipeline;

import java.util.List;

/** A compiled statement. {@link #exec} tells how control leaves it. */
public abstract class Stmt {
    public static final int NEXT = 0;
    public static final int RETURN = 1;
    public static final int EXIT = 2;

    public abstract int exec(State s);

    public static final Stmt EMPTY = new Stmt() {
        @Override public int exec(State s) { return NEXT; }
    };

    public static final class Block extends Stmt {
        private final Stmt[] body;

        public Block(List<Stmt> body) {
            this.body = body.toArray(new Stmt[0]);
        }

        @Override public int exec(State s) {
            for (Stmt st : body) {
                int r = st.exec(s);
                if (r != NEXT) {
                    return r;
                }
            }
            return NEXT;
        }
    }

    public static final class If extends Stmt {
        private final Expr cond;
        private final Stmt then;
        private final Stmt otherwise;

        public If(Expr cond, Stmt then, Stmt otherwise) {
            this.cond = cond;
            this.then = then;
            this.otherwise = otherwise;
        }

        @Override public int exec(State s) {
            return cond.eval(s) != 0 ? then.exec(s) : otherwise.exec(s);
        }
    }

    public static final class Assign extends Stmt {
        private final Expr.LValue target;
        private final Expr value;
        private final boolean wide;

        public Assign(Expr.LValue target, Expr value) {
            this.target = target;
            this.value = value;
            this.wide = target.isWide();
        }

        @Override public int exec(State s) {
            if (wide) {
                target.setWide(s, value.evalWide(s));
            } else {
                target.set(s, value.eval(s));
            }
            return NEXT;
        }
    }

    /** Copies a whole header, struct or stack. */
    public static final class CopyAgg extends Stmt {
        private final Expr.Agg target;
        private final Expr.Agg source;

        public CopyAgg(Expr.Agg target, Expr.Agg source) {
            this.target = target;
            this.source = source;
        }

        @Override public int exec(State s) {
            target.copyFrom(s, source);
            return NEXT;
        }
    }

    /** Evaluates an expression for its effect (a call with a result nobody reads). */
    public static final class Eval extends Stmt {
        private final Expr e;

        public Eval(Expr e) {
            this.e = e;
        }

        @Override public int exec(State s) {
            if (e.isWide()) {
                e.evalWide(s);
            } else {
                e.eval(s);
            }
            return NEXT;
        }
    }

    public static final class Exit extends Stmt {
        @Override public int exec(State s) { return EXIT; }
    }

    /** return; or return e; (the value goes to the function's result slot first). */
    public static final class Return extends Stmt {
        private final Stmt storeResult;

        public Return(Stmt storeResult) {
            this.storeResult = storeResult;
        }

        @Override public int exec(State s) {
            if (storeResult != null) {
                storeResult.exec(s);
            }
            return RETURN;
        }
    }

    /**
     * switch on a value: cases map values to branch indices; a label without a body falls
     * through to the next body, which the compiler resolves into the index table.
     */
    public static final class Switch extends Stmt {
        private final Expr selector;
        private final long[] values;
        private final int[] branchOf;
        private final Stmt[] branches;
        private final int defaultBranch;

        public Switch(Expr selector, long[] values, int[] branchOf, Stmt[] branches, int defaultBranch) {
            this.selector = selector;
            this.values = values;
            this.branchOf = branchOf;
            this.branches = branches;
            this.defaultBranch = defaultBranch;
        }

        @Override public int exec(State s) {
            long v = selector.eval(s);
            for (int i = 0; i < values.length; i++) {
                if (values[i] == v) {
                    return branches[branchOf[i]].exec(s);
                }
            }
            return defaultBranch >= 0 ? branches[defaultBranch].exec(s) : NEXT;
        }
    }

    /** Runs a body that may 'return' (an action, function or control): return ends only it. */
    public static final class Callable extends Stmt {
        private final Stmt body;

        public Callable(Stmt body) {
            this.body = body;
        }

        @Override public int exec(State s) {
            int r = body.exec(s);
            return r == EXIT ? EXIT : NEXT;
        }
    }
}
