package org.nat64fabric.sume.agent.model;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.sume.agent.card.CardException;
import org.nat64fabric.sume.agent.card.CardTables;
import org.nat64fabric.sume.agent.commands.CommandsFile;
import org.nat64fabric.sume.agent.layout.TableLayout;

/**
 * Writes a P4-NetFPGA {@code commands.txt} (the lines {@code CommandsFile} writes, in
 * p4_px_tables.py's syntax) into the model card, as the table step does into SDNet's table files:
 * the card then holds those entries and nothing else (each table's miss action is the program's,
 * as SDNet fixes it). Names are the program's without the pipe's control name; the data are the
 * parameters of every action of the table, of which the named action's are taken.
 */
public final class CommandsLoader {
    private final Program program;
    private final ModelCard card;
    private final Map<Integer, List<CardTables.LpmRow>> lpmRows = new LinkedHashMap<>();

    public CommandsLoader(Program program, ModelCard card) {
        this.program = program;
        this.card = card;
    }

    /** Loads every line; IllegalArgumentException naming {@code source}:line for one it cannot take. */
    public void load(String source, List<String> lines) {
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                add(line);
            } catch (IllegalArgumentException | CardException e) {
                throw new IllegalArgumentException(source + ":" + (n + 1) + ": " + e.getMessage());
            }
        }
        for (Map.Entry<Integer, List<CardTables.LpmRow>> rows : lpmRows.entrySet()) {
            try {
                card.lpmLoad(rows.getKey(), rows.getValue());
            } catch (CardException e) {
                throw new IllegalArgumentException(source + ": " + e.getMessage());
            }
        }
    }

    private void add(String line) throws CardException {
        String[] sides = line.split("=>", -1);
        String[] words = sides[0].trim().split("\\s+");
        if (sides.length != 2 || words.length < 4) {
            throw new IllegalArgumentException("expected COMMAND TABLE ACTION KEY... => DATA...");
        }
        boolean lpm = words[0].equals("table_lpm_add_entry");
        if (!lpm && !words[0].equals("table_cam_add_entry")) {
            throw new IllegalArgumentException(words[0] + ": only table_cam_add_entry and table_lpm_add_entry are written here");
        }
        int id = tableId(words[1]);
        Table table = program.tables.get(id);
        TableLayout layout = ModelCard.layoutOf(table);
        if (layout.kind != (lpm ? TableLayout.Kind.LPM : TableLayout.Kind.CAM)) {
            throw new IllegalArgumentException(words[1] + (layout.kind == TableLayout.Kind.LPM
                    ? " is an LPM table: table_lpm_add_entry writes it" : " is a " + layout.kind + " table: not written here"));
        }
        BigInteger value = value(table, layout, words[2], sides[1].trim());
        String[] keys = Arrays.copyOfRange(words, 3, words.length);
        if (keys.length != table.keys.size()) {
            throw new IllegalArgumentException(words[1] + " has " + table.keys.size() + " key fields, not " + keys.length);
        }
        if (lpm) {
            String[] prefix = keys[0].split("/", -1);
            if (prefix.length != 2) {
                throw new IllegalArgumentException("an LPM key is ADDRESS/LENGTH, not " + keys[0]);
            }
            lpmRows.computeIfAbsent(id, k -> new ArrayList<>())
                    .add(new CardTables.LpmRow(address(prefix[0]), integer(prefix[1]).intValueExact(), value));
        } else {
            card.camAdd(id, layout.key(Arrays.stream(keys).map(CommandsLoader::integer).toArray(BigInteger[]::new)), value);
        }
    }

    private int tableId(String name) {
        for (int id = 0; id < program.tables.size(); id++) {
            if (program.tables.get(id).name.equals(CommandsFile.BLOCK + name)) {
                return id;
            }
        }
        throw new IllegalArgumentException("the program has no table " + name);
    }

    /** The value word of {@code action}, its parameters taken from the data of every action. */
    private static BigInteger value(Table table, TableLayout layout, String action, String data) {
        String[] given = data.isEmpty() ? new String[0] : data.split("\\s+");
        int first = 0;
        int index = -1;
        int total = 0;
        for (int a = 0; a < table.actions.size(); a++) {
            if (table.actions.get(a).action.name.equals(CommandsFile.BLOCK + action)) {
                index = a;
                first = total;
            }
            total += table.actions.get(a).action.params.size();
        }
        if (index < 0) {
            throw new IllegalArgumentException(table.name + " has no action " + action);
        }
        if (given.length != total) {
            throw new IllegalArgumentException(table.name + " takes " + total + " data values (every action's), not " + given.length);
        }
        BigInteger[] params = Arrays.stream(given, first, first + table.actions.get(index).action.params.size())
                .map(CommandsLoader::integer).toArray(BigInteger[]::new);
        return layout.value(index, params);
    }

    private static BigInteger integer(String token) {
        try {
            return token.startsWith("0x") ? new BigInteger(token.substring(2), 16) : new BigInteger(token);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an integer: " + token);
        }
    }

    private static BigInteger address(String literal) {
        if (!literal.matches("[0-9a-fA-F:.]+")) {
            throw new IllegalArgumentException("not an IPv4 or IPv6 address: " + literal);
        }
        try {
            byte[] bytes = InetAddress.getByName(literal).getAddress();
            BigInteger value = new BigInteger(1, bytes);
            // Java reads IPv4-mapped IPv6 text (::ffff:a.b.c.d) as the IPv4 address: the ::ffff goes back
            return literal.contains(":") && bytes.length == 4 ? value.or(BigInteger.valueOf(0xffff).shiftLeft(32)) : value;
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IPv4 or IPv6 address: " + literal);
        }
    }
}
