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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 * statement reads, so that writes nothing reads can go (see KernelProgram).
 *
 * <p>A header's fields are mostly read under its validity slot ({@code if (s->n[V]) {} or
 * {@code (s->n[V]) ? (...)}): the deparser's emits, and conditions such as
 * {@code hdr.ipv4.isValid() && hdr.ipv4.ihl == 5}. Such a read cannot meet a field left from an
 * earlier packet if, on every path where V may be nonzero, the field was written (by the extract
 * that set V, or after a setValid). So the analysis keeps, for each slot some line tests so (a
 * guard: validity slots, mostly), a "guard band": the places written on every path where the
 * guard may be nonzero. A path where it is surely zero adds nothing to it (all ones), so the
 * bands meet by intersection like the written set, and they travel in the same BitSet: the
 * written places, one band per guard, one bit per guard telling that the current parser state
 * has not written it on this path (see {@link Walk#run}), and one bit per place telling that
 * every path wrote or copied into it. An aggregate copy moves what is written (and the bands)
 * from its source to its target instead of reading the source: a copied place read before it is
 * written has its origins zeroed (see {@link Walk#transfer}). The parser's extract into a stack
 * element at a run-time index writes the fields and then the validity at one index, which the
 * analysis relates ({@link Walk#elementValid}).
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
    /** Size of one band: the narrow slots, then the units. */
    private final int space;
    /** The guards (narrow slots) that have a band, and each one's band number. */
    private final Map<Integer, Integer> guardOf = new HashMap<>();
    private int[] guards = new int[0];
    /** The bands whose validity slot some parser state may write. */
    private final BitSet parserWritten = new BitSet();
    /**
     * A parser state copies an aggregate, which may leave a place unwritten that was written
     * before (a copy carries its source's state): the places it may copy into.
     */
    private boolean parserCopies;
    private final BitSet parserCopyTargets = new BitSet();
    /** Places read before they are written where every path copied something into them. */
    private final BitSet copiedUnwritten = new BitSet();
    /** Each place an aggregate copy writes, and the places it copies into it. */
    private final Map<Integer, Set<Integer>> origins = new HashMap<>();

    private SlotsToZero(int narrowSlots, int units, Set<Integer> mayBeZero) {
        this.narrowSlots = narrowSlots;
        this.units = units;
        this.mayBeZero = mayBeZero;
        this.space = narrowSlots + units;
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
                int slot = p.startsWith("n") ? Integer.parseInt(p.substring(1)) : -1;
                if (slot >= 0 && (a.mustZero.get(slot) || a.copiedUnwritten.get(slot))) {
                    zeroed.add(slot);
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
        BitSet zero = all;
        if (!everything) {
            BitSet copied = copy(mustZero);
            copied.or(copiedUnwritten);
            zero = originsOf(copied);
            zero.or(mustZero);
        }
        BitSet narrow = zero.get(0, narrowSlots);
        BitSet wide = zero.get(narrowSlots, narrowSlots + units);
        return new Result(narrow, wide, everything || unplacedRead ? null : readSomewhere);
    }

    /**
     * A copied slot read before it is written may hold what its origin held when the packet
     * started, so the origins are zeroed too (a copy itself reads nothing: see Walk#transfer).
     */
    private BitSet originsOf(BitSet places) {
        BitSet out = new BitSet();
        Deque<Integer> todo = new ArrayDeque<>();
        places.stream().forEach(todo::add);
        while (!todo.isEmpty()) {
            for (int o : origins.getOrDefault(todo.pop(), Set.of())) {
                if (!out.get(o)) {
                    out.set(o);
                    todo.add(o);
                }
            }
        }
        return out;
    }

    private void run(String parser, String body) {
        List<String> parserLines = lines(parser);
        List<String> bodyLines = lines(body);
        collectAssignments(parserLines);
        collectAssignments(bodyLines);
        collectGuards(parserLines, bodyLines);
        // When a packet starts, every guard's band holds everything: a guard that is read before
        // it is written is zeroed, so it is zero where nothing wrote it.
        BitSet entry = new BitSet();
        entry.set(space, untouchedFlag(guards.length));
        new Walk(bodyLines, false, parserLines).run(entry);
    }

    // ---- guard bands ----

    private static final Pattern GUARD = Pattern.compile("\\(s->n\\[(\\d+)\\]\\) \\? \\(|^if \\(s->n\\[(\\d+)\\]\\) \\{$");
    private static final Pattern ZERO = Pattern.compile("^= \\(?(0|0x0ULL)\\)?( & 0x[0-9a-fA-F]+ULL)?;$");

    /** The guard slots: those some line tests (validity slots, mostly; any slot's band is sound). */
    private void collectGuards(List<String> parserLines, List<String> bodyLines) {
        Set<Integer> tested = new HashSet<>();
        for (List<String> lines : List.of(parserLines, bodyLines)) {
            for (String l : lines) {
                for (Matcher m = GUARD.matcher(l); m.find(); ) {
                    tested.add(Integer.parseInt(m.group(1) != null ? m.group(1) : m.group(2)));
                }
            }
        }
        // A copy of a tested slot carries its band to and fro: the slots it is copied with count too.
        for (boolean grew = true; grew; ) {
            grew = false;
            for (List<String> lines : List.of(parserLines, bodyLines)) {
                for (String l : lines) {
                    Matcher m = COPY.matcher(l);
                    if (!m.matches() || !m.group(1).equals("n")) {
                        continue;
                    }
                    int to = Integer.parseInt(m.group(2));
                    int from = Integer.parseInt(m.group(3));
                    for (int i = 0; i < Integer.parseInt(m.group(4)) / 8; i++) {
                        if (tested.contains(to + i) != tested.contains(from + i)) {
                            tested.add(to + i);
                            tested.add(from + i);
                            grew = true;
                        }
                    }
                }
            }
        }
        guards = tested.stream().mapToInt(Integer::intValue).sorted().toArray();
        for (int k = 0; k < guards.length; k++) {
            guardOf.put(guards[k], k);
        }
        for (String l : parserLines) {
            parserCopyTargets(l);
            BitSet k = guardsWritten(l);
            if (k == null) {
                parserWritten.set(0, guards.length);
            } else {
                parserWritten.or(k);
            }
        }
    }

    /** An aggregate copy: the target's array and index, the source's index, the bytes. */
    private static final Pattern COPY = Pattern.compile("^__builtin_memcpy\\(&s->([nw])\\[(\\d+)\\], &s->[nw]\\[(\\d+)\\], (\\d+)\\);$");

    /** Notes the places a parser line may copy into (any, for a copy it cannot place). */
    private void parserCopyTargets(String l) {
        Matcher m = COPY.matcher(l);
        if (m.matches()) {
            boolean wide = m.group(1).equals("w");
            int to = (wide ? narrowSlots : 0) + Integer.parseInt(m.group(2));
            parserCopyTargets.set(to, to + Integer.parseInt(m.group(4)) / (wide ? 16 : 8));
            parserCopies = true;
        } else if (l.contains("__builtin_memcpy(") || l.contains("copy_n(") || l.contains("copy_w(")) {
            parserCopyTargets.set(0, space);
            parserCopies = true;
        }
    }

    /** Forgets that the places a parser copy may write were written: it may have copied unwritten ones there. */
    private void forgetParserCopies(BitSet w) {
        for (int x = parserCopyTargets.nextSetBit(0); x >= 0; x = parserCopyTargets.nextSetBit(x + 1)) {
            w.clear(x);
            for (int k = 0; k < guards.length; k++) {
                w.clear(band(k) + x);
            }
        }
    }

    /** The bands whose validity slot a line may write (null: any of them). */
    private BitSet guardsWritten(String l) {
        BitSet out = new BitSet();
        String st = l.startsWith("else ") ? l.substring(5).trim() : l;
        st = st.startsWith("if (") && st.endsWith(";") ? st.substring(matching(st, 3, '(', ')') + 1).trim() : st;
        if (st.startsWith("s->n[")) {
            List<Access> a = accesses(st);
            long[] p = a.isEmpty() ? null : places(a.get(0).index, false);
            if (p == null) {
                return null;
            }
            for (long x : p) {
                guardsIn((int) x, 1, out);
            }
        } else if (st.startsWith("__builtin_mem") || st.startsWith("copy_n(") || st.startsWith("zero_n(")) {
            return null;
        }
        return out;
    }

    /** Adds the bands of the validity slots among places [from, from + count) to {@code out}. */
    private void guardsIn(int from, int count, BitSet out) {
        for (int x = from; x < from + count && x < narrowSlots; x++) {
            Integer k = guardOf.get(x);
            if (k != null) {
                out.set(k);
            }
        }
    }

    private int band(int k) {
        return space * (1 + k);
    }

    /** The bit telling that no parser state has written validity slot k on this path. */
    private int untouchedFlag(int k) {
        return band(guards.length) + k;
    }

    /** The bit telling that every path wrote or copied into a place. */
    private int covered(int place) {
        return untouchedFlag(guards.length) + place;
    }

    /** A place is written on this path: on every path where a validity slot is nonzero too. */
    private void written(BitSet w, int place) {
        w.set(place);
        w.set(covered(place));
        for (int k = 0; k < guards.length; k++) {
            w.set(band(k) + place);
        }
    }

    /**
     * Validity slot k was written: surely zero now (its band holds everything), or perhaps
     * nonzero, when what is written on its paths is what is written now.
     */
    private void resetBand(BitSet w, int k, boolean zero) {
        w.clear(band(k), band(k) + space);
        if (zero) {
            w.set(band(k), band(k) + space);
        } else {
            for (int i = w.nextSetBit(0); i >= 0 && i < space; i = w.nextSetBit(i + 1)) {
                w.set(band(k) + i);
            }
        }
        w.clear(untouchedFlag(k));
    }

    /** Resets the bands of the validity slots among {@code places} (null: any slot). */
    private void resetBands(BitSet w, BitSet bands, boolean zero) {
        if (bands == null) {
            for (int k = 0; k < guards.length; k++) {
                resetBand(w, k, false);
            }
            return;
        }
        for (int k = bands.nextSetBit(0); k >= 0; k = bands.nextSetBit(k + 1)) {
            resetBand(w, k, zero);
        }
    }

    /** What is written on this path if validity slot k is nonzero. */
    private BitSet withBand(BitSet w, int k) {
        BitSet out = copy(w);
        out.or(w.get(band(k), band(k) + space));
        return out;
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

    /**
     * A stack element at a run-time index, as the generator writes it: element i of N at
     * BASE + i * STRIDE, or the scratch element past the end, plus the field's offset.
     */
    private static final Pattern STACK_INDEX = Pattern.compile("^\\(*\\(\\{ __u64 i_ = ([^;]+); i_ < (\\d+) \\? "
            + "(.+?) \\+ i_ \\* (\\d+) : (\\d+); \\}\\)\\)?(?: \\+ (\\d+))?\\)?$");
    private static final Pattern CONSTANT = Pattern.compile("^(0x[0-9a-fA-F]+|\\d+)(ULL)?$");

    /** The places (in the joint index space) an index may denote, or null when unknown. */
    private long[] places(String index, boolean wide) {
        Matcher m = STACK_INDEX.matcher(strip(index));
        if (m.matches()) {
            int count = Integer.parseInt(m.group(2));
            Affine base = affine(m.group(3));
            if (base == null || base.base != null) {
                return null;
            }
            long offset = m.group(6) == null ? 0 : Long.parseLong(m.group(6));
            Matcher constant = CONSTANT.matcher(m.group(1).trim());
            long[] out = new long[count + 1];
            for (int i = 0; i <= count; i++) {
                long v = (i < count ? base.offset + i * Long.parseLong(m.group(4)) : Long.parseLong(m.group(5))) + offset;
                if (v < 0 || v >= (wide ? units : narrowSlots)) {
                    return null;
                }
                out[i] = wide ? narrowSlots + v : v;
            }
            if (constant.matches()) {   // an element known when the code was written
                long i = Long.decode(constant.group(1));
                return new long[] {out[(int) Math.min(i, count)]};
            }
            return out;
        }
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
        /** An extract into a stack element at a run-time index: the index's slot and size, and per element what it wrote. */
        private String elementIndex;
        private final Map<Integer, BitSet> elementWrites = new HashMap<>();
        /** In the parser: per band, what is written where a state that may have set its slot ends (null: none yet). */
        private final BitSet[] exitBands = new BitSet[guards.length];

        Walk(List<String> lines, boolean parser, List<String> parserLines) {
            this.lines = lines;
            this.parser = parser;
            this.parserLines = parserLines;
        }

        void run(BitSet entry) {
            if (parser && entry != null) {
                // A state may follow one that set a validity slot the parser writes, with fields
                // this walk does not see written: such a slot's band starts as the written set.
                resetBands(entry, parserWritten, false);
                entry.set(untouchedFlag(0), untouchedFlag(guards.length));
                forgetParserCopies(entry);
            }
            written = entry;
            caseEntry = copy(entry);
            for (int i = 0; i < lines.size() && !everything; i++) {
                String l = lines.get(i);
                long[] element = stackElementWrite(l);   // every other line ends a run of them
                if (l.endsWith("{")) {
                    open(l);
                } else if (l.equals("}")) {
                    i = close(i);
                } else if (l.matches("[A-Za-z_]\\w*:;?")) {
                    String label = l.substring(0, l.indexOf(':'));
                    placed.add(label);
                    written = meet(written, pending.remove(label));
                } else if (l.endsWith(";")) {
                    BitSet before = element != null && l.endsWith("] = 1;") ? copy(written) : null;
                    written = statement(l, written);
                    if (before != null) {
                        elementValid(element, before);
                    }
                    if (!parser && l.contains("parse_step")) {
                        Walk states = new Walk(parserLines, true, null);
                        states.run(copy(written));
                        afterParser(states.exitBands);
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
                Integer k = guardOf.get(impliedNonzero(l.substring(3, l.length() - 1).trim()));
                if (k != null && written != null) {
                    written = withBand(written, k);
                }
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
                    exit(written);
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
                BitSet taken = statement(st.substring(close + 1).trim(), copy(w));
                return w == null ? null : meet(w, taken);   // its writes may not happen; its validity slots may change
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
                    exit(w);
                    return null;
                }
            }
            BitSet after = copy(w);
            Access t = target(st);
            if (t != null) {
                long[] p = places(t.index, t.wide);
                if (p != null && p.length == 1) {
                    written(after, (int) p[0]);
                }
            }
            if (st.startsWith("s->n[")) {   // any write to a validity slot, whatever its operator
                long[] p = t == null ? null : places(t.index, false);
                boolean zero = p != null && p.length == 1 && ZERO.matcher(st.substring(t.end).trim()).matches();
                resetBands(after, guardsWritten(st), zero);
            }
            range(st, after);
            return after;
        }

        /**
         * The places a write into a stack element at a run-time index may go to (element i at
         * [i]), remembered with those of the writes just before it at the same index; null for
         * any other line, which ends such a run.
         */
        private long[] stackElementWrite(String l) {
            String index = l.startsWith("s->n[") || l.startsWith("s->w[") ? accesses(l).get(0).index : null;
            Matcher m = index == null ? null : STACK_INDEX.matcher(strip(index));
            if (m == null || !m.matches() || CONSTANT.matcher(m.group(1).trim()).matches()) {
                elementIndex = null;
                return null;
            }
            String run = m.group(1) + "<" + m.group(2);
            if (!run.equals(elementIndex)) {
                elementIndex = run;
                elementWrites.clear();
            }
            long[] p = places(index, l.startsWith("s->w["));
            for (int i = 0; p != null && i < p.length; i++) {
                elementWrites.computeIfAbsent(i, x -> new BitSet()).set((int) p[i]);
            }
            return p;
        }

        /**
         * A stack element's validity set to 1 after its fields, all at one run-time index (the
         * extract of stack.next, an assignment of a whole element). Where element i's validity is
         * nonzero afterwards, either the index was i, and its fields were just written, or it was
         * nonzero before, and what its band held then holds: the band gains the fields its old
         * band knew of. In a parser state that had not touched the slot, the old band is no
         * concern of this exit: the states that set the slot before record their own exits, and
         * the parser's result is the intersection of them all.
         */
        private void elementValid(long[] element, BitSet before) {
            for (int i = 0; written != null && before != null && i < element.length; i++) {
                Integer k = guardOf.get((int) element[i]);
                BitSet fields = elementWrites.get(i);
                if (k == null || fields == null) {
                    continue;
                }
                BitSet gained = copy(fields);
                if (!(parser && before.get(untouchedFlag(k)))) {
                    gained.and(before.get(band(k), band(k) + space));
                }
                for (int x = gained.nextSetBit(0); x >= 0; x = gained.nextSetBit(x + 1)) {
                    written.set(band(k) + x);
                }
            }
        }

        /** In the parser, a path leaves its state: the bands of the validity slots it may have set. */
        private void exit(BitSet w) {
            if (!parser || w == null) {
                return;
            }
            for (int k = 0; k < guards.length; k++) {
                if (!w.get(untouchedFlag(k))) {
                    BitSet b = w.get(band(k), band(k) + space);
                    exitBands[k] = meet(exitBands[k], b);
                }
            }
        }

        /**
         * After the parser, a validity slot a state set is nonzero only where that state set it:
         * what is written there is its band, which only grows in the states that follow.
         */
        private void afterParser(BitSet[] bands) {
            if (written == null) {
                return;
            }
            forgetParserCopies(written);
            for (int k = 0; k < guards.length; k++) {
                if (parserCopies && parserWritten.get(k)) {
                    resetBand(written, k, false);   // its band would rest on writes no later state undoes
                } else if (bands[k] != null) {
                    BitSet b = written.get(band(k), band(k) + space);
                    b.and(bands[k]);
                    written.clear(band(k), band(k) + space);
                    for (int i = b.nextSetBit(0); i >= 0; i = b.nextSetBit(i + 1)) {
                        written.set(band(k) + i);
                    }
                }
            }
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
                for (int x = (int) to[0]; x < to[0] + count; x++) {
                    written(w, x);
                }
            }
            if (!wide) {
                BitSet k = new BitSet();
                if (to == null) {
                    k = null;
                } else {
                    for (long x : to) {
                        guardsIn((int) x, count, k);
                    }
                }
                resetBands(w, k, !copy && to != null && to.length == 1);
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
                transfer(w, after, from[0], to[0], Math.min(from[1], to[1]));
                return after;
            }
            for (int x = to[0]; x < to[0] + to[1]; x++) {
                written(after, x);
            }
            BitSet k = new BitSet();
            guardsIn(to[0], to[1], k);
            resetBands(after, k, true);
            return after;
        }

        /**
         * An aggregate copy: each place written is written exactly where its source was, on
         * this path and where each validity slot is nonzero; a copied validity slot's band is
         * its source's. Nothing is read here: a later read of a copied place that is not
         * written reads its origin's value, which {@link #originsOf} tells.
         */
        private void transfer(BitSet w, BitSet after, int from, int to, int count) {
            for (int i = 0; i < count; i++) {
                readSomewhere.set(from + i);
                origins.computeIfAbsent(to + i, x -> new HashSet<>()).add(from + i);
                after.set(to + i, w.get(from + i));
                after.set(covered(to + i));
                for (int k = 0; k < guards.length; k++) {
                    after.set(band(k) + to + i, w.get(band(k) + from + i));
                }
            }
            for (int x = to; x < to + count && x < narrowSlots; x++) {
                Integer copied = guardOf.get(x);
                if (copied == null) {
                    continue;
                }
                Integer source = guardOf.get(x - to + from);
                if (source == null) {
                    resetBand(after, copied, false);
                } else {
                    BitSet b = after.get(band(source), band(source) + space);
                    after.clear(band(copied), band(copied) + space);
                    for (int i = b.nextSetBit(0); i >= 0; i = b.nextSetBit(i + 1)) {
                        after.set(band(copied) + i);
                    }
                    after.clear(untouchedFlag(copied));
                }
            }
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
            List<int[]> arms = guardedArms(text);
            for (Access a : accesses(text)) {
                if (target != null && a.start == target.start) {
                    continue;
                }
                BitSet seen = w;
                for (int[] arm : arms) {
                    if (arm[0] < a.start && a.start < arm[1]) {
                        seen = seen == w ? copy(w) : seen;
                        seen.or(w.get(band(arm[2]), band(arm[2]) + space));
                    }
                }
                long[] p = places(a.index, a.wide);
                if (p == null) {
                    readUnknown(seen, a.wide);
                } else {
                    for (long x : p) {
                        read((int) x, seen);
                    }
                }
            }
        }

        /**
         * A slot that is nonzero wherever condition {@code c} holds: {@code s->n[V]}, or a
         * conjunction that starts with it ({@code ((s->n[V]) ? (...) : (0)) != 0}); or -1.
         */
        private int impliedNonzero(String c) {
            String t = c.trim();
            while (t.startsWith("(") && matching(t, 0, '(', ')') == t.length() - 1) {
                t = t.substring(1, t.length() - 1).trim();
            }
            if (t.endsWith(" != 0")) {
                return impliedNonzero(t.substring(0, t.length() - 5));
            }
            Matcher m = Pattern.compile("^s->n\\[(\\d+)\\]$").matcher(t);
            if (m.matches()) {
                return Integer.parseInt(m.group(1));
            }
            m = GUARD.matcher(t);
            if (m.lookingAt() && m.group(1) != null) {
                int close = matching(t, m.end() - 1, '(', ')');
                if (close > 0 && t.substring(close + 1).trim().equals(": (0)")) {
                    return Integer.parseInt(m.group(1));
                }
            }
            return -1;
        }

        /** The then-arms of {@code (s->n[V]) ? (...)} in a line, V a guard: {start, end, band}. */
        private List<int[]> guardedArms(String text) {
            List<int[]> arms = new ArrayList<>();
            for (Matcher m = GUARD.matcher(text); m.find(); ) {
                Integer k = m.group(1) != null ? guardOf.get(Integer.parseInt(m.group(1))) : null;
                int open = m.end() - 1;
                int close = k == null ? -1 : matching(text, open, '(', ')');
                if (close > 0) {
                    arms.add(new int[] {open, close, k});
                }
            }
            return arms;
        }

        private void read(int place, BitSet w) {
            readSomewhere.set(place);
            if (!w.get(place) && w.get(covered(place))) {
                copiedUnwritten.set(place);   // what was copied in: its origins are zeroed
            } else if (!w.get(place)) {
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
