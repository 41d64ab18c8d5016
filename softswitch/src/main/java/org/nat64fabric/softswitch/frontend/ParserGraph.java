package org.nat64fabric.softswitch.frontend;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.nat64fabric.softswitch.frontend.P4Parser.ParserStateContext;
import org.nat64fabric.softswitch.frontend.P4Parser.SelectCaseContext;
import org.nat64fabric.softswitch.frontend.P4Parser.StateExpressionContext;

/** The states of a parser as a graph of transitions: a parser must be able to reach accept from start. */
final class ParserGraph {
    private ParserGraph() {
    }

    /** Whether some path of transitions leads from the first state (start) to accept. */
    static boolean reachesAccept(List<ParserStateContext> states) {
        Map<String, ParserStateContext> byName = new HashMap<>();
        for (ParserStateContext s : states) {
            byName.put(s.name().getText(), s);
        }
        Set<String> seen = new HashSet<>();
        Deque<String> todo = new ArrayDeque<>();
        todo.add(states.get(0).name().getText());
        while (!todo.isEmpty()) {
            String name = todo.poll();
            if (name.equals("accept")) {
                return true;
            }
            ParserStateContext s = byName.get(name);
            if (s == null || !seen.add(name) || s.transitionStatement() == null) {
                continue;   // reject, or a state already visited; no transition statement is a reject
            }
            StateExpressionContext e = s.transitionStatement().stateExpression();
            if (e.name() != null) {
                todo.add(e.name().getText());
            } else {
                for (SelectCaseContext c : e.selectExpression().selectCase()) {
                    todo.add(c.name().getText());
                }
            }
        }
        return false;
    }
}
