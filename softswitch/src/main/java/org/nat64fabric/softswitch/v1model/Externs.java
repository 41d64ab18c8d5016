package org.nat64fabric.softswitch.v1model;

import static org.objectweb.asm.Opcodes.*;

import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import org.nat64fabric.softswitch.pipeline.ActionProfile;
import org.nat64fabric.softswitch.pipeline.BitBuffer;
import org.nat64fabric.softswitch.pipeline.Bits;
import org.nat64fabric.softswitch.pipeline.CodeWriter;
import org.nat64fabric.softswitch.pipeline.Expr;
import org.nat64fabric.softswitch.pipeline.Jit;
import org.nat64fabric.softswitch.pipeline.State;
import org.nat64fabric.softswitch.pipeline.Stmt;
import org.nat64fabric.softswitch.pipeline.TwoRateMarker;
import org.nat64fabric.softswitch.pipeline.VarbitIo;
import org.objectweb.asm.Label;
import org.objectweb.asm.Type;

/** The v1model externs, compiled into statements. */
public final class Externs {
    private Externs() {
    }

    /** mark_to_drop(standard_metadata): egress_spec := 511 and mcast_grp := 0, as BMv2 does. */
    public static final class MarkToDrop extends Stmt {
        private final Expr.LValue egressSpec;
        private final Expr.LValue mcastGrp;

        public MarkToDrop(Expr.LValue egressSpec, Expr.LValue mcastGrp) {
            this.egressSpec = egressSpec;
            this.mcastGrp = mcastGrp;
        }

        @Override public int exec(State s) {
            egressSpec.set(s, V1ModelSwitch.DROP_PORT);
            mcastGrp.set(s, 0);
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            egressSpec.cSet(w, String.valueOf(V1ModelSwitch.DROP_PORT));
            mcastGrp.cSet(w, "0");
        }
    }

    /** clone / clone_preserving_field_list: the copy is made when the block ends. */
    public static final class Clone extends Stmt {
        private final Expr type;
        private final Expr session;
        private final int fieldList;

        public Clone(Expr type, Expr session, int fieldList) {
            this.type = type;
            this.session = session;
            this.fieldList = fieldList;
        }

        @Override public int exec(State s) {
            s.cloneType = (int) type.eval(s);
            s.cloneSession = (int) session.eval(s);
            s.cloneFieldList = fieldList;
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            throw new CodeWriter.Unsupported("clone (the interpreter makes the copy)");
        }
    }

    /** resubmit_/recirculate_preserving_field_list. */
    public static final class Reinject extends Stmt {
        private final boolean resubmit;
        private final int fieldList;

        public Reinject(boolean resubmit, int fieldList) {
            this.resubmit = resubmit;
            this.fieldList = fieldList;
        }

        @Override public int exec(State s) {
            if (resubmit) {
                s.resubmitFieldList = fieldList;
            } else {
                s.recirculateFieldList = fieldList;
            }
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            throw new CodeWriter.Unsupported("resubmit or recirculate");
        }
    }

    public static final class Truncate extends Stmt {
        private final Expr length;

        public Truncate(Expr length) {
            this.length = length;
        }

        @Override public int exec(State s) {
            s.truncateLength = (int) Math.min(Integer.MAX_VALUE, length.eval(s));
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            throw new CodeWriter.Unsupported("truncate");
        }
    }

    /** Hash algorithms, in v1model.p4's HashAlgorithm order. */
    public enum Algorithm { CRC32, CRC32_CUSTOM, CRC16, CRC16_CUSTOM, RANDOM, IDENTITY, CSUM16, XOR16 }

    /**
     * The data of a checksum or hash: scalar expressions packed in order into a bit string; a
     * varbit field ({@link VarbitIo.Field}) adds its bits at its current length.
     */
    public static final class Data {
        private final Expr[] fields;
        private final int[] widths;

        public Data(List<Expr> fields) {
            this.fields = fields.toArray(new Expr[0]);
            this.widths = new int[this.fields.length];
            for (int i = 0; i < widths.length; i++) {
                widths[i] = this.fields[i].width();
            }
        }

        /** Packs the fields into s->buf in C; returns the bits packed. */
        int cPack(CodeWriter w) {
            String[] values = w.inOrder(fields);
            int bit = 0;
            for (int i = 0; i < fields.length; i++) {
                if (widths[i] > 128 || widths[i] == 0 || (widths[i] > 64 && (bit % 8 != 0 || widths[i] % 8 != 0))
                        || (widths[i] <= 64 && bit % 8 + widths[i] > 64)) {
                    throw new CodeWriter.Unsupported("checksum data of this shape");
                }
                w.line((widths[i] > 64 ? "putw" : "put") + "(s->buf, " + bit + ", " + widths[i] + ", " + values[i] + ");");
                bit += widths[i];
            }
            if (bit > 8 * 256) {
                throw new CodeWriter.Unsupported("checksum data over 256 bytes");
            }
            return bit;
        }

        /** Packs the fields into the state's scratch buffer, in JVM bytecode. */
        void jvmPack(Jit j) {
            String buffer = Type.getInternalName(BitBuffer.class);
            j.stateField("scratch", "L" + buffer + ";");
            j.code().visitMethodInsn(INVOKEVIRTUAL, buffer, "clear", "()V", false);
            for (int i = 0; i < fields.length; i++) {
                if (fields[i] instanceof VarbitIo.Field) {
                    j.call(fields[i], "appendTo", "V");
                    continue;
                }
                j.stateField("scratch", "L" + buffer + ";");
                if (widths[i] > 64) {
                    j.wide(fields[i]);
                } else {
                    j.narrow(fields[i]);
                }
                j.pushInt(widths[i]);
                j.code().visitMethodInsn(INVOKEVIRTUAL, buffer, "append",
                        "(" + (widths[i] > 64 ? Type.getDescriptor(BigInteger.class) : "J") + "I)V", false);
            }
        }

        void pack(State s, BitBuffer buf) {
            buf.clear();
            for (int i = 0; i < fields.length; i++) {
                if (fields[i] instanceof VarbitIo.Field) {
                    ((VarbitIo.Field) fields[i]).appendTo(s);
                } else if (widths[i] > 64) {
                    buf.append(fields[i].evalWide(s), widths[i]);
                } else {
                    buf.append(fields[i].eval(s), widths[i]);
                }
            }
        }
    }

    /** Computes an algorithm over the first {@code length} bytes (and {@code bits} bits) of data. */
    static long compute(Algorithm algo, byte[] data, int bits, Random random) {
        int length = (bits + 7) / 8;
        switch (algo) {
            case CSUM16: {
                long sum = 0;
                for (int i = 0; i < length; i += 2) {
                    int hi = data[i] & 0xFF;
                    int lo = i + 1 < length ? data[i + 1] & 0xFF : 0;
                    sum += (hi << 8) | lo;
                }
                while ((sum >>> 16) != 0) {
                    sum = (sum & 0xFFFF) + (sum >>> 16);
                }
                return ~sum & 0xFFFF;
            }
            case XOR16: {
                int x = 0;
                for (int i = 0; i < length; i += 2) {
                    x ^= ((data[i] & 0xFF) << 8) | (i + 1 < length ? data[i + 1] & 0xFF : 0);
                }
                return x;
            }
            case CRC32:
            case CRC32_CUSTOM: {
                CRC32 crc = new CRC32();
                crc.update(data, 0, length);
                return crc.getValue();
            }
            case CRC16:
            case CRC16_CUSTOM: {
                // CRC-16/ARC: polynomial 0x8005, reflected, initial value 0.
                int crc = 0;
                for (int i = 0; i < length; i++) {
                    crc ^= data[i] & 0xFF;
                    for (int b = 0; b < 8; b++) {
                        crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0xA001 : crc >>> 1;
                    }
                }
                return crc & 0xFFFF;
            }
            case RANDOM:
                return random.nextLong();
            case IDENTITY: {
                // As BMv2 computes it: the first 8 bytes (at most) of the data packed as the others
                // hash it, most significant bit first, the last byte padded with zeros at its low end.
                long v = 0;
                for (int i = 0; i < Math.min(Long.BYTES, length); i++) {
                    v = v << 8 | data[i] & 0xFF;
                }
                return v;
            }
            default:
                throw new IllegalStateException(algo.name());
        }
    }

    /**
     * verify_checksum / update_checksum and their _with_payload forms. Verification sets
     * standard_metadata.checksum_error on a mismatch; an update writes the checksum field.
     */
    public static final class Checksum extends Stmt {
        private final boolean update;
        private final boolean withPayload;
        private final Expr condition;
        private final Data data;
        private final Expr.LValue checksum;
        private final Algorithm algo;
        private final Expr.LValue checksumError;
        private final long mask;

        public Checksum(boolean update, boolean withPayload, Expr condition, Data data, Expr.LValue checksum,
                        Algorithm algo, Expr.LValue checksumError) {
            this.update = update;
            this.withPayload = withPayload;
            this.condition = condition;
            this.data = data;
            this.checksum = checksum;
            this.algo = algo;
            this.checksumError = checksumError;
            this.mask = Bits.mask(checksum.width());
        }

        @Override public int exec(State s) {
            if (condition.eval(s) == 0) {
                return NEXT;
            }
            data.pack(s, s.scratch);
            finish(s);
            return NEXT;
        }

        @Override public boolean jvm(Jit j) {
            Label skip = new Label();
            j.narrow(condition);
            j.ifZero(skip);
            data.jvmPack(j);
            j.constant(this);
            j.state();
            j.code().visitMethodInsn(INVOKEVIRTUAL, j.typeOf(this), "finish", "(" + Type.getDescriptor(State.class) + ")V", false);
            j.code().visitLabel(skip);
            return false;
        }

        /** With the data packed in the scratch buffer: adds the payload, then updates or verifies the checksum. */
        public void finish(State s) {
            BitBuffer buf = s.scratch;
            if (withPayload) {
                int from = (s.cursorBits + 7) / 8;
                if (from < s.packetLength) {
                    buf.appendBytes(s.packet, from, s.packetLength - from);
                }
            }
            long value = compute(algo, buf.bytes(), buf.bitLength(), null) & mask;
            if (update) {
                checksum.set(s, value);
            } else if (checksum.eval(s) != value) {
                checksumError.set(s, 1);
            }
        }

        /** csum16 over headers only: a payload is the interpreter's. */
        @Override public void c(CodeWriter w) {
            w.open("if (" + condition.c(w) + ")");
            if (withPayload || algo != Algorithm.CSUM16) {
                w.line(w.bail(withPayload ? "a checksum over the payload" : "checksum " + algo) + ";");
                w.close();
                return;
            }
            int bits = data.cPack(w);
            String value = "(csum16(s->buf, " + (bits + 7) / 8 + ") & " + CodeWriter.mask(checksum.width()) + ")";
            if (update) {
                checksum.cSet(w, value);
            } else {
                w.open("if (" + checksum.c(w) + " != " + value + ")");
                checksumError.cSet(w, "1");
                w.close();
            }
            w.close();
        }
    }

    /** hash(result, algo, base, data, max): result = base + (h % max), or base if max is 0 (v1model.p4, BMv2). */
    public static final class Hash extends Stmt {
        private final Expr.LValue result;
        private final Algorithm algo;
        private final Expr base;
        private final Data data;
        private final Expr max;
        private final Random random;

        public Hash(Expr.LValue result, Algorithm algo, Expr base, Data data, Expr max, Random random) {
            this.result = result;
            this.algo = algo;
            this.base = base;
            this.data = data;
            this.max = max;
            this.random = random;
        }

        @Override public int exec(State s) {
            data.pack(s, s.scratch);
            long h = compute(algo, s.scratch.bytes(), s.scratch.bitLength(), random);
            long v;
            if (max.isWide() && max.evalWide(s).bitLength() > Long.SIZE) {
                v = h;   // a max of 2^64 or more leaves every 64-bit hash as it is
            } else {
                long m = max.isWide() ? max.evalWide(s).longValue() : max.eval(s);
                v = m == 0 ? 0 : Long.remainderUnsigned(h, m);
            }
            result.set(s, base.eval(s) + v);
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            throw new CodeWriter.Unsupported("hash()");
        }
    }

    /**
     * An action_selector's hash of a packet: its algorithm over the table's selector fields (packed
     * in key order, as hash() packs its data), cut to the selector's output width.
     */
    public static final class SelectorHash implements ActionProfile.SelectorHash {
        private final Algorithm algo;
        private final Data data;
        private final long mask;
        private final Random random;

        public SelectorHash(Algorithm algo, Data data, int outputWidth, Random random) {
            this.algo = algo;
            this.data = data;
            this.mask = outputWidth >= 64 ? -1L : (1L << outputWidth) - 1;
            this.random = random;
        }

        @Override public long of(State s) {
            data.pack(s, s.scratch);
            return compute(algo, s.scratch.bytes(), s.scratch.bitLength(), random) & mask;
        }
    }

    /**
     * A digest: the struct type whose values {@code digest<T>(receiver, data)} sends to the control
     * plane (P4Info names the digest after the struct, as p4c does). Its sink, set by the P4Runtime
     * side, takes each digest's field values; without one, digests go nowhere.
     */
    public static final class Digest {
        public final String name;
        public final List<String> fields;
        /** Each field's type: bit<W>, bool, an enum (serializable or not) or error, as P4Info and P4Data name them. */
        public final List<org.nat64fabric.softswitch.frontend.Type> types;
        /** Each field's value's width: bit<W>'s or the enum's underlying W; 1 for bool; 32 for the index of an error or enum member. */
        public final int[] widths;
        private volatile java.util.function.Consumer<BigInteger[]> sink = values -> { };

        public Digest(String name, List<String> fields, List<org.nat64fabric.softswitch.frontend.Type> types, int[] widths) {
            this.name = name;
            this.fields = fields;
            this.types = types;
            this.widths = widths;
        }

        public void sendTo(java.util.function.Consumer<BigInteger[]> sink) {
            this.sink = sink;
        }
    }

    /** digest(receiver, data): the data's values as they are at the call (the receiver is not used, as on BMv2). */
    public static final class DigestCall extends Stmt {
        private final Digest digest;
        private final Expr[] values;

        public DigestCall(Digest digest, List<Expr> values) {
            this.digest = digest;
            this.values = values.toArray(new Expr[0]);
        }

        @Override public int exec(State s) {
            BigInteger[] out = new BigInteger[values.length];
            for (int i = 0; i < values.length; i++) {
                int width = digest.widths[i];
                out[i] = width > 64 ? values[i].evalWide(s)
                        : width == 64 ? Bits.unsigned(values[i].eval(s)) : BigInteger.valueOf(values[i].eval(s) & Bits.mask(width));
            }
            digest.sink.accept(out);
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            throw new CodeWriter.Unsupported("digest()");
        }
    }

    /** random(result, lo, hi): uniform in [lo, hi]. */
    public static final class RandomValue extends Stmt {
        private final Expr.LValue result;
        private final Expr lo;
        private final Expr hi;
        private final Random random;

        public RandomValue(Expr.LValue result, Expr lo, Expr hi, Random random) {
            this.result = result;
            this.lo = lo;
            this.hi = hi;
            this.random = random;
        }

        @Override public int exec(State s) {
            long l = lo.eval(s);
            long h = hi.eval(s);
            long span = h - l + 1;
            result.set(s, span <= 0 ? l : l + Math.floorMod(random.nextLong(), span));
            return NEXT;
        }

        /** The kernel's pseudo-random generator (bpf_get_prandom_u32, 32 bits a call). */
        @Override public void c(CodeWriter w) {
            if (result.width() > 64) {
                throw new CodeWriter.Unsupported("random() wider than 64 bits");
            }
            String[] bounds = w.inOrder(lo, hi);
            String draw = result.width() > 32
                    ? "((__u64) bpf_get_prandom_u32() << 32 | bpf_get_prandom_u32())" : "(__u64) bpf_get_prandom_u32()";
            // As exec: lo when the span is empty or does not fit a signed 64-bit number.
            result.cSet(w, "({ __u64 lo_ = " + bounds[0] + ", span_ = " + bounds[1] + " - lo_ + 1; "
                    + "(__s64) span_ <= 0 ? lo_ : lo_ + " + draw + " % span_; })");
        }
    }

    /** A register array of W-bit cells (two's complement for int<W>). */
    public static final class Register {
        public final String name;
        public final int size;
        public final int width;
        /** register<int<W>>: P4Runtime reads and writes its cells as signed numbers (8.4). */
        public final boolean signed;
        /** The serializable enum its cells hold (register<E>); null for register<bit<W>>. */
        public final org.nat64fabric.softswitch.frontend.Type.Enum values;
        private final BigInteger[] cells;

        public Register(String name, int size, int width) {
            this(name, size, width, false, null);
        }

        public Register(String name, int size, int width, boolean signed,
                        org.nat64fabric.softswitch.frontend.Type.Enum values) {
            this.name = name;
            this.size = size;
            this.width = width;
            this.signed = signed;
            this.values = values;
            this.cells = new BigInteger[size];
            java.util.Arrays.fill(cells, BigInteger.ZERO);
        }

        public synchronized BigInteger get(int i) {
            return i >= 0 && i < size ? cells[i] : BigInteger.ZERO;
        }

        public synchronized void put(int i, BigInteger v) {
            if (i >= 0 && i < size) {
                cells[i] = v.and(Bits.wideMask(width));
            }
        }
    }

    public static final class RegisterRead extends Stmt {
        private final Register reg;
        private final Expr.LValue result;
        private final Expr index;

        public RegisterRead(Register reg, Expr.LValue result, Expr index) {
            this.reg = reg;
            this.result = result;
            this.index = index;
        }

        @Override public int exec(State s) {
            result.setWide(s, reg.get((int) index.eval(s)));
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            throw new CodeWriter.Unsupported("a register");
        }
    }

    public static final class RegisterWrite extends Stmt {
        private final Register reg;
        private final Expr index;
        private final Expr value;

        public RegisterWrite(Register reg, Expr index, Expr value) {
            this.reg = reg;
            this.index = index;
            this.value = value;
        }

        @Override public int exec(State s) {
            long i = index.eval(s);
            if (i >= 0 && i < reg.size) {
                reg.put((int) i, value.evalWide(s));
            }
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            throw new CodeWriter.Unsupported("a register");
        }
    }

    /** An indexed counter array (counter extern). */
    public static final class Counter {
        public final String name;
        public final int size;
        public final int unit;   // CounterType: 0 packets, 1 bytes, 2 both
        public final long[] packets;
        public final long[] bytes;

        /** Cells counted elsewhere as well (the kernel fast path). */
        public interface Mirror {
            long[] counts(Counter c, int index);

            void resetCounts(Counter c, int index);
        }

        public volatile Mirror mirror;

        public Counter(String name, int size, int unit) {
            this.name = name;
            this.size = size;
            this.unit = unit;
            this.packets = new long[size];
            this.bytes = new long[size];
        }

        /** Cell {@code i}, {packets, bytes}, wherever it was counted. */
        public long[] read(int i) {
            Mirror m = mirror;
            long[] more = m == null ? null : m.counts(this, i);
            return more == null ? new long[] {packets[i], bytes[i]} : new long[] {packets[i] + more[0], bytes[i] + more[1]};
        }

        public void write(int i, long packetCount, long byteCount) {
            Mirror m = mirror;
            if (m != null) {
                m.resetCounts(this, i);
            }
            packets[i] = packetCount;
            bytes[i] = byteCount;
        }
    }

    public static final class Count extends Stmt {
        private final Counter counter;
        private final Expr index;
        private final Expr.LValue packetLength;

        public Count(Counter counter, Expr index, Expr.LValue packetLength) {
            this.counter = counter;
            this.index = index;
            this.packetLength = packetLength;
        }

        @Override public int exec(State s) {
            long i = index.eval(s);
            if (i >= 0 && i < counter.size) {
                counter.packets[(int) i]++;
                counter.bytes[(int) i] += packetLength.eval(s);
            }
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            w.count(counter, index.c(w));
        }
    }

    /** MeterType.bytes, in v1model.p4's order. */
    public static final int METER_BYTES = TwoRateMarker.UNIT_BYTES;

    /** An indexed meter array (meter extern); an index with no configuration marks GREEN, as BMv2 does. */
    public static final class Meter {
        public final String name;
        public final int size;
        public final int unit;   // MeterType: 0 packets, 1 bytes
        private final TwoRateMarker[] markers;
        /** Packets and bytes each cell marked, by colour (P4Runtime 1.4 MeterCounterData). */
        private final long[] colourCounts;

        public Meter(String name, int size, int unit) {
            this.name = name;
            this.size = size;
            this.unit = unit;
            this.markers = new TwoRateMarker[size];
            this.colourCounts = new long[size * TwoRateMarker.COUNTS_PER_CELL];
        }

        /** A cell's colour counts: packets and bytes of GREEN, YELLOW, RED. */
        public synchronized long[] colourCounts(int index) {
            int at = index * TwoRateMarker.COUNTS_PER_CELL;
            return java.util.Arrays.copyOfRange(colourCounts, at, at + TwoRateMarker.COUNTS_PER_CELL);
        }

        public synchronized void resetColourCounts(int index) {
            int at = index * TwoRateMarker.COUNTS_PER_CELL;
            java.util.Arrays.fill(colourCounts, at, at + TwoRateMarker.COUNTS_PER_CELL, 0);
        }

        /** Configures one cell (null resets it to unconfigured); its buckets start full. */
        public synchronized void configure(int index, TwoRateMarker.Config config) {
            markers[index] = config == null ? null : new TwoRateMarker(config, System.nanoTime());
        }

        public synchronized TwoRateMarker.Config config(int index) {
            return markers[index] == null ? null : markers[index].config;
        }

        /** The packet's colour through cell {@code index}, counted there; GREEN (uncounted) beyond the array. */
        synchronized int execute(long index, long packetLength) {
            if (index < 0 || index >= size) {
                return TwoRateMarker.GREEN;
            }
            TwoRateMarker m = markers[(int) index];
            int color = TwoRateMarker.colorOf(m, unit, packetLength, m == null ? 0 : System.nanoTime());
            TwoRateMarker.count(colourCounts, (int) index, color, packetLength);
            return color;
        }
    }

    /** meter.execute_meter(index, result). */
    public static final class ExecuteMeter extends Stmt {
        private final Meter meter;
        private final Expr index;
        private final Expr.LValue result;
        private final Expr.LValue packetLength;

        public ExecuteMeter(Meter meter, Expr index, Expr.LValue result, Expr.LValue packetLength) {
            this.meter = meter;
            this.index = index;
            this.result = result;
            this.packetLength = packetLength;
        }

        @Override public int exec(State s) {
            result.set(s, meter.execute(index.eval(s), packetLength.eval(s)));
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            throw new CodeWriter.Unsupported("a meter");
        }
    }

    /** direct_meter.read(result): the colour the table gave the entry it hit (GREEN on a miss). */
    public static final class DirectMeterRead extends Stmt {
        private final Expr.LValue result;

        public DirectMeterRead(Expr.LValue result) {
            this.result = result;
        }

        @Override public int exec(State s) {
            result.set(s, s.directMeterColor);
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            throw new CodeWriter.Unsupported("a direct meter");
        }
    }

    /** log_msg: printed by the switch at debug level (kept out of the packet path otherwise). */
    public static final class LogMsg extends Stmt {
        private final String message;
        private final List<Expr> args;

        public LogMsg(String message, List<Expr> args) {
            this.message = message;
            this.args = args;
        }

        @Override public int exec(State s) {
            if (V1ModelSwitch.LOG.isLoggable(java.util.logging.Level.FINE)) {
                String m = message;
                for (Expr a : args) {
                    BigInteger v = a.evalWide(s);
                    if (a.type instanceof org.nat64fabric.softswitch.frontend.Type.Bits
                            && ((org.nat64fabric.softswitch.frontend.Type.Bits) a.type).signed) {
                        v = Bits.signed(v, a.width());   // an int<W> as the number it is, as BMv2 prints it
                    }
                    m = m.replaceFirst("\\{\\}", java.util.regex.Matcher.quoteReplacement(v.toString()));
                }
                V1ModelSwitch.LOG.fine(m);
            }
            return NEXT;
        }

        /** Prints nothing unless the switch logs at debug level; then only the interpreter can. */
        @Override public void c(CodeWriter w) {
            if (w.debugLogging()) {
                throw new CodeWriter.Unsupported("log_msg at debug level");
            }
        }
    }

    /** assert/assume: a false condition drops the packet and is counted by the switch. */
    public static final class Assert extends Stmt {
        private final Expr cond;
        private final Expr.LValue egressSpec;

        public Assert(Expr cond, Expr.LValue egressSpec) {
            this.cond = cond;
            this.egressSpec = egressSpec;
        }

        @Override public int exec(State s) {
            if (cond.eval(s) == 0) {
                egressSpec.set(s, V1ModelSwitch.DROP_PORT);
                return EXIT;
            }
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            w.open("if (!(" + cond.c(w) + "))");
            egressSpec.cSet(w, String.valueOf(V1ModelSwitch.DROP_PORT));
            w.exitJump();
            w.close();
        }
    }
}
