package org.nat64fabric.core.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.p4.SumeHeaders;

/**
 * What the controller finishes for a NetFPGA SUME. The frames are as the card sends them, and the
 * expected checksums are scapy's (2.6.1), computed apart from this code.
 */
class FinisherTest {
    /** IPv6 UDP from 2001:db8:64::c633:6407 port 53 to 2001:db8:1::5 port 5000, checksum 0 (from IPv4 UDP without one). */
    private static final String UDP6_WITHOUT_CHECKSUM = "000000000006000000000a0186dd600000000018113f20010db80064000000000000"
            + "c633640720010db800010000000000000000000500351388001800006e6f20636865636b73756d2068657265";
    /** ICMPv6 port unreachable quoting an IPv6 UDP packet, its checksum wrong (0x1234). */
    private static final String ICMP6_ERROR = "000000000006000000000a0186dd60000000003b3a3f20010db80064000000000000"
            + "c000020120010db8000100000000000000000005010412340000000060000000000b114020010db80001000000000000"
            + "0000000520010db80064000000000000c633640713880035000ba1a1616263";
    /** ICMPv4 host unreachable whose IP length says 576 bytes, quoting more than fits (642-byte frame, checksum 0). */
    private static final String ICMP4_ERROR_HEAD = "000000000004000000000a010800450002400001000040018c80c0000201c6336407"
            + "0301000000000000450002740001000040118c33c000020ac63364079c40003502608182";

    private static byte[] bytes(String hex) {
        byte[] b = new BigInteger("01" + hex, 16).toByteArray();
        return Arrays.copyOfRange(b, 1, b.length);
    }

    private static int shortAt(byte[] f, int at) {
        return ByteBuffer.wrap(f).getShort(at) & 0xffff;
    }

    private static byte[] icmp4Error() {
        byte[] head = bytes(ICMP4_ERROR_HEAD);
        byte[] f = Arrays.copyOf(head, 642);
        Arrays.fill(f, head.length, f.length, (byte) 'q');
        return f;
    }

    @Test
    void udpWithoutChecksumGetsItsChecksumAndNothingElseChanges() {
        byte[] in = bytes(UDP6_WITHOUT_CHECKSUM);
        byte[] out = Finisher.finish(in, SumeHeaders.FINISH_UDP_CHECKSUM, 0).orElseThrow();
        assertEquals(0x4fe6, shortAt(out, 14 + 40 + 6));
        out[14 + 40 + 6] = 0;
        out[14 + 40 + 7] = 0;
        assertArrayEquals(in, out, "only the checksum changed");
        assertEquals(0, shortAt(in, 14 + 40 + 6), "the frame handed in is left alone");
    }

    @Test
    void aV1modelSumOfZeroIsSentAsAllOnesAndNothingElseIsTouched() {
        byte[] zeroSum = bytes(UDP6_WITHOUT_CHECKSUM);
        zeroSum[14 + 40 + 8] = (byte) 0xbe;   // "no" (0x6e6f) + 0x4fe6, the right checksum: the sum comes to 0
        zeroSum[14 + 40 + 9] = (byte) 0x55;
        assertEquals(0xffff, shortAt(Finisher.withUdpSumMended(zeroSum), 14 + 40 + 6), "RFC 768: 0 means none");
        byte[] summed = Finisher.finish(bytes(UDP6_WITHOUT_CHECKSUM), SumeHeaders.FINISH_UDP_CHECKSUM, 0).orElseThrow();
        assertArrayEquals(summed, Finisher.withUdpSumMended(summed), "a checksum that is not 0 stays");
        byte[] later = bytes(UDP6_WITHOUT_CHECKSUM);   // behind a Fragment header of offset 8: no UDP header there
        byte[] fragment = ByteBuffer.allocate(later.length + 8).put(later, 0, 54)
                .put(new byte[] {17, 0, 0, 8 << 3, 0, 0, 0, 1}).put(later, 54, later.length - 54).array();
        fragment[14 + 6] = 44;
        assertArrayEquals(fragment.clone(), Finisher.withUdpSumMended(fragment), "a later fragment is left alone");
    }

    @Test
    void anIcmpv6ErrorGetsItsChecksumOverPseudoHeaderAndMessage() {
        byte[] out = Finisher.finish(bytes(ICMP6_ERROR), SumeHeaders.FINISH_ICMP_CHECKSUM, 0).orElseThrow();
        assertEquals(0x6f79, shortAt(out, 14 + 40 + 2));
    }

    @Test
    void anIcmpv4ErrorIsCutToItsLimitThenChecksummed() {
        byte[] out = Finisher.finish(icmp4Error(), SumeHeaders.FINISH_ICMP_CHECKSUM | SumeHeaders.FINISH_TRUNCATE, 14 + 576).orElseThrow();
        assertEquals(14 + 576, out.length);
        assertEquals(0xa56f, shortAt(out, 14 + 20 + 2));
    }

    @Test
    void whatIsNotFinishedHereOrDoesNotFitIsRefused() {
        byte[] udp = bytes(UDP6_WITHOUT_CHECKSUM);
        assertTrue(Finisher.finish(udp, SumeHeaders.FINISH_TRACK, 0).isEmpty(), "TCP control: not here");
        assertTrue(Finisher.finish(udp, SumeHeaders.FINISH_HAIRPIN, 0).isEmpty(), "hairpin: not here");
        assertTrue(Finisher.finish(udp, SumeHeaders.FINISH_ICMP_CHECKSUM, 0).isEmpty(), "an ICMP checksum for UDP");
        assertTrue(Finisher.finish(bytes(ICMP6_ERROR), SumeHeaders.FINISH_UDP_CHECKSUM, 0).isEmpty(), "a UDP checksum for ICMP");
        assertTrue(Finisher.finish(icmp4Error(), SumeHeaders.FINISH_ICMP_CHECKSUM | SumeHeaders.FINISH_TRUNCATE, 700).isEmpty(),
                "a cut past the frame");
        assertTrue(Finisher.finish(Arrays.copyOf(udp, udp.length - 4), SumeHeaders.FINISH_UDP_CHECKSUM, 0).isEmpty(),
                "an IP length past the frame");
        byte[] arp = udp.clone();
        arp[12] = 0x08;
        arp[13] = 0x06;
        assertTrue(Finisher.finish(arp, SumeHeaders.FINISH_UDP_CHECKSUM, 0).isEmpty(), "not IP");
    }
}
