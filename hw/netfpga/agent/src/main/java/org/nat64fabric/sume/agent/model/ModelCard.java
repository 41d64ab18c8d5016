package org.nat64fabric.sume.agent.model;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.v1model.Externs;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import org.nat64fabric.sume.agent.card.CardException;
import org.nat64fabric.sume.agent.card.CardTables;
import org.nat64fabric.sume.agent.layout.BitVector;
import org.nat64fabric.sume.agent.layout.TableLayout;

/**
 * A register-level model of a SUME card's tables, backed by softswitch running the card's program
 * (a SimpleSumeSwitch program, e.g. hw/netfpga/nat64_sume.p4). Every operation takes the words the
 * agent wrote and decodes them back into softswitch table entries with the card's own knowledge of
 * its tables (the compiled program, not the P4Info the agent packs from), so the packed layout
 * is exercised both ways. A table's id is its position in the program; CAMs and TCAMs hold at
 * most the table's {@code size} entries; in a TCAM the lowest address wins. The card owns the
 * program it is given (a compiled program holds its tables' entries): one program, one card.
 */
public final class ModelCard implements CardTables {
    public final V1ModelSwitch sw;
    private final List<TableInfo> infos = new ArrayList<>();
    private final List<TableLayout> layouts = new ArrayList<>();
    /** Per TCAM table: address → the entry written there. */
    private final Map<Integer, Map<Integer, Table.Entry>> tcams = new HashMap<>();

    public ModelCard(Program program) {
        if (program.architecture != Program.Architecture.SUME) {
            throw new IllegalArgumentException("the model card runs SimpleSumeSwitch programs only");
        }
        this.sw = new V1ModelSwitch(program);
        for (int id = 0; id < program.tables.size(); id++) {
            Table t = program.tables.get(id);
            TableLayout layout = layoutOf(t);
            layouts.add(layout);
            infos.add(new TableInfo(id, t.name, layout.kind, t.size));
            if (layout.kind == TableLayout.Kind.TCAM) {
                tcams.put(id, new HashMap<>());
            }
        }
    }

    /** The card's own view of a table's words: its key fields and actions as compiled. */
    static TableLayout layoutOf(Table t) {
        String[] kinds = new String[t.keys.size()];
        int[] widths = new int[t.keys.size()];
        for (int i = 0; i < kinds.length; i++) {
            kinds[i] = t.keys.get(i).kind.name().toLowerCase(Locale.ROOT);
            widths[i] = t.keys.get(i).width;
        }
        int[][] params = new int[t.actions.size()][];
        for (int a = 0; a < params.length; a++) {
            var ps = t.actions.get(a).action.params;
            params[a] = new int[ps.size()];
            for (int p = 0; p < ps.size(); p++) {
                params[a][p] = ps.get(p).width;
            }
        }
        return new TableLayout(t.name, TableLayout.kindOf(kinds), widths, params);
    }

    @Override
    public List<TableInfo> tables() {
        return List.copyOf(infos);
    }

    @Override
    public void camAdd(int table, BigInteger key, BigInteger value) throws CardException {
        synchronized (sw) {
            Table t = table(table, TableLayout.Kind.CAM);
            Table.Entry e = new Table.Entry(exactMatch(table, key), 0, call(table, value), 0);
            if (t.find(e) != null) {
                throw new CardException(CardException.Reason.EXISTS, t.name + ": key 0x" + key.toString(16) + " is in the CAM");
            }
            if (t.entries().size() >= t.size) {
                throw new CardException(CardException.Reason.FULL, t.name + ": the CAM's " + t.size + " entries are used");
            }
            t.insert(e);
        }
    }

    @Override
    public void camDelete(int table, BigInteger key) throws CardException {
        synchronized (sw) {
            Table t = table(table, TableLayout.Kind.CAM);
            if (!t.remove(new Table.Entry(exactMatch(table, key), 0, null, 0))) {
                throw new CardException(CardException.Reason.NOT_FOUND, t.name + ": key 0x" + key.toString(16) + " is not in the CAM");
            }
        }
    }

    @Override
    public BigInteger camRead(int table, BigInteger key) throws CardException {
        synchronized (sw) {
            Table t = table(table, TableLayout.Kind.CAM);
            Table.Entry e = t.find(new Table.Entry(exactMatch(table, key), 0, null, 0));
            return e == null ? null : word(table, e.action);
        }
    }

    @Override
    public void tcamWrite(int table, int address, BigInteger key, BigInteger mask, BigInteger value) throws CardException {
        synchronized (sw) {
            Table t = table(table, TableLayout.Kind.TCAM);
            checkAddress(t, address);
            TableLayout layout = layouts.get(table);
            BigInteger[] keys = layout.keyFields(checked(table, key, "key"));
            BigInteger[] masks = layout.keyFields(checked(table, mask, "mask"));
            Table.FieldMatch[] match = new Table.FieldMatch[keys.length];
            for (int i = 0; i < keys.length; i++) {
                Table.KeyField k = t.keys.get(i);
                if (k.kind == Table.MatchKind.EXACT) {
                    if (!masks[i].equals(BitVector.ones(k.width))) {
                        throw new CardException(CardException.Reason.BAD_WORD, t.name + ": field " + k.name + " is exact, its mask all ones");
                    }
                    match[i] = Table.FieldMatch.exact(keys[i], k.width);
                } else {
                    match[i] = masks[i].signum() == 0 ? Table.FieldMatch.wildcard() : Table.FieldMatch.ternary(keys[i], masks[i]);
                }
            }
            Table.Entry e = new Table.Entry(match, t.size - address, call(table, value), 0);
            Table.Entry old = tcams.get(table).put(address, e);
            if (old != null) {
                t.remove(old);
            }
            t.insert(e);
        }
    }

    @Override
    public void tcamErase(int table, int address) throws CardException {
        synchronized (sw) {
            Table t = table(table, TableLayout.Kind.TCAM);
            checkAddress(t, address);
            Table.Entry old = tcams.get(table).remove(address);
            if (old != null) {
                t.remove(old);
            }
        }
    }

    @Override
    public BigInteger[] tcamRead(int table, int address) throws CardException {
        synchronized (sw) {
            Table t = table(table, TableLayout.Kind.TCAM);
            checkAddress(t, address);
            Table.Entry e = tcams.get(table).get(address);
            if (e == null) {
                return null;
            }
            Table.FieldMatch[] match = e.match();
            BigInteger[] keys = new BigInteger[match.length];
            BigInteger[] masks = new BigInteger[match.length];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = match[i].value;
                masks[i] = match[i].mask;
            }
            TableLayout layout = layouts.get(table);
            return new BigInteger[] {layout.key(keys), layout.key(masks), word(table, e.action)};
        }
    }

    @Override
    public void lpmLoad(int table, List<LpmRow> rows) throws CardException {
        synchronized (sw) {
            Table t = table(table, TableLayout.Kind.LPM);
            if (rows.size() > t.size) {
                throw new CardException(CardException.Reason.FULL, t.name + ": " + rows.size()
                        + " prefixes for an LPM table of " + t.size);
            }
            int width = t.keys.get(0).width;
            Map<String, Table.Entry> load = new HashMap<>();
            for (LpmRow r : rows) {
                if (r.length < 0 || r.length > width || r.prefix.bitLength() > width) {
                    throw new CardException(CardException.Reason.BAD_WORD, t.name + ": prefix 0x" + r.prefix.toString(16)
                            + "/" + r.length + " is not a " + width + "-bit prefix");
                }
                Table.Entry e = new Table.Entry(new Table.FieldMatch[] {Table.FieldMatch.lpm(r.prefix, r.length, width)}, 0,
                        call(table, r.value), 0);
                if (load.put(prefixKey(e), e) != null) {
                    throw new CardException(CardException.Reason.BAD_WORD, t.name + ": the dataset holds "
                            + prefixKey(e) + " twice");
                }
            }
            // The whole dataset replaces the table's (the card loads the bank not in use, then looks it
            // up); softswitch is brought there by the difference, under the lock, which is the same.
            for (Table.Entry e : t.entries()) {
                Table.Entry next = load.remove(prefixKey(e));
                if (next == null) {
                    t.remove(e);
                } else if (!sameCall(e.action, next.action)) {
                    t.modify(e, next.action);
                }
            }
            for (Table.Entry e : load.values()) {
                t.insert(e);
            }
        }
    }

    private static String prefixKey(Table.Entry e) {
        Table.FieldMatch m = e.match()[0];
        return m.value.toString(16) + "/" + m.prefixLength;
    }

    private static boolean sameCall(Table.ActionCall a, Table.ActionCall b) {
        return a.action == b.action && java.util.Arrays.equals(a.args(), b.args());
    }

    @Override
    public void setMissValue(int table, BigInteger value) throws CardException {
        synchronized (sw) {
            table(table, null).setDefaultAction(call(table, value));
        }
    }

    @Override
    public BigInteger missValue(int table) throws CardException {
        synchronized (sw) {
            return word(table, table(table, null).defaultAction());
        }
    }

    @Override
    public int registerSize(String register) {
        Externs.Register r = register(register);
        return r == null ? 0 : r.size;
    }

    @Override
    public long registerRead(String register, int index) throws CardException {
        Externs.Register r = register(register);
        if (r == null || index < 0 || index >= r.size) {
            throw new CardException(CardException.Reason.BAD_ADDRESS, r == null ? "the card has no register " + register
                    : register + ": cell " + index + " is outside 0.." + (r.size - 1));
        }
        return r.get(index).longValue();
    }

    private Externs.Register register(String name) {
        return sw.program.registers.stream().filter(r -> r.name.equals(name)).findFirst().orElse(null);
    }

    private Table table(int id, TableLayout.Kind kind) throws CardException {
        if (id < 0 || id >= layouts.size()) {
            throw new CardException(CardException.Reason.NO_SUCH_TABLE, "the card has no table " + id);
        }
        if (kind != null && layouts.get(id).kind != kind) {
            throw new CardException(CardException.Reason.UNSUPPORTED, "table " + id + " (" + layouts.get(id).name
                    + ") is a " + layouts.get(id).kind + ", not a " + kind);
        }
        return sw.program.tables.get(id);
    }

    private static void checkAddress(Table t, int address) throws CardException {
        if (address < 0 || address >= t.size) {
            throw new CardException(CardException.Reason.BAD_ADDRESS, t.name + ": address " + address
                    + " is outside the TCAM (0.." + (t.size - 1) + ")");
        }
    }

    private BigInteger checked(int table, BigInteger word, String what) throws CardException {
        if (word.signum() < 0 || word.bitLength() > layouts.get(table).keyBits()) {
            throw new CardException(CardException.Reason.BAD_WORD, layouts.get(table).name + ": the " + what + " 0x"
                    + word.toString(16) + " is wider than " + layouts.get(table).keyBits() + " bits");
        }
        return word;
    }

    private Table.FieldMatch[] exactMatch(int table, BigInteger key) throws CardException {
        Table t = sw.program.tables.get(table);
        BigInteger[] fields = layouts.get(table).keyFields(checked(table, key, "key"));
        Table.FieldMatch[] match = new Table.FieldMatch[fields.length];
        for (int i = 0; i < fields.length; i++) {
            match[i] = Table.FieldMatch.exact(fields[i], t.keys.get(i).width);
        }
        return match;
    }

    private Table.ActionCall call(int table, BigInteger value) throws CardException {
        TableLayout.Action a;
        try {
            a = layouts.get(table).action(value);
        } catch (IllegalArgumentException e) {
            throw new CardException(CardException.Reason.BAD_WORD, e.getMessage());
        }
        return new Table.ActionCall(sw.program.tables.get(table).actions.get(a.index).action, a.params);
    }

    private BigInteger word(int table, Table.ActionCall call) {
        List<Table.ActionRef> refs = sw.program.tables.get(table).actions;
        for (int i = 0; i < refs.size(); i++) {
            if (refs.get(i).action == call.action) {
                return layouts.get(table).value(i, call.args());
            }
        }
        throw new IllegalStateException("the action " + call.action.name + " is not one of its table's");
    }
}
