package org.nat64fabric.core.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

/**
 * The ICMP errors the controller builds. Byte-exact comparisons with scapy's packets run end to
 * end in tests/test_nat64_sume.py; here the limits, the fields and the refusals.
 */
class IcmpErrorsTest {
    private static final Ipv4Address SOURCE4 = Ipv4Address.of(0xc0000201);              // 192.0.2.1
    private static final Ipv6Address SOURCE6 = Ipv6Address.parse("2001:db8:1::1", "source");
    private static final byte[] HOST_MAC = {0, 0, 0, 0, 0, 4};
    private static final byte[] ROUTER_MAC = {0, 0, 0, 0, 0x0a, 1};

    private static ByteBuffer frame(int etherType, int length) {
        ByteBuffer b = ByteBuffer.allocate(length);
        b.put(ROUTER_MAC).put(HOST_MAC).putShort((short) etherType);
        return b;
    }

    /** IPv4 UDP of {@code ipLength} bytes from 198.51.100.7 in a frame of {@code frameLength}. */
    private static byte[] ipv4(int ipLength, int frameLength) {
        ByteBuffer b = frame(0x0800, frameLength);
        b.put((byte) 0x45).put((byte) 0).putShort((short) ipLength).putInt(0x40000000);
        b.put((byte) 1).put((byte) 17).putShort((short) 0).putInt(0xc6336407).putInt(0xc0000209);
        for (int i = 34; i < Math.min(14 + ipLength, frameLength); i++) {
            b.put(i, (byte) i);
        }
        return b.array();
    }

    private static byte[] ipv6(int payloadLength) {
        ByteBuffer b = frame(0x86dd, 14 + 40 + payloadLength);
        b.putInt(0x60000000).putShort((short) payloadLength).put((byte) 17).put((byte) 1);
        b.put(Ipv6Address.parse("2001:db8:1::5", "src").toBytes()).put(new byte[16]);
        return b.array();
    }

    private static int sum(long partial, byte[] f, int from, int length) {
        return InternetChecksum.of(InternetChecksum.add(partial, f, from, length));
    }

    @Test
    void anIpv4ErrorQuotesAtMost576BytesFromTheSwitchBackToTheSender() {
        byte[] in = ipv4(1000, 1014);
        byte[] out = IcmpErrors.about(in, SOURCE4, SOURCE6, 3, 4, 1480).orElseThrow();
        ByteBuffer b = ByteBuffer.wrap(out);
        assertEquals(14 + 576, out.length);
        assertArrayEquals(HOST_MAC, Arrays.copyOfRange(out, 0, 6), "back to the sender's MAC");
        assertArrayEquals(ROUTER_MAC, Arrays.copyOfRange(out, 6, 12));
        assertEquals(576, b.getShort(16) & 0xffff);
        assertNotEquals(0, b.getShort(18), "an identification drawn (RFC 6864 4.2)");
        assertEquals(0, b.getShort(20), "no DF, not a fragment");
        assertEquals(64, out[22]);
        assertEquals(1, out[23]);
        assertEquals(0, sum(0, out, 14, 20), "a valid header checksum");
        assertEquals(0xc0000201, b.getInt(26));
        assertEquals(0xc6336407, b.getInt(30));
        assertEquals(3, out[34]);
        assertEquals(4, out[35]);
        assertEquals(1480, b.getInt(38));
        assertEquals(0, sum(0, out, 34, out.length - 34), "a valid ICMP checksum");
        assertArrayEquals(Arrays.copyOfRange(in, 14, 14 + 548), Arrays.copyOfRange(out, 42, out.length));
    }

    @Test
    void eachIpv4ErrorGetsAnIdentificationOfItsOwn() {
        Set<Short> identifications = new HashSet<>();
        for (int i = 0; i < 64; i++) {
            byte[] out = IcmpErrors.about(ipv4(28, 60), SOURCE4, SOURCE6, 11, 0, 0).orElseThrow();
            identifications.add(ByteBuffer.wrap(out).getShort(18));
            assertEquals(0, sum(0, out, 14, 20), "a valid header checksum");
        }
        // 64 draws from 65535: more than four alike has a chance below 1e-7.
        assertTrue(identifications.size() >= 60, identifications.toString());
        assertFalse(identifications.contains((short) 0));
    }

    @Test
    void aShortPacketIsQuotedWithoutTheEthernetPadding() {
        byte[] out = IcmpErrors.about(ipv4(28, 60), SOURCE4, SOURCE6, 11, 0, 0).orElseThrow();
        assertEquals(14 + 20 + 8 + 28, out.length);
    }

    @Test
    void anIpv6ErrorQuotesAtMost1280BytesWithItsPseudoHeaderSummed() {
        byte[] in = ipv6(1400);
        byte[] out = IcmpErrors.about(in, SOURCE4, SOURCE6, 2, 0, 1420).orElseThrow();
        ByteBuffer b = ByteBuffer.wrap(out);
        assertEquals(14 + 1280, out.length);
        assertEquals(0x60000000, b.getInt(14), "traffic class 0, no flow label");
        assertEquals(1240, b.getShort(18) & 0xffff);
        assertEquals(58, out[20]);
        assertEquals(64, out[21]);
        assertArrayEquals(SOURCE6.toBytes(), Arrays.copyOfRange(out, 22, 38));
        assertArrayEquals(Arrays.copyOfRange(in, 22, 38), Arrays.copyOfRange(out, 38, 54), "to the sender");
        assertEquals(1420, b.getInt(58));
        assertEquals(0, sum(InternetChecksum.ipv6PseudoHeader(out, 14, 1240, 58), out, 54, 1240));
        assertArrayEquals(Arrays.copyOfRange(in, 14, 14 + 1232), Arrays.copyOfRange(out, 62, out.length));
    }

    @Test
    void noErrorAboutWhatIsNotIpOrRunsPastItsFrameOrWithoutASource() {
        assertTrue(IcmpErrors.about(frame(0x0806, 60).array(), SOURCE4, SOURCE6, 3, 1, 0).isEmpty(), "ARP");
        assertTrue(IcmpErrors.about(ipv4(100, 60), SOURCE4, SOURCE6, 3, 1, 0).isEmpty(), "IP length past the frame");
        assertTrue(IcmpErrors.about(ipv4(28, 60), null, SOURCE6, 3, 1, 0).isEmpty(), "no IPv4 source");
        assertTrue(IcmpErrors.about(ipv6(8), SOURCE4, null, 1, 1, 0).isEmpty(), "no IPv6 source");
    }

    @Test
    void errorsAreToldFromOtherPackets() {
        for (int[] typeCode : new int[][] {{3, 4}, {11, 0}, {12, 0}}) {
            assertTrue(IcmpErrors.isError(IcmpErrors.about(ipv4(100, 114), SOURCE4, null, typeCode[0], typeCode[1], 0)
                    .orElseThrow()), typeCode[0] + "/" + typeCode[1]);
        }
        for (int type : new int[] {1, 2, 3, 4}) {
            assertTrue(IcmpErrors.isError(IcmpErrors.about(ipv6(100), null, SOURCE6, type, 0, 0).orElseThrow()));
        }
        byte[] echo = ipv4(100, 114);
        echo[14 + 9] = 1;                   // ICMP, type 0x22 = 34: not an error
        assertFalse(IcmpErrors.isError(echo));
        assertFalse(IcmpErrors.isError(ipv4(100, 114)), "UDP");
        byte[] echo6 = ipv6(100);
        echo6[14 + 6] = 58;
        echo6[14 + 40] = (byte) 128;        // echo request
        assertFalse(IcmpErrors.isError(echo6));
        assertFalse(IcmpErrors.isError(ipv6(100)), "UDP");
        assertFalse(IcmpErrors.isError(new byte[20]), "too short");
    }

    @Test
    void errorsAreCountedByKindAsV1modelCountsThem() {
        assertEquals("timeExceeded", IcmpErrors.kind(ipv4(28, 60), 11, 0));
        assertEquals("tooBig", IcmpErrors.kind(ipv4(28, 60), 3, 4));
        assertEquals("unreachable", IcmpErrors.kind(ipv4(28, 60), 3, 13));
        assertEquals("timeExceeded", IcmpErrors.kind(ipv6(8), 3, 0));
        assertEquals("tooBig", IcmpErrors.kind(ipv6(8), 2, 0));
        assertEquals("parameterProblem", IcmpErrors.kind(ipv6(8), 4, 0));
        assertEquals("unreachable", IcmpErrors.kind(ipv6(8), 1, 1));
    }
}
