package org.nat64fabric.sume.agent.commands;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.fabric.Entity;
import org.nat64fabric.core.fabric.TableEntry;
import org.nat64fabric.sume.agent.layout.TableLayout;
import org.nat64fabric.sume.agent.runtime.SlotParam;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;

/**
 * The P4-NetFPGA flow's {@code commands.txt}: the table entries the card starts with, in the
 * syntax of P4-NetFPGA's {@code p4_px_tables.py}, which writes them into SDNet's table files for
 * the simulations. One line per entry, by the table's lookup engine:
 * <pre>
 * table_cam_add_entry TABLE ACTION KEY1 KEY2 ... => DATA1 DATA2 ...
 * table_lpm_add_entry TABLE ACTION PREFIX/LENGTH => DATA1 DATA2 ...
 * </pre>
 * The data are the parameters of <em>every</em> action of the table in its order, those of the
 * other actions 0 (SDNet's response tuple has a field for each, as {@link TableLayout} says).
 * What such a file cannot hold is a {@code #} comment line, which p4_px_tables.py skips: a default
 * entry (SDNet fixes a table's miss action when the card is built), an entry of a table the
 * program lacks. An entry of a table with idle timeouts gets a slot of its register (an action's
 * last data value, which controllers never give), counting down from the register's last cell:
 * the agent hands out slots from the first, and ages only the entries it wrote.
 *
 * <p><b>Decided here</b> (SDNet's {@code .sdnet_switch_info.dat}, which fixes them, needs SDNet):
 * tables and actions are named as in the P4Info without the pipe's control name
 * ({@code Nat64Ingress.}), since p4_px_tables.py puts the SDNet block's name in front of an
 * action's. Numbers are hexadecimal; an LPM prefix is an IPv4 or IPv6 address.
 */
public final class CommandsFile {
    /** The pipe's control name, which names in the file leave out. */
    public static final String BLOCK = "Nat64Ingress.";

    private final Map<String, P4InfoOuterClass.Table> tables = new HashMap<>();
    private final Map<Integer, P4InfoOuterClass.Action> actions = new HashMap<>();
    /** Per register of hit counts, the slots given so far. */
    private final Map<String, Integer> slotsGiven = new HashMap<>();

    public CommandsFile(P4Info p4info) {
        p4info.getTablesList().forEach(t -> tables.put(t.getPreamble().getName(), t));
        p4info.getActionsList().forEach(a -> actions.put(a.getPreamble().getId(), a));
    }

    /** The file's lines for these entities (table entries; anything else is not in a commands file). */
    public List<String> lines(List<Entity> desired) {
        List<String> out = new ArrayList<>();
        for (Entity e : desired) {
            if (e instanceof TableEntry) {
                out.add(line((TableEntry) e));
            }
        }
        return out;
    }

    /** One entry's line, or a comment saying why it has none. */
    public String line(TableEntry e) {
        P4InfoOuterClass.Table t = tables.get(e.table());
        if (t == null) {
            return "# " + e + ": the program has no table " + e.table();
        }
        if (e.isDefault()) {
            return "# " + e + ": a default action is fixed when the card is built";
        }
        String[] kinds = t.getMatchFieldsList().stream()
                .map(f -> f.getMatchType().name().toLowerCase(Locale.ROOT)).toArray(String[]::new);
        TableLayout.Kind kind = TableLayout.kindOf(kinds);
        if (kind != TableLayout.Kind.CAM && kind != TableLayout.Kind.LPM) {
            throw new IllegalArgumentException(e.table() + " is a " + kind + " table: only CAM and LPM entries here");
        }
        StringBuilder b = new StringBuilder();
        b.append(kind == TableLayout.Kind.LPM ? "table_lpm_add_entry " : "table_cam_add_entry ")
                .append(local(e.table())).append(' ').append(local(e.action()));
        for (P4InfoOuterClass.MatchField f : t.getMatchFieldsList()) {
            TableEntry.Match m = e.matches().stream().filter(x -> x.field.equals(f.getName())).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(e + " has no value for " + f.getName()));
            b.append(' ').append(kind == TableLayout.Kind.LPM ? prefix(m, f.getBitwidth()) : hex(m.value()));
        }
        b.append(" =>");
        boolean found = false;
        for (P4InfoOuterClass.ActionRef ref : t.getActionRefsList()) {
            P4InfoOuterClass.Action a = actions.get(ref.getId());
            boolean chosen = a.getPreamble().getName().equals(e.action());
            found |= chosen;
            for (P4InfoOuterClass.Action.Param p : a.getParamsList()) {
                BigInteger v = chosen ? e.params().get(p.getName()) : BigInteger.ZERO;
                if (v == null) {
                    throw new IllegalArgumentException(e + " has no parameter " + p.getName());
                }
                b.append(' ').append(hex(v));
            }
            SlotParam slot = SlotParam.of(a);
            if (slot != null) {
                b.append(' ').append(hex(BigInteger.valueOf(chosen ? nextSlot(slot) : 0)));
            }
        }
        if (!found) {
            throw new IllegalArgumentException(e.table() + " has no action " + e.action());
        }
        return b.toString();
    }

    private int nextSlot(SlotParam slot) {
        int given = slotsGiven.merge(slot.register, 1, Integer::sum);
        if (given > 1 << slot.width) {
            throw new IllegalArgumentException("more entries than the " + (1 << slot.width) + " slots of register " + slot.register);
        }
        return (1 << slot.width) - given;
    }

    private static String local(String name) {
        return name.startsWith(BLOCK) ? name.substring(BLOCK.length()) : name;
    }

    private static String hex(BigInteger v) {
        return "0x" + v.toString(16);
    }

    private static String prefix(TableEntry.Match m, int width) {
        Optional<String> address = width == 32 ? Optional.of(Ipv4Address.of(m.value().intValue()).toString())
                : width == 128 ? Optional.of(Ipv6Address.of(m.value().shiftRight(64).longValue(), m.value().longValue()).toString())
                : Optional.empty();
        return address.orElseThrow(() -> new IllegalArgumentException(m.field + ": an LPM prefix of " + width
                + " bits is neither IPv4 nor IPv6")) + "/" + m.prefixLength;
    }
}
