package org.nat64fabric.softswitch.v1model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.softswitch.testutil.P4Programs.bytes;
import static org.nat64fabric.softswitch.testutil.P4Programs.hex;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.testutil.P4Programs;

/** The example L3 program run in process: byte-exact outputs with independently computed checksums. */
class L3ForwardingTest {
    private Program program;
    private V1ModelSwitch sw;

    static final String ETH = "00000000aa01 00000000bb01 ";
    static final String SRC_MAC = "00000000cc02";
    static final String DST_MAC = "00000000dd02";

    @BeforeEach
    void setUp() {
        program = Frontend.compile(Path.of("examples/l3_forwarding.p4"));
        sw = new V1ModelSwitch(program);
        Table v4 = program.table("L3Ingress.ipv4_lpm");
        v4.insert(new Table.Entry(new Table.FieldMatch[] {Table.FieldMatch.lpm(BigInteger.valueOf(0x0a000000L), 8, 32)},
                0, P4Programs.call(program, "L3Ingress.set_next_hop_v4", 2, 0xcc02, 0xdd02), 0));
        v4.insert(new Table.Entry(new Table.FieldMatch[] {Table.FieldMatch.lpm(BigInteger.valueOf(0x0a010000L), 16, 32)},
                0, P4Programs.call(program, "L3Ingress.set_next_hop_v4", 3, 0xcc02, 0xdd02), 0));
        Table v6 = program.table("L3Ingress.ipv6_lpm");
        v6.insert(new Table.Entry(new Table.FieldMatch[] {Table.FieldMatch.lpm(
                new BigInteger("20010db8000000000000000000000000", 16), 32, 128)},
                0, P4Programs.call(program, "L3Ingress.set_next_hop_v6", 4, 0xcc02, 0xdd02), 0));
    }

    /** IPv4 header (20 bytes) with a correct checksum. */
    static String ipv4(int ttl, String src, String dst) {
        String h = "45000020 00010000 " + String.format("%02x", ttl) + "110000 " + src + dst;
        byte[] b = bytes(h);
        int sum = checksum(b);
        b[10] = (byte) (sum >> 8);
        b[11] = (byte) sum;
        return hex(b);
    }

    /** RFC 1071 Internet checksum, written here independently of softswitch's. */
    static int checksum(byte[] b) {
        long sum = 0;
        for (int i = 0; i < b.length; i += 2) {
            sum += ((b[i] & 0xFF) << 8) | (i + 1 < b.length ? b[i + 1] & 0xFF : 0);
        }
        while ((sum >> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        return (int) (~sum & 0xFFFF);
    }

    @Test
    void forwardsIpv4ByLongestPrefixDecrementsTtlAndFixesChecksum() {
        String payload = "0102030405060708090a0b0c";
        byte[] in = bytes(ETH + "0800" + ipv4(64, "c0a80001", "0a010203") + payload);
        List<V1ModelSwitch.Output> out = sw.process(1, in);
        assertEquals(1, out.size());
        assertEquals(3, out.get(0).port, "the /16 wins over the /8");
        String expected = DST_MAC + SRC_MAC + "0800" + ipv4(63, "c0a80001", "0a010203") + payload;
        assertEquals(expected, hex(out.get(0).data));
        assertEquals(0, checksum(java.util.Arrays.copyOfRange(out.get(0).data, 14, 34)), "the IPv4 checksum verifies");

        out = sw.process(1, bytes(ETH + "0800" + ipv4(64, "c0a80001", "0a7f0001") + payload));
        assertEquals(2, out.get(0).port, "only the /8 matches");
    }

    @Test
    void countsHitsInTheDirectCounter() {
        byte[] in = bytes(ETH + "0800" + ipv4(64, "c0a80001", "0a010203"));
        sw.process(1, in);
        sw.process(1, in);
        Table.Entry e = program.table("L3Ingress.ipv4_lpm").entries().get(1);
        assertEquals(2, e.packets);
        assertEquals(2L * in.length, e.bytes);
    }

    @Test
    void dropsMissesAndBadChecksums() {
        assertTrue(sw.process(1, bytes(ETH + "0800" + ipv4(64, "c0a80001", "0b000001"))).isEmpty(), "no route");
        byte[] bad = bytes(ETH + "0800" + ipv4(64, "c0a80001", "0a010203"));
        bad[24] ^= 0x01;   // corrupt the checksum
        assertTrue(sw.process(1, bad).isEmpty(), "bad checksum");
        assertEquals(2L, sw.stats().get("drop: ingress"));
    }

    @Test
    void forwardsIpv6AndDecrementsHopLimit() {
        String v6 = "60000000 0008 11 40 " + "fd000000000000000000000000000001" + "20010db8000000000000000000000099";
        List<V1ModelSwitch.Output> out = sw.process(1, bytes(ETH + "86dd" + v6 + "0000000000000000"));
        assertEquals(4, out.get(0).port);
        assertEquals(DST_MAC + SRC_MAC + "86dd" + v6.replace(" 40 ", " 3f ").replace(" ", "") + "0000000000000000",
                hex(out.get(0).data));
    }

    @Test
    void expiringTtlGoesToTheCpuWithPacketInMetadata() {
        byte[] in = bytes(ETH + "0800" + ipv4(1, "c0a80001", "0a010203"));
        List<V1ModelSwitch.Output> out = sw.process(7, in);
        assertEquals(255, out.get(0).port);
        // packet_in: ingress_port (9 bits) = 7, 7 bits of padding, then the original frame
        assertEquals("0380" + hex(in), hex(out.get(0).data));
    }

    @Test
    void packetOutFromTheCpuLeavesOnTheRequestedPort() {
        byte[] frame = bytes(ETH + "0800" + ipv4(64, "c0a80001", "0b000001"));
        // packet_out: egress_port 5 in the top 9 bits
        List<V1ModelSwitch.Output> out = sw.process(255, bytes("0280" + hex(frame)));
        assertEquals(1, out.size());
        assertEquals(5, out.get(0).port);
        assertEquals(hex(frame), hex(out.get(0).data));
    }

    @Test
    void truncatedPacketsAreDroppedAndCountedAsParserErrors() {
        byte[] in = bytes(ETH + "0800" + "4500");
        assertTrue(sw.process(1, in).isEmpty());
        assertEquals(1L, sw.stats().get("parser error: PacketTooShort"));
    }

    @Test
    void randomBytesNeverCrashTheSwitch() {
        java.util.Random r = new java.util.Random(42);
        for (int i = 0; i < 5000; i++) {
            byte[] b = new byte[r.nextInt(120)];
            r.nextBytes(b);
            sw.process(r.nextInt(300), b);
        }
        assertEquals(5000L, sw.stats().get("rx"));
    }
}
