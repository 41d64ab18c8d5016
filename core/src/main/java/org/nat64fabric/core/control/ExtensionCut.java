package org.nat64fabric.core.control;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;

/**
 * RFC 4884 with RFC 7915 4.2 and 5.2: an ICMP error whose extension would take its translation
 * over the 576 (ICMPv4) or 1280 (ICMPv6) bytes an error may have keeps its extension whole and
 * its original datagram cut instead, so that the translated message fills the limit, the datagram
 * no shorter than the 128 bytes RFC 4884 5.1 asks. The switch punts such an error
 * (PUNT_ICMP_EXTENSION; translate.p4's {@code extension_fits_only_cut} decides which come); here
 * its datagram is cut as it came, its length attribute, lengths and checksums set, and the
 * pipeline it goes back through translates it, extension and all.
 */
final class ExtensionCut {
    private static final int ETHERNET = 14;
    private static final int IPV6_HEADER = 40;
    private static final int ICMP_HEADER = 8;
    private static final int MIN_DATAGRAM = 128;
    private static final int NEXT_ICMPV6 = 58;
    private static final int NEXT_FRAGMENT = 44;

    private ExtensionCut() {
    }

    /** The error with its datagram cut; empty for a frame that is not such an error, or needs no cut. */
    static Optional<byte[]> cut(byte[] frame) {
        if (frame.length < ETHERNET + 20) {
            return Optional.empty();
        }
        int etherType = (frame[12] & 0xff) << 8 | frame[13] & 0xff;
        return etherType == 0x0800 ? fromIpv4(frame) : etherType == 0x86dd ? fromIpv6(frame) : Optional.empty();
    }

    /**
     * ICMPv4 to become ICMPv6: the datagram grows by 20 (28 with the Fragment header a fragment
     * gets) less the quoted header's options, which translation leaves out; in 8-byte units.
     */
    private static Optional<byte[]> fromIpv4(byte[] frame) {
        ByteBuffer b = ByteBuffer.wrap(frame);
        int ihl = (frame[ETHERNET] & 0x0f) * 4;
        int end = ETHERNET + (b.getShort(ETHERNET + 2) & 0xffff);
        int icmp = ETHERNET + ihl;
        if (ihl < 20 || end > frame.length || frame[ETHERNET + 9] != 1 || icmp + ICMP_HEADER + 20 > end) {
            return Optional.empty();
        }
        int datagram = (frame[icmp + 5] & 0xff) * 4;
        int extension = end - icmp - ICMP_HEADER - datagram;
        boolean fragment = (b.getShort(icmp + ICMP_HEADER + 6) & 0x3fff) != 0;
        int translated = (IcmpErrors.IPV6_ERROR_MAX - IPV6_HEADER - ICMP_HEADER - extension) & ~7;
        int quotedOptions = (frame[icmp + ICMP_HEADER] & 0x0f) * 4 - 20;
        int kept = translated - (fragment ? 28 : 20) + quotedOptions;
        if (translated < MIN_DATAGRAM) {
            return Optional.empty();
        }
        Optional<byte[]> out = without(frame, icmp, datagram, extension, kept);
        out.ifPresent(o -> {
            ByteBuffer w = ByteBuffer.wrap(o);
            w.put(icmp + 5, (byte) (kept / 4));
            w.putShort(ETHERNET + 2, (short) (o.length - ETHERNET)).putShort(ETHERNET + 10, (short) 0);
            w.putShort(ETHERNET + 10, (short) InternetChecksum.of(InternetChecksum.add(0, o, ETHERNET, ihl)));
            w.putShort(icmp + 2, (short) 0);
            w.putShort(icmp + 2, (short) InternetChecksum.of(InternetChecksum.add(0, o, icmp, o.length - icmp)));
        });
        return out;
    }

    /** ICMPv6 to become ICMPv4: the datagram shrinks by 20 (28 without a quoted Fragment header), in 4-byte units. */
    private static Optional<byte[]> fromIpv6(byte[] frame) {
        ByteBuffer b = ByteBuffer.wrap(frame);
        int end = ETHERNET + IPV6_HEADER + (b.getShort(ETHERNET + 4) & 0xffff);
        int icmp = end > frame.length ? -1 : icmpv6At(frame, end);
        if (icmp < 0 || icmp + ICMP_HEADER + IPV6_HEADER > end) {
            return Optional.empty();
        }
        int datagram = (frame[icmp + 4] & 0xff) * 8;
        int extension = end - icmp - ICMP_HEADER - datagram;
        int shrink = (frame[icmp + ICMP_HEADER + 6] & 0xff) == NEXT_FRAGMENT ? 28 : 20;
        // The datagram field counts 8-byte units here: what the IPv4 limit leaves, rounded down to
        // them; the switch pads a datagram left under 128 bytes as IPv4 to 128.
        int kept = (((IcmpErrors.IPV4_ERROR_MAX - 20 - ICMP_HEADER - extension) & ~3) + shrink) & ~7;
        if (20 + ICMP_HEADER + Math.max(kept - shrink, MIN_DATAGRAM) + extension > IcmpErrors.IPV4_ERROR_MAX) {
            return Optional.empty();
        }
        Optional<byte[]> out = without(frame, icmp, datagram, extension, kept);
        out.ifPresent(o -> {
            ByteBuffer w = ByteBuffer.wrap(o);
            w.put(icmp + 4, (byte) (kept / 8));
            w.putShort(ETHERNET + 4, (short) (o.length - ETHERNET - IPV6_HEADER));
            w.putShort(icmp + 2, (short) 0);
            long sum = InternetChecksum.ipv6PseudoHeader(o, ETHERNET, o.length - icmp, NEXT_ICMPV6);
            w.putShort(icmp + 2, (short) InternetChecksum.of(InternetChecksum.add(sum, o, icmp, o.length - icmp)));
        });
        return out;
    }

    /**
     * Where the ICMPv6 message starts, past Hop-by-Hop, Routing and Destination Options headers and
     * an atomic Fragment header (offset 0, no M: an error in one is translated, RFC 6946 4); -1 for none.
     */
    private static int icmpv6At(byte[] frame, int end) {
        int next = frame[ETHERNET + 6] & 0xff;
        int at = ETHERNET + IPV6_HEADER;
        while (at + 8 <= end && (PuntedPacket.isSkippedExtension(next)
                || next == NEXT_FRAGMENT && frame[at + 2] == 0 && (frame[at + 3] & 0xf9) == 0)) {
            int length = next == NEXT_FRAGMENT ? 8 : ((frame[at + 1] & 0xff) + 1) * 8;
            next = frame[at] & 0xff;
            at += length;
        }
        return next == NEXT_ICMPV6 ? at : -1;
    }

    /** The frame with its datagram's bytes from {@code kept} on left out, the extension after them; empty when nothing is to cut. */
    private static Optional<byte[]> without(byte[] frame, int icmp, int datagram, int extension, int kept) {
        if (extension <= 0 || kept >= datagram) {
            return Optional.empty();
        }
        int from = icmp + ICMP_HEADER;
        byte[] out = Arrays.copyOf(frame, from + kept + extension);
        System.arraycopy(frame, from + datagram, out, from + kept, extension);
        return Optional.of(out);
    }
}
