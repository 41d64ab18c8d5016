package org.nat64fabric.softswitch.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import java.math.BigInteger;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;

/** P4Runtime entities written to and read back from a switch, and the error codes of bad ones. */
class EntitiesTest {
    private Program program;
    private Entities entities;
    private int table;
    private int action;

    @BeforeEach
    void setUp() {
        program = Frontend.compile(Path.of("examples/l3_forwarding.p4"));
        P4Info info = P4InfoBuilder.build(program);
        entities = new Entities(new V1ModelSwitch(program), info);
        table = info.getTablesList().stream().filter(t -> t.getPreamble().getName().equals("L3Ingress.ipv4_lpm"))
                .findFirst().orElseThrow().getPreamble().getId();
        action = info.getActionsList().stream().filter(a -> a.getPreamble().getName().equals("L3Ingress.set_next_hop_v4"))
                .findFirst().orElseThrow().getPreamble().getId();
    }

    private TableEntry route(long prefix, int length, long port) {
        TableEntry.Builder b = TableEntry.newBuilder().setTableId(table);
        b.addMatchBuilder().setFieldId(1).getLpmBuilder()
                .setValue(Entities.bytes(BigInteger.valueOf(prefix))).setPrefixLen(length);
        var a = b.getActionBuilder().getActionBuilder().setActionId(action);
        a.addParamsBuilder().setParamId(1).setValue(Entities.bytes(BigInteger.valueOf(port)));
        a.addParamsBuilder().setParamId(2).setValue(Entities.bytes(BigInteger.ONE));
        a.addParamsBuilder().setParamId(3).setValue(Entities.bytes(BigInteger.TWO));
        return b.build();
    }

    private void write(Update.Type type, TableEntry e) throws EntityException {
        entities.apply(type, Entity.newBuilder().setTableEntry(e).build());
    }

    @Test
    void insertReadModifyDelete() throws Exception {
        TableEntry e = route(0x0a000000L, 8, 2);
        write(Update.Type.INSERT, e);
        assertEquals(e, entities.read(program.table("L3Ingress.ipv4_lpm")).get(0));
        write(Update.Type.MODIFY, route(0x0a000000L, 8, 5));
        assertEquals(route(0x0a000000L, 8, 5), entities.read(program.table("L3Ingress.ipv4_lpm")).get(0));
        write(Update.Type.DELETE, e);
        assertEquals(0, entities.read(program.table("L3Ingress.ipv4_lpm")).size());
    }

    @Test
    void badEntitiesGetTheirP4RuntimeCodes() throws Exception {
        write(Update.Type.INSERT, route(0x0a000000L, 8, 2));
        assertEquals(EntityException.Code.ALREADY_EXISTS,
                assertThrows(EntityException.class, () -> write(Update.Type.INSERT, route(0x0a000000L, 8, 2))).code());
        assertEquals(EntityException.Code.NOT_FOUND,
                assertThrows(EntityException.class, () -> write(Update.Type.DELETE, route(0x0b000000L, 8, 2))).code());
        assertEquals(EntityException.Code.NOT_FOUND, assertThrows(EntityException.class,
                () -> write(Update.Type.INSERT, route(0x0a000000L, 8, 2).toBuilder().setTableId(7).build())).code());
        assertEquals(EntityException.Code.OUT_OF_RANGE,
                assertThrows(EntityException.class, () -> write(Update.Type.INSERT, route(0x0c000000L, 8, 600))).code(),
                "port 600 does not fit in bit<9>");
        assertEquals(EntityException.Code.INVALID_ARGUMENT,
                assertThrows(EntityException.class, () -> write(Update.Type.INSERT, route(0x0a0000ffL, 8, 2))).code(),
                "bits beyond the prefix must be zero");
        TableEntry withPriority = route(0x0d000000L, 8, 2).toBuilder().setPriority(10).build();
        assertEquals(EntityException.Code.INVALID_ARGUMENT,
                assertThrows(EntityException.class, () -> write(Update.Type.INSERT, withPriority)).code());
        TableEntry noParams = route(0x0e000000L, 8, 2).toBuilder()
                .setAction(route(0x0e000000L, 8, 2).getAction().toBuilder().setAction(
                        route(0x0e000000L, 8, 2).getAction().getAction().toBuilder().clearParams())).build();
        assertEquals(EntityException.Code.INVALID_ARGUMENT,
                assertThrows(EntityException.class, () -> write(Update.Type.INSERT, noParams)).code());
        assertEquals(1, program.table("L3Ingress.ipv4_lpm").entryCount(), "failed writes change nothing");
        assertEquals(ByteString.copyFrom(new byte[] {0x0a, 0, 0, 0}), Entities.bytes(BigInteger.valueOf(0x0a000000L)));
    }
}
