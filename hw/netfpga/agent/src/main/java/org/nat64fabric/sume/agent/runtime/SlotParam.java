package org.nat64fabric.sume.agent.runtime;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import p4.config.v1.P4InfoOuterClass;

/**
 * An action's last parameter that the agent fills, not the controller: the entry's slot in a
 * register of hit counts on the card. softswitch leaves it out of the P4Info's parameters and
 * names it in the action's annotation {@code @sume_idle_slot("REGISTER", WIDTH)}.
 */
public final class SlotParam {
    private static final Pattern ANNOTATION = Pattern.compile("@sume_idle_slot\\(\"([A-Za-z_][A-Za-z0-9_.]*)\",\\s*(\\d+)\\)");

    public final String register;
    public final int width;

    private SlotParam(String register, int width) {
        this.register = register;
        this.width = width;
    }

    /** The action's slot parameter, or null when it has none. */
    public static SlotParam of(P4InfoOuterClass.Action a) {
        for (String an : a.getPreamble().getAnnotationsList()) {
            Matcher m = ANNOTATION.matcher(an);
            if (m.matches()) {
                return new SlotParam(m.group(1), Integer.parseInt(m.group(2)));
            }
        }
        return null;
    }
}
