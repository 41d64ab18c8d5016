package org.nat64fabric.sume.agent.server;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;

/**
 * Whether a P4Info a controller pushes describes the program the card was built with: the card
 * cannot load another one over P4Runtime (its program is the bitstream), so the tables, actions
 * and controller headers must be the card's, ID for ID. Names, documentation and annotations
 * aside from these may differ.
 */
final class PipelineCheck {
    private PipelineCheck() {
    }

    /** What differs, or null when the pushed P4Info is the card's. */
    static String difference(P4Info card, P4Info pushed) {
        String d = compare("table", card.getTablesList(), pushed.getTablesList(), t -> t.getPreamble().getId(),
                PipelineCheck::describe);
        if (d == null) {
            d = compare("action", card.getActionsList(), pushed.getActionsList(), a -> a.getPreamble().getId(),
                    PipelineCheck::describe);
        }
        if (d == null) {
            d = compare("controller header", card.getControllerPacketMetadataList(), pushed.getControllerPacketMetadataList(),
                    m -> m.getPreamble().getId(), PipelineCheck::describe);
        }
        return d;
    }

    private static <T> String compare(String kind, List<T> card, List<T> pushed, Function<T, Integer> id, Function<T, String> shape) {
        Map<Integer, String> onCard = new HashMap<>();
        for (T t : card) {
            onCard.put(id.apply(t), shape.apply(t));
        }
        for (T t : pushed) {
            String mine = onCard.remove(id.apply(t));
            if (!shape.apply(t).equals(mine)) {
                return mine == null ? "the card has no " + kind + " " + shape.apply(t)
                        : kind + " " + shape.apply(t) + " is " + mine + " on the card";
            }
        }
        return onCard.isEmpty() ? null : "the P4Info lacks the card's " + kind + " " + onCard.values().iterator().next();
    }

    private static String describe(P4InfoOuterClass.Table t) {
        StringBuilder b = new StringBuilder(t.getPreamble().getName()).append(" (ID ").append(t.getPreamble().getId())
                .append(", size ").append(t.getSize()).append(", key");
        for (P4InfoOuterClass.MatchField f : t.getMatchFieldsList()) {
            b.append(' ').append(f.getId()).append(':').append(f.getName()).append('/').append(f.getBitwidth())
                    .append('/').append(f.getMatchType());
        }
        b.append(", actions");
        for (P4InfoOuterClass.ActionRef r : t.getActionRefsList()) {
            b.append(' ').append(r.getId()).append('/').append(r.getScope());
        }
        return b.append(t.getIsConstTable() ? ", const" : "").append(", idle timeout ").append(t.getIdleTimeoutBehavior())
                .append(')').toString();
    }

    private static String describe(P4InfoOuterClass.Action a) {
        StringBuilder b = new StringBuilder(a.getPreamble().getName()).append(" (ID ").append(a.getPreamble().getId()).append(',');
        for (P4InfoOuterClass.Action.Param p : a.getParamsList()) {
            b.append(' ').append(p.getId()).append(':').append(p.getName()).append('/').append(p.getBitwidth());
        }
        return b.append(')').toString();
    }

    private static String describe(P4InfoOuterClass.ControllerPacketMetadata m) {
        StringBuilder b = new StringBuilder(m.getPreamble().getName()).append(" (");
        for (P4InfoOuterClass.ControllerPacketMetadata.Metadata f : m.getMetadataList()) {
            b.append(' ').append(f.getId()).append(':').append(f.getName()).append('/').append(f.getBitwidth());
        }
        return b.append(" )").toString();
    }
}
