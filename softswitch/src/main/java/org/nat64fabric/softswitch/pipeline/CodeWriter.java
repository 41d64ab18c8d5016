package org.nat64fabric.softswitch.pipeline;

import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.nat64fabric.softswitch.frontend.Type;
import org.nat64fabric.softswitch.v1model.Externs;

/**
 * Writes a compiled program as C for a kernel fast path: each expression and statement of the
 * interpreter knows its C form (their {@code c} methods) and writes it here. The C program keeps
 * the interpreter's slot model: narrow slots in {@code s->n[]} (64-bit words), wide slots in
 * {@code s->w[]} (128-bit units; a slot wider than 128 bits takes several). Values up to 64 bits
 * are {@code __u64} expressions, up to 128 bits {@code u128}; wider ones are only copied.
 *
 * <p>A construct without a C form throws {@link Unsupported}; the statement that holds it becomes a
 * jump to the interpreter ({@link #bail}), so a packet that reaches it is handed over before the
 * fast path changed anything, and is processed exactly as without a fast path.
 */
public abstract class CodeWriter {
    /** A construct the fast path does not translate; packets that reach it go to the interpreter. */
    public static final class Unsupported extends RuntimeException {
        public Unsupported(String what) {
            super(what, null, false, false);
        }
    }

    private StringBuilder out = new StringBuilder();
    private int indent = 1;
    private int labels;
    private int narrowTemps;
    private int wideTemps;
    /** Labels that end the enclosing callables (actions, functions, controls), innermost first. */
    private final Deque<String> scopes = new ArrayDeque<>();
    /** The labels an exit jumps to, s->exiting set. */
    private final Set<String> exitTargets = new HashSet<>();
    /**
     * Whether s->exiting may be set where code is written now: only between the end of a callable
     * an exit jumped to and the check that passes the exit on. Elsewhere an exit has already
     * jumped past, so a check would never fire.
     */
    private boolean mayBeExiting;
    /** Why packets go to the interpreter, by the number of the place they leave from. */
    private final List<String> bailReasons = new ArrayList<>(List.of("more counter updates than the fast path logs"));
    /**
     * Reference slots (see {@link AggRef}) bound to a place known when the code is written: their
     * reads become that constant, so the C indexes the state with constants (no load of the
     * reference, no mask, and clang can tell the accesses apart).
     */
    private final Map<Integer, Long> knownRefs = new HashMap<>();
    private final int[] wideUnit;
    private final int[] wideUnits;
    private final int totalUnits;

    protected CodeWriter(int[] wideWidths) {
        wideUnit = new int[wideWidths.length];
        wideUnits = new int[wideWidths.length];
        int u = 0;
        for (int i = 0; i < wideWidths.length; i++) {
            wideUnit[i] = u;
            wideUnits[i] = (wideWidths[i] + 127) / 128;
            u += wideUnits[i];
        }
        totalUnits = u;
    }

    // ---- text ----

    public void line(String text) {
        out.append("    ".repeat(indent)).append(text).append('\n');
    }

    public void open(String text) {
        line(text + " {");
        indent++;
    }

    public void close() {
        indent--;
        line("}");
    }

    public void close(String tail) {
        indent--;
        line("} " + tail);
    }

    private String label() {
        return "L" + labels++;
    }

    private void place(String label) {
        out.append(label).append(":;\n");
    }

    /** Runs {@code emit} into a buffer of its own; returns the statements it wrote. */
    public String capture(Runnable emit) {
        StringBuilder saved = out;
        out = new StringBuilder();
        try {
            emit.run();
            return out.toString();
        } finally {
            out = saved;
        }
    }

    /** Appends statements captured before. */
    public void append(String statements) {
        out.append(statements);
    }

    // ---- storage ----

    public String n(int slot) {
        return "s->n[" + slot + "]";
    }

    /** A narrow slot whose index is computed per packet (always in range by construction; masked for the verifier). */
    public String nAt(String index) {
        Long k = constantIndex(index);
        return k != null ? n(k.intValue()) : "s->n[(" + index + ") & N_MASK]";
    }

    /**
     * The value of an index written as a sum of non-negative integers in parentheses (what fixed
     * and known places give), or null when it depends on the packet.
     */
    static Long constantIndex(String index) {
        long sum = 0;
        for (String term : index.replace("(", "").replace(")", "").split("\\+")) {
            String t = term.trim();
            if (t.isEmpty() || t.length() > 9 || !t.chars().allMatch(Character::isDigit)) {
                return null;
            }
            sum += Long.parseLong(t);
        }
        return sum;
    }

    /** A reference slot's value in C: the place it is bound to when that is known, else the slot. */
    public String ref(int slot) {
        Long k = knownRefs.get(slot);
        return k != null ? String.valueOf(k) : n(slot);
    }

    /**
     * Binds a reference slot to a place (before a call's body, which is written right after, at
     * the call: every read of the slot in it follows this bind). A place known now is remembered
     * and nothing is stored; one computed per packet is stored in the slot.
     */
    public void bindRef(int slot, String place) {
        Long k = constantIndex(place);
        if (k != null) {
            knownRefs.put(slot, k);
        } else {
            knownRefs.remove(slot);
            line(n(slot) + " = " + place + ";");
        }
    }

    public int unit(int wideSlot) {
        return wideUnit[wideSlot];
    }

    public int units(int wideSlot) {
        return wideUnits[wideSlot];
    }

    public int totalUnits() {
        return totalUnits;
    }

    /** Units from the first wide slot of an aggregate of type {@code t} to its wide slot {@code wideOffset}. */
    public int unitOffset(Type t, int wideOffset) {
        List<Integer> widths = new ArrayList<>();
        t.wideWidths(widths);
        int units = 0;
        for (int i = 0; i < wideOffset; i++) {
            units += (widths.get(i) + 127) / 128;
        }
        return units;
    }

    public String wAt(String unit) {
        Long k = constantIndex(unit);
        return k != null ? "s->w[" + k + "]" : "s->w[(" + unit + ") & W_MASK]";
    }

    /**
     * Copies {@code count} narrow slots (or 128-bit units) from one place to another. Between
     * places known now that do not overlap: in copies of up to 128 bytes, which clang's BPF target
     * expands into plain loads and stores (a loop of single copies costs four times the
     * instructions); a barrier between them, else clang merges them into one it cannot expand.
     * Otherwise a loop, slot by slot.
     */
    public void copySlots(boolean wide, String to, String from, int count) {
        Long t = constantIndex(to);
        Long f = constantIndex(from);
        if (t != null && f != null && (t + count <= f || f + count <= t)) {
            String array = wide ? "w" : "n";
            chunks(array, t, count, wide ? 16 : 8, (at, bytes) -> "__builtin_memcpy(&s->" + array + "[" + at + "], &s->"
                    + array + "[" + (f + at - t) + "], " + bytes + ")");
        } else if (!to.equals(from)) {
            line((wide ? "copy_w" : "copy_n") + "(s, " + to + ", " + from + ", " + count + ");");
        }
    }

    /** Zeroes {@code count} narrow slots (or 128-bit units): as {@link #copySlots}, in memsets when the place is known. */
    public void zeroSlots(boolean wide, String at, int count) {
        Long a = constantIndex(at);
        if (a != null) {
            zeroRun(wide ? "w" : "n", a, count, wide ? 16 : 8);
        } else {
            line((wide ? "zero_w" : "zero_n") + "(s, " + at + ", " + count + ");");
        }
    }

    /** Zeroes s->ARRAY[at .. at + count) in memsets of up to 128 bytes. */
    public void zeroRun(String array, long at, int count, int bytesPerSlot) {
        chunks(array, at, count, bytesPerSlot, (from, bytes) -> "__builtin_memset(&s->" + array + "[" + from + "], 0, " + bytes + ")");
    }

    private void chunks(String array, long at, int count, int bytesPerSlot, BiFunction<Long, Integer, String> op) {
        int perChunk = 128 / bytesPerSlot;
        for (long from = at; from < at + count; from += perChunk) {
            line(op.apply(from, (int) Math.min(perChunk, at + count - from) * bytesPerSlot) + ";");
            line("barrier();");
        }
    }

    public String tempNarrow() {
        return "s->tn[" + narrowTemps++ + "]";
    }

    public String tempWide() {
        return "s->tw[" + wideTemps++ + "]";
    }

    protected int narrowTemps() {
        return narrowTemps;
    }

    protected int wideTemps() {
        return wideTemps;
    }

    // ---- values ----

    public static String mask(int width) {
        return width >= 64 ? "0xffffffffffffffffULL" : "0x" + Long.toHexString(Bits.mask(width)) + "ULL";
    }

    public static String wideMask(int width) {
        return width >= 128 ? "(~(u128)0)" : "((((u128)1) << " + width + ") - 1)";
    }

    public static String constant(BigInteger v, int width) {
        if (width <= 64) {
            return "0x" + Long.toUnsignedString(v.longValue(), 16) + "ULL";
        }
        if (width > 128) {
            throw new Unsupported("a constant wider than 128 bits");
        }
        long hi = v.shiftRight(64).longValue();
        long lo = v.longValue();
        return "((((u128)0x" + Long.toUnsignedString(hi, 16) + "ULL) << 64) | 0x" + Long.toUnsignedString(lo, 16) + "ULL)";
    }

    /**
     * The C values of expressions evaluated left to right: when a later one writes statements
     * (a call, a table), the earlier values are kept in temporaries first, so they are read before.
     */
    public String[] inOrder(Expr... es) {
        String[] text = new String[es.length];
        String[] stmts = new String[es.length];
        for (int i = 0; i < es.length; i++) {
            int k = i;
            stmts[i] = capture(() -> text[k] = es[k].c(this));
        }
        for (int i = 0; i < es.length; i++) {
            append(stmts[i]);
            boolean laterWrites = false;
            for (int j = i + 1; j < es.length; j++) {
                laterWrites |= !stmts[j].isEmpty();
            }
            if (laterWrites) {
                String t = es[i].isWide() ? tempWide() : tempNarrow();
                line(t + " = " + text[i] + ";");
                text[i] = t;
            }
        }
        return text;
    }

    /** The value of {@code e} evaluated only when {@code guard} (a C condition) holds: for ?:, && and ||. */
    public String when(String guard, Expr e, String otherwise) {
        String[] text = new String[1];
        String stmts = capture(() -> text[0] = e.c(this));
        if (stmts.isEmpty()) {
            return "((" + guard + ") ? (" + text[0] + ") : (" + otherwise + "))";
        }
        String t = e.isWide() ? tempWide() : tempNarrow();
        line(t + " = " + otherwise + ";");
        open("if (" + guard + ")");
        append(stmts);
        line(t + " = " + text[0] + ";");
        close();
        return t;
    }

    // ---- control flow ----

    /** A jump to the interpreter that counts why (a C statement without its semicolon). */
    public String bail(String why) {
        int i = bailReasons.indexOf(why);
        if (i < 0) {
            i = bailReasons.size();
            bailReasons.add(why);
        }
        return "BAIL(" + i + ")";
    }

    /** The reasons of {@link #bail}, by number. */
    public List<String> bailReasons() {
        return List.copyOf(bailReasons);
    }

    /** Runs {@code body} as a callable ending at a label of its own: return jumps there, and exit leaves it outward. */
    public void callable(Runnable body, Runnable afterwards) {
        String end = label();
        scopes.push(end);
        try {
            body.run();
        } finally {
            scopes.pop();
        }
        place(end);
        mayBeExiting = exitTargets.contains(end);
        if (afterwards != null) {
            afterwards.run();
        }
        exitCheck();
    }

    /** return: to the end of the innermost callable. */
    public void returnJump() {
        line("goto " + scopes.peek() + ";");
    }

    /** exit: leaves every callable up to the block, copying out on the way. */
    public void exitJump() {
        exitTargets.add(scopes.peek());
        line("s->exiting = 1;");
        line("goto " + scopes.peek() + ";");
    }

    /** After a callable or a statement that ran a table: continue leaving when an exit is under way. */
    public void exitCheck() {
        if (mayBeExiting && !scopes.isEmpty()) {
            exitTargets.add(scopes.peek());
            line("if (s->exiting) goto " + scopes.peek() + ";");
        }
        mayBeExiting = false;
    }

    /** A block of the architecture (parser aside): its exit ends it. */
    public void block(Stmt body) {
        String end = label();
        scopes.push(end);
        try {
            statement(body);
        } finally {
            scopes.pop();
        }
        place(end);
        line("s->exiting = 0;");
        mayBeExiting = false;
    }

    /** A statement, or a jump to the interpreter when it has no C form. */
    public void statement(Stmt st) {
        guarded(() -> st.c(this));
    }

    /** What {@code emit} writes, or a jump to the interpreter when part of it has no C form. */
    public void guarded(Runnable emit) {
        int temps = narrowTemps;
        int wides = wideTemps;
        boolean exiting = mayBeExiting;
        try {
            append(capture(emit));
        } catch (Unsupported u) {
            narrowTemps = temps;
            wideTemps = wides;
            mayBeExiting = exiting;
            line(bail(u.getMessage()) + ";");
        }
    }

    // ---- what the generator of a target provides ----

    /** Applies a table: looks it up, runs its action, sets {@code s->hit} and {@code s->action_run}. */
    public abstract void applyTable(Table table);

    /** counter.count(index). */
    public abstract void count(Externs.Counter counter, String index);

    /** Whether the switch logs at debug level (log_msg prints; the fast path cannot). */
    public abstract boolean debugLogging();
}
