package org.nat64fabric.softswitch.pipeline;

import org.nat64fabric.softswitch.frontend.Type;

/**
 * An element of a header stack chosen per packet: by an index expression, or by the stack's
 * nextIndex ({@code .next}, {@code .last}). Out-of-range elements resolve to a scratch header,
 * so writes are lost and reads see an invalid header, as the P4_16 specification allows.
 */
public final class StackElement extends Expr.Agg {
    public enum Mode { INDEX, NEXT, LAST }

    private final Expr.Agg stack;
    private final Expr index;
    private final Mode mode;
    private final int size;
    private final int elemNarrow;
    private final int elemWide;
    private final Expr.Agg scratch;

    public StackElement(Expr.Agg stack, Expr index, Mode mode, Expr.Agg scratch) {
        super(((Type.Stack) stack.type).element);
        this.stack = stack;
        this.index = index;
        this.mode = mode;
        this.size = ((Type.Stack) stack.type).size;
        this.elemNarrow = type.narrowSlots();
        this.elemWide = type.wideSlots();
        this.scratch = scratch;
    }

    private long position(State s) {
        long next = s.n[stack.narrowBase(s) + stack.type.narrowSlots() - 1];
        switch (mode) {
            case NEXT: return next;
            case LAST: return next - 1;
            default: return index.eval(s);
        }
    }

    private String cPosition(CodeWriter w) {
        String next = w.nAt(stack.cNarrowBase(w) + " + " + (stack.type.narrowSlots() - 1));
        switch (mode) {
            case NEXT: return next;
            case LAST: return "(" + next + " - 1)";
            default: return index.c(w);
        }
    }

    /** Element i's place when 0 <= i < size, the scratch header's otherwise (as narrowBase). */
    @Override public String cNarrowBase(CodeWriter w) {
        return "({ __u64 i_ = " + cPosition(w) + "; i_ < " + size + " ? " + stack.cNarrowBase(w) + " + i_ * " + elemNarrow
                + " : " + scratch.cNarrowBase(w) + "; })";
    }

    @Override public String cUnitBase(CodeWriter w) {
        int elemUnits = w.unitOffset(type, elemWide);
        return "({ __u64 i_ = " + cPosition(w) + "; i_ < " + size + " ? " + stack.cUnitBase(w) + " + i_ * " + elemUnits
                + " : " + scratch.cUnitBase(w) + "; })";
    }

    @Override public int narrowBase(State s) {
        long i = position(s);
        return i >= 0 && i < size ? stack.narrowBase(s) + (int) i * elemNarrow : scratch.narrowBase(s);
    }

    @Override public int wideBase(State s) {
        long i = position(s);
        return i >= 0 && i < size ? stack.wideBase(s) + (int) i * elemWide : scratch.wideBase(s);
    }
}
