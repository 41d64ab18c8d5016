package org.nat64fabric.softswitch.runtime;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.nat64fabric.softswitch.pipeline.ActionProfile;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.runtime.EntityException.Code;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.ActionProfileAction;
import p4.v1.P4RuntimeOuterClass.ActionProfileActionSet;
import p4.v1.P4RuntimeOuterClass.ActionProfileGroup;
import p4.v1.P4RuntimeOuterClass.ActionProfileMember;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.Update;

/**
 * The members and groups of a program's action profiles and selectors (P4Runtime 9.2), and the
 * table entries' references to them: a member or group in use by a group or an entry cannot be
 * deleted (FAILED_PRECONDITION), so nothing points to what is gone.
 */
final class ActionProfiles {
    /** Checks an action against the tables of a profile and builds its call (Entities' rules for entries). */
    interface ActionChecker {
        Table.ActionCall check(Table t, p4.v1.P4RuntimeOuterClass.Action a) throws EntityException;
    }

    private static final class Profile {
        final int id;
        final ActionProfile ap;
        final List<Table> tables = new ArrayList<>();
        /** From the P4Info the controller sent (0: no limit but the profile's size). */
        final long maxGroupSize;
        /** From that P4Info too: -1 when a group's size is the sum of its weights, else its member count, each weight at most this (0: any). */
        final long maxMemberWeight;
        final Map<Integer, Member> members = new LinkedHashMap<>();
        final Map<Integer, Group> groups = new LinkedHashMap<>();
        /** Table entries with a one-shot action set: while there are any, no members or groups (and the reverse). */
        int oneShotEntries;

        Profile(int id, ActionProfile ap, long maxGroupSize, long maxMemberWeight) {
            this.id = id;
            this.ap = ap;
            this.maxGroupSize = maxGroupSize;
            this.maxMemberWeight = maxMemberWeight;
        }
    }

    private static final class Member {
        final ActionProfile.Member target;
        /** The action as written, for reads. */
        p4.v1.P4RuntimeOuterClass.Action action;
        /** Groups and table entries that point to it. */
        int users;

        Member(ActionProfile.Member target, p4.v1.P4RuntimeOuterClass.Action action) {
            this.target = target;
            this.action = action;
        }
    }

    private static final class Group {
        final ActionProfile.Group target;
        /** The group as written, for reads. */
        ActionProfileGroup written;
        List<Member> members;
        /** Table entries that point to it. */
        int users;

        Group(ActionProfile.Group target, ActionProfileGroup written, List<Member> members) {
            this.target = target;
            this.written = written;
            this.members = members;
        }
    }

    private final Map<Integer, Profile> byId = new LinkedHashMap<>();
    private final Map<ActionProfile, Profile> byProfile = new LinkedHashMap<>();
    private final ActionChecker checker;
    private final ActionProfile.PortLiveness ports;

    ActionProfiles(Program program, P4Info info, ActionChecker checker, ActionProfile.PortLiveness ports) {
        this.checker = checker;
        this.ports = ports;
        for (P4InfoOuterClass.ActionProfile a : info.getActionProfilesList()) {
            for (ActionProfile ap : program.actionProfiles()) {
                if (ap.name.equals(a.getPreamble().getName())) {
                    Profile p = new Profile(a.getPreamble().getId(), ap, a.getMaxGroupSize(), NewerFields.maxMemberWeight(a));
                    byId.put(p.id, p);
                    byProfile.put(ap, p);
                }
            }
        }
        for (Table t : program.tables) {
            if (t.profile() != null) {
                byProfile.get(t.profile()).tables.add(t);
            }
        }
    }

    private Profile profile(int id) throws EntityException {
        if (id == 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, "a write must name the action profile (ID 0 is a wildcard)");
        }
        Profile p = byId.get(id);
        if (p == null) {
            throw new EntityException(Code.NOT_FOUND, "the program has no action profile with ID " + Integer.toUnsignedString(id));
        }
        return p;
    }

    private Table.ActionCall check(Profile p, p4.v1.P4RuntimeOuterClass.Action a) throws EntityException {
        Table.ActionCall call = null;
        for (Table t : p.tables) {   // a shared profile's members serve every table that uses it
            call = checker.check(t, a);
        }
        return call;
    }

    // ---- members ----

    void member(Update.Type type, ActionProfileMember m) throws EntityException {
        Profile p = profile(m.getActionProfileId());
        int id = m.getMemberId();
        if (id == 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, p.ap.name + ": member ID 0 is a wildcard, not a member");
        }
        Member existing = p.members.get(id);
        switch (type) {
            case INSERT: {
                if (existing != null) {
                    throw new EntityException(Code.ALREADY_EXISTS, p.ap.name + ": member " + id + " already exists");
                }
                notOneShot(p);
                Table.ActionCall call = memberAction(p, m);
                if (p.members.size() >= p.ap.size) {
                    throw new EntityException(Code.RESOURCE_EXHAUSTED, p.ap.name + " is full (" + p.ap.size + " members)");
                }
                p.members.put(id, new Member(new ActionProfile.Member(id, call), Entities.canonical(m.getAction())));
                return;
            }
            case MODIFY: {
                if (existing == null) {
                    throw new EntityException(Code.NOT_FOUND, p.ap.name + ": no member " + id);
                }
                existing.target.action = memberAction(p, m);   // its groups and entries run the new action at once
                existing.action = Entities.canonical(m.getAction());
                return;
            }
            case DELETE:
                if (existing == null) {
                    throw new EntityException(Code.NOT_FOUND, p.ap.name + ": no member " + id);
                }
                if (existing.users > 0) {
                    throw new EntityException(Code.FAILED_PRECONDITION, p.ap.name + ": member " + id + " is used by "
                            + existing.users + " group(s) or table entries: remove it from them first");
                }
                p.members.remove(id);
                return;
            default:
                throw new EntityException(Code.INVALID_ARGUMENT, "unknown update type " + type);
        }
    }

    /**
     * A selector is programmed either with one-shot action sets or with members and groups, not
     * both at once (INVALID_ARGUMENT, as the reference implementation, PI, answers).
     */
    private static void notOneShot(Profile p) throws EntityException {
        if (p.oneShotEntries > 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, p.ap.name + " is programmed with one-shot action sets by "
                    + p.oneShotEntries + " table entries: it takes no members or groups until they are gone");
        }
    }

    private Table.ActionCall memberAction(Profile p, ActionProfileMember m) throws EntityException {
        if (!m.hasAction()) {
            throw new EntityException(Code.INVALID_ARGUMENT, p.ap.name + ": member " + m.getMemberId() + " has no action");
        }
        return check(p, m.getAction());
    }

    // ---- groups ----

    void group(Update.Type type, ActionProfileGroup g) throws EntityException {
        Profile p = profile(g.getActionProfileId());
        int id = g.getGroupId();
        if (!p.ap.withSelector) {
            throw new EntityException(Code.INVALID_ARGUMENT, p.ap.name + " is an action profile without a selector: it has no groups");
        }
        if (id == 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, p.ap.name + ": group ID 0 is a wildcard, not a group");
        }
        Group existing = p.groups.get(id);
        switch (type) {
            case INSERT: {
                if (existing != null) {
                    throw new EntityException(Code.ALREADY_EXISTS, p.ap.name + ": group " + id + " already exists");
                }
                notOneShot(p);
                List<Member> members = groupMembers(p, g);
                if (p.groups.size() >= p.ap.size) {
                    throw new EntityException(Code.RESOURCE_EXHAUSTED, p.ap.name + " is full (" + p.ap.size + " groups)");
                }
                checkTotal(p, g);
                Group group = new Group(new ActionProfile.Group(id, targets(members), weights(g), watchPorts(g), ports),
                        asRead(g), members);
                use(members, 1);
                p.groups.put(id, group);
                return;
            }
            case MODIFY: {
                if (existing == null) {
                    throw new EntityException(Code.NOT_FOUND, p.ap.name + ": no group " + id);
                }
                // P4Runtime 9.2.2: a MODIFY gives the max_size the group was inserted with
                int maxSize = existing.written.getMaxSize();
                if (g.getMaxSize() != maxSize) {
                    throw new EntityException(Code.INVALID_ARGUMENT, p.ap.name + ": group " + id + " was created with max_size "
                            + maxSize + "; a MODIFY gives that same max_size, not " + g.getMaxSize());
                }
                List<Member> members = groupMembers(p, g);
                checkTotal(p, g);
                use(members, 1);
                use(existing.members, -1);
                existing.target.set(targets(members), weights(g), watchPorts(g));
                existing.written = asRead(g);
                existing.members = members;
                return;
            }
            case DELETE:
                if (existing == null) {
                    throw new EntityException(Code.NOT_FOUND, p.ap.name + ": no group " + id);
                }
                if (existing.users > 0) {
                    throw new EntityException(Code.FAILED_PRECONDITION, p.ap.name + ": group " + id + " is used by "
                            + existing.users + " table entries: delete or change them first");
                }
                use(existing.members, -1);
                p.groups.remove(id);
                return;
            default:
                throw new EntityException(Code.INVALID_ARGUMENT, "unknown update type " + type);
        }
    }

    /** The group's members, checked: each present once, weights positive, the size within max_size and max_group_size. */
    private List<Member> groupMembers(Profile p, ActionProfileGroup g) throws EntityException {
        List<Member> out = new ArrayList<>();
        Set<Integer> seen = new HashSet<>();
        long size = 0;
        for (ActionProfileGroup.Member gm : g.getMembersList()) {
            Member m = p.members.get(gm.getMemberId());
            if (m == null) {
                throw new EntityException(Code.NOT_FOUND, p.ap.name + ": group " + g.getGroupId() + " names member "
                        + gm.getMemberId() + ", which does not exist");
            }
            if (!seen.add(gm.getMemberId())) {
                throw new EntityException(Code.INVALID_ARGUMENT, p.ap.name + ": member " + gm.getMemberId()
                        + " appears twice in group " + g.getGroupId());
            }
            watchPort(gm, gm.getWatch(), p.ap.name + ": member " + gm.getMemberId() + " of group " + g.getGroupId());
            size += sizeOf(p, gm.getWeight(), "member " + gm.getMemberId(), Code.RESOURCE_EXHAUSTED);
            out.add(m);
        }
        if (g.getMaxSize() < 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, p.ap.name + ": max_size " + g.getMaxSize() + " is negative");
        }
        if (p.maxGroupSize > 0 && g.getMaxSize() == 0) {
            // P4Runtime 9.2.2.1: with a max_group_size, every group states its max_size
            throw new EntityException(Code.INVALID_ARGUMENT, p.ap.name + ": max_size 0, where the profile's "
                    + "max_group_size is " + p.maxGroupSize + " (give max_size from 1 to " + p.maxGroupSize + ")");
        }
        if (p.maxGroupSize > 0 && g.getMaxSize() > p.maxGroupSize) {
            // P4Runtime 9.2.2: a max_size the P4Info's max_group_size already rules out is a bad argument
            throw new EntityException(Code.INVALID_ARGUMENT, p.ap.name + ": max_size " + g.getMaxSize()
                    + " is over the profile's max_group_size " + p.maxGroupSize);
        }
        checkSize(p, size, g.getMaxSize(), "group " + g.getGroupId(), Code.RESOURCE_EXHAUSTED);
        return out;
    }

    /**
     * P4Runtime 9.2.2: a member's watch port (watch_port, or the deprecated watch): an SDN port of
     * the device (INVALID_ARGUMENT otherwise), or {@link ActionProfile#NO_WATCH_PORT} when not set.
     * A port the switch has no link on counts as down.
     */
    private static int watchPort(Message m, int watch, String what) throws EntityException {
        ByteString bytes = NewerFields.bytes(m, NewerFields.WATCH_PORT);
        if (watch == 0 && (bytes == null || bytes.isEmpty())) {
            return ActionProfile.NO_WATCH_PORT;
        }
        long port = bytes == null || bytes.isEmpty() ? Integer.toUnsignedLong(watch)
                : bytes.size() > 4 ? -1 : new BigInteger(1, bytes.toByteArray()).longValue();
        if (port < 0 || port >= V1ModelSwitch.DROP_PORT) {
            throw new EntityException(Code.INVALID_ARGUMENT, what + ": watch port "
                    + (port < 0 ? "of " + bytes.size() + " bytes" : port) + " is not a port of this switch (0-"
                    + (V1ModelSwitch.DROP_PORT - 1) + ")");
        }
        return (int) port;
    }

    /**
     * What a member of this weight adds to its group's size: its weight (P4Info's default
     * selector_size_semantics, sum_of_weights), or 1 with sum_of_members, where its weight may not
     * exceed max_member_weight ({@code over}: RESOURCE_EXHAUSTED for a group, INVALID_ARGUMENT for
     * a one-shot set, P4Runtime 9.2.3).
     */
    private static long sizeOf(Profile p, int weight, String what, Code over) throws EntityException {
        if (weight <= 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, p.ap.name + ": " + what + " has weight " + weight
                    + " (weights are positive)");
        }
        if (p.maxMemberWeight < 0) {
            return weight;
        }
        if (p.maxMemberWeight > 0 && weight > p.maxMemberWeight) {
            throw new EntityException(over, p.ap.name + ": " + what + " has weight " + weight
                    + ", over the profile's max_member_weight " + p.maxMemberWeight);
        }
        return 1;
    }

    /**
     * P4Info's size of a selector (p4info.proto, selector_size_semantics): the most its groups may
     * hold together, weights summed or members counted, with {@code g} in place of the group of its ID.
     */
    private static void checkTotal(Profile p, ActionProfileGroup g) throws EntityException {
        long total = groupSize(p, g);
        for (Map.Entry<Integer, Group> other : p.groups.entrySet()) {
            if (other.getKey() != g.getGroupId()) {
                total += groupSize(p, other.getValue().written);
            }
        }
        if (total > p.ap.size) {
            throw new EntityException(Code.RESOURCE_EXHAUSTED, p.ap.name + ": its groups would hold " + total
                    + (p.maxMemberWeight < 0 ? " (the sum of their weights)" : " (their members)") + ", over its size "
                    + p.ap.size);
        }
    }

    private static long groupSize(Profile p, ActionProfileGroup g) {
        long size = 0;
        for (ActionProfileGroup.Member m : g.getMembersList()) {
            size += p.maxMemberWeight < 0 ? m.getWeight() : 1;
        }
        return size;
    }

    private static void checkSize(Profile p, long size, long maxSize, String what, Code over) throws EntityException {
        String semantics = p.maxMemberWeight < 0 ? " (the sum of its weights)" : " (its number of members)";
        if (maxSize > 0 && size > maxSize) {
            throw new EntityException(over, p.ap.name + ": " + what + " has size " + size + semantics
                    + ", over its max_size " + maxSize);
        }
        if (p.maxGroupSize > 0 && size > p.maxGroupSize) {
            throw new EntityException(over, p.ap.name + ": " + what + " has size " + size + semantics
                    + ", over the profile's max_group_size " + p.maxGroupSize);
        }
    }

    private static void use(List<Member> members, int delta) {
        for (Member m : members) {
            m.users += delta;
        }
    }

    private static ActionProfile.Member[] targets(List<Member> members) {
        ActionProfile.Member[] out = new ActionProfile.Member[members.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = members.get(i).target;
        }
        return out;
    }

    private static int[] weights(ActionProfileGroup g) {
        int[] out = new int[g.getMembersCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = g.getMembers(i).getWeight();
        }
        return out;
    }

    /** A group as reads return it: its members' watch ports canonical. */
    private static ActionProfileGroup asRead(ActionProfileGroup g) {
        var b = g.toBuilder();
        for (var member : b.getMembersBuilderList()) {
            NewerFields.withCanonicalBytes(member, NewerFields.WATCH_PORT);
        }
        return b.build();
    }

    /** Each member's watch port, checked by {@link #groupMembers} already. */
    private static int[] watchPorts(ActionProfileGroup g) throws EntityException {
        int[] out = new int[g.getMembersCount()];
        for (int i = 0; i < out.length; i++) {
            ActionProfileGroup.Member m = g.getMembers(i);
            out[i] = watchPort(m, m.getWatch(), "member " + m.getMemberId());
        }
        return out;
    }

    // ---- table entries ----

    /**
     * What an entry of indirect table {@code t} runs: a member, a group, or a one-shot action set
     * (P4Runtime 9.2.3: a group of its own the controller never sees, read back as the set).
     * Checked only; {@link #retain} counts the reference once the entry is in.
     */
    ActionProfile.Target target(Table t, TableAction a) throws EntityException {
        Profile p = byProfile.get(t.profile());
        switch (a.getTypeCase()) {
            case ACTION_PROFILE_MEMBER_ID: {
                Member m = p.members.get(a.getActionProfileMemberId());
                if (m == null) {
                    throw new EntityException(Code.NOT_FOUND, t.name + ": " + p.ap.name + " has no member "
                            + a.getActionProfileMemberId());
                }
                return m.target;
            }
            case ACTION_PROFILE_GROUP_ID: {
                if (!p.ap.withSelector) {
                    throw new EntityException(Code.INVALID_ARGUMENT, t.name + ": " + p.ap.name
                            + " has no selector: entries point to members, not groups");
                }
                Group g = p.groups.get(a.getActionProfileGroupId());
                if (g == null) {
                    throw new EntityException(Code.NOT_FOUND, t.name + ": " + p.ap.name + " has no group "
                            + a.getActionProfileGroupId());
                }
                return g.target;
            }
            case ACTION_PROFILE_ACTION_SET:
                return oneShot(t, p, a.getActionProfileActionSet());
            case ACTION:
                throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " is indirect (implementation "
                        + p.ap.name + "): its entries take an action profile member, group or action set, not an action");
            default:
                throw new EntityException(Code.INVALID_ARGUMENT, t.name + ": the entry's action is empty");
        }
    }

    private ActionProfile.Target oneShot(Table t, Profile p, ActionProfileActionSet set) throws EntityException {
        if (!p.ap.withSelector) {
            throw new EntityException(Code.INVALID_ARGUMENT, t.name + ": " + p.ap.name
                    + " has no selector: one-shot action sets need an action_selector");
        }
        if (!p.members.isEmpty() || !p.groups.isEmpty()) {
            throw new EntityException(Code.INVALID_ARGUMENT, t.name + ": " + p.ap.name + " is programmed with members and "
                    + "groups: it takes no one-shot action sets until they are gone");
        }
        if (set.getActionProfileActionsCount() == 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, t.name + ": the action set is empty");
        }
        ActionProfile.Member[] members = new ActionProfile.Member[set.getActionProfileActionsCount()];
        int[] weights = new int[members.length];
        int[] watchPorts = new int[members.length];
        long size = 0;
        for (int i = 0; i < members.length; i++) {
            ActionProfileAction a = set.getActionProfileActions(i);
            watchPorts[i] = watchPort(a, a.getWatch(), t.name + ": action " + (i + 1) + " of the set");
            size += sizeOf(p, a.getWeight(), t.name + ": action " + (i + 1) + " of the set", Code.INVALID_ARGUMENT);
            members[i] = new ActionProfile.Member(0, check(p, a.getAction()));
            weights[i] = a.getWeight();
        }
        checkSize(p, size, 0, "the action set", Code.INVALID_ARGUMENT);
        return new ActionProfile.Group(0, members, weights, watchPorts, ports);
    }

    /** Counts (delta 1) or forgets (delta -1) an entry's reference to its member, group or one-shot set. */
    void retain(Table t, TableAction a, int delta) {
        Profile p = byProfile.get(t.profile());
        if (a.getTypeCase() == TableAction.TypeCase.ACTION_PROFILE_MEMBER_ID) {
            p.members.get(a.getActionProfileMemberId()).users += delta;
        } else if (a.getTypeCase() == TableAction.TypeCase.ACTION_PROFILE_GROUP_ID) {
            p.groups.get(a.getActionProfileGroupId()).users += delta;
        } else {
            p.oneShotEntries += delta;
        }
    }

    // ---- reads ----

    /** Members of one profile or all (ID 0); one member or all (member ID 0). */
    List<Entity> readMembers(ActionProfileMember q) throws EntityException {
        List<Entity> out = new ArrayList<>();
        for (Profile p : profiles(q.getActionProfileId())) {
            for (Map.Entry<Integer, Member> e : p.members.entrySet()) {
                if (q.getMemberId() == 0 || q.getMemberId() == e.getKey()) {
                    out.add(Entity.newBuilder().setActionProfileMember(ActionProfileMember.newBuilder()
                            .setActionProfileId(p.id).setMemberId(e.getKey()).setAction(e.getValue().action)).build());
                }
            }
        }
        return out;
    }

    /** Groups of one profile or all (ID 0); one group or all (group ID 0). */
    List<Entity> readGroups(ActionProfileGroup q) throws EntityException {
        List<Entity> out = new ArrayList<>();
        for (Profile p : profiles(q.getActionProfileId())) {
            for (Map.Entry<Integer, Group> e : p.groups.entrySet()) {
                if (q.getGroupId() == 0 || q.getGroupId() == e.getKey()) {
                    out.add(Entity.newBuilder().setActionProfileGroup(e.getValue().written.toBuilder()
                            .setActionProfileId(p.id)).build());
                }
            }
        }
        return out;
    }

    private List<Profile> profiles(int id) throws EntityException {
        if (id == 0) {
            return new ArrayList<>(byId.values());
        }
        Profile p = byId.get(id);
        if (p == null) {
            throw new EntityException(Code.NOT_FOUND, "the program has no action profile with ID " + Integer.toUnsignedString(id));
        }
        return List.of(p);
    }
}
