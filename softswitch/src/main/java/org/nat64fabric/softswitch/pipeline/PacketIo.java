package org.nat64fabric.softswitch.pipeline;

import static org.objectweb.asm.Opcodes.*;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.nat64fabric.softswitch.frontend.Type;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;

/** packet_in and packet_out operations: extract, lookahead, advance, emit. */
public final class PacketIo {
    private PacketIo() {
    }

    /** Error codes, in core.p4's declaration order. */
    public static final int NO_ERROR = 0;
    public static final int PACKET_TOO_SHORT = 1;
    public static final int NO_MATCH = 2;
    public static final int STACK_OUT_OF_BOUNDS = 3;
    public static final int PARSER_TIMEOUT = 5;

    /**
     * Reads a header's fields in C from a byte buffer ({@code s->pkt} or {@code s->out}) at a byte
     * position into its slots: each field a constant bit offset from there.
     */
    static void cFields(CodeWriter w, Expr.Agg header, Type.Aggregate type, String pos, boolean read) {
        String nb = header.cNarrowBase(w);
        String ub = type.wideSlots() == 0 ? null : header.cUnitBase(w);
        int bit = 0;
        for (Type.Field f : type.wireFields()) {
            int width = f.wireWidth();
            int skip = bit & 7;
            String at = pos + " + " + (bit >>> 3);
            if (width == 0) {   // bit<0>: nothing on the wire, always 0
                if (read) {
                    w.line(w.nAt(nb + " + " + f.narrowOffset) + " = 0;");
                }
                continue;
            }
            if (width <= 64) {
                if (skip + width > 64) {
                    throw new CodeWriter.Unsupported("a field across 9 bytes");
                }
                String slot = w.nAt(nb + " + " + f.narrowOffset);
                w.line(read ? slot + " = rd(s->pkt, " + at + ", " + skip + ", " + width + ");"
                        : "wr(s->out, " + at + ", " + skip + ", " + width + ", " + slot + ");");
            } else {
                if (skip != 0 || width % 8 != 0 || (width > 128 && width % 128 != 0)) {
                    throw new CodeWriter.Unsupported("a wide field not in whole bytes");
                }
                int unit = w.unitOffset(type, f.wideOffset);
                for (int k = 0; k < (width + 127) / 128; k++) {
                    int part = Math.min(128, width - 128 * k);
                    String slot = w.wAt(ub + " + " + (unit + k));
                    String partAt = pos + " + " + ((bit >>> 3) + 16 * k);
                    w.line(read ? slot + " = rdw(s->pkt, " + partAt + ", " + part + ");"
                            : "wrw(s->out, " + partAt + ", " + part + ", " + slot + ");");
                }
            }
            bit += width;
        }
    }

    /** In C: the parser sees the packet's first s->copied bytes; needing more than that goes to the interpreter. */
    static void cNeed(CodeWriter w, String bits) {
        w.open("if (s->cursor + " + bits + " > s->copied * 8)");
        w.line("if (s->copied < s->pkt_len) " + w.bail("the parser reads past the packet's first bytes") + ";");
        w.line("REJECT(" + PACKET_TOO_SHORT + ");");
        w.close();
    }

    /** Reads a header's fields from the packet at the cursor into its slots and validates it. */
    public static final class Extract extends Stmt {
        private final Expr.Agg header;
        private final Type.Aggregate type;
        private final int bits;
        private final Stack stack;   // non-null when extracting into stack.next
        private final WireLayout layout;

        public Extract(Expr.Agg header, Stack stack) {
            this.header = header;
            this.type = (Type.Aggregate) header.type;
            this.bits = type.bitWidth();
            this.stack = stack;
            this.layout = new WireLayout(type);
        }

        /** The checks in the order of P4_16 12.8.1's pseudo-code: the packet's length, then the stack's room. */
        @Override public int exec(State s) {
            if (s.cursorBits + bits > s.packetLength * 8) {
                s.parserError = PACKET_TOO_SHORT;
                return Parser.REJECT;
            }
            if (stack != null && !stack.hasNext(s)) {
                s.parserError = STACK_OUT_OF_BOUNDS;
                return Parser.REJECT;
            }
            readHeader(s, header, layout, s.packet, s.cursorBits);
            s.cursorBits += bits;
            if (stack != null) {
                stack.advanceNext(s);
            }
            return NEXT;
        }

        /**
         * At a byte boundary with the header within the packet, reads its fields in runs of whole
         * bytes; anything else (a stack's next, a cursor inside a byte, too short a packet) is
         * the interpreter's, which also rejects.
         */
        @Override public boolean jvm(Jit j) {
            List<int[]> runs = layout.byteRuns();
            if (stack != null || runs == null || bits % 8 != 0) {
                return j.execOf(this);
            }
            MethodVisitor m = j.code();
            Label slow = new Label();
            Label done = new Label();
            int pos = j.newLocal(1);
            j.stateField("cursorBits", "I");
            m.visitVarInsn(ISTORE, pos);
            m.visitVarInsn(ILOAD, pos);
            j.pushInt(7);
            m.visitInsn(IAND);
            m.visitJumpInsn(IFNE, slow);
            m.visitVarInsn(ILOAD, pos);
            j.pushInt(bits);
            m.visitInsn(IADD);
            j.stateField("packetLength", "I");
            j.pushInt(3);
            m.visitInsn(ISHL);
            m.visitJumpInsn(IF_ICMPGT, slow);
            m.visitVarInsn(ILOAD, pos);
            j.pushInt(3);
            m.visitInsn(IUSHR);
            m.visitVarInsn(ISTORE, pos);
            int buf = j.newLocal(1);
            j.stateField("packet", "[B");
            m.visitVarInsn(ASTORE, buf);
            int[] bases = bases(j, header, type);
            int word = j.newLocal(2);
            for (int[] run : runs) {
                int first = run[0];
                if (layout.wide[first]) {
                    j.wideSlots();
                    plus(j, bases[1], layout.offsets[first]);
                    j.state();
                    m.visitVarInsn(ALOAD, buf);
                    plus(j, pos, run[2]);
                    j.pushInt(3);
                    m.visitInsn(ISHL);
                    j.pushInt(layout.widths[first]);
                    m.visitMethodInsn(INVOKEVIRTUAL, STATE, "readWideCached", "([BII)" + org.objectweb.asm.Type.getDescriptor(BigInteger.class), false);
                    m.visitInsn(AASTORE);
                    continue;
                }
                m.visitVarInsn(ALOAD, buf);
                plus(j, pos, run[2]);
                j.pushInt(run[3]);
                m.visitMethodInsn(INVOKESTATIC, STATE, "getBytes", "([BII)J", false);
                m.visitVarInsn(LSTORE, word);
                int shift = run[3] * 8;
                for (int f = first; f < run[1]; f++) {
                    shift -= layout.widths[f];
                    j.narrowSlots();
                    plus(j, bases[0], layout.offsets[f]);
                    m.visitVarInsn(LLOAD, word);
                    j.pushInt(shift);
                    m.visitInsn(LUSHR);
                    j.mask(layout.widths[f]);
                    m.visitInsn(LASTORE);
                }
            }
            j.narrowSlots();
            m.visitVarInsn(ILOAD, bases[0]);
            m.visitInsn(LCONST_1);
            m.visitInsn(LASTORE);
            j.addToStateField("cursorBits", bits);
            j.pushInt(NEXT);
            m.visitJumpInsn(GOTO, done);
            m.visitLabel(slow);
            j.execOf(this);
            m.visitLabel(done);
            return true;
        }

        @Override public void c(CodeWriter w) {
            if (bits % 8 != 0 || bits > 8 * 192) {
                throw new CodeWriter.Unsupported("a header that is not whole bytes or longer than 192 bytes");
            }
            cNeed(w, String.valueOf(bits));
            if (stack != null) {
                w.line("if (" + stack.cNextIndex(w) + " >= " + stack.size + ") REJECT(" + STACK_OUT_OF_BOUNDS + ");");
            }
            w.line("if (s->cursor & 7) " + w.bail("a header that starts inside a byte") + ";");
            cFields(w, header, type, "(s->cursor >> 3)", true);
            w.line(w.nAt(header.cNarrowBase(w)) + " = 1;");
            w.line("s->cursor += " + bits + ";");
            if (stack != null) {
                w.line(stack.cNextIndex(w) + "++;");
            }
        }
    }

    private static final String STATE = org.objectweb.asm.Type.getInternalName(State.class);

    /** In JVM bytecode: locals holding the header's narrow base and (when it has wide fields) wide base. */
    private static int[] bases(Jit j, Expr.Agg header, Type.Aggregate type) {
        int narrow = j.newLocal(1);
        header.jvmNarrowBase(j);
        j.code().visitVarInsn(ISTORE, narrow);
        int wide = -1;
        if (type.wideSlots() > 0) {
            wide = j.newLocal(1);
            header.jvmWideBase(j);
            j.code().visitVarInsn(ISTORE, wide);
        }
        return new int[] {narrow, wide};
    }

    /** Pushes an int local (a slot base, a byte position) + offset. */
    private static void plus(Jit j, int local, int offset) {
        j.code().visitVarInsn(ILOAD, local);
        j.pushInt(offset);
        j.code().visitInsn(IADD);
    }

    static void readHeader(State s, Expr.Agg header, WireLayout layout, byte[] buf, int at) {
        int nb = header.narrowBase(s);
        int wb = header.wideBase(s);
        int pos = at;
        int[] widths = layout.widths;
        for (int i = 0; i < widths.length; i++) {
            int width = widths[i];
            if (layout.wide[i]) {
                s.w[wb + layout.offsets[i]] = s.readWideCached(buf, pos, width);
            } else {
                s.n[nb + layout.offsets[i]] = State.readBits(buf, pos, width);
            }
            pos += width;
        }
        if (layout.header) {
            s.n[nb] = 1;
        }
    }

    /** The nextIndex of a header stack, for extract into .next. */
    public static final class Stack {
        private final Expr.Agg stack;
        private final int size;
        private final int nextSlotOffset;

        public Stack(Expr.Agg stack) {
            this.stack = stack;
            this.size = ((Type.Stack) stack.type).size;
            this.nextSlotOffset = stack.type.narrowSlots() - 1;
        }

        public boolean hasNext(State s) {
            return s.n[stack.narrowBase(s) + nextSlotOffset] < size;
        }

        public long nextIndex(State s) {
            return s.n[stack.narrowBase(s) + nextSlotOffset];
        }

        void advanceNext(State s) {
            s.n[stack.narrowBase(s) + nextSlotOffset]++;
        }

        public String cNextIndex(CodeWriter w) {
            return w.nAt(stack.cNarrowBase(w) + " + " + nextSlotOffset);
        }
    }

    /** lookahead&lt;bit&lt;W&gt;&gt;(): the next W bits, without moving the cursor (0 past the end). */
    public static final class Lookahead extends Expr {
        private final int bits;

        public Lookahead(Type type, int bits) {
            super(type);
            this.bits = bits;
        }

        @Override public long eval(State s) {
            if (s.cursorBits + bits > s.packetLength * 8) {
                s.parserError = PACKET_TOO_SHORT;
                return 0;
            }
            return State.readBits(s.packet, s.cursorBits, bits);
        }

        /** Past the end: parser error PacketTooShort and 0, as exec (the parser then rejects). */
        @Override public String c(CodeWriter w) {
            if (bits > 64) {
                throw new CodeWriter.Unsupported("a lookahead wider than 64 bits");
            }
            String t = w.tempNarrow();
            w.line(t + " = 0;");
            w.open("if (s->cursor + " + bits + " > s->copied * 8)");
            w.line("if (s->copied < s->pkt_len) " + w.bail("the parser reads past the packet's first bytes") + ";");
            w.line("s->perr = " + PACKET_TOO_SHORT + ";");
            w.close("else " + t + " = rd_bits(s->pkt, s->cursor, " + bits + ");");
            return t;
        }

        @Override public BigInteger evalWide(State s) {
            if (s.cursorBits + bits > s.packetLength * 8) {
                s.parserError = PACKET_TOO_SHORT;
                return BigInteger.ZERO;
            }
            return s.readWideCached(s.packet, s.cursorBits, bits);
        }
    }

    /** lookahead&lt;header&gt;(): fills a scratch header with the next bits; past the end, PacketTooShort and an invalid header. */
    public static final class LookaheadHeader extends Expr.Agg {
        private final Expr.Agg scratch;
        private final WireLayout layout;
        private final int bits;

        public LookaheadHeader(Expr.Agg scratch) {
            super(scratch.type);
            this.scratch = scratch;
            this.layout = new WireLayout((Type.Aggregate) type);
            this.bits = ((Type.Aggregate) type).bitWidth();
        }

        @Override public int narrowBase(State s) {
            if (s.cursorBits + bits <= s.packetLength * 8) {
                readHeader(s, scratch, layout, s.packet, s.cursorBits);
            } else {
                s.parserError = PACKET_TOO_SHORT;   // the parser then rejects, as for lookahead<bit<W>>
                scratch.clear(s);
            }
            return scratch.narrowBase(s);
        }

        @Override public int wideBase(State s) {
            return scratch.wideBase(s);
        }
    }

    /**
     * A parser statement holding a lookahead: past the packet's end the parser rejects at once
     * (P4_16 12.8.3, as an extract does), before the state's next statements run.
     */
    public static final class RejectIfPeekFailed extends Stmt {
        private final Stmt body;

        public RejectIfPeekFailed(Stmt body) {
            this.body = body;
        }

        @Override public int exec(State s) {
            int r = body.exec(s);
            return r == NEXT && s.parserError != NO_ERROR ? Parser.REJECT : r;
        }

        @Override public void c(CodeWriter w) {
            body.c(w);
            w.line("if (s->perr) REJECT(s->perr);");
        }
    }

    public static final class Advance extends Stmt {
        private final Expr bits;

        public Advance(Expr bits) {
            this.bits = bits;
        }

        @Override public int exec(State s) {
            long n = bits.eval(s);
            if (s.cursorBits + n > s.packetLength * 8L) {
                s.parserError = PACKET_TOO_SHORT;
                return Parser.REJECT;
            }
            s.cursorBits += (int) n;
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            String n = w.tempNarrow();
            w.line(n + " = " + bits.c(w) + ";");
            cNeed(w, n);
            w.line("s->cursor += " + n + ";");
        }
    }

    /** verify(cond, error): rejects with the error when cond is false. */
    public static final class Verify extends Stmt {
        private final Expr cond;
        private final Expr error;

        public Verify(Expr cond, Expr error) {
            this.cond = cond;
            this.error = error;
        }

        @Override public int exec(State s) {
            if (cond.eval(s) != 0) {
                return NEXT;
            }
            s.parserError = (int) error.eval(s);
            return Parser.REJECT;
        }

        @Override public void c(CodeWriter w) {
            w.line("if (!(" + cond.c(w) + ")) REJECT(" + error.c(w) + ");");
        }
    }

    /** emit(h) for a header: appends its fields when valid. */
    public static final class Emit extends Stmt {
        private final Expr.Agg header;
        private final Type.Aggregate type;
        private final int bytes;
        private final WireLayout layout;

        public Emit(Expr.Agg header) {
            this.header = header;
            this.type = (Type.Aggregate) header.type;
            this.bytes = (type.bitWidth() + 7) / 8;
            this.layout = new WireLayout(type);
        }

        @Override public int exec(State s) {
            int nb = header.narrowBase(s);
            if (s.n[nb] == 0) {
                return NEXT;
            }
            int wb = header.wideBase(s);
            s.ensureOut(bytes);
            // Narrow fields gather in a 64-bit word written out in whole bytes: one write per few
            // fields instead of a read-modify-write of the bytes under each field.
            int pos = s.outLength * 8;
            long acc = 0;
            int accBits = 0;
            int[] widths = layout.widths;
            for (int i = 0; i < widths.length; i++) {
                int width = widths[i];
                if (layout.wide[i]) {
                    State.writeBits(s.out, pos, accBits, acc);
                    pos += accBits;
                    acc = 0;
                    accBits = 0;
                    State.writeWide(s.out, pos, width, s.w[wb + layout.offsets[i]]);
                    pos += width;
                    continue;
                }
                if (accBits + width > 64) {
                    int whole = accBits & ~7;
                    State.writeBits(s.out, pos, whole, acc >>> (accBits - whole));
                    pos += whole;
                    accBits -= whole;
                    acc &= Bits.mask(accBits);
                    if (accBits + width > 64) {
                        State.writeBits(s.out, pos, accBits, acc);
                        pos += accBits;
                        acc = 0;
                        accBits = 0;
                    }
                }
                long v = s.n[nb + layout.offsets[i]] & Bits.mask(width);
                acc = accBits == 0 ? v : (acc << width) | v;
                accBits += width;
            }
            State.writeBits(s.out, pos, accBits, acc);
            s.outLength += bytes;
            return NEXT;
        }

        /**
         * Tests the header's validity inline (of the many headers a deparser emits, a packet has
         * few), then writes its fields in runs of whole bytes, or through exec when they do not
         * fall into such runs.
         */
        @Override public boolean jvm(Jit j) {
            MethodVisitor m = j.code();
            Label absent = new Label();
            j.narrowSlots();
            j.narrowBase(header);
            m.visitInsn(LALOAD);
            j.ifZero(absent);
            List<int[]> runs = layout.byteRuns();
            if (runs == null || type.bitWidth() % 8 != 0) {
                j.execOf(this);
                m.visitInsn(POP);
                m.visitLabel(absent);
                return false;
            }
            j.state();
            j.pushInt(bytes);
            m.visitMethodInsn(INVOKEVIRTUAL, STATE, "ensureOut", "(I)V", false);
            int out = j.newLocal(1);
            j.stateField("out", "[B");
            m.visitVarInsn(ASTORE, out);
            int pos = j.newLocal(1);
            j.stateField("outLength", "I");
            m.visitVarInsn(ISTORE, pos);
            int[] bases = bases(j, header, type);
            for (int[] run : runs) {
                int first = run[0];
                m.visitVarInsn(ALOAD, out);
                plus(j, pos, run[2]);
                if (layout.wide[first]) {
                    j.pushInt(3);
                    m.visitInsn(ISHL);
                    j.pushInt(layout.widths[first]);
                    j.wideSlots();
                    plus(j, bases[1], layout.offsets[first]);
                    m.visitInsn(AALOAD);
                    m.visitMethodInsn(INVOKESTATIC, STATE, "writeWide", "([BII" + org.objectweb.asm.Type.getDescriptor(BigInteger.class) + ")V", false);
                    continue;
                }
                j.pushInt(run[3]);
                int shift = run[3] * 8;
                for (int f = first; f < run[1]; f++) {
                    shift -= layout.widths[f];
                    j.narrowSlots();
                    plus(j, bases[0], layout.offsets[f]);
                    m.visitInsn(LALOAD);
                    j.mask(layout.widths[f]);
                    j.pushInt(shift);
                    m.visitInsn(LSHL);
                    if (f > first) {
                        m.visitInsn(LOR);
                    }
                }
                m.visitMethodInsn(INVOKESTATIC, STATE, "putBytes", "([BIIJ)V", false);
            }
            j.addToStateField("outLength", bytes);
            m.visitLabel(absent);
            return false;
        }

        /** Emits tested together in C: enough to skip a run of absent headers at one branch. */
        private static final int GROUP = 8;

        /**
         * Writes the emits that start at body[from], in groups under one test of all their validity
         * slots (a deparser emits many headers of which a packet has a few: one branch per group
         * instead of one per header); returns how many statements it wrote, 0 when body[from] is
         * not an emit of a header at a fixed place.
         */
        static int cRun(CodeWriter w, Stmt[] body, int from) {
            List<String> valid = new ArrayList<>();
            while (from + valid.size() < body.length && valid.size() < GROUP && body[from + valid.size()] instanceof Emit) {
                String base = ((Emit) body[from + valid.size()]).header.cNarrowBase(w);
                if (CodeWriter.constantIndex(base) == null) {
                    break;
                }
                valid.add(w.nAt(base));
            }
            if (valid.size() < 2) {
                return 0;
            }
            w.open("if (" + String.join(" | ", valid) + ")");
            for (int i = from; i < from + valid.size(); i++) {
                w.statement(body[i]);
            }
            w.close();
            return valid.size();
        }

        @Override public void c(CodeWriter w) {
            w.open("if (" + w.nAt(header.cNarrowBase(w)) + ")");
            w.line("if (s->out_len + " + bytes + " > OUT_MAX) " + w.bail("headers longer than the fast path's buffer") + ";");
            cFields(w, header, type, "s->out_len", false);
            w.line("s->out_len += " + bytes + ";");
            w.close();
        }
    }
}
