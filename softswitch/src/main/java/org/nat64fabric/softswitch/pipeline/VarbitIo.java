package org.nat64fabric.softswitch.pipeline;

import java.math.BigInteger;
import org.nat64fabric.softswitch.frontend.Type;

/**
 * extract(hdr, bits) and emit(hdr) for a header with a varbit field (P4_16 varbit): the field's
 * length comes from the extract and travels with the header. A varbit field read on its own is a
 * {@link Field}: compared with {@code ==} and {@code !=}, and packed into checksum and hash data at
 * its current length. The fast path leaves these to the interpreter (no C form).
 */
public final class VarbitIo {
    /** error.HeaderTooShort and error.ParserInvalidArgument of core.p4. */
    public static final int HEADER_TOO_SHORT = 4;
    public static final int PARSER_INVALID_ARGUMENT = 6;

    private VarbitIo() {
    }

    /** extract(hdr, bits): the varbit field takes bits bits (at most its maximum; the header stays whole bytes). */
    public static final class Extract extends Stmt {
        private final Expr.Agg header;
        private final Type.Aggregate type;
        private final Expr varbitBits;
        private final int fixedBits;
        private final int max;

        /** Non-null when extracting into stack.next. */
        private final PacketIo.Stack stack;

        public Extract(Expr.Agg header, Expr varbitBits, PacketIo.Stack stack) {
            this.header = header;
            this.stack = stack;
            this.type = (Type.Aggregate) header.type;
            this.varbitBits = varbitBits;
            this.fixedBits = type.bitWidth();
            int m = 0;
            for (Type.Field f : type.wireFields()) {
                m += f.type instanceof Type.Varbit ? ((Type.Varbit) f.type).max : 0;
            }
            this.max = m;
        }

        /** The checks in the order of P4_16 12.8.2's pseudo-code: whole bytes, the packet's length, the header's room, the stack's. */
        @Override public int exec(State s) {
            long length = varbitBits.eval(s);
            long total = fixedBits + length;
            if (total % 8 != 0) {
                s.parserError = PARSER_INVALID_ARGUMENT;
                return Parser.REJECT;
            }
            if (s.cursorBits + total > s.packetLength * 8L) {
                s.parserError = PacketIo.PACKET_TOO_SHORT;
                return Parser.REJECT;
            }
            if (length > max) {
                s.parserError = HEADER_TOO_SHORT;
                return Parser.REJECT;
            }
            if (stack != null && !stack.hasNext(s)) {
                s.parserError = PacketIo.STACK_OUT_OF_BOUNDS;
                return Parser.REJECT;
            }
            int nb = header.narrowBase(s);
            int wb = header.wideBase(s);
            int pos = s.cursorBits;
            for (Type.Field f : type.wireFields()) {
                if (f.type instanceof Type.Varbit) {
                    s.w[wb + f.wideOffset] = length == 0 ? BigInteger.ZERO : State.readWide(s.packet, pos, (int) length);
                    s.n[nb + f.narrowOffset] = length;
                    pos += (int) length;
                } else if (f.wide()) {
                    s.w[wb + f.wideOffset] = s.readWideCached(s.packet, pos, f.wireWidth());
                    pos += f.wireWidth();
                } else {
                    s.n[nb + f.narrowOffset] = State.readBits(s.packet, pos, f.wireWidth());
                    pos += f.wireWidth();
                }
            }
            s.n[nb] = 1;
            s.cursorBits = pos;
            if (stack != null) {
                stack.advanceNext(s);
            }
            return NEXT;
        }
    }

    /** emit(hdr) of a valid header with a varbit field: its fields, the varbit at its extracted length. */
    public static final class Emit extends Stmt {
        private final Expr.Agg header;
        private final Type.Aggregate type;

        public Emit(Expr.Agg header) {
            this.header = header;
            this.type = (Type.Aggregate) header.type;
        }

        @Override public int exec(State s) {
            int nb = header.narrowBase(s);
            if (s.n[nb] == 0) {
                return NEXT;
            }
            int wb = header.wideBase(s);
            int total = type.bitWidth();
            for (Type.Field f : type.wireFields()) {
                total += f.type instanceof Type.Varbit ? (int) s.n[nb + f.narrowOffset] : 0;
            }
            s.ensureOut((total + 7) / 8);
            int pos = s.outLength * 8;
            for (Type.Field f : type.wireFields()) {
                if (f.type instanceof Type.Varbit) {
                    int length = (int) s.n[nb + f.narrowOffset];
                    if (length > 0) {
                        State.writeWide(s.out, pos, length, s.w[wb + f.wideOffset]);
                    }
                    pos += length;
                } else if (f.wide()) {
                    State.writeWide(s.out, pos, f.wireWidth(), s.w[wb + f.wideOffset]);
                    pos += f.wireWidth();
                } else {
                    State.writeBits(s.out, pos, f.wireWidth(), s.n[nb + f.narrowOffset]);
                    pos += f.wireWidth();
                }
            }
            s.outLength += (total + 7) / 8;
            return NEXT;
        }
    }

    /** A varbit field as a value: its bits (a wide slot) and its current length in bits (a narrow slot). */
    public static final class Field extends Expr {
        private final Expr.Agg header;
        private final Type.Field field;

        public Field(Expr.Agg header, Type.Field field) {
            super(field.type);
            this.header = header;
            this.field = field;
        }

        public BigInteger value(State s) {
            return s.w[header.wideBase(s) + field.wideOffset];
        }

        public int length(State s) {
            return (int) s.n[header.narrowBase(s) + field.narrowOffset];
        }

        /** Sets the bits and the length (a value of the same varbit type: it fits). */
        public void set(State s, BigInteger value, int length) {
            s.w[header.wideBase(s) + field.wideOffset] = value;
            s.n[header.narrowBase(s) + field.narrowOffset] = length;
        }

        /** Appends the field at its current length to the checksum and hash data being packed. */
        public void appendTo(State s) {
            int length = length(s);
            if (length > 0) {
                s.scratch.append(value(s), length);
            }
        }

        /** Its bits as a number: what log_msg prints (the elaborator allows no arithmetic on a varbit). */
        @Override public BigInteger evalWide(State s) {
            return value(s);
        }
    }

    /** {@code a == b} (or {@code !=}) of two varbit fields: the same length and the same bits (P4_16 8.9). */
    public static final class Equal extends Expr {
        private final Field a;
        private final Field b;
        private final boolean equal;

        public Equal(Field a, Field b, boolean equal) {
            super(Type.BOOL);
            this.a = a;
            this.b = b;
            this.equal = equal;
        }

        @Override public long eval(State s) {
            boolean same = a.length(s) == b.length(s) && a.value(s).equals(b.value(s));
            return same == equal ? 1 : 0;
        }
    }

    /** {@code a = ...}: a varbit's default value, empty (P4_16 7.3: a dynamic width of 0). */
    public static final class Clear extends Stmt {
        private final Field target;

        public Clear(Field target) {
            this.target = target;
        }

        @Override public int exec(State s) {
            target.set(s, BigInteger.ZERO, 0);
            return NEXT;
        }
    }

    /** {@code a = b} of two varbit values of one type: the bits and the length, read before either is written. */
    public static final class Assign extends Stmt {
        private final Field target;
        private final Field value;

        public Assign(Field target, Field value) {
            this.target = target;
            this.value = value;
        }

        @Override public int exec(State s) {
            target.set(s, value.value(s), value.length(s));
            return NEXT;
        }
    }
}
