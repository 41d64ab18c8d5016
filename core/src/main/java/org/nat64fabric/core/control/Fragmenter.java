package org.nat64fabric.core.control;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

/**
 * Fragments a packet the pipeline translated or routed but could not send whole (IPv4 without DF,
 * RFC 7915 4 and RFC 791): an IPv6 packet whose Fragment header the pipeline wrote right after
 * the IPv6 header (with the IPv4 identification, RFC 7915 4.1), or an IPv4 packet. The pipeline
 * has already routed it (hop limit, MACs): the fragments leave as they are.
 */
final class Fragmenter {
    private static final int ETHERNET = 14;
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86dd;
    private static final int IPV6_HEADER = 40;
    private static final int FRAGMENT_HEADER = 8;
    private static final int NEXT_HEADER_FRAGMENT = 44;
    private static final int MORE_FRAGMENTS_4 = 0x2000;

    private Fragmenter() {
    }

    /** The IP destination of the frame, as text; empty when it is neither IPv4 nor IPv6. */
    static Optional<String> destination(byte[] frame) {
        if (frame.length >= ETHERNET + IPV6_HEADER && (frame[12] & 0xff) == 0x86 && (frame[13] & 0xff) == 0xdd) {
            ByteBuffer b = ByteBuffer.wrap(frame);
            return Optional.of(Ipv6Address.of(b.getLong(ETHERNET + 24), b.getLong(ETHERNET + 32)).toString());
        }
        if (frame.length >= ETHERNET + 20 && (frame[12] & 0xff) == 0x08 && frame[13] == 0) {
            return Optional.of(Ipv4Address.of(ByteBuffer.wrap(frame).getInt(ETHERNET + 16)).toString());
        }
        return Optional.empty();
    }

    /**
     * The frame's fragments, each an IP packet of at most {@code mtu} bytes; empty when the frame
     * is neither IPv4 nor IPv6 with a Fragment header first, or when its lengths do not fit it.
     */
    static Optional<List<byte[]>> fragment(byte[] frame, int mtu) {
        if (frame.length < ETHERNET + 20) {
            return Optional.empty();
        }
        int etherType = (frame[12] & 0xff) << 8 | frame[13] & 0xff;
        if (etherType == ETHERTYPE_IPV6) {
            return ipv6(frame, mtu);
        }
        return etherType == ETHERTYPE_IPV4 ? ipv4(frame, mtu) : Optional.empty();
    }

    private static Optional<List<byte[]>> ipv6(byte[] frame, int mtu) {
        ByteBuffer b = ByteBuffer.wrap(frame);
        int payloadLength = b.getShort(ETHERNET + 4) & 0xffff;
        int end = ETHERNET + IPV6_HEADER + payloadLength;
        if (frame.length < ETHERNET + IPV6_HEADER + FRAGMENT_HEADER || (frame[ETHERNET + 6] & 0xff) != NEXT_HEADER_FRAGMENT
                || end > frame.length || payloadLength < FRAGMENT_HEADER) {
            return Optional.empty();
        }
        int fragmentWord = b.getShort(ETHERNET + IPV6_HEADER + 2) & 0xffff;
        int offset = fragmentWord >>> 3;
        boolean more = (fragmentWord & 1) != 0;
        int dataStart = ETHERNET + IPV6_HEADER + FRAGMENT_HEADER;
        int chunk = (mtu - IPV6_HEADER - FRAGMENT_HEADER) / 8 * 8;
        if (chunk < 8) {
            return Optional.empty();
        }
        List<byte[]> out = new ArrayList<>();
        for (int at = dataStart; at < end || at == dataStart; at += chunk) {
            int size = Math.min(chunk, end - at);
            boolean last = at + size >= end;
            byte[] f = Arrays.copyOf(frame, dataStart + size);
            System.arraycopy(frame, at, f, dataStart, size);
            ByteBuffer w = ByteBuffer.wrap(f);
            w.putShort(ETHERNET + 4, (short) (FRAGMENT_HEADER + size));
            w.putShort(ETHERNET + IPV6_HEADER + 2,
                    (short) ((offset + (at - dataStart) / 8) << 3 | (last && !more ? 0 : 1)));
            out.add(f);
        }
        return Optional.of(out);
    }

    private static Optional<List<byte[]>> ipv4(byte[] frame, int mtu) {
        ByteBuffer b = ByteBuffer.wrap(frame);
        int headerLength = (frame[ETHERNET] & 0x0f) * 4;
        int totalLength = b.getShort(ETHERNET + 2) & 0xffff;
        int end = ETHERNET + totalLength;
        if ((frame[ETHERNET] & 0xf0) != 0x40 || headerLength < 20 || totalLength < headerLength
                || end > frame.length) {
            return Optional.empty();
        }
        int flagsOffset = b.getShort(ETHERNET + 6) & 0xffff;
        int offset = flagsOffset & 0x1fff;
        boolean more = (flagsOffset & MORE_FRAGMENTS_4) != 0;
        byte[] header = Arrays.copyOfRange(frame, ETHERNET, ETHERNET + headerLength);
        byte[] laterHeader = copiedOptionsHeader(header);
        if (mtu - headerLength < 8) {
            return Optional.empty();
        }
        List<byte[]> out = new ArrayList<>();
        int at = ETHERNET + headerLength;
        do {
            byte[] h = at == ETHERNET + headerLength ? header : laterHeader;
            int size = Math.min((mtu - h.length) / 8 * 8, end - at);
            boolean last = at + size >= end;
            byte[] f = new byte[ETHERNET + h.length + size];
            System.arraycopy(frame, 0, f, 0, ETHERNET);
            System.arraycopy(h, 0, f, ETHERNET, h.length);
            System.arraycopy(frame, at, f, ETHERNET + h.length, size);
            ByteBuffer w = ByteBuffer.wrap(f);
            w.putShort(ETHERNET + 2, (short) (h.length + size));
            int fragmentOffset = offset + (at - ETHERNET - headerLength) / 8;
            w.putShort(ETHERNET + 6, (short) ((flagsOffset & 0x4000) | (last && !more ? 0 : MORE_FRAGMENTS_4)
                    | fragmentOffset));
            w.putShort(ETHERNET + 10, (short) 0);
            w.putShort(ETHERNET + 10, (short) InternetChecksum.of(InternetChecksum.add(0, f, ETHERNET, h.length)));
            out.add(f);
            at += size;
        } while (at < end);
        return Optional.of(out);
    }

    /** RFC 791: fragments after the first carry only the options whose copied flag is set. */
    private static byte[] copiedOptionsHeader(byte[] header) {
        ByteArrayOutputStream options = new ByteArrayOutputStream();
        int i = 20;
        while (i < header.length) {
            int type = header[i] & 0xff;
            if (type == 0) {
                break;                                   // end of options
            }
            int length = type == 1 ? 1 : (i + 1 < header.length ? header[i + 1] & 0xff : 0);
            if (length < 1 || i + length > header.length || type != 1 && length < 2) {
                break;                                   // malformed: keep what came before
            }
            if ((type & 0x80) != 0) {
                options.write(header, i, length);
            }
            i += length;
        }
        int padded = (options.size() + 3) / 4 * 4;
        byte[] h = Arrays.copyOf(header, 20 + padded);
        System.arraycopy(options.toByteArray(), 0, h, 20, options.size());
        Arrays.fill(h, 20 + options.size(), h.length, (byte) 0);
        h[0] = (byte) (0x40 | h.length / 4);
        return h;
    }
}
