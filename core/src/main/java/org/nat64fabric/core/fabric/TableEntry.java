package org.nat64fabric.core.fabric;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A table entry as the controller wants it on a switch, independent of ONOS or gRPC: names from
 * P4InfoConstants, values as unsigned integers (P4Runtime's canonical byte strings). A default
 * entry has no match. {@code idleTimeoutSeconds} 0 means the entry does not age.
 */
public final class TableEntry implements Entity {
    /** One match field: exact (prefixLength -1) or LPM. */
    public static final class Match {
        public final String field;
        public final BigInteger value;
        public final int prefixLength;

        Match(String field, BigInteger value, int prefixLength) {
            this.field = field;
            this.value = value;
            this.prefixLength = prefixLength;
        }

        public boolean isLpm() {
            return prefixLength >= 0;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Match && ((Match) o).field.equals(field) && ((Match) o).value.equals(value)
                    && ((Match) o).prefixLength == prefixLength;
        }

        @Override
        public int hashCode() {
            return Objects.hash(field, value, prefixLength);
        }

        @Override
        public String toString() {
            return field + "=" + hex(value) + (isLpm() ? "/" + prefixLength : "");
        }

        /**
         * {@code v.toString(16)}, from two longs up to 128 bits: entry keys are made at every
         * setup, and BigInteger's own conversion divides and allocates as for any length.
         */
        static String hex(BigInteger v) {
            if (v.signum() < 0 || v.bitLength() > 128) {
                return v.toString(16);
            }
            String low = Long.toHexString(v.longValue());
            if (v.bitLength() <= 64) {
                return low;
            }
            return Long.toHexString(v.shiftRight(64).longValue()) + "0".repeat(16 - low.length()) + low;
        }
    }

    private final String table;
    private final List<Match> matches;
    private final String action;
    private final Map<String, BigInteger> params;
    private final long idleTimeoutSeconds;
    private String key;   // made once: entries are looked up by key at every setup

    private TableEntry(Builder b) {
        this.table = b.table;
        this.matches = List.copyOf(b.matches);
        this.action = b.action;
        this.params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.params));
        this.idleTimeoutSeconds = b.idleTimeoutSeconds;
    }

    public static Builder in(String table) {
        return new Builder(table);
    }

    public String table() {
        return table;
    }

    public List<Match> matches() {
        return matches;
    }

    public boolean isDefault() {
        return matches.isEmpty();
    }

    public String action() {
        return action;
    }

    public Map<String, BigInteger> params() {
        return params;
    }

    public long idleTimeoutSeconds() {
        return idleTimeoutSeconds;
    }

    /** What identifies the entry in its table (P4Runtime: the match); the rest may be modified. */
    @Override
    public String key() {
        String k = key;
        if (k == null) {
            k = table + (isDefault() ? " default" : " " + matches);
            key = k;
        }
        return k;
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
        return e.table.equals(table) && e.matches.equals(matches) && e.action.equals(action)
                && e.params.equals(params) && e.idleTimeoutSeconds == idleTimeoutSeconds;
    }

    @Override
    public int hashCode() {
        return Objects.hash(table, matches, action, params, idleTimeoutSeconds);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(key()).append(" -> ").append(action).append('(');
        params.forEach((k, v) -> s.append(k).append('=').append(v.toString(16)).append(' '));
        return s.toString().trim() + ")" + (idleTimeoutSeconds > 0 ? " idle " + idleTimeoutSeconds + " s" : "");
    }

    public static final class Builder {
        private final String table;
        private final List<Match> matches = new ArrayList<>();
        private String action;
        private final Map<String, BigInteger> params = new LinkedHashMap<>();
        private long idleTimeoutSeconds;

        private Builder(String table) {
            this.table = table;
        }

        public Builder exact(String field, BigInteger value) {
            matches.add(new Match(field, value, -1));
            return this;
        }

        public Builder exact(String field, long value) {
            return exact(field, BigInteger.valueOf(value));
        }

        public Builder lpm(String field, BigInteger value, int prefixLength) {
            matches.add(new Match(field, value, prefixLength));
            return this;
        }

        public Builder action(String name) {
            this.action = name;
            return this;
        }

        public Builder param(String name, BigInteger value) {
            params.put(name, value);
            return this;
        }

        public Builder param(String name, long value) {
            return param(name, BigInteger.valueOf(value));
        }

        public Builder idleTimeout(long seconds) {
            this.idleTimeoutSeconds = seconds;
            return this;
        }

        public TableEntry build() {
            return new TableEntry(this);
        }
    }
}
