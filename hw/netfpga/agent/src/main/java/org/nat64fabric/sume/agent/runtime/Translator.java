package org.nat64fabric.sume.agent.runtime;

import io.grpc.Status;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nat64fabric.sume.agent.card.CardException;
import org.nat64fabric.sume.agent.card.CardTables;
import org.nat64fabric.sume.agent.layout.TableLayout;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;

/**
 * P4Runtime table entries in, the card's table operations out, driven by the P4Info the card was
 * built with: exact tables are CAMs, ternary ones TCAMs (entries kept in priority order, highest at
 * address 0), lpm ones LPM datasets reloaded whole, and default actions the tables' miss values.
 * The agent keeps every entry as it was written, so Reads return exactly that. What the card
 * cannot hold is refused with the status P4Runtime gives for it.
 */
public final class Translator {
    private final CardTables card;
    private final Map<Integer, TableState> tables = new LinkedHashMap<>();
    private final Map<Integer, P4InfoOuterClass.Action> actions = new HashMap<>();
    /** Per table (card id), the miss value the card had before any write: what {@link #clear} restores. */
    private final Map<Integer, BigInteger> builtMissValues = new HashMap<>();

    /** IllegalArgumentException when the card does not have the P4Info's tables as it describes them. */
    public Translator(P4Info p4info, CardTables card) {
        this.card = card;
        for (P4InfoOuterClass.Action a : p4info.getActionsList()) {
            actions.put(a.getPreamble().getId(), a);
        }
        Map<String, CardTables.TableInfo> onCard = new HashMap<>();
        for (CardTables.TableInfo t : card.tables()) {
            onCard.put(t.name, t);
        }
        for (P4InfoOuterClass.Table t : p4info.getTablesList()) {
            TableLayout layout = layoutOf(t);
            CardTables.TableInfo c = onCard.get(t.getPreamble().getName());
            if (c == null || c.kind != layout.kind || c.depth < t.getSize()) {
                throw new IllegalArgumentException("the card was built with another program: table "
                        + t.getPreamble().getName() + (c == null ? " is not on it"
                        : " is a " + c.kind + " of " + c.depth + " entries there, a " + layout.kind + " of " + t.getSize() + " here"));
            }
            tables.put(t.getPreamble().getId(), new TableState(t, layout, c.id, actions));
            try {
                builtMissValues.put(c.id, card.missValue(c.id));
            } catch (CardException e) {
                throw new IllegalArgumentException("cannot read the miss value of " + c.name + ": " + e.getMessage());
            }
        }
    }

    /** Takes off the card what this translator wrote (a new pipeline starts from the card as built). */
    public synchronized void clear() throws CardException {
        for (TableState t : tables.values()) {
            switch (t.layout.kind) {
                case CAM:
                    for (TableEntry e : t.entries.values()) {
                        try {
                            card.camDelete(t.cardId, t.layout.key(TableMatch.of(t.info, e.getMatchList(), 0).values));
                        } catch (EntityError x) {
                            throw new IllegalStateException("an entry the agent accepted no longer checks: " + x.getMessage());
                        }
                    }
                    break;
                case TCAM:
                    for (int a = 0; a < t.addresses.size(); a++) {
                        card.tcamErase(t.cardId, a);
                    }
                    t.addresses.clear();
                    break;
                case LPM:
                    if (!t.entries.isEmpty()) {
                        card.lpmLoad(t.cardId, List.of());
                    }
                    t.lpmRows.clear();
                    break;
                default:
                    break;
            }
            t.entries.clear();
            if (t.defaultEntry != null) {
                card.setMissValue(t.cardId, builtMissValues.get(t.cardId));
                t.defaultEntry = null;
            }
        }
    }

    /** The layout of a table's words as the P4Info describes it (see {@link TableLayout}). */
    TableLayout layoutOf(P4InfoOuterClass.Table t) {
        String[] kinds = new String[t.getMatchFieldsCount()];
        int[] widths = new int[kinds.length];
        for (int i = 0; i < kinds.length; i++) {
            P4InfoOuterClass.MatchField f = t.getMatchFields(i);
            kinds[i] = f.getMatchType().name().toLowerCase(java.util.Locale.ROOT);
            widths[i] = f.getBitwidth();
        }
        int[][] params = new int[t.getActionRefsCount()][];
        for (int a = 0; a < params.length; a++) {
            P4InfoOuterClass.Action action = actions.get(t.getActionRefs(a).getId());
            params[a] = action.getParamsList().stream().mapToInt(P4InfoOuterClass.Action.Param::getBitwidth).toArray();
        }
        return new TableLayout(t.getPreamble().getName(), TableLayout.kindOf(kinds), widths, params);
    }

    public synchronized void write(Update.Type type, Entity entity) throws EntityError {
        switch (entity.getEntityCase()) {
            case TABLE_ENTRY:
                tableEntry(type, entity.getTableEntry());
                return;
            default:
                throw unsupported(entity);
        }
    }

    public synchronized List<Entity> read(Entity request) throws EntityError {
        if (request.getEntityCase() != Entity.EntityCase.TABLE_ENTRY) {
            throw unsupported(request);
        }
        TableEntry q = request.getTableEntry();
        List<TableState> which = new ArrayList<>();
        if (q.getTableId() == 0) {
            which.addAll(tables.values());
        } else {
            which.add(table(q.getTableId()));
        }
        List<Entity> out = new ArrayList<>();
        for (TableState t : which) {
            if (q.getIsDefaultAction()) {
                out.add(Entity.newBuilder().setTableEntry(defaultEntry(t)).build());
                continue;
            }
            if (q.getMatchCount() > 0) {
                TableEntry e = t.entries.get(TableMatch.of(t.info, q.getMatchList(), q.getPriority()).identity);
                if (e != null) {
                    out.add(Entity.newBuilder().setTableEntry(e).build());
                }
                continue;
            }
            Iterable<String> order = t.layout.kind == TableLayout.Kind.TCAM ? t.addresses : t.entries.keySet();
            for (String id : order) {
                out.add(Entity.newBuilder().setTableEntry(t.entries.get(id)).build());
            }
        }
        return out;
    }

    private static EntityError unsupported(Entity e) {
        String why;
        switch (e.getEntityCase()) {
            case PACKET_REPLICATION_ENGINE_ENTRY:
                why = "SimpleSumeSwitch has no packet replication engine: no multicast groups, no clone sessions";
                break;
            case COUNTER_ENTRY:
            case DIRECT_COUNTER_ENTRY:
                why = "the card has no counters (SDNet's SimpleSumeSwitch)";
                break;
            case METER_ENTRY:
            case DIRECT_METER_ENTRY:
                why = "the card has no meters (SDNet's SimpleSumeSwitch)";
                break;
            case REGISTER_ENTRY:
                why = "the agent does not drive the card's registers";
                break;
            case ACTION_PROFILE_MEMBER:
            case ACTION_PROFILE_GROUP:
                why = "the card has no action profiles";
                break;
            default:
                why = "the SUME agent does not support " + e.getEntityCase() + " entities";
        }
        return new EntityError(Status.Code.UNIMPLEMENTED, why);
    }

    private TableState table(int id) throws EntityError {
        TableState t = tables.get(id);
        if (t == null) {
            throw new EntityError(Status.Code.NOT_FOUND, "the pipeline has no table with ID " + id);
        }
        return t;
    }

    private void tableEntry(Update.Type type, TableEntry e) throws EntityError {
        TableState t = table(e.getTableId());
        if (e.getIsDefaultAction()) {
            writeDefault(t, type, e);
            return;
        }
        if (t.info.getIsConstTable()) {
            throw new EntityError(Status.Code.PERMISSION_DENIED, "table " + t.name()
                    + " has const entries (built into the card)");
        }
        if (t.layout.kind == TableLayout.Kind.KEYLESS) {
            throw TableMatch.invalid("table " + t.name() + " has no key: only its default action can be written");
        }
        if (e.getIdleTimeoutNs() != 0 && type != Update.Type.DELETE) {
            throw TableMatch.invalid("table " + t.name() + " does not support idle timeouts (SDNet has none)");
        }
        if (e.hasCounterData() && type != Update.Type.DELETE) {
            throw TableMatch.invalid("table " + t.name() + " has no direct counter (the card has no counters)");
        }
        if (e.hasMeterConfig() && type != Update.Type.DELETE) {
            throw TableMatch.invalid("table " + t.name() + " has no direct meter (the card has no meters)");
        }
        boolean ternary = t.layout.kind == TableLayout.Kind.TCAM;
        if (ternary && e.getPriority() <= 0) {
            throw TableMatch.invalid("table " + t.name() + " needs a priority above 0 (it has ternary fields)");
        }
        if (!ternary && e.getPriority() != 0) {
            throw TableMatch.invalid("table " + t.name() + " takes no priority (its fields are exact or lpm)");
        }
        TableMatch m = TableMatch.of(t.info, e.getMatchList(), e.getPriority());
        TableEntry old = t.entries.get(m.identity);
        switch (type) {
            case INSERT:
                if (old != null) {
                    throw new EntityError(Status.Code.ALREADY_EXISTS, t.name() + ": the entry exists");
                }
                if (t.entries.size() >= t.info.getSize()) {
                    throw new EntityError(Status.Code.RESOURCE_EXHAUSTED, t.name() + " is full: the card's "
                            + t.layout.kind + " holds " + t.info.getSize() + " entries");
                }
                break;
            case MODIFY:
            case DELETE:
                if (old == null) {
                    throw new EntityError(Status.Code.NOT_FOUND, t.name() + ": no such entry");
                }
                break;
            default:
                throw TableMatch.invalid("update type " + type + " is not INSERT, MODIFY or DELETE");
        }
        BigInteger value = type == Update.Type.DELETE ? null : t.value(e, false);
        try {
            switch (t.layout.kind) {
                case CAM:
                    cam(t, type, m, value);
                    break;
                case TCAM:
                    tcam(t, type, m, e.getPriority(), value);
                    break;
                default:
                    lpm(t, type, m, e);
                    return;   // lpm() records the entry itself, once the dataset is loaded
            }
        } catch (CardException x) {
            throw cardError(t, x);
        }
        if (type == Update.Type.DELETE) {
            t.entries.remove(m.identity);
        } else {
            t.entries.put(m.identity, e);
        }
    }

    private void cam(TableState t, Update.Type type, TableMatch m, BigInteger value) throws CardException {
        BigInteger key = t.layout.key(m.values);
        if (type != Update.Type.INSERT) {
            card.camDelete(t.cardId, key);   // the CAM has no modify: a MODIFY is a delete and an add
        }
        if (type != Update.Type.DELETE) {
            card.camAdd(t.cardId, key, value);
        }
    }

    /** Addresses in priority order: an insert moves the lower entries down one, a delete moves them up. */
    private void tcam(TableState t, Update.Type type, TableMatch m, int priority, BigInteger value) throws CardException {
        BigInteger key = t.layout.key(m.values);
        BigInteger mask = t.layout.key(m.masks);
        List<String> at = t.addresses;
        if (type == Update.Type.MODIFY) {
            card.tcamWrite(t.cardId, at.indexOf(m.identity), key, mask, value);
            return;
        }
        if (type == Update.Type.DELETE) {
            int pos = at.indexOf(m.identity);
            for (int i = pos + 1; i < at.size(); i++) {
                rewrite(t, at.get(i), i - 1);
            }
            card.tcamErase(t.cardId, at.size() - 1);
            at.remove(pos);
            return;
        }
        int pos = 0;
        while (pos < at.size() && t.entries.get(at.get(pos)).getPriority() >= priority) {
            pos++;
        }
        for (int i = at.size() - 1; i >= pos; i--) {
            rewrite(t, at.get(i), i + 1);
        }
        card.tcamWrite(t.cardId, pos, key, mask, value);
        at.add(pos, m.identity);
    }

    private void rewrite(TableState t, String identity, int address) throws CardException {
        TableEntry e = t.entries.get(identity);
        TableMatch m;
        BigInteger value;
        try {
            m = TableMatch.of(t.info, e.getMatchList(), e.getPriority());
            value = t.value(e, false);
        } catch (EntityError x) {
            throw new IllegalStateException("an entry the agent accepted no longer checks: " + x.getMessage());
        }
        card.tcamWrite(t.cardId, address, t.layout.key(m.values), t.layout.key(m.masks), value);
    }

    /** The table's prefixes with this update applied, loaded as one dataset; the entry is recorded once it is. */
    private void lpm(TableState t, Update.Type type, TableMatch m, TableEntry e) throws EntityError {
        Map<String, CardTables.LpmRow> next = new LinkedHashMap<>(t.lpmRows);
        if (type == Update.Type.DELETE) {
            next.remove(m.identity);
        } else {
            next.put(m.identity, new CardTables.LpmRow(m.values[0], m.prefixLengths[0], t.value(e, false)));
        }
        try {
            card.lpmLoad(t.cardId, new ArrayList<>(next.values()));
        } catch (CardException x) {
            throw cardError(t, x);
        }
        t.lpmRows.clear();
        t.lpmRows.putAll(next);
        if (type == Update.Type.DELETE) {
            t.entries.remove(m.identity);
        } else {
            t.entries.put(m.identity, e);
        }
    }

    private void writeDefault(TableState t, Update.Type type, TableEntry e) throws EntityError {
        if (type != Update.Type.MODIFY) {
            throw TableMatch.invalid(t.name() + ": a default action is only modified (P4Runtime §9.1.3), not " + type);
        }
        if (e.getMatchCount() > 0 || e.getPriority() != 0) {
            throw TableMatch.invalid(t.name() + ": a default entry has no match and no priority");
        }
        if (t.info.getConstDefaultActionId() != 0) {
            throw new EntityError(Status.Code.PERMISSION_DENIED, "the default action of " + t.name() + " is const");
        }
        try {
            card.setMissValue(t.cardId, t.value(e, true));
        } catch (CardException x) {
            throw cardError(t, x);
        }
        t.defaultEntry = e;
    }

    /** The default entry as written, or as the card's miss value says when none was. */
    private TableEntry defaultEntry(TableState t) throws EntityError {
        if (t.defaultEntry != null) {
            return t.defaultEntry;
        }
        TableLayout.Action a;
        try {
            a = t.layout.action(card.missValue(t.cardId));
        } catch (CardException x) {
            throw cardError(t, x);
        } catch (IllegalArgumentException x) {
            throw new EntityError(Status.Code.INTERNAL, "the card's miss value for " + t.name() + ": " + x.getMessage());
        }
        return t.defaultEntry(a);
    }

    private static EntityError cardError(TableState t, CardException x) {
        switch (x.reason) {
            case FULL:
                return new EntityError(Status.Code.RESOURCE_EXHAUSTED, t.name() + " is full on the card: " + x.getMessage());
            case UNSUPPORTED:
                return new EntityError(Status.Code.UNIMPLEMENTED, x.getMessage());
            default:
                return new EntityError(Status.Code.INTERNAL, "the card refused a write to " + t.name() + ": " + x.getMessage());
        }
    }
}
