package org.nat64fabric.softswitch.pipeline;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A match-action table with its entries. Lookups pick a strategy from the match kinds: a hash
 * map for all-exact keys, one hash map per prefix length for one LPM field with exact others,
 * and a priority-ordered scan when ternary, range or optional fields are present.
 */
public final class Table {
    public enum MatchKind { EXACT, LPM, TERNARY, RANGE, OPTIONAL }

    /** A key field: the expression as written, its match kind and width. */
    public static final class KeyField {
        /**
         * Its P4Runtime match field ID: its place in the key as written, counting selector fields
         * (which are not match fields), as p4c numbers them.
         */
        public final int id;
        public final String name;
        public final MatchKind kind;
        public final int width;
        public final Expr expr;
        public final Map<String, List<String>> annotations;
        final int words;

        public KeyField(int id, String name, MatchKind kind, int width, Expr expr, Map<String, List<String>> annotations) {
            this.id = id;
            this.name = name;
            this.kind = kind;
            this.width = width;
            this.expr = expr;
            this.annotations = annotations;
            this.words = (width + 63) / 64;
        }
    }

    /** An action the table may run, with its P4Runtime scope. */
    public static final class ActionRef {
        public final Action action;
        public final boolean tableOnly;
        public final boolean defaultOnly;
        public final Map<String, List<String>> annotations;
        /**
         * With directional parameters bound in the table's actions list (P4_16 14.2.1.2): their
         * copy-in, the action's body and their copy-out; null for an action with none.
         */
        public final Stmt bound;

        public ActionRef(Action action, boolean tableOnly, boolean defaultOnly, Map<String, List<String>> annotations) {
            this(action, tableOnly, defaultOnly, annotations, null);
        }

        public ActionRef(Action action, boolean tableOnly, boolean defaultOnly, Map<String, List<String>> annotations,
                         Stmt bound) {
            this.action = action;
            this.tableOnly = tableOnly;
            this.defaultOnly = defaultOnly;
            this.annotations = annotations;
            this.bound = bound;
        }

        /** Runs the action with control-plane data (and its bound arguments). */
        int run(State s, ActionCall call) {
            call.setParams(s);
            return bound == null ? action.runBody(s) : bound.exec(s);
        }

        /** The action in C, its control-plane data already in place (see {@link CodeWriter}). */
        public void cRun(CodeWriter w) {
            if (bound == null) {
                action.cBody(w);
            } else {
                bound.c(w);
            }
        }
    }

    /**
     * An action with its arguments, as a table entry or default action holds it. Arguments that
     * fit in a long are kept as longs (arguments 0 to 3 in fields, any further in an array, as an
     * entry keeps its key words), those that do not as BigIntegers in an array shared among calls
     * with the same ones: a session entry's BigIntegers (an array, and an object and its magnitude
     * per argument) were a third of its objects, and its array of longs one more, each copied by
     * every young collection after a setup.
     */
    public static final class ActionCall {
        /**
         * Wide arguments made lately, by a hash of their values: the IPv6 address a session_v4
         * entry writes back is its subscriber's, so the subscriber's sessions share one array
         * holding one BigInteger rather than each keeping copies for the young collection to
         * copy. Racing threads only miss a share; the slots are read and written as volatiles, so
         * that a thread taking an array another thread made sees its elements (an array has no final
         * fields to publish them), and the arrays are never changed once made.
         */
        private static final AtomicReferenceArray<BigInteger[]> RECENT_WIDE = new AtomicReferenceArray<>(4096);

        public final Action action;
        private final int count;
        /** The narrow arguments 0 to 3 (0 for wide ones and past the count), and any further in {@link #narrowFrom4}. */
        private final long a0, a1, a2, a3;
        private final long[] narrowFrom4;
        /** Each argument that does not fit in 63 bits (its parameter in 64), at its index (null at the others); null when all fit. */
        private final BigInteger[] wide;

        public ActionCall(Action action, BigInteger[] args) {
            this.action = action;
            this.count = args.length;
            long[] n = new long[Math.max(args.length, 4)];
            BigInteger[] w = null;
            for (int i = 0; i < args.length; i++) {
                if (action.params.get(i).width <= 64 && args[i].bitLength() <= 63) {
                    n[i] = args[i].longValue();
                } else {
                    w = w != null ? w : new BigInteger[args.length];
                    w[i] = args[i];
                }
            }
            this.a0 = n[0];
            this.a1 = n[1];
            this.a2 = n[2];
            this.a3 = n[3];
            this.narrowFrom4 = args.length > 4 ? Arrays.copyOfRange(n, 4, args.length) : null;
            this.wide = w == null ? null : shared(w);
        }

        private static BigInteger[] shared(BigInteger[] w) {
            int slot = (Arrays.hashCode(w) * 0x9E3779B9) >>> 20;
            BigInteger[] held = RECENT_WIDE.get(slot);
            if (Arrays.equals(w, held)) {
                return held;
            }
            RECENT_WIDE.set(slot, w);
            return w;
        }

        public int argCount() {
            return count;
        }

        /** Argument {@code i} as a long; 0 for one kept as a BigInteger ({@link #wide(int)}). */
        long narrow(int i) {
            switch (i) {
                case 0: return a0;
                case 1: return a1;
                case 2: return a2;
                case 3: return a3;
                default: return narrowFrom4[i - 4];
            }
        }

        /** Argument {@code i} when it does not fit in a long, else null. */
        BigInteger wide(int i) {
            return wide == null ? null : wide[i];
        }

        boolean hasWide() {
            return wide != null;
        }

        /** Argument {@code i}, as written. */
        public BigInteger arg(int i) {
            BigInteger w = wide(i);
            return w != null ? w : BigInteger.valueOf(narrow(i));
        }

        /** All arguments, as written (a new array). */
        public BigInteger[] args() {
            BigInteger[] all = new BigInteger[count];
            for (int i = 0; i < all.length; i++) {
                all[i] = arg(i);
            }
            return all;
        }

        /** Puts the arguments in the action's parameter slots. */
        void setParams(State s) {
            action.setParams(s, this);
        }
    }

    /** One field's match: value and mask for exact/ternary/lpm/optional, or low/high for range. */
    public static final class FieldMatch {
        public final BigInteger value;
        public final BigInteger mask;     // all ones for exact; null when the field is a wildcard
        public final BigInteger high;     // range only
        public final int prefixLength;    // lpm only

        private FieldMatch(BigInteger value, BigInteger mask, BigInteger high, int prefixLength) {
            this.value = value;
            this.mask = mask;
            this.high = high;
            this.prefixLength = prefixLength;
        }

        public static FieldMatch exact(BigInteger v, int width) {
            return new FieldMatch(v, Bits.wideMask(width), null, width);
        }

        public static FieldMatch ternary(BigInteger v, BigInteger mask) {
            return new FieldMatch(v.and(mask), mask, null, -1);
        }

        public static FieldMatch lpm(BigInteger v, int prefixLength, int width) {
            BigInteger mask = Bits.wideMask(prefixLength).shiftLeft(width - prefixLength);
            return new FieldMatch(v.and(mask), mask, null, prefixLength);
        }

        public static FieldMatch range(BigInteger low, BigInteger high) {
            return new FieldMatch(low, null, high, -1);
        }

        /** Matches anything: an omitted ternary, optional, range or lpm field. */
        public static FieldMatch wildcard() {
            return new FieldMatch(BigInteger.ZERO, BigInteger.ZERO, null, 0);
        }

        public boolean isWildcard() {
            return high == null && mask != null && mask.signum() == 0;
        }

        boolean matches(long[] key, int from, int words) {
            if (high != null) {
                BigInteger k = toBig(key, from, words);
                return k.compareTo(value) >= 0 && k.compareTo(high) <= 0;
            }
            for (int i = 0; i < words; i++) {
                int shift = 64 * (words - 1 - i);
                long m = mask.shiftRight(shift).longValue();
                long v = value.shiftRight(shift).longValue();
                if ((key[from + i] & m) != v) {
                    return false;
                }
            }
            return true;
        }

        @Override public boolean equals(Object o) {
            if (!(o instanceof FieldMatch)) {
                return false;
            }
            FieldMatch f = (FieldMatch) o;
            return value.equals(f.value) && java.util.Objects.equals(mask, f.mask)
                    && java.util.Objects.equals(high, f.high) && prefixLength == f.prefixLength;
        }

        @Override public int hashCode() {
            return (int) Bits.mix(value.hashCode() * 0x9E3779B97F4A7C15L + prefixLength);
        }
    }

    /**
     * A copy of the table kept elsewhere (the kernel fast path): told of every change, and adding
     * what it counts to what the interpreter counts.
     */
    public interface Mirror {
        /** An entry inserted, or its action changed. */
        void put(Table t, Entry e);

        void remove(Table t, Entry e);

        void defaultAction(Table t, ActionCall call);

        /** Packets and bytes of the entry's direct counter counted by the mirror. */
        long[] counts(Table t, Entry e);

        void resetCounts(Table t, Entry e);

        /** When the mirror last hit the entry (System.nanoTime()), or Long.MIN_VALUE. */
        long lastHit(Table t, Entry e);
    }

    private volatile Mirror mirror;

    /** The metadata of entries that have none, shared (a million sessions would hold a million). */
    public static final byte[] NO_METADATA = new byte[0];

    /**
     * A table entry: its match, priority, action, and what the data plane records about it. An
     * exact-only table keeps its entries by their key words alone and makes the match again when
     * asked ({@link #match()}): the fields' matches and their BigIntegers took half of a session
     * entry's heap, and every young collection after a setup copied them.
     */
    public static final class Entry {
        /** The match as written; null once an exact-only table holds the entry by its key. */
        private volatile FieldMatch[] match;
        /**
         * The entry's key words in its hashed table (an LPM field's masked): up to four in fields
         * (a session's key is three or four), more in {@link #longKey}. An array per entry was one
         * more object for each young collection to copy after a setup.
         */
        private long k0, k1, k2, k3;
        private long[] longKey;
        /** The key words' hash, and the table that indexes the entry by them (null before). */
        int keyHash;
        private Table table;
        public final int priority;
        public volatile ActionCall action;
        /** Given by the program as 'const' in a table's 'entries' (P4_16 14.2.1.4): the control plane may not change it. */
        public boolean constant;
        /** In a table with an action profile, the member or group the entry runs (action is null). */
        public volatile ActionProfile.Target indirect;
        /** Changed by a MODIFY (P4Runtime 9.1: the idle timeout is part of what MODIFY sets). */
        public volatile long idleTimeoutNs;
        public volatile long lastHitNanos;
        public long packets;
        public long bytes;
        public byte[] metadata = NO_METADATA;
        /** When the idle-timeout check looks at this entry next (tables with support_timeout), or NO_IDLE_CHECK. */
        long nextIdleCheck = NO_IDLE_CHECK;
        /** The entry's direct meter; null while unconfigured (every packet GREEN). */
        public volatile TwoRateMarker meter;
        /** Packets and bytes its direct meter marked, by colour (P4Runtime 1.4 MeterCounterData); null before the first. */
        public long[] colourCounts;
        /** The entry's number in a mirror, which it assigns. */
        public int mirrorId = -1;

        public Entry(FieldMatch[] match, int priority, ActionCall action, long idleTimeoutNs) {
            this.match = match;
            this.priority = priority;
            this.action = action;
            this.idleTimeoutNs = idleTimeoutNs;
            this.lastHitNanos = System.nanoTime();
        }

        /** The entry's match, field by field in the table's key order. */
        public FieldMatch[] match() {
            FieldMatch[] m = match;
            return m != null ? m : table.matchOf(keyWords());
        }

        /** Keeps {@code words} as the entry's key words, and their hash. */
        void setKey(long[] words) {
            if (words.length > 4) {
                longKey = words;
            } else {
                longKey = null;
                int n = words.length;
                k0 = n > 0 ? words[0] : 0;
                k1 = n > 1 ? words[1] : 0;
                k2 = n > 2 ? words[2] : 0;
                k3 = n > 3 ? words[3] : 0;
            }
            keyHash = EntryIndex.hash(words);
        }

        /** Whether the entry's key words are {@code words} (a key of its table, as long as its own). */
        boolean hasKey(long[] words) {
            if (longKey != null) {
                return Arrays.equals(longKey, words);
            }
            int n = words.length;
            return (n < 1 || words[0] == k0) && (n < 2 || words[1] == k1)
                    && (n < 3 || words[2] == k2) && (n < 4 || words[3] == k3);
        }

        /** The entry's key words in its table (a new array). */
        private long[] keyWords() {
            if (longKey != null) {
                return longKey.clone();
            }
            return Arrays.copyOf(new long[] {k0, k1, k2, k3}, table.keyWords);
        }

        /** Indexed by its key words in {@code t} from now on; in an exact-only table the match written is let go. */
        private void indexedBy(Table t, long[] words, boolean dropMatch) {
            setKey(words);
            table = t;
            if (dropMatch) {
                match = null;   // volatile: a reader that sees null sees the key words and the table
            }
        }

        /** Same match and priority: the identity of an entry in P4Runtime. */
        public boolean sameKey(Entry o) {
            return priority == o.priority && Arrays.equals(match(), o.match());
        }
    }

    /** An entry's identity (match and priority) as a hash key. */
    private static final class Identity {
        final Entry entry;

        Identity(Entry entry) {
            this.entry = entry;
        }

        @Override public int hashCode() {
            long h = entry.priority;
            for (FieldMatch m : entry.match()) {
                h = Bits.mix(h ^ m.hashCode());
            }
            return (int) h;
        }
        @Override public boolean equals(Object o) { return o instanceof Identity && entry.sameKey(((Identity) o).entry); }
    }

    public final String name;
    public final Map<String, List<String>> annotations;
    public final List<KeyField> keys;
    public final List<ActionRef> actions;
    /** The actions of {@link #actions}, for the search of each packet's action index. */
    private final Action[] actionArray;
    public final int size;
    public final boolean supportTimeout;
    public final boolean constEntries;
    /** Whether the program gives the table entries, const or not (P4Info's has_initial_entries). */
    public final boolean initialEntries;
    public final boolean constDefaultAction;
    /** Name of the direct counter attached with the 'counters' property, or null. */
    public final String directCounter;
    /** Its CounterType: 0 packets, 1 bytes, 2 packets and bytes. */
    public final int directCounterUnit;
    /** Name of the direct meter attached with the 'meters' property, or null. */
    public final String directMeter;
    /** Its MeterType: 0 packets, 1 bytes. */
    public final int directMeterUnit;
    private ActionCall defaultAction;
    private final ActionCall initialDefault;
    /**
     * The default entry's direct counter and meter: P4Runtime 9.1.5 treats the default entry like a
     * regular one with regard to direct resources, so a miss is counted and metered here.
     */
    public final Entry defaultEntry = new Entry(null, 0, null, 0);
    /** The table's implementation (an action profile or selector), or null for a direct table. */
    private ActionProfile profile;
    /** The hash over the selector fields, with a selector. */
    private ActionProfile.SelectorHash selectorHash;

    private final int[] keyOffsets;
    private final int keyWords;
    private final long[] probeWords;      // the packet's key words, reused for every lookup
    private final long[] lpmValue;        // the packet's LPM field while prefixes are tried
    private final int lpmField;           // index of the LPM field, -1 if none
    private final boolean hashed;         // exact or exact+single-LPM
    /** All key fields exact: the key words identify an entry, and exactIndex alone holds them. */
    private final boolean exactOnly;
    /** The entries of other tables by match and priority, in insertion order. */
    private final Map<Identity, Entry> byIdentity = new LinkedHashMap<>();
    /**
     * The entries of an exact-only table by key; sized for the table's declared size, so that
     * filling it never rehashes a million entries under the pipeline's lock (the slots are
     * allocated at the first insert: 8 MiB for a million-entry table).
     */
    private final EntryIndex exactIndex;
    private final TreeMap<Integer, EntryIndex> lpmIndex = new TreeMap<>(Collections.reverseOrder());
    /** lpmIndex flattened, longest prefix first, for lookups without iterator allocation. */
    private int[] lpmLengths = new int[0];
    private EntryIndex[] lpmMaps = new EntryIndex[0];
    private Entry[] scanOrder = new Entry[0];
    /**
     * Entries with an idle timeout, by the tick of their next check, soonest first: the idle check
     * looks only at the entries due, not at every entry every time (a million sessions made that a
     * full-time job). A tick holds a list, so an entry costs a slot in it, not an object (the
     * switch's idle scan runs every 100 ms anyway). Deleted entries and superseded checks (the
     * entry was rescheduled to another tick) leave when their tick comes.
     */
    private final TreeMap<Long, List<Entry>> idleChecks = new TreeMap<>();
    private static final long IDLE_TICK_NS = 50_000_000L;
    /** An entry's next idle check when none is pending: in no tick a clock reading gives. */
    private static final long NO_IDLE_CHECK = Long.MIN_VALUE;
    private long missPackets;

    public Table(String name, Map<String, List<String>> annotations, List<KeyField> keys, List<ActionRef> actions,
                 int size, boolean supportTimeout, boolean constEntries, boolean initialEntries, boolean constDefaultAction,
                 String directCounter, int directCounterUnit, String directMeter, int directMeterUnit,
                 ActionCall defaultAction) {
        this.name = name;
        this.annotations = annotations;
        this.keys = keys;
        this.actions = actions;
        this.actionArray = actions.stream().map(r -> r.action).toArray(Action[]::new);
        this.size = size;
        this.supportTimeout = supportTimeout;
        this.constEntries = constEntries;
        this.initialEntries = initialEntries;
        this.constDefaultAction = constDefaultAction;
        this.directCounter = directCounter;
        this.directCounterUnit = directCounterUnit;
        this.directMeter = directMeter;
        this.directMeterUnit = directMeterUnit;
        this.defaultAction = defaultAction;
        this.initialDefault = defaultAction;
        this.keyOffsets = new int[keys.size()];
        int words = 0;
        int lpm = -1;
        boolean onlyExactOrLpm = true;
        int lpmCount = 0;
        for (int i = 0; i < keys.size(); i++) {
            keyOffsets[i] = words;
            words += keys.get(i).words;
            MatchKind k = keys.get(i).kind;
            if (k == MatchKind.LPM) {
                lpm = i;
                lpmCount++;
            } else if (k != MatchKind.EXACT) {
                onlyExactOrLpm = false;
            }
        }
        this.keyWords = words;
        this.probeWords = new long[words];
        this.lpmField = lpm;
        this.lpmValue = new long[lpm < 0 ? 0 : keys.get(lpm).words];
        this.hashed = onlyExactOrLpm && lpmCount <= 1 && !keys.isEmpty();
        this.exactOnly = hashed && lpm < 0;
        this.exactIndex = exactOnly ? new EntryIndex(size) : null;
    }

    /**
     * Makes the table indirect: its entries point to members or groups of {@code p} (the
     * frontend calls this once, before any entry exists); {@code hash} hashes the selector fields.
     */
    public void implementation(ActionProfile p, ActionProfile.SelectorHash hash) {
        this.profile = p;
        this.selectorHash = hash;
    }

    /** The action profile or selector of an indirect table, or null. */
    public ActionProfile profile() {
        return profile;
    }

    /** The index in {@link #keys} of the field with this P4Runtime ID, or -1. */
    public int keyIndex(int id) {
        for (int i = 0; i < keys.size(); i++) {
            if (keys.get(i).id == id) {
                return i;
            }
        }
        return -1;
    }

    /** Whether entries need a priority (P4Runtime: ternary, range or optional fields present). */
    public boolean needsPriority() {
        for (KeyField k : keys) {
            if (k.kind == MatchKind.TERNARY || k.kind == MatchKind.RANGE || k.kind == MatchKind.OPTIONAL) {
                return true;
            }
        }
        return false;
    }

    // ---- data plane ----

    /** Looks the packet up, runs the chosen action; returns the entry hit, or null on a miss. */
    public Entry apply(State s, int packetLength) {
        for (int i = 0; i < keys.size(); i++) {
            KeyField k = keys.get(i);
            if (k.words == 1) {
                probeWords[keyOffsets[i]] = k.expr.eval(s);
            } else {
                putWideKey(s, k.expr.evalWide(s), i);
            }
        }
        return applyKey(s, packetLength);
    }

    /** The words the packet's key is looked up by (code compiled from the program fills them). */
    public long[] probe() {
        return probeWords;
    }

    /** Where key field {@code i}'s words start in {@link #probe()}. */
    public int keyOffset(int i) {
        return keyOffsets[i];
    }

    /** Puts the value of key field {@code i}, one wider than 64 bits, into the probe. */
    public void putWideKey(State s, BigInteger v, int i) {
        KeyField k = keys.get(i);
        int at = keyOffsets[i];
        for (int wd = 0; wd < k.words; wd++) {
            int lo = 64 * (k.words - 1 - wd);
            probeWords[at + wd] = s.sliceOf(v, lo, 64);
        }
    }

    /** As {@link #apply}, the key's words already in {@link #probe()}. */
    public Entry applyKey(State s, int packetLength) {
        Entry e = lookup();
        // An entry pointing to an empty group has no action: the packet misses (the default action runs).
        ActionCall call = e == null ? null : e.indirect == null ? e.action : e.indirect.choose(s, selectorHash);
        if (call != null) {
            long now = supportTimeout || directMeter != null ? System.nanoTime() : 0;
            if (supportTimeout) {
                e.lastHitNanos = now;
            }
            if (directCounter != null) {
                e.packets++;
                e.bytes += packetLength;
            }
            if (directMeter != null) {
                s.directMeterColor = meterAndCount(e, packetLength, now);
            }
        } else {
            e = null;
            missPackets++;
            call = defaultAction;
            Entry d = defaultEntry;
            if (directCounter != null) {
                d.packets++;
                d.bytes += packetLength;
            }
            s.directMeterColor = directMeter == null ? TwoRateMarker.GREEN
                    : meterAndCount(d, packetLength, d.meter == null ? 0 : System.nanoTime());
        }
        int index = indexOf(call.action);
        s.lastActionIndex = index;
        s.lastHit = e != null;
        if (actions.get(index).run(s, call) == Stmt.EXIT) {
            s.exiting = true;
        }
        return e;
    }

    /** The colour the entry's direct meter gives the packet, counted by colour. */
    private int meterAndCount(Entry e, int packetLength, long now) {
        int color = TwoRateMarker.colorOf(e.meter, directMeterUnit, packetLength, now);
        if (e.colourCounts == null) {
            e.colourCounts = new long[TwoRateMarker.COUNTS_PER_CELL];
        }
        TwoRateMarker.count(e.colourCounts, 0, color, packetLength);
        return color;
    }

    private int indexOf(Action a) {
        Action[] all = actionArray;
        for (int i = 0; i < all.length; i++) {
            if (all[i] == a) {
                return i;
            }
        }
        return -1;
    }

    private Entry lookup() {
        if (keys.isEmpty()) {
            return null;
        }
        if (hashed) {
            if (lpmField < 0) {
                return exactIndex.get(probeWords, EntryIndex.hash(probeWords));
            }
            KeyField k = keys.get(lpmField);
            int at = keyOffsets[lpmField];
            System.arraycopy(probeWords, at, lpmValue, 0, k.words);
            int[] lengths = lpmLengths;
            EntryIndex[] maps = lpmMaps;
            for (int i = 0; i < lengths.length; i++) {
                maskPrefix(probeWords, at, k.words, k.width, lengths[i], lpmValue);
                Entry e = maps[i].get(probeWords, EntryIndex.hash(probeWords));
                if (e != null) {
                    return e;
                }
            }
            return null;
        }
        for (Entry e : scanOrder) {
            if (matches(e)) {
                return e;
            }
        }
        return null;
    }

    private boolean matches(Entry e) {
        FieldMatch[] match = e.match;   // a scanned table's entries keep theirs
        for (int i = 0; i < keys.size(); i++) {
            if (!match[i].matches(probeWords, keyOffsets[i], keys.get(i).words)) {
                return false;
            }
        }
        return true;
    }

    /** Writes into words[at..] the first prefixLength bits of src (a field of width bits). */
    private static void maskPrefix(long[] words, int at, int nWords, int width, int prefixLength, long[] src) {
        int lowBits = width - prefixLength;   // bits to clear, counted from the least significant
        for (int i = nWords - 1; i >= 0; i--) {
            long v = src[i];
            if (lowBits >= 64) {
                v = 0;
                lowBits -= 64;
            } else if (lowBits > 0) {
                v &= -1L << lowBits;
                lowBits = 0;
            }
            words[at + i] = v;
        }
    }

    // ---- control plane ----

    public synchronized List<Entry> entries() {
        return exactOnly ? exactIndex.entries() : new ArrayList<>(byIdentity.values());
    }

    /** Whether the default action is constant: declared const, or an indirect table's NoAction (P4Runtime 9.1.5). */
    public boolean defaultActionIsConst() {
        return constDefaultAction || profile() != null;
    }

    /** Whether the control plane may not change e (its direct resources aside): the table's entries are const, or e is. */
    public boolean isConst(Entry e) {
        return constEntries || e.constant;
    }

    public ActionCall defaultAction() {
        return defaultAction;
    }

    public ActionCall initialDefaultAction() {
        return initialDefault;
    }

    public void setDefaultAction(ActionCall call) {
        this.defaultAction = call;
        Mirror m = mirror;
        if (m != null) {
            m.defaultAction(this, call);
        }
    }

    /** Starts mirroring the table: its default action and entries are given to {@code m} first. */
    public synchronized void mirrorTo(Mirror m) {
        mirror = m;
        for (Entry e : entries()) {
            e.mirrorId = -1;   // ids are a mirror's own: a new one (or none) numbers the entries afresh
        }
        if (m != null) {
            m.defaultAction(this, defaultAction);
            for (Entry e : entries()) {
                m.put(this, e);
            }
        }
    }

    /** A MODIFY: the entry's new action. */
    public void modify(Entry e, ActionCall call) {
        e.action = call;
        Mirror m = mirror;
        if (m != null) {
            m.put(this, e);
        }
    }

    /** The entry's direct counter, {packets, bytes}, wherever it was counted. */
    public long[] counts(Entry e) {
        Mirror m = mirror;
        long[] more = m == null ? null : m.counts(this, e);
        return more == null ? new long[] {e.packets, e.bytes} : new long[] {e.packets + more[0], e.bytes + more[1]};
    }

    public void setCounts(Entry e, long packets, long bytes) {
        Mirror m = mirror;
        if (m != null) {
            m.resetCounts(this, e);
        }
        e.packets = packets;
        e.bytes = bytes;
    }

    /** When the entry was last hit, wherever (System.nanoTime()). */
    public long lastHit(Entry e) {
        Mirror m = mirror;
        long other = m == null ? Long.MIN_VALUE : m.lastHit(this, e);
        return other != Long.MIN_VALUE && other - e.lastHitNanos > 0 ? other : e.lastHitNanos;
    }

    public long missPackets() {
        return missPackets;
    }

    public Entry find(Entry like) {
        if (exactOnly) {
            long[] words = keyWordsOf(like);
            Entry e = exactIndex.get(words, EntryIndex.hash(words));
            return e != null && e.priority == like.priority ? e : null;
        }
        return byIdentity.get(new Identity(like));
    }

    /** Adds an entry; the caller has checked it is well formed and not a duplicate. */
    public void insert(Entry e) {
        if (supportTimeout && e.idleTimeoutNs > 0) {
            scheduleIdleCheck(e, e.lastHitNanos + e.idleTimeoutNs);
        }
        if (!exactOnly) {
            byIdentity.put(new Identity(e), e);
        }
        if (hashed) {
            e.indexedBy(this, keyWordsOf(e), exactOnly);
            indexFor(e).add(e);
            flattenLpm();
        } else {
            rebuildScan();
        }
        Mirror m = mirror;
        if (m != null) {
            m.put(this, e);
        }
    }

    public boolean remove(Entry like) {
        Entry e = find(like);
        if (e == null) {
            return false;
        }
        if (!exactOnly) {
            byIdentity.remove(new Identity(e));
        }
        if (hashed) {
            indexFor(e).remove(e);
            if (lpmField >= 0 && indexFor(e).isEmpty()) {
                lpmIndex.remove(e.match()[lpmField].prefixLength);
            }
            flattenLpm();
        } else {
            rebuildScan();
        }
        Mirror m = mirror;
        if (m != null) {
            m.remove(this, e);
        }
        return true;
    }

    /** Removes and returns the entries whose idle check is due at {@code now}, some possibly deleted since. */
    public List<Entry> takeIdleChecksDue(long now) {
        List<Entry> due = new ArrayList<>();
        long nowTick = Math.floorDiv(now, IDLE_TICK_NS);
        List<Entry> notYet = null;
        while (!idleChecks.isEmpty() && idleChecks.firstKey() <= nowTick) {
            Map.Entry<Long, List<Entry>> tick = idleChecks.pollFirstEntry();
            for (Entry e : tick.getValue()) {
                if (Math.floorDiv(e.nextIdleCheck, IDLE_TICK_NS) != tick.getKey()) {
                    continue;   // taken already, or rescheduled to another tick
                }
                if (e.nextIdleCheck - now > 0) {
                    if (notYet == null) {
                        notYet = new ArrayList<>();
                    }
                    notYet.add(e);   // later in this tick
                } else {
                    e.nextIdleCheck = NO_IDLE_CHECK;
                    if (e.idleTimeoutNs > 0) {
                        due.add(e);
                    }
                }
            }
        }
        if (notYet != null) {
            idleChecks.put(nowTick, notYet);
        }
        return due;
    }

    /** Checks an installed entry for idleness at {@code at} (System.nanoTime()), instead of when planned before. */
    public void scheduleIdleCheck(Entry e, long at) {
        long tick = Math.floorDiv(at, IDLE_TICK_NS);
        boolean listed = Math.floorDiv(e.nextIdleCheck, IDLE_TICK_NS) == tick;
        e.nextIdleCheck = at;
        if (!listed) {
            idleChecks.computeIfAbsent(tick, t -> new ArrayList<>()).add(e);
        }
    }

    /** A MODIFY's new idle timeout: the entry is checked when the new one says, from its last hit. */
    public void setIdleTimeout(Entry e, long idleTimeoutNs) {
        if (e.idleTimeoutNs == idleTimeoutNs) {
            return;
        }
        e.idleTimeoutNs = idleTimeoutNs;
        if (supportTimeout && idleTimeoutNs > 0) {
            scheduleIdleCheck(e, e.lastHitNanos + idleTimeoutNs);
        }
    }

    private void flattenLpm() {
        if (lpmLengths.length == lpmIndex.size()) {
            return;   // same prefix lengths: the maps themselves were updated in place
        }
        int[] lengths = new int[lpmIndex.size()];
        EntryIndex[] maps = new EntryIndex[lengths.length];
        int i = 0;
        for (Map.Entry<Integer, EntryIndex> e : lpmIndex.entrySet()) {
            lengths[i] = e.getKey();
            maps[i++] = e.getValue();
        }
        lpmMaps = maps;
        lpmLengths = lengths;
    }

    public int entryCount() {
        return exactOnly ? exactIndex.size() : byIdentity.size();
    }

    private EntryIndex indexFor(Entry e) {
        return lpmField < 0 ? exactIndex
                : lpmIndex.computeIfAbsent(e.match()[lpmField].prefixLength, l -> new EntryIndex(0));
    }

    /** The entry's key words here: its own once indexed, else made from its match (an LPM field masked as written). */
    private long[] keyWordsOf(Entry e) {
        if (e.table == this) {
            return e.keyWords();
        }
        FieldMatch[] match = e.match();
        long[] w = new long[keyWords];
        for (int i = 0; i < keys.size(); i++) {
            KeyField k = keys.get(i);
            for (int wd = 0; wd < k.words; wd++) {
                w[keyOffsets[i] + wd] = match[i].value.shiftRight(64 * (k.words - 1 - wd)).longValue();
            }
        }
        return w;
    }

    /** The exact match of each key field, from an entry's key words. */
    private FieldMatch[] matchOf(long[] words) {
        FieldMatch[] m = new FieldMatch[keys.size()];
        for (int i = 0; i < m.length; i++) {
            KeyField k = keys.get(i);
            m[i] = FieldMatch.exact(toBig(words, keyOffsets[i], k.words), k.width);
        }
        return m;
    }

    private void rebuildScan() {
        Entry[] order = byIdentity.values().toArray(new Entry[0]);
        // Highest priority first; equal priorities keep insertion order (stable sort).
        Arrays.sort(order, Comparator.comparingInt((Entry e) -> e.priority).reversed());
        scanOrder = order;
    }

    static BigInteger toBig(long[] key, int from, int words) {
        BigInteger v = BigInteger.ZERO;
        for (int i = 0; i < words; i++) {
            v = v.shiftLeft(64).or(Bits.unsigned(key[from + i]));
        }
        return v;
    }
}
