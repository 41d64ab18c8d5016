package org.nat64fabric.softswitch.pipeline;

import static org.objectweb.asm.Opcodes.*;

import java.lang.invoke.MethodHandles;
import java.lang.reflect.Modifier;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Type;

/**
 * Compiles a tree of statements to JVM bytecode: one hidden class per tree, whose code does what
 * the nodes' exec and eval do. The tree interpreter calls eval/exec through a handful of abstract
 * methods, each call site seeing dozens of node classes, so the JIT can inline none of them
 * (megamorphic calls led the interpreter's profile); in the compiled code each node has call
 * sites of its own.
 *
 * <p>A node compiles itself by overriding {@link Stmt#jvm}, {@link Expr#jvmLong},
 * {@link Expr#jvmWide} or {@link Expr.LValue#jvmSet}; any other node is called through its own
 * class, a call to its interpreter method that the JIT can inline. So every program compiles,
 * and what the compiled code does is, node by node, what the interpreter does.
 */
public final class Jit {
    /** {@code -Dsoftswitch.jit=false} runs the tree interpreter alone (to compare the two). */
    private static final boolean ENABLED = !"false".equals(System.getProperty("softswitch.jit"));
    private static final String STATE = Type.getInternalName(State.class);
    private static final String OWNER = Type.getInternalName(Jit.class).replace("Jit", "JitCode");
    private static final String RUN = "(L" + STATE + ";)I";
    /**
     * Compiled code goes on in a new method once a method holds about this many bytes: HotSpot
     * compiles no method over 8000 bytes (such a method would stay in its bytecode interpreter).
     */
    private static final int BYTES_PER_METHOD = 3000;
    /** Blocks longer than this compile as blocks of blocks, so that a long one can be split too. */
    static final int STATEMENTS_PER_BLOCK = 16;

    private final ClassWriter cw = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS) {
        // Frames only ever merge a type with itself: no class needs loading to find a common one.
        @Override protected String getCommonSuperClass(String a, String b) {
            return "java/lang/Object";
        }
    };
    private final List<Object> constants = new ArrayList<>();
    private final Map<Object, Integer> constantIndex = new IdentityHashMap<>();
    private MethodVisitor mv;
    private int nextLocal;
    private int methods;

    private Jit() {
    }

    /** The tree compiled (or the tree itself when compiling is off or there is nothing to run). */
    public static Stmt compile(Stmt root) {
        if (!ENABLED || root == Stmt.EMPTY) {
            return root;
        }
        return new Jit().define(root);
    }

    private Stmt define(Stmt root) {
        cw.visit(V17, ACC_FINAL | ACC_SUPER, OWNER, null, Type.getInternalName(Stmt.class), null);
        String entry = method(root);
        MethodVisitor init = cw.visitMethod(0, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(ALOAD, 0);
        init.visitMethodInsn(INVOKESPECIAL, Type.getInternalName(Stmt.class), "<init>", "()V", false);
        init.visitInsn(RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
        MethodVisitor exec = cw.visitMethod(ACC_PUBLIC, "exec", RUN, null, null);
        exec.visitCode();
        exec.visitVarInsn(ALOAD, 1);
        exec.visitMethodInsn(INVOKESTATIC, OWNER, entry, RUN, false);
        exec.visitInsn(IRETURN);
        exec.visitMaxs(0, 0);
        exec.visitEnd();
        writeConstantsInitializer();
        cw.visitEnd();
        try {
            MethodHandles.Lookup code = MethodHandles.lookup().defineHiddenClassWithClassData(
                    cw.toByteArray(), constants.toArray(), true);
            return (Stmt) code.findConstructor(code.lookupClass(), java.lang.invoke.MethodType.methodType(void.class)).invoke();
        } catch (Throwable e) {
            // A bug of this compiler, never of the program: say so, and run the tree as before.
            System.err.println("softswitch: internal error compiling a block to JVM bytecode, running it in the tree "
                    + "interpreter instead (please report): " + e);
            return root;
        }
    }

    /** Static final fields, one per constant, set from the class data: the JIT takes them as constants. */
    private void writeConstantsInitializer() {
        MethodVisitor m = cw.visitMethod(ACC_STATIC, "<clinit>", "()V", null, null);
        m.visitCode();
        m.visitMethodInsn(INVOKESTATIC, "java/lang/invoke/MethodHandles", "lookup", "()Ljava/lang/invoke/MethodHandles$Lookup;", false);
        m.visitLdcInsn("_");
        m.visitLdcInsn(Type.getType(Object[].class));
        m.visitMethodInsn(INVOKESTATIC, "java/lang/invoke/MethodHandles", "classData",
                "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/Class;)Ljava/lang/Object;", false);
        m.visitTypeInsn(CHECKCAST, "[Ljava/lang/Object;");
        m.visitVarInsn(ASTORE, 0);
        for (int i = 0; i < constants.size(); i++) {
            String type = visibleType(constants.get(i).getClass());
            cw.visitField(ACC_STATIC | ACC_FINAL | ACC_PRIVATE, "k" + i, "L" + type + ";", null, null).visitEnd();
            m.visitVarInsn(ALOAD, 0);
            pushInt(m, i);
            m.visitInsn(AALOAD);
            m.visitTypeInsn(CHECKCAST, type);
            m.visitFieldInsn(PUTSTATIC, OWNER, "k" + i, "L" + type + ";");
        }
        m.visitInsn(RETURN);
        m.visitMaxs(0, 0);
        m.visitEnd();
    }

    /** The class itself if this package's code may name it, else its nearest public superclass. */
    private static String visibleType(Class<?> c) {
        while (!accessible(c)) {
            c = c.getSuperclass();
        }
        return Type.getInternalName(c);
    }

    private static boolean accessible(Class<?> c) {
        boolean visible = Modifier.isPublic(c.getModifiers())
                || c.getPackage() == Jit.class.getPackage() && !Modifier.isPrivate(c.getModifiers());
        return visible && (c.getEnclosingClass() == null || accessible(c.getEnclosingClass()));
    }

    /** Compiles {@code body} as a static method {@code int mN(State)} and returns its name. */
    private String method(Stmt body) {
        MethodVisitor outer = mv;
        int outerLocals = nextLocal;
        String name = "m" + methods++;
        mv = new Sized(cw.visitMethod(ACC_PRIVATE | ACC_STATIC, name, RUN, null, null));
        nextLocal = 1;
        mv.visitCode();
        stmtPushing(body);
        mv.visitInsn(IRETURN);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
        mv = outer;
        nextLocal = outerLocals;
        return name;
    }

    // ---- for the nodes ----

    public MethodVisitor code() {
        return mv;
    }

    /** Pushes the State (every compiled method's only parameter). */
    public void state() {
        mv.visitVarInsn(ALOAD, 0);
    }

    /** Pushes a constant object (a node, table, extern), typed as its class. */
    public void constant(Object o) {
        Integer i = constantIndex.get(o);
        if (i == null) {
            i = constants.size();
            constants.add(o);
            constantIndex.put(o, i);
        }
        mv.visitFieldInsn(GETSTATIC, OWNER, "k" + i, "L" + typeOf(o) + ";");
    }

    /** The internal name the compiled code calls {@code o}'s methods through. */
    public String typeOf(Object o) {
        return visibleType(o.getClass());
    }

    public void pushLong(long v) {
        if (v == 0 || v == 1) {
            mv.visitInsn(v == 0 ? LCONST_0 : LCONST_1);
        } else {
            mv.visitLdcInsn(v);
        }
    }

    public void pushInt(int v) {
        pushInt(mv, v);
    }

    private static void pushInt(MethodVisitor m, int v) {
        if (v >= -1 && v <= 5) {
            m.visitInsn(ICONST_0 + v);
        } else if (v >= Short.MIN_VALUE && v <= Short.MAX_VALUE) {
            m.visitIntInsn(v >= Byte.MIN_VALUE && v <= Byte.MAX_VALUE ? BIPUSH : SIPUSH, v);
        } else {
            m.visitLdcInsn(v);
        }
    }

    /** A new local variable: 1 slot for an int or reference, 2 for a long. */
    public int newLocal(int size) {
        int at = nextLocal;
        nextLocal += size;
        return at;
    }

    /** Pushes a narrow expression's value (a long). */
    public void narrow(Expr e) {
        e.jvmLong(this);
    }

    /** Pushes a wide expression's value (a BigInteger). */
    public void wide(Expr e) {
        e.jvmWide(this);
    }

    /** Jumps to {@code to} when the long on the stack is 0. */
    public void ifZero(Label to) {
        mv.visitInsn(LCONST_0);
        mv.visitInsn(LCMP);
        mv.visitJumpInsn(IFEQ, to);
    }

    /** Turns what is on the stack into the long 0 or 1: 0 where {@code jumpIfFalse} (a conditional jump) jumps. */
    public void booleanOf(int jumpIfFalse) {
        Label no = new Label();
        Label done = new Label();
        mv.visitJumpInsn(jumpIfFalse, no);
        mv.visitInsn(LCONST_1);
        mv.visitJumpInsn(GOTO, done);
        mv.visitLabel(no);
        mv.visitInsn(LCONST_0);
        mv.visitLabel(done);
    }

    /**
     * Compiles a statement; true when it pushed its result (how control leaves it), false when it
     * always goes on to the next statement and pushed nothing. Large trees go to methods of their own.
     */
    public boolean stmt(Stmt st) {
        if (((Sized) mv).bytes > BYTES_PER_METHOD && (st instanceof Stmt.Block || st instanceof Stmt.If)) {
            String m = method(st);
            state();
            mv.visitMethodInsn(INVOKESTATIC, OWNER, m, RUN, false);
            return true;
        }
        return st.jvm(this);
    }

    /** Compiles a statement and pushes its result. */
    public void stmtPushing(Stmt st) {
        if (!stmt(st)) {
            mv.visitInsn(ICONST_0);
        }
    }

    /** Compiles a statement whose result does not matter. */
    public void stmtDiscarding(Stmt st) {
        if (stmt(st)) {
            mv.visitInsn(POP);
        }
    }

    /** Calls the node's own exec (pushes its result). */
    public boolean execOf(Stmt st) {
        call(st, "exec", "I");
        return true;
    }

    /** Calls the node's own eval. */
    public void evalOf(Expr e) {
        call(e, "eval", "J");
    }

    /** Calls the node's own evalWide. */
    public void evalWideOf(Expr e) {
        call(e, "evalWide", Type.getDescriptor(BigInteger.class));
    }

    /** Stores a narrow value through the location's own set. */
    public void set(Expr.LValue target, Expr value) {
        constant(target);
        state();
        narrow(value);
        mv.visitMethodInsn(INVOKEVIRTUAL, typeOf(target), "set", "(L" + STATE + ";J)V", false);
    }

    /** Stores a wide value through the location's own setWide. */
    public void setWide(Expr.LValue target, Expr value) {
        constant(target);
        state();
        wide(value);
        mv.visitMethodInsn(INVOKEVIRTUAL, typeOf(target), "setWide", "(L" + STATE + ";" + Type.getDescriptor(BigInteger.class) + ")V", false);
    }

    /** Replaces the result on the stack by EXIT if it is EXIT, else NEXT: a return ends only the callable. */
    public void exitOrNext() {
        Label keep = new Label();
        mv.visitInsn(DUP);
        pushInt(Stmt.EXIT);
        mv.visitJumpInsn(IF_ICMPEQ, keep);
        mv.visitInsn(POP);
        mv.visitInsn(ICONST_0);
        mv.visitLabel(keep);
    }

    /** Replaces the result on the stack by EXIT when an action run inside the statement exited. */
    public void exitIfExiting() {
        Label keep = new Label();
        stateField("exiting", "Z");
        mv.visitJumpInsn(IFEQ, keep);
        mv.visitInsn(POP);
        pushInt(Stmt.EXIT);
        mv.visitLabel(keep);
    }

    /** Throws {@link Stmt.ExitSignal} when an exit is under way (the stack is left as it was otherwise). */
    public void throwIfExiting() {
        Label keep = new Label();
        stateField("exiting", "Z");
        mv.visitJumpInsn(IFEQ, keep);
        String signal = Type.getInternalName(Stmt.ExitSignal.class);
        mv.visitFieldInsn(GETSTATIC, signal, "INSTANCE", "L" + signal + ";");
        mv.visitInsn(ATHROW);
        mv.visitLabel(keep);
    }

    /** Compiles a statement and pushes its result, {@link Stmt#EXIT} when an expression in it threw {@link Stmt.ExitSignal}. */
    public void stmtPushingCatchingExit(Stmt st) {
        Label start = new Label();
        Label end = new Label();
        Label caught = new Label();
        Label done = new Label();
        mv.visitTryCatchBlock(start, end, caught, Type.getInternalName(Stmt.ExitSignal.class));
        mv.visitLabel(start);
        stmtPushing(st);
        mv.visitLabel(end);
        mv.visitJumpInsn(GOTO, done);
        mv.visitLabel(caught);
        mv.visitInsn(POP);
        pushInt(Stmt.EXIT);
        mv.visitLabel(done);
    }

    /** Adds {@code amount} to an int field of the State. */
    public void addToStateField(String name, int amount) {
        state();
        mv.visitInsn(DUP);
        mv.visitFieldInsn(GETFIELD, STATE, name, "I");
        pushInt(amount);
        mv.visitInsn(IADD);
        mv.visitFieldInsn(PUTFIELD, STATE, name, "I");
    }

    /** Masks the long on the stack to {@code width} bits (nothing to do for 64 and more). */
    public void mask(int width) {
        and(width >= 64 ? -1L : Bits.mask(width));
    }

    /** ANDs the long on the stack with {@code mask} (nothing to do for all ones). */
    public void and(long mask) {
        if (mask != -1L) {
            pushLong(mask);
            mv.visitInsn(LAND);
        }
    }

    /**
     * Applies a table and pushes the entry it hit, or null: the key's expressions compiled here,
     * the lookup and the actions (as compiled for them) in the table.
     */
    public void applyTable(Table t) {
        String table = typeOf(t);
        for (int i = 0; i < t.keys.size(); i++) {
            Table.KeyField k = t.keys.get(i);
            if (k.words == 1) {
                constant(t);
                mv.visitMethodInsn(INVOKEVIRTUAL, table, "probe", "()[J", false);
                pushInt(t.keyOffset(i));
                k.expr.jvmLong(this);
                mv.visitInsn(LASTORE);
            } else {
                constant(t);
                state();
                k.expr.jvmWide(this);
                pushInt(i);
                mv.visitMethodInsn(INVOKEVIRTUAL, table, "putWideKey",
                        "(L" + STATE + ";" + Type.getDescriptor(BigInteger.class) + "I)V", false);
            }
        }
        constant(t);
        state();
        stateField("packetLength", "I");
        mv.visitMethodInsn(INVOKEVIRTUAL, table, "applyKey", "(L" + STATE + ";I)" + Type.getDescriptor(Table.Entry.class), false);
    }

    /** Pushes {@code s.n} (the narrow slots). */
    public void narrowSlots() {
        state();
        mv.visitFieldInsn(GETFIELD, STATE, "n", "[J");
    }

    /** Pushes a State field of type int or boolean. */
    public void stateField(String name, String descriptor) {
        state();
        mv.visitFieldInsn(GETFIELD, STATE, name, descriptor);
    }

    /** Pushes an aggregate's first narrow slot index (an int). */
    public void narrowBase(Expr.Agg agg) {
        agg.jvmNarrowBase(this);
    }

    /** Pushes {@code s.w} (the wide slots). */
    public void wideSlots() {
        stateField("w", "[" + Type.getDescriptor(BigInteger.class));
    }

    /** Pushes a narrow slot's value as an int (a reference's position). */
    public void slotAsInt(int slot) {
        narrowSlots();
        pushInt(slot);
        mv.visitInsn(LALOAD);
        mv.visitInsn(L2I);
    }

    /** Calls {@code target.name(State)} returning {@code result} (a descriptor). */
    public void call(Object target, String name, String result) {
        constant(target);
        state();
        mv.visitMethodInsn(INVOKEVIRTUAL, typeOf(target), name, "(L" + STATE + ";)" + result, false);
    }

    /** Counts the bytes of the code written through it, roughly (every instruction at its usual size). */
    private static final class Sized extends MethodVisitor {
        int bytes;

        Sized(MethodVisitor to) {
            super(ASM9, to);
        }

        @Override public void visitInsn(int opcode) { bytes += 1; super.visitInsn(opcode); }
        @Override public void visitIntInsn(int opcode, int operand) { bytes += 3; super.visitIntInsn(opcode, operand); }
        @Override public void visitVarInsn(int opcode, int var) { bytes += 2; super.visitVarInsn(opcode, var); }
        @Override public void visitTypeInsn(int opcode, String type) { bytes += 3; super.visitTypeInsn(opcode, type); }
        @Override public void visitJumpInsn(int opcode, Label label) { bytes += 3; super.visitJumpInsn(opcode, label); }
        @Override public void visitLdcInsn(Object value) { bytes += 3; super.visitLdcInsn(value); }
        @Override public void visitIincInsn(int var, int increment) { bytes += 3; super.visitIincInsn(var, increment); }

        @Override public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
            bytes += 3;
            super.visitFieldInsn(opcode, owner, name, descriptor);
        }

        @Override public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            bytes += 3;
            super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
        }

        @Override public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
            bytes += 16 + 4 * labels.length;
            super.visitTableSwitchInsn(min, max, dflt, labels);
        }
    }
}
