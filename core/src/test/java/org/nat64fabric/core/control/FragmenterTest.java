package org.nat64fabric.core.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Fragments as RFC 8200 4.5 and RFC 791 lay them out, checked field by field and reassembled. */
class FragmenterTest {
    private static byte[] payload(int n) {
        byte[] p = new byte[n];
        for (int i = 0; i < n; i++) {
            p[i] = (byte) (i * 7 + 3);
        }
        return p;
    }

    /** Ethernet, IPv6 (hop limit 63) and a Fragment header (offset 0, M 0, id 0x1234) before `data`. */
    private static byte[] ipv6WithFragmentHeader(byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(14 + 40 + 8 + data.length);
        b.put(new byte[12]).putShort((short) 0x86dd);
        b.putInt(0x60000000).putShort((short) (8 + data.length)).put((byte) 44).put((byte) 63);
        b.put(new byte[32]);
        b.put((byte) 17).put((byte) 0).putShort((short) 0).putInt(0x1234);
        b.put(data);
        return b.array();
    }

    @Test
    void anIpv6PacketIsCutIntoEightByteAlignedFragmentsOfTheMtu() {
        byte[] data = payload(3000);
        List<byte[]> fragments = Fragmenter.fragment(ipv6WithFragmentHeader(data), 1280).orElseThrow();
        assertEquals(3, fragments.size());
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        int expectedOffset = 0;
        for (int i = 0; i < fragments.size(); i++) {
            ByteBuffer f = ByteBuffer.wrap(fragments.get(i));
            int size = f.getShort(14 + 4) - 8;
            assertEquals(fragments.get(i).length, 14 + 48 + size);
            assertTrue(14 + 48 + size - 14 <= 1280, "fits the MTU");
            assertEquals(63, f.get(14 + 7), "the hop limit the pipeline left");
            int word = f.getShort(14 + 42) & 0xffff;
            assertEquals(expectedOffset, word >>> 3);
            assertEquals(i < fragments.size() - 1 ? 1 : 0, word & 1, "M set on all but the last");
            assertEquals(0x1234, f.getInt(14 + 44), "every fragment keeps the identification");
            assertEquals(17, f.get(14 + 40));
            if (i < fragments.size() - 1) {
                assertEquals(0, size % 8);
                assertEquals(1232, size);
            }
            joined.write(fragments.get(i), 14 + 48, size);
            expectedOffset += size / 8;
        }
        assertArrayEquals(data, joined.toByteArray());
    }

    @Test
    void anIpv4PacketKeepsOnlyItsCopiedOptionsAfterTheFirstFragmentAndEveryChecksumIsRight() {
        byte[] data = payload(1000);
        // IHL 7: a copied option (type 0x94, router alert, 4 bytes) and a not copied one (NOP NOP, record-like 0x07 2).
        byte[] options = {(byte) 0x94, 4, 0, 0, 1, 1, 7, 2};
        ByteBuffer b = ByteBuffer.allocate(14 + 28 + data.length);
        b.put(new byte[12]).putShort((short) 0x0800);
        b.put((byte) 0x47).put((byte) 0).putShort((short) (28 + data.length)).putShort((short) 0x4242)
                .putShort((short) 0).put((byte) 9).put((byte) 17).putShort((short) 0)
                .putInt(0xc6336407).putInt(0xcb007105).put(options).put(data);
        List<byte[]> fragments = Fragmenter.fragment(b.array(), 576).orElseThrow();
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (int i = 0; i < fragments.size(); i++) {
            byte[] f = fragments.get(i);
            int ihl = (f[14] & 0x0f) * 4;
            ByteBuffer w = ByteBuffer.wrap(f);
            assertEquals(i == 0 ? 28 : 24, ihl, "later fragments: the copied option, padded to a word");
            if (i > 0) {
                assertArrayEquals(new byte[] {(byte) 0x94, 4, 0, 0}, java.util.Arrays.copyOfRange(f, 34, 38));
            }
            assertTrue(f.length - 14 <= 576);
            assertEquals(f.length - 14, w.getShort(16) & 0xffff);
            assertEquals(0x4242, w.getShort(18) & 0xffff);
            int flags = w.getShort(20) & 0xffff;
            assertEquals(joined.size() / 8, flags & 0x1fff);
            assertEquals(i < fragments.size() - 1, (flags & 0x2000) != 0);
            assertEquals(9, f[22], "the TTL the pipeline left");
            assertEquals(0xffff, onesSum(f, 14, ihl), "header checksum");
            joined.write(f, 14 + ihl, f.length - 14 - ihl);
        }
        assertArrayEquals(data, joined.toByteArray());
    }

    @Test
    void theDestinationIsReadFromEitherFamily() {
        assertEquals("::", Fragmenter.destination(ipv6WithFragmentHeader(payload(8))).orElseThrow());
        byte[] v4 = new byte[34];
        v4[12] = 8;
        v4[14] = 0x45;
        v4[30] = (byte) 203;
        v4[33] = 9;
        assertEquals("203.0.0.9", Fragmenter.destination(v4).orElseThrow());
        assertTrue(Fragmenter.destination(new byte[60]).isEmpty());
    }

    @Test
    void whatIsNotAFragmentableIpPacketIsRefused() {
        assertTrue(Fragmenter.fragment(new byte[10], 1280).isEmpty());
        byte[] noFragmentHeader = ipv6WithFragmentHeader(payload(100));
        noFragmentHeader[14 + 6] = 17;
        assertTrue(Fragmenter.fragment(noFragmentHeader, 1280).isEmpty());
        byte[] tooLong = ipv6WithFragmentHeader(payload(100));
        tooLong[14 + 5] = (byte) 200;
        assertTrue(Fragmenter.fragment(tooLong, 1280).isEmpty());
    }

    private static int onesSum(byte[] data, int from, int length) {
        int sum = 0;
        for (int i = from; i < from + length; i += 2) {
            sum += (data[i] & 0xff) << 8 | data[i + 1] & 0xff;
        }
        while (sum >> 16 != 0) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        return sum;
    }
}
