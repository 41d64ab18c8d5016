package org.nat64fabric.core.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a probe carries and how its translation is joined to the payload it left out. */
class ProbesTest {
    private long now = 5_000;
    private final Probes probes = new Probes(() -> now);

    /** An IPv4 frame of {@code length} IP bytes (options of {@code optionWords} words), payload bytes counting up. */
    private static byte[] frame(int length, int optionWords) {
        ByteBuffer b = ByteBuffer.allocate(14 + length + 6);            // 6 bytes of Ethernet padding after it
        b.put(new byte[12]).putShort((short) 0x0800);
        b.putInt((0x45 + optionWords) << 24 | length).putInt(0).putInt(0x40110000).putInt(0x0a000001).putInt(0x0a000002);
        for (int i = 20; i < length; i++) {
            b.put((byte) i);
        }
        return b.array();
    }

    /** The card's answer to a probe: its own headers (here 30 bytes) with the token after them. */
    private static byte[] answer(byte[] probe, int headers) {
        byte[] a = new byte[headers + 8];
        Arrays.fill(a, 0, headers, (byte) 0x77);
        System.arraycopy(probe, probe.length - 8, a, headers, 8);
        return a;
    }

    @Test
    void aProbeIsTheHeadersThenTheTokenAndItsAnswerTakesThePayloadBehindIt() {
        byte[] frame = frame(1500, 2);
        byte[] probe = probes.probe("s1", frame).orElseThrow();
        assertEquals(14 + 28 + Probes.PROBED_L4 + 8, probe.length, "Ethernet, IPv4 with 8 bytes of options, 48 bytes");
        assertArrayEquals(Arrays.copyOf(frame, 14 + 28 + 48), Arrays.copyOf(probe, 14 + 28 + 48));

        byte[] whole = probes.translated("s1", answer(probe, 30)).orElseThrow();
        assertEquals(30 + 1500 - 28 - 48, whole.length, "the Ethernet padding left out");
        assertArrayEquals(Arrays.copyOfRange(frame, 14 + 28 + 48, 14 + 1500), Arrays.copyOfRange(whole, 30, whole.length));
        assertEquals(Optional.empty(), probes.translated("s1", answer(probe, 30)), "once");
    }

    @Test
    void anAnswerFromAnotherSwitchOrWithAnUnknownTokenIsRefused() {
        byte[] probe = probes.probe("s1", frame(1500, 0)).orElseThrow();
        assertEquals(Optional.empty(), probes.translated("s2", answer(probe, 30)));
        byte[] forged = answer(probe, 30);
        forged[forged.length - 1] ^= 1;
        assertEquals(Optional.empty(), probes.translated("s1", forged));
        assertEquals(Optional.empty(), probes.translated("s1", new byte[3]));
        assertTrue(probes.translated("s1", answer(probe, 30)).isPresent(), "the right one still waits");
    }

    @Test
    void probesWaitASecondAndAtMostTheirNumber() {
        byte[] late = probes.probe("s1", frame(1500, 0)).orElseThrow();
        now += Probes.TIMEOUT_MS;
        assertEquals(Optional.empty(), probes.translated("s1", answer(late, 30)), "timed out");

        byte[] oldest = probes.probe("s1", frame(1500, 0)).orElseThrow();
        byte[] last = oldest;
        for (int i = 0; i < Probes.MAX_WAITING; i++) {
            last = probes.probe("s1", frame(1500, 0)).orElseThrow();
        }
        assertEquals(Optional.empty(), probes.translated("s1", answer(oldest, 30)), "the oldest went for the newest");
        assertTrue(probes.translated("s1", answer(last, 30)).isPresent());
    }

    @Test
    void whatIsNotIpv4WithMoreThanTheProbedBytesIsNotProbed() {
        byte[] ipv6 = frame(1500, 0);
        ipv6[13] = (byte) 0xdd;
        ipv6[12] = (byte) 0x86;
        byte[] lying = frame(1500, 0);
        lying[14 + 2] = 0x10;                                           // says 4096 bytes
        for (byte[] f : new byte[][] {ipv6, lying, frame(68, 0), new byte[20]}) {
            assertEquals(Optional.empty(), probes.probe("s1", f));
        }
    }
}
