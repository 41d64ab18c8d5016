package org.nat64fabric.sume.agent.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import java.math.BigInteger;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import org.nat64fabric.sume.agent.card.CardException;
import org.nat64fabric.sume.agent.card.CardTables;
import org.nat64fabric.sume.agent.model.ModelCard;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.Action;
import p4.v1.P4RuntimeOuterClass.CounterData;
import p4.v1.P4RuntimeOuterClass.CounterEntry;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.PacketReplicationEngineEntry;
import p4.v1.P4RuntimeOuterClass.CloneSessionEntry;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;

/**
 * The translator against the model card: the words it writes (known answers), what the card then
 * does with packets, table full, and the refusals P4Runtime specifies.
 */
class TranslatorTest {
    /** Each card gets a program of its own: the tables live in the compiled program. */
    private static final Path NAT64 = Paths.get("../nat64_sume.p4");
    private static final Path FORWARDING = Paths.get("../../../softswitch/examples/sume_forwarding.p4");

    /** A translator on a fresh model card of the program, with the P4Info helpers. */
    private static final class Rig {
        final ModelCard card;
        final P4Info info;
        final Translator translator;

        Rig(Path file) {
            this(Frontend.compile(file), System::nanoTime);
        }

        Rig(Program p, java.util.function.LongSupplier clock) {
            card = new ModelCard(p);
            info = P4InfoBuilder.build(p);
            translator = new Translator(info, card, clock);
        }

        P4InfoOuterClass.Table table(String name) {
            return info.getTablesList().stream().filter(t -> t.getPreamble().getName().endsWith(name)).findFirst().orElseThrow();
        }

        int tableCardId(String name) {
            String full = table(name).getPreamble().getName();
            return card.tables().stream().filter(t -> t.name.equals(full)).findFirst().orElseThrow().id;
        }

        P4InfoOuterClass.Action action(String name) {
            return info.getActionsList().stream().filter(a -> a.getPreamble().getName().endsWith(name)).findFirst().orElseThrow();
        }

        int field(String table, String name) {
            return table(table).getMatchFieldsList().stream().filter(f -> f.getName().equals(name)).findFirst().orElseThrow().getId();
        }

        TableEntry.Builder entry(String table, String action, byte[]... params) {
            P4InfoOuterClass.Action a = action(action);
            Action.Builder b = Action.newBuilder().setActionId(a.getPreamble().getId());
            for (int i = 0; i < params.length; i++) {
                b.addParams(Action.Param.newBuilder().setParamId(a.getParams(i).getId()).setValue(ByteString.copyFrom(params[i])));
            }
            return TableEntry.newBuilder().setTableId(table(table).getPreamble().getId())
                    .setAction(TableAction.newBuilder().setAction(b));
        }

        void write(Update.Type type, TableEntry.Builder e) throws EntityError {
            translator.write(type, Entity.newBuilder().setTableEntry(e).build());
        }

        List<TableEntry> read(String table) throws EntityError {
            List<TableEntry> out = new ArrayList<>();
            for (Entity e : translator.read(Entity.newBuilder().setTableEntry(
                    TableEntry.newBuilder().setTableId(table(table).getPreamble().getId())).build())) {
                out.add(e.getTableEntry());
            }
            return out;
        }
    }

    private static byte[] b(int... bytes) {
        byte[] out = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            out[i] = (byte) bytes[i];
        }
        return out;
    }

    private static FieldMatch exact(int id, byte[] v) {
        return FieldMatch.newBuilder().setFieldId(id).setExact(FieldMatch.Exact.newBuilder().setValue(ByteString.copyFrom(v))).build();
    }

    private static FieldMatch lpm(int id, byte[] v, int len) {
        return FieldMatch.newBuilder().setFieldId(id).setLpm(FieldMatch.LPM.newBuilder().setValue(ByteString.copyFrom(v)).setPrefixLen(len)).build();
    }

    private static FieldMatch ternary(int id, byte[] v, byte[] mask) {
        return FieldMatch.newBuilder().setFieldId(id).setTernary(FieldMatch.Ternary.newBuilder()
                .setValue(ByteString.copyFrom(v)).setMask(ByteString.copyFrom(mask))).build();
    }

    private static Status.Code refused(ThrowingRunnable r) {
        return assertThrows(EntityError.class, r::run).code;
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    private static final byte[] V6_HOST = b(0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5);

    private TableEntry.Builder session(Rig r) {
        return r.entry("translate.session_v6", "translate.snat", b(192, 0, 2, 10), b(0x9c, 0x40), b(0), b(0))
                .addMatch(exact(r.field("translate.session_v6", "proto"), b(17)))
                .addMatch(exact(r.field("translate.session_v6", "src_addr"), V6_HOST))
                .addMatch(exact(r.field("translate.session_v6", "src_port"), b(0x13, 0x88)));
    }

    @Test
    void anExactEntryIsACamEntryWithTheKeyAndValueOfTheLayout() throws Exception {
        Rig r = new Rig(NAT64);
        r.write(Update.Type.INSERT, session(r));
        // key: proto 0x11 | 2001:db8:1::5 | 0x1388; value: snat is action 1 of {snat, NoAction} (2 bits) | 192.0.2.10
        // | 0x9c40 | filtered 0, transitory 0 (1 bit each) | the 13-bit slot the agent gave it (the first: 0), which
        // the controller never sees
        BigInteger key = new BigInteger("11" + "20010db8000100000000000000000005" + "1388", 16);
        BigInteger value = BigInteger.ONE.shiftLeft(48 + 2 + 13).or(new BigInteger("c000020a9c40", 16).shiftLeft(2 + 13));
        assertEquals(value, r.card.camRead(r.tableCardId("translate.session_v6"), key));
        r.write(Update.Type.DELETE, session(r).clearAction());
        assertNull(r.card.camRead(r.tableCardId("translate.session_v6"), key));
        assertTrue(r.read("translate.session_v6").isEmpty());
    }

    @Test
    void readsReturnEntriesExactlyAsWritten() throws Exception {
        Rig r = new Rig(NAT64);
        // a non-canonical parameter (a leading zero byte) and metadata: both come back as sent
        TableEntry.Builder e = r.entry("translate.session_v6", "translate.snat", b(192, 0, 2, 10), b(0, 0x9c, 0x40), b(0), b(0))
                .addMatch(exact(r.field("translate.session_v6", "proto"), b(17)))
                .addMatch(exact(r.field("translate.session_v6", "src_addr"), V6_HOST))
                .addMatch(exact(r.field("translate.session_v6", "src_port"), b(0x13, 0x88)))
                .setMetadata(ByteString.copyFromUtf8("flow 7"));
        r.write(Update.Type.INSERT, e);
        assertEquals(List.of(e.build()), r.read("translate.session_v6"));
        TableEntry.Builder modified = session(r);
        r.write(Update.Type.MODIFY, modified);
        assertEquals(List.of(modified.build()), r.read("translate.session_v6"));
    }

    @Test
    void aDefaultActionIsTheTablesMissValue() throws Exception {
        Rig r = new Rig(NAT64);
        int t = r.tableCardId("lowest_ipv6_mtu");
        TableEntry built = r.translator.read(Entity.newBuilder().setTableEntry(TableEntry.newBuilder()
                .setTableId(r.table("lowest_ipv6_mtu").getPreamble().getId()).setIsDefaultAction(true)).build()).get(0).getTableEntry();
        assertEquals(ByteString.copyFrom(b(0x05, 0x00)), built.getAction().getAction().getParams(0).getValue(), "built with 1280");
        r.write(Update.Type.MODIFY, r.entry("lowest_ipv6_mtu", "set_lowest_ipv6_mtu", b(0x05, 0x78)).setIsDefaultAction(true));
        // one action: a 1-bit id (1), then mtu 1400 = 0x578
        assertEquals(BigInteger.ONE.shiftLeft(16).or(BigInteger.valueOf(1400)), r.card.missValue(t));
        assertEquals(Status.Code.INVALID_ARGUMENT, refused(() -> r.write(Update.Type.INSERT,
                r.entry("lowest_ipv6_mtu", "set_lowest_ipv6_mtu", b(5, 0x78)).setIsDefaultAction(true))));
        assertEquals(Status.Code.INVALID_ARGUMENT, refused(() -> r.translator.read(Entity.newBuilder().setTableEntry(
                TableEntry.newBuilder().setTableId(r.table("lowest_ipv6_mtu").getPreamble().getId())
                        .setIsDefaultAction(true).setPriority(2)).build())), "9.1.5: a default entry is read without a priority");
    }

    @Test
    void whatTheCardCannotHoldIsRefusedWithP4RuntimesStatuses() throws Exception {
        Rig r = new Rig(NAT64);
        assertEquals(Status.Code.INVALID_ARGUMENT, refused(() -> r.write(Update.Type.INSERT, r.entry("egress_mtu", "set_mtu",
                b(5, 0xdc)).addMatch(exact(r.field("egress_mtu", "port"), b(1))).setIdleTimeoutNs(1_000_000_000L))));
        assertEquals(Status.Code.INVALID_ARGUMENT, refused(() -> r.write(Update.Type.INSERT, session(r).setIdleTimeoutNs(-1))));
        assertEquals(Status.Code.INVALID_ARGUMENT, refused(() -> r.write(Update.Type.INSERT, session(r)
                .setTimeSinceLastHit(TableEntry.IdleTimeout.newBuilder().setElapsedNs(5)))));
        assertEquals(Status.Code.INVALID_ARGUMENT, refused(() -> r.write(Update.Type.INSERT, session(r).setCounterData(CounterData.newBuilder()))));
        assertEquals(Status.Code.UNIMPLEMENTED, refused(() -> r.translator.write(Update.Type.INSERT, Entity.newBuilder()
                .setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                        .setCloneSessionEntry(CloneSessionEntry.newBuilder().setSessionId(99))).build())));
        assertEquals(Status.Code.UNIMPLEMENTED, refused(() -> r.translator.read(Entity.newBuilder()
                .setCounterEntry(CounterEntry.newBuilder()).build())));
        assertEquals(Status.Code.PERMISSION_DENIED, refused(() -> r.write(Update.Type.INSERT,
                r.entry("rewrite.pointer_6to4", "rewrite.untranslatable").setPriority(1))));
        assertEquals(Status.Code.OUT_OF_RANGE, refused(() -> r.write(Update.Type.INSERT, session(r).setMatch(0,
                exact(r.field("translate.session_v6", "proto"), b(1, 17))))));
        assertEquals(Status.Code.NOT_FOUND, refused(() -> r.write(Update.Type.DELETE, session(r))));
        assertEquals(Status.Code.INVALID_ARGUMENT, refused(() -> r.write(Update.Type.INSERT, session(r).setTableId(0))),
                "P4Runtime: ID 0 names no object in a write");
        r.write(Update.Type.INSERT, session(r));
        assertEquals(Status.Code.ALREADY_EXISTS, refused(() -> r.write(Update.Type.INSERT, session(r))));
        assertEquals(Status.Code.INVALID_ARGUMENT, refused(() -> r.write(Update.Type.INSERT, session(r).removeMatch(2))));
    }

    @Test
    void aFullCamIsResourceExhaustedAndTheCardAgrees() throws Exception {
        Rig r = new Rig(NAT64);
        int size = (int) r.table("egress_mtu").getSize();
        for (int port = 0; port < size; port++) {
            r.write(Update.Type.INSERT, r.entry("egress_mtu", "set_mtu", b(5, 0xdc)).addMatch(exact(r.field("egress_mtu", "port"), b(port))));
        }
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, refused(() -> r.write(Update.Type.INSERT,
                r.entry("egress_mtu", "set_mtu", b(5, 0xdc)).addMatch(exact(r.field("egress_mtu", "port"), b(9))))));
        CardException full = assertThrows(CardException.class, () -> r.card.camAdd(r.tableCardId("egress_mtu"),
                BigInteger.valueOf(9), BigInteger.ONE.shiftLeft(16)));
        assertEquals(CardException.Reason.FULL, full.reason);
    }

    // ---- TCAM and LPM, with packets: softswitch/examples/sume_forwarding.p4 (routes: lpm, acl: ternary) ----

    private static final int NF0 = 0b1;
    private static final int NF1 = 0b100;
    private static final int NF2 = 0b10000;

    /** An IPv4 frame from src to dst with the given protocol (the example program does not check checksums). */
    private static byte[] ipv4(int[] src, int[] dst, int protocol) {
        byte[] f = new byte[14 + 20];
        f[12] = 0x08;
        f[14] = 0x45;
        f[14 + 3] = 20;
        f[14 + 8] = 64;
        f[14 + 9] = (byte) protocol;
        for (int i = 0; i < 4; i++) {
            f[26 + i] = (byte) src[i];
            f[30 + i] = (byte) dst[i];
        }
        return f;
    }

    private static List<Integer> ports(V1ModelSwitch sw, byte[] frame) {
        List<Integer> out = new ArrayList<>();
        for (V1ModelSwitch.Output o : sw.process(0, frame)) {
            out.add(o.port);
        }
        return out;
    }

    private TableEntry.Builder route(Rig r, int[] prefix, int len, int port) {
        return r.entry("routes", "route", b(port), b(0, 0, 0, 0, 0, 2), b(0, 0, 0, 0, 0, 1))
                .addMatch(lpm(r.field("routes", "hdr.ipv4.dst_addr"), b(prefix[0], prefix[1], prefix[2], prefix[3]), len));
    }

    @Test
    void lpmWritesReloadTheDatasetAndTheLongestPrefixWins() throws Exception {
        Rig r = new Rig(FORWARDING);
        r.write(Update.Type.INSERT, route(r, new int[] {10, 0, 0, 0}, 8, NF1));
        r.write(Update.Type.INSERT, route(r, new int[] {10, 1, 2, 0}, 24, NF2));
        byte[] toTen = ipv4(new int[] {192, 0, 2, 1}, new int[] {10, 1, 2, 3}, 6);
        assertEquals(List.of(2), ports(r.card.sw, toTen));
        r.write(Update.Type.DELETE, route(r, new int[] {10, 1, 2, 0}, 24, NF2).clearAction());
        assertEquals(List.of(1), ports(r.card.sw, toTen));
        assertEquals(Status.Code.INVALID_ARGUMENT, refused(() -> r.write(Update.Type.INSERT,
                route(r, new int[] {10, 1, 2, 3}, 24, NF2))), "bits past the prefix");
    }

    @Test
    void ternaryEntriesTakeTcamAddressesInPriorityOrder() throws Exception {
        Rig r = new Rig(FORWARDING);
        r.write(Update.Type.INSERT, route(r, new int[] {10, 0, 0, 0}, 8, NF1));
        int src = r.field("acl", "hdr.ipv4.src_addr");
        int proto = r.field("acl", "hdr.ipv4.protocol");
        TableEntry.Builder allowTen = r.entry("acl", "NoAction").setPriority(30)
                .addMatch(ternary(src, b(192, 0, 0, 0), b(255, 0, 0, 0)));
        TableEntry.Builder dropUdp = r.entry("acl", "drop").setPriority(20).addMatch(ternary(proto, b(17), b(0xff)));
        TableEntry.Builder dropAll = r.entry("acl", "drop").setPriority(10).addMatch(ternary(proto, b(0), b(0x80)));
        r.write(Update.Type.INSERT, dropAll);
        r.write(Update.Type.INSERT, allowTen);
        r.write(Update.Type.INSERT, dropUdp);
        int acl = r.tableCardId("acl");
        // address 0: priority 30 (src 192/8: key c0000000|00, mask ff000000|00), then 20, then 10
        assertArrayEquals(new BigInteger[] {new BigInteger("c000000000", 16), new BigInteger("ff00000000", 16),
                BigInteger.valueOf(2)}, r.card.tcamRead(acl, 0), "NoAction is action 2 of {drop, NoAction}");
        assertEquals(BigInteger.valueOf(17), r.card.tcamRead(acl, 1)[0]);
        assertEquals(BigInteger.valueOf(0x80), r.card.tcamRead(acl, 2)[1]);
        assertNull(r.card.tcamRead(acl, 3));
        assertEquals(List.of(allowTen.build(), dropUdp.build(), dropAll.build()), r.read("acl"));

        byte[] udp = ipv4(new int[] {192, 0, 2, 1}, new int[] {10, 1, 2, 3}, 17);
        assertEquals(List.of(1), ports(r.card.sw, udp), "priority 30 lets it through");
        r.write(Update.Type.DELETE, allowTen.clearAction());
        assertEquals(List.of(), ports(r.card.sw, udp), "now priority 20 drops it");
        assertNull(r.card.tcamRead(acl, 2), "the lower entries moved up");
        assertEquals(Status.Code.INVALID_ARGUMENT, refused(() -> r.write(Update.Type.INSERT, dropUdp.setPriority(0))));
        assertEquals(Status.Code.INVALID_ARGUMENT, refused(() -> r.write(Update.Type.INSERT,
                r.entry("acl", "drop").setPriority(5).addMatch(ternary(proto, b(17), b(0x0f))))), "value outside its mask");
    }

    @Test
    void aFullTcamIsResourceExhausted() throws Exception {
        Rig r = new Rig(FORWARDING);
        int src = r.field("acl", "hdr.ipv4.src_addr");
        int size = (int) r.table("acl").getSize();
        for (int i = 0; i < size; i++) {
            r.write(Update.Type.INSERT, r.entry("acl", "drop").setPriority(size - i)
                    .addMatch(ternary(src, b(10, i >> 8, i & 0xff, 0), b(255, 255, 255, 0))));
        }
        assertEquals(Status.Code.RESOURCE_EXHAUSTED, refused(() -> r.write(Update.Type.INSERT,
                r.entry("acl", "drop").setPriority(1).addMatch(ternary(src, b(11, 0, 0, 0), b(255, 0, 0, 0))))));
        assertEquals(CardException.Reason.BAD_ADDRESS, assertThrows(CardException.class,
                () -> r.card.tcamErase(r.tableCardId("acl"), size)).reason);
    }

    @Test
    void aCardBuiltWithAnotherProgramIsRefused() {
        CardTables other = new ModelCard(Frontend.compile(FORWARDING));
        P4Info nat64 = P4InfoBuilder.build(Frontend.compile(NAT64));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Translator(nat64, other));
        assertTrue(e.getMessage().contains("built with another program"), e.getMessage());
    }

    // ---- idle timeouts, emulated through the card's register of hit counts ----

    private static final long SECOND = 1_000_000_000L;

    /** A card hit: the pipe adds one to the slot's cell of session_hit (as session_hit_reg_raw does). */
    private static void hit(Rig r, int slot) {
        var reg = r.card.sw.program.registers.stream().filter(x -> x.name.equals("session_hit")).findFirst().orElseThrow();
        reg.put(slot, reg.get(slot).add(BigInteger.ONE));
    }

    private static int slotOf(Rig r, TableEntry.Builder e) throws CardException {
        BigInteger key = new BigInteger("11" + "20010db8000100000000000000000005", 16).shiftLeft(16)
                .or(new BigInteger(1, e.getMatch(2).getExact().getValue().toByteArray()));
        return r.card.camRead(r.tableCardId("translate.session_v6"), key).intValue() & 0x1fff;
    }

    private TableEntry.Builder sessionFrom(Rig r, int port) {
        return session(r).setMatch(2, exact(r.field("translate.session_v6", "src_port"), b(port >> 8, port & 0xff)));
    }

    @Test
    void sessionTablesHaveIdleTimeoutsTheAgentEmulatesThroughTheCardsHitCounts() throws Exception {
        long[] now = {0};
        Rig r = new Rig(Frontend.compile(NAT64), () -> now[0]);
        assertEquals(P4InfoOuterClass.Table.IdleTimeoutBehavior.NOTIFY_CONTROL, r.table("translate.session_v6").getIdleTimeoutBehavior());
        assertEquals(4, r.action("translate.snat").getParamsCount(), "the slot is not the controller's");
        TableEntry.Builder busy = sessionFrom(r, 5000).setIdleTimeoutNs(SECOND);
        TableEntry.Builder idle = sessionFrom(r, 5001).setIdleTimeoutNs(SECOND);
        TableEntry.Builder forever = sessionFrom(r, 5002);
        r.write(Update.Type.INSERT, busy);
        r.write(Update.Type.INSERT, idle);
        r.write(Update.Type.INSERT, forever);
        int busySlot = slotOf(r, busy);
        int idleSlot = slotOf(r, idle);
        assertTrue(busySlot != idleSlot && slotOf(r, forever) != busySlot && slotOf(r, forever) != idleSlot);

        now[0] = SECOND / 2;
        hit(r, busySlot);
        assertEquals(List.of(), r.translator.pollIdle());
        now[0] = SECOND + SECOND / 5;
        assertEquals(List.of(idle.build()), r.translator.pollIdle(), "reported as written");

        // time_since_last_hit when asked for: from the read that saw the hit, the last notification
        // (P4Runtime: it resets the entry's timer) or the insertion
        now[0] = SECOND + SECOND / 2;
        List<TableEntry> read = new ArrayList<>();
        for (Entity e : r.translator.read(Entity.newBuilder().setTableEntry(TableEntry.newBuilder()
                .setTableId(r.table("translate.session_v6").getPreamble().getId())
                .setTimeSinceLastHit(TableEntry.IdleTimeout.getDefaultInstance())).build())) {
            read.add(e.getTableEntry());
        }
        assertEquals(List.of(SECOND, SECOND / 2 - SECOND / 5, SECOND + SECOND / 2),
                read.stream().map(e -> e.getTimeSinceLastHit().getElapsedNs()).collect(java.util.stream.Collectors.toList()));
        assertEquals(busy.build(), read.get(0).toBuilder().clearTimeSinceLastHit().build());
        assertTrue(r.read("translate.session_v6").stream().noneMatch(TableEntry::hasTimeSinceLastHit), "only when asked for");

        assertEquals(List.of(busy.build()), r.translator.pollIdle(), "idle for its second since the hit seen at 0.5 s");
        now[0] = 2 * SECOND + SECOND / 5;
        assertEquals(List.of(idle.build()), r.translator.pollIdle(), "again a period later while idle");
        now[0] = 2 * SECOND + SECOND * 3 / 10;
        assertEquals(List.of(), r.translator.pollIdle(), "not again within a period");

        // a MODIFY keeps the slot and counts its new timeout from the last hit; a DELETE frees the slot
        r.write(Update.Type.MODIFY, busy.setIdleTimeoutNs(10 * SECOND));
        assertEquals(busySlot, slotOf(r, busy));
        r.write(Update.Type.DELETE, idle);
        assertEquals(2, r.translator.slotsInUse());
        now[0] = 5 * SECOND;
        assertEquals(List.of(), r.translator.pollIdle(), "busy is due at 10.5 s; the entry without a timeout never");
    }
}
