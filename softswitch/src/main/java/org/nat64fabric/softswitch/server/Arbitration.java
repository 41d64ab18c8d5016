package org.nat64fabric.softswitch.server;

import com.google.rpc.Code;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.ServerCallStreamObserver;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.Uint128;

/**
 * Primary election per role (P4Runtime §5): the connected controller with the highest election_id
 * is the primary, as long as no higher one was seen for the role; the others are backups, and so
 * is a controller that sends no election_id at all.
 */
final class Arbitration {
    /** One stream channel and what it declared. */
    static final class Controller {
        private final ServerCallStreamObserver<StreamMessageResponse> out;
        private String role;
        /** Null for a backup that sent no election_id. */
        private BigInteger electionId;
        private MasterArbitrationUpdate request;
        private boolean closed;

        Controller(ServerCallStreamObserver<StreamMessageResponse> out) {
            this.out = out;
        }

        synchronized void send(StreamMessageResponse m) {
            if (!closed) {
                try {
                    out.onNext(m);
                } catch (RuntimeException e) {
                    closed = true;   // the client went away; its stream's onError removes it
                }
            }
        }

        /** Sends unless the client is not reading (then the message is dropped, not queued). */
        synchronized boolean offer(StreamMessageResponse m) {
            if (closed || !out.isReady()) {
                return false;
            }
            send(m);
            return true;
        }

        synchronized void fail(Status status) {
            if (!closed) {
                closed = true;
                out.onError(status.asRuntimeException());
            }
        }

        synchronized void close() {
            if (!closed) {
                closed = true;
                out.onCompleted();
            }
        }
    }

    private final List<Controller> controllers = new ArrayList<>();
    private final Map<String, BigInteger> highestSeen = new HashMap<>();

    /** Whether the controller has sent an arbitration update that was accepted. */
    synchronized boolean isLive(Controller c) {
        return c.role != null;
    }

    /**
     * Records a controller's arbitration update (electionId null: a backup that sent none);
     * returns the status that closes its stream (P4Runtime 5.4), or null.
     */
    synchronized Status update(Controller c, String role, BigInteger electionId, MasterArbitrationUpdate request, Device device) {
        if (c.role != null && !c.role.equals(role)) {
            return Status.FAILED_PRECONDITION.withDescription("this stream is for " + roleName(c.role) + ", not "
                    + roleName(role) + ": open another stream to change roles");
        }
        for (Controller o : controllers) {
            if (o != c && electionId != null && role.equals(o.role) && electionId.equals(o.electionId)) {
                // PI's words, which clients look for.
                return Status.INVALID_ARGUMENT.withDescription("Election id already exists: " + electionId
                        + " is used by another controller of " + roleName(role));
            }
        }
        Controller before = primary(role);
        controllers.remove(c);
        c.role = role;
        c.electionId = electionId;
        c.request = request;
        controllers.add(c);
        if (electionId != null) {
            highestSeen.merge(role, electionId, BigInteger::max);
        }
        Controller after = primary(role);
        if (before != after) {
            notifyRole(role, device);
        } else {
            notifyOne(c, device);
        }
        return null;
    }

    private static String roleName(String role) {
        return role.isEmpty() ? "the default role" : "role " + role;
    }

    synchronized void remove(Controller c, Device device) {
        if (controllers.remove(c) && c.role != null) {
            notifyRole(c.role, device);
        }
    }

    synchronized boolean isPrimary(Controller c) {
        return c.role != null && primary(c.role) == c;
    }

    /** Writes and pipeline changes come only from the primary of their role, with its election_id. */
    synchronized void checkPrimary(String role, Uint128 electionId) throws StatusException {
        Controller p = primary(role);
        if (p == null || !p.electionId.equals(P4RuntimeService.electionId(electionId))) {
            throw Status.PERMISSION_DENIED.withDescription("election_id " + P4RuntimeService.electionId(electionId)
                    + " is not the primary's for " + roleName(role)
                    + (p == null ? " (there is no primary: open a stream and send arbitration first)" : "")).asException();
        }
    }

    /** Packet-ins and notifications go to the primary of every role; a slow reader loses them. */
    void sendToPrimaries(StreamMessageResponse m, Device device) {
        List<Controller> primaries = new ArrayList<>();
        synchronized (this) {
            for (String role : highestSeen.keySet()) {
                Controller p = primary(role);
                if (p != null) {
                    primaries.add(p);
                }
            }
        }
        if (primaries.isEmpty()) {
            device.count((m.hasPacket() ? "packet-in" : "notification") + ": dropped (no primary controller)");
        }
        for (Controller p : primaries) {
            if (!p.offer(m)) {
                device.count((m.hasPacket() ? "packet-in" : "notification") + ": dropped (controller not reading)");
            }
        }
    }

    private Controller primary(String role) {
        Controller best = null;
        for (Controller c : controllers) {
            if (role.equals(c.role) && c.electionId != null && (best == null || c.electionId.compareTo(best.electionId) > 0)) {
                best = c;
            }
        }
        return best != null && best.electionId.equals(highestSeen.get(role)) ? best : null;
    }

    private void notifyRole(String role, Device device) {
        for (Controller c : controllers) {
            if (role.equals(c.role)) {
                notifyOne(c, device);
            }
        }
    }

    private void notifyOne(Controller c, Device device) {
        Controller p = primary(c.role);
        BigInteger highest = highestSeen.get(c.role);
        com.google.rpc.Status status = p == c
                ? com.google.rpc.Status.newBuilder().setCode(Code.OK_VALUE).setMessage("you are the primary").build()
                : p != null
                ? com.google.rpc.Status.newBuilder().setCode(Code.ALREADY_EXISTS_VALUE).setMessage("a primary is connected").build()
                : com.google.rpc.Status.newBuilder().setCode(Code.NOT_FOUND_VALUE).setMessage("there is no primary").build();
        MasterArbitrationUpdate.Builder b = MasterArbitrationUpdate.newBuilder().setDeviceId(device.deviceId).setStatus(status);
        if (highest != null) {   // unset while the role has never had a primary
            b.setElectionId(Uint128.newBuilder().setHigh(highest.shiftRight(64).longValue()).setLow(highest.longValue()));
        }
        if (c.request.hasRole()) {
            b.setRole(c.request.getRole());
        }
        c.send(StreamMessageResponse.newBuilder().setArbitration(b).build());
    }
}
