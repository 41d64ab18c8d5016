package org.nat64fabric.core.addr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.common.net.InetAddresses;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Ipv6AddressTest {
    @Test
    void textIsRfc5952() {
        assertEquals("::", Ipv6Address.of(0, 0).toString());
        assertEquals("::1", Ipv6Address.of(0, 1).toString());
        assertEquals("2001:db8::1", Ipv6Address.of(0x20010db800000000L, 1).toString());
        assertEquals("2001:db8:0:1:1:1:1:1", Ipv6Address.of(0x20010db800000001L, 0x0001000100010001L).toString());
        assertEquals("2001:0:0:1::1", Ipv6Address.of(0x2001000000000001L, 1).toString());   // the longest run, not the first
        assertEquals("2001:db8::1:0:0:1", Ipv6Address.of(0x20010db800000000L, 0x0001000000000001L).toString());   // a tie: the first
        assertEquals("64:ff9b::c633:6407", Ipv6Address.of(0x0064ff9b00000000L, 0xc6336407L).toString());
        assertEquals("fe80::", Ipv6Address.of(0xfe80000000000000L, 0).toString());
    }

    @Test
    void textMatchesGuavasFormatterOnAddressesWithAndWithoutZeroRuns() throws Exception {
        Random random = new Random(6052);
        for (int n = 0; n < 20_000; n++) {
            long[] halves = {random.nextLong(), random.nextLong()};
            for (int h = 0; h < 8; h++) {   // zero some hextets, so runs of every length and place occur
                if (random.nextInt(3) == 0) {
                    halves[h / 4] &= ~(0xffffL << (48 - 16 * (h % 4)));
                }
            }
            byte[] bytes = ByteBuffer.allocate(16).putLong(halves[0]).putLong(halves[1]).array();
            assertEquals(InetAddresses.toAddrString(InetAddress.getByAddress(bytes)),
                    Ipv6Address.of(halves[0], halves[1]).toString());
        }
    }
}
