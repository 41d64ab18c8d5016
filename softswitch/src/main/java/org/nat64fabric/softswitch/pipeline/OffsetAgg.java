package org.nat64fabric.softswitch.pipeline;

import static org.objectweb.asm.Opcodes.*;

import org.nat64fabric.softswitch.frontend.Type;

/** A header, struct or stack inside an aggregate whose place is known only per packet. */
public final class OffsetAgg extends Expr.Agg {
    private final Expr.Agg parent;
    private final int narrowOffset;
    private final int wideOffset;

    public OffsetAgg(Type type, Expr.Agg parent, int narrowOffset, int wideOffset) {
        super(type);
        this.parent = parent;
        this.narrowOffset = narrowOffset;
        this.wideOffset = wideOffset;
    }

    @Override public int narrowBase(State s) { return parent.narrowBase(s) + narrowOffset; }
    @Override public int wideBase(State s) { return parent.wideBase(s) + wideOffset; }

    @Override public void jvmNarrowBase(Jit j) {
        parent.jvmNarrowBase(j);
        j.pushInt(narrowOffset);
        j.code().visitInsn(IADD);
    }

    @Override public void jvmWideBase(Jit j) {
        parent.jvmWideBase(j);
        j.pushInt(wideOffset);
        j.code().visitInsn(IADD);
    }

    @Override public String cNarrowBase(CodeWriter w) { return "(" + parent.cNarrowBase(w) + " + " + narrowOffset + ")"; }

    @Override public String cUnitBase(CodeWriter w) {
        return "(" + parent.cUnitBase(w) + " + " + w.unitOffset(parent.type, wideOffset) + ")";
    }
}
