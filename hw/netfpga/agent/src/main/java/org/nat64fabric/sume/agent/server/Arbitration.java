package org.nat64fabric.sume.agent.server;

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
 * Primary election per role (P4Runtime §5): of the connected controllers of a role, the one with
 * the highest election_id is the primary, unless a higher one was seen for the role; others are
 * backups. Every controller of a role hears when its primary changes.
 */
final class Arbitration {
    /** One stream channel and what it declared. */
    static final class Controller {
        private final ServerCallStreamObserver<StreamMessageResponse> out;
        String role;
        BigInteger electionId;
        MasterArbitrationUpdate request;
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

        /** Sends unless the client is not reading: then the message is dropped, not queued. */
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
    }

    private final long deviceId;
    private final List<Controller> controllers = new ArrayList<>();
    private final Map<String, BigInteger> highestSeen = new HashMap<>();

    Arbitration(long deviceId) {
        this.deviceId = deviceId;
    }

    /** Records a controller's arbitration update; returns a problem that closes its stream, or null. */
    synchronized String update(Controller c, String role, BigInteger electionId, MasterArbitrationUpdate request) {
        for (Controller o : controllers) {
            if (o != c && role.equals(o.role) && electionId.equals(o.electionId)) {
                return "election_id " + electionId + " is already used by another controller of " + roleName(role);
            }
        }
        String oldRole = c.role;
        Controller before = primary(role);
        controllers.remove(c);
        c.role = role;
        c.electionId = electionId;
        c.request = request;
        controllers.add(c);
        highestSeen.merge(role, electionId, BigInteger::max);
        if (before != primary(role)) {
            notifyRole(role);
        } else {
            notifyOne(c);
        }
        if (oldRole != null && !oldRole.equals(role)) {
            notifyRole(oldRole);
        }
        return null;
    }

    synchronized void remove(Controller c) {
        if (controllers.remove(c) && c.role != null) {
            notifyRole(c.role);
        }
    }

    synchronized boolean isPrimary(Controller c) {
        return c.role != null && primary(c.role) == c;
    }

    /** Writes and pipeline changes come only from the primary of their role, with its election_id. */
    synchronized void checkPrimary(String role, Uint128 electionId) throws StatusException {
        Controller p = primary(role);
        BigInteger id = electionId(electionId);
        if (p == null || !p.electionId.equals(id)) {
            throw Status.PERMISSION_DENIED.withDescription("election_id " + id + " is not the primary's for " + roleName(role)
                    + (p == null ? " (there is no primary: open a stream and send arbitration first)" : "")).asException();
        }
    }

    /** Packet-ins go to the primary of every role; false when none took it. */
    boolean sendToPrimaries(StreamMessageResponse m) {
        List<Controller> primaries = new ArrayList<>();
        synchronized (this) {
            for (String role : highestSeen.keySet()) {
                Controller p = primary(role);
                if (p != null) {
                    primaries.add(p);
                }
            }
        }
        boolean sent = false;
        for (Controller p : primaries) {
            sent |= p.offer(m);
        }
        return sent;
    }

    static BigInteger electionId(Uint128 id) {
        return new BigInteger(1, java.nio.ByteBuffer.allocate(16).putLong(id.getHigh()).putLong(id.getLow()).array());
    }

    private static String roleName(String role) {
        return role.isEmpty() ? "the default role" : "role " + role;
    }

    private Controller primary(String role) {
        Controller best = null;
        for (Controller c : controllers) {
            if (role.equals(c.role) && (best == null || c.electionId.compareTo(best.electionId) > 0)) {
                best = c;
            }
        }
        return best != null && best.electionId.equals(highestSeen.get(role)) ? best : null;
    }

    private void notifyRole(String role) {
        for (Controller c : controllers) {
            if (role.equals(c.role)) {
                notifyOne(c);
            }
        }
    }

    private void notifyOne(Controller c) {
        Controller p = primary(c.role);
        BigInteger highest = highestSeen.get(c.role);
        com.google.rpc.Status status = p == c
                ? com.google.rpc.Status.newBuilder().setCode(Code.OK_VALUE).setMessage("you are the primary").build()
                : p != null
                ? com.google.rpc.Status.newBuilder().setCode(Code.ALREADY_EXISTS_VALUE).setMessage("a primary is connected").build()
                : com.google.rpc.Status.newBuilder().setCode(Code.NOT_FOUND_VALUE).setMessage("there is no primary").build();
        MasterArbitrationUpdate.Builder b = MasterArbitrationUpdate.newBuilder().setDeviceId(deviceId)
                .setElectionId(Uint128.newBuilder().setHigh(highest.shiftRight(64).longValue()).setLow(highest.longValue()))
                .setStatus(status);
        if (c.request.hasRole()) {
            b.setRole(c.request.getRole());
        }
        c.send(StreamMessageResponse.newBuilder().setArbitration(b).build());
    }
}
