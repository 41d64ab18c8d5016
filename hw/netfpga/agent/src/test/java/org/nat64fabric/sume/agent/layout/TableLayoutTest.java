package org.nat64fabric.sume.agent.layout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import org.junit.jupiter.api.Test;

/** Known answers for the words SDNet's table API takes, worked out by hand from the layout rules. */
class TableLayoutTest {
    private static BigInteger hex(String s) {
        return new BigInteger(s.replace("_", ""), 16);
    }

    @Test
    void keyFieldsAreConcatenatedFirstFieldHighest() {
        TableLayout session = new TableLayout("session_v4", TableLayout.Kind.CAM, new int[] {8, 32, 16}, new int[][] {{128, 16, 1}, {}});
        // proto 17, 192.0.2.10, port 40000 (0x9c40): 8 + 32 + 16 bits
        BigInteger key = session.key(BigInteger.valueOf(17), hex("c000020a"), BigInteger.valueOf(40000));
        assertEquals(hex("11_c000020a_9c40"), key);
        assertEquals(56, session.keyBits());
        assertArrayEquals(new BigInteger[] {BigInteger.valueOf(17), hex("c000020a"), BigInteger.valueOf(40000)}, session.keyFields(key));
    }

    @Test
    void aValueHoldsTheActionIdThenEveryActionsParameters() {
        // ipv4_routes: set_next_hop(port 8, src_mac 48, dst_mac 48), no_route, punt_no_route, hairpin: ids 1-4 in 3 bits
        TableLayout routes = new TableLayout("ipv4_routes", TableLayout.Kind.LPM, new int[] {32},
                new int[][] {{8, 48, 48}, {}, {}, {}});
        assertEquals(3 + 104, routes.valueBits());
        BigInteger v = routes.value(0, BigInteger.valueOf(2), hex("000000000a01"), hex("000000000004"));
        assertEquals(hex("1").shiftLeft(104).or(hex("02_000000000a01_000000000004")), v);
        assertEquals(BigInteger.valueOf(4).shiftLeft(104), routes.value(3), "hairpin: id 4, every parameter 0");
        TableLayout.Action back = routes.action(v);
        assertEquals(0, back.index);
        assertArrayEquals(new BigInteger[] {BigInteger.valueOf(2), hex("000000000a01"), hex("000000000004")}, back.params);
    }

    @Test
    void theParametersOfTheChosenActionSitAfterThoseOfTheActionsBeforeIt() {
        // icmp4_error_to_icmp6: icmp_to(8, 8), icmp_to_pointing(8, 8, 32), three actions without parameters: 5 ids, 3 bits
        TableLayout t = new TableLayout("icmp4_error_to_icmp6", TableLayout.Kind.CAM, new int[] {8, 8},
                new int[][] {{8, 8}, {8, 8, 32}, {}, {}, {}});
        BigInteger v = t.value(1, BigInteger.valueOf(4), BigInteger.ZERO, BigInteger.valueOf(6));
        // id 2 | icmp_to's 16 bits (0) | 04 00 00000006
        assertEquals(BigInteger.valueOf(2).shiftLeft(16 + 48).or(hex("04_00_00000006")), v);
        assertEquals(1, t.action(v).index);
    }

    @Test
    void aValueWhoseIdNamesNoActionIsRefused() {
        TableLayout t = new TableLayout("t", TableLayout.Kind.CAM, new int[] {8}, new int[][] {{16}, {}});
        assertThrows(IllegalArgumentException.class, () -> t.action(BigInteger.ZERO));
        assertThrows(IllegalArgumentException.class, () -> t.action(BigInteger.valueOf(3).shiftLeft(16)));
        assertThrows(IllegalArgumentException.class, () -> t.value(0));
    }

    @Test
    void matchKindsChooseSdnetsLookupEngine() {
        assertEquals(TableLayout.Kind.CAM, TableLayout.kindOf("exact", "exact"));
        assertEquals(TableLayout.Kind.TCAM, TableLayout.kindOf("ternary", "exact"));
        assertEquals(TableLayout.Kind.LPM, TableLayout.kindOf("lpm"));
        assertEquals(TableLayout.Kind.KEYLESS, TableLayout.kindOf());
        assertThrows(IllegalArgumentException.class, () -> TableLayout.kindOf("range"));
        assertThrows(IllegalArgumentException.class, () -> TableLayout.kindOf("lpm", "exact"));
    }
}
