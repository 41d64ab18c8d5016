package org.nat64fabric.softswitch.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.frontend.Type;

/**
 * An exact-only table keeps its entries by their key words and makes their match again when
 * asked: what a P4Runtime read, the fast path's maps and a delete see must be the match written,
 * bit for bit, also for values with their top bit set (the words are signed longs).
 */
class TableEntryTest {
    private static final Action SNAT = new Action("snat", Map.of(), List.of());

    private static Table table(Table.MatchKind portKind) {
        return new Table("session", Map.of(), List.of(
                new Table.KeyField(1, "proto", Table.MatchKind.EXACT, 8, new Expr.Slot(new Type.Bits(8, false), 0, 8), Map.of()),
                new Table.KeyField(2, "addr", Table.MatchKind.EXACT, 128, new Expr.Slot(new Type.Bits(128, false), 1, 128), Map.of()),
                new Table.KeyField(3, "port", portKind, 16, new Expr.Slot(new Type.Bits(16, false), 2, 16), Map.of())),
                List.of(new Table.ActionRef(SNAT, false, false, Map.of())), 1024, true, false, false,
                null, 0, null, 0, new Table.ActionCall(SNAT, new BigInteger[0]));
    }

    private static Table.FieldMatch[] match(long proto, BigInteger addr, long port) {
        return new Table.FieldMatch[] {Table.FieldMatch.exact(BigInteger.valueOf(proto), 8),
                Table.FieldMatch.exact(addr, 128), Table.FieldMatch.exact(BigInteger.valueOf(port), 16)};
    }

    private static Table.Entry entry(Table.FieldMatch[] match) {
        return new Table.Entry(match, 0, new Table.ActionCall(SNAT, new BigInteger[0]), 0);
    }

    @Test
    void anExactEntryGivesBackItsMatchAsWritten() {
        Table t = table(Table.MatchKind.EXACT);
        BigInteger top = BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE);   // every bit set
        BigInteger doc = new BigInteger("20010db8000000008000000000000001", 16);
        List<Table.FieldMatch[]> written = List.of(match(17, top, 0xffff), match(6, doc, 0x8000),
                match(255, BigInteger.ZERO, 0));
        for (Table.FieldMatch[] m : written) {
            t.insert(entry(m.clone()));
        }
        assertEquals(written.size(), t.entries().size());
        for (int i = 0; i < written.size(); i++) {
            Table.Entry held = t.find(entry(written.get(i)));
            assertTrue(t.entries().contains(held), "found by the match written: entry " + i);
            assertArrayEquals(written.get(i), held.match(), "entry " + i);
            assertTrue(held.sameKey(entry(written.get(i))));
        }
        assertNull(t.find(entry(match(17, top, 0xfffe))));
        assertTrue(t.remove(entry(written.get(1))));
        assertFalse(t.remove(entry(written.get(1))), "gone once");
        assertEquals(2, t.entryCount());
        assertNull(t.find(entry(written.get(1))));
        assertArrayEquals(written.get(2), t.find(entry(written.get(2))).match(), "the others stay");
        assertArrayEquals(written.get(0), t.find(entry(written.get(0))).match(), "the others stay");
    }

    @Test
    void keysOfOneToSixWordsFindOnlyTheirOwnEntry() {
        // up to four key words sit in an entry's fields, more in an array: both, and a word
        // that differs in its last place, which the fields compare one by one
        for (int addrFields = 0; addrFields <= 2; addrFields++) {
            List<Table.KeyField> keys = new ArrayList<>();
            keys.add(new Table.KeyField(1, "proto", Table.MatchKind.EXACT, 8, new Expr.Slot(new Type.Bits(8, false), 0, 8), Map.of()));
            for (int f = 0; f < addrFields; f++) {
                keys.add(new Table.KeyField(2 + f, "addr" + f, Table.MatchKind.EXACT, 128,
                        new Expr.Slot(new Type.Bits(128, false), 1 + f, 128), Map.of()));
            }
            keys.add(new Table.KeyField(9, "port", Table.MatchKind.EXACT, 16, new Expr.Slot(new Type.Bits(16, false), 5, 16), Map.of()));
            Table t = new Table("t", Map.of(), keys, List.of(new Table.ActionRef(SNAT, false, false, Map.of())), 64,
                    false, false, false, null, 0, null, 0, new Table.ActionCall(SNAT, new BigInteger[0]));
            LongFunction<Table.FieldMatch[]> matchFor = v -> {
                Table.FieldMatch[] m = new Table.FieldMatch[keys.size()];
                for (int i = 0; i < m.length; i++) {
                    int width = keys.get(i).width;
                    // only the last field differs between entries
                    BigInteger value = i == m.length - 1 ? BigInteger.valueOf(v) : BigInteger.ONE.shiftLeft(width - 1).add(BigInteger.valueOf(i));
                    m[i] = Table.FieldMatch.exact(value, width);
                }
                return m;
            };
            for (long v = 0; v < 20; v++) {
                t.insert(entry(matchFor.apply(v)));
            }
            for (long v = 0; v < 20; v += 2) {
                assertTrue(t.remove(entry(matchFor.apply(v))));
            }
            for (long v = 0; v < 22; v++) {
                Table.Entry held = t.find(entry(matchFor.apply(v)));
                if (v % 2 == 1 && v < 20) {
                    assertArrayEquals(matchFor.apply(v), held.match(), addrFields + " address fields, entry " + v);
                } else {
                    assertNull(held, addrFields + " address fields, entry " + v);
                }
            }
        }
    }

    @Test
    void anActionCallOfMoreThanFourArgumentsSetsEachSlot() {
        List<Action.Param> params = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            params.add(new Action.Param("p" + i, 16, new Expr.Slot(new Type.Bits(16, false), i, 16), Map.of()));
        }
        Action six = new Action("six", Map.of(), params);
        BigInteger[] args = new BigInteger[6];
        for (int i = 0; i < 6; i++) {
            args[i] = BigInteger.valueOf(1000 + i);
        }
        Table.ActionCall call = new Table.ActionCall(six, args.clone());
        State s = new State(6, 0);
        call.setParams(s);
        for (int i = 0; i < 6; i++) {
            assertEquals(1000 + i, s.n[i], "slot " + i);
        }
        assertArrayEquals(args, call.args());
    }

    @Test
    void aScannedTableKeepsItsEntriesMatchAsWritten() {
        Table t = table(Table.MatchKind.TERNARY);
        Table.FieldMatch[] m = {Table.FieldMatch.exact(BigInteger.valueOf(17), 8),
                Table.FieldMatch.exact(BigInteger.TEN, 128),
                Table.FieldMatch.ternary(BigInteger.valueOf(0x1200), BigInteger.valueOf(0xff00))};
        t.insert(entry(m));
        assertSame(m, t.entries().get(0).match());
    }

    @Test
    void anActionCallGivesBackItsArgumentsAsWritten() {
        Action a = new Action("set", Map.of(), List.of(
                new Action.Param("port", 16, new Expr.Slot(new Type.Bits(16, false), 0, 16), Map.of()),
                new Action.Param("delta", 8, new Expr.Slot(new Type.Bits(8, true), 1, 8), Map.of()),
                new Action.Param("word", 64, new Expr.Slot(new Type.Bits(64, false), 2, 64), Map.of())));
        Action wide = new Action("addr", Map.of(), List.of(
                new Action.Param("addr", 128, new Expr.Slot(new Type.Bits(128, false), 3, 128), Map.of())));
        List<BigInteger[]> cases = List.of(
                new BigInteger[] {BigInteger.valueOf(0xffff), BigInteger.valueOf(-3), BigInteger.valueOf(Long.MAX_VALUE)},
                // a 64-bit value with its top bit set does not fit a signed long: kept as written
                new BigInteger[] {BigInteger.ZERO, BigInteger.ONE, BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE)});
        for (BigInteger[] args : cases) {
            Table.ActionCall call = new Table.ActionCall(a, args.clone());
            assertEquals(3, call.argCount());
            assertArrayEquals(args, call.args());
        }
        BigInteger addr = new BigInteger("20010db8000000000000000000000001", 16);
        assertEquals(addr, new Table.ActionCall(wide, new BigInteger[] {addr}).arg(0));
        assertEquals(BigInteger.TEN, new Table.ActionCall(wide, new BigInteger[] {BigInteger.TEN}).arg(0));
    }

    @Test
    void anActionCallWithNarrowAndWideArgumentsSetsEachSlotAndSharesEqualWideValues() {
        Action mixed = new Action("rewrite", Map.of(), List.of(
                new Action.Param("port", 16, new Expr.Slot(new Type.Bits(16, false), 0, 16), Map.of()),
                new Action.Param("addr", 128, new Expr.WideSlot(new Type.Bits(128, false), 0, 128), Map.of()),
                new Action.Param("word", 64, new Expr.Slot(new Type.Bits(64, false), 1, 64), Map.of())));
        BigInteger addr = new BigInteger("20010db8000000000000000000000001", 16);
        BigInteger topBit = BigInteger.ONE.shiftLeft(63);
        Table.ActionCall call = new Table.ActionCall(mixed, new BigInteger[] {BigInteger.valueOf(53), addr, topBit});
        State s = new State(2, 1);
        call.setParams(s);
        assertEquals(53, s.n[0]);
        assertEquals(addr, s.w[0]);
        assertEquals(Long.MIN_VALUE, s.n[1], "a 64-bit value with its top bit set, as the slot holds it");
        assertArrayEquals(new BigInteger[] {BigInteger.valueOf(53), addr, topBit}, call.args());

        // the same wide values written again, as other BigIntegers, beside another narrow one:
        // the two calls hold one copy of them
        Table.ActionCall again = new Table.ActionCall(mixed, new BigInteger[] {
            BigInteger.ONE, new BigInteger(addr.toByteArray()), new BigInteger(topBit.toByteArray())});
        assertSame(call.arg(1), again.arg(1));
        assertSame(call.arg(2), again.arg(2));
        assertEquals(BigInteger.ONE, again.arg(0));
    }

    @Test
    void idleChecksComeWhenDueOnceAndNotWhenSuperseded() {
        Table t = table(Table.MatchKind.EXACT);
        long base = 1_000_000_000_000L;
        Table.Entry[] e = new Table.Entry[4];
        for (int i = 0; i < e.length; i++) {
            e[i] = new Table.Entry(match(17, BigInteger.valueOf(i), i), 0, new Table.ActionCall(SNAT, new BigInteger[0]),
                    1_000_000_000L);
            t.insert(e[i]);
        }
        t.scheduleIdleCheck(e[0], base + 10_000_000L);
        t.scheduleIdleCheck(e[1], base + 20_000_000L);
        t.scheduleIdleCheck(e[1], base + 30_000_000L);        // rescheduled within the same tick
        t.scheduleIdleCheck(e[2], base + 15_000_000L);
        t.scheduleIdleCheck(e[2], base + 900_000_000L);       // rescheduled to a later tick
        t.scheduleIdleCheck(e[3], base + 900_000_000L);
        t.scheduleIdleCheck(e[3], base + 12_000_000L);        // and back to an earlier one
        assertEquals(List.of(), t.takeIdleChecksDue(base + 9_000_000L));
        assertEquals(List.of(e[0], e[3]), t.takeIdleChecksDue(base + 25_000_000L), "due, each once");
        assertEquals(List.of(e[1]), t.takeIdleChecksDue(base + 30_000_000L));
        assertEquals(List.of(), t.takeIdleChecksDue(base + 800_000_000L), "e2's first check was superseded");
        assertEquals(List.of(e[2]), t.takeIdleChecksDue(base + 1_000_000_000L));
        assertEquals(List.of(), t.takeIdleChecksDue(base + 5_000_000_000L), "nothing twice");
        t.scheduleIdleCheck(e[0], base + 6_000_000_000L);
        assertEquals(List.of(e[0]), t.takeIdleChecksDue(base + 6_000_000_000L), "checked again once rescheduled");
    }
}
