package org.nat64fabric.core.control;

import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

/**
 * The ICMP errors the controller sends about a frame, in the frame's own family: ICMPv4 (RFC 792)
 * about IPv4, ICMPv6 (RFC 4443) about IPv6. As the v1model pipeline builds them (IcmpError in
 * p4/include/icmp_error.p4): the packet is quoted from its IP header on, as much of it as keeps
 * the error within 576 bytes (RFC 1812 4.3.2.3) or 1280 bytes (RFC 4443 2.4(c)); the error goes
 * back to the packet's source with hop limit 64, traffic class 0, no flow label, a random IPv4
 * identification other than 0 (RFC 6864 4.2, RFC 7739) and no DF; the Ethernet addresses are the
 * frame's swapped.
 */
final class IcmpErrors {
    private static final int ETHERNET = 14;
    private static final int IPV4_HEADER = 20;
    private static final int IPV6_HEADER = 40;
    private static final int ICMP_HEADER = 8;
    /** The most an ICMP error may have (RFC 1812 4.3.2.3, RFC 4443 2.4(c)). */
    static final int IPV4_ERROR_MAX = 576;
    static final int IPV6_ERROR_MAX = 1280;

    private IcmpErrors() {
    }

    /**
     * The error about {@code frame} with this type, code and last four header bytes ({@code param}:
     * an MTU or a pointer), from {@code source4} about IPv4 or {@code source6} about IPv6. Empty
     * when the frame is neither, shorter than its IP header or its length, or that source is null.
     */
    static Optional<byte[]> about(byte[] frame, Ipv4Address source4, Ipv6Address source6, int type, int code,
                                  int param) {
        if (frame.length < ETHERNET + IPV4_HEADER) {
            return Optional.empty();
        }
        ByteBuffer in = ByteBuffer.wrap(frame);
        int etherType = in.getShort(12) & 0xffff;
        boolean v4 = etherType == 0x0800 && (frame[ETHERNET] & 0xf0) == 0x40;
        boolean v6 = etherType == 0x86dd && (frame[ETHERNET] & 0xf0) == 0x60 && frame.length >= ETHERNET + IPV6_HEADER;
        if (!v4 && !v6 || (v4 ? source4 == null : source6 == null)) {
            return Optional.empty();
        }
        int ipLength = v4 ? in.getShort(ETHERNET + 2) & 0xffff : IPV6_HEADER + (in.getShort(ETHERNET + 4) & 0xffff);
        if (ipLength > frame.length - ETHERNET || v4 && ipLength < IPV4_HEADER) {
            return Optional.empty();
        }
        int header = v4 ? IPV4_HEADER : IPV6_HEADER;
        int quoted = Math.min(ipLength, (v4 ? IPV4_ERROR_MAX : IPV6_ERROR_MAX) - header - ICMP_HEADER);
        byte[] out = new byte[ETHERNET + header + ICMP_HEADER + quoted];
        ByteBuffer b = ByteBuffer.wrap(out);
        b.put(frame, 6, 6).put(frame, 0, 6).putShort((short) etherType);
        int l4 = ETHERNET + header;
        if (v4) {
            b.put((byte) 0x45).put((byte) 0).putShort((short) (header + ICMP_HEADER + quoted));
            b.putShort((short) (1 + ThreadLocalRandom.current().nextInt(0xffff))).putShort((short) 0);   // no flags
            b.put((byte) 64).put((byte) 1).putShort((short) 0);
            b.putInt(source4.bits()).put(frame, ETHERNET + 12, 4);
            b.putShort(ETHERNET + 10, (short) InternetChecksum.of(InternetChecksum.add(0, out, ETHERNET, header)));
        } else {
            b.putInt(0x60000000).putShort((short) (ICMP_HEADER + quoted)).put((byte) 58).put((byte) 64);
            b.put(source6.toBytes()).put(frame, ETHERNET + 8, 16);
        }
        b.put((byte) type).put((byte) code).putShort((short) 0).putInt(param);
        b.put(frame, ETHERNET, quoted);
        long sum = v4 ? 0 : InternetChecksum.ipv6PseudoHeader(out, ETHERNET, ICMP_HEADER + quoted, 58);
        b.putShort(l4 + 2, (short) InternetChecksum.of(InternetChecksum.add(sum, out, l4, out.length - l4)));
        return Optional.of(out);
    }

    /**
     * Whether the frame holds an ICMP error: ICMPv4 Destination Unreachable, Time Exceeded or
     * Parameter Problem, or an ICMPv6 error message (type below 128, RFC 4443 2.1) right after the
     * IPv6 header, as the switch sends its own.
     */
    static boolean isError(byte[] frame) {
        if (frame.length < ETHERNET + IPV6_HEADER + 1) {
            return false;
        }
        ByteBuffer b = ByteBuffer.wrap(frame);
        int etherType = b.getShort(12) & 0xffff;
        if (etherType == 0x0800 && (frame[ETHERNET] & 0xf0) == 0x40 && frame[ETHERNET + 9] == 1) {
            int type = frame[ETHERNET + (frame[ETHERNET] & 0x0f) * 4] & 0xff;
            return type == 3 || type == 11 || type == 12;
        }
        return etherType == 0x86dd && (frame[ETHERNET] & 0xf0) == 0x60 && frame[ETHERNET + 6] == 58
                && (frame[ETHERNET + IPV6_HEADER] & 0xff) < 128;
    }

    /** The error's kind, as v1model's icmp_error.sent counts it: its type read in the frame's family. */
    static String kind(byte[] frame, int type, int code) {
        boolean v6 = frame.length > 13 && (frame[12] & 0xff) == 0x86 && (frame[13] & 0xff) == 0xdd;
        if (type == (v6 ? 3 : 11)) {
            return "timeExceeded";
        }
        if (v6 ? type == 2 : type == 3 && code == 4) {
            return "tooBig";
        }
        return type == (v6 ? 4 : 12) ? "parameterProblem" : "unreachable";
    }
}
