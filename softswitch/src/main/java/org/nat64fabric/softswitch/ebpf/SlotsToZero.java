package org.nat64fabric.softswitch.ebpf;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which slots of the per-packet state the XDP program must zero when a packet starts: those it may
 * read, on some path, before it has written them. The interpreter starts every packet with every
 * slot at zero; a slot the program writes before any read on every path can keep the previous
 * packet's value unseen, and zeroing it is wasted work.
 *
 * <p>The analysis reads the C that {@link org.nat64fabric.softswitch.pipeline.CodeWriter} wrote for
 * the program, so it sees every access the kernel will make, whichever IR node wrote it. That C has
 * a small shape: one statement a line, blocks opened by a line ending in '{', forward gotos to
 * labels, narrow slots as {@code s->n[index]} and 128-bit units as {@code s->w[index]}, indices a
 * constant, or a constant plus a reference: a slot holding an inout aggregate's place (set by its
 * bind to constants or to another reference plus a constant), or a temporary set the same way (a
 * stack element). It is a forward "definitely written" analysis: at a join, a slot counts as
 * written only if every incoming path wrote it. Parser states each start from what was written
 * before the parser (their writes are on some paths only). Whatever does not fit that shape is
 * answered conservatively: an index it cannot resolve reads every slot not yet written, and a
 * construct it does not know (a backward jump, a loop, the address of a slot other than in the
 * generator's memcpy and memset of slots) zeroes everything. It also tells every place some
 * statement reads, so that writes nothing reads can go (see XdpProgram).
 */
final class SlotsToZero {
    /** The narrow slots and 128-bit units to zero; and those read anywhere. */
    static final class Result {
        final BitSet narrow;
        final BitSet units;
        /**
         * Every place (narrow slots, then units) some statement may read, or null when a read
         * could not be placed. A slot no statement reads is dead: writing it is wasted work.
         */
        final BitSet read;

        Result(BitSet narrow, BitSet units, BitSet read) {
            this.narrow = narrow;
            this.units = units;
            this.read = read;
        }
    }

    private final int narrowSlots;
    private final int units;
    /** Narrow slots 0..narrowSlots-1, then units: one index space. */
    private final BitSet mustZero = new BitSet();
    private final BitSet readSomewhere = new BitSet();
    private boolean unplacedRead;
    private final Map<String, List<String>> assignments = new HashMap<>();
    private final Set<String> otherWrites = new HashSet<>();
    private final Map<String, long[]> pointees = new HashMap<>();
    private final Set<Integer> mayBeZero;
    private boolean everything;

    private SlotsToZero(int narrowSlots, int units, Set<Integer> mayBeZero) {
        this.narrowSlots = narrowSlots;
        this.units = units;
        this.mayBeZero = mayBeZero;
    }

    /**
     * @param parser the parser states (a switch on s->pstate, one case per state)
     * @param body the blocks around and after the parser, which start it at the line calling parse_step
     */
    static Result of(String parser, String body, int narrowSlots, int units) {
        // A reference slot that may be read before its bind holds zero: its pointees then include 0.
        Set<Integer> mayBeZero = new HashSet<>();
        while (true) {
            SlotsToZero a = new SlotsToZero(narrowSlots, units, mayBeZero);
            a.run(parser, body);
            Set<Integer> zeroed = new HashSet<>();
            for (String p : a.pointees.keySet()) {
                if (p.startsWith("n") && a.mustZero.get(Integer.parseInt(p.substring(1)))) {
                    zeroed.add(Integer.parseInt(p.substring(1)));
                }
            }
            if (mayBeZero.containsAll(zeroed)) {
                return a.result();
            }
            mayBeZero.addAll(zeroed);
        }
    }

    private Result result() {
        BitSet all = new BitSet();
        all.set(0, narrowSlots + units);
        BitSet zero = everything ? all : mustZero;
        BitSet narrow = zero.get(0, narrowSlots);
        BitSet wide = zero.get(narrowSlots, narrowSlots + units);
        return new Result(narrow, wide, everything || unplacedRead ? null : readSomewhere);
    }

    private void run(String parser, String body) {
        List<String> parserLines = lines(parser);
        List<String> bodyLines = lines(body);
        collectAssignments(parserLines);
        collectAssignments(bodyLines);
        new Walk(bodyLines, false, parserLines).run(new BitSet());
    }

    private static List<String> lines(String text) {
        List<String> out = new ArrayList<>();
        for (String l : text.split("\n")) {
            String t = l.trim();
            if (t.startsWith("} else ")) {   // a block closed and a one-line else on one line
                out.add("}");
                t = t.substring(2);
            }
            if (!t.isEmpty() && !t.startsWith("/*")) {
                out.add(t);
            }
        }
        return out;
    }

    // ---- accesses ----

    /** One s->n[...] or s->w[...] in a line: where it starts and ends, and its index text. */
    private static final class Access {
        final int start;
        final int end;
        final boolean wide;
        final String index;

        Access(int start, int end, boolean wide, String index) {
            this.start = start;
            this.end = end;
            this.wide = wide;
            this.index = index;
        }
    }

    private List<Access> accesses(String text) {
        List<Access> out = new ArrayList<>();
        for (int i = text.indexOf("s->"); i >= 0; i = text.indexOf("s->", i + 1)) {
            if (i > 0 && (Character.isLetterOrDigit(text.charAt(i - 1)) || text.charAt(i - 1) == '_')) {
                continue;   // ss->, xs->: not the state
            }
            boolean n = text.startsWith("s->n", i);
            boolean w = text.startsWith("s->w", i);
            if (!n && !w) {
                continue;
            }
            if (!text.startsWith("[", i + 4) || (i > 0 && text.charAt(i - 1) == '&')) {
                everything = true;   // the array itself, or a slot's address: not followed
                continue;
            }
            int close = matching(text, i + 4, '[', ']');
            if (close < 0) {
                everything = true;
                continue;
            }
            out.add(new Access(i, close + 1, w, text.substring(i + 5, close)));
        }
        return out;
    }

    /** The index of the bracket closing the one at {@code open}, or -1. */
    private static int matching(String text, int open, char o, char c) {
        int depth = 0;
        for (int i = open; i < text.length(); i++) {
            if (text.charAt(i) == o) {
                depth++;
            } else if (text.charAt(i) == c && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /** The places (in the joint index space) an index may denote, or null when unknown. */
    private long[] places(String index, boolean wide) {
        Affine a = affine(strip(index));
        long[] bases = a == null ? null : a.base == null ? new long[] {0} : pointees(a.base);
        if (bases == null) {
            return null;
        }
        long[] out = new long[bases.length];
        for (int i = 0; i < bases.length; i++) {
            long v = bases[i] + a.offset;
            if (v < 0 || v >= (wide ? units : narrowSlots)) {
                return null;
            }
            out[i] = wide ? narrowSlots + v : v;
        }
        return out;
    }

    private static String strip(String index) {
        String t = index.trim();
        for (String mask : new String[] {"& N_MASK", "& W_MASK"}) {
            if (t.endsWith(mask)) {
                return t.substring(0, t.length() - mask.length()).trim();
            }
        }
        return t;
    }

    /** A sum of constants and at most one reference: a slot, or a temporary (s->tn[...]), by name. */
    private static final class Affine {
        final String base;
        final long offset;

        Affine(String base, long offset) {
            this.base = base;
            this.offset = offset;
        }
    }

    /** {@code e} as an {@link Affine}, or null when it is anything else. */
    private Affine affine(String e) {
        String base = null;
        long sum = 0;
        String t = e.trim();
        while (t.startsWith("(") && matching(t, 0, '(', ')') == t.length() - 1) {
            t = t.substring(1, t.length() - 1).trim();
        }
        for (String term : splitTop(t, '+')) {
            String x = term.trim();
            Affine part;
            if (x.matches("\\d+")) {
                part = new Affine(null, Long.parseLong(x));
            } else if ((x.startsWith("s->n[") || x.startsWith("s->tn["))
                    && matching(x, x.indexOf('['), '[', ']') == x.length() - 1) {
                Affine slot = affine(strip(x.substring(x.indexOf('[') + 1, x.length() - 1)));
                if (slot == null || slot.base != null) {
                    return null;
                }
                part = new Affine(x.substring(3, x.indexOf('[')) + slot.offset, 0);
            } else if (x.startsWith("(") && matching(x, 0, '(', ')') == x.length() - 1) {
                part = affine(x);
            } else {
                return null;
            }
            if (part == null || (part.base != null && base != null)) {
                return null;
            }
            base = part.base != null ? part.base : base;
            sum += part.offset;
        }
        return new Affine(base, sum);
    }

    /** Splits on {@code sep} outside brackets and parentheses. */
    private static List<String> splitTop(String t, char sep) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int from = 0;
        for (int i = 0; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '(' || c == '[') {
                depth++;
            } else if (c == ')' || c == ']') {
                depth--;
            } else if (c == sep && depth == 0) {
                out.add(t.substring(from, i));
                from = i + 1;
            }
        }
        out.add(t.substring(from));
        return out;
    }

    // ---- reference slots ----

    /** What is assigned to each slot or temporary at a constant index, by name; which are written otherwise. */
    private void collectAssignments(List<String> lines) {
        for (String l : lines) {
            String st = l.startsWith("if (") && l.endsWith(";") ? l.substring(matching(l, 3, '(', ')') + 1).trim() : l;
            if (st.startsWith("else ")) {
                st = st.substring(5).trim();
            }
            boolean temp = st.startsWith("s->tn[");
            if (!(temp || st.startsWith("s->n[")) || !st.endsWith(";")) {
                continue;
            }
            int close = matching(st, st.indexOf('['), '[', ']');
            Affine at = affine(strip(st.substring(st.indexOf('[') + 1, close)));
            if (at == null || at.base != null) {
                continue;
            }
            String name = (temp ? "tn" : "n") + at.offset;
            String rest = st.substring(close + 1).trim();
            if (rest.startsWith("= ")) {
                assignments.computeIfAbsent(name, k -> new ArrayList<>()).add(rest.substring(2, rest.length() - 1));
            } else {
                otherWrites.add(name);
            }
        }
    }

    /**
     * The values a reference may hold, or null when they are not all known. A temporary is
     * written on the line before its use; a slot may be read before its bind, when it holds zero.
     */
    private long[] pointees(String name) {
        if (pointees.containsKey(name)) {
            return pointees.get(name);
        }
        pointees.put(name, null);   // a cycle of references: unknown
        List<String> rhs = assignments.get(name);
        if (rhs == null || otherWrites.contains(name)) {
            return null;
        }
        Set<Long> values = new HashSet<>();
        if (name.startsWith("n") && mayBeZero.contains(Integer.parseInt(name.substring(1)))) {
            values.add(0L);
        }
        for (String r : rhs) {
            Affine a = affine(r);
            long[] bases = a == null ? null : a.base == null ? new long[] {0} : pointees(a.base);
            if (bases == null) {
                return null;
            }
            for (long b : bases) {
                values.add(b + a.offset);
            }
        }
        long[] out = values.stream().mapToLong(Long::longValue).sorted().toArray();
        pointees.put(name, out);
        return out;
    }

    // ---- control flow ----

    private static BitSet meet(BitSet a, BitSet b) {
        if (a == null) {
            return b == null ? null : (BitSet) b.clone();
        }
        BitSet m = (BitSet) a.clone();
        if (b != null) {
            m.and(b);
        }
        return m;
    }

    private static BitSet copy(BitSet b) {
        return b == null ? null : (BitSet) b.clone();
    }

    private enum Kind { BLOCK, IF, ELSE, CASE }

    /** An open block: where its branches started and what they have in common so far. */
    private static final class Frame {
        Kind kind;
        final BitSet entry;
        BitSet joined;

        Frame(Kind kind, BitSet entry) {
            this.kind = kind;
            this.entry = entry;
        }
    }

    /** One pass over a function's lines; {@code written} (null: unreachable) is what is surely written. */
    private final class Walk {
        private final List<String> lines;
        private final boolean parser;
        private final List<String> parserLines;
        private final Deque<Frame> frames = new ArrayDeque<>();
        private final Map<String, BitSet> pending = new HashMap<>();
        private final Set<String> placed = new HashSet<>();
        private BitSet caseEntry;
        private BitSet written;

        Walk(List<String> lines, boolean parser, List<String> parserLines) {
            this.lines = lines;
            this.parser = parser;
            this.parserLines = parserLines;
        }

        void run(BitSet entry) {
            written = entry;
            caseEntry = copy(entry);
            for (int i = 0; i < lines.size() && !everything; i++) {
                String l = lines.get(i);
                if (l.endsWith("{")) {
                    open(l);
                } else if (l.equals("}")) {
                    i = close(i);
                } else if (l.matches("[A-Za-z_]\\w*:;?")) {
                    String label = l.substring(0, l.indexOf(':'));
                    placed.add(label);
                    written = meet(written, pending.remove(label));
                } else if (l.endsWith(";")) {
                    written = statement(l, written);
                    if (!parser && l.contains("parse_step")) {
                        new Walk(parserLines, true, null).run(copy(written));
                    }
                } else {
                    everything = true;
                }
            }
        }

        private void open(String l) {
            if (l.startsWith("if (")) {
                reads(l, written);
                frames.push(new Frame(Kind.IF, copy(written)));
            } else if (parser && (l.startsWith("case ") || l.startsWith("default:"))) {
                frames.push(new Frame(Kind.CASE, null));
                written = copy(caseEntry);
            } else if (l.equals("{") || (parser && l.equals("switch (s->pstate) {"))) {
                frames.push(new Frame(Kind.BLOCK, null));
            } else {
                everything = true;   // a loop, a switch, an else without if: not a shape the generator writes
            }
        }

        /** Closes a block at line i; returns the last line it consumed (an else branch's opening). */
        private int close(int i) {
            if (frames.isEmpty()) {
                everything = true;
                return i;
            }
            Frame f = frames.pop();
            switch (f.kind) {
                case BLOCK:
                    break;
                case CASE:
                    written = null;   // a parser state ends in a return
                    break;
                case ELSE:
                    written = meet(f.joined, written);
                    break;
                case IF: {
                    f.joined = meet(f.joined, written);
                    String next = i + 1 < lines.size() ? lines.get(i + 1) : "";
                    if (next.startsWith("else if (") && next.endsWith("{")) {
                        reads(next, f.entry);
                        written = copy(f.entry);
                        frames.push(f);
                        return i + 1;
                    }
                    if (next.equals("else {")) {
                        f.kind = Kind.ELSE;
                        written = copy(f.entry);
                        frames.push(f);
                        return i + 1;
                    }
                    if (next.startsWith("else ") && next.endsWith(";")) {
                        written = meet(f.joined, statement(next.substring(5).trim(), copy(f.entry)));
                        return i + 1;
                    }
                    written = meet(f.joined, f.entry);
                    break;
                }
                default:
                    everything = true;
            }
            return i;
        }

        /** A statement line: its reads checked against {@code w}, then its effect on it. */
        private BitSet statement(String st, BitSet w) {
            boolean jumps = st.contains("goto ") || st.contains("BAIL(") || st.contains("return");
            if (jumps && splitTop(st, ';').size() > 2) {
                everything = true;   // a jump among other statements on one line: not a shape the generator writes
            }
            if (st.startsWith("if (")) {
                int close = matching(st, 3, '(', ')');
                reads(st.substring(0, close + 1), w);
                statement(st.substring(close + 1).trim(), copy(w));   // its writes may not happen
                return w;
            }
            if (st.startsWith("goto ")) {
                String label = st.substring(5, st.length() - 1).trim();
                if (placed.contains(label)) {
                    everything = true;
                }
                if (w != null) {
                    pending.merge(label, copy(w), SlotsToZero::meet);
                }
                return null;
            }
            if (st.startsWith("__builtin_memcpy(") || st.startsWith("__builtin_memset(")) {
                return w == null ? null : memOp(st, w);
            }
            reads(st, w, target(st));
            if (w == null) {
                return null;
            }
            for (String end : new String[] {"BAIL(", "return", "REJECT(", "ACCEPT(", "NEXT_STATE(", "GOTO_STATE("}) {
                if (st.startsWith(end)) {
                    return null;
                }
            }
            BitSet after = copy(w);
            Access t = target(st);
            if (t != null) {
                long[] p = places(t.index, t.wide);
                if (p != null && p.length == 1) {
                    after.set((int) p[0]);
                }
            }
            range(st, after);
            return after;
        }

        /** zero_n, copy_n, zero_w, copy_w: ranges read and written. */
        private void range(String st, BitSet w) {
            boolean wide = st.startsWith("zero_w(") || st.startsWith("copy_w(");
            boolean copy = st.startsWith("copy_n(") || st.startsWith("copy_w(");
            if (!wide && !copy && !st.startsWith("zero_n(")) {
                return;
            }
            List<String> args = splitTop(st.substring(7, st.lastIndexOf(')')), ',');
            String n = args.get(args.size() - 1).trim();
            if (!n.matches("\\d+")) {
                everything = true;
                return;
            }
            int count = Integer.parseInt(n);
            if (copy) {
                long[] from = places(args.get(2), wide);
                if (from == null) {
                    readUnknown(w, wide);
                } else {
                    for (long f : from) {
                        for (int k = 0; k < count; k++) {
                            read((int) f + k, w);
                        }
                    }
                }
            }
            long[] to = places(args.get(1), wide);
            if (to != null && to.length == 1) {
                w.set((int) to[0], (int) to[0] + count);
            }
        }

        /** __builtin_memcpy(&s->n[to], &s->n[from], bytes) or __builtin_memset(&s->n[at], 0, bytes) (or s->w): runs read and written. */
        private BitSet memOp(String st, BitSet w) {
            List<String> args = splitTop(st.substring(st.indexOf('(') + 1, st.lastIndexOf(')')), ',');
            boolean copy = st.startsWith("__builtin_memcpy(");
            int[] to = run(args.get(0), args.get(2));
            int[] from = copy ? run(args.get(1), args.get(2)) : null;
            if (to == null || (copy && from == null) || (!copy && !args.get(1).trim().equals("0"))) {
                everything = true;
                return w;
            }
            BitSet after = copy(w);
            if (copy) {
                for (int k = 0; k < from[1]; k++) {
                    read(from[0] + k, w);
                }
            }
            after.set(to[0], to[0] + to[1]);
            return after;
        }

        /** The first place (in the joint index space) and the count of {@code &s->n[K]} or {@code &s->w[K]} over {@code bytes}, or null. */
        private int[] run(String address, String bytes) {
            String a = address.trim();
            boolean wide = a.startsWith("&s->w[");
            if (!(wide || a.startsWith("&s->n[")) || !a.endsWith("]") || !bytes.trim().matches("\\d+")) {
                return null;
            }
            String index = a.substring(6, a.length() - 1);
            int size = wide ? 16 : 8;
            int count = Integer.parseInt(bytes.trim()) / size;
            if (!index.matches("\\d+") || Integer.parseInt(index) + count > (wide ? units : narrowSlots)) {
                return null;
            }
            return new int[] {(wide ? narrowSlots : 0) + Integer.parseInt(index), count};
        }

        /** The slot a statement assigns (s->n[...] = ...), or null. */
        private Access target(String st) {
            if (!st.startsWith("s->n[") && !st.startsWith("s->w[")) {
                return null;
            }
            Access a = accesses(st).get(0);
            String rest = st.substring(a.end).trim();
            return rest.startsWith("= ") ? a : null;
        }

        private void reads(String text, BitSet w) {
            reads(text, w, null);
        }

        /** Every access in {@code text} but {@code target} reads its slot. */
        private void reads(String text, BitSet w, Access target) {
            if (w == null) {
                accesses(text);   // still notices what it cannot follow
                return;
            }
            for (Access a : accesses(text)) {
                if (target != null && a.start == target.start) {
                    continue;
                }
                long[] p = places(a.index, a.wide);
                if (p == null) {
                    readUnknown(w, a.wide);
                } else {
                    for (long x : p) {
                        read((int) x, w);
                    }
                }
            }
        }

        private void read(int place, BitSet w) {
            readSomewhere.set(place);
            if (!w.get(place)) {
                mustZero.set(place);
            }
        }

        /** A read the analysis cannot place: any slot not yet written may be the one. */
        private void readUnknown(BitSet w, boolean wide) {
            unplacedRead = true;
            BitSet unwritten = new BitSet();
            int from = wide ? narrowSlots : 0;
            unwritten.set(from, wide ? narrowSlots + units : narrowSlots);
            unwritten.andNot(w);
            mustZero.or(unwritten);
        }
    }
}
