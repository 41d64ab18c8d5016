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

    /**
     * Which of the switch's ports are up, for the group members that watch one (P4Runtime 9.2.2:
     * a member is picked only while its watch port is up).
     */
    public interface PortLiveness {
        /** Every port up: a switch without links to watch (the offline simulator). */
        PortLiveness ALL_UP = new PortLiveness() {
            @Override public boolean isUp(int port) {
                return true;
            }

            @Override public long version() {
                return 0;
            }
        };

        boolean isUp(int port);

        /** Changes whenever a port goes up or down: a group works out its live members again only then. */
        long version();
    }

    /** A member's watch port when it has none. */
    public static final int NO_WATCH_PORT = -1;

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
     * Members that watch a port that is down are left out until it is up again (fast failover):
     * the flows of the others keep their member only while the set of live members stays the same.
     */
    public static final class Group implements Target {
        public final int id;
        private final PortLiveness ports;
        /** The members and, at i, the sum of the weights of members 0..i: replaced whole by a MODIFY. */
        private volatile Weighted members;
        /** The live members of {@link #members} at a version of {@link #ports}; null until a packet asks. */
        private volatile Live live;

        private static final class Weighted {
            final Member[] members;
            final int[] weights;
            final long[] cumulative;
            /** Each member's watch port, or null when none watches one. */
            final int[] watchPorts;

            Weighted(Member[] members, int[] weights, int[] watchPorts) {
                this.members = members;
                this.weights = weights;
                this.cumulative = new long[members.length];
                long sum = 0;
                for (int i = 0; i < members.length; i++) {
                    sum += weights[i];
                    cumulative[i] = sum;
                }
                this.watchPorts = watchPorts;
            }

            Weighted alive(PortLiveness ports) {
                Member[] m = new Member[members.length];
                int[] w = new int[members.length];
                int n = 0;
                for (int i = 0; i < members.length; i++) {   // each port asked once: it may change meanwhile
                    if (watchPorts[i] == NO_WATCH_PORT || ports.isUp(watchPorts[i])) {
                        m[n] = members[i];
                        w[n++] = weights[i];
                    }
                }
                return new Weighted(java.util.Arrays.copyOf(m, n), java.util.Arrays.copyOf(w, n), null);
            }
        }

        private static final class Live {
            final Weighted of;
            final long version;
            final Weighted members;

            Live(Weighted of, long version, Weighted members) {
                this.of = of;
                this.version = version;
                this.members = members;
            }
        }

        /** {@code watchPorts}: each member's port to watch or {@link #NO_WATCH_PORT}; null when none has one. */
        public Group(int id, Member[] members, int[] weights, int[] watchPorts, PortLiveness ports) {
            this.id = id;
            this.ports = ports;
            set(members, weights, watchPorts);
        }

        /** Replaces the members (a MODIFY): a packet sees the old set or the new one, never a mix. */
        public void set(Member[] members, int[] weights, int[] watchPorts) {
            boolean watched = false;
            for (int i = 0; watchPorts != null && i < watchPorts.length; i++) {
                watched |= watchPorts[i] != NO_WATCH_PORT;
            }
            this.members = new Weighted(members.clone(), weights.clone(), watched ? watchPorts.clone() : null);
        }

        @Override public Table.ActionCall choose(State s, SelectorHash hash) {
            Weighted w = members;
            if (w.watchPorts != null) {
                w = alive(w);
            }
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

        private Weighted alive(Weighted w) {
            Live l = live;
            long version = ports.version();   // read first: a change while counting is seen by the next packet
            if (l == null || l.of != w || l.version != version) {
                l = new Live(w, version, w.alive(ports));
                live = l;
            }
            return l.members;
        }
    }
}
