package org.nat64fabric.softswitch.runtime;

import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.nat64fabric.softswitch.frontend.Type;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.runtime.EntityException.Code;
import org.nat64fabric.softswitch.v1model.Externs;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4DataOuterClass.P4Data;
import p4.v1.P4DataOuterClass.P4StructLike;
import p4.v1.P4RuntimeOuterClass.DigestEntry;
import p4.v1.P4RuntimeOuterClass.DigestList;
import p4.v1.P4RuntimeOuterClass.DigestListAck;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.Update;

/**
 * The digests of a program on their way to the controller (P4Runtime 1.4, DigestEntry and
 * DigestList): a digest sends nothing until a DigestEntry configures it; then its messages are
 * gathered into lists of at most max_list_size (0: no limit), each sent at the latest
 * max_timeout_ns after its first message. Data already waiting in a list, or sent in a list not
 * yet acknowledged (DigestListAck) and younger than ack_timeout_ns, is not sent again.
 */
public final class Digests {
    private static final class Stream {
        final int id;
        final Externs.Digest digest;
        DigestEntry.Config config;
        final List<List<BigInteger>> pending = new ArrayList<>();
        long firstPendingAt;
        /** Data waiting or sent unacknowledged: not sent again meanwhile. */
        final Map<List<BigInteger>, Boolean> blocked = new HashMap<>();
        /** Lists sent and not acknowledged, by list ID. */
        final Map<Long, Sent> sent = new LinkedHashMap<>();

        Stream(int id, Externs.Digest digest) {
            this.id = id;
            this.digest = digest;
        }

        void clear() {
            pending.clear();
            blocked.clear();
            sent.clear();
        }
    }

    private static final class Sent {
        final long ackDeadline;
        final List<List<BigInteger>> data;

        Sent(long ackDeadline, List<List<BigInteger>> data) {
            this.ackDeadline = ackDeadline;
            this.data = data;
        }
    }

    private final Map<Integer, Stream> byId = new LinkedHashMap<>();
    private volatile Predicate<DigestList> out = list -> false;
    private long nextListId = 1;

    Digests(Program program, P4Info info) {
        for (P4InfoOuterClass.Digest d : info.getDigestsList()) {
            for (Externs.Digest digest : program.digests) {
                if (digest.name.equals(d.getPreamble().getName())) {
                    Stream s = new Stream(d.getPreamble().getId(), digest);
                    byId.put(s.id, s);
                    digest.sendTo(values -> offer(s, Arrays.asList(values), System.nanoTime()));
                }
            }
        }
    }

    /** Where the lists go: the primary controllers' streams; true when one took the list. */
    public void sendTo(Predicate<DigestList> out) {
        this.out = out;
    }

    private synchronized void offer(Stream s, List<BigInteger> data, long now) {
        if (s.config == null || s.blocked.containsKey(data)) {
            return;
        }
        if (s.pending.isEmpty()) {
            s.firstPendingAt = now;
        }
        s.pending.add(data);
        s.blocked.put(data, Boolean.TRUE);
        flush(s, now);
    }

    /** One field's value as P4Data says its type: bool, an enum's member name, a serializable enum's value, an error's name, or bits. */
    private static P4Data member(Type t, BigInteger v) {
        if (t == Type.BOOL) {
            return P4Data.newBuilder().setBool(v.signum() != 0).build();
        }
        if (t instanceof Type.Enum && ((Type.Enum) t).underlying != null) {
            return P4Data.newBuilder().setEnumValue(Entities.bytes(v)).build();
        }
        if (t instanceof Type.Enum) {   // its members numbered in declaration order
            for (Map.Entry<String, Long> m : ((Type.Enum) t).members.entrySet()) {
                if (m.getValue() == v.longValue()) {
                    return P4Data.newBuilder().setEnum(m.getKey()).build();
                }
            }
        }
        if (t instanceof Type.Named) {   // error: its members in declaration order
            return P4Data.newBuilder().setError(((Type.Named) t).members.get(v.intValue())).build();
        }
        return P4Data.newBuilder().setBitstring(Entities.bytes(v)).build();
    }

    /** Sends the lists that are due and forgets the unacknowledged lists whose ack timeout has passed. */
    public synchronized void flushDue(long now) {
        for (Stream s : byId.values()) {
            for (Iterator<Sent> it = s.sent.values().iterator(); it.hasNext(); ) {
                Sent sent = it.next();
                if (now - sent.ackDeadline >= 0) {
                    sent.data.forEach(s.blocked::remove);
                    it.remove();
                }
            }
            flush(s, now);
        }
    }

    private void flush(Stream s, long now) {
        int max = s.config == null ? 0 : s.config.getMaxListSize();
        while (!s.pending.isEmpty() && ((max > 0 && s.pending.size() >= max)
                || now - s.firstPendingAt >= s.config.getMaxTimeoutNs())) {
            int n = max > 0 ? Math.min(max, s.pending.size()) : s.pending.size();
            List<List<BigInteger>> data = new ArrayList<>(s.pending.subList(0, n));
            s.pending.subList(0, n).clear();
            s.firstPendingAt = now;
            long listId = nextListId++;
            Instant t = Instant.now();
            DigestList.Builder list = DigestList.newBuilder().setDigestId(s.id).setListId(listId)
                    .setTimestamp(t.getEpochSecond() * 1_000_000_000L + t.getNano());
            for (List<BigInteger> values : data) {
                P4StructLike.Builder struct = P4StructLike.newBuilder();
                for (int i = 0; i < values.size(); i++) {
                    struct.addMembers(member(s.digest.types.get(i), values.get(i)));
                }
                list.addData(P4Data.newBuilder().setStruct(struct));
            }
            // 9.8: only lists sent wait for their ack; with no ack timeout nothing is held back (16.4), and
            // data no primary took (none connected, or one not reading) is reported again when it recurs
            if (out.test(list.build()) && s.config.getAckTimeoutNs() > 0) {
                s.sent.put(listId, new Sent(now + s.config.getAckTimeoutNs(), data));
            } else {
                data.forEach(s.blocked::remove);
            }
        }
    }

    /** A DigestListAck: its data may be sent again. False when the program has no such digest. */
    public synchronized boolean ack(DigestListAck ack) {
        Stream s = byId.get(ack.getDigestId());
        if (s == null) {
            return false;
        }
        Sent sent = s.sent.remove(ack.getListId());
        if (sent != null) {
            sent.data.forEach(s.blocked::remove);
        }
        return true;
    }

    synchronized void write(Update.Type type, DigestEntry e) throws EntityException {
        if (e.getDigestId() == 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, "a DigestEntry write must name the digest (ID 0 is a wildcard)");
        }
        Stream s = stream(e.getDigestId());
        switch (type) {
            case INSERT:
                if (s.config != null) {
                    throw new EntityException(Code.ALREADY_EXISTS, "digest " + s.digest.name + " is configured already (MODIFY it)");
                }
                s.config = config(s, e);
                return;
            case MODIFY:
                if (s.config == null) {
                    throw new EntityException(Code.NOT_FOUND, "digest " + s.digest.name + " is not configured (INSERT it first)");
                }
                s.config = config(s, e);
                flush(s, System.nanoTime());
                return;
            case DELETE:
                if (s.config == null) {
                    throw new EntityException(Code.NOT_FOUND, "digest " + s.digest.name + " is not configured");
                }
                s.config = null;   // no more digests; what was waiting is dropped
                s.clear();
                return;
            default:
                throw new EntityException(Code.INVALID_ARGUMENT, "unknown update type " + type);
        }
    }

    private static DigestEntry.Config config(Stream s, DigestEntry e) throws EntityException {
        if (!e.hasConfig()) {
            throw new EntityException(Code.INVALID_ARGUMENT, "the DigestEntry for " + s.digest.name + " has no config");
        }
        DigestEntry.Config c = e.getConfig();
        if (c.getMaxTimeoutNs() < 0 || c.getMaxListSize() < 0 || c.getAckTimeoutNs() < 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, "digest " + s.digest.name
                    + ": max_timeout_ns, max_list_size and ack_timeout_ns must not be negative");
        }
        return c;
    }

    private Stream stream(int id) throws EntityException {
        Stream s = byId.get(id);
        if (s == null) {
            throw new EntityException(Code.NOT_FOUND, "the program has no digest with ID " + Integer.toUnsignedString(id));
        }
        return s;
    }

    /** The configured digests (ID 0: all of them). */
    synchronized List<Entity> read(DigestEntry q) throws EntityException {
        List<Entity> found = new ArrayList<>();
        for (Stream s : q.getDigestId() == 0 ? byId.values() : List.of(stream(q.getDigestId()))) {
            if (s.config != null) {
                found.add(Entity.newBuilder().setDigestEntry(DigestEntry.newBuilder().setDigestId(s.id)
                        .setConfig(s.config)).build());
            }
        }
        return found;
    }
}
