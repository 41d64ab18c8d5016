package org.nat64fabric.softswitch.pipeline;

import static org.objectweb.asm.Opcodes.*;

import java.math.BigInteger;
import org.nat64fabric.softswitch.frontend.Type;

/**
 * A compiled, typed expression. Scalars up to 64 bits (and bool, enums, error) evaluate with
 * {@link #eval}; wider bit strings with {@link #evalWide}. Bool is 0 or 1.
 */
public abstract class Expr {
    public final Type type;

    protected Expr(Type type) {
        this.type = type;
    }

    public long eval(State s) {
        return evalWide(s).longValue();
    }

    public BigInteger evalWide(State s) {
        return Bits.unsigned(eval(s));
    }

    /** Pushes this narrow value (a long) in JVM bytecode (see {@link Jit}); by default, a call of its eval. */
    public void jvmLong(Jit j) {
        j.evalOf(this);
    }

    /** Pushes this wide value (a BigInteger) in JVM bytecode; by default, a call of its evalWide. */
    public void jvmWide(Jit j) {
        j.evalWideOf(this);
    }

    /** The width in bits of a bit/int typed value; 1 for bool, 0 for others. */
    public int width() {
        if (type instanceof Type.Bits) {
            return ((Type.Bits) type).width;
        }
        if (type instanceof Type.Enum && ((Type.Enum) type).underlying != null) {
            return ((Type.Enum) type).underlying.width;
        }
        return type == Type.BOOL ? 1 : 0;
    }

    /** The bits an operation on this value keeps: its width, 0 for bit<0>, 1 for a value of no width (bool, enum, error). */
    public int valueWidth() {
        return type instanceof Type.Bits ? ((Type.Bits) type).width : Math.max(width(), 1);
    }

    public boolean isWide() {
        return width() > 64;
    }

    /** This value in C, with whatever statements it needs written to {@code w} first (see {@link CodeWriter}). */
    public String c(CodeWriter w) {
        throw new CodeWriter.Unsupported(getClass().getSimpleName());
    }

    /** A value known at compile time. */
    public static final class Const extends Expr {
        public final BigInteger value;
        private final long longValue;

        public Const(Type type, BigInteger value) {
            super(type);
            this.value = value;
            this.longValue = value.longValue();
        }

        public Const(Type type, long value) {
            this(type, BigInteger.valueOf(value));
        }

        @Override public long eval(State s) { return longValue; }
        @Override public BigInteger evalWide(State s) { return value; }
        @Override public void jvmLong(Jit j) { j.pushLong(longValue); }
        @Override public void jvmWide(Jit j) { j.constant(value); }
        @Override public String c(CodeWriter w) { return CodeWriter.constant(value, valueWidth()); }
    }

    /** A scalar location that can be written. */
    public abstract static class LValue extends Expr {
        protected LValue(Type type) {
            super(type);
        }

        public abstract void set(State s, long v);

        public void setWide(State s, BigInteger v) {
            set(s, v.longValue());
        }

        /** Stores a narrow value here in JVM bytecode; by default, through its set. */
        public void jvmSet(Jit j, Expr value) {
            j.set(this, value);
        }

        /** Writes a C value of this location's width (masked here). */
        public void cSet(CodeWriter w, String value) {
            throw new CodeWriter.Unsupported(getClass().getSimpleName() + " as a target");
        }

        /** Writes a C value to a C location, masked to this location's width (enums and errors: 64 bits; bit<0>: none). */
        protected void store(CodeWriter w, String location, String value) {
            int width = width() == 0 && !(type instanceof Type.Bits) ? 64 : width();
            w.line(location + " = (" + value + ") & " + (width > 64 ? CodeWriter.wideMask(width) : CodeWriter.mask(width)) + ";");
        }
    }

    /** A narrow slot at a fixed index. */
    public static final class Slot extends LValue {
        public final int index;
        final long mask;

        public Slot(Type type, int index, int width) {
            super(type);
            this.index = index;
            this.mask = width == 0 && !(type instanceof Type.Bits) ? -1L : Bits.mask(width);   // enums, errors: no width
        }

        @Override public long eval(State s) { return s.n[index]; }
        @Override public void set(State s, long v) { s.n[index] = v & mask; }

        @Override public void jvmLong(Jit j) {
            j.narrowSlots();
            j.pushInt(index);
            j.code().visitInsn(LALOAD);
        }

        @Override public void jvmSet(Jit j, Expr value) {
            j.narrowSlots();
            j.pushInt(index);
            j.narrow(value);
            j.and(mask);
            j.code().visitInsn(LASTORE);
        }
        @Override public String c(CodeWriter w) { return w.n(index); }
        @Override public void cSet(CodeWriter w, String value) { store(w, w.n(index), value); }
    }

    /** A wide slot at a fixed index. */
    public static final class WideSlot extends LValue {
        public final int index;
        private final BigInteger mask;

        public WideSlot(Type type, int index, int width) {
            super(type);
            this.index = index;
            this.mask = Bits.wideMask(width);
        }

        @Override public BigInteger evalWide(State s) { return s.w[index]; }

        @Override public void jvmWide(Jit j) {
            j.wideSlots();
            j.pushInt(index);
            j.code().visitInsn(AALOAD);
        }
        @Override public void setWide(State s, BigInteger v) { s.w[index] = Bits.fit(v, width(), mask); }
        @Override public void set(State s, long v) { s.w[index] = Bits.unsigned(v).and(mask); }

        @Override public String c(CodeWriter w) {
            if (width() > 128) {
                throw new CodeWriter.Unsupported("an operation on a value wider than 128 bits");
            }
            return "s->w[" + w.unit(index) + "]";
        }

        @Override public void cSet(CodeWriter w, String value) {
            if (width() > 128) {
                throw new CodeWriter.Unsupported("an operation on a value wider than 128 bits");
            }
            store(w, "s->w[" + w.unit(index) + "]", value);
        }
    }

    /**
     * A header, struct or stack in slots: a fixed place, or one computed per packet (an element
     * of a stack at a run-time index).
     */
    public abstract static class Agg extends Expr {
        protected Agg(Type type) {
            super(type);
        }

        public abstract int narrowBase(State s);

        public abstract int wideBase(State s);

        /** Pushes {@link #narrowBase} (an int) in JVM bytecode; by default, a call of it. */
        public void jvmNarrowBase(Jit j) {
            j.call(this, "narrowBase", "I");
        }

        /** Pushes {@link #wideBase} (an int) in JVM bytecode; by default, a call of it. */
        public void jvmWideBase(Jit j) {
            j.call(this, "wideBase", "I");
        }

        /** The fixed position, or null when it is computed per packet. */
        public int[] fixedBase() {
            return null;
        }

        /** The index of its first narrow slot, in C. */
        public String cNarrowBase(CodeWriter w) {
            throw new CodeWriter.Unsupported(getClass().getSimpleName());
        }

        /** The index of its first 128-bit unit, in C. */
        public String cUnitBase(CodeWriter w) {
            throw new CodeWriter.Unsupported(getClass().getSimpleName());
        }


        /** Copies all slots from another aggregate of its type. */
        public void cCopyFrom(CodeWriter w, Agg src) {
            w.copySlots(false, cNarrowBase(w), src.cNarrowBase(w), type.narrowSlots());
            if (type.wideSlots() > 0) {
                w.copySlots(true, cUnitBase(w), src.cUnitBase(w), w.unitOffset(type, type.wideSlots()));
            }
        }

        public void cClear(CodeWriter w) {
            w.zeroSlots(false, cNarrowBase(w), type.narrowSlots());
            if (type.wideSlots() > 0) {
                w.zeroSlots(true, cUnitBase(w), w.unitOffset(type, type.wideSlots()));
            }
        }

        public void copyFrom(State s, Agg src) {
            System.arraycopy(s.n, src.narrowBase(s), s.n, narrowBase(s), type.narrowSlots());
            System.arraycopy(s.w, src.wideBase(s), s.w, wideBase(s), type.wideSlots());
        }

        public void clear(State s) {
            java.util.Arrays.fill(s.n, narrowBase(s), narrowBase(s) + type.narrowSlots(), 0L);
            java.util.Arrays.fill(s.w, wideBase(s), wideBase(s) + type.wideSlots(), BigInteger.ZERO);
        }
    }

    public static final class FixedAgg extends Agg {
        private final int narrow;
        private final int wide;

        public FixedAgg(Type type, int narrow, int wide) {
            super(type);
            this.narrow = narrow;
            this.wide = wide;
        }

        @Override public int narrowBase(State s) { return narrow; }
        @Override public int wideBase(State s) { return wide; }
        @Override public int[] fixedBase() { return new int[] {narrow, wide}; }
        @Override public void jvmNarrowBase(Jit j) { j.pushInt(narrow); }
        @Override public void jvmWideBase(Jit j) { j.pushInt(wide); }
        @Override public String cNarrowBase(CodeWriter w) { return String.valueOf(narrow); }
        @Override public String cUnitBase(CodeWriter w) { return type.wideSlots() == 0 ? "0" : String.valueOf(w.unit(wide)); }
    }

    /** A scalar field of an aggregate whose place is computed per packet. */
    public static final class DynField extends LValue {
        private final Agg agg;
        private final int offset;
        private final boolean wide;
        private final long mask;
        private final BigInteger wideMask;

        public DynField(Type type, Agg agg, int offset, boolean wide, int width) {
            super(type);
            this.agg = agg;
            this.offset = offset;
            this.wide = wide;
            this.mask = width == 0 && !(type instanceof Type.Bits) ? -1L : Bits.mask(Math.min(width, 64));
            this.wideMask = wide ? Bits.wideMask(width) : null;
        }

        @Override public long eval(State s) {
            return wide ? s.w[agg.wideBase(s) + offset].longValue() : s.n[agg.narrowBase(s) + offset];
        }

        @Override public BigInteger evalWide(State s) {
            return wide ? s.w[agg.wideBase(s) + offset] : Bits.unsigned(s.n[agg.narrowBase(s) + offset]);
        }

        @Override public void set(State s, long v) {
            if (wide) {
                s.w[agg.wideBase(s) + offset] = Bits.unsigned(v).and(wideMask);
            } else {
                s.n[agg.narrowBase(s) + offset] = v & mask;
            }
        }

        @Override public void setWide(State s, BigInteger v) {
            if (wide) {
                s.w[agg.wideBase(s) + offset] = Bits.fit(v, width(), wideMask);
            } else {
                s.n[agg.narrowBase(s) + offset] = v.longValue() & mask;
            }
        }

        @Override public void jvmWide(Jit j) {
            if (!wide) {
                j.evalWideOf(this);
                return;
            }
            j.wideSlots();
            agg.jvmWideBase(j);
            j.pushInt(offset);
            j.code().visitInsn(IADD);
            j.code().visitInsn(AALOAD);
        }

        @Override public void jvmLong(Jit j) {
            if (wide) {
                j.evalOf(this);
                return;
            }
            j.narrowSlots();
            slot(j);
            j.code().visitInsn(LALOAD);
        }

        @Override public void jvmSet(Jit j, Expr value) {
            if (wide) {
                j.set(this, value);
                return;
            }
            j.narrowSlots();
            slot(j);
            j.narrow(value);
            j.and(mask);
            j.code().visitInsn(LASTORE);
        }

        private void slot(Jit j) {
            agg.jvmNarrowBase(j);
            j.pushInt(offset);
            j.code().visitInsn(IADD);
        }

        private String location(CodeWriter w) {
            if (width() > 128) {
                throw new CodeWriter.Unsupported("an operation on a value wider than 128 bits");
            }
            return wide ? w.wAt(agg.cUnitBase(w) + " + " + w.unitOffset(agg.type, offset)) : w.nAt(agg.cNarrowBase(w) + " + " + offset);
        }

        @Override public String c(CodeWriter w) { return location(w); }
        @Override public void cSet(CodeWriter w, String value) { store(w, location(w), value); }
    }
}
