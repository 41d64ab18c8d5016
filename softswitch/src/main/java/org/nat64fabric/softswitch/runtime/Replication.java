package org.nat64fabric.softswitch.runtime;

import com.google.protobuf.ByteString;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.runtime.EntityException.Code;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.v1.P4RuntimeOuterClass.CloneSessionEntry;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.MulticastGroupEntry;
import p4.v1.P4RuntimeOuterClass.PacketReplicationEngineEntry;
import p4.v1.P4RuntimeOuterClass.Replica;
import p4.v1.P4RuntimeOuterClass.Update;

/**
 * The packet replication engine's entries (P4Runtime 9.5): multicast groups and clone sessions.
 * A replica names its port by {@code port} (1.4, bytes) or by the deprecated {@code egress_port};
 * reads give back the form each replica was written in.
 */
final class Replication {
    /** standard_metadata.egress_rid, which carries a replica's instance, is bit<16>. */
    private static final int MAX_INSTANCE = 0xffff;
    /** SDN port numbers are 32-bit: a port bytestring has at most 4 bytes. */
    private static final int MAX_PORT_BYTES = 4;

    private final V1ModelSwitch sw;
    /** The replicas as written (canonical bytestrings), for reads. */
    private final Map<Integer, List<Replica>> groups = new HashMap<>();
    private final Map<Integer, List<Replica>> sessions = new HashMap<>();
    /** The clone sessions' packet_length_bytes, for reads (0: not cut). */
    private final Map<Integer, Integer> sessionLengths = new HashMap<>();
    /** The groups' metadata (1.4), opaque to the switch, for reads. */
    private final Map<Integer, ByteString> groupMetadata = new HashMap<>();

    Replication(V1ModelSwitch sw) {
        this.sw = sw;
    }

    void apply(Update.Type type, PacketReplicationEngineEntry pre) throws EntityException {
        if (sw.program.architecture == Program.Architecture.SUME) {
            throw new EntityException(Code.UNIMPLEMENTED, "a SimpleSumeSwitch has no packet replication engine "
                    + "(its program copies a packet by setting several bits of sume_metadata.dst_port)");
        }
        switch (pre.getTypeCase()) {
            case MULTICAST_GROUP_ENTRY: {
                MulticastGroupEntry g = pre.getMulticastGroupEntry();
                int id = g.getMulticastGroupId();
                List<Replica> written = checked(type, "multicast group", id, g.getReplicasList(), groups.containsKey(id));
                ByteString metadata = NewerFields.bytes(g, NewerFields.MULTICAST_GROUP_METADATA);
                if (type == Update.Type.DELETE) {
                    sw.removeMulticastGroup(id);
                    groups.remove(id);
                    groupMetadata.remove(id);
                } else {
                    sw.setMulticastGroup(id, dataPlane(written));
                    groups.put(id, written);
                    if (metadata == null || metadata.isEmpty()) {
                        groupMetadata.remove(id);
                    } else {
                        groupMetadata.put(id, metadata);
                    }
                }
                return;
            }
            case CLONE_SESSION_ENTRY: {
                CloneSessionEntry c = pre.getCloneSessionEntry();
                int id = c.getSessionId();
                List<Replica> written = checked(type, "clone session", id, c.getReplicasList(), sessions.containsKey(id));
                if (type != Update.Type.DELETE) {
                    if (c.getClassOfService() != 0) {
                        throw new EntityException(Code.INVALID_ARGUMENT, "clone session " + id + ": class_of_service "
                                + c.getClassOfService() + " is not a class of this switch (v1model has none: use 0)");
                    }
                    if (c.getPacketLengthBytes() < 0) {
                        throw new EntityException(Code.INVALID_ARGUMENT, "clone session " + id + ": negative packet_length_bytes");
                    }
                }
                if (type == Update.Type.DELETE) {
                    sw.removeCloneSession(id);
                    sessions.remove(id);
                    sessionLengths.remove(id);
                } else {
                    sw.setCloneSession(id, dataPlane(written), c.getPacketLengthBytes());
                    sessions.put(id, written);
                    sessionLengths.put(id, c.getPacketLengthBytes());
                }
                return;
            }
            default:
                throw new EntityException(Code.INVALID_ARGUMENT, "a packet replication engine entry names "
                        + "neither a multicast group nor a clone session");
        }
    }

    /** The entry's replicas, canonical, after the checks P4Runtime 9.5 asks for (replicas are not checked for DELETE). */
    private static List<Replica> checked(Update.Type type, String what, int id, List<Replica> replicas, boolean exists)
            throws EntityException {
        if (id == 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, what + " ID 0 is reserved for wildcard reads");
        }
        switch (type) {
            case INSERT:
                if (exists) {
                    throw new EntityException(Code.ALREADY_EXISTS, what + " " + id + " already exists");
                }
                break;
            case MODIFY:
            case DELETE:
                if (!exists) {
                    throw new EntityException(Code.NOT_FOUND, what + " " + id + " does not exist");
                }
                if (type == Update.Type.DELETE) {
                    return List.of();
                }
                break;
            default:
                throw new EntityException(Code.INVALID_ARGUMENT, "unknown update type " + type);
        }
        List<Replica> out = new ArrayList<>();
        Set<List<Long>> seen = new HashSet<>();
        for (Replica r : replicas) {
            long port = port(r, what + " " + id);
            long instance = Integer.toUnsignedLong(r.getInstance());
            if (instance > MAX_INSTANCE) {
                throw new EntityException(Code.INVALID_ARGUMENT, what + " " + id + ": instance " + instance
                        + " does not fit in egress_rid (bit<16>)");
            }
            if (!seen.add(List.of(port, instance))) {
                throw new EntityException(Code.INVALID_ARGUMENT, what + " " + id + ": two replicas with port " + port
                        + " and instance " + instance);
            }
            Replica.Builder b = Replica.newBuilder().setInstance(r.getInstance());
            if (NewerFields.has(r, NewerFields.REPLICA_PORT)) {
                NewerFields.withBytes(b, NewerFields.REPLICA_PORT, Entities.bytes(BigInteger.valueOf(port)));
            } else {
                b.setEgressPort((int) port);
            }
            out.add(b.build());
        }
        return out;
    }

    /** A replica's port, from {@code port} (bytes) or {@code egress_port}; exactly one may be set. */
    private static long port(Replica r, String where) throws EntityException {
        long port;
        ByteString bytes = NewerFields.bytes(r, NewerFields.REPLICA_PORT);
        if (bytes != null) {
            if (r.getEgressPort() != 0) {
                throw new EntityException(Code.INVALID_ARGUMENT, where + ": a replica sets both port and egress_port "
                        + "(they are one of: use port, egress_port is deprecated)");
            }
            if (bytes.isEmpty() || bytes.size() > MAX_PORT_BYTES) {
                throw new EntityException(Code.INVALID_ARGUMENT, where + ": replica port is " + bytes.size()
                        + " bytes; an SDN port number takes 1 to " + MAX_PORT_BYTES);
            }
            port = new BigInteger(1, bytes.toByteArray()).longValueExact();
        } else {
            port = Integer.toUnsignedLong(r.getEgressPort());
        }
        if (port >= V1ModelSwitch.DROP_PORT) {
            throw new EntityException(Code.INVALID_ARGUMENT, where + ": port " + port + " is not a port of this switch (0-"
                    + (V1ModelSwitch.DROP_PORT - 1) + ")");
        }
        return port;
    }

    private static List<V1ModelSwitch.Replica> dataPlane(List<Replica> replicas) {
        List<V1ModelSwitch.Replica> out = new ArrayList<>();
        for (Replica r : replicas) {
            ByteString bytes = NewerFields.bytes(r, NewerFields.REPLICA_PORT);
            int port = bytes != null ? new BigInteger(1, bytes.toByteArray()).intValue() : r.getEgressPort();
            out.add(new V1ModelSwitch.Replica(port, r.getInstance()));
        }
        return out;
    }

    /** The entries a read names: one by its ID, all of their kind for ID 0, both kinds when neither is named. */
    List<Entity> read(PacketReplicationEngineEntry q) {
        List<Entity> out = new ArrayList<>();
        boolean any = q.getTypeCase() == PacketReplicationEngineEntry.TypeCase.TYPE_NOT_SET;
        if (any || q.hasMulticastGroupEntry()) {
            int id = q.getMulticastGroupEntry().getMulticastGroupId();
            for (int gid : sw.multicastGroups().keySet()) {
                if (id == 0 || id == gid) {
                    MulticastGroupEntry.Builder g = MulticastGroupEntry.newBuilder().setMulticastGroupId(gid)
                            .addAllReplicas(groups.getOrDefault(gid, List.of()));
                    if (groupMetadata.containsKey(gid)) {
                        NewerFields.withBytes(g, NewerFields.MULTICAST_GROUP_METADATA, groupMetadata.get(gid));
                    }
                    out.add(pre(PacketReplicationEngineEntry.newBuilder().setMulticastGroupEntry(g)));
                }
            }
        }
        if (any || q.hasCloneSessionEntry()) {
            int id = q.getCloneSessionEntry().getSessionId();
            for (int sid : sw.cloneSessions()) {
                if (id == 0 || id == sid) {
                    out.add(pre(PacketReplicationEngineEntry.newBuilder().setCloneSessionEntry(CloneSessionEntry
                            .newBuilder().setSessionId(sid).addAllReplicas(sessions.getOrDefault(sid, List.of()))
                            .setPacketLengthBytes(sessionLengths.getOrDefault(sid, 0)))));
                }
            }
        }
        return out;
    }

    private static Entity pre(PacketReplicationEngineEntry.Builder b) {
        return Entity.newBuilder().setPacketReplicationEngineEntry(b).build();
    }
}
