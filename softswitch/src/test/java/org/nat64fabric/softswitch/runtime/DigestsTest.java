package org.nat64fabric.softswitch.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.softswitch.testutil.P4Programs.bytes;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.frontend.P4CompileException;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.testutil.P4Programs;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4DataOuterClass.P4Data;
import p4.v1.P4RuntimeOuterClass.DigestEntry;
import p4.v1.P4RuntimeOuterClass.DigestList;
import p4.v1.P4RuntimeOuterClass.DigestListAck;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.Update;

/** examples/mac_learning.p4's learn_t digest: P4Info, DigestEntry writes, lists, batching and acks. */
class DigestsTest {
    @TempDir
    Path dir;

    private V1ModelSwitch sw;
    private Entities entities;
    private P4Info info;
    private int digestId;
    private final List<DigestList> lists = new ArrayList<>();

    @BeforeEach
    void setUp() {
        Program program = Frontend.compile(Path.of("examples/mac_learning.p4"));
        info = P4InfoBuilder.build(program);
        sw = new V1ModelSwitch(program);
        entities = new Entities(sw, info);
        entities.digests().sendTo(lists::add);   // taken: add returns true
        digestId = info.getDigests(0).getPreamble().getId();
    }

    private static byte[] frame(int src) {
        return bytes("000000000099 0000000000" + String.format("%02x", src) + " 88b5 00000000");
    }

    private Entity entry(long maxTimeoutNs, int maxListSize, long ackTimeoutNs) {
        return Entity.newBuilder().setDigestEntry(DigestEntry.newBuilder().setDigestId(digestId).setConfig(DigestEntry.Config
                .newBuilder().setMaxTimeoutNs(maxTimeoutNs).setMaxListSize(maxListSize).setAckTimeoutNs(ackTimeoutNs))).build();
    }

    private static List<Long> fields(P4Data data) {
        List<Long> out = new ArrayList<>();
        for (P4Data m : data.getStruct().getMembersList()) {
            out.add(new BigInteger(1, m.getBitstring().toByteArray()).longValue());
        }
        return out;
    }

    @Test
    void p4InfoDescribesTheDigestByItsStruct() {
        P4InfoOuterClass.Digest d = info.getDigests(0);
        assertEquals("learn_t", d.getPreamble().getName());
        assertEquals(0x17, d.getPreamble().getId() >>> 24, "P4Ids.Prefix.DIGEST");
        assertEquals("learn_t", d.getTypeSpec().getStruct().getName());
        var members = info.getTypeInfo().getStructsMap().get("learn_t").getMembersList();
        assertEquals(List.of("src_addr", "ingress_port"), members.stream().map(m -> m.getName()).collect(java.util.stream.Collectors.toList()));
        assertEquals(List.of(48, 9), members.stream().map(m -> m.getTypeSpec().getBitstring().getBit().getBitwidth()).collect(java.util.stream.Collectors.toList()));
    }

    @Test
    void nothingIsSentUntilConfiguredThenEachDigestAtOnce() throws Exception {
        sw.process(3, frame(1));
        assertTrue(lists.isEmpty(), "no DigestEntry yet");
        entities.apply(Update.Type.INSERT, entry(0, 1, 1_000_000_000L));
        sw.process(3, frame(1));
        sw.process(4, frame(2));
        assertEquals(2, lists.size());
        assertEquals(digestId, lists.get(0).getDigestId());
        assertEquals(List.of(1L, 3L), fields(lists.get(0).getData(0)), "source address and ingress port");
        assertEquals(List.of(2L, 4L), fields(lists.get(1).getData(0)));
        assertTrue(lists.get(1).getListId() != lists.get(0).getListId());
        assertTrue(lists.get(0).getTimestamp() > 0);
        assertEquals(List.of(entry(0, 1, 1_000_000_000L)), entities.read(Entity.newBuilder()
                .setDigestEntry(DigestEntry.getDefaultInstance()).build()));
    }

    @Test
    void unacknowledgedDataIsNotSentAgainUntilAckedOrTimedOut() throws Exception {
        entities.apply(Update.Type.INSERT, entry(0, 1, 60_000_000_000L));
        sw.process(3, frame(1));
        sw.process(3, frame(1));
        assertEquals(1, lists.size(), "the same data waits for the ack");
        entities.digests().ack(DigestListAck.newBuilder().setDigestId(digestId).setListId(lists.get(0).getListId()).build());
        sw.process(3, frame(1));
        assertEquals(2, lists.size(), "acknowledged: sent again");
        entities.digests().flushDue(System.nanoTime() + 61_000_000_000L);
        sw.process(3, frame(1));
        assertEquals(3, lists.size(), "the ack timeout passed: sent again");
    }

    @Test
    void listsGatherUpToMaxListSizeOrUntilMaxTimeout() throws Exception {
        entities.apply(Update.Type.INSERT, entry(10_000_000_000L, 3, 0));
        for (int src = 1; src <= 4; src++) {
            sw.process(5, frame(src));
        }
        assertEquals(1, lists.size(), "a full list of 3 goes at once; the 4th waits");
        assertEquals(3, lists.get(0).getDataCount());
        entities.digests().flushDue(System.nanoTime());
        assertEquals(1, lists.size(), "its max_timeout has not passed");
        entities.digests().flushDue(System.nanoTime() + 11_000_000_000L);
        assertEquals(2, lists.size());
        assertEquals(List.of(4L, 5L), fields(lists.get(1).getData(0)));
    }

    @Test
    void digestEntryWritesHaveTheSpecifiedCodes() throws Exception {
        assertEquals(EntityException.Code.NOT_FOUND, assertThrows(EntityException.class,
                () -> entities.apply(Update.Type.MODIFY, entry(0, 1, 0))).code());
        entities.apply(Update.Type.INSERT, entry(0, 1, 0));
        assertEquals(EntityException.Code.ALREADY_EXISTS, assertThrows(EntityException.class,
                () -> entities.apply(Update.Type.INSERT, entry(0, 1, 0))).code());
        assertEquals(EntityException.Code.INVALID_ARGUMENT, assertThrows(EntityException.class,
                () -> entities.apply(Update.Type.MODIFY, entry(-1, 1, 0))).code());
        Entity noConfig = Entity.newBuilder().setDigestEntry(DigestEntry.newBuilder().setDigestId(digestId)).build();
        assertEquals(EntityException.Code.INVALID_ARGUMENT, assertThrows(EntityException.class,
                () -> entities.apply(Update.Type.MODIFY, noConfig)).code());
        Entity unknown = Entity.newBuilder().setDigestEntry(DigestEntry.newBuilder().setDigestId(0x17000001)).build();
        assertEquals(EntityException.Code.NOT_FOUND, assertThrows(EntityException.class,
                () -> entities.apply(Update.Type.DELETE, unknown)).code());
        entities.apply(Update.Type.DELETE, noConfig);
        sw.process(3, frame(1));
        assertTrue(lists.isEmpty(), "deleted: no more digests");
    }

    @Test
    void boolEnumAndErrorFieldsAreSentAsP4DataNamesThem() throws Exception {
        String headers = "header h_t { bit<8> a; bit<8> b; }\nstruct headers_t { h_t h; }\n"
                + "enum Color { RED, GREEN }\nenum bit<8> Kind { DATA = 7, CONTROL = 9 }\n"
                + "struct d_t { bit<8> a; bool urgent; Color c; Kind k; error e; }\nstruct meta_t { }\n";
        Program p = P4Programs.compile(dir, P4Programs.v1(headers, "state start { pkt.extract(hdr.h); transition accept; }",
                "", "digest<d_t>(1, { hdr.h.a, hdr.h.b == 1, hdr.h.b == 1 ? Color.GREEN : Color.RED, Kind.CONTROL,"
                        + " sm.parser_error });", "", "pkt.emit(hdr.h);"));
        P4Info described = P4InfoBuilder.build(p);
        var types = described.getTypeInfo();
        var members = types.getStructsMap().get("d_t").getMembersList();
        assertTrue(members.get(1).getTypeSpec().hasBool());
        assertEquals("Color", members.get(2).getTypeSpec().getEnum().getName());
        assertEquals(List.of("RED", "GREEN"), types.getEnumsMap().get("Color").getMembersList().stream()
                .map(m -> m.getName()).collect(java.util.stream.Collectors.toList()));
        assertEquals("Kind", members.get(3).getTypeSpec().getSerializableEnum().getName());
        assertTrue(types.getSerializableEnumsMap().containsKey("Kind"));
        assertTrue(members.get(4).getTypeSpec().hasError() && types.getError().getMembersList().contains("NoError"));

        V1ModelSwitch typed = new V1ModelSwitch(p);
        Entities typedEntities = new Entities(typed, described);
        List<DigestList> sent = new ArrayList<>();
        typedEntities.digests().sendTo(sent::add);
        typedEntities.apply(Update.Type.INSERT, Entity.newBuilder().setDigestEntry(DigestEntry.newBuilder()
                .setDigestId(described.getDigests(0).getPreamble().getId()).setConfig(DigestEntry.Config.newBuilder()
                        .setMaxTimeoutNs(0).setMaxListSize(1))).build());
        typed.process(1, bytes("2a 01"));
        List<P4Data> data = sent.get(0).getData(0).getStruct().getMembersList();
        assertEquals(42, new BigInteger(1, data.get(0).getBitstring().toByteArray()).intValue());
        assertTrue(data.get(1).getBool());
        assertEquals("GREEN", data.get(2).getEnum());
        assertEquals(9, new BigInteger(1, data.get(3).getEnumValue().toByteArray()).intValue());
        assertEquals("NoError", data.get(4).getError());
    }

    @Test
    void aStructValueIsSentAndBadDigestsAreLocatedErrors() {
        String headers = "header h_t { bit<8> a; bit<8> b; }\nstruct headers_t { h_t h; }\n"
                + "struct d_t { bit<8> a; bit<16> b; }\nstruct meta_t { d_t d; }\n";
        Program p = P4Programs.compile(dir, P4Programs.v1(headers, "state start { pkt.extract(hdr.h); transition accept; }",
                "", "meta.d.a = hdr.h.a; meta.d.b = 16w0x1234; digest(1, meta.d);", "", "pkt.emit(hdr.h);"));
        assertEquals("d_t", p.digests.get(0).name);
        assertTrue(assertThrows(P4CompileException.class, () -> P4Programs.compile(dir, P4Programs.v1(headers,
                "state start { pkt.extract(hdr.h); transition accept; }", "", "digest(1, hdr.h);", "", "pkt.emit(hdr.h);")))
                .getMessage().contains("digest data must be a struct"));
        assertTrue(assertThrows(P4CompileException.class, () -> P4Programs.compile(dir, P4Programs.v1(headers,
                "state start { pkt.extract(hdr.h); transition accept; }", "", "digest<d_t>(1, { hdr.h.a });", "",
                "pkt.emit(hdr.h);"))).getMessage().contains("has 1 value(s); d_t has 2 field(s)"));
    }
}
