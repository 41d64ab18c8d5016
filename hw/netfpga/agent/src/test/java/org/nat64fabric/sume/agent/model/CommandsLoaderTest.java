package org.nat64fabric.sume.agent.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.control.Nat64Fabric;
import org.nat64fabric.core.store.InMemoryNatStore;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.sume.agent.commands.CommandsFile;

/** commands.txt of the sample fabric, written by CommandsFile, loaded into the model card. */
class CommandsLoaderTest {
    private static Program program() {
        return Frontend.compile(Paths.get("../nat64_sume.p4"));
    }

    private static List<String> sampleLines() throws Exception {
        Nat64Fabric fabric = new Nat64Fabric(FabricConfig.read(Paths.get("../testdata/sample-fabric.json")),
                new InMemoryNatStore(), e -> { }, () -> 0);
        return new CommandsFile(P4InfoBuilder.build(program())).lines(fabric.desiredState("device:sume1"));
    }

    private static int id(Program p, String table) {
        return p.tables.indexOf(p.tables.stream().filter(t -> t.name.equals(table)).findFirst().orElseThrow());
    }

    @Test
    void everyLineBecomesTheEntryItNamesAndNothingElse() throws Exception {
        Program p = program();
        ModelCard card = new ModelCard(p);
        List<String> lines = sampleLines();
        long built = entries(p);    // const entries
        new CommandsLoader(p, card).load("commands.txt", lines);

        long written = lines.stream().filter(l -> !l.startsWith("#")).count();
        assertEquals(built + written, entries(p));
        int v6 = id(p, "Nat64Ingress.translate.session_v6");
        CardView session = new CardView(p.tables.get(v6));
        BigInteger key = session.layout.key(BigInteger.valueOf(17), new BigInteger("20010db8000100000000000000000010", 16),
                BigInteger.valueOf(53));
        // the static BIB entry's session, 192.0.2.9#5353, with a slot of session_hit from the last cell down
        var snat = session.layout.action(card.camRead(v6, key));
        assertEquals(session.index("Nat64Ingress.translate.snat"), snat.index);
        assertEquals(List.of(new BigInteger("c0000209", 16), BigInteger.valueOf(5353), BigInteger.ZERO, BigInteger.ZERO),
                List.of(snat.params[0], snat.params[1], snat.params[2], snat.params[3]));
        assertTrue(snat.params[4].intValue() >= 8190, "slot " + snat.params[4]);
        List<String> routes = p.tables.get(id(p, "Nat64Ingress.ipv4_routes")).entries().stream()
                .map(e -> e.action.action.name).sorted().collect(Collectors.toList());
        assertEquals(List.of("Nat64Ingress.hairpin", "Nat64Ingress.set_next_hop"), routes);
        assertEquals("NoAction", p.tables.get(id(p, "Nat64Ingress.translate.pool6_embed")).defaultAction().action.name,
                "a default action is the program's: commands.txt has none");
    }

    private static long entries(Program p) {
        return p.tables.stream().mapToLong(t -> t.entries().size()).sum();
    }

    @Test
    void aLineItCannotTakeIsNamedWithItsPlace() {
        Program p = program();
        CommandsLoader loader = new CommandsLoader(p, new ModelCard(p));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> loader.load("c.txt",
                List.of("# a comment", "table_cam_add_entry nope set_mtu 0x2 => 0x578")));
        assertEquals("c.txt:2: the program has no table nope", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> loader.load("c.txt",
                List.of("table_cam_add_entry ipv4_routes set_next_hop 0x1 => 0x1 0x2 0x3")));
        assertEquals("c.txt:1: ipv4_routes is an LPM table: table_lpm_add_entry writes it", e.getMessage());
    }

    /** A table's layout as the card sees it, and its actions' positions. */
    private static final class CardView {
        final Table table;
        final org.nat64fabric.sume.agent.layout.TableLayout layout;

        CardView(Table table) {
            this.table = table;
            this.layout = ModelCard.layoutOf(table);
        }

        int index(String action) {
            for (int a = 0; a < table.actions.size(); a++) {
                if (table.actions.get(a).action.name.equals(action)) {
                    return a;
                }
            }
            throw new AssertionError(table.name + " has no action " + action);
        }
    }
}
