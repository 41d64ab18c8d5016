package org.nat64fabric.core.control;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

/**
 * Stateful NAT64's fragments after the first (RFC 6146 3.4). They carry no transport header, so
 * no session table can place them. The controller learns here, from a session's first fragment
 * the switch translated, the addresses its datagram was translated to: from v1model's copy
 * (PUNT_FIRST_FRAGMENT), from a NetFPGA SUME's hand-over (FINISH_TRACK), from one the switch
 * translated too large for its link (to fragment), or from one it sends back after setting its
 * session up. The switch punts the fragments after it (PUNT_FRAGMENT), whose IP header is
 * translated here as RFC 7915 4.1 and 5.1.1 say; they carry nothing else to translate. A fragment
 * that comes before its first fragment's copy waits for it up to FRAGMENT_MIN (RFC 6146 3.4, 2 s).
 * An echo's first fragment the switch punts untranslated: the ICMPv6 checksum's pseudo-header
 * counts the whole message, whose length only the last fragment tells; it is translated here
 * once that has come, and the other fragments wait to leave after it, in the order they came
 * (RFC 7915 4 and 5: a flow's packets SHOULD leave in the order they arrived; the first was sent
 * first, though it reaches the controller last when its session had to be set up). They count
 * among the fragments held; over its source's share one leaves at once, out of order, not lost. A
 * stateless (EAM, SIIT) host's echo the same way, by its addresses: the
 * switch punts its datagram's later fragments too, as a session's. An echo hairpinned to a
 * stateless host (RFC 7757 4.2) is translated here both ways at once: its IPv4 fragments, sent
 * through the pipeline, could not be told from ones that came from IPv4.
 *
 * <p>A datagram is known by its addresses, protocol and the low 16 bits of its identification:
 * all an IPv4 fragment carries, so two IPv6 datagrams that differ above them would meet at the
 * IPv4 receiver anyway; and a NetFPGA SUME, which hands over the translated first fragment, tells
 * no more.
 */
final class LaterFragments {
    /** RFC 6146 4: FRAGMENT_MIN, how long fragments are kept waiting for their first. */
    static final long FRAGMENT_MIN_MS = 2000;
    /** Datagrams remembered; the least recently used leaves first. */
    static final int MAX_DATAGRAMS = 65536;
    /** Fragments held waiting for their first (or, an echo's, for their first to leave); over it, the new one is dropped. */
    static final int MAX_HELD = 1024;
    /** Of those, from one source address: one host sending fragments without their first only fills its own share. */
    static final int MAX_HELD_PER_SOURCE = 64;

    private static final int ETHERNET = 14;
    private static final int IPV6_HEADER = 40;
    private static final int FRAGMENT_HEADER = 8;
    private static final int NEXT_FRAGMENT = 44;
    private static final int PROTO_ICMP = 1;
    private static final int PROTO_ICMPV6 = 58;

    /** RFC 7915 4.1: the Traffic Class of a translation to IPv6 is 0 instead of the TOS octet. */
    private final boolean zeroTrafficClass;
    /** RFC 7915 5.1: the TOS octet of a translation to IPv4, or -1: the Traffic Class. */
    private final int ipv4Tos;

    /** The header fields the operator sets as the pipeline does (nat64.zeroTrafficClass, nat64.ipv4Tos). */
    LaterFragments(boolean zeroTrafficClass, int ipv4Tos) {
        this.zeroTrafficClass = zeroTrafficClass;
        this.ipv4Tos = ipv4Tos;
    }

    /** A datagram as its fragments name it (RFC 791 3.2, RFC 8200 4.5). */
    static final class Datagram {
        final Object source;
        final Object destination;
        final int protocol;
        final int id;

        Datagram(Object source, Object destination, int protocol, int id) {
            this.source = source;
            this.destination = destination;
            this.protocol = protocol;
            this.id = id & 0xffff;
        }

        /** The same datagram in the other family: a translated fragment's, as it was before. */
        Datagram from(Object originalSource, Object originalDestination) {
            return new Datagram(originalSource, originalDestination, protocol, id);
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Datagram)) {
                return false;
            }
            Datagram d = (Datagram) o;
            return protocol == d.protocol && id == d.id && source.equals(d.source) && destination.equals(d.destination);
        }

        @Override
        public int hashCode() {
            return Objects.hash(source, destination, protocol, id);
        }

        @Override
        public String toString() {
            return source + " > " + destination + " proto " + protocol + " id " + id;
        }
    }

    /**
     * Where a datagram from IPv6 goes once translated to IPv4 and back (RFC 7757 4.2): its IPv4
     * source written into pool6, its IPv4 destination a stateless host's.
     */
    static final class Hairpin {
        final Ipv6Address source;
        final Ipv6Address destination;

        Hairpin(Ipv6Address source, Ipv6Address destination) {
            this.source = source;
            this.destination = destination;
        }
    }

    /** The addresses a datagram is translated to: {@link Ipv4Address}es from IPv6, {@link Ipv6Address}es from IPv4. */
    private static final class Translation {
        final Object source;
        final Object destination;
        /** From IPv6 to an address the NAT64 owns: translated back to IPv6 too; null for none. */
        final Hairpin hairpin;
        long lastUsed;
        /** The datagram's transport length, once its last fragment came; -1 before. */
        int length = -1;
        /** Its echo's first fragment, waiting for that length; null for none. */
        EchoFirst echo;
        /** The fragments that came after that first, translated, to leave after it. */
        final List<Out> afterEcho = new ArrayList<>();
        /** The datagram's source address: whose share of held fragments those take. */
        final Object datagramSource;

        Translation(Datagram d, Object source, Object destination, Hairpin hairpin, long now) {
            this.datagramSource = d.source;
            this.source = source;
            this.destination = destination;
            this.hairpin = hairpin;
            this.lastUsed = now;
        }
    }

    /** A fragment waiting for its first. */
    private static final class Held {
        final String deviceId;
        final Datagram datagram;
        final byte[] frame;
        final long since;

        Held(String deviceId, Datagram datagram, byte[] frame, long since) {
            this.deviceId = deviceId;
            this.datagram = datagram;
            this.frame = frame;
            this.since = since;
        }
    }

    /** An echo's first fragment, to translate with its session's identifier (RFC 6146 3.5.3). */
    private static final class EchoFirst {
        final String deviceId;
        final byte[] frame;
        final int identifier;

        EchoFirst(String deviceId, byte[] frame, int identifier) {
            this.deviceId = deviceId;
            this.frame = frame;
            this.identifier = identifier;
        }
    }

    /** A fragment to send through the pipeline of a switch. */
    static final class Out {
        final String deviceId;
        final byte[] frame;
        /** An IPv6 fragment (from IPv4, or hairpinned back to IPv6), which may be longer than its link takes: the caller cuts it. */
        final boolean ipv6;

        Out(String deviceId, byte[] frame, boolean ipv6) {
            this.deviceId = deviceId;
            this.frame = frame;
            this.ipv6 = ipv6;
        }
    }

    /** What became of fragments handed in: counted by the caller. */
    static final class Result {
        final List<Out> translated = new ArrayList<>();
        int held;
        int expired;
        int overflow;
        int unparsed;
        /** From IPv4 with a TTL of 1 or less: the hop would expire it (no ICMP error about a fragment after the first). */
        int ttlExpired;
    }

    private final Map<Datagram, Translation> datagrams = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Datagram, Translation> eldest) {
            if (size() <= MAX_DATAGRAMS) {
                return false;
            }
            dropAfterEcho(eldest.getValue());
            return true;
        }
    };
    private final Deque<Held> held = new ArrayDeque<>();
    private final Map<Object, Integer> heldBySource = new HashMap<>();
    /** Fragments in the translations' afterEcho lists, which count against MAX_HELD too. */
    private int waitingForEcho;

    /**
     * The datagram a fragment (the first's copy, or one after it) belongs to, as the switch
     * received it: IPv6 with a Fragment header, or IPv4 with MF or an offset; empty for anything else.
     */
    static Optional<Datagram> datagramOf(byte[] frame) {
        ByteBuffer b = ByteBuffer.wrap(frame);
        if (isIpv6(frame)) {
            int at = fragmentHeaderAt(frame);
            if (at < 0) {
                return Optional.empty();
            }
            Ipv6Address src = Ipv6Address.of(b.getLong(ETHERNET + 8), b.getLong(ETHERNET + 16));
            Ipv6Address dst = Ipv6Address.of(b.getLong(ETHERNET + 24), b.getLong(ETHERNET + 32));
            return Optional.of(new Datagram(src, dst, frame[at] & 0xff, b.getInt(at + 4)));
        }
        if (isIpv4(frame) && (b.getShort(ETHERNET + 6) & 0x3fff) != 0) {
            return Optional.of(new Datagram(Ipv4Address.of(b.getInt(ETHERNET + 12)),
                    Ipv4Address.of(b.getInt(ETHERNET + 16)), frame[ETHERNET + 9] & 0xff, b.getShort(ETHERNET + 4)));
        }
        return Optional.empty();
    }

    /** The datagram of a first fragment of several (offset 0, more to come); empty for anything else. */
    static Optional<Datagram> firstOfSeveral(byte[] frame) {
        ByteBuffer b = ByteBuffer.wrap(frame);
        if (isIpv6(frame)) {
            int at = fragmentHeaderAt(frame);
            return at >= 0 && (b.getShort(at + 2) & 0xfff9) == 1 ? datagramOf(frame) : Optional.empty();
        }
        return isIpv4(frame) && (b.getShort(ETHERNET + 6) & 0x3fff) == 0x2000 ? datagramOf(frame) : Optional.empty();
    }

    /**
     * Learns how a datagram's fragments are translated (from IPv6: to these IPv4 addresses; from
     * IPv4: to these IPv6 ones), and translates those waiting for it.
     */
    synchronized Result learn(Datagram d, Object source, Object destination, long now) {
        Result r = new Result();
        expire(now, r);
        learn(d, new Translation(d, source, destination, null, now), r);
        return r;
    }

    /**
     * An echo's first fragment of several, a session's: translated to these addresses, with its
     * session's {@code identifier}, once its datagram's last fragment has told the message's
     * length (RFC 7915 4.2 and 5.2: the ICMPv6 checksum's pseudo-header counts it); and how the
     * fragments after it are translated, back to IPv6 too when {@code hairpin} is not null.
     */
    synchronized Result echoFirst(String deviceId, byte[] frame, Datagram d, Object source, Object destination,
                                  int identifier, Hairpin hairpin, long now) {
        Result r = new Result();
        expire(now, r);
        Translation t = new Translation(d, source, destination, hairpin, now);
        t.echo = new EchoFirst(deviceId, frame, identifier);
        learn(d, t, r);     // those that came before it (it was setting a session up) leave after it too
        finishEcho(t, r);
        return r;
    }

    private void learn(Datagram d, Translation t, Result r) {
        Translation replaced = datagrams.put(d, t);
        if (replaced != null && t.echo != null) {      // its first came again: what waited waits for this one
            t.afterEcho.addAll(replaced.afterEcho);
            replaced.afterEcho.clear();
            t.length = replaced.length;
        } else if (replaced != null) {
            r.expired += replaced.echo != null ? 1 : 0;
            r.translated.addAll(replaced.afterEcho);
            dropAfterEcho(replaced);
        }
        // Taken out first, so that held.size() no longer counts them when they queue behind an echo's first.
        List<Held> waited = new ArrayList<>();
        held.removeIf(h -> h.datagram.equals(d) && waited.add(h));
        for (Held h : waited) {
            release(h.datagram.source);
            translate(h.deviceId, h.frame, t, r);
        }
    }

    /**
     * A fragment after the first, as the switch punted it: translated when its datagram is
     * known, else held for it.
     */
    synchronized Result later(String deviceId, byte[] frame, long now) {
        Result r = new Result();
        expire(now, r);
        Optional<Datagram> d = datagramOf(frame);
        if (d.isEmpty()) {
            r.unparsed++;
            return r;
        }
        Translation t = datagrams.get(d.get());
        if (t != null) {
            t.lastUsed = now;
            translate(deviceId, frame, t, r);
        } else if (full(d.get().source)) {
            r.overflow++;
        } else {
            held.add(new Held(deviceId, d.get(), frame, now));
            heldBySource.merge(d.get().source, 1, Integer::sum);
            r.held++;
        }
        return r;
    }

    private void translate(String deviceId, byte[] frame, Translation t, Result r) {
        boolean fromIpv6 = isIpv6(frame);
        if (expiresHere(frame, fromIpv6)) {
            r.ttlExpired++;
            return;
        }
        Optional<byte[]> out = fromIpv6 ? toIpv4(frame, (Ipv4Address) t.source, (Ipv4Address) t.destination, ipv4Tos)
                : toIpv6(frame, (Ipv6Address) t.source, (Ipv6Address) t.destination, zeroTrafficClass);
        if (fromIpv6 && t.hairpin != null) {
            out = out.flatMap(f -> toIpv6(f, t.hairpin.source, t.hairpin.destination, zeroTrafficClass));
        }
        if (out.isEmpty()) {
            r.unparsed++;
            return;
        }
        Out translated = new Out(deviceId, out.get(), !fromIpv6 || t.hairpin != null);
        if (t.echo != null && !full(t.datagramSource)) {
            t.afterEcho.add(translated);
            heldBySource.merge(t.datagramSource, 1, Integer::sum);
            waitingForEcho++;
        } else {
            r.translated.add(translated);
        }
        int end = lastFragmentEnd(frame);
        if (end >= 0) {
            t.length = end;
            finishEcho(t, r);
        }
    }

    /**
     * IPv4 with a TTL of 1 or less: the hop the pipeline counts would expire it. (The pipeline
     * answers IPv6 with a hop limit of 1 or less before it punts a fragment.)
     */
    private static boolean expiresHere(byte[] frame, boolean fromIpv6) {
        return !fromIpv6 && (frame[ETHERNET + 8] & 0xff) <= 1;
    }

    /** Whether a fragment from {@code source} would take more than its share of those held, or more than all. */
    private boolean full(Object source) {
        return held.size() + waitingForEcho >= MAX_HELD || heldBySource.getOrDefault(source, 0) >= MAX_HELD_PER_SOURCE;
    }

    /** The waiting echo's first fragment, translated once its datagram's length is known, then those that came after it. */
    private void finishEcho(Translation t, Result r) {
        if (t.echo == null || t.length < 0) {
            return;
        }
        EchoFirst e = t.echo;
        t.echo = null;
        translateEcho(e, t, r);
        r.translated.addAll(t.afterEcho);
        dropAfterEcho(t);
    }

    /** Forgets a translation's fragments waiting for its echo's first to leave. */
    private void dropAfterEcho(Translation t) {
        t.afterEcho.forEach(o -> release(t.datagramSource));
        waitingForEcho -= t.afterEcho.size();
        t.afterEcho.clear();
    }

    /** An echo's first fragment as the other family's, for its message's length. */
    private void translateEcho(EchoFirst e, Translation t, Result r) {
        boolean fromIpv6 = isIpv6(e.frame);
        if (expiresHere(e.frame, fromIpv6)) {
            r.ttlExpired++;
            return;
        }
        Optional<byte[]> out = fromIpv6
                ? echoToIpv4(e.frame, (Ipv4Address) t.source, (Ipv4Address) t.destination, ipv4Tos, e.identifier,
                        t.length)
                : echoToIpv6(e.frame, (Ipv6Address) t.source, (Ipv6Address) t.destination, zeroTrafficClass,
                        e.identifier, t.length);
        if (fromIpv6 && t.hairpin != null) {
            out = out.flatMap(f -> echoToIpv6(f, t.hairpin.source, t.hairpin.destination, zeroTrafficClass,
                    e.identifier, t.length));
        }
        if (out.isEmpty()) {
            r.unparsed++;
        } else {
            r.translated.add(new Out(e.deviceId, out.get(), !fromIpv6 || t.hairpin != null));
        }
    }

    /** Where a datagram's transport bytes end, told by its last fragment; -1 for another fragment. */
    private static int lastFragmentEnd(byte[] frame) {
        ByteBuffer b = ByteBuffer.wrap(frame);
        if (isIpv6(frame)) {
            int at = fragmentHeaderAt(frame);
            int word = b.getShort(at + 2) & 0xffff;
            int end = ETHERNET + IPV6_HEADER + (b.getShort(ETHERNET + 4) & 0xffff);
            return (word & 1) == 0 ? (word >>> 3) * 8 + end - at - FRAGMENT_HEADER : -1;
        }
        int flagsOffset = b.getShort(ETHERNET + 6) & 0xffff;
        int data = (b.getShort(ETHERNET + 2) & 0xffff) - (frame[ETHERNET] & 0x0f) * 4;
        return (flagsOffset & 0x2000) == 0 ? (flagsOffset & 0x1fff) * 8 + data : -1;
    }

    /** One fragment fewer held from that source. */
    private void release(Object heldSource) {
        heldBySource.computeIfPresent(heldSource, (source, n) -> n > 1 ? n - 1 : null);
    }

    /** Forgets datagrams unused for FRAGMENT_MIN (an echo's first fragment with them) and drops fragments held that long. */
    private void expire(long now, Result r) {
        while (!held.isEmpty() && now - held.peekFirst().since >= FRAGMENT_MIN_MS) {
            release(held.removeFirst().datagram.source);
            r.expired++;
        }
        // Least recently used first (each use sets lastUsed): the walk stops at the first in use.
        for (Iterator<Translation> i = datagrams.values().iterator(); i.hasNext(); ) {
            Translation t = i.next();
            if (now - t.lastUsed < FRAGMENT_MIN_MS) {
                break;
            }
            if (t.echo != null) {
                r.expired += 1 + t.afterEcho.size();
                dropAfterEcho(t);
            }
            i.remove();
        }
    }

    /**
     * RFC 7915 5.1 and 5.1.1: the IPv4 fragment of an IPv6 one, extension headers before its
     * Fragment header left out. The hop limit is kept: the pipeline routes the fragment and
     * counts the hop, as it counts it for the first fragment it translates. {@code tos}: the TOS
     * octet, or -1 to copy the Traffic Class.
     */
    static Optional<byte[]> toIpv4(byte[] frame, Ipv4Address source, Ipv4Address destination, int tos) {
        int at = fragmentHeaderAt(frame);
        if (at < 0) {
            return Optional.empty();
        }
        ByteBuffer b = ByteBuffer.wrap(frame);
        int end = ETHERNET + IPV6_HEADER + (b.getShort(ETHERNET + 4) & 0xffff);
        int data = at + FRAGMENT_HEADER;
        int fragmentWord = b.getShort(at + 2) & 0xffff;
        int protocol = frame[at] & 0xff;
        byte[] out = new byte[ETHERNET + 20 + end - data];
        System.arraycopy(frame, 0, out, 0, 12);
        ByteBuffer w = ByteBuffer.wrap(out);
        w.putShort(12, (short) 0x0800);
        w.put(ETHERNET, (byte) 0x45);
        w.put(ETHERNET + 1, (byte) (tos >= 0 ? tos : b.getInt(ETHERNET) >>> 20));   // traffic class
        w.putShort(ETHERNET + 2, (short) (out.length - ETHERNET));
        w.putShort(ETHERNET + 4, (short) b.getInt(at + 4));                  // low 16 bits of the identification
        w.putShort(ETHERNET + 6, (short) ((fragmentWord & 1) << 13 | fragmentWord >>> 3));   // DF clear
        w.put(ETHERNET + 8, frame[ETHERNET + 7]);                            // hop limit
        w.put(ETHERNET + 9, (byte) (protocol == PROTO_ICMPV6 ? PROTO_ICMP : protocol));
        w.putInt(ETHERNET + 12, source.bits());
        w.putInt(ETHERNET + 16, destination.bits());
        w.putShort(ETHERNET + 10, (short) InternetChecksum.of(InternetChecksum.add(0, out, ETHERNET, 20)));
        System.arraycopy(frame, data, out, ETHERNET + 20, end - data);
        return Optional.of(out);
    }

    /**
     * RFC 7915 4.1: the IPv6 fragment of an IPv4 one, with a Fragment header carrying its
     * identification and offset; IPv4 options are not translated. The TTL is kept as the hop
     * limit, the pipeline counting the hop (as in {@link #toIpv4}). {@code zeroClass}: the Traffic
     * Class 0 instead of the TOS octet.
     */
    static Optional<byte[]> toIpv6(byte[] frame, Ipv6Address source, Ipv6Address destination, boolean zeroClass) {
        if (!isIpv4(frame)) {
            return Optional.empty();
        }
        ByteBuffer b = ByteBuffer.wrap(frame);
        int data = ETHERNET + (frame[ETHERNET] & 0x0f) * 4;
        int end = ETHERNET + (b.getShort(ETHERNET + 2) & 0xffff);
        int flagsOffset = b.getShort(ETHERNET + 6) & 0xffff;
        int protocol = frame[ETHERNET + 9] & 0xff;
        byte[] out = new byte[ETHERNET + IPV6_HEADER + FRAGMENT_HEADER + end - data];
        System.arraycopy(frame, 0, out, 0, 12);
        ByteBuffer w = ByteBuffer.wrap(out);
        w.putShort(12, (short) 0x86dd);
        w.putInt(ETHERNET, 6 << 28 | (zeroClass ? 0 : frame[ETHERNET + 1] & 0xff) << 20);   // traffic class, flow label 0
        w.putShort(ETHERNET + 4, (short) (FRAGMENT_HEADER + end - data));
        w.put(ETHERNET + 6, (byte) NEXT_FRAGMENT);
        w.put(ETHERNET + 7, frame[ETHERNET + 8]);                            // TTL
        w.putLong(ETHERNET + 8, source.high()).putLong(ETHERNET + 16, source.low());
        w.putLong(ETHERNET + 24, destination.high()).putLong(ETHERNET + 32, destination.low());
        int at = ETHERNET + IPV6_HEADER;
        w.put(at, (byte) (protocol == PROTO_ICMP ? PROTO_ICMPV6 : protocol));
        w.putShort(at + 2, (short) ((flagsOffset & 0x1fff) << 3 | (flagsOffset & 0x2000) >>> 13));
        w.putInt(at + 4, b.getShort(ETHERNET + 4) & 0xffff);
        System.arraycopy(frame, data, out, at + FRAGMENT_HEADER, end - data);
        return Optional.of(out);
    }

    /**
     * RFC 7915 5.2: an ICMPv6 echo's first fragment as ICMPv4 (the header as {@link #toIpv4}):
     * types 128/129 to 8/0, the identifier its session's, and the checksum updated for both and
     * for the ICMPv6 pseudo-header, which the ICMPv4 one does not count (RFC 1624: a wrong
     * checksum stays as wrong).
     */
    static Optional<byte[]> echoToIpv4(byte[] frame, Ipv4Address source, Ipv4Address destination, int tos,
                                       int identifier, int length) {
        long pseudo = InternetChecksum.ipv6PseudoHeader(frame, ETHERNET, length, PROTO_ICMPV6);
        return toIpv4(frame, source, destination, tos).flatMap(out -> echo(out, ETHERNET + 20, identifier,
                InternetChecksum.of(pseudo)));
    }

    /** RFC 7915 4.2: an ICMPv4 echo's first fragment as ICMPv6, the other way round. */
    static Optional<byte[]> echoToIpv6(byte[] frame, Ipv6Address source, Ipv6Address destination, boolean zeroClass,
                                       int identifier, int length) {
        return toIpv6(frame, source, destination, zeroClass).flatMap(out -> echo(out, ETHERNET + IPV6_HEADER + FRAGMENT_HEADER,
                identifier, InternetChecksum.ipv6PseudoHeader(out, ETHERNET, length, PROTO_ICMPV6)));
    }

    /** The echo header at {@code at}: type to the other family's, identifier replaced, {@code pseudo} added to its sum. */
    private static Optional<byte[]> echo(byte[] out, int at, int identifier, long pseudo) {
        if (out.length < at + 8) {
            return Optional.empty();
        }
        ByteBuffer b = ByteBuffer.wrap(out);
        int typeCode = b.getShort(at) & 0xffff;
        int type = typeCode >>> 8;
        int translated = type == 128 ? 8 : type == 129 ? 0 : type == 8 ? 128 : type == 0 ? 129 : -1;
        if (translated < 0) {
            return Optional.empty();
        }
        int newTypeCode = translated << 8 | typeCode & 0xff;
        long sum = (~b.getShort(at + 2) & 0xffff) + pseudo
                + replaced(typeCode, newTypeCode) + replaced(b.getShort(at + 4) & 0xffff, identifier);
        b.putShort(at, (short) newTypeCode).putShort(at + 4, (short) identifier);
        b.putShort(at + 2, (short) InternetChecksum.of(sum));
        return Optional.of(out);
    }

    /** RFC 1624: what replacing a 16-bit word adds to a ones' complement sum. */
    private static long replaced(int old, int now) {
        return (~old & 0xffff) + now;
    }

    /** Where the Fragment header starts, past Hop-by-Hop, Routing and Destination Options headers; -1 when none fits. */
    private static int fragmentHeaderAt(byte[] frame) {
        ByteBuffer b = ByteBuffer.wrap(frame);
        int end = ETHERNET + IPV6_HEADER + (b.getShort(ETHERNET + 4) & 0xffff);
        if (end > frame.length) {
            return -1;
        }
        int next = frame[ETHERNET + 6] & 0xff;
        int at = ETHERNET + IPV6_HEADER;
        while (PuntedPacket.isSkippedExtension(next) && at + 8 <= end) {
            next = frame[at] & 0xff;
            at += ((frame[at + 1] & 0xff) + 1) * 8;
        }
        return next == NEXT_FRAGMENT && at + FRAGMENT_HEADER <= end ? at : -1;
    }

    private static boolean isIpv6(byte[] frame) {
        return frame.length >= ETHERNET + IPV6_HEADER && (frame[12] & 0xff) == 0x86 && (frame[13] & 0xff) == 0xdd
                && (frame[ETHERNET] & 0xf0) == 0x60;
    }

    private static boolean isIpv4(byte[] frame) {
        if (frame.length < ETHERNET + 20 || (frame[12] & 0xff) != 0x08 || frame[13] != 0
                || (frame[ETHERNET] & 0xf0) != 0x40 || (frame[ETHERNET] & 0x0f) < 5) {
            return false;
        }
        int total = ByteBuffer.wrap(frame).getShort(ETHERNET + 2) & 0xffff;
        return total >= (frame[ETHERNET] & 0x0f) * 4 && ETHERNET + total <= frame.length;
    }
}
