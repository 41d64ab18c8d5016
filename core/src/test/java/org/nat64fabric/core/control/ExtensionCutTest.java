package org.nat64fabric.core.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The cut of an ICMP error's datagram that lets its RFC 4884 extension through translation (the bytes: test_nat64_controller_path.py). */
class ExtensionCutTest {
    /** IPv4 Time Exceeded with a `datagram`-byte original datagram (an IPv4 UDP packet) and an `extension`-byte extension. */
    private static byte[] icmpv4Error(int datagram, int extension) {
        ByteBuffer b = ByteBuffer.allocate(14 + 20 + 8 + datagram + extension);
        b.position(12);
        b.putShort((short) 0x0800).put((byte) 0x45).put((byte) 0).putShort((short) (b.capacity() - 14)).putInt(0)
                .put((byte) 64).put((byte) 1).putShort((short) 0).putInt(0xc6336401).putInt(0xc000020a);
        b.put((byte) 11).put((byte) 0).putShort((short) 0).put((byte) 0).put((byte) (datagram / 4)).putShort((short) 0);
        b.put((byte) 0x45).position(b.position() + datagram - 1);
        for (int i = 0; i < extension; i++) {
            b.put((byte) (i + 1));
        }
        return b.array();
    }

    @Test
    void anIcmpv4ErrorKeepsItsExtensionAfterWhatFillsTheIcmpv6Limit() {
        byte[] out = ExtensionCut.cut(icmpv4Error(600, 640)).orElseThrow();
        assertEquals(14 + 20 + 8 + 572 + 640, out.length, "572 bytes: 592 as ICMPv6, with 640 and 48 of headers 1280");
        assertEquals(572 / 4, out[14 + 20 + 5] & 0xff, "the length attribute");
        assertEquals(out.length - 14, ByteBuffer.wrap(out).getShort(16), "the total length");
        assertEquals(1, out[out.length - 640], "the extension, from its first byte");
        assertEquals(0, InternetChecksum.of(InternetChecksum.add(0, out, 14, 20)), "the header checksum");
        assertEquals(0, InternetChecksum.of(InternetChecksum.add(0, out, 34, out.length - 34)), "the ICMP checksum");
    }

    @Test
    void quotedIpv4OptionsAreKeptInTheCutForTranslationLeavesThemOut() {
        byte[] error = icmpv4Error(600, 640);
        error[14 + 20 + 8] = 0x47;     // the quoted header has 8 bytes of options
        byte[] out = ExtensionCut.cut(error).orElseThrow();
        assertEquals(14 + 20 + 8 + 580 + 640, out.length, "580 bytes, less 8 of options, are 592 as ICMPv6: 1280 in all");
        assertEquals(580 / 4, out[14 + 20 + 5] & 0xff, "the length attribute");
    }

    /** IPv6 Destination Unreachable with a `datagram`-byte original datagram (an IPv6 UDP packet) and an `extension`. */
    private static byte[] icmpv6Error(int datagram, int extension) {
        ByteBuffer b = ByteBuffer.allocate(14 + 40 + 8 + datagram + extension);
        b.position(12);
        b.putShort((short) 0x86dd).putInt(0x60000000).putShort((short) (8 + datagram + extension)).put((byte) 58)
                .put((byte) 64).putLong(0x20010db800010000L).putLong(5).putLong(0x20010db800640000L).putLong(0xc6336407L);
        b.put((byte) 1).put((byte) 4).putShort((short) 0).put((byte) (datagram / 8)).put(new byte[3]);
        b.putInt(0x60000000).putShort((short) (datagram - 40)).put((byte) 17).put((byte) 61)
                .position(b.position() + datagram - 8);
        for (int i = 0; i < extension; i++) {
            b.put((byte) (i + 1));
        }
        return b.array();
    }

    @Test
    void anIcmpv6ErrorKeepsWhatTheIcmpv4LimitLeavesInEightByteUnitsPaddedTo128() {
        // A 420-byte extension leaves 128 bytes of datagram as ICMPv4; 148 as ICMPv6, 144 in 8-byte
        // units: 124 as ICMPv4, which the switch pads to 128 (576 bytes in all).
        byte[] out = ExtensionCut.cut(icmpv6Error(1000, 420)).orElseThrow();
        assertEquals(14 + 40 + 8 + 144 + 420, out.length);
        assertEquals(144 / 8, out[14 + 40 + 4] & 0xff, "the length attribute");
        assertEquals(out.length - 54, ByteBuffer.wrap(out).getShort(18), "the payload length");
        assertEquals(1, out[out.length - 420], "the extension, from its first byte");
        long pseudo = InternetChecksum.ipv6PseudoHeader(out, 14, out.length - 54, 58);
        assertEquals(0, InternetChecksum.of(InternetChecksum.add(pseudo, out, 54, out.length - 54)), "the ICMPv6 checksum");
        assertTrue(ExtensionCut.cut(icmpv6Error(1000, 424)).isEmpty(), "not even 128 bytes beside it");
    }

    /** The error of {@link #icmpv6Error} in a Fragment header: atomic (offset 0, no M), or the first of several. */
    private static byte[] inAFragment(byte[] error, boolean atomic) {
        ByteBuffer b = ByteBuffer.allocate(error.length + 8);
        b.put(error, 0, 14 + 40);
        b.put(14 + 6, (byte) 44).putShort(14 + 4, (short) (error.length - 54 + 8));
        b.put((byte) 58).put((byte) 0).putShort((short) (atomic ? 0 : 1)).putInt(0x87654321);
        b.put(error, 54, error.length - 54);
        return b.array();
    }

    @Test
    void anIcmpv6ErrorInAnAtomicFragmentIsCutAsAnyOtherButNotInAFragmentOfSeveral() {
        byte[] out = ExtensionCut.cut(inAFragment(icmpv6Error(1000, 420), true)).orElseThrow();
        assertEquals(14 + 40 + 8 + 8 + 144 + 420, out.length, "as without the Fragment header, which stays");
        assertEquals(144 / 8, out[14 + 48 + 4] & 0xff, "the length attribute");
        assertEquals(out.length - 54, ByteBuffer.wrap(out).getShort(18), "the payload length counts the Fragment header");
        long pseudo = InternetChecksum.ipv6PseudoHeader(out, 14, out.length - 62, 58);
        assertEquals(0, InternetChecksum.of(InternetChecksum.add(pseudo, out, 62, out.length - 62)),
                "the ICMPv6 checksum, its pseudo-header's length without the Fragment header");
        assertTrue(ExtensionCut.cut(inAFragment(icmpv6Error(1000, 420), false)).isEmpty(), "a fragment of several");
    }

    @Test
    void whatNeedsNoCutOrIsNoErrorIsLeftAlone() {
        assertTrue(ExtensionCut.cut(icmpv4Error(128, 40)).isEmpty(), "it fits as it is");
        assertTrue(ExtensionCut.cut(icmpv4Error(600, 0)).isEmpty(), "no extension");
        Random random = new Random(7);
        byte[] error = icmpv4Error(600, 640);
        for (int i = 0; i < 2000; i++) {
            byte[] garbage = i % 2 == 0 ? new byte[random.nextInt(200)] : Arrays.copyOf(error, random.nextInt(error.length));
            if (i % 2 == 0) {
                random.nextBytes(garbage);
            }
            ExtensionCut.cut(garbage);     // never throws: a malformed frame is only not cut
        }
    }
}
