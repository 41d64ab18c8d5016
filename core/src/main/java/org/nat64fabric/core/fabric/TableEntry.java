package org.nat64fabric.core.fabric;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A table entry as the controller wants it on a switch, independent of ONOS or gRPC: names from
 * P4InfoConstants, values as unsigned integers of up to 128 bits (P4Runtime's canonical byte
 * strings). A default entry has no match. {@code idleTimeoutSeconds} 0 means the entry does not age.
 *
 * <p>The controller holds two of these per BIB entry for as long as the entry lives (hundreds of
 * thousands), so values are kept as longs in one array per entry, and the names of the match
 * fields and parameters in arrays shared by every entry that has the same ones: a BigInteger with
 * its array, a map entry per parameter and an object per match took four times the room, and
 * every young collection copied it.
 */
public final class TableEntry implements Entity {
    /** One match field: exact (prefixLength -1) or LPM. */
    public static final class Match {
        public final String field;
        private final long high;
        private final long low;
        public final int prefixLength;

        Match(String field, long high, long low, int prefixLength) {
            this.field = field;
            this.high = high;
            this.low = low;
            this.prefixLength = prefixLength;
        }

        public BigInteger value() {
            return big(high, low);
        }

        /** The value as P4Runtime's canonical byte string (big-endian, no leading zero bytes). */
        public byte[] bytes() {
            return canonical(high, low);
        }

        public boolean isLpm() {
            return prefixLength >= 0;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Match && ((Match) o).field.equals(field) && ((Match) o).high == high
                    && ((Match) o).low == low && ((Match) o).prefixLength == prefixLength;
        }

        @Override
        public int hashCode() {
            return ((field.hashCode() * 31 + Long.hashCode(high)) * 31 + Long.hashCode(low)) * 31 + prefixLength;
        }

        @Override
        public String toString() {
            return appendTo(new StringBuilder()).toString();
        }

        private StringBuilder appendTo(StringBuilder s) {
            appendHex(s.append(field).append('='), high, low);
            return isLpm() ? s.append('/').append(prefixLength) : s;
        }
    }

    /** Name arrays by their content: entries with the same fields or parameters share one. */
    private static final Map<List<String>, String[]> SHARED_NAMES = new ConcurrentHashMap<>();

    private final String table;
    private final String[] matchFields;
    private final String action;
    private final String[] paramNames;
    /**
     * Per match, its value's high and low 64 bits and its prefix length (-1: exact); then per
     * parameter, its value's high and low 64 bits. One array: the controller holds two entries
     * per session, and each array is one more object for every young collection to copy.
     */
    private final long[] values;
    private final long idleTimeoutSeconds;
    private Key key;   // made once: entries are looked up by key at every setup

    private TableEntry(Builder b) {
        this.table = b.table;
        this.matchFields = shared(b.matchFields);
        this.action = b.action;
        this.paramNames = shared(b.paramNames);
        this.values = Arrays.copyOf(b.matchValues, 3 * matchFields.length + 2 * paramNames.length);
        System.arraycopy(b.paramValues, 0, values, 3 * matchFields.length, 2 * paramNames.length);
        this.idleTimeoutSeconds = b.idleTimeoutSeconds;
    }

    public static Builder in(String table) {
        return new Builder(table);
    }

    public String table() {
        return table;
    }

    /** The matches, made for the caller from the entry's arrays. */
    public List<Match> matches() {
        List<Match> out = new ArrayList<>(matchFields.length);
        for (int i = 0; i < matchFields.length; i++) {
            out.add(match(i));
        }
        return Collections.unmodifiableList(out);
    }

    public int matchCount() {
        return matchFields.length;
    }

    /** Match {@code i} (from 0, below {@link #matchCount}; the order they were given in): encoders take them one at a time. */
    public Match match(int i) {
        return new Match(matchFields[i], values[3 * i], values[3 * i + 1], (int) values[3 * i + 2]);
    }

    /** The high (0) or low (1) 64 bits of parameter {@code i}. */
    private long param(int i, int half) {
        return values[3 * matchFields.length + 2 * i + half];
    }

    private boolean sameMatch(TableEntry e) {
        int n = 3 * matchFields.length;
        return e.table.equals(table) && Arrays.equals(e.matchFields, matchFields) && Arrays.equals(e.values, 0, n, values, 0, n);
    }

    private int matchHash() {
        int h = table.hashCode();
        for (int i = 0; i < 3 * matchFields.length; i++) {
            h = 31 * h + Long.hashCode(values[i]);
        }
        return h;
    }

    public boolean isDefault() {
        return matchFields.length == 0;
    }

    public String action() {
        return action;
    }

    /** The action's parameters by name, in the order they were given. */
    public Map<String, BigInteger> params() {
        Map<String, BigInteger> out = new LinkedHashMap<>();
        for (int i = 0; i < paramNames.length; i++) {
            out.put(paramNames[i], big(param(i, 0), param(i, 1)));
        }
        return Collections.unmodifiableMap(out);
    }

    /** The parameter's value as P4Runtime's canonical byte string, or null when the entry has none of that name. */
    public byte[] paramBytes(String name) {
        int i = paramIndex(name);
        return i < 0 ? null : canonical(param(i, 0), param(i, 1));
    }

    public long idleTimeoutSeconds() {
        return idleTimeoutSeconds;
    }

    /**
     * What identifies the entry in its table (P4Runtime: the match); the rest may be modified.
     * Compared by the entry's arrays: the controller keeps one per entry on each switch it
     * writes, and a string of the match took some 140 bytes more per entry.
     */
    @Override
    public Object key() {
        Key k = key;
        if (k == null) {
            k = new Key(this);
            key = k;
        }
        return k;
    }

    /** An entry's table and match; its text is the table's name and the match fields' values in hex. */
    private static final class Key {
        private final TableEntry entry;

        Key(TableEntry entry) {
            this.entry = entry;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Key)) {
                return false;
            }
            return ((Key) o).entry.sameMatch(entry);
        }

        @Override
        public int hashCode() {
            return entry.matchHash();
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder(entry.table);
            if (entry.isDefault()) {
                return b.append(" default").toString();
            }
            for (int i = 0; i < entry.matchFields.length; i++) {
                entry.match(i).appendTo(b.append(i == 0 ? " [" : ", "));
            }
            return b.append(']').toString();
        }
    }

    /** A default entry exists from the pipeline's start: P4Runtime only modifies it. */
    @Override
    public boolean alwaysPresent() {
        return isDefault();
    }

    /** Reads list no default entries (P4Runtime returns them only when asked for one table's). */
    @Override
    public boolean readable() {
        return !isDefault();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TableEntry)) {
            return false;
        }
        TableEntry e = (TableEntry) o;
        return sameMatch(e) && Objects.equals(e.action, action)
                && sameParams(e) && e.idleTimeoutSeconds == idleTimeoutSeconds;
    }

    /** The same parameters by name, in any order (an entry read back lists them in the P4Info's). */
    private boolean sameParams(TableEntry e) {
        if (e.paramNames.length != paramNames.length) {
            return false;
        }
        for (int i = 0; i < paramNames.length; i++) {
            int j = e.paramIndex(paramNames[i]);
            if (j < 0 || e.param(j, 0) != param(i, 0) || e.param(j, 1) != param(i, 1)) {
                return false;
            }
        }
        return true;
    }

    private int paramIndex(String name) {
        for (int i = 0; i < paramNames.length; i++) {
            if (paramNames[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public int hashCode() {
        int params = 0;   // a sum: the same whatever the parameters' order
        for (int i = 0; i < paramNames.length; i++) {
            params += paramNames[i].hashCode() ^ Long.hashCode(param(i, 0)) ^ Long.hashCode(param(i, 1));
        }
        return ((matchHash() * 31 + Objects.hashCode(action)) * 31 + params) * 31
                + Long.hashCode(idleTimeoutSeconds);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(key().toString()).append(" -> ").append(action).append('(');
        for (int i = 0; i < paramNames.length; i++) {
            appendHex(s.append(i == 0 ? "" : " ").append(paramNames[i]).append('='), param(i, 0), param(i, 1));
        }
        return s + ")" + (idleTimeoutSeconds > 0 ? " idle " + idleTimeoutSeconds + " s" : "");
    }

    private static String[] shared(List<String> names) {
        String[] held = SHARED_NAMES.get(names);
        if (held == null) {
            held = names.toArray(new String[0]);
            // a handful: one per table and action; an ArrayList, as the builders' are, so that
            // equals compares the two without an iterator
            SHARED_NAMES.putIfAbsent(new ArrayList<>(names), held);
        }
        return held;
    }

    /** The bits of {@code v} above the low 64; refuses what is negative or wider than 128 bits. */
    private static long high(BigInteger v) {
        if (v.signum() < 0 || v.bitLength() > 128) {
            throw new IllegalArgumentException("a table entry's value is unsigned and at most 128 bits wide: " + v);
        }
        return v.shiftRight(64).longValue();
    }

    private static BigInteger big(long high, long low) {
        return new BigInteger(1, canonical(high, low));
    }

    /** Appends {@code value.toString(16)} of the 128-bit value {@code high:low}. */
    private static void appendHex(StringBuilder s, long high, long low) {
        int digits = high != 0 ? 32 - Long.numberOfLeadingZeros(high) / 4
                : Math.max(1, 16 - Long.numberOfLeadingZeros(low) / 4);
        for (int i = digits - 1; i >= 0; i--) {
            long word = i >= 16 ? high : low;
            s.append(Character.forDigit((int) (word >>> (4 * (i % 16))) & 0xf, 16));
        }
    }

    /** Big-endian bytes of {@code high:low} without leading zero bytes (one zero byte for 0). */
    private static byte[] canonical(long high, long low) {
        int bits = high != 0 ? 128 - Long.numberOfLeadingZeros(high) : 64 - Long.numberOfLeadingZeros(low);
        int length = Math.max(1, (bits + 7) / 8);
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            int shift = 8 * (length - 1 - i);
            out[i] = (byte) (shift >= 64 ? high >>> (shift - 64) : low >>> shift);
        }
        return out;
    }

    /** Values are given as BigIntegers or as longs; the entries made at every setup use longs only. */
    public static final class Builder {
        private final String table;
        private final List<String> matchFields = new ArrayList<>(4);
        private long[] matchValues = new long[12];   // high, low, prefix length per match, as in the entry
        private String action;
        private final List<String> paramNames = new ArrayList<>(4);
        private long[] paramValues = new long[8];   // high, low per parameter, as in the entry
        private long idleTimeoutSeconds;

        private Builder(String table) {
            this.table = table;
        }

        public Builder exact(String field, BigInteger value) {
            return exact(field, high(value), value.longValue());
        }

        public Builder exact(String field, long value) {
            return exact(field, 0, unsigned(value));
        }

        /** An exact match on the 128-bit value {@code high:low}. */
        public Builder exact(String field, long high, long low) {
            return match(field, high, low, -1);
        }

        /** An LPM match; one of length 0 (a default route) matches everything, so it is left out (P4Runtime 9.1.1). */
        public Builder lpm(String field, BigInteger value, int prefixLength) {
            return prefixLength == 0 ? this : match(field, high(value), value.longValue(), prefixLength);
        }

        public Builder action(String name) {
            this.action = name;
            return this;
        }

        public Builder param(String name, BigInteger value) {
            return param(name, high(value), value.longValue());
        }

        public Builder param(String name, long value) {
            return param(name, 0, unsigned(value));
        }

        /** The parameter {@code name} (given again: its new value) as the 128-bit value {@code high:low}. */
        public Builder param(String name, long high, long low) {
            Objects.requireNonNull(name, "a parameter's name");
            int i = paramNames.indexOf(name);
            if (i < 0) {
                i = paramNames.size();
                paramNames.add(name);
                if (paramValues.length < 2 * paramNames.size()) {
                    paramValues = Arrays.copyOf(paramValues, 2 * paramValues.length);
                }
            }
            paramValues[2 * i] = high;
            paramValues[2 * i + 1] = low;
            return this;
        }

        private Builder match(String field, long high, long low, int prefixLength) {
            Objects.requireNonNull(field, "a match field's name");
            int i = matchFields.size();
            matchFields.add(field);
            if (matchValues.length < 3 * matchFields.size()) {
                matchValues = Arrays.copyOf(matchValues, 2 * matchValues.length);
            }
            matchValues[3 * i] = high;
            matchValues[3 * i + 1] = low;
            matchValues[3 * i + 2] = prefixLength;
            return this;
        }

        public Builder idleTimeout(long seconds) {
            this.idleTimeoutSeconds = seconds;
            return this;
        }

        public TableEntry build() {
            return new TableEntry(this);
        }

        private static long unsigned(long value) {
            if (value < 0) {
                throw new IllegalArgumentException("a table entry's value is unsigned and at most 128 bits wide: "
                        + value);
            }
            return value;
        }
    }
}
