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
    /** Per register of hit counts, the idle timers of the entries whose slots it holds (tables with idle timeouts). */
    private final Map<String, IdleTimers<EntryRef>> timers = new HashMap<>();
    private final java.util.function.LongSupplier clock;

    /** An entry of a table with idle timeouts, as its timer knows it. */
    private static final class EntryRef {
        final TableState table;
        final String identity;

        EntryRef(TableState table, String identity) {
            this.table = table;
            this.identity = identity;
        }

        @Override public boolean equals(Object o) {
            return o instanceof EntryRef && ((EntryRef) o).table == table && ((EntryRef) o).identity.equals(identity);
        }

        @Override public int hashCode() {
            return table.cardId * 31 + identity.hashCode();
        }
    }

    /** IllegalArgumentException when the card does not have the P4Info's tables as it describes them. */
    public Translator(P4Info p4info, CardTables card) {
        this(p4info, card, System::nanoTime);
    }

    /** {@code clock}: nanoseconds, for idle timeouts. */
    public Translator(P4Info p4info, CardTables card, java.util.function.LongSupplier clock) {
        this.card = card;
        this.clock = clock;
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
            TableState state = new TableState(t, layout, c.id, actions);
            tables.put(t.getPreamble().getId(), state);
            if (state.slotRegister != null && !timers.containsKey(state.slotRegister)) {
                timers.put(state.slotRegister, timersOf(state));
            }
            try {
                builtMissValues.put(c.id, card.missValue(c.id));
            } catch (CardException e) {
                throw new IllegalArgumentException("cannot read the miss value of " + c.name + ": " + e.getMessage());
            }
        }
    }

    /** The timers of the entries whose slots index the table's register, checked against the card's register. */
    private IdleTimers<EntryRef> timersOf(TableState t) {
        String register = t.slotRegister;
        int width = t.info.getActionRefsList().stream().map(r -> SlotParam.of(actions.get(r.getId())))
                .filter(java.util.Objects::nonNull).mapToInt(s -> s.width).max().getAsInt();
        int size = card.registerSize(register);
        if (size != 1 << width) {
            throw new IllegalArgumentException("the card was built with another program: the slots of " + t.name()
                    + " index register " + register + " of " + (1 << width) + " cells, which the card "
                    + (size == 0 ? "has not" : "has with " + size));
        }
        return new IdleTimers<>(size, slot -> card.registerRead(register, slot));
    }

    /**
     * Reads the hit counts of the entries with idle timeouts on the card: those not hit for their
     * timeout whose report is due, as written (see {@link IdleTimers}).
     */
    public synchronized List<TableEntry> pollIdle() throws CardException {
        List<TableEntry> idle = new ArrayList<>();
        long now = clock.getAsLong();
        for (IdleTimers<EntryRef> t : timers.values()) {
            for (EntryRef r : t.poll(now)) {
                idle.add(r.table.entries.get(r.identity));
            }
        }
        return idle;
    }

    /** Entries holding a slot (with or without an idle timeout). */
    public synchronized int slotsInUse() {
        return timers.values().stream().mapToInt(IdleTimers::inUse).sum();
    }

    /** Takes off the card what this translator wrote (a new pipeline starts from the card as built). */
    public synchronized void clear() throws CardException {
        timers.values().forEach(IdleTimers::clear);
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
            SlotParam slot = SlotParam.of(action);
            params[a] = java.util.stream.IntStream.concat(action.getParamsList().stream().mapToInt(P4InfoOuterClass.Action.Param::getBitwidth),
                    slot == null ? java.util.stream.IntStream.empty() : java.util.stream.IntStream.of(slot.width)).toArray();
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
        if (q.getIsDefaultAction()) {
            keylessDefault("table_id " + q.getTableId(), q);
        }
        if (q.hasTimeSinceLastHit() && (q.getIsDefaultAction()
                || q.getTableId() != 0 && which.get(0).slotRegister == null)) {
            throw TableMatch.invalid("time_since_last_hit is read from the entries of tables with idle timeouts "
                    + "only, never from a default entry (P4Runtime 9.1.8)");
        }
        List<Entity> out = new ArrayList<>();
        for (TableState t : which) {
            if (q.getIsDefaultAction()) {
                out.add(Entity.newBuilder().setTableEntry(defaultEntry(t)).build());
                continue;
            }
            boolean hitTime = q.hasTimeSinceLastHit() && t.slotRegister != null;
            if (q.getMatchCount() > 0) {
                String id = TableMatch.of(t.info, q.getMatchList(), q.getPriority()).identity;
                if (t.entries.containsKey(id)) {
                    out.add(Entity.newBuilder().setTableEntry(asRead(t, id, hitTime)).build());
                }
                continue;
            }
            Iterable<String> order = t.layout.kind == TableLayout.Kind.TCAM ? t.addresses : t.entries.keySet();
            for (String id : order) {
                out.add(Entity.newBuilder().setTableEntry(asRead(t, id, hitTime)).build());
            }
        }
        return out;
    }

    /** The entry as written, with the time since its last hit (P4Runtime 9.1.8) when asked for, its count read now. */
    private TableEntry asRead(TableState t, String identity, boolean hitTime) throws EntityError {
        TableEntry e = t.entries.get(identity);
        if (!hitTime) {
            return e;
        }
        long since;
        try {
            since = timers.get(t.slotRegister).sinceLastHit(new EntryRef(t, identity), clock.getAsLong());
        } catch (CardException x) {
            throw cardError(t, x);
        }
        return e.toBuilder().setTimeSinceLastHit(TableEntry.IdleTimeout.newBuilder().setElapsedNs(since)).build();
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
                why = "the card's registers are not P4Runtime's (its P4Info has none; the agent reads its register of hits itself)";
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
        if (e.getTableId() == 0) {
            throw new EntityError(Status.Code.INVALID_ARGUMENT, "table_id 0 is a wildcard of reads; a write must name its table");
        }
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
        if (e.getIdleTimeoutNs() < 0) {
            throw TableMatch.invalid("idle_timeout_ns " + e.getIdleTimeoutNs() + " is negative");
        }
        if (e.getIdleTimeoutNs() != 0 && t.slotRegister == null && type != Update.Type.DELETE) {
            throw TableMatch.invalid("table " + t.name() + " does not support idle timeouts (its P4Info's "
                    + "idle_timeout_behavior is NO_TIMEOUT)");
        }
        if (e.hasTimeSinceLastHit() && type != Update.Type.DELETE) {   // a DELETE considers the key alone (9.1)
            throw TableMatch.invalid("time_since_last_hit is read only: a write leaves it unset");
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
        EntryRef ref = t.slotRegister == null ? null : new EntryRef(t, m.identity);
        int slot = type == Update.Type.INSERT ? startTimer(t, ref, e) : ref == null ? 0 : timers.get(t.slotRegister).slot(ref);
        BigInteger value;
        try {
            value = type == Update.Type.DELETE ? null : t.value(e, false, slot);
        } catch (EntityError x) {
            stopTimerOfInsert(t, ref, type);
            throw x;
        }
        try {
            switch (t.layout.kind) {
                case CAM:
                    cam(t, type, m, value);
                    break;
                case TCAM:
                    tcam(t, type, m, e.getPriority(), value);
                    break;
                default:
                    lpm(t, type, m, value);
                    break;
            }
        } catch (CardException x) {
            stopTimerOfInsert(t, ref, type);
            throw cardError(t, x);
        }
        if (type == Update.Type.DELETE) {
            t.entries.remove(m.identity);
        } else {
            t.entries.put(m.identity, e);
        }
        if (ref != null && type == Update.Type.DELETE) {
            timers.get(t.slotRegister).stop(ref);
        } else if (ref != null && type == Update.Type.MODIFY) {
            timers.get(t.slotRegister).setTimeout(ref, e.getIdleTimeoutNs());
        }
    }

    /** A new entry's slot and idle timer, in a table with idle timeouts; 0 elsewhere. */
    private int startTimer(TableState t, EntryRef ref, TableEntry e) throws EntityError {
        if (ref == null) {
            return 0;
        }
        int slot;
        try {
            slot = timers.get(t.slotRegister).start(ref, e.getIdleTimeoutNs(), clock.getAsLong());
        } catch (CardException x) {
            throw cardError(t, x);
        }
        if (slot < 0) {
            throw new EntityError(Status.Code.RESOURCE_EXHAUSTED, t.name() + ": every slot of the card's register "
                    + t.slotRegister + " is held by an entry (the slots age entries of the tables sharing it)");
        }
        return slot;
    }

    private void stopTimerOfInsert(TableState t, EntryRef ref, Update.Type type) {
        if (ref != null && type == Update.Type.INSERT) {
            timers.get(t.slotRegister).stop(ref);
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

    private int slotOf(TableState t, String identity) {
        return t.slotRegister == null ? 0 : timers.get(t.slotRegister).slot(new EntryRef(t, identity));
    }

    private void rewrite(TableState t, String identity, int address) throws CardException {
        TableEntry e = t.entries.get(identity);
        TableMatch m;
        BigInteger value;
        try {
            m = TableMatch.of(t.info, e.getMatchList(), e.getPriority());
            value = t.value(e, false, slotOf(t, identity));
        } catch (EntityError x) {
            throw new IllegalStateException("an entry the agent accepted no longer checks: " + x.getMessage());
        }
        card.tcamWrite(t.cardId, address, t.layout.key(m.values), t.layout.key(m.masks), value);
    }

    /** The table's prefixes with this update applied, loaded as one dataset. */
    private void lpm(TableState t, Update.Type type, TableMatch m, BigInteger value) throws CardException {
        Map<String, CardTables.LpmRow> next = new LinkedHashMap<>(t.lpmRows);
        if (type == Update.Type.DELETE) {
            next.remove(m.identity);
        } else {
            next.put(m.identity, new CardTables.LpmRow(m.values[0], m.prefixLengths[0], value));
        }
        card.lpmLoad(t.cardId, new ArrayList<>(next.values()));
        t.lpmRows.clear();
        t.lpmRows.putAll(next);
    }

    /** A default entry is named without match fields and with priority 0 (P4Runtime 9.1.5), in a read as in a write. */
    private static void keylessDefault(String table, TableEntry e) throws EntityError {
        if (e.getMatchCount() > 0 || e.getPriority() != 0) {
            throw TableMatch.invalid(table + ": a default entry has no match and no priority (P4Runtime 9.1.5)");
        }
    }

    private void writeDefault(TableState t, Update.Type type, TableEntry e) throws EntityError {
        if (type != Update.Type.MODIFY) {
            throw TableMatch.invalid(t.name() + ": a default action is only modified (P4Runtime §9.1.3), not " + type);
        }
        keylessDefault(t.name(), e);
        if (t.info.getConstDefaultActionId() != 0) {
            throw new EntityError(Status.Code.PERMISSION_DENIED, "the default action of " + t.name() + " is const");
        }
        try {
            card.setMissValue(t.cardId, t.value(e, true, 0));
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
