package org.nat64fabric.softswitch.pipeline;

import java.util.List;
import java.util.Map;

/**
 * A v1model action_profile or action_selector: the actions of the entries of the tables that name
 * it as their {@code implementation}. Entries point to a member (one action with its arguments)
 * or, with a selector, to a group of weighted members, one of which a hash over the table's
 * selector fields picks per packet. The control plane (P4Runtime ActionProfileMember and
 * ActionProfileGroup) owns the members and groups; the data plane only reads them.
 */
public final class ActionProfile {
    public final String name;
    public final Map<String, List<String>> annotations;
    /** The most members it holds (the extern's size argument). */
    public final int size;
    /** An action_selector; false for an action_profile. */
    public final boolean withSelector;
    /** The largest size of a group; 0 for no limit but {@link #size}. */
    public final int maxGroupSize;
    /** A group's size is the number of its members (P4Info sum_of_members); null: the sum of their weights. */
    public final SumOfMembers sumOfMembers;

    public ActionProfile(String name, Map<String, List<String>> annotations, int size, boolean withSelector, int maxGroupSize,
                         SumOfMembers sumOfMembers) {
        this.name = name;
        this.annotations = annotations;
        this.size = size;
        this.withSelector = withSelector;
        this.maxGroupSize = maxGroupSize;
        this.sumOfMembers = sumOfMembers;
    }

    /** P4Info's SumOfMembers size semantics: each member's weight at most maxMemberWeight (0: no limit). */
    public static final class SumOfMembers {
        public final int maxMemberWeight;

        public SumOfMembers(int maxMemberWeight) {
            this.maxMemberWeight = maxMemberWeight;
        }
    }

    /** The hash of a packet's selector fields, with the selector's algorithm. */
    public interface SelectorHash {
        long of(State s);
    }

    /** What an entry of an indirect table points to: the action it runs for a packet. */
    public interface Target {
        /** The action for this packet, or null when there is none (an empty group). */
        Table.ActionCall choose(State s, SelectorHash hash);
    }

    /** A member: one action with its arguments; a MODIFY changes it in place. */
    public static final class Member implements Target {
        public final int id;
        public volatile Table.ActionCall action;

        public Member(int id, Table.ActionCall action) {
            this.id = id;
            this.action = action;
        }

        @Override public Table.ActionCall choose(State s, SelectorHash hash) {
            return action;
        }
    }

    /**
     * A group of members, each with a weight: a member of weight w is picked for w of every
     * (sum of weights) hash values, so the same selector fields always pick the same member.
     */
    public static final class Group implements Target {
        public final int id;
        /** The members and, at i, the sum of the weights of members 0..i: replaced whole by a MODIFY. */
        private volatile Weighted members;

        private static final class Weighted {
            final Member[] members;
            final long[] cumulative;

            Weighted(Member[] members, long[] cumulative) {
                this.members = members;
                this.cumulative = cumulative;
            }
        }

        public Group(int id, Member[] members, int[] weights) {
            this.id = id;
            set(members, weights);
        }

        /** Replaces the members (a MODIFY): a packet sees the old set or the new one, never a mix. */
        public void set(Member[] members, int[] weights) {
            long[] c = new long[members.length];
            long sum = 0;
            for (int i = 0; i < members.length; i++) {
                sum += weights[i];
                c[i] = sum;
            }
            this.members = new Weighted(members.clone(), c);
        }

        @Override public Table.ActionCall choose(State s, SelectorHash hash) {
            Weighted w = members;
            if (w.members.length == 0) {
                return null;
            }
            long pick = Long.remainderUnsigned(hash.of(s), w.cumulative[w.cumulative.length - 1]);
            int i = 0;
            while (w.cumulative[i] <= pick) {
                i++;
            }
            return w.members[i].action;
        }
    }
}
