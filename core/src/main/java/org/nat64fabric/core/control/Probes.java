package org.nat64fabric.core.control;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * IPv4 packets a NetFPGA SUME could not translate whole (PUNT_TOO_LONG): a 1500-byte packet without
 * DF to an IPv6 host is 1528 bytes once translated with its Fragment header, over the card's
 * 1514-byte DMA frame, so the card can neither hand its translation over to be fragmented nor send
 * it; the same for an ICMPv4 error of over 1450 bytes, whose translation is to be cut to 1280 bytes
 * and summed. The card's pipe still translates it: it gets the packet's headers alone (a probe: the
 * IP header and the {@value #PROBED_L4} bytes after it, then a token of 8 bytes), takes the lengths
 * they state, and hands their translation back (FINISH_PROBED), token untouched. The translation
 * of the whole packet is that of its headers followed by the rest of its payload, as it came: the
 * checksum deltas the pipe applies do not depend on the payload, and ICMPv6's pseudo-header length
 * comes from the stated length. One piece of code translates, the pipe's.
 *
 * <p>Probes wait at most {@link #TIMEOUT_MS} ms and {@link #MAX_WAITING} at a time; the oldest
 * goes first (the packet is lost, as a full queue loses it).
 */
final class Probes {
    static final int MAX_WAITING = 1024;
    static final long TIMEOUT_MS = 1000;
    private static final int ETHERNET = 14;
    /**
     * The most the pipe reads and rewrites after an IPv4 header: an ICMP error's header (8) and the
     * IPv4 and transport headers it quotes (20 + 8, and 12 more of TCP's).
     */
    static final int PROBED_L4 = 48;
    private static final int TOKEN = 8;

    private static final class Waiting {
        final String deviceId;
        final byte[] frame;
        final int payloadAt;
        final long since;

        Waiting(String deviceId, byte[] frame, int payloadAt, long since) {
            this.deviceId = deviceId;
            this.frame = frame;
            this.payloadAt = payloadAt;
            this.since = since;
        }
    }

    private final LongSupplier clockMs;
    private final Map<Long, Waiting> waiting = new LinkedHashMap<>();
    private long nextToken = ThreadLocalRandom.current().nextLong();

    Probes(LongSupplier clockMs) {
        this.clockMs = clockMs;
    }

    /**
     * The probe for {@code frame} (Ethernet and IPv4, as the card handed it over), to send through
     * the pipe of {@code deviceId}; empty when it is not IPv4 with more than {@link #PROBED_L4}
     * bytes after its header.
     */
    synchronized Optional<byte[]> probe(String deviceId, byte[] frame) {
        if (frame.length < ETHERNET + 20 || (frame[12] & 0xff) != 0x08 || frame[13] != 0
                || (frame[ETHERNET] & 0xf0) != 0x40) {
            return Optional.empty();
        }
        int payloadAt = ETHERNET + (frame[ETHERNET] & 0x0f) * 4 + PROBED_L4;
        int end = ETHERNET + (ByteBuffer.wrap(frame).getShort(ETHERNET + 2) & 0xffff);
        if (payloadAt >= end || end > frame.length) {
            return Optional.empty();
        }
        long now = clockMs.getAsLong();
        Iterator<Waiting> oldest = waiting.values().iterator();
        while (oldest.hasNext()) {
            Waiting w = oldest.next();
            if (waiting.size() < MAX_WAITING && now - w.since < TIMEOUT_MS) {
                break;
            }
            oldest.remove();
        }
        long token = nextToken++;
        waiting.put(token, new Waiting(deviceId, Arrays.copyOf(frame, end), payloadAt, now));
        byte[] probe = Arrays.copyOf(frame, payloadAt + TOKEN);
        ByteBuffer.wrap(probe).putLong(payloadAt, token);
        return Optional.of(probe);
    }

    /**
     * The translation of the whole packet a probe from {@code deviceId} came back for: the
     * probe's translated headers (its token left off) and the packet's payload after them; empty
     * for a token not waiting (timed out, or not ours).
     */
    synchronized Optional<byte[]> translated(String deviceId, byte[] probe) {
        if (probe.length < ETHERNET + TOKEN) {
            return Optional.empty();
        }
        long token = ByteBuffer.wrap(probe).getLong(probe.length - TOKEN);
        Waiting w = waiting.get(token);
        if (w == null || !w.deviceId.equals(deviceId) || clockMs.getAsLong() - w.since >= TIMEOUT_MS) {
            return Optional.empty();
        }
        waiting.remove(token);
        int headers = probe.length - TOKEN;
        byte[] whole = Arrays.copyOf(probe, headers + w.frame.length - w.payloadAt);
        System.arraycopy(w.frame, w.payloadAt, whole, headers, w.frame.length - w.payloadAt);
        return Optional.of(whole);
    }
}
