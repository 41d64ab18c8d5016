package org.nat64fabric.softswitch.pipeline;

import static org.objectweb.asm.Opcodes.*;

import java.util.List;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;

/** A compiled statement. {@link #exec} tells how control leaves it. */
public abstract class Stmt {
    public static final int NEXT = 0;
    public static final int RETURN = 1;
    public static final int EXIT = 2;
    /** break and continue in a for loop's body (3 is the parser's REJECT). */
    public static final int BREAK = 4;
    public static final int CONTINUE = 5;

    public abstract int exec(State s);

    /** This statement in C (see {@link CodeWriter}). */
    public void c(CodeWriter w) {
        throw new CodeWriter.Unsupported(getClass().getSimpleName());
    }

    /**
     * This statement in JVM bytecode (see {@link Jit#stmt}): true when the code pushes how control
     * leaves it, false when it always goes on and pushes nothing. By default, a call of its exec.
     */
    public boolean jvm(Jit j) {
        return j.execOf(this);
    }

    public static final Stmt EMPTY = new Stmt() {
        @Override public int exec(State s) { return NEXT; }
        @Override public void c(CodeWriter w) { }
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

        @Override public boolean jvm(Jit j) {
            if (body.length > Jit.STATEMENTS_PER_BLOCK) {
                // Nested blocks of a bounded length, each of which may go to a method of its own.
                List<Stmt> parts = new java.util.ArrayList<>();
                for (int i = 0; i < body.length; i += Jit.STATEMENTS_PER_BLOCK) {
                    parts.add(new Block(List.of(body).subList(i, Math.min(body.length, i + Jit.STATEMENTS_PER_BLOCK))));
                }
                return j.stmt(new Block(parts));
            }
            MethodVisitor m = j.code();
            Label out = null;
            for (Stmt st : body) {
                if (j.stmt(st)) {
                    out = out == null ? new Label() : out;
                    m.visitInsn(DUP);
                    m.visitJumpInsn(IFNE, out);
                    m.visitInsn(POP);
                }
            }
            if (out == null) {
                return false;
            }
            m.visitInsn(ICONST_0);
            m.visitLabel(out);
            return true;
        }

        @Override public void c(CodeWriter w) {
            for (int i = 0; i < body.length; ) {
                int emits = PacketIo.Emit.cRun(w, body, i);
                if (emits > 0) {
                    i += emits;
                } else {
                    w.statement(body[i++]);
                }
            }
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

        @Override public boolean jvm(Jit j) {
            MethodVisitor m = j.code();
            Label no = new Label();
            Label done = new Label();
            j.narrow(cond);
            j.ifZero(no);
            j.stmtPushing(then);
            m.visitJumpInsn(GOTO, done);
            m.visitLabel(no);
            j.stmtPushing(otherwise);
            m.visitLabel(done);
            return true;
        }

        @Override public void c(CodeWriter w) {
            w.open("if (" + cond.c(w) + ")");
            w.statement(then);
            w.close();
            if (otherwise != EMPTY) {
                w.open("else");
                w.statement(otherwise);
                w.close();
            }
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

        @Override public boolean jvm(Jit j) {
            if (wide) {
                j.setWide(target, value);
            } else {
                target.jvmSet(j, value);
            }
            return false;
        }

        @Override public void c(CodeWriter w) {
            if (target.width() > 128 && value instanceof Expr.Const && ((Expr.Const) value).value.signum() == 0
                    && target instanceof Expr.WideSlot) {
                int slot = ((Expr.WideSlot) target).index;
                w.line("zero_w(s, " + w.unit(slot) + ", " + w.units(slot) + ");");
                return;
            }
            if (target.width() > 128 && value instanceof Expr.WideSlot && target instanceof Expr.WideSlot) {
                int to = ((Expr.WideSlot) target).index;
                w.line("copy_w(s, " + w.unit(to) + ", " + w.unit(((Expr.WideSlot) value).index) + ", " + w.units(to) + ");");
                return;
            }
            target.cSet(w, value.c(w));
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

        @Override public void c(CodeWriter w) {
            target.cCopyFrom(w, source);
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

        @Override public boolean jvm(Jit j) {
            if (e.isWide()) {
                j.wide(e);
                j.code().visitInsn(POP);
            } else {
                j.narrow(e);
                j.code().visitInsn(POP2);
            }
            return false;
        }

        @Override public void c(CodeWriter w) {
            w.line("(void) (" + e.c(w) + ");");
        }
    }

    /**
     * Thrown by an expression whose table's action ran exit (P4_16 12.4: the expression ends there and
     * its statement does not complete), caught where that statement is run; one instance, no trace.
     */
    public static final class ExitSignal extends RuntimeException {
        public static final ExitSignal INSTANCE = new ExitSignal();

        private ExitSignal() {
            super("exit", null, false, false);
        }
    }

    public static final class Exit extends Stmt {
        @Override public int exec(State s) { return EXIT; }
        @Override public boolean jvm(Jit j) {
            j.pushInt(EXIT);
            return true;
        }
        @Override public void c(CodeWriter w) { w.exitJump(); }
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

        @Override public boolean jvm(Jit j) {
            if (storeResult != null) {
                j.stmtDiscarding(storeResult);
            }
            j.pushInt(RETURN);
            return true;
        }

        @Override public void c(CodeWriter w) {
            if (storeResult != null) {
                w.statement(storeResult);
            }
            w.returnJump();
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

        @Override public boolean jvm(Jit j) {
            if (selector.isWide()) {
                return j.execOf(this);
            }
            MethodVisitor m = j.code();
            int v = j.newLocal(2);
            j.narrow(selector);
            m.visitVarInsn(LSTORE, v);
            Label[] starts = new Label[branches.length];
            for (int b = 0; b < branches.length; b++) {
                starts[b] = new Label();
            }
            Label done = new Label();
            for (int i = 0; i < values.length; i++) {
                m.visitVarInsn(LLOAD, v);
                j.pushLong(values[i]);
                m.visitInsn(LCMP);
                m.visitJumpInsn(IFEQ, starts[branchOf[i]]);
            }
            if (defaultBranch >= 0) {
                m.visitJumpInsn(GOTO, starts[defaultBranch]);
            } else {
                m.visitInsn(ICONST_0);
                m.visitJumpInsn(GOTO, done);
            }
            for (int b = 0; b < branches.length; b++) {
                m.visitLabel(starts[b]);
                j.stmtPushing(branches[b]);
                m.visitJumpInsn(GOTO, done);
            }
            m.visitLabel(done);
            return true;
        }

        @Override public void c(CodeWriter w) {
            String v = selector.isWide() ? w.tempWide() : w.tempNarrow();
            w.line(v + " = " + selector.c(w) + ";");
            String elseIf = "if";
            for (int b = 0; b < branches.length; b++) {
                StringBuilder cond = new StringBuilder();
                for (int i = 0; i < values.length; i++) {
                    if (branchOf[i] == b) {
                        cond.append(cond.length() == 0 ? "" : " || ").append(v).append(" == ").append(Long.toUnsignedString(values[i])).append("ULL");
                    }
                }
                if (cond.length() == 0 || b == defaultBranch) {
                    continue;
                }
                w.open(elseIf + " (" + cond + ")");
                w.statement(branches[b]);
                w.close();
                elseIf = "else if";
            }
            if (defaultBranch >= 0) {
                w.open(elseIf.equals("if") ? "" : "else");
                w.statement(branches[defaultBranch]);
                w.close();
            }
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

        @Override public boolean jvm(Jit j) {
            j.stmtPushing(body);
            j.exitOrNext();
            return true;
        }

        @Override public void c(CodeWriter w) {
            w.callable(() -> w.statement(body), null);
        }
    }
}
