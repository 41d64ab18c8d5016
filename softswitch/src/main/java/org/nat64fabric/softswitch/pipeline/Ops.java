package org.nat64fabric.softswitch.pipeline;

import static org.objectweb.asm.Opcodes.*;

import java.math.BigInteger;
import org.nat64fabric.softswitch.frontend.Type;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;

/** Operators on compiled expressions, with P4's wrap-around semantics on W-bit values. */
public final class Ops {
    private Ops() {
    }

    public enum Op { ADD, SUB, MUL, DIV, MOD, SAT_ADD, SAT_SUB, AND, OR, XOR, SHL, SHR, CONCAT,
        EQ, NE, LT, LE, GT, GE, LAND, LOR }

    /** A binary operator. Operands of arithmetic have the result's type; comparisons yield bool. */
    public static final class Binary extends Expr {
        private final Op op;
        private final Expr a;
        private final Expr b;
        private final int width;       // of the operands (result for arithmetic)
        private final boolean signed;
        private final long mask;
        private final int bWidth;      // right operand, for ++
        private final boolean wide;

        public Binary(Op op, Type type, Expr a, Expr b) {
            super(type);
            this.op = op;
            this.a = a;
            this.b = b;
            this.width = op == Op.CONCAT ? ((Type.Bits) type).width : a.valueWidth();
            this.signed = a.type instanceof Type.Bits && ((Type.Bits) a.type).signed;
            this.mask = Bits.mask(Math.min(width, 64));
            this.bWidth = b.width();
            // a shift by a wide amount is worked out wide, so the amount is not cut to 64 bits
            this.wide = width > 64 || (op == Op.SHL || op == Op.SHR) && b.isWide();
        }

        private boolean wideOperands() {
            return wide;
        }

        @Override public long eval(State s) {
            if (wideOperands()) {
                return evalWide(s).longValue();
            }
            switch (op) {
                case LAND: return a.eval(s) != 0 && b.eval(s) != 0 ? 1 : 0;
                case LOR: return a.eval(s) != 0 || b.eval(s) != 0 ? 1 : 0;
                default: break;
            }
            return combine(a.eval(s), b.eval(s));
        }

        /** The operator on two narrow operands' values (not && and ||, which may skip the second). */
        public long combine(long x, long y) {
            switch (op) {
                case ADD: return (x + y) & mask;
                case SUB: return (x - y) & mask;
                case MUL: return (x * y) & mask;
                case DIV: return y == 0 ? 0 : (signed ? Bits.signExtend(x, width) / Bits.signExtend(y, width)
                        : Long.divideUnsigned(x, y)) & mask;
                case MOD: return y == 0 ? 0 : (signed ? Bits.signExtend(x, width) % Bits.signExtend(y, width)
                        : Long.remainderUnsigned(x, y)) & mask;
                case SAT_ADD: return signed ? saturatingSigned(x, y, false)
                        : (Long.compareUnsigned(x + y, mask) > 0 || Long.compareUnsigned(x + y, x) < 0 ? mask : x + y);
                case SAT_SUB: return signed ? saturatingSigned(x, y, true)
                        : (Long.compareUnsigned(x, y) < 0 ? 0 : x - y);
                case AND: return x & y;
                case OR: return x | y;
                case XOR: return x ^ y;
                case SHL: return Long.compareUnsigned(y, width) >= 0 ? 0 : (x << y) & mask;
                case SHR:
                    if (signed) {
                        return (Bits.signExtend(x, width) >> Math.min(y < 0 ? 63 : y, 63)) & mask;
                    }
                    return Long.compareUnsigned(y, width) >= 0 ? 0 : x >>> y;
                case CONCAT: return (bWidth >= 64 ? y : (x << bWidth) | y) & mask;   // 64: x is a bit<0>
                case EQ: return x == y ? 1 : 0;
                case NE: return x != y ? 1 : 0;
                case LT: return compare(x, y) < 0 ? 1 : 0;
                case LE: return compare(x, y) <= 0 ? 1 : 0;
                case GT: return compare(x, y) > 0 ? 1 : 0;
                case GE: return compare(x, y) >= 0 ? 1 : 0;
                default: throw new IllegalStateException(op.name());
            }
        }

        @Override public void jvmLong(Jit j) {
            if (wideOperands()) {
                j.evalOf(this);
                return;
            }
            MethodVisitor m = j.code();
            if (op == Op.LAND || op == Op.LOR) {
                Label decided = new Label();
                Label done = new Label();
                j.narrow(a);
                m.visitInsn(LCONST_0);
                m.visitInsn(LCMP);
                m.visitJumpInsn(op == Op.LAND ? IFEQ : IFNE, decided);
                j.narrow(b);
                m.visitInsn(LCONST_0);
                m.visitInsn(LCMP);
                m.visitJumpInsn(op == Op.LAND ? IFEQ : IFNE, decided);
                j.pushLong(op == Op.LAND ? 1 : 0);
                m.visitJumpInsn(GOTO, done);
                m.visitLabel(decided);
                j.pushLong(op == Op.LAND ? 0 : 1);
                m.visitLabel(done);
                return;
            }
            int inline = signed ? 0 : inlineOpcode(op);
            if (inline == 0 && !(op == Op.EQ || op == Op.NE)) {
                j.constant(this);   // the rest is the interpreter's own arithmetic, on compiled operands
                j.narrow(a);
                j.narrow(b);
                m.visitMethodInsn(INVOKEVIRTUAL, j.typeOf(this), "combine", "(JJ)J", false);
                return;
            }
            j.narrow(a);
            j.narrow(b);
            switch (op) {
                case ADD: case SUB: case MUL:
                    m.visitInsn(inline);
                    j.and(mask);
                    return;
                case AND: case OR: case XOR:
                    m.visitInsn(inline);
                    return;
                case EQ: case NE:
                    m.visitInsn(LCMP);
                    j.booleanOf(op == Op.EQ ? IFNE : IFEQ);
                    return;
                default:   // unsigned comparisons
                    m.visitMethodInsn(INVOKESTATIC, "java/lang/Long", "compareUnsigned", "(JJ)I", false);
                    j.booleanOf(inline);
            }
        }

        /** The opcode an unsigned operator compiles to: the operation, or for a comparison the jump when false; 0 if none. */
        private static int inlineOpcode(Op op) {
            switch (op) {
                case ADD: return LADD;
                case SUB: return LSUB;
                case MUL: return LMUL;
                case AND: return LAND;
                case OR: return LOR;
                case XOR: return LXOR;
                case LT: return IFGE;
                case LE: return IFGT;
                case GT: return IFLE;
                case GE: return IFLT;
                default: return 0;
            }
        }

        @Override public String c(CodeWriter w) {
            if (op == Op.LAND || op == Op.LOR) {
                String x = a.c(w);
                return op == Op.LAND ? "(" + w.when(x, b, "0") + " != 0)" : "(" + w.when("!(" + x + ")", b, "1") + " != 0)";
            }
            String[] v = w.inOrder(a, b);
            String x = v[0];
            String y = v[1];
            boolean wide = width > 64;   // a narrow value shifted by a wide amount stays narrow in C
            String m = wide ? CodeWriter.wideMask(width) : CodeWriter.mask(width);
            String t = wide ? "(u128)" : "(__u64)";
            if (signed && !wide) {
                switch (op) {
                    case LT: case LE: case GT: case GE: case SHR: case DIV: case MOD:
                        x = "sx(" + x + ", " + width + ")";
                        y = op == Op.SHR ? y : "sx(" + y + ", " + width + ")";
                        break;
                    default: break;
                }
            }
            if (signed && (wide || op == Op.DIV || op == Op.MOD || op == Op.SAT_ADD || op == Op.SAT_SUB)) {
                throw new CodeWriter.Unsupported("signed " + op.name().toLowerCase());
            }
            String sig = signed && !wide ? "(__s64)" : "";
            switch (op) {
                case ADD: return "((" + x + " + " + y + ") & " + m + ")";
                case SUB: return "((" + x + " - " + y + ") & " + m + ")";
                case MUL:
                    if (wide) {
                        throw new CodeWriter.Unsupported("multiplication wider than 64 bits");
                    }
                    return "((" + x + " * " + y + ") & " + m + ")";
                case DIV:
                case MOD:
                    if (wide) {
                        throw new CodeWriter.Unsupported("division wider than 64 bits");
                    }
                    return "(" + y + " == 0 ? 0 : ((" + x + (op == Op.DIV ? " / " : " % ") + y + ") & " + m + "))";
                case SAT_ADD:
                    if (wide) {
                        throw new CodeWriter.Unsupported("saturating arithmetic wider than 64 bits");
                    }
                    return "sat_add(" + x + ", " + y + ", " + m + ")";
                case SAT_SUB:
                    if (wide) {
                        throw new CodeWriter.Unsupported("saturating arithmetic wider than 64 bits");
                    }
                    return "(" + x + " < " + y + " ? 0 : " + x + " - " + y + ")";
                case AND: return "(" + x + " & " + y + ")";
                case OR: return "(" + x + " | " + y + ")";
                case XOR: return "(" + x + " ^ " + y + ")";
                case SHL: return "(" + y + " >= " + width + " ? 0 : ((" + t + x + " << " + y + ") & " + m + "))";
                case SHR:
                    if (signed) {
                        return "((__u64) (" + x + " >> (" + y + " > 63 ? 63 : " + y + ")) & " + m + ")";
                    }
                    return "(" + y + " >= " + width + " ? 0 : (" + x + " >> " + y + "))";
                case CONCAT:
                    if (bWidth >= 64 && !wide) {
                        return "(" + y + " & " + m + ")";   // x is a bit<0>
                    }
                    return "(((" + t + x + " << " + bWidth + ") | " + y + ") & " + m + ")";
                case EQ: return "(" + x + " == " + y + ")";
                case NE: return "(" + x + " != " + y + ")";
                case LT: return "(" + sig + x + " < " + sig + y + ")";
                case LE: return "(" + sig + x + " <= " + sig + y + ")";
                case GT: return "(" + sig + x + " > " + sig + y + ")";
                case GE: return "(" + sig + x + " >= " + sig + y + ")";
                default: throw new CodeWriter.Unsupported(op.name());
            }
        }

        private int compare(long x, long y) {
            return signed ? Long.compare(Bits.signExtend(x, width), Bits.signExtend(y, width))
                    : Long.compareUnsigned(x, y);
        }

        /** x |+| y or x |-| y on int<W> (P4_16 8.6): clamped to W bits' range, 64 included. */
        private long saturatingSigned(long x, long y, boolean subtract) {
            long a = Bits.signExtend(x, width);
            long b = Bits.signExtend(y, width);
            long r = subtract ? a - b : a + b;
            // Below 64 bits the long holds the exact result; at 64 it may itself overflow, towards a's side.
            boolean overflow = subtract ? ((a ^ b) & (a ^ r)) < 0 : ((a ^ r) & (b ^ r)) < 0;
            if (overflow) {
                return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
            }
            long max = (1L << (width - 1)) - 1;
            long min = -(1L << (width - 1));
            return Math.max(min, Math.min(max, r)) & mask;
        }

        @Override public BigInteger evalWide(State s) {
            if (!wideOperands()) {
                return Bits.unsigned(eval(s));
            }
            BigInteger x = a.evalWide(s);
            BigInteger y = b.evalWide(s);
            BigInteger m = Bits.wideMask(width);
            if (signed) {
                BigInteger sx = Bits.signed(x, width);
                switch (op) {
                    case LT: return sx.compareTo(Bits.signed(y, width)) < 0 ? BigInteger.ONE : BigInteger.ZERO;
                    case LE: return sx.compareTo(Bits.signed(y, width)) <= 0 ? BigInteger.ONE : BigInteger.ZERO;
                    case GT: return sx.compareTo(Bits.signed(y, width)) > 0 ? BigInteger.ONE : BigInteger.ZERO;
                    case GE: return sx.compareTo(Bits.signed(y, width)) >= 0 ? BigInteger.ONE : BigInteger.ZERO;
                    case SHR:   // arithmetic: by the width or more, all sign bits (P4_16 8.6)
                        return sx.shiftRight(y.min(BigInteger.valueOf(width)).intValue()).and(m);
                    case SAT_ADD:
                    case SAT_SUB: {
                        BigInteger r = op == Op.SAT_ADD ? sx.add(Bits.signed(y, width)) : sx.subtract(Bits.signed(y, width));
                        BigInteger max = BigInteger.ONE.shiftLeft(width - 1).subtract(BigInteger.ONE);
                        return r.min(max).max(max.negate().subtract(BigInteger.ONE)).and(m);
                    }
                    default: break;   // the rest is the same on the two's-complement bits
                }
            }
            switch (op) {
                case ADD: return x.add(y).and(m);
                case SUB: return x.subtract(y).and(m);
                case MUL: return x.multiply(y).and(m);
                case DIV: return y.signum() == 0 ? BigInteger.ZERO : x.divide(y);
                case MOD: return y.signum() == 0 ? BigInteger.ZERO : x.mod(y);
                case SAT_ADD: return x.add(y).min(m);
                case SAT_SUB: return x.subtract(y).max(BigInteger.ZERO);
                case AND: return x.and(y);
                case OR: return x.or(y);
                case XOR: return x.xor(y);
                case SHL: return y.compareTo(BigInteger.valueOf(width)) >= 0 ? BigInteger.ZERO
                        : x.shiftLeft(y.intValue()).and(m);
                case SHR: return y.compareTo(BigInteger.valueOf(width)) >= 0 ? BigInteger.ZERO
                        : x.shiftRight(y.intValue());
                case CONCAT: return x.shiftLeft(bWidth).or(y).and(m);
                case EQ: return x.equals(y) ? BigInteger.ONE : BigInteger.ZERO;
                case NE: return x.equals(y) ? BigInteger.ZERO : BigInteger.ONE;
                case LT: return x.compareTo(y) < 0 ? BigInteger.ONE : BigInteger.ZERO;
                case LE: return x.compareTo(y) <= 0 ? BigInteger.ONE : BigInteger.ZERO;
                case GT: return x.compareTo(y) > 0 ? BigInteger.ONE : BigInteger.ZERO;
                case GE: return x.compareTo(y) >= 0 ? BigInteger.ONE : BigInteger.ZERO;
                default: throw new IllegalStateException(op.name());
            }
        }
    }

    /** ~x, -x and !x. */
    public static final class Unary extends Expr {
        private final char op;
        private final Expr a;
        private final int width;

        public Unary(char op, Type type, Expr a) {
            super(type);
            this.op = op;
            this.a = a;
            this.width = a.valueWidth();
        }

        @Override public long eval(State s) {
            if (width > 64) {
                return evalWide(s).longValue();
            }
            long x = a.eval(s);
            switch (op) {
                case '!': return x == 0 ? 1 : 0;
                case '~': return ~x & Bits.mask(width);
                case '-': return -x & Bits.mask(width);
                default: return x;
            }
        }

        @Override public void jvmLong(Jit j) {
            if (width > 64) {
                j.evalOf(this);
                return;
            }
            j.narrow(a);
            switch (op) {
                case '!':
                    j.code().visitInsn(LCONST_0);
                    j.code().visitInsn(LCMP);
                    j.booleanOf(IFNE);
                    return;
                case '~':
                    j.pushLong(-1L);
                    j.code().visitInsn(LXOR);
                    j.mask(width);
                    return;
                case '-':
                    j.code().visitInsn(LNEG);
                    j.mask(width);
                    return;
                default:
            }
        }

        @Override public String c(CodeWriter w) {
            String x = a.c(w);
            String m = width > 64 ? CodeWriter.wideMask(width) : CodeWriter.mask(width);
            switch (op) {
                case '!': return "(!(" + x + "))";
                case '~': return "(~(" + x + ") & " + m + ")";
                case '-': return "((" + (width > 64 ? "(u128)0" : "0ULL") + " - (" + x + ")) & " + m + ")";
                default: return x;
            }
        }

        @Override public BigInteger evalWide(State s) {
            if (width <= 64) {
                return Bits.unsigned(eval(s));
            }
            BigInteger m = Bits.wideMask(width);
            BigInteger x = a.evalWide(s);
            switch (op) {
                case '~': return x.xor(m);
                case '-': return x.negate().and(m);
                default: return x;
            }
        }
    }

    /** c ? x : y */
    public static final class Conditional extends Expr {
        private final Expr c;
        private final Expr x;
        private final Expr y;

        public Conditional(Type type, Expr c, Expr x, Expr y) {
            super(type);
            this.c = c;
            this.x = x;
            this.y = y;
        }

        @Override public long eval(State s) { return c.eval(s) != 0 ? x.eval(s) : y.eval(s); }

        @Override public void jvmLong(Jit j) {
            Label no = new Label();
            Label done = new Label();
            j.narrow(c);
            j.ifZero(no);
            j.narrow(x);
            j.code().visitJumpInsn(GOTO, done);
            j.code().visitLabel(no);
            j.narrow(y);
            j.code().visitLabel(done);
        }

        @Override public String c(CodeWriter w) {
            String t = x.isWide() ? w.tempWide() : w.tempNarrow();
            w.line(t + " = " + this.c.c(w) + ";");
            return w.when(t, x, w.when("!" + t, y, "0"));
        }
        @Override public BigInteger evalWide(State s) { return c.eval(s) != 0 ? x.evalWide(s) : y.evalWide(s); }
    }

    /** Casts between bit/int widths, bool and bit<1>, serializable enums: truncate or extend. */
    public static final class Cast extends Expr {
        private final Expr a;
        private final int width;
        private final boolean signExtend;
        private final int fromWidth;

        public Cast(Type type, Expr a) {
            super(type);
            this.a = a;
            this.width = valueWidth();
            this.fromWidth = a.width();
            this.signExtend = a.type instanceof Type.Bits && ((Type.Bits) a.type).signed;
        }

        @Override public long eval(State s) {
            if (width > 64 || fromWidth > 64) {
                return evalWide(s).and(Bits.wideMask(Math.min(width, 64))).longValue();
            }
            long v = a.eval(s);
            if (signExtend && fromWidth > 0) {
                v = Bits.signExtend(v, fromWidth);
            }
            return v & Bits.mask(width);
        }

        @Override public void jvmLong(Jit j) {
            if (width > 64 || fromWidth > 64) {
                j.evalOf(this);
                return;
            }
            j.narrow(a);
            if (signExtend && fromWidth > 0) {
                j.pushInt(fromWidth);
                j.code().visitMethodInsn(INVOKESTATIC, org.objectweb.asm.Type.getInternalName(Bits.class), "signExtend", "(JI)J", false);
            }
            j.mask(width);
        }

        @Override public String c(CodeWriter w) {
            if (width > 128 || fromWidth > 128) {
                throw new CodeWriter.Unsupported("a cast wider than 128 bits");
            }
            String v = a.c(w);
            if (signExtend && fromWidth > 0) {
                if (fromWidth > 64 || width > 64) {
                    throw new CodeWriter.Unsupported("a signed cast wider than 64 bits");
                }
                v = "(__u64) sx(" + v + ", " + fromWidth + ")";
            }
            if (width > 64) {
                return "((u128) (" + v + ") & " + CodeWriter.wideMask(width) + ")";
            }
            return "((__u64) (" + v + ") & " + CodeWriter.mask(width) + ")";
        }

        @Override public BigInteger evalWide(State s) {
            BigInteger v = a.evalWide(s);
            if (signExtend && fromWidth > 0 && v.testBit(fromWidth - 1)) {
                v = v.subtract(BigInteger.ONE.shiftLeft(fromWidth));
            }
            return v.and(Bits.wideMask(width));
        }
    }

    /** x[hi:lo], readable and, on an l-value, writable. */
    public static final class Slice extends Expr.LValue {
        private final Expr base;
        private final int hi;
        private final int lo;

        public Slice(Type type, Expr base, int hi, int lo) {
            super(type);
            this.base = base;
            this.hi = hi;
            this.lo = lo;
        }

        @Override public long eval(State s) {
            if (base.isWide()) {
                return s.sliceOf(base.evalWide(s), lo, hi - lo + 1);
            }
            return (base.eval(s) >>> lo) & Bits.mask(hi - lo + 1);
        }

        @Override public BigInteger evalWide(State s) {
            return base.evalWide(s).shiftRight(lo).and(Bits.wideMask(hi - lo + 1));
        }

        @Override public void jvmLong(Jit j) {
            if (hi - lo + 1 > 64) {
                j.evalOf(this);
                return;
            }
            if (base.isWide()) {
                j.state();
                base.jvmWide(j);
                j.pushInt(lo);
                j.pushInt(hi - lo + 1);
                j.code().visitMethodInsn(INVOKEVIRTUAL, org.objectweb.asm.Type.getInternalName(State.class), "sliceOf",
                        "(" + org.objectweb.asm.Type.getDescriptor(BigInteger.class) + "II)J", false);
                return;
            }
            j.narrow(base);
            j.pushInt(lo);
            j.code().visitInsn(LUSHR);
            j.mask(hi - lo + 1);
        }

        @Override public String c(CodeWriter w) {
            int n = hi - lo + 1;
            String v = "((" + base.c(w) + ") >> " + lo + ")";
            return n > 64 ? "(" + v + " & " + CodeWriter.wideMask(n) + ")" : "((__u64) " + v + " & " + CodeWriter.mask(n) + ")";
        }

        @Override public void cSet(CodeWriter w, String value) {
            Expr.LValue target = (Expr.LValue) base;
            String t = base.isWide() ? "(u128)" : "(__u64)";
            int n = hi - lo + 1;
            String m = "(" + (n > 64 ? CodeWriter.wideMask(n) : t + CodeWriter.mask(n)) + " << " + lo + ")";
            target.cSet(w, "((" + base.c(w) + ") & ~" + m + ") | ((" + t + "(" + value + ") << " + lo + ") & " + m + ")");
        }

        @Override public void set(State s, long v) {
            if (base.isWide()) {
                setWide(s, Bits.unsigned(v));
                return;
            }
            long m = Bits.mask(hi - lo + 1) << lo;
            ((Expr.LValue) base).set(s, (base.eval(s) & ~m) | ((v << lo) & m));
        }

        @Override public void setWide(State s, BigInteger v) {
            Expr.LValue target = (Expr.LValue) base;
            BigInteger m = Bits.wideMask(hi - lo + 1).shiftLeft(lo);
            BigInteger old = base.evalWide(s);
            target.setWide(s, old.andNot(m).or(v.shiftLeft(lo).and(m)));
        }
    }
}
