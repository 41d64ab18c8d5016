package org.nat64fabric.core.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

/** Later fragments' headers as RFC 7915 4.1 and 5.1.1 translate them, and how they wait (RFC 6146 3.4). */
class LaterFragmentsTest {
    private static final Ipv6Address HOST = Ipv6Address.parse("2001:db8:1::5", "t");
    private static final Ipv6Address SERVER6 = Ipv6Address.parse("2001:db8:64::c633:6407", "t");
    private static final Ipv4Address POOL4 = Ipv4Address.parse("192.0.2.17", "t");
    private static final Ipv4Address SERVER = Ipv4Address.parse("198.51.100.7", "t");

    private static byte[] data(int n) {
        byte[] p = new byte[n];
        for (int i = 0; i < n; i++) {
            p[i] = (byte) (i * 7 + 3);
        }
        return p;
    }

    /** IPv6 (traffic class 0xb8, hop limit 40), a Hop-by-Hop header, then a Fragment header (offset words, M) before `data`. */
    private static byte[] ipv6Fragment(int offsetWords, boolean more, int id, byte[] data) {
        return ipv6Fragment(offsetWords, more, id, data, 17);
    }

    private static byte[] ipv6Fragment(int offsetWords, boolean more, int id, byte[] data, int next) {
        ByteBuffer b = ByteBuffer.allocate(14 + 40 + 8 + 8 + data.length);
        b.put(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}).putShort((short) 0x86dd);
        b.putInt(0x60000000 | 0xb8 << 20 | 0x12345).putShort((short) (16 + data.length)).put((byte) 0).put((byte) 40);
        b.putLong(HOST.high()).putLong(HOST.low()).putLong(SERVER6.high()).putLong(SERVER6.low());
        b.put((byte) 44).put((byte) 0).put(new byte[] {1, 4, 0, 0, 0, 0});                  // Hop-by-Hop, PadN
        b.put((byte) next).put((byte) 0).putShort((short) (offsetWords << 3 | (more ? 1 : 0))).putInt(id);
        b.put(data);
        return b.array();
    }

    /** IPv4 (TOS 0x28, TTL 50, one word of options) to pool4, with MF and an offset, before `data`. */
    private static byte[] ipv4Fragment(int offsetWords, boolean more, int id, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(14 + 24 + data.length);
        b.put(new byte[12]).putShort((short) 0x0800);
        b.put((byte) 0x46).put((byte) 0x28).putShort((short) (24 + data.length)).putShort((short) id)
                .putShort((short) ((more ? 0x2000 : 0) | offsetWords)).put((byte) 50).put((byte) 17).putShort((short) 0)
                .putInt(SERVER.bits()).putInt(POOL4.bits()).putInt(0x01010100);
        b.put(data);
        return b.array();
    }

    @Test
    void anIpv6LaterFragmentBecomesAnIpv4OneWithoutItsExtensionHeaders() {
        byte[] data = data(1000);
        byte[] out = LaterFragments.toIpv4(ipv6Fragment(154, true, 0xabcd1234, data), POOL4, SERVER, -1).orElseThrow();
        ByteBuffer b = ByteBuffer.wrap(out);
        assertEquals(14 + 20 + 1000, out.length);
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, Arrays.copyOf(out, 12), "the MACs kept");
        assertEquals(0x0800, b.getShort(12));
        assertEquals(0x45, b.get(14));
        assertEquals((byte) 0xb8, b.get(15), "traffic class");
        assertEquals(1020, b.getShort(16));
        assertEquals(0x1234, b.getShort(18) & 0xffff, "the identification's low 16 bits");
        assertEquals(0x2000 | 154, b.getShort(20), "MF and the offset, DF clear");
        assertEquals(40, b.get(22), "the hop limit; the pipeline routing it takes the hop");
        assertEquals(17, b.get(23));
        assertEquals(POOL4.bits(), b.getInt(26));
        assertEquals(SERVER.bits(), b.getInt(30));
        assertEquals(0, InternetChecksum.of(InternetChecksum.add(0, out, 14, 20)), "the header checksum holds");
        assertArrayEquals(data, Arrays.copyOfRange(out, 34, out.length));
    }

    @Test
    void theOperatorsTosAndZeroTrafficClassReplaceTheCopiedOctet() {
        // RFC 7915 5.1 and 4.1 (nat64.ipv4Tos, nat64.zeroTrafficClass), as the pipeline does.
        byte[] out4 = LaterFragments.toIpv4(ipv6Fragment(154, true, 0xabcd1234, data(64)), POOL4, SERVER, 0x28)
                .orElseThrow();
        assertEquals(0x28, out4[15], "the TOS set, not the traffic class 0xb8");
        assertEquals(0, InternetChecksum.of(InternetChecksum.add(0, out4, 14, 20)), "summed with it");
        byte[] out6 = LaterFragments.toIpv6(ipv4Fragment(185, false, 0x4242, data(64)), SERVER6, HOST, true)
                .orElseThrow();
        assertEquals(0x60000000, ByteBuffer.wrap(out6).getInt(14), "traffic class 0, not the TOS 0x28");
    }

    @Test
    void anIpv4LaterFragmentBecomesAnIpv6OneWithAFragmentHeaderAndNoOptions() {
        byte[] data = data(800);
        byte[] out = LaterFragments.toIpv6(ipv4Fragment(185, false, 0x4242, data), SERVER6, HOST, false).orElseThrow();
        ByteBuffer b = ByteBuffer.wrap(out);
        assertEquals(14 + 48 + 800, out.length);
        assertEquals((short) 0x86dd, b.getShort(12));
        assertEquals(0x60000000 | 0x28 << 20, b.getInt(14), "traffic class from TOS, flow label 0");
        assertEquals(808, b.getShort(18));
        assertEquals(44, b.get(20));
        assertEquals(50, b.get(21), "the TTL; the pipeline routing it takes the hop");
        assertEquals(SERVER6, Ipv6Address.of(b.getLong(22), b.getLong(30)));
        assertEquals(HOST, Ipv6Address.of(b.getLong(38), b.getLong(46)));
        assertEquals(17, b.get(54));
        assertEquals(185 << 3, b.getShort(56), "the offset, M clear on the last");
        assertEquals(0x4242, b.getInt(58), "the identification");
        assertArrayEquals(data, Arrays.copyOfRange(out, 62, out.length));
    }

    @Test
    void fragmentsBeforeTheirFirstWaitForItAndGoOnceItIsLearnt() {
        LaterFragments fragments = new LaterFragments(false, -1);
        byte[] later = ipv6Fragment(154, false, 7, data(16));
        LaterFragments.Result r = fragments.later("sw", later, 1000);
        assertEquals(1, r.held);
        assertTrue(r.translated.isEmpty());
        LaterFragments.Datagram d = LaterFragments.datagramOf(ipv6Fragment(0, true, 7, data(16))).orElseThrow();
        r = fragments.learn(d, POOL4, SERVER, 1500);
        assertEquals(1, r.translated.size(), "the fragment held goes once its first is known");
        assertEquals("sw", r.translated.get(0).deviceId);
        r = fragments.later("sw", ipv6Fragment(156, false, 7, data(16)), 1600);
        assertEquals(1, r.translated.size(), "and the next one at once");
        assertEquals(0, fragments.later("sw", ipv6Fragment(154, false, 8, data(16)), 1700).translated.size(),
                "another identification is another datagram");
    }

    @Test
    void whatWaitsLongerThanFragmentMinIsDroppedAndCountedAndDatagramsAreForgotten() {
        LaterFragments fragments = new LaterFragments(false, -1);
        LaterFragments.Datagram d = LaterFragments.datagramOf(ipv6Fragment(0, true, 9, data(16))).orElseThrow();
        fragments.learn(d, POOL4, SERVER, 0);
        assertEquals(1, fragments.later("sw", ipv6Fragment(2, false, 9, data(16)), 1999).translated.size());
        assertEquals(1, fragments.later("sw", ipv6Fragment(4, false, 9, data(16)), 3998).translated.size(),
                "each fragment keeps its datagram known for FRAGMENT_MIN more");
        assertEquals(1, fragments.later("sw", ipv6Fragment(6, false, 10, data(16)), 4000).held);
        LaterFragments.Result r = fragments.later("sw", ipv6Fragment(6, false, 9, data(16)),
                4000 + LaterFragments.FRAGMENT_MIN_MS);
        assertEquals(1, r.expired, "the fragment of datagram 10 waited FRAGMENT_MIN");
        assertEquals(1, r.held, "datagram 9 unused for FRAGMENT_MIN is forgotten: its fragment waits again");
    }

    /** An IPv6 fragment from another host of the subscriber's /64 (its last 16 bits {@code host}). */
    private static byte[] fromHost(int host, int id) {
        byte[] f = ipv6Fragment(1, false, id, data(8));
        ByteBuffer.wrap(f).putShort(14 + 8 + 14, (short) host);
        return f;
    }

    @Test
    void heldFragmentsAreBoundedPerSourceAndInAllAndWhatDoesNotParseIsCounted() {
        LaterFragments fragments = new LaterFragments(false, -1);
        for (int i = 0; i < LaterFragments.MAX_HELD_PER_SOURCE; i++) {
            assertEquals(1, fragments.later("sw", fromHost(1, i), 0).held);
        }
        assertEquals(1, fragments.later("sw", fromHost(1, -1), 0).overflow, "one source fills only its share");
        assertEquals(1, fragments.later("sw", fromHost(2, 0), 0).held, "another still waits");
        fragments.learn(LaterFragments.datagramOf(fromHost(1, 0)).orElseThrow(), POOL4, SERVER, 1);
        assertEquals(1, fragments.later("sw", fromHost(1, -2), 1).held, "a fragment released frees its place");
        for (int host = 3; fragments.later("sw", fromHost(host, 0), 2).held == 1; host++) {
            assertTrue(host < LaterFragments.MAX_HELD + 3, "the bound in all holds");
        }
        byte[] cut = Arrays.copyOf(ipv6Fragment(1, false, 1, data(8)), 60);
        assertEquals(1, fragments.later("sw", cut, 0).unparsed, "its lengths run past the frame");
        assertEquals(1, fragments.later("sw", new byte[] {1, 2, 3}, 0).unparsed);
    }

    /** An ICMPv6 echo request's first fragment (id 0x1234, seq 1) of a message of {@code length} bytes, with its checksum. */
    private static byte[] echoFirstFragment(int length, int checksumError) {
        byte[] icmp = data(64);
        ByteBuffer m = ByteBuffer.wrap(icmp);
        m.putShort(0, (short) (128 << 8)).putShort(2, (short) 0).putShort(4, (short) 0x1234).putShort(6, (short) 1);
        byte[] frame = ipv6Fragment(0, true, 77, icmp, 58);
        // The checksum over the whole message: this fragment's bytes, then the rest as data(length) would be.
        byte[] whole = Arrays.copyOf(icmp, length);
        System.arraycopy(data(length), 64, whole, 64, length - 64);
        long sum = InternetChecksum.add(InternetChecksum.ipv6PseudoHeader(frame, 14, length, 58), whole, 0, length);
        ByteBuffer.wrap(frame).putShort(frame.length - 64 + 2, (short) (InternetChecksum.of(sum) + checksumError));
        return frame;
    }

    @Test
    void anEchosFirstFragmentIsTranslatedOnceTheLastTellsTheLengthWithItsIdentifierAndChecksum() {
        int length = 64 + 1232;
        for (int error : new int[] {0, 5}) {
            LaterFragments fragments = new LaterFragments(false, -1);
            byte[] first = echoFirstFragment(length, error);
            LaterFragments.Datagram d = LaterFragments.firstOfSeveral(first).orElseThrow();
            LaterFragments.Result r = fragments.echoFirst("sw", first, d, POOL4, SERVER, 0x4321, null, 0);
            assertTrue(r.translated.isEmpty(), "it waits for the last fragment");
            byte[] rest = Arrays.copyOfRange(data(length), 64, length);
            r = fragments.later("sw", ipv6Fragment(8, false, 77, rest, 58), 10);
            assertEquals(2, r.translated.size(), "the first, then the last");
            byte[] out = r.translated.get(0).frame;
            ByteBuffer b = ByteBuffer.wrap(out);
            assertEquals(0x2000, b.getShort(20), "MF, offset 0");
            assertEquals(1, b.get(23), "ICMP");
            assertEquals(8 << 8, b.getShort(34), "echo request");
            assertEquals(0x4321, b.getShort(38), "the session's identifier");
            byte[] whole = new byte[length];
            System.arraycopy(out, 34, whole, 0, 64);
            System.arraycopy(rest, 0, whole, 64, rest.length);
            long sum = InternetChecksum.add(0, whole, 0, length);
            // Right: the message sums to zero. Off by `error` before: off by as much after (RFC 1624).
            assertEquals(error == 0 ? 0 : 0xffff - error, InternetChecksum.of(sum),
                    "the ICMPv4 checksum over the reassembled message");
        }
    }

    @Test
    void anEchoHairpinnedToAStatelessHostIsTranslatedBackToIpv6WithItsChecksum() {
        int length = 64 + 1232;
        Ipv6Address fromPool6 = Ipv6Address.parse("2001:db8:64::c000:211", "t");
        Ipv6Address peer = Ipv6Address.parse("2001:db8:1::78", "t");
        LaterFragments fragments = new LaterFragments(false, -1);
        byte[] first = echoFirstFragment(length, 0);
        LaterFragments.Datagram d = LaterFragments.firstOfSeveral(first).orElseThrow();
        fragments.echoFirst("sw", first, d, POOL4, SERVER, 0x4321, new LaterFragments.Hairpin(fromPool6, peer), 0);
        byte[] rest = Arrays.copyOfRange(data(length), 64, length);
        LaterFragments.Result r = fragments.later("sw", ipv6Fragment(8, false, 77, rest, 58), 10);
        assertEquals(2, r.translated.size(), "the first, then the last");
        byte[] whole = new byte[length];
        for (LaterFragments.Out o : r.translated) {
            assertTrue(o.ipv6, "IPv6, to be cut to its link");
            ByteBuffer b = ByteBuffer.wrap(o.frame);
            assertEquals(0x86dd, b.getShort(12) & 0xffff);
            assertEquals(0x60000000 | 0xb8 << 20, b.getInt(14), "traffic class kept, flow label 0 (RFC 7915 4.1)");
            assertEquals(44, b.get(20), "a Fragment header, the Hop-by-Hop one left out (RFC 7915 5.1.1)");
            assertEquals(40, b.get(21), "the hop limit, which the pipeline counts once");
            assertEquals(fromPool6, Ipv6Address.of(b.getLong(22), b.getLong(30)), "the source in pool6");
            assertEquals(peer, Ipv6Address.of(b.getLong(38), b.getLong(46)));
            assertEquals(58, b.get(54), "ICMPv6");
            assertEquals(77, b.getInt(58), "the identification's low 16 bits, as IPv4 carried them");
            int offset = (b.getShort(56) & 0xfff8);
            System.arraycopy(o.frame, 62, whole, offset, o.frame.length - 62);
        }
        ByteBuffer m = ByteBuffer.wrap(whole);
        assertEquals(128 << 8, m.getShort(0) & 0xffff, "still an echo request");
        assertEquals(0x4321, m.getShort(4) & 0xffff, "the identifier of its IPv4 side (a session's), kept on the way back");
        byte[] after = r.translated.get(0).frame;
        long sum = InternetChecksum.add(InternetChecksum.ipv6PseudoHeader(after, 14, length, 58), whole, 0, length);
        assertEquals(0, InternetChecksum.of(sum), "the ICMPv6 checksum for its new pseudo-header");
    }

    /** The fragment offsets (8-byte units) of the IPv4 fragments translated, in the order they leave. */
    private static List<Integer> ipv4Offsets(LaterFragments.Result r) {
        return r.translated.stream().map(o -> ByteBuffer.wrap(o.frame).getShort(20) & 0x1fff).collect(Collectors.toList());
    }

    @Test
    void anEchosFragmentsLeaveInTheOrderTheyCameTheFirstOnceTheLastHasCome() {
        int length = 64 + 24;
        LaterFragments fragments = new LaterFragments(false, -1);
        byte[] first = echoFirstFragment(length, 0);
        LaterFragments.Datagram d = LaterFragments.firstOfSeveral(first).orElseThrow();
        assertTrue(fragments.echoFirst("sw", first, d, POOL4, SERVER, 0x4321, null, 0).translated.isEmpty());
        byte[] rest = Arrays.copyOfRange(data(length), 64, length);
        LaterFragments.Result r = fragments.later("sw", ipv6Fragment(8, true, 77, Arrays.copyOf(rest, 8), 58), 5);
        assertTrue(r.translated.isEmpty(), "the second waits for the first to leave");
        assertEquals(0, r.overflow);
        r = fragments.later("sw", ipv6Fragment(9, false, 77, Arrays.copyOfRange(rest, 8, 24), 58), 10);
        List<Integer> offsets = ipv4Offsets(r);
        assertEquals(List.of(0, 8, 9), offsets, "the first, the second, the last: as they came");
    }

    @Test
    void fragmentsWaitingForTheirEchosFirstTakeTheirSourcesShareAndExpireWithIt() {
        LaterFragments fragments = new LaterFragments(false, -1);
        byte[] first = echoFirstFragment(64 + 8 * (LaterFragments.MAX_HELD_PER_SOURCE + 2), 0);
        fragments.echoFirst("sw", first, LaterFragments.firstOfSeveral(first).orElseThrow(), POOL4, SERVER, 1, null, 0);
        for (int i = 0; i < LaterFragments.MAX_HELD_PER_SOURCE; i++) {
            assertTrue(fragments.later("sw", ipv6Fragment(8 + i, true, 77, data(8), 58), 1).translated.isEmpty());
        }
        LaterFragments.Result over = fragments.later("sw", ipv6Fragment(72, true, 77, data(8), 58), 1);
        assertEquals(1, over.translated.size(), "over the source's share it leaves at once, not lost");
        LaterFragments.Result r = fragments.later("sw", ipv6Fragment(4, false, 78, data(8)), LaterFragments.FRAGMENT_MIN_MS + 1);
        assertEquals(1 + LaterFragments.MAX_HELD_PER_SOURCE, r.expired, "the first and those after it");
        assertEquals(1, r.held, "the share is free again");
    }

    @Test
    void anEchosFirstFragmentThatComesAgainTakesOverWhatWaitedForItAndLeavesNothingCounted() {
        int length = 64 + 16;
        LaterFragments fragments = new LaterFragments(false, -1);
        byte[] first = echoFirstFragment(length, 0);
        LaterFragments.Datagram d = LaterFragments.firstOfSeveral(first).orElseThrow();
        fragments.echoFirst("sw", first, d, POOL4, SERVER, 0x4321, null, 0);
        byte[] rest = Arrays.copyOfRange(data(length), 64, length);
        fragments.later("sw", ipv6Fragment(8, true, 77, Arrays.copyOf(rest, 8), 58), 1);
        assertTrue(fragments.echoFirst("sw", first, d, POOL4, SERVER, 0x4321, null, 2).translated.isEmpty(), "again");
        LaterFragments.Result r = fragments.later("sw", ipv6Fragment(9, false, 77, Arrays.copyOfRange(rest, 8, 16), 58), 3);
        List<Integer> offsets = ipv4Offsets(r);
        assertEquals(List.of(0, 8, 9), offsets);
        int overflow = 0;
        for (int i = 0; i < LaterFragments.MAX_HELD_PER_SOURCE; i++) {
            overflow += fragments.later("sw", ipv6Fragment(1 + i, true, 90, data(8)), 4).overflow;
        }
        assertEquals(0, overflow, "the source's whole share is there to hold another datagram's fragments");
    }

    @Test
    void fragmentsThatCameBeforeTheirEchosFirstLeaveAfterItWhenNearlyAllThatMayBeHeldAre() {
        LaterFragments fragments = new LaterFragments(false, -1);
        for (int k = 1; k <= LaterFragments.MAX_HELD / LaterFragments.MAX_HELD_PER_SOURCE; k++) {
            for (int i = 0; i < LaterFragments.MAX_HELD_PER_SOURCE - 1; i++) {
                byte[] other = ipv6Fragment(1 + i, true, 1000 + k, data(8));
                other[37] = (byte) (0x80 + k);      // 16 other sources, 63 each: 1008 held
                assertEquals(1, fragments.later("sw", other, 0).held);
            }
        }
        int length = 64 + 16 * 8;
        for (int i = 0; i < 15; i++) {
            assertEquals(1, fragments.later("sw", ipv6Fragment(8 + i, true, 77, data(8), 58), 1).held);
        }
        byte[] first = echoFirstFragment(length, 0);
        LaterFragments.Result r = fragments.echoFirst("sw", first, LaterFragments.firstOfSeveral(first).orElseThrow(),
                POOL4, SERVER, 0x4321, null, 2);
        assertTrue(r.translated.isEmpty(), "those that came before it wait behind it: 1023 held in all");
        r = fragments.later("sw", ipv6Fragment(23, false, 77, data(8), 58), 3);
        List<Integer> offsets = ipv4Offsets(r);
        assertEquals(0, offsets.get(0), "the first first");
        assertEquals(17, offsets.size());
        assertEquals(offsets.stream().sorted().collect(Collectors.toList()), offsets, "then the others in their order");
    }

    @Test
    void anEchosFirstFragmentWhoseLastNeverComesExpires() {
        LaterFragments fragments = new LaterFragments(false, -1);
        byte[] first = echoFirstFragment(64 + 16, 0);
        fragments.echoFirst("sw", first, LaterFragments.firstOfSeveral(first).orElseThrow(), POOL4, SERVER, 1, null, 0);
        LaterFragments.Result r = fragments.later("sw", ipv6Fragment(4, false, 78, data(8)), LaterFragments.FRAGMENT_MIN_MS);
        assertEquals(1, r.expired);
    }
}
