package org.nat64fabric.softswitch.pipeline;

import static org.objectweb.asm.Opcodes.*;

import org.nat64fabric.softswitch.frontend.Type;

/**
 * An inout header, struct or stack parameter of a control, function or action, passed by
 * reference: two narrow slots hold where the argument is (its first narrow slot, and its first wide
 * slot, or in C its first 128-bit unit). Copying a program's whole headers in and out at every
 * apply cost more than anything else it did; for an inout argument, copy-in/copy-out and a reference
 * differ only when the same argument is passed twice in one call.
 */
public final class AggRef extends Expr.Agg {
    private final int narrowSlot;
    private final int wideSlot;

    public AggRef(Type type, int narrowSlot, int wideSlot) {
        super(type);
        this.narrowSlot = narrowSlot;
        this.wideSlot = wideSlot;
    }

    @Override public int narrowBase(State s) { return (int) s.n[narrowSlot]; }
    @Override public int wideBase(State s) { return (int) s.n[wideSlot]; }
    @Override public void jvmNarrowBase(Jit j) { j.slotAsInt(narrowSlot); }
    @Override public void jvmWideBase(Jit j) { j.slotAsInt(wideSlot); }
    @Override public String cNarrowBase(CodeWriter w) { return w.ref(narrowSlot); }
    @Override public String cUnitBase(CodeWriter w) { return w.ref(wideSlot); }

    /** Makes the parameter refer to {@code argument} (before the call). */
    public Stmt bind(Expr.Agg argument) {
        return new Stmt() {
            @Override public int exec(State s) {
                s.n[narrowSlot] = argument.narrowBase(s);
                s.n[wideSlot] = argument.wideBase(s);
                return NEXT;
            }

            @Override public boolean jvm(Jit j) {
                j.narrowSlots();
                j.pushInt(narrowSlot);
                argument.jvmNarrowBase(j);
                j.code().visitInsn(I2L);
                j.code().visitInsn(LASTORE);
                j.narrowSlots();
                j.pushInt(wideSlot);
                argument.jvmWideBase(j);
                j.code().visitInsn(I2L);
                j.code().visitInsn(LASTORE);
                return false;
            }

            @Override public void c(CodeWriter w) {
                w.bindRef(narrowSlot, argument.cNarrowBase(w));
                w.bindRef(wideSlot, argument.cUnitBase(w));
            }
        };
    }
}
