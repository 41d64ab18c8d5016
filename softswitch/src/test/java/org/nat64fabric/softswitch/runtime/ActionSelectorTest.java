package org.nat64fabric.softswitch.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.softswitch.testutil.P4Programs.bytes;

import com.google.protobuf.ByteString;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.ActionProfile;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.ActionProfileGroup;
import p4.v1.P4RuntimeOuterClass.ActionProfileMember;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;

/**
 * examples/ecmp_selector.p4 driven through P4Runtime entities: its P4Info, members, groups and
 * one-shot sets with their error codes, and which member a packet runs, checked against a CRC-16
 * computed here independently of softswitch's.
 */
class ActionSelectorTest {
    private Program program;
    private V1ModelSwitch sw;
    private Entities entities;
    private P4Info info;
    /** examples/ecmp_selector.p4's @max_group_size. */
    private static final int MAX_GROUP_SIZE = 8;
    private int selector;
    private int profile;
    private int lpm;
    private int smac;

    @BeforeEach
    void setUp() {
        program = Frontend.compile(Path.of("examples/ecmp_selector.p4"));
        info = P4InfoBuilder.build(program);
        sw = new V1ModelSwitch(program);
        entities = new Entities(sw, info);
        selector = profileId("EcmpIngress.ecmp_selector");
        profile = profileId("smac_profile");
        lpm = table("EcmpIngress.ipv4_lpm").getPreamble().getId();
        smac = table("EcmpIngress.smac_rewrite").getPreamble().getId();
    }

    private int profileId(String name) {
        return info.getActionProfilesList().stream().filter(a -> a.getPreamble().getName().equals(name)).findFirst()
                .orElseThrow().getPreamble().getId();
    }

    private P4InfoOuterClass.Table table(String name) {
        return info.getTablesList().stream().filter(t -> t.getPreamble().getName().equals(name)).findFirst().orElseThrow();
    }

    private int actionId(String name) {
        return info.getActionsList().stream().filter(a -> a.getPreamble().getName().equals(name)).findFirst()
                .orElseThrow().getPreamble().getId();
    }

    private Action nextHop(int port) {
        return Action.newBuilder().setActionId(actionId("EcmpIngress.set_next_hop"))
                .addParams(Action.Param.newBuilder().setParamId(1).setValue(Entities.bytes(BigInteger.valueOf(port))))
                .addParams(Action.Param.newBuilder().setParamId(2).setValue(Entities.bytes(BigInteger.valueOf(0xd0 + port))))
                .build();
    }

    private void write(Update.Type type, Entity e) throws EntityException {
        entities.apply(type, e);
    }

    private Entity member(int id, int port) {
        return Entity.newBuilder().setActionProfileMember(ActionProfileMember.newBuilder().setActionProfileId(selector)
                .setMemberId(id).setAction(nextHop(port))).build();
    }

    private Entity group(int id, int... memberAndWeight) {
        ActionProfileGroup.Builder g = ActionProfileGroup.newBuilder().setActionProfileId(selector).setGroupId(id)
                .setMaxSize(MAX_GROUP_SIZE);
        for (int i = 0; i < memberAndWeight.length; i += 2) {
            g.addMembers(ActionProfileGroup.Member.newBuilder().setMemberId(memberAndWeight[i]).setWeight(memberAndWeight[i + 1]));
        }
        return Entity.newBuilder().setActionProfileGroup(g).build();
    }

    /** 10.0.0.0/8 pointing to the given member, group or action set. */
    private Entity route(TableAction action) {
        TableEntry.Builder b = TableEntry.newBuilder().setTableId(lpm).setAction(action);
        b.addMatchBuilder().setFieldId(1).getLpmBuilder().setValue(Entities.bytes(BigInteger.valueOf(0x0a000000L))).setPrefixLen(8);
        return Entity.newBuilder().setTableEntry(b).build();
    }

    private EntityException.Code failure(Update.Type type, Entity e) {
        return assertThrows(EntityException.class, () -> write(type, e)).code();
    }

    /** An Ethernet/IPv4/UDP frame to 10.1.2.3 from 192.168.0.1 with the given UDP source port. */
    private static byte[] udp(int srcPort) {
        return bytes("000000000001 000000000002 0800 45000020 00010000 40110000 c0a80001 0a010203"
                + String.format("%04x", srcPort) + "0035 000c 0000 01020304");
    }

    /** The port the switch sends the frame to, or -1 when it drops it. */
    private int portOf(byte[] frame) {
        List<V1ModelSwitch.Output> out = sw.process(1, frame);
        return out.isEmpty() ? -1 : out.get(0).port;
    }

    /** CRC-16/ARC (poly 0x8005 reflected, init 0), written here from its definition. */
    private static int crc16(byte[] data) {
        int crc = 0;
        for (byte b : data) {
            for (int bit = 0; bit < 8; bit++) {
                int in = ((b >> bit) & 1) ^ (crc & 1);
                crc >>>= 1;
                if (in != 0) {
                    crc ^= 0xA001;
                }
            }
        }
        return crc;
    }

    /** The selector's input for udp(srcPort): src, dst, protocol, UDP ports, in key order (13 bytes). */
    private static int expectedHash(int srcPort) {
        return crc16(bytes("c0a80001 0a010203 11" + String.format("%04x", srcPort) + "0035"));
    }

    @Test
    void p4InfoListsTheProfilesAndLeavesSelectorFieldsOutOfTheMatch() {
        P4InfoOuterClass.ActionProfile ecmp = info.getActionProfilesList().stream()
                .filter(a -> a.getPreamble().getId() == selector).findFirst().orElseThrow();
        assertEquals(0x11, ecmp.getPreamble().getId() >>> 24);
        assertTrue(ecmp.getWithSelector());
        assertEquals(64, ecmp.getSize());
        assertEquals(8, ecmp.getMaxGroupSize());
        assertEquals(List.of(lpm), ecmp.getTableIdsList());
        assertEquals(selector, table("EcmpIngress.ipv4_lpm").getImplementationId());
        assertEquals(1, table("EcmpIngress.ipv4_lpm").getMatchFieldsCount(), "selector fields are not match fields");
        P4InfoOuterClass.ActionProfile inline = info.getActionProfilesList().stream()
                .filter(a -> a.getPreamble().getId() == profile).findFirst().orElseThrow();
        assertFalse(inline.getWithSelector());
        assertEquals(16, inline.getSize());
        assertEquals(List.of(smac), inline.getTableIdsList());
    }

    @Test
    void anEntryRunsItsMemberAndAModifiedMemberChangesTheEntry() throws Exception {
        write(Update.Type.INSERT, member(1, 2));
        Entity e = route(TableAction.newBuilder().setActionProfileMemberId(1).build());
        write(Update.Type.INSERT, e);
        assertEquals(2, portOf(udp(1000)));
        write(Update.Type.MODIFY, member(1, 3));
        assertEquals(3, portOf(udp(1000)));
        assertEquals(List.of(e), entities.read(route(TableAction.getDefaultInstance())));
        assertEquals(EntityException.Code.FAILED_PRECONDITION, failure(Update.Type.DELETE, member(1, 3)), "in use by the entry");
        write(Update.Type.DELETE, e);
        write(Update.Type.DELETE, member(1, 3));
        assertEquals(-1, portOf(udp(1000)), "a miss runs the default action, drop");
    }

    @Test
    void aGroupPicksTheMemberTheHashNamesWithWeights() throws Exception {
        write(Update.Type.INSERT, member(1, 2));
        write(Update.Type.INSERT, member(2, 3));
        write(Update.Type.INSERT, group(10, 1, 3, 2, 1));   // member 1 for 3 of every 4 hash values
        write(Update.Type.INSERT, route(TableAction.newBuilder().setActionProfileGroupId(10).build()));
        Map<Integer, Integer> perPort = new HashMap<>();
        java.util.Random flows = new java.util.Random(1);   // CRC-16 is linear: consecutive ports share low bits
        for (int i = 0; i < 400; i++) {
            int sport = flows.nextInt(65536);
            int expected = expectedHash(sport) % 4 < 3 ? 2 : 3;
            int port = portOf(udp(sport));
            assertEquals(expected, port, "source port " + sport);
            assertEquals(port, portOf(udp(sport)), "the same flow, the same member");
            perPort.merge(port, 1, Integer::sum);
        }
        assertTrue(perPort.get(2) > 250 && perPort.get(3) > 60, "spread 3:1 over the members: " + perPort);
    }

    @Test
    void anEmptyGroupMissesAndGroupsKeepTheirMembers() throws Exception {
        write(Update.Type.INSERT, member(1, 2));
        write(Update.Type.INSERT, group(10));
        Entity e = route(TableAction.newBuilder().setActionProfileGroupId(10).build());
        write(Update.Type.INSERT, e);
        assertEquals(-1, portOf(udp(1000)), "an empty group: the default action (drop)");
        write(Update.Type.MODIFY, group(10, 1, 1));
        assertEquals(2, portOf(udp(1000)));
        Entity resized = group(10, 1, 1).toBuilder().setActionProfileGroup(group(10, 1, 1).getActionProfileGroup().toBuilder()
                .setMaxSize(4)).build();
        assertEquals(EntityException.Code.INVALID_ARGUMENT, failure(Update.Type.MODIFY, resized),
                "max_size cannot change after the group is created");
        assertEquals(EntityException.Code.FAILED_PRECONDITION, failure(Update.Type.DELETE, member(1, 2)), "in the group");
        assertEquals(EntityException.Code.FAILED_PRECONDITION, failure(Update.Type.DELETE, group(10)), "used by the entry");
        write(Update.Type.DELETE, e);
        write(Update.Type.DELETE, group(10));
        write(Update.Type.DELETE, member(1, 2));
        assertTrue(entities.read(Entity.newBuilder().setActionProfileMember(ActionProfileMember.getDefaultInstance()).build())
                .isEmpty());
    }

    @Test
    void oneShotSetsRunLikeGroupsAndReadBackAsWritten() throws Exception {
        TableAction.Builder set = TableAction.newBuilder();
        set.getActionProfileActionSetBuilder().addActionProfileActionsBuilder().setAction(nextHop(2)).setWeight(1);
        set.getActionProfileActionSetBuilder().addActionProfileActionsBuilder().setAction(nextHop(3)).setWeight(1);
        Entity e = route(set.build());
        write(Update.Type.INSERT, e);
        for (int sport = 2000; sport < 2050; sport++) {
            assertEquals(expectedHash(sport) % 2 == 0 ? 2 : 3, portOf(udp(sport)));
        }
        assertEquals(List.of(e), entities.read(route(TableAction.getDefaultInstance())));
        assertTrue(entities.read(Entity.newBuilder().setActionProfileGroup(ActionProfileGroup.getDefaultInstance()).build())
                .isEmpty(), "a one-shot set's group is the switch's own");
        assertEquals(EntityException.Code.INVALID_ARGUMENT, failure(Update.Type.INSERT, member(1, 2)),
                "one-shot and members do not mix");
        write(Update.Type.DELETE, e);
        write(Update.Type.INSERT, member(1, 2));
        assertEquals(EntityException.Code.INVALID_ARGUMENT, failure(Update.Type.INSERT, e), "nor the other way round");
        write(Update.Type.DELETE, member(1, 2));
        write(Update.Type.INSERT, e);
        TableAction.Builder tooBig = TableAction.newBuilder();
        tooBig.getActionProfileActionSetBuilder().addActionProfileActionsBuilder().setAction(nextHop(2)).setWeight(9);
        assertEquals(EntityException.Code.INVALID_ARGUMENT, failure(Update.Type.MODIFY, route(tooBig.build())),
                "over @max_group_size(8): P4Runtime 9.2.3");
    }

    /** Ports a test brings up and down. */
    private static final class Links implements ActionProfile.PortLiveness {
        final java.util.Set<Integer> down = new java.util.HashSet<>();
        long version;

        void set(int port, boolean up) {
            if (up ? down.remove(port) : down.add(port)) {
                version++;
            }
        }

        @Override public boolean isUp(int port) {
            return !down.contains(port);
        }

        @Override public long version() {
            return version;
        }
    }

    @Test
    void membersWatchingAPortThatIsDownAreLeftOutUntilItIsUp() throws Exception {
        Links links = new Links();
        entities = new Entities(sw, info, links);
        write(Update.Type.INSERT, member(1, 2));
        write(Update.Type.INSERT, member(2, 3));
        Entity watched = group(10, 1, 1, 2, 1);
        ActionProfileGroup.Builder g = watched.getActionProfileGroup().toBuilder();
        g.getMembersBuilder(1).setWatch(3);   // the deprecated int32 form
        ActionProfileGroup.Builder canonical = g.clone();
        NewerFields.withBytes(canonical.getMembersBuilder(0), NewerFields.WATCH_PORT, ByteString.copyFrom(new byte[] {2}));
        NewerFields.withBytes(g.getMembersBuilder(0), NewerFields.WATCH_PORT, ByteString.copyFrom(new byte[] {0, 2}));
        write(Update.Type.INSERT, Entity.newBuilder().setActionProfileGroup(g).build());
        write(Update.Type.INSERT, route(TableAction.newBuilder().setActionProfileGroupId(10).build()));
        assertEquals(List.of(Entity.newBuilder().setActionProfileGroup(canonical).build()), entities.read(group(10)),
                "read back as written, the watch port canonical (P4Runtime 8.4)");
        int[] sports = new java.util.Random(5).ints(200, 0, 65536).toArray();
        for (int sport : sports) {
            assertEquals(expectedHash(sport) % 2 == 0 ? 2 : 3, portOf(udp(sport)), "both up: by the hash");
        }
        links.set(3, false);
        for (int sport : sports) {
            assertEquals(2, portOf(udp(sport)), "port 3 down: its member is left out");
        }
        links.set(2, false);
        assertEquals(-1, portOf(udp(sports[0])), "every member's port down: no member, the default action (drop)");
        links.set(2, true);
        links.set(3, true);
        for (int sport : sports) {
            assertEquals(expectedHash(sport) % 2 == 0 ? 2 : 3, portOf(udp(sport)), "up again: as before");
        }
    }

    @Test
    void aOneShotSetsActionWatchingAPortThatIsDownIsLeftOut() throws Exception {
        Links links = new Links();
        entities = new Entities(sw, info, links);
        TableAction.Builder set = TableAction.newBuilder();
        set.getActionProfileActionSetBuilder().addActionProfileActionsBuilder().setAction(nextHop(2)).setWeight(1);
        set.getActionProfileActionSetBuilder().addActionProfileActionsBuilder().setAction(nextHop(3)).setWeight(1);
        TableAction.Builder canonical = set.clone();
        NewerFields.withBytes(canonical.getActionProfileActionSetBuilder().getActionProfileActionsBuilder(0),
                NewerFields.WATCH_PORT, ByteString.copyFrom(new byte[] {2}));
        NewerFields.withBytes(set.getActionProfileActionSetBuilder().getActionProfileActionsBuilder(0),
                NewerFields.WATCH_PORT, ByteString.copyFrom(new byte[] {0, 0, 2}));
        write(Update.Type.INSERT, route(set.build()));
        assertEquals(List.of(route(canonical.build())), entities.read(route(TableAction.getDefaultInstance())),
                "read back as written, the watch port canonical");
        links.set(2, false);
        for (int sport = 2000; sport < 2050; sport++) {
            assertEquals(3, portOf(udp(sport)), "port 2 down: the action without a watch port");
        }
        links.set(2, true);
        for (int sport = 2000; sport < 2050; sport++) {
            assertEquals(expectedHash(sport) % 2 == 0 ? 2 : 3, portOf(udp(sport)));
        }
    }

    @Test
    void aWatchPortMustBeOneTheSwitchCanHave() throws Exception {
        write(Update.Type.INSERT, member(1, 2));
        ActionProfileGroup.Builder g = group(10, 1, 1).getActionProfileGroup().toBuilder();
        NewerFields.withBytes(g.getMembersBuilder(0), NewerFields.WATCH_PORT, ByteString.copyFrom(new byte[] {2, 0x58}));
        assertEquals(EntityException.Code.INVALID_ARGUMENT,
                failure(Update.Type.INSERT, Entity.newBuilder().setActionProfileGroup(g).build()), "port 600: past 9 bits");
        g.getMembersBuilder(0).setUnknownFields(com.google.protobuf.UnknownFieldSet.getDefaultInstance()).setWatch(-1);
        assertEquals(EntityException.Code.INVALID_ARGUMENT,
                failure(Update.Type.INSERT, Entity.newBuilder().setActionProfileGroup(g).build()), "a negative port");
    }

    @Test
    void theSelectorsSizeBoundsTheWeightsOfAllItsGroupsTogether() throws Exception {
        long size = info.getActionProfilesList().stream().filter(a -> a.getPreamble().getId() == selector).findFirst()
                .orElseThrow().getSize();
        write(Update.Type.INSERT, member(1, 2));
        int groups = (int) (size / MAX_GROUP_SIZE);
        for (int g = 1; g <= groups; g++) {
            write(Update.Type.INSERT, group(g, 1, MAX_GROUP_SIZE));   // weights summed (sum_of_weights, P4Info's default)
        }
        assertEquals(0, size % MAX_GROUP_SIZE, "the groups fill the selector exactly");
        assertEquals(EntityException.Code.RESOURCE_EXHAUSTED, failure(Update.Type.INSERT, group(groups + 1, 1, 1)),
                "p4info.proto: size is the most the groups hold together");
        write(Update.Type.MODIFY, group(1, 1, MAX_GROUP_SIZE - 1));
        write(Update.Type.INSERT, group(groups + 1, 1, 1));   // the room a smaller group left
        assertEquals(EntityException.Code.RESOURCE_EXHAUSTED, failure(Update.Type.MODIFY, group(1, 1, MAX_GROUP_SIZE)));
    }

    @Test
    void badWritesGetTheSpecifiedCodes() throws Exception {
        write(Update.Type.INSERT, member(1, 2));
        assertEquals(EntityException.Code.ALREADY_EXISTS, failure(Update.Type.INSERT, member(1, 2)));
        assertEquals(EntityException.Code.NOT_FOUND, failure(Update.Type.MODIFY, member(7, 2)));
        assertEquals(EntityException.Code.NOT_FOUND, failure(Update.Type.INSERT, group(10, 7, 1)), "unknown member");
        assertEquals(EntityException.Code.INVALID_ARGUMENT, failure(Update.Type.INSERT, group(10, 1, 1, 1, 1)), "twice");
        assertEquals(EntityException.Code.INVALID_ARGUMENT, failure(Update.Type.INSERT, group(10, 1, 0)), "weight 0");
        assertEquals(EntityException.Code.RESOURCE_EXHAUSTED, failure(Update.Type.INSERT, group(10, 1, 9)), "max_group_size");
        Entity unsized = group(10, 1, 1).toBuilder().setActionProfileGroup(group(10, 1, 1).getActionProfileGroup().toBuilder()
                .setMaxSize(0)).build();
        assertEquals(EntityException.Code.INVALID_ARGUMENT, failure(Update.Type.INSERT, unsized),
                "P4Runtime 9.2.2.1: max_size 0 where the selector has a max_group_size");
        assertEquals(EntityException.Code.NOT_FOUND,
                failure(Update.Type.INSERT, route(TableAction.newBuilder().setActionProfileGroupId(99).build())));
        assertEquals(EntityException.Code.INVALID_ARGUMENT,
                failure(Update.Type.INSERT, route(TableAction.newBuilder().setAction(nextHop(2)).build())), "a direct action");
        Entity defaultEntry = Entity.newBuilder().setTableEntry(TableEntry.newBuilder().setTableId(lpm).setIsDefaultAction(true)
                .setAction(TableAction.newBuilder().setAction(Action.newBuilder().setActionId(actionId("EcmpIngress.drop")))))
                .build();
        assertEquals(EntityException.Code.PERMISSION_DENIED, failure(Update.Type.MODIFY, defaultEntry),
                "P4Runtime 9.1.5: an indirect table's default entry is a constant NoAction");
        Entity profileGroup = Entity.newBuilder().setActionProfileGroup(ActionProfileGroup.newBuilder()
                .setActionProfileId(profile).setGroupId(1)).build();
        assertEquals(EntityException.Code.INVALID_ARGUMENT, failure(Update.Type.INSERT, profileGroup), "no selector");
        Entity wrongAction = Entity.newBuilder().setActionProfileMember(ActionProfileMember.newBuilder()
                .setActionProfileId(profile).setMemberId(1).setAction(nextHop(2))).build();
        assertEquals(EntityException.Code.INVALID_ARGUMENT, failure(Update.Type.INSERT, wrongAction), "not smac_rewrite's");
        assertEquals(EntityException.Code.NOT_FOUND, failure(Update.Type.INSERT, Entity.newBuilder().setActionProfileMember(
                ActionProfileMember.newBuilder().setActionProfileId(0x11000001).setMemberId(1).setAction(nextHop(2))).build()));
        assertEquals(1, entities.read(member(0, 0).toBuilder().setActionProfileMember(ActionProfileMember.newBuilder()
                .setActionProfileId(selector)).build()).size());
    }
}
