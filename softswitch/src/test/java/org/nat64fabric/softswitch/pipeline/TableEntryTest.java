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
                List.of(new Table.ActionRef(SNAT, false, false, Map.of())), 1024, true, false, false, false,
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
        Table.Entry removed = t.find(entry(written.get(1)));
        assertTrue(t.remove(entry(written.get(1))));
        assertFalse(t.remove(entry(written.get(1))), "gone once");
        assertArrayEquals(written.get(1), removed.match(), "a removed entry keeps its match (the fast path reads it)");
        assertEquals(2, t.entryCount());
        assertNull(t.find(entry(written.get(1))));
        assertArrayEquals(written.get(2), t.find(entry(written.get(2))).match(), "the others stay");
        assertArrayEquals(written.get(0), t.find(entry(written.get(0))).match(), "the others stay");
    }

    @Test
    void keysOfOneToSixWordsFindOnlyTheirOwnEntry() {
        // up to four key words sit in an entry's fields, more in an array: keys of one to six
        // 64-bit fields, entries differing in one word each, the word that differs moving
        for (int words = 1; words <= 6; words++) {
            List<Table.KeyField> keys = new ArrayList<>();
            for (int f = 0; f < words; f++) {
                keys.add(new Table.KeyField(f + 1, "f" + f, Table.MatchKind.EXACT, 64,
                        new Expr.Slot(new Type.Bits(64, false), f, 64), Map.of()));
            }
            Table t = new Table("t", Map.of(), keys, List.of(new Table.ActionRef(SNAT, false, false, Map.of())), 64,
                    false, false, false, false, null, 0, null, 0, new Table.ActionCall(SNAT, new BigInteger[0]));
            int n = words;
            LongFunction<Table.FieldMatch[]> matchFor = v -> {
                Table.FieldMatch[] m = new Table.FieldMatch[n];
                for (int i = 0; i < n; i++) {
                    // every field has its top bit set; entry v differs from entry 0 in field v % n
                    long value = Long.MIN_VALUE + i + (i == v % n ? v : 0);
                    m[i] = Table.FieldMatch.exact(new BigInteger(Long.toUnsignedString(value)), 64);
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
                    assertArrayEquals(matchFor.apply(v), held.match(), words + " words, entry " + v);
                } else {
                    assertNull(held, words + " words, entry " + v);
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

        // the sixth a 128-bit parameter: narrow ones past the fourth and the wide one side by side
        List<Action.Param> mixedParams = new ArrayList<>(params.subList(0, 5));
        mixedParams.add(new Action.Param("addr", 128, new Expr.WideSlot(new Type.Bits(128, false), 0, 128), Map.of()));
        BigInteger addr = new BigInteger("20010db8000000000000000000000005", 16);
        args[5] = addr;
        Table.ActionCall mixed = new Table.ActionCall(new Action("mixed", Map.of(), mixedParams), args.clone());
        State m = new State(6, 1);
        mixed.setParams(m);
        for (int i = 0; i < 5; i++) {
            assertEquals(1000 + i, m.n[i], "slot " + i);
        }
        assertEquals(addr, m.w[0]);
        assertArrayEquals(args, mixed.args());
    }

    @Test
    void callsShareOnlyEqualWideArguments() {
        // more addresses than the cache has slots, so that slots are taken over: each call
        // still gives back its own address, and a call made again with one shares it
        Action wide = new Action("dnat", Map.of(), List.of(
                new Action.Param("addr", 128, new Expr.WideSlot(new Type.Bits(128, false), 0, 128), Map.of()),
                new Action.Param("port", 16, new Expr.Slot(new Type.Bits(16, false), 0, 16), Map.of())));
        BigInteger base = new BigInteger("20010db8000000000000000000000000", 16);
        List<Table.ActionCall> calls = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            calls.add(new Table.ActionCall(wide, new BigInteger[] {base.add(BigInteger.valueOf(i)), BigInteger.valueOf(i % 65536)}));
        }
        for (int i = 0; i < calls.size(); i++) {
            assertEquals(base.add(BigInteger.valueOf(i)), calls.get(i).arg(0), "call " + i);
            assertEquals(BigInteger.valueOf(i % 65536), calls.get(i).arg(1), "call " + i);
        }
        Table.ActionCall last = calls.get(calls.size() - 1);
        Table.ActionCall again = new Table.ActionCall(wide, new BigInteger[] {base.add(BigInteger.valueOf(9_999)), BigInteger.ONE});
        assertSame(last.arg(0), again.arg(0));
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
