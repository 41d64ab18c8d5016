package org.nat64fabric.sume.agent.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.control.Nat64Fabric;
import org.nat64fabric.core.fabric.Entity;
import org.nat64fabric.core.fabric.TableEntry;
import org.nat64fabric.core.store.InMemoryNatStore;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.sume.agent.layout.BitVector;
import org.nat64fabric.sume.agent.layout.TableLayout;
import org.nat64fabric.sume.agent.runtime.SlotParam;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;

/**
 * commands.txt for the sample fabric (hw/netfpga/testdata/sample-fabric.json): every entry the
 * controller would write to the card is a line p4_px_tables.py's syntax takes, which reads back to
 * the entry and packs, as the CLI's hexify does, to the words the agent writes for it.
 */
class CommandsFileTest {
    private static final P4Info SUME = P4InfoBuilder.build(Frontend.compile(Paths.get("../nat64_sume.p4")));
    private static final Path SAMPLE = Paths.get("../testdata/sample-fabric.json");

    private static List<Entity> desired() throws Exception {
        return new Nat64Fabric(FabricConfig.read(SAMPLE), new InMemoryNatStore(), e -> { }, () -> 0)
                .desiredState("device:sume1");
    }

    private static P4InfoOuterClass.Table table(String name) {
        return SUME.getTablesList().stream().filter(t -> t.getPreamble().getName().equals(name)).findFirst().orElseThrow();
    }

    private static P4InfoOuterClass.Action action(int id) {
        return SUME.getActionsList().stream().filter(a -> a.getPreamble().getId() == id).findFirst().orElseThrow();
    }

    private static BigInteger number(String token) {
        assertTrue(token.startsWith("0x"), token);
        return new BigInteger(token.substring(2), 16);
    }

    /** A line as p4_px_tables.py's help gives its syntax: the command, table, action, keys, "=>", data. */
    private static final class Line {
        final String command;
        final String table;
        final String action;
        final List<String> keys;
        final List<BigInteger> data;

        Line(String text) {
            String[] sides = text.split("=>", -1);
            assertEquals(2, sides.length, text);
            List<String> left = Arrays.asList(sides[0].trim().split(" "));
            command = left.get(0);
            table = "Nat64Ingress." + left.get(1);
            action = "Nat64Ingress." + left.get(2);
            keys = left.subList(3, left.size());
            data = Arrays.stream(sides[1].trim().split(" ")).filter(s -> !s.isEmpty()).map(CommandsFileTest::number)
                    .collect(Collectors.toList());
        }
    }

    @Test
    void everyEntryOfTheCardIsALineThatReadsBackToIt() throws Exception {
        List<TableEntry> entries = desired().stream().filter(e -> e instanceof TableEntry).map(e -> (TableEntry) e)
                .collect(Collectors.toList());
        List<String> lines = new CommandsFile(SUME).lines(desired());
        assertEquals(entries.size(), lines.size());
        int written = 0;
        List<BigInteger> slots = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            TableEntry e = entries.get(i);
            String text = lines.get(i);
            boolean onCard = SUME.getTablesList().stream().anyMatch(t -> t.getPreamble().getName().equals(e.table()));
            if (!onCard || e.isDefault()) {
                assertTrue(text.startsWith("# ") && text.contains(onCard ? "a default action is fixed when the card is built"
                        : "the program has no table"), text);
                continue;
            }
            written++;
            Line l = new Line(text);
            P4InfoOuterClass.Table t = table(e.table());
            assertEquals(List.of(e.table(), e.action()), List.of(l.table, l.action), text);
            boolean lpm = t.getMatchFields(0).getMatchType() == P4InfoOuterClass.MatchField.MatchType.LPM;
            assertEquals(lpm ? "table_lpm_add_entry" : "table_cam_add_entry", l.command);
            assertEquals(t.getMatchFieldsCount(), l.keys.size(), text);
            for (int k = 0; k < l.keys.size(); k++) {
                String field = t.getMatchFields(k).getName();
                TableEntry.Match m = e.matches().stream().filter(x -> x.field.equals(field)).findFirst().orElseThrow();
                if (lpm) {
                    String[] prefix = l.keys.get(k).split("/");
                    byte[] bytes = InetAddress.getByName(prefix[0]).getAddress();
                    boolean mapped = prefix[0].contains(":") && bytes.length == 4;   // Java reads ::ffff:a.b.c.d as IPv4
                    assertEquals(m.value(), new BigInteger(1, bytes).or(mapped ? BigInteger.valueOf(0xffff).shiftLeft(32)
                            : BigInteger.ZERO), text);
                    assertEquals(m.prefixLength, Integer.parseInt(prefix[1]), text);
                } else {
                    assertEquals(m.value(), number(l.keys.get(k)), text);
                }
            }
            checkData(t, e, l, text, slots);
        }
        assertEquals(List.of(BigInteger.valueOf(8191), BigInteger.valueOf(8190)), slots,
                "the static BIB's session entries: slots of session_hit from the last cell down, one each");
        assertTrue(written >= 15, "routes, local addresses, pools, MTUs, the EAM's five tables, the static BIB's two: "
                + lines);
    }

    /**
     * The data are every action's parameters, and with the action's id they pack to the value the
     * agent's {@link TableLayout} writes for the entry (p4_px_tables.py's hexify_value). An action
     * with an entry's slot has it last (into {@code slots} when it is the entry's).
     */
    private static void checkData(P4InfoOuterClass.Table t, TableEntry e, Line l, String text, List<BigInteger> slots) {
        List<Integer> widths = new ArrayList<>();
        int[][] params = new int[t.getActionRefsCount()][];
        int chosen = -1;
        BigInteger[] chosenParams = null;
        List<BigInteger> expected = new ArrayList<>();
        for (int a = 0; a < params.length; a++) {
            P4InfoOuterClass.Action action = action(t.getActionRefs(a).getId());
            params[a] = action.getParamsList().stream().mapToInt(P4InfoOuterClass.Action.Param::getBitwidth).toArray();
            boolean isIt = action.getPreamble().getName().equals(e.action());
            for (P4InfoOuterClass.Action.Param p : action.getParamsList()) {
                widths.add(p.getBitwidth());
                expected.add(isIt ? e.params().get(p.getName()) : BigInteger.ZERO);
            }
            List<BigInteger> given = action.getParamsList().stream().map(p -> e.params().get(p.getName()))
                    .collect(Collectors.toList());
            SlotParam slot = SlotParam.of(action);
            if (slot != null) {
                params[a] = java.util.stream.IntStream.concat(Arrays.stream(params[a]), java.util.stream.IntStream.of(slot.width)).toArray();
                widths.add(slot.width);
                BigInteger inLine = l.data.get(expected.size());
                expected.add(isIt ? inLine : BigInteger.ZERO);
                given.add(inLine);
                if (isIt) {
                    slots.add(inLine);
                }
            }
            if (isIt) {
                chosen = a;
                chosenParams = given.toArray(new BigInteger[0]);
            }
        }
        assertEquals(expected, l.data, text);
        TableLayout layout = new TableLayout(t.getPreamble().getName(), TableLayout.Kind.CAM, new int[0], params);
        List<BigInteger> fields = new ArrayList<>(List.of(BigInteger.valueOf(chosen + 1)));
        fields.addAll(l.data);
        widths.add(0, BitVector.widthFor(params.length));
        BigInteger packed = BitVector.concat(fields.toArray(new BigInteger[0]), widths.stream().mapToInt(x -> x).toArray());
        assertEquals(layout.value(chosen, chosenParams), packed, text);
    }

    @Test
    void whatNoLineCanHoldIsRefusedNamingIt() {
        CommandsFile file = new CommandsFile(SUME);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> file.line(
                TableEntry.in("Nat64Ingress.egress_mtu").exact("port", 2).action("Nat64Ingress.set_mtu").build()));
        assertTrue(e.getMessage().contains("has no parameter mtu"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> file.line(TableEntry.in("Nat64Ingress.egress_mtu")
                .exact("port", 2).action("Nat64Ingress.translate.snat").build()));
        assertTrue(e.getMessage().contains("has no action Nat64Ingress.translate.snat"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> file.line(TableEntry.in("Nat64Ingress.egress_mtu")
                .action("Nat64Ingress.set_mtu").param("mtu", 1400).exact("meta.other", 2).build()));
        assertTrue(e.getMessage().contains("has no value for"), e.getMessage());
    }
}
