package org.nat64fabric.softswitch.server;

import com.google.protobuf.Any;
import com.google.rpc.Code;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.util.List;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.Error;
import p4.v1.P4RuntimeOuterClass.ReadRequest;
import p4.v1.P4RuntimeOuterClass.ReadResponse;
import p4.v1.P4RuntimeOuterClass.WriteResponse;

/**
 * How a P4Runtime server answers a Write and a Read, the same for every target that speaks it
 * (softswitch, and the NetFPGA SUME agent, which uses this class).
 */
public final class Answers {
    private static final int READ_BATCH = 1000;
    /** The largest Write status sent with its per-update details: 5 KiB, 6.7 KiB in base64, under 8 KiB with the rest. */
    private static final int MAX_STATUS_BYTES = 5 * 1024;
    /** A p4.v1.Error message longer than this is cut (the message is in the trailer twice: the first failure's too). */
    private static final int MAX_MESSAGE_CHARS = 300;

    private Answers() {
    }

    /**
     * Answers a Write whose updates were applied one by one, {@code errors} holding one
     * p4.v1.Error per update in order: OK when all are, else (P4Runtime 12.3) UNKNOWN with them all.
     */
    public static void write(List<Error> errors, StreamObserver<WriteResponse> response) {
        if (allOk(errors)) {
            response.onNext(WriteResponse.getDefaultInstance());
            response.onCompleted();
            return;
        }
        response.onError(StatusProto.toStatusRuntimeException(failed(Code.UNKNOWN_VALUE, errors, "update")));
    }

    /**
     * Answers a Read with what its requests found, in responses of at most 1000 entities (at least
     * one), {@code errors} holding one p4.v1.Error per request in order. Where one failed, the stream
     * ends (P4Runtime 11.3) with UNKNOWN and them all, after the entities of the others; so does a
     * read of a single request (PI answers that one with the request's own code; the specification
     * asks for UNKNOWN whatever the batch's size).
     */
    /** P4Runtime 11.1: an Entity that sets none is no wildcard of everything; the whole read is INVALID_ARGUMENT. */
    public static void requireEntitiesSet(ReadRequest request) throws StatusException {
        for (int i = 0; i < request.getEntitiesCount(); i++) {
            if (request.getEntities(i).getEntityCase() == Entity.EntityCase.ENTITY_NOT_SET) {
                throw Status.INVALID_ARGUMENT.withDescription("entities[" + i + "] sets no entity: name a kind"
                        + " (table_entry { } reads every table's entries)").asException();
            }
        }
    }

    public static void read(List<Entity> found, List<Error> errors, StreamObserver<ReadResponse> response) {
        for (int i = 0; i < found.size() || i == 0 && allOk(errors); i += READ_BATCH) {
            response.onNext(ReadResponse.newBuilder()
                    .addAllEntities(found.subList(i, Math.min(found.size(), i + READ_BATCH))).build());
        }
        if (allOk(errors)) {
            response.onCompleted();
            return;
        }
        // 13 ("Batch Processing"): UNKNOWN, with each request's p4.Error, however many there were
        response.onError(StatusProto.toStatusRuntimeException(failed(Code.UNKNOWN_VALUE, errors, "request")));
    }

    private static boolean allOk(List<Error> errors) {
        return errors.stream().allMatch(e -> e.getCanonicalCode() == Code.OK_VALUE);
    }

    /** The status of a batch that failed: {@code code}, the first failure's message, one detail per item of the batch while they fit. */
    private static com.google.rpc.Status failed(int code, List<Error> errors, String item) {
        com.google.rpc.Status.Builder status = com.google.rpc.Status.newBuilder().setCode(code)
                .setMessage(firstError(errors, item));
        for (Error e : errors) {
            status.addDetails(Any.pack(e));
        }
        int size = status.build().getSerializedSize();
        if (size > MAX_STATUS_BYTES) {
            // Every item's code still, without the messages (the first failure's is in the status's own).
            status.clearDetails();
            for (Error e : errors) {
                status.addDetails(Any.pack(Error.newBuilder().setCanonicalCode(e.getCanonicalCode()).build()));
            }
        }
        if (status.build().getSerializedSize() > MAX_STATUS_BYTES) {
            // The details travel base64 in the trailer, and gRPC clients take trailers of 8 KiB by default
            // (grpc-java, grpc-python): beyond it the client gets a reset stream and no status at all.
            status.clearDetails().setMessage(firstError(errors, item) + "; the " + errors.size() + " per-" + item
                    + " errors (" + size + " bytes) are left out, more than a gRPC trailer carries to a client "
                    + "with default limits: send smaller batches to have them");
        }
        return status.build();
    }

    /**
     * The summary of a batch's errors: how many failed and the first that failed of itself (under
     * ROLLBACK_ON_ERROR the others are ABORTED because of it), numbered from 0 as the details are.
     */
    private static String firstError(List<Error> errors, String item) {
        int failed = 0;
        int first = -1;
        for (int i = 0; i < errors.size(); i++) {
            int code = errors.get(i).getCanonicalCode();
            if (code != Code.OK_VALUE) {
                failed++;
                if (first < 0 || errors.get(first).getCanonicalCode() == Code.ABORTED_VALUE && code != Code.ABORTED_VALUE) {
                    first = i;
                }
            }
        }
        String cause = item + " " + first + ": " + Code.forNumber(errors.get(first).getCanonicalCode()) + ": "
                + bounded(errors.get(first).getMessage());
        return failed == 1 ? cause : failed + " " + item + "s failed; " + (errors.get(first).getCanonicalCode()
                == Code.ABORTED_VALUE ? "first: " : "the cause: ") + cause;
    }

    /** A message cut to MAX_MESSAGE_CHARS, saying so. */
    public static String bounded(String message) {
        return message.length() <= MAX_MESSAGE_CHARS ? message
                : message.substring(0, MAX_MESSAGE_CHARS) + "... (" + message.length() + " characters)";
    }
}
