package org.nat64fabric.softswitch.server;

import com.google.rpc.Code;
import com.google.protobuf.Message;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.stub.ServerCallStreamObserver;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.nat64fabric.softswitch.runtime.NewerFields;
import p4.v1.P4RuntimeOuterClass.MasterArbitrationUpdate;
import p4.v1.P4RuntimeOuterClass.SetForwardingPipelineConfigRequest;
import p4.v1.P4RuntimeOuterClass.StreamMessageResponse;
import p4.v1.P4RuntimeOuterClass.Uint128;
import p4.v1.P4RuntimeOuterClass.WriteRequest;

/**
 * Primary election per role (P4Runtime §5): the connected controller with the highest election_id
 * is the primary, as long as no higher one was seen for the role; the others are backups, and so
 * is a controller that sends no election_id at all. Shared by every P4Runtime server of the
 * project (softswitch, the NetFPGA SUME agent).
 */
public final class Arbitration {
    /** One stream channel and what it declared. */
    public static final class Controller {
        private final ServerCallStreamObserver<StreamMessageResponse> out;
        private String role;
        /** Null for a backup that sent no election_id. */
        private BigInteger electionId;
        private MasterArbitrationUpdate request;
        private boolean closed;

        public Controller(ServerCallStreamObserver<StreamMessageResponse> out) {
            this.out = out;
        }

        public synchronized void send(StreamMessageResponse m) {
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

        synchronized boolean isClosed() {
            return closed;
        }

        public synchronized void fail(Status status) {
            if (!closed) {
                closed = true;
                out.onError(status.asRuntimeException());
            }
        }

        public synchronized void close() {
            if (!closed) {
                closed = true;
                out.onCompleted();
            }
        }
    }

    private final long deviceId;
    private final List<Controller> controllers = new ArrayList<>();
    private final Map<String, BigInteger> highestSeen = new HashMap<>();
    /** Every role a controller has arbitrated for, with an election_id or without (P4Runtime 12). */
    private final Set<String> knownRoles = new HashSet<>();

    /** The election of one device: its arbitration answers name {@code deviceId}. */
    public Arbitration(long deviceId) {
        this.deviceId = deviceId;
    }

    /** An election_id as a number (128 bits, unsigned). */
    public static BigInteger electionId(Uint128 id) {
        return new BigInteger(1, java.nio.ByteBuffer.allocate(16).putLong(id.getHigh()).putLong(id.getLow()).array());
    }

    /**
     * The role a request is made in. P4Runtime 1.3 names roles by a number (role_id), 1.4 by a
     * string (field 6 of WriteRequest/SetForwardingPipelineConfigRequest, field 3 of Role), which
     * this generated code keeps as an unknown field; either way "" / 0 is the default role.
     */
    public static String roleOf(Message m) {
        if (m instanceof MasterArbitrationUpdate) {
            var role = ((MasterArbitrationUpdate) m).getRole();
            String name = NewerFields.string(role, NewerFields.ROLE_NAME);
            return name != null ? name : role.getId() == 0 ? "" : "#" + role.getId();
        }
        String name = NewerFields.string(m, NewerFields.REQUEST_ROLE);
        if (name != null) {
            return name;
        }
        long id = m instanceof WriteRequest ? ((WriteRequest) m).getRoleId()
                : ((SetForwardingPipelineConfigRequest) m).getRoleId();
        return id == 0 ? "" : "#" + id;
    }

    /** Whether the controller has sent an arbitration update that was accepted. */
    public synchronized boolean isLive(Controller c) {
        return c.role != null;
    }

    /**
     * A stream's arbitration update (P4Runtime 5.4): its first names the device and role, later ones
     * may not change them. One that fails closes the stream, and its controller leaves the election
     * at once: gRPC calls neither onError nor onCompleted for a call the server closed, and a primary
     * left behind would keep its role's writes from every other controller.
     * {@code self} names this device in errors ("switch", "card").
     */
    public synchronized void arbitrate(Controller c, MasterArbitrationUpdate update, String self) {
        if (c.isClosed()) {
            return;   // what a stream sent before it was closed must not bring it back
        }
        Status problem;
        if (update.getDeviceId() != deviceId) {
            boolean live = isLive(c);
            problem = (live ? Status.FAILED_PRECONDITION : Status.NOT_FOUND).withDescription("this " + self
                    + " is device " + deviceId + ", not " + update.getDeviceId() + (live ? " (this stream's device)" : ""));
        } else {
            // No election_id: a backup that reads and never becomes primary.
            BigInteger id = update.hasElectionId() ? electionId(update.getElectionId()) : null;
            problem = update(c, roleOf(update), id, update);
        }
        if (problem != null) {
            remove(c);
            c.fail(problem);
        }
    }

    /**
     * Records a controller's arbitration update (electionId null: a backup that sent none);
     * returns the status that closes its stream, or null.
     */
    private Status update(Controller c, String role, BigInteger electionId, MasterArbitrationUpdate request) {
        if (c.role != null && !c.role.equals(role)) {
            return Status.FAILED_PRECONDITION.withDescription("this stream is for " + roleName(c.role) + ", not "
                    + roleName(role) + ": open another stream to change roles");
        }
        if (request.getRole().hasConfig()) {
            // 5.3: a role.config that does not match the scheme agreed out of band; there is none here.
            return Status.INVALID_ARGUMENT.withDescription("role.config must be unset: this server has no role "
                    + "configuration scheme (every role has full pipeline access)");
        }
        for (Controller o : controllers) {
            if (o != c && electionId != null && role.equals(o.role) && electionId.equals(o.electionId)) {
                // PI's words, which clients look for.
                return Status.INVALID_ARGUMENT.withDescription("Election id already exists: " + electionId
                        + " is used by another controller of " + roleName(role));
            }
        }
        Controller before = primary(role);
        BigInteger highestBefore = highestSeen.get(role);
        controllers.remove(c);
        c.role = role;
        c.electionId = electionId;
        c.request = request;
        controllers.add(c);
        knownRoles.add(role);
        if (electionId != null) {
            highestSeen.merge(role, electionId, BigInteger::max);
        }
        Controller after = primary(role);
        if (before != after || after == c || !Objects.equals(highestBefore, highestSeen.get(role))) {
            // 5.3 1.b, 5.4: a new primary, or one that stays so (the same one again, or with a new
            // election_id), a primary's downgrade: every controller of the role hears it, the primary last.
            notifyRole(role);
        } else {
            notifyOne(c);
        }
        return null;
    }

    /** A role as messages name it; a long name cut (a status message travels in a trailer of 8 KiB at most to most clients). */
    private static String roleName(String role) {
        return role.isEmpty() ? "the default role" : "role " + Answers.bounded(role);
    }

    /** A stream that ended: when it was the primary's, the others hear that there is none (5.4); a backup's goes unheard. */
    public synchronized void remove(Controller c) {
        boolean wasPrimary = isPrimary(c);
        if (controllers.remove(c) && wasPrimary) {
            notifyRole(c.role);
        }
    }

    public synchronized boolean isPrimary(Controller c) {
        return c.role != null && primary(c.role) == c;
    }

    /**
     * Writes and pipeline changes come only from the primary of their role, with its election_id
     * (P4Runtime 12: a role no controller ever arbitrated for, with an election_id or without, is
     * NOT_FOUND; the default role is always one). An unset election_id is nobody's, not 0 (5.4).
     */
    public synchronized void checkPrimary(String role, boolean hasElectionId, Uint128 electionId) throws StatusException {
        if (!role.isEmpty() && !knownRoles.contains(role)) {
            throw Status.NOT_FOUND.withDescription(roleName(role) + " is not known here: no controller has"
                    + " arbitrated for it (open a stream and send arbitration with it first)").asException();
        }
        Controller p = primary(role);
        if (!hasElectionId) {
            throw Status.PERMISSION_DENIED.withDescription("the request has no election_id: writes and pipeline "
                    + "changes carry the primary's").asException();
        }
        if (p == null || !p.electionId.equals(electionId(electionId))) {
            throw Status.PERMISSION_DENIED.withDescription("election_id " + electionId(electionId)
                    + " is not the primary's for " + roleName(role)
                    + (p == null ? " (there is no primary: open a stream and send arbitration first)" : "")).asException();
        }
    }

    /**
     * Packet-ins and notifications go to the primary of every role; a slow reader loses them.
     * {@code dropped} hears why each time one is lost ("no primary controller", "controller not
     * reading"); returns how many primaries took it.
     */
    public int sendToPrimaries(StreamMessageResponse m, Consumer<String> dropped) {
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
            dropped.accept("no primary controller");
        }
        int taken = 0;
        for (Controller p : primaries) {
            if (p.offer(m)) {
                taken++;
            } else {
                dropped.accept("controller not reading");
            }
        }
        return taken;
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

    /** Every controller of the role hears the election, the primary last (5.3 1.b). */
    private void notifyRole(String role) {
        Controller primary = primary(role);
        for (Controller c : controllers) {
            if (role.equals(c.role) && c != primary) {
                notifyOne(c);
            }
        }
        if (primary != null) {
            notifyOne(primary);
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
        MasterArbitrationUpdate.Builder b = MasterArbitrationUpdate.newBuilder().setDeviceId(deviceId).setStatus(status);
        if (highest != null) {   // unset while the role has never had a primary
            b.setElectionId(Uint128.newBuilder().setHigh(highest.shiftRight(64).longValue()).setLow(highest.longValue()));
        }
        if (c.request.hasRole()) {
            b.setRole(c.request.getRole());
        }
        c.send(StreamMessageResponse.newBuilder().setArbitration(b).build());
    }
}
