package org.nat64fabric.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Any;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.Error;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;

class P4RuntimeLinkTest {
    private static Update update(Update.Type type, int table) {
        return Update.newBuilder().setType(type)
                .setEntity(Entity.newBuilder().setTableEntry(TableEntry.newBuilder().setTableId(table))).build();
    }

    /** A Write's failure as a P4Runtime server answers it: UNKNOWN, one p4.Error per update (P4Runtime 12.3). */
    private static StatusRuntimeException failed(io.grpc.Status.Code... perUpdate) {
        com.google.rpc.Status.Builder s = com.google.rpc.Status.newBuilder().setCode(io.grpc.Status.Code.UNKNOWN.value());
        for (io.grpc.Status.Code c : perUpdate) {
            s.addDetails(Any.pack(Error.newBuilder().setCanonicalCode(c.value()).build()));
        }
        return StatusProto.toStatusRuntimeException(s.build());
    }

    @Test
    void staleUpdatesAreSettledWithoutAReconciliation() {
        List<Update> sent = List.of(update(Update.Type.INSERT, 1), update(Update.Type.MODIFY, 2),
                update(Update.Type.DELETE, 3), update(Update.Type.INSERT, 4));
        Optional<List<Update>> again = P4RuntimeLink.settling(sent, failed(io.grpc.Status.Code.ALREADY_EXISTS,
                io.grpc.Status.Code.NOT_FOUND, io.grpc.Status.Code.NOT_FOUND, io.grpc.Status.Code.OK));
        assertEquals(Optional.of(List.of(update(Update.Type.MODIFY, 1), update(Update.Type.INSERT, 2))), again,
                "an entry there already is modified, one gone is inserted, a delete of one gone is done");
    }

    @Test
    void anyOtherFailureOrAnAnswerWithoutPerUpdateErrorsIsNoStaleWrite() {
        List<Update> sent = List.of(update(Update.Type.INSERT, 1), update(Update.Type.DELETE, 2));
        assertTrue(P4RuntimeLink.settling(sent, failed(io.grpc.Status.Code.OK,
                io.grpc.Status.Code.INVALID_ARGUMENT)).isEmpty());
        assertTrue(P4RuntimeLink.settling(sent, failed(io.grpc.Status.Code.NOT_FOUND,
                io.grpc.Status.Code.OK)).isEmpty(), "an insert NOT_FOUND is no stale write");
        assertTrue(P4RuntimeLink.settling(sent, failed(io.grpc.Status.Code.ALREADY_EXISTS)).isEmpty(),
                "errors for some updates only (a trailer cut short)");
        assertTrue(P4RuntimeLink.settling(sent, io.grpc.Status.UNAVAILABLE.asRuntimeException()).isEmpty());
    }
}
