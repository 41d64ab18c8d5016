package org.nat64fabric.core.p4;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@link SumeHeaders} agrees with sume_arch.p4, and every packet_in reads back from its cookie. */
class SumeHeadersTest {
    private static final Path SUME_ARCH = Path.of("..", "hw", "netfpga", "include", "sume_arch.p4");

    private static List<Integer> readBack(long cookie) {
        return List.of(SumeHeaders.puntReason(cookie), SumeHeaders.finish(cookie), SumeHeaders.outPort(cookie),
                SumeHeaders.truncateTo(cookie), SumeHeaders.errorType(cookie), SumeHeaders.errorCode(cookie),
                SumeHeaders.errorParam(cookie));
    }

    @Test
    void theFinishBitsAreThePipesOwn() throws Exception {
        String text = new String(Files.readAllBytes(SUME_ARCH), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("(?m)^const bit<8>\\s+(FINISH_\\w+)\\s*=\\s*(\\d+);").matcher(text);
        Map<String, Integer> program = new TreeMap<>();
        while (m.find()) {
            program.put(m.group(1), Integer.parseInt(m.group(2)));
        }
        Map<String, Integer> here = new TreeMap<>(Map.of("FINISH_ICMP_CHECKSUM", SumeHeaders.FINISH_ICMP_CHECKSUM,
                "FINISH_UDP_CHECKSUM", SumeHeaders.FINISH_UDP_CHECKSUM, "FINISH_TRUNCATE", SumeHeaders.FINISH_TRUNCATE,
                "FINISH_TRACK", SumeHeaders.FINISH_TRACK, "FINISH_HAIRPIN", SumeHeaders.FINISH_HAIRPIN,
                "FINISH_ICMP_ERROR", SumeHeaders.FINISH_ICMP_ERROR, "FINISH_NO_ETHERNET", SumeHeaders.FINISH_NO_ETHERNET,
                "FINISH_PROBED", SumeHeaders.FINISH_PROBED));
        assertEquals(program, here);
        Matcher out = Pattern.compile("header packet_out_t \\{([^}]*)\\}").matcher(text);
        assertTrue(out.find(), "packet_out_t");
        Matcher field = Pattern.compile("(?:bit<(\\d+)>|port_number_t)\\s+\\w+;").matcher(out.group(1));
        int bits = 0;
        while (field.find()) {
            bits += field.group(1) == null ? 8 : Integer.parseInt(field.group(1));
        }
        assertEquals(SumeHeaders.PACKET_OUT_BYTES * 8, bits, "packet_out's length on the card");
        assertTrue(text.contains("bit<16> truncate_to;") && text.contains("bit<16> error_param;")
                && text.contains("typedef bit<8> port_number_t;"), "the widths the cookie holds");
    }

    @Test
    void whatThePipeSendsReadsBackFromTheCookie() {
        int cut = SumeHeaders.FINISH_ICMP_CHECKSUM | SumeHeaders.FINISH_TRUNCATE | SumeHeaders.FINISH_HAIRPIN;
        assertEquals(List.of(5, cut, 255, 14 + 1280, 0, 0, 0), readBack(SumeHeaders.cookie(5, cut, 255, 14 + 1280, 0, 0, 0)));
        assertEquals(List.of(5, 32, 3, 0, 3, 4, 65535),
                readBack(SumeHeaders.cookie(5, SumeHeaders.FINISH_ICMP_ERROR, 3, 0, 3, 4, 65535)));
        int bare = SumeHeaders.FINISH_ICMP_ERROR | SumeHeaders.FINISH_NO_ETHERNET;
        assertEquals(List.of(5, bare, 2, 0, 2, 0, 1420), readBack(SumeHeaders.cookie(5, bare, 2, 0, 2, 0, 1420)));
        assertEquals(List.of(5, 10, 1, 0, 0, 0, 0), readBack(SumeHeaders.cookie(5,
                SumeHeaders.FINISH_UDP_CHECKSUM | SumeHeaders.FINISH_TRACK, 1, 0, 0, 0, 0)));
        assertEquals(1L, SumeHeaders.cookie(1, 0, 0, 0, 0, 0, 0), "a v1model packet-in's cookie: its punt_reason");
        assertEquals(List.of(2, 0, 0, 0, 0, 0, 0), readBack(2));
    }

    @Test
    void whatWouldNotReadBackIsRefusedNamingTheField() {
        List.of(new Object[] {"out_port 256 does not fit in 8 bits", new long[] {5, 1, 256, 0, 0, 0, 0}},
                new Object[] {"truncate_to 65536 does not fit in 16 bits", new long[] {5, 4, 1, 65536, 0, 0, 0}},
                new Object[] {"truncate_to 590 without FINISH_TRUNCATE", new long[] {5, 1, 1, 590, 0, 0, 0}},
                new Object[] {"error_param 1280 without FINISH_ICMP_ERROR", new long[] {5, 4, 1, 590, 0, 0, 1280}},
                new Object[] {"both FINISH_TRUNCATE and FINISH_ICMP_ERROR", new long[] {5, 36, 1, 0, 3, 0, 0}},
                new Object[] {"punt_reason -1 does not fit", new long[] {-1, 0, 0, 0, 0, 0, 0}})
                .forEach(c -> {
                    long[] f = (long[]) c[1];
                    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                            () -> SumeHeaders.cookie(f[0], f[1], f[2], f[3], f[4], f[5], f[6]));
                    assertTrue(e.getMessage().contains((String) c[0]), e.getMessage());
                });
    }
}
