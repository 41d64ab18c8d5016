package org.nat64fabric.softswitch.frontend;

import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.antlr.v4.runtime.ParserRuleContext;
import org.nat64fabric.softswitch.frontend.P4Parser.EntryContext;

/**
 * The priorities of a table's initial entries as P4_16 numbers them (14.2.1.4). With
 * largest_priority_wins = true (the default, and P4Runtime's sense): when no entry states one,
 * the last entry gets 1 and each earlier entry priority_delta more, so the first listed wins;
 * otherwise the first entry must state its priority and an entry that states none gets its
 * predecessor's minus priority_delta, which must stay positive. With false, the smaller wins:
 * the first entry gets 1 and each later one priority_delta more, or its predecessor's plus
 * priority_delta; those numbers are then turned over (M + 1 - p, M the largest) into P4Runtime's
 * larger-wins priorities, which the switch matches and reads back by.
 */
final class EntryPriorities {
    private EntryPriorities() {
    }

    /**
     * @param stated the priority an entry states (by {@code priority =} or {@code @priority}), or null
     * @param error  a located error
     */
    static int[] of(List<EntryContext> entries, long delta, boolean largestWins, Function<EntryContext, Long> stated,
                    BiFunction<ParserRuleContext, String, P4CompileException> error) {
        int n = entries.size();
        Long[] given = new Long[n];
        boolean any = false;
        for (int i = 0; i < n; i++) {
            given[i] = stated.apply(entries.get(i));
            any |= given[i] != null;
        }
        long step = largestWins ? -delta : delta;
        long[] numbered = new long[n];
        if (!any) {
            for (int i = 0; i < n; i++) {
                numbered[i] = largestWins ? 1 + (n - 1 - i) * delta : 1 + i * delta;
            }
        } else {
            if (given[0] == null) {
                throw error.apply(entries.get(0), "the first entry needs a priority, since later entries state theirs");
            }
            long current = given[0];
            for (int i = 0; i < n; i++) {
                if (given[i] != null) {
                    current = given[i];
                }
                if (current <= 0) {
                    throw error.apply(entries.get(i), "this entry's priority would be " + current
                            + "; priorities must be positive: state it");
                }
                numbered[i] = current;
                current += step;
            }
        }
        long largest = 0;
        for (int i = 0; i < n; i++) {
            if (numbered[i] > Integer.MAX_VALUE) {
                throw error.apply(entries.get(i), "this entry's priority would be " + numbered[i]
                        + ", above P4Runtime's largest (2147483647): lower priority_delta or the priorities stated");
            }
            largest = Math.max(largest, numbered[i]);
        }
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = (int) (largestWins ? numbered[i] : largest + 1 - numbered[i]);
        }
        return out;
    }
}
