package org.nat64fabric.softswitch.pipeline;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A parser value set (P4_16 12.11, value_set&lt;T&gt;(size)): members the control plane writes
 * (P4Runtime ValueSetEntry), which a select case matches against its keys. A member gives each
 * field a value and a mask (all ones for exact fields).
 */
public final class ValueSet {
    public final String name;
    public final Map<String, List<String>> annotations;
    public final int size;
    public final List<Field> fields;
    /** Replaced whole by the control plane; the data plane reads whichever array is current. */
    private volatile Member[] members = new Member[0];

    /** A match field: one per field of a struct element type, or one for a bit&lt;W&gt; element. */
    public static final class Field {
        public final String name;
        public final int width;
        public final boolean ternary;

        public Field(String name, int width, boolean ternary) {
            this.name = name;
            this.width = width;
            this.ternary = ternary;
        }
    }

    public static final class Member {
        public final BigInteger[] value;
        public final BigInteger[] mask;

        public Member(BigInteger[] value, BigInteger[] mask) {
            this.value = value;
            this.mask = mask;
        }
    }

    public ValueSet(String name, Map<String, List<String>> annotations, int size, List<Field> fields) {
        this.name = name;
        this.annotations = annotations;
        this.size = size;
        this.fields = fields;
    }

    public List<Member> members() {
        return Arrays.asList(members);
    }

    /** Replaces the members (the caller checked there are at most size of them). */
    public void replace(List<Member> newMembers) {
        members = newMembers.toArray(new Member[0]);
    }

    /** Whether a member matches the key values (keys may be longer: a reused buffer). */
    boolean matches(long[] keys) {
        outer:
        for (Member m : members) {
            for (int i = 0; i < m.value.length; i++) {
                if ((keys[i] & m.mask[i].longValue()) != m.value[i].longValue()) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    boolean matches(BigInteger[] keys) {
        outer:
        for (Member m : members) {
            for (int i = 0; i < m.value.length; i++) {
                if (!keys[i].and(m.mask[i]).equals(m.value[i])) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
