package org.nat64fabric.softswitch.runtime;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.nat64fabric.softswitch.pipeline.Action;
import org.nat64fabric.softswitch.pipeline.ActionProfile;
import org.nat64fabric.softswitch.pipeline.Bits;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.pipeline.TwoRateMarker;
import org.nat64fabric.softswitch.runtime.EntityException.Code;
import org.nat64fabric.softswitch.v1model.Externs;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.v1.P4DataOuterClass.P4Data;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.CounterData;
import p4.v1.P4RuntimeOuterClass.CounterEntry;
import p4.v1.P4RuntimeOuterClass.DirectCounterEntry;
import p4.v1.P4RuntimeOuterClass.DirectMeterEntry;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.Index;
import p4.v1.P4RuntimeOuterClass.MeterConfig;
import p4.v1.P4RuntimeOuterClass.MeterEntry;
import p4.v1.P4RuntimeOuterClass.RegisterEntry;
import p4.v1.P4RuntimeOuterClass.TableAction;
import p4.v1.P4RuntimeOuterClass.TableEntry;
import p4.v1.P4RuntimeOuterClass.Update;

/**
 * Applies P4Runtime entities (table entries, multicast groups, clone sessions, action profile
 * members and groups, digest configurations, ...) to a switch,
 * checking them against the P4Info as the P4Runtime specification requires, and turns the
 * switch's entries back into entities for reads.
 */
public final class Entities {
    private final V1ModelSwitch sw;
    private final Map<Integer, Table> tablesById = new HashMap<>();
    private final Map<Integer, Action> actionsById = new HashMap<>();
    private final Map<String, Integer> tableIds = new HashMap<>();
    private final Map<String, Integer> actionIds = new HashMap<>();
    private final Map<Integer, Externs.Counter> countersById = new HashMap<>();
    private final Map<Integer, Externs.Register> registersById = new HashMap<>();
    private final Map<Externs.Counter, Integer> counterIds = new HashMap<>();
    private final Map<Externs.Register, Integer> registerIds = new HashMap<>();
    private final Map<Integer, Externs.Meter> metersById = new HashMap<>();
    private final Map<Externs.Meter, Integer> meterIds = new HashMap<>();
    private final Replication replication;
    private final ValueSets valueSets;
    /**
     * The program's own entries of tables that take no priority, by match: the program numbers
     * them (their order), P4Runtime names them with priority 0 (9.1.6).
     */
    private final Map<Table, Map<List<Table.FieldMatch>, Table.Entry>> programEntries = new HashMap<>();
    private final ActionProfiles profiles;
    private final Digests digests;
    /** The action of each entry of an indirect table as written (member, group or action set), for reads and references. */
    private final Map<Table.Entry, TableAction> indirectActions = new IdentityHashMap<>();
    /** TableEntry.controller_metadata (deprecated, still read back) of the entries that have one. */
    private final Map<Table.Entry, Long> controllerMetadata = new IdentityHashMap<>();
    /** The metadata and controller_metadata of the default entries a controller set them for (9.1.5). */
    private final Map<Table, TableEntry> defaultEntryMetadata = new HashMap<>();

    /** Maps the P4Info's IDs to the program's objects by name; the caller has checked they match. */
    /** The entities of a switch without links to watch (the simulator's): every port is up. */
    public Entities(V1ModelSwitch sw, P4Info info) {
        this(sw, info, ActionProfile.PortLiveness.ALL_UP);
    }

    /** {@code ports}: which ports are up, for group members that watch one. */
    public Entities(V1ModelSwitch sw, P4Info info, ActionProfile.PortLiveness ports) {
        this.sw = sw;
        this.replication = new Replication(sw);
        this.valueSets = new ValueSets(sw.program, info);
        this.digests = new Digests(sw.program, info);
        this.profiles = new ActionProfiles(sw.program, info, (t, a) -> actionCall(t, a, false), ports);
        for (Table t : sw.program.tables) {
            if (!t.needsPriority() && !t.entries().isEmpty()) {
                Map<List<Table.FieldMatch>, Table.Entry> byMatch = new HashMap<>();
                for (Table.Entry e : t.entries()) {
                    byMatch.put(Arrays.asList(e.match()), e);
                }
                programEntries.put(t, byMatch);
            }
        }
        for (P4InfoOuterClass.Table t : info.getTablesList()) {
            Table table = sw.program.table(t.getPreamble().getName());
            tablesById.put(t.getPreamble().getId(), table);
            tableIds.put(table.name, t.getPreamble().getId());
        }
        for (P4InfoOuterClass.Action a : info.getActionsList()) {
            Action action = sw.program.action(a.getPreamble().getName());
            actionsById.put(a.getPreamble().getId(), action);
            actionIds.put(action.name, a.getPreamble().getId());
        }
        for (P4InfoOuterClass.Counter c : info.getCountersList()) {
            for (Externs.Counter counter : sw.program.counters) {
                if (counter.name.equals(c.getPreamble().getName())) {
                    countersById.put(c.getPreamble().getId(), counter);
                    counterIds.put(counter, c.getPreamble().getId());
                }
            }
        }
        for (P4InfoOuterClass.Meter m : info.getMetersList()) {
            for (Externs.Meter meter : sw.program.meters) {
                if (meter.name.equals(m.getPreamble().getName())) {
                    metersById.put(m.getPreamble().getId(), meter);
                    meterIds.put(meter, m.getPreamble().getId());
                }
            }
        }
        for (P4InfoOuterClass.Register r : info.getRegistersList()) {
            for (Externs.Register register : sw.program.registers) {
                if (register.name.equals(r.getPreamble().getName())) {
                    registersById.put(r.getPreamble().getId(), register);
                    registerIds.put(register, r.getPreamble().getId());
                }
            }
        }
    }

    /** Applies one update; the switch is unchanged when it throws. */
    public synchronized void apply(Update.Type type, Entity entity) throws EntityException {
        if (objectId(entity) == 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, entity.getEntityCase() + ": P4 object ID 0 is a wildcard "
                    + "of reads; a write must name the object (P4Runtime, \"Default-valued fields\")");
        }
        switch (entity.getEntityCase()) {
            case TABLE_ENTRY:
                tableEntry(type, entity.getTableEntry());
                return;
            case PACKET_REPLICATION_ENGINE_ENTRY:
                replication.apply(type, entity.getPacketReplicationEngineEntry());
                return;
            case COUNTER_ENTRY:
                expectModify(type, "counter entries");
                counterEntry(entity.getCounterEntry());
                return;
            case METER_ENTRY: {
                expectModify(type, "meter entries");
                MeterEntry me = entity.getMeterEntry();
                Externs.Meter m = meter(me.getMeterId());
                boolean resetCounts = resetsMeterCounts(me, NewerFields.METER_ENTRY_COUNTER_DATA, m.name);
                TwoRateMarker.Config config = meterConfig(me.hasConfig(), me.getConfig(), m.name);
                for (int i : cells(me.hasIndex(), me.getIndex(), m.size, m.name)) {
                    m.configure(i, config);
                    if (resetCounts) {
                        m.resetColourCounts(i);
                    }
                }
                return;
            }
            case DIRECT_METER_ENTRY: {
                expectModify(type, "direct meter entries");
                DirectMeterEntry dm = entity.getDirectMeterEntry();
                Table t = table(dm.getTableEntry().getTableId());
                if (t.directMeter == null) {
                    throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " has no direct meter");
                }
                boolean resetCounts = resetsMeterCounts(dm, NewerFields.DIRECT_METER_ENTRY_COUNTER_DATA, t.directMeter);
                TwoRateMarker.Config config = meterConfig(dm.hasConfig(), dm.getConfig(), t.directMeter);
                Table.Entry e = installedEntry(t, dm.getTableEntry());
                if (config != null && e.indirect == null && e.action != null
                        && !e.action.action.directMetersRead.contains(t.directMeter)) {
                    throw new EntityException(Code.INVALID_ARGUMENT, "action " + e.action.action.name + " does not read "
                            + "the direct meter " + t.directMeter + ", so a config for it is an error (as in a table "
                            + "entry's meter_config, P4Runtime 9.1.9)");
                }
                e.meter = config == null ? null : new TwoRateMarker(config, System.nanoTime());
                if (resetCounts) {
                    e.colourCounts = null;
                }
                return;
            }
            case DIRECT_COUNTER_ENTRY: {
                expectModify(type, "direct counter entries");
                Table.Entry e = existingEntry(entity.getDirectCounterEntry().getTableEntry());
                Table t = table(entity.getDirectCounterEntry().getTableEntry().getTableId());
                if (!entity.getDirectCounterEntry().hasData()) {
                    return;   // P4Runtime 9.4: without data the counts are not modified
                }
                requireCounts(entity.getDirectCounterEntry().getData(), t.name);
                t.setCounts(e, entity.getDirectCounterEntry().getData().getPacketCount(),
                        entity.getDirectCounterEntry().getData().getByteCount());
                return;
            }
            case REGISTER_ENTRY:
                expectModify(type, "register entries");
                registerEntry(entity.getRegisterEntry());
                return;
            case VALUE_SET_ENTRY:
                valueSets.apply(type, entity.getValueSetEntry());
                return;
            case ACTION_PROFILE_MEMBER:
                profiles.member(type, entity.getActionProfileMember());
                return;
            case ACTION_PROFILE_GROUP:
                profiles.group(type, entity.getActionProfileGroup());
                return;
            case DIGEST_ENTRY:
                digests.write(type, entity.getDigestEntry());
                return;
            case ENTITY_NOT_SET:
                throw new EntityException(Code.INVALID_ARGUMENT, "the update's entity is not set");
            default: {
                int id = absentKindId(entity);
                throw new EntityException(id == 0 ? Code.INVALID_ARGUMENT : Code.NOT_FOUND, absentKind(entity, id));
            }
        }
    }

    /**
     * The updates that undo {@code u} once it is applied, read from the switch before it is: an
     * insert is undone by deleting its key, a modify by modifying back to what is there now, a
     * delete by inserting it again (with its counters, meter configuration and idle timeout). For
     * ROLLBACK_ON_ERROR and DATAPLANE_ATOMIC batches. Empty where the update names nothing it could
     * change (it then fails as it stands); throws where a read of its key is refused, as the update
     * itself would be.
     */
    public synchronized List<Update> undoOf(Update u) throws EntityException {
        Entity e = u.getEntity();
        if (u.getType() != Update.Type.DELETE && resetsColourCounts(e)) {
            // P4Runtime 12.2: a batch the server cannot roll back is refused UNIMPLEMENTED
            throw new EntityException(Code.UNIMPLEMENTED, "a reset of per-colour meter counts cannot be rolled back "
                    + "(they cannot be written back): send it in a CONTINUE_ON_ERROR batch");
        }
        if (u.getType() == Update.Type.INSERT) {
            Entity key = e.hasTableEntry() ? Entity.newBuilder().setTableEntry(TableEntry.newBuilder()
                    .setTableId(e.getTableEntry().getTableId()).addAllMatch(e.getTableEntry().getMatchList())
                    .setPriority(e.getTableEntry().getPriority())).build() : e;
            return List.of(Update.newBuilder().setType(Update.Type.DELETE).setEntity(key).build());
        }
        if (u.getType() != Update.Type.MODIFY && u.getType() != Update.Type.DELETE) {
            return List.of();
        }
        Entity query = stateOf(e);
        if (query == null) {
            return List.of();
        }
        Update.Type back = u.getType() == Update.Type.MODIFY ? Update.Type.MODIFY : Update.Type.INSERT;
        List<Update> out = new ArrayList<>();
        for (Entity now : read(query)) {
            if (sameMemberOrGroup(e, now)) {
                for (Entity back1 : writable(now)) {
                    out.add(Update.newBuilder().setType(back).setEntity(back1).build());
                }
            }
        }
        return out;
    }

    private static boolean resetsColourCounts(Entity e) {
        return e.hasTableEntry() && NewerFields.has(e.getTableEntry(), NewerFields.TABLE_ENTRY_METER_COUNTER_DATA)
                || e.hasMeterEntry() && NewerFields.has(e.getMeterEntry(), NewerFields.METER_ENTRY_COUNTER_DATA)
                || e.hasDirectMeterEntry() && NewerFields.has(e.getDirectMeterEntry(), NewerFields.DIRECT_METER_ENTRY_COUNTER_DATA);
    }

    /**
     * A table entry as read, as writes may give it back: is_const is read only, and a const entry
     * takes its direct resources without an action. A const default entry takes them as
     * DirectCounterEntry and DirectMeterEntry, which can also reset a meter it read unconfigured
     * (a MODIFY of it with neither resource would be an attempt to reset its action).
     */
    private List<Entity> writable(Entity read) throws EntityException {
        if (!read.hasTableEntry()) {
            return List.of(read);
        }
        TableEntry e = read.getTableEntry().toBuilder().setUnknownFields(UnknownFieldSet.getDefaultInstance()).build();
        Table t = table(e.getTableId());
        if (!e.getIsDefaultAction()) {
            Table.Entry entry = lookup(t, match(t, e.getMatchList()), e.getPriority());
            boolean constant = entry == null ? t.constEntries : t.isConst(entry);
            return List.of(Entity.newBuilder().setTableEntry(constant ? e.toBuilder().clearAction().build() : e).build());
        }
        if (!t.defaultActionIsConst()) {
            return List.of(Entity.newBuilder().setTableEntry(e).build());
        }
        TableEntry key = TableEntry.newBuilder().setTableId(e.getTableId()).setIsDefaultAction(true).build();
        List<Entity> out = new ArrayList<>();
        if (t.directCounter != null) {
            out.add(Entity.newBuilder().setDirectCounterEntry(DirectCounterEntry.newBuilder().setTableEntry(key)
                    .setData(e.getCounterData())).build());
        }
        if (t.directMeter != null) {
            DirectMeterEntry.Builder m = DirectMeterEntry.newBuilder().setTableEntry(key);
            if (e.hasMeterConfig()) {
                m.setConfig(e.getMeterConfig());
            }
            out.add(Entity.newBuilder().setDirectMeterEntry(m).build());
        }
        return out;
    }

    /**
     * The read that gives the state of what {@code e} names, with everything an update may change;
     * null where its ID is 0 or a table entry names no match (a wildcard read: the update fails).
     */
    private static Entity stateOf(Entity e) {
        Entity.Builder q = Entity.newBuilder();
        switch (e.getEntityCase()) {
            case TABLE_ENTRY: {
                TableEntry t = e.getTableEntry();
                if (t.getTableId() == 0 || t.getMatchCount() == 0 && !t.getIsDefaultAction()) {
                    return null;
                }
                return q.setTableEntry(TableEntry.newBuilder().setTableId(t.getTableId()).addAllMatch(t.getMatchList())
                        .setPriority(t.getPriority()).setIsDefaultAction(t.getIsDefaultAction())
                        .setCounterData(CounterData.getDefaultInstance()).setMeterConfig(MeterConfig.getDefaultInstance()))
                        .build();
            }
            case COUNTER_ENTRY: {
                CounterEntry c = e.getCounterEntry();
                return c.getCounterId() == 0 ? null : q.setCounterEntry(c.toBuilder().clearData()).build();
            }
            case METER_ENTRY: {
                MeterEntry m = e.getMeterEntry();
                // without the request's counter_data: the undo must not carry counts a write cannot give
                return m.getMeterId() == 0 ? null : q.setMeterEntry(m.toBuilder().clearConfig()
                        .setUnknownFields(UnknownFieldSet.getDefaultInstance())).build();
            }
            case DIRECT_COUNTER_ENTRY: {
                TableEntry t = e.getDirectCounterEntry().getTableEntry();
                return t.getTableId() == 0 ? null
                        : q.setDirectCounterEntry(DirectCounterEntry.newBuilder().setTableEntry(t)).build();
            }
            case DIRECT_METER_ENTRY: {
                TableEntry t = e.getDirectMeterEntry().getTableEntry();
                return t.getTableId() == 0 ? null : q.setDirectMeterEntry(DirectMeterEntry.newBuilder().setTableEntry(t)).build();
            }
            case REGISTER_ENTRY: {
                RegisterEntry r = e.getRegisterEntry();
                return r.getRegisterId() == 0 ? null : q.setRegisterEntry(r.toBuilder().clearData()).build();
            }
            case PACKET_REPLICATION_ENGINE_ENTRY: {
                var pre = e.getPacketReplicationEngineEntry();
                if (pre.hasMulticastGroupEntry()) {
                    int id = pre.getMulticastGroupEntry().getMulticastGroupId();
                    return id == 0 ? null : q.setPacketReplicationEngineEntry(pre.toBuilder().setMulticastGroupEntry(
                            pre.getMulticastGroupEntry().toBuilder().clearReplicas())).build();
                }
                if (pre.hasCloneSessionEntry()) {
                    int id = pre.getCloneSessionEntry().getSessionId();
                    return id == 0 ? null : q.setPacketReplicationEngineEntry(pre.toBuilder().setCloneSessionEntry(
                            pre.getCloneSessionEntry().toBuilder().clearReplicas().clearClassOfService()
                                    .clearPacketLengthBytes())).build();
                }
                return null;
            }
            case VALUE_SET_ENTRY: {
                var v = e.getValueSetEntry();
                return v.getValueSetId() == 0 ? null : q.setValueSetEntry(v.toBuilder().clearMembers()).build();
            }
            case ACTION_PROFILE_MEMBER: {
                var m = e.getActionProfileMember();
                return m.getActionProfileId() == 0 ? null : q.setActionProfileMember(m.toBuilder().clearAction()).build();
            }
            case ACTION_PROFILE_GROUP: {
                var g = e.getActionProfileGroup();
                return g.getActionProfileId() == 0 ? null
                        : q.setActionProfileGroup(g.toBuilder().clearMembers().clearMaxSize()).build();
            }
            case DIGEST_ENTRY: {
                var d = e.getDigestEntry();
                return d.getDigestId() == 0 ? null : q.setDigestEntry(d.toBuilder().clearConfig()).build();
            }
            default:
                return null;
        }
    }

    /** Whether a read's answer is the member or group an update names (a read of ID 0 lists them all). */
    private static boolean sameMemberOrGroup(Entity update, Entity read) {
        if (update.hasActionProfileMember()) {
            return read.getActionProfileMember().getMemberId() == update.getActionProfileMember().getMemberId();
        }
        if (update.hasActionProfileGroup()) {
            return read.getActionProfileGroup().getGroupId() == update.getActionProfileGroup().getGroupId();
        }
        return true;
    }

    /** The ID an entity of a kind this target's programs never have names (0 for a wildcard). */
    private static int absentKindId(Entity e) {
        switch (e.getEntityCase()) {
            case VALUE_SET_ENTRY: return e.getValueSetEntry().getValueSetId();
            case EXTERN_ENTRY: return e.getExternEntry().getExternTypeId();
            default: throw new IllegalArgumentException("not an absent kind: " + e.getEntityCase());
        }
    }

    /** The P4 object ID of a table, counter, meter, direct resource or register update; -1 for other kinds (checked where they are applied). */
    private static int objectId(Entity e) {
        switch (e.getEntityCase()) {
            case TABLE_ENTRY: return e.getTableEntry().getTableId();
            case COUNTER_ENTRY: return e.getCounterEntry().getCounterId();
            case METER_ENTRY: return e.getMeterEntry().getMeterId();
            case DIRECT_COUNTER_ENTRY: return e.getDirectCounterEntry().getTableEntry().getTableId();
            case DIRECT_METER_ENTRY: return e.getDirectMeterEntry().getTableEntry().getTableId();
            case REGISTER_ENTRY: return e.getRegisterEntry().getRegisterId();
            default: return -1;
        }
    }

    private static String absentKind(Entity e, int id) {
        String what;
        switch (e.getEntityCase()) {
            case VALUE_SET_ENTRY: what = "parser value set"; break;
            default: what = "extern type"; break;
        }
        return id == 0 ? e.getEntityCase() + ": a write must name the " + what + " (ID 0 is a wildcard)"
                : "the program has no " + what + " with ID " + Integer.toUnsignedString(id);
    }

    private static void expectModify(Update.Type type, String what) throws EntityException {
        if (type != Update.Type.MODIFY) {
            throw new EntityException(Code.INVALID_ARGUMENT, what + " exist for every index: only MODIFY applies to them");
        }
    }

    private Externs.Counter counter(int id) throws EntityException {
        Externs.Counter c = countersById.get(id);
        if (c == null) {
            throw new EntityException(Code.NOT_FOUND, "no counter with ID " + Integer.toUnsignedString(id));
        }
        return c;
    }

    private Externs.Meter meter(int id) throws EntityException {
        Externs.Meter m = metersById.get(id);
        if (m == null) {
            throw new EntityException(Code.NOT_FOUND, "no meter with ID " + Integer.toUnsignedString(id));
        }
        return m;
    }

    /** A MeterConfig as the marker takes it; none means unconfigured (every packet GREEN). */
    private static TwoRateMarker.Config meterConfig(boolean present, MeterConfig c, String name) throws EntityException {
        if (!present) {
            return null;
        }
        if (c.getCir() < 0 || c.getCburst() < 0 || c.getPir() < 0 || c.getPburst() < 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, name + ": meter rates and bursts must not be negative");
        }
        if (NewerFields.has(c, NewerFields.METER_CONFIG_EBURST)) {
            // P4Runtime 9.4: eburst is a single-rate meter's; a v1model meter is two-rate (RFC 2698).
            throw new EntityException(Code.INVALID_ARGUMENT, name + ": eburst is for single-rate meters; "
                    + "a v1model meter is two-rate (trTCM): leave eburst unset");
        }
        if (c.getPir() < c.getCir()) {
            throw new EntityException(Code.INVALID_ARGUMENT, name + ": PIR " + c.getPir() + " is below CIR " + c.getCir()
                    + " (RFC 2698: PIR must be equal to or greater than CIR)");
        }
        return new TwoRateMarker.Config(c.getCir(), c.getCburst(), c.getPir(), c.getPburst());
    }

    private static MeterConfig meterConfig(TwoRateMarker.Config c) {
        return MeterConfig.newBuilder().setCir(c.cir).setCburst(c.cburst).setPir(c.pir).setPburst(c.pburst).build();
    }

    private Externs.Register register(int id) throws EntityException {
        Externs.Register r = registersById.get(id);
        if (r == null) {
            throw new EntityException(Code.NOT_FOUND, "no register with ID " + Integer.toUnsignedString(id));
        }
        return r;
    }

    /** The cells an entry names: its index, or every cell when the index is unset. */
    private static int[] cells(boolean hasIndex, Index index, int size, String name) throws EntityException {
        if (!hasIndex) {
            int[] all = new int[size];
            for (int i = 0; i < size; i++) {
                all[i] = i;
            }
            return all;
        }
        if (index.getIndex() < 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, name + ": negative index " + index.getIndex());
        }
        if (index.getIndex() >= size) {
            throw new EntityException(Code.OUT_OF_RANGE, name + ": index " + index.getIndex() + " is not in 0.." + (size - 1));
        }
        return new int[] {(int) index.getIndex()};
    }

    /** Counts are int64 on the wire and never negative in a counter. */
    private static void requireCounts(CounterData d, String name) throws EntityException {
        if (d.getPacketCount() < 0 || d.getByteCount() < 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, name + ": counter data must not be negative (packets "
                    + d.getPacketCount() + ", bytes " + d.getByteCount() + ")");
        }
    }

    private void counterEntry(CounterEntry e) throws EntityException {
        Externs.Counter c = counter(e.getCounterId());
        requireCounts(e.getData(), c.name);
        int[] cells = cells(e.hasIndex(), e.getIndex(), c.size, c.name);
        if (!e.hasData()) {
            return;   // P4Runtime 9.3: without data the counts are not modified (the index is still checked)
        }
        for (int i : cells) {
            c.write(i, e.getData().getPacketCount(), e.getData().getByteCount());
        }
    }

    private void registerEntry(RegisterEntry e) throws EntityException {
        Externs.Register r = register(e.getRegisterId());
        // a register<E> of a serializable enum takes E's value as enum_value (P4Data), or as a bitstring
        boolean asEnum = r.values != null && e.getData().getDataCase() == P4Data.DataCase.ENUM_VALUE;
        if (e.getData().getDataCase() != P4Data.DataCase.BITSTRING && !asEnum) {
            throw new EntityException(Code.INVALID_ARGUMENT, r.name + ": the data must be a bitstring"
                    + (r.values != null ? " or an enum_value" : ""));
        }
        BigInteger v = r.signed ? signedValue(e.getData().getBitstring(), r.width, r.name)
                : value(asEnum ? e.getData().getEnumValue() : e.getData().getBitstring(), r.width, r.name);
        for (int i : cells(e.hasIndex(), e.getIndex(), r.size, r.name)) {
            r.put(i, v);
        }
    }

    private static boolean withMetadata(TableEntry e) {
        return !e.getMetadata().isEmpty() || e.getControllerMetadata() != 0;
    }

    /** A default entry is named without match fields and with priority 0 (P4Runtime 9.1.5). */
    private static void keylessDefault(TableEntry key) throws EntityException {
        if (key.getMatchCount() > 0 || key.getPriority() != 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, "a default entry has no match fields and priority 0");
        }
    }

    /** The installed entry a request's key names (match and priority), or NOT_FOUND. */
    private Table.Entry existingEntry(TableEntry key) throws EntityException {
        Table t = table(key.getTableId());
        if (t.directCounter == null) {
            throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " has no direct counter");
        }
        return installedEntry(t, key);
    }

    private Table.Entry installedEntry(Table t, TableEntry key) throws EntityException {
        if (key.getIsDefaultAction()) {
            keylessDefault(key);
            return t.defaultEntry;   // its direct counter and meter (9.1.5)
        }
        Table.Entry found = lookup(t, match(t, key.getMatchList()), key.getPriority());
        if (found == null) {
            throw new EntityException(Code.NOT_FOUND, "no such entry in " + t.name);
        }
        return found;
    }

    /** The installed entry with this match and P4Runtime priority, or null. */
    private Table.Entry lookup(Table t, Table.FieldMatch[] match, int priority) {
        Table.Entry found = t.find(new Table.Entry(match, priority, null, 0));
        if (found == null && priority == 0 && programEntries.containsKey(t)) {
            Table.Entry e = programEntries.get(t).get(Arrays.asList(match));
            found = e != null && t.find(e) == e ? e : null;
        }
        return found;
    }

    // ---- reads ----

    /**
     * The entities a read request names. Unset IDs and indexes are wildcards, as the P4Runtime
     * specification defines them; a table entry with match fields names that one entry.
     */
    public synchronized List<Entity> read(Entity request) throws EntityException {
        List<Entity> out = new ArrayList<>();
        switch (request.getEntityCase()) {
            case TABLE_ENTRY: {
                TableEntry q = request.getTableEntry();
                if (q.getTableId() == 0 && filters(q)) {
                    throw new EntityException(Code.INVALID_ARGUMENT, "a read of every table (table_id 0) takes no other "
                            + "filter: match, action, priority, metadata, controller_metadata and is_default_action "
                            + "need a table_id (P4Runtime 9.1.10)");
                }
                List<Table> tables = q.getTableId() == 0 ? sw.program.tables : List.of(table(q.getTableId()));
                if (q.hasTimeSinceLastHit() && (q.getIsDefaultAction() || q.getTableId() != 0 && !tables.get(0).supportTimeout)) {
                    throw new EntityException(Code.INVALID_ARGUMENT, "time_since_last_hit is read from the entries of "
                            + "tables with idle timeouts only, never from a default entry (P4Runtime 9.1.8)");
                }
                for (Table t : tables) {
                    for (TableEntry e : tableEntries(t, q)) {
                        out.add(Entity.newBuilder().setTableEntry(e).build());
                    }
                }
                return out;
            }
            case COUNTER_ENTRY: {
                CounterEntry q = request.getCounterEntry();
                for (Externs.Counter c : q.getCounterId() == 0 ? sw.program.counters : List.of(counter(q.getCounterId()))) {
                    for (int i : cells(q.hasIndex(), q.getIndex(), c.size, c.name)) {
                        long[] counts = c.read(i);
                        out.add(Entity.newBuilder().setCounterEntry(CounterEntry.newBuilder().setCounterId(counterIds.get(c))
                                .setIndex(Index.newBuilder().setIndex(i))
                                .setData(CounterData.newBuilder().setPacketCount(counts[0]).setByteCount(counts[1]))).build());
                    }
                }
                return out;
            }
            case DIRECT_COUNTER_ENTRY: {
                TableEntry q = request.getDirectCounterEntry().getTableEntry();
                refuseEntryFilterOfEveryTable(q);
                for (Table t : q.getTableId() == 0 ? sw.program.tables : List.of(table(q.getTableId()))) {
                    if (t.directCounter == null) {
                        if (q.getTableId() != 0) {
                            throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " has no direct counter");
                        }
                        continue;
                    }
                    if (q.getMatchCount() > 0 || q.getIsDefaultAction()) {
                        installedEntry(t, q);   // NOT_FOUND when the named entry is not there
                    }
                    for (TableEntry e : tableEntries(t, q.toBuilder().setCounterData(CounterData.getDefaultInstance()).build())) {
                        out.add(Entity.newBuilder().setDirectCounterEntry(DirectCounterEntry.newBuilder()
                                .setTableEntry(e.toBuilder().clearCounterData().clearAction().clearMetadata().clearControllerMetadata()
                                        .clearIdleTimeoutNs().setUnknownFields(UnknownFieldSet.getDefaultInstance()))
                                .setData(e.getCounterData())).build());
                    }
                }
                return out;
            }
            case METER_ENTRY: {
                MeterEntry q = request.getMeterEntry();
                boolean withCounts = NewerFields.has(q, NewerFields.METER_ENTRY_COUNTER_DATA);
                for (Externs.Meter m : q.getMeterId() == 0 ? sw.program.meters : List.of(meter(q.getMeterId()))) {
                    for (int i : cells(q.hasIndex(), q.getIndex(), m.size, m.name)) {
                        MeterEntry.Builder b = MeterEntry.newBuilder().setMeterId(meterIds.get(m))
                                .setIndex(Index.newBuilder().setIndex(i));
                        TwoRateMarker.Config c = m.config(i);
                        if (c != null) {
                            b.setConfig(meterConfig(c));
                        }
                        if (withCounts) {
                            NewerFields.withBytes(b, NewerFields.METER_ENTRY_COUNTER_DATA,
                                    NewerFields.meterCounterData(m.colourCounts(i)));
                        }
                        out.add(Entity.newBuilder().setMeterEntry(b).build());
                    }
                }
                return out;
            }
            case DIRECT_METER_ENTRY: {
                boolean withCounts = NewerFields.has(request.getDirectMeterEntry(), NewerFields.DIRECT_METER_ENTRY_COUNTER_DATA);
                TableEntry q = request.getDirectMeterEntry().getTableEntry();
                refuseEntryFilterOfEveryTable(q);
                for (Table t : q.getTableId() == 0 ? sw.program.tables : List.of(table(q.getTableId()))) {
                    if (t.directMeter == null) {
                        if (q.getTableId() != 0) {
                            throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " has no direct meter");
                        }
                        continue;
                    }
                    if (q.getMatchCount() > 0 || q.getIsDefaultAction()) {
                        installedEntry(t, q);   // NOT_FOUND when the named entry is not there
                    }
                    for (Table.Entry e : q.getIsDefaultAction() ? List.of(t.defaultEntry) : matchingEntries(t, q)) {
                        DirectMeterEntry.Builder b = DirectMeterEntry.newBuilder().setTableEntry(e == t.defaultEntry
                                ? TableEntry.newBuilder().setTableId(tableIds.get(t.name)).setIsDefaultAction(true).build()
                                : entityKey(t, e));
                        TwoRateMarker m = e.meter;
                        if (m != null) {
                            b.setConfig(meterConfig(m.config));
                        }
                        if (withCounts) {
                            NewerFields.withBytes(b, NewerFields.DIRECT_METER_ENTRY_COUNTER_DATA, meterCounterData(e));
                        }
                        out.add(Entity.newBuilder().setDirectMeterEntry(b).build());
                    }
                }
                return out;
            }
            case REGISTER_ENTRY: {
                RegisterEntry q = request.getRegisterEntry();
                // those of the P4Info: a SimpleSumeSwitch program's registers are the card's, not P4Runtime's
                List<Externs.Register> which = q.getRegisterId() == 0 ? sw.program.registers.stream()
                        .filter(registerIds::containsKey).collect(java.util.stream.Collectors.toList())
                        : List.of(register(q.getRegisterId()));
                for (Externs.Register r : which) {
                    for (int i : cells(q.hasIndex(), q.getIndex(), r.size, r.name)) {
                        out.add(Entity.newBuilder().setRegisterEntry(RegisterEntry.newBuilder().setRegisterId(registerIds.get(r))
                                .setIndex(Index.newBuilder().setIndex(i))
                                .setData(r.values != null ? P4Data.newBuilder().setEnumValue(bytes(r.get(i)))
                                        : P4Data.newBuilder().setBitstring(r.signed ? signedBytes(r.get(i), r.width)
                                                : bytes(r.get(i))))).build());
                    }
                }
                return out;
            }
            case PACKET_REPLICATION_ENGINE_ENTRY:
                return replication.read(request.getPacketReplicationEngineEntry());
            case VALUE_SET_ENTRY:
                return valueSets.read(request.getValueSetEntry());
            case ACTION_PROFILE_MEMBER:
                return profiles.readMembers(request.getActionProfileMember());
            case ACTION_PROFILE_GROUP:
                return profiles.readGroups(request.getActionProfileGroup());
            case DIGEST_ENTRY:
                return digests.read(request.getDigestEntry());
            case ENTITY_NOT_SET:
                throw new EntityException(Code.INVALID_ARGUMENT, "a read names no entity kind (P4Runtime 11.2: "
                        + "an empty Entity is not a wildcard)");
            default: {
                // Kinds no program of this target has: a wildcard finds none, an ID names nothing.
                int id = absentKindId(request);
                if (id != 0) {
                    throw new EntityException(Code.NOT_FOUND, absentKind(request, id));
                }
                return out;
            }
        }
    }

    /** A direct resource read of every table (table_id 0) names no entry: a match or the default entry needs a table. */
    private static void refuseEntryFilterOfEveryTable(TableEntry q) throws EntityException {
        if (q.getTableId() == 0 && (q.getMatchCount() > 0 || q.getIsDefaultAction() || q.getPriority() != 0)) {
            throw new EntityException(Code.INVALID_ARGUMENT, "a read of every table's direct resources (table_id 0) "
                    + "names no entry: a match, priority or is_default_action needs a table_id");
        }
    }

    private Table table(int id) throws EntityException {
        Table t = tablesById.get(id);
        if (t == null) {
            throw new EntityException(Code.NOT_FOUND, "no table with ID " + Integer.toUnsignedString(id));
        }
        return t;
    }

    /**
     * Whether a write's per-colour meter counts (1.4 MeterCounterData) reset them: they may be
     * written as zeros only (9.1.9), anything else is INVALID_ARGUMENT.
     */
    private static boolean resetsMeterCounts(com.google.protobuf.Message entry, int field, String name) throws EntityException {
        if (!NewerFields.has(entry, field)) {
            return false;
        }
        if (!NewerFields.meterCountsAreZeros(entry, field)) {
            throw new EntityException(Code.INVALID_ARGUMENT, name + ": per-colour meter counts are written as zeros only "
                    + "(a reset, P4Runtime 9.1.9)");
        }
        return true;
    }

    /** An entry's per-colour counts of its direct meter, as a MeterCounterData. */
    private static ByteString meterCounterData(Table.Entry e) {
        long[] counts = e.colourCounts;
        return NewerFields.meterCounterData(counts == null ? new long[TwoRateMarker.COUNTS_PER_CELL] : counts);
    }

    /** A table entry write, checked as P4Runtime 9.1 says before anything changes. */
    private void tableEntry(Update.Type type, TableEntry e) throws EntityException {
        Table t = table(e.getTableId());
        if (type != Update.Type.INSERT && type != Update.Type.MODIFY && type != Update.Type.DELETE) {
            throw new EntityException(Code.INVALID_ARGUMENT, "update type " + (type == Update.Type.UNRECOGNIZED
                    ? "unknown to P4Runtime" : type.name()) + ": a table entry is written by INSERT, MODIFY or DELETE");
        }
        if (NewerFields.varint(e, NewerFields.TABLE_ENTRY_IS_CONST) != 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, "is_const must be false in a write (the server sets it in reads)");
        }
        // A DELETE considers the key alone (9.1): an entry read back with its hit time or counters deletes as it is.
        if (type != Update.Type.DELETE && e.hasTimeSinceLastHit()) {
            throw new EntityException(Code.INVALID_ARGUMENT, "time_since_last_hit must be unset in a write (it is read only)");
        }
        if (type != Update.Type.DELETE && NewerFields.has(e, NewerFields.TABLE_ENTRY_METER_COUNTER_DATA) && t.directMeter == null) {
            throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " has no direct meter (meter_counter_data)");
        }
        boolean resetMeterCounts = type != Update.Type.DELETE
                && resetsMeterCounts(e, NewerFields.TABLE_ENTRY_METER_COUNTER_DATA, "table " + t.name);
        if (e.getIsDefaultAction()) {
            defaultEntry(type, t, e, resetMeterCounts);
            return;
        }
        if (t.keys.isEmpty() && type == Update.Type.INSERT) {
            throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " has no match key: its only entry is "
                    + "the default entry (MODIFY it with is_default_action)");
        }
        boolean needsPriority = t.needsPriority();
        if (needsPriority && e.getPriority() <= 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " needs a priority above 0 (it has ternary, range or optional fields)");
        }
        if (!needsPriority && e.getPriority() != 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " takes no priority (its fields are exact or lpm)");
        }
        Table.FieldMatch[] match = match(t, e.getMatchList());
        Table.Entry existing = lookup(t, match, e.getPriority());
        // an existing const entry (an INSERT of it is ALREADY_EXISTS, below), or any entry of a const table
        boolean constant = existing != null && type != Update.Type.INSERT ? t.isConst(existing) : t.constEntries;
        if (constant && (type != Update.Type.MODIFY || e.hasAction() || withMetadata(e))) {
            throw new EntityException(Code.PERMISSION_DENIED, (t.constEntries ? "table " + t.name + " has const entries"
                    : "this entry of " + t.name + " is const in the program") + ": only the direct counters and meters of "
                    + "const entries may be modified (a MODIFY without an action or metadata)");
        }
        if (type == Update.Type.DELETE) {
            // Only the key counts for a DELETE: the other fields are ignored, whatever they hold.
            if (existing == null) {
                throw new EntityException(Code.NOT_FOUND, "no such entry in " + t.name);
            }
            t.remove(existing);
            controllerMetadata.remove(existing);
            TableAction was = indirectActions.remove(existing);
            if (was != null) {
                profiles.retain(t, was, -1);
            }
            return;
        }
        if (e.getIdleTimeoutNs() < 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, "idle_timeout_ns " + e.getIdleTimeoutNs() + " is negative");
        }
        if (e.getIdleTimeoutNs() != 0 && (!t.supportTimeout || constant)) {
            throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " does not support idle timeouts"
                    + (t.supportTimeout ? " on its const entries" : ""));
        }
        if (type == Update.Type.INSERT && !e.hasAction()) {
            throw new EntityException(Code.INVALID_ARGUMENT, "the entry for " + t.name + " has no action (an INSERT needs one)");
        }
        Table.ActionCall call = null;
        ActionProfile.Target target = null;
        if (e.hasAction() && t.profile() != null) {
            target = profiles.target(t, e.getAction());
        } else if (e.hasAction()) {
            call = actionCall(t, e.getAction(), false);
        }
        // Direct resources (9.1.9): an unset meter_config means the default (every packet GREEN),
        // an unset counter_data leaves the counter as it is (zero for a new entry).
        TwoRateMarker meter = directResources(t, e, call != null ? call : existing != null && existing.indirect == null
                ? existing.action : null);
        byte[] metadata = e.getMetadata().isEmpty() ? Table.NO_METADATA : e.getMetadata().toByteArray();
        if (type == Update.Type.INSERT) {
            if (existing != null) {
                throw new EntityException(Code.ALREADY_EXISTS, "the entry already exists in " + t.name);
            }
            if (t.entryCount() >= t.size) {
                throw new EntityException(Code.RESOURCE_EXHAUSTED, "table " + t.name + " is full (" + t.size + " entries)");
            }
            Table.Entry entry = new Table.Entry(match, e.getPriority(), call, e.getIdleTimeoutNs());
            entry.indirect = target;
            entry.meter = meter;
            entry.metadata = metadata;
            entry.packets = e.getCounterData().getPacketCount();
            entry.bytes = e.getCounterData().getByteCount();
            t.insert(entry);
            setControllerMetadata(entry, e.getControllerMetadata());
            if (target != null) {
                indirectActions.put(entry, canonical(e.getAction()));
                profiles.retain(t, e.getAction(), 1);
            }
            return;
        }
        if (existing == null) {
            throw new EntityException(Code.NOT_FOUND, "no such entry in " + t.name);
        }
        if (call != null) {
            t.modify(existing, call);
        }
        if (target != null) {
            profiles.retain(t, e.getAction(), 1);
            profiles.retain(t, indirectActions.put(existing, canonical(e.getAction())), -1);
            existing.indirect = target;
        }
        // With an action the update is the entry's new snapshot (an unset meter_config is the
        // default meter); without one it changes only the direct resources it names, and is a
        // no-op if it names none (9.1.2: the action specification and the rest stay).
        if (t.directMeter != null && (e.hasAction() || e.hasMeterConfig())) {
            existing.meter = meter;
        }
        if (resetMeterCounts) {
            existing.colourCounts = null;
        }
        if (e.hasCounterData()) {
            t.setCounts(existing, e.getCounterData().getPacketCount(), e.getCounterData().getByteCount());
        }
        if (e.hasAction() && !t.isConst(existing)) {
            existing.metadata = metadata;
            setControllerMetadata(existing, e.getControllerMetadata());
            t.setIdleTimeout(existing, e.getIdleTimeoutNs());
        }
    }

    private void setControllerMetadata(Table.Entry e, long value) {
        if (value == 0) {
            controllerMetadata.remove(e);
        } else {
            controllerMetadata.put(e, value);
        }
    }

    /**
     * The default entry (9.1.5): MODIFY only, no match, priority or idle timeout; without an
     * action it goes back to the program's default action, its metadata and meter configuration
     * to none. Its direct counter and meter are set like a regular entry's; where its action is
     * const (or the table indirect), a MODIFY may set them alone (no action), as for const entries.
     */
    private void defaultEntry(Update.Type type, Table t, TableEntry e, boolean resetMeterCounts) throws EntityException {
        if (type != Update.Type.MODIFY) {
            throw new EntityException(Code.INVALID_ARGUMENT, "the default entry of " + t.name + " can only be modified");
        }
        keylessDefault(e);
        if (e.getIdleTimeoutNs() != 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, "a default entry has no idle timeout (idle_timeout_ns must be 0)");
        }
        boolean resourcesOnly = !e.hasAction() && !withMetadata(e) && (e.hasMeterConfig() || e.hasCounterData() || resetMeterCounts);
        if (t.constDefaultAction && !resourcesOnly) {
            throw new EntityException(Code.PERMISSION_DENIED, "the default action of " + t.name + " is const "
                    + "(only its direct counter and meter may be modified, without an action)");
        }
        if (t.profile() != null && !resourcesOnly) {
            // P4Runtime 9.1.5: an indirect table's default entry is a constant NoAction.
            throw new EntityException(Code.PERMISSION_DENIED, "cannot set or reset the default action of " + t.name
                    + ", an indirect table (implementation " + t.profile().name + ")");
        }
        Table.ActionCall call = resourcesOnly ? t.defaultAction() : e.hasAction() ? actionCall(t, e.getAction(), true)
                : t.initialDefaultAction();
        TwoRateMarker meter = directResources(t, e, t.profile() != null ? null : call);
        if (!resourcesOnly || !t.defaultActionIsConst()) {
            t.setDefaultAction(call);
            // Its metadata reads back as written; a reset (no action) resets them too.
            if (e.hasAction() && (!e.getMetadata().isEmpty() || e.getControllerMetadata() != 0)) {
                defaultEntryMetadata.put(t, TableEntry.newBuilder().setMetadata(e.getMetadata())
                        .setControllerMetadata(e.getControllerMetadata()).build());
            } else {
                defaultEntryMetadata.remove(t);
            }
        }
        t.defaultEntry.meter = meter;
        if (resetMeterCounts) {
            t.defaultEntry.colourCounts = null;
        }
        if (e.hasCounterData()) {
            t.setCounts(t.defaultEntry, e.getCounterData().getPacketCount(), e.getCounterData().getByteCount());
        }
    }

    /**
     * The direct resources a table entry write carries, checked (9.1.9): the meter it configures
     * (null when meter_config is unset: every packet GREEN); counter_data is checked only. A meter
     * configuration for an entry whose action ({@code runs}; null for a member or group of an
     * action profile) never reads the meter is an error.
     */
    private TwoRateMarker directResources(Table t, TableEntry e, Table.ActionCall runs) throws EntityException {
        if (e.hasMeterConfig() && t.directMeter == null) {
            throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " has no direct meter (meter_config)");
        }
        if (e.hasMeterConfig() && runs != null && !runs.action.directMetersRead.contains(t.directMeter)) {
            throw new EntityException(Code.INVALID_ARGUMENT, "action " + runs.action.name + " does not read the direct meter "
                    + t.directMeter + ", so a meter_config for it is an error (P4Runtime 9.1.9)");
        }
        if (e.hasCounterData() && t.directCounter == null) {
            throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " has no direct counter (counter_data)");
        }
        requireCounts(e.getCounterData(), t.name);
        return e.hasMeterConfig()
                ? new TwoRateMarker(meterConfig(true, e.getMeterConfig(), t.directMeter), System.nanoTime()) : null;
    }

    private Table.FieldMatch[] match(Table t, List<FieldMatch> fields) throws EntityException {
        Table.FieldMatch[] out = new Table.FieldMatch[t.keys.size()];
        for (FieldMatch f : fields) {
            int i = t.keyIndex(f.getFieldId());
            if (i < 0) {
                throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " has no match field with ID " + Integer.toUnsignedString(f.getFieldId()));
            }
            if (out[i] != null) {
                throw new EntityException(Code.INVALID_ARGUMENT, "match field " + f.getFieldId() + " appears twice");
            }
            Table.KeyField k = t.keys.get(i);
            // Built only for an error message: this runs for every field of every entry written.
            Supplier<String> where = () -> t.name + " field '" + k.name + "'";
            switch (f.getFieldMatchTypeCase()) {
                case EXACT:
                    expectKind(k, Table.MatchKind.EXACT, "exact", where);
                    out[i] = Table.FieldMatch.exact(value(f.getExact().getValue(), k.width, where), k.width);
                    break;
                case LPM: {
                    expectKind(k, Table.MatchKind.LPM, "lpm", where);
                    int len = f.getLpm().getPrefixLen();
                    if (len <= 0 || len > k.width) {
                        throw new EntityException(Code.INVALID_ARGUMENT, where.get() + ": prefix length " + len
                                + " must be 1.." + k.width + " (omit the field for a wildcard)");
                    }
                    BigInteger v = value(f.getLpm().getValue(), k.width, where);
                    Table.FieldMatch m = Table.FieldMatch.lpm(v, len, k.width);
                    if (!m.value.equals(v)) {
                        throw new EntityException(Code.INVALID_ARGUMENT, where.get() + ": bits beyond the prefix length must be 0");
                    }
                    out[i] = m;
                    break;
                }
                case TERNARY: {
                    expectKind(k, Table.MatchKind.TERNARY, "ternary", where);
                    BigInteger[] vm = ternary(f.getTernary(), k.width, where);
                    out[i] = Table.FieldMatch.ternary(vm[0], vm[1]);
                    break;
                }
                case RANGE: {
                    expectKind(k, Table.MatchKind.RANGE, "range", where);
                    BigInteger lo = value(f.getRange().getLow(), k.width, where);
                    BigInteger hi = value(f.getRange().getHigh(), k.width, where);
                    if (lo.compareTo(hi) > 0) {
                        throw new EntityException(Code.INVALID_ARGUMENT, where.get() + ": low is above high");
                    }
                    if (lo.signum() == 0 && hi.equals(Bits.wideMask(k.width))) {
                        throw new EntityException(Code.INVALID_ARGUMENT, where.get()
                                + ": a range of every value is a don't care match and must be omitted");
                    }
                    out[i] = Table.FieldMatch.range(lo, hi);
                    break;
                }
                case OPTIONAL:
                    expectKind(k, Table.MatchKind.OPTIONAL, "optional", where);
                    out[i] = Table.FieldMatch.exact(value(f.getOptional().getValue(), k.width, where), k.width);
                    break;
                default:
                    throw new EntityException(Code.INVALID_ARGUMENT, where.get() + ": no match value given");
            }
        }
        for (int i = 0; i < out.length; i++) {
            if (out[i] == null) {
                Table.KeyField k = t.keys.get(i);
                if (k.kind == Table.MatchKind.EXACT) {
                    throw new EntityException(Code.INVALID_ARGUMENT, t.name + ": exact field '" + k.name + "' (ID " + k.id + ") is missing");
                }
                out[i] = k.kind == Table.MatchKind.RANGE ? Table.FieldMatch.range(BigInteger.ZERO, Bits.wideMask(k.width))
                        : Table.FieldMatch.wildcard();
            }
        }
        return out;
    }

    /** A ternary match's value and mask, checked as 9.1.1 says (a table's or a value set's). */
    static BigInteger[] ternary(FieldMatch.Ternary t, int width, Supplier<String> where) throws EntityException {
        BigInteger v = value(t.getValue(), width, where);
        BigInteger m = value(t.getMask(), width, where);
        if (t.getValue().size() > t.getMask().size()) {
            throw new EntityException(Code.INVALID_ARGUMENT, where.get() + ": the value has more bytes than the mask");
        }
        if (m.signum() == 0) {
            throw new EntityException(Code.INVALID_ARGUMENT, where.get() + ": a zero mask is a don't care match and must be omitted");
        }
        if (!v.and(m).equals(v)) {
            throw new EntityException(Code.INVALID_ARGUMENT, where.get() + ": value bits outside the mask must be 0");
        }
        return new BigInteger[] {v, m};
    }

    private static void expectKind(Table.KeyField k, Table.MatchKind kind, String name, Supplier<String> where) throws EntityException {
        if (k.kind != kind) {
            throw new EntityException(Code.INVALID_ARGUMENT, where.get() + " is " + k.kind.name().toLowerCase() + ", not " + name);
        }
    }

    /** A P4Runtime bytestring as a number, checked against the bit width. */
    static BigInteger value(ByteString bytes, int width, String where) throws EntityException {
        return value(bytes, width, () -> where);
    }

    static BigInteger value(ByteString bytes, int width, Supplier<String> where) throws EntityException {
        if (bytes.isEmpty()) {   // 8.4: an empty string is rejected as out of range, as a too wide one is
            throw new EntityException(Code.OUT_OF_RANGE, where.get() + ": empty value");
        }
        BigInteger v = Bits.unsigned(bytes.toByteArray());
        if (v.bitLength() > width) {
            // A long value is not echoed: 20 000 bytes of hex would outgrow the trailer that carries the
            // error (clients take 8-16 KB), and the client would get no status at all.
            String shown = bytes.size() <= 16 ? "value 0x" + v.toString(16) : "a value of " + bytes.size() + " bytes";
            throw new EntityException(Code.OUT_OF_RANGE, where.get() + ": " + shown + " does not fit in " + width + " bits");
        }
        return v;
    }

    /**
     * An int<W> as P4Runtime sends it (8.4): two's complement, sign-extended to whole bytes or
     * beyond; in range when what is left once the copies of the sign bit are undone fits W bits.
     * Returned as the W-bit pattern the cell holds.
     */
    static BigInteger signedValue(ByteString bytes, int width, String where) throws EntityException {
        if (bytes.isEmpty()) {
            throw new EntityException(Code.OUT_OF_RANGE, where + ": empty value");
        }
        BigInteger v = new BigInteger(bytes.toByteArray());
        if (v.bitLength() >= width) {   // bitLength leaves the sign bit out
            String shown = bytes.size() <= 16 ? "value " + v : "a value of " + bytes.size() + " bytes";
            throw new EntityException(Code.OUT_OF_RANGE, where + ": " + shown + " does not fit in int<" + width + ">");
        }
        return v.and(Bits.wideMask(width));
    }

    /** A W-bit cell holding an int<W>, as the shortest two's complement string of its value (8.4). */
    static ByteString signedBytes(BigInteger cell, int width) {
        BigInteger v = cell.testBit(width - 1) ? cell.subtract(BigInteger.ONE.shiftLeft(width)) : cell;
        return ByteString.copyFrom(v.toByteArray());
    }

    /** A direct action: of a direct table's entry, or of its default entry. */
    private Table.ActionCall actionCall(Table t, TableAction ta, boolean asDefault) throws EntityException {
        if (!ta.hasAction()) {
            throw new EntityException(Code.INVALID_ARGUMENT, "table " + t.name + " is a direct table: its entries take an "
                    + "action (not an action profile member, group or action set)");
        }
        return actionCall(t, ta.getAction(), asDefault);
    }

    /** An action checked against a table's actions and their scopes (an entry's, a default entry's or a member's). */
    private Table.ActionCall actionCall(Table t, p4.v1.P4RuntimeOuterClass.Action a, boolean asDefault) throws EntityException {
        Action action = actionsById.get(a.getActionId());
        if (action == null) {
            throw new EntityException(Code.INVALID_ARGUMENT, "no action with ID " + Integer.toUnsignedString(a.getActionId()));
        }
        Table.ActionRef ref = null;
        for (Table.ActionRef r : t.actions) {
            if (r.action == action) {
                ref = r;
            }
        }
        if (ref == null) {
            throw new EntityException(Code.INVALID_ARGUMENT, "action " + action.name + " is not an action of " + t.name);
        }
        // 9.1.4: an action used outside its scope (TABLE_ONLY, DEFAULT_ONLY) is PERMISSION_DENIED.
        if (asDefault && ref.tableOnly) {
            throw new EntityException(Code.PERMISSION_DENIED, "action " + action.name + " is @tableonly in " + t.name
                    + ": it cannot be the default action");
        }
        if (!asDefault && ref.defaultOnly) {
            throw new EntityException(Code.PERMISSION_DENIED, "action " + action.name + " is @defaultonly in " + t.name
                    + ": only the default entry may use it");
        }
        BigInteger[] args = new BigInteger[action.params.size()];
        if (action.idleSlot() != null) {
            args[args.length - 1] = BigInteger.ZERO;   // softswitch ages the entry itself; the SUME agent fills a real slot
        }
        for (var p : a.getParamsList()) {
            int i = p.getParamId() - 1;
            if (i < 0 || i >= action.controlParamCount()) {
                throw new EntityException(Code.INVALID_ARGUMENT, action.name + " has no parameter with ID " + Integer.toUnsignedString(p.getParamId()));
            }
            Action.Param prm = action.params.get(i);
            if (args[i] != null) {
                throw new EntityException(Code.INVALID_ARGUMENT, action.name + ": parameter '" + prm.name + "' (ID "
                        + p.getParamId() + ") is given twice");
            }
            args[i] = value(p.getValue(), prm.width, () -> action.name + " parameter '" + prm.name + "'");
        }
        for (int i = 0; i < args.length; i++) {
            if (args[i] == null) {
                throw new EntityException(Code.INVALID_ARGUMENT, action.name + ": parameter '" + action.params.get(i).name + "' is missing");
            }
        }
        return new Table.ActionCall(action, args);
    }

    /** The switch's entries of a table as P4Runtime entities (every entry of {@code t}). */
    public List<TableEntry> read(Table t) {
        try {
            return tableEntries(t, TableEntry.getDefaultInstance());
        } catch (EntityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The entries of a table that a query names: all, the one with the query's match and priority,
     * or the default entry; with counter data and time since the last hit when the query asks.
     */
    private List<TableEntry> tableEntries(Table t, TableEntry q) throws EntityException {
        List<TableEntry> out = new ArrayList<>();
        int tid = tableIds.get(t.name);
        boolean withCounters = q.hasCounterData() && t.directCounter != null;
        boolean withMeterCounts = NewerFields.has(q, NewerFields.TABLE_ENTRY_METER_COUNTER_DATA) && t.directMeter != null;
        long now = System.nanoTime();
        if (q.getIsDefaultAction()) {
            keylessDefault(q);
            TableEntry.Builder b = TableEntry.newBuilder().setTableId(tid).setIsDefaultAction(true);
            b.getActionBuilder().setAction(action(t.defaultAction()));
            b.mergeFrom(defaultEntryMetadata.getOrDefault(t, TableEntry.getDefaultInstance()));
            if (t.defaultActionIsConst()) {
                NewerFields.withVarint(b, NewerFields.TABLE_ENTRY_IS_CONST, 1);   // 1.4: it cannot be modified
            }
            if (withCounters) {
                long[] counts = t.counts(t.defaultEntry);
                b.setCounterData(CounterData.newBuilder().setPacketCount(counts[0]).setByteCount(counts[1]));
            }
            TwoRateMarker meter = t.defaultEntry.meter;
            if (q.hasMeterConfig() && meter != null) {
                b.setMeterConfig(meterConfig(meter.config));
            }
            if (withMeterCounts) {
                NewerFields.withBytes(b, NewerFields.TABLE_ENTRY_METER_COUNTER_DATA, meterCounterData(t.defaultEntry));
            }
            out.add(b.build());
            return out;
        }
        // The action filter compares as entries keep their actions: canonical, worked out once.
        TableEntry filter = q.hasAction() ? q.toBuilder().setAction(canonical(q.getAction())).build() : q;
        for (Table.Entry e : matchingEntries(t, q)) {
            if (!passesFilters(e, filter)) {
                continue;
            }
            TableEntry te = tableEntry(t, tid, e, withCounters, q.hasTimeSinceLastHit() && t.supportTimeout, now);
            TwoRateMarker meter = e.meter;
            if (q.hasMeterConfig() && meter != null) {
                te = te.toBuilder().setMeterConfig(meterConfig(meter.config)).build();
            }
            if (withMeterCounts) {
                te = NewerFields.withBytes(te.toBuilder(), NewerFields.TABLE_ENTRY_METER_COUNTER_DATA, meterCounterData(e)).build();
            }
            out.add(te);
        }
        return out;
    }

    /** Every entry of the table, or those with the query's match when it has one (and its priority, unless 0 where entries have priorities). */
    private List<Table.Entry> matchingEntries(Table t, TableEntry q) throws EntityException {
        if (q.getMatchCount() > 0) {
            Table.FieldMatch[] match = match(t, q.getMatchList());
            if (q.getPriority() == 0 && t.needsPriority()) {
                // 9.1.6: a priority of 0 filters by nothing: the entries of this match, whatever their priority
                List<Table.Entry> out = new ArrayList<>();
                for (Table.Entry e : t.entries()) {
                    if (Arrays.equals(e.match(), match)) {
                        out.add(e);
                    }
                }
                return out;
            }
            Table.Entry found = lookup(t, match, q.getPriority());
            return found == null ? List.of() : List.of(found);
        }
        List<Table.Entry> out = new ArrayList<>();
        for (Table.Entry e : t.entries()) {
            if (q.getPriority() == 0 || priority(t, e) == q.getPriority()) {
                out.add(e);
            }
        }
        return out;
    }

    /** Whether a table entry read filters by anything but its table. */
    private static boolean filters(TableEntry q) {
        return q.getMatchCount() > 0 || q.hasAction() || q.getPriority() != 0 || !q.getMetadata().isEmpty()
                || q.getControllerMetadata() != 0 || q.getIsDefaultAction();
    }

    /** Whether an entry passes a wildcard read's other filters (9.1.10): action, metadata, controller_metadata. */
    private boolean passesFilters(Table.Entry e, TableEntry q) {
        return actionMatches(e, q.getAction())
                && (q.getMetadata().isEmpty() || Arrays.equals(q.getMetadata().toByteArray(), e.metadata))
                && (q.getControllerMetadata() == 0 || q.getControllerMetadata() == controllerMetadata.getOrDefault(e, 0L));
    }

    private boolean actionMatches(Table.Entry e, TableAction q) {
        if (e.indirect != null) {
            return q.getTypeCase() == TableAction.TypeCase.TYPE_NOT_SET || q.equals(indirectActions.get(e));
        }
        return !q.hasAction() || actionsById.get(q.getAction().getActionId()) == e.action.action;
    }

    /** An entry's P4Runtime priority: 0 in tables without ternary, range or optional fields (the program numbers its own entries). */
    private static int priority(Table t, Table.Entry e) {
        return t.needsPriority() ? e.priority : 0;
    }

    /** The entry's table, match and priority: how a direct resource names its entry. */
    private TableEntry entityKey(Table t, Table.Entry e) {
        return tableEntry(t, tableIds.get(t.name), e, false, false, 0).toBuilder().clearAction().clearMetadata()
                .clearControllerMetadata().clearIdleTimeoutNs().setUnknownFields(UnknownFieldSet.getDefaultInstance()).build();
    }

    private TableEntry tableEntry(Table t, int tid, Table.Entry e, boolean withCounters, boolean withHitTime, long now) {
        TableEntry.Builder b = TableEntry.newBuilder().setTableId(tid).setPriority(priority(t, e))
                .setIdleTimeoutNs(e.idleTimeoutNs).setMetadata(ByteString.copyFrom(e.metadata))
                .setControllerMetadata(controllerMetadata.getOrDefault(e, 0L));
        if (t.isConst(e)) {
            NewerFields.withVarint(b, NewerFields.TABLE_ENTRY_IS_CONST, 1);
        }
        Table.FieldMatch[] match = e.match();
        for (int i = 0; i < t.keys.size(); i++) {
            Table.KeyField k = t.keys.get(i);
            Table.FieldMatch m = match[i];
            FieldMatch.Builder f = FieldMatch.newBuilder().setFieldId(k.id);
            switch (k.kind) {
                case EXACT: f.getExactBuilder().setValue(bytes(m.value)); break;
                case LPM:
                    if (m.prefixLength == 0) {
                        continue;
                    }
                    f.getLpmBuilder().setValue(bytes(m.value)).setPrefixLen(m.prefixLength);
                    break;
                case TERNARY:
                    if (m.isWildcard()) {
                        continue;
                    }
                    f.getTernaryBuilder().setValue(bytes(m.value)).setMask(bytes(m.mask));
                    break;
                case RANGE:
                    if (m.value.signum() == 0 && m.high.equals(Bits.wideMask(k.width))) {
                        continue;
                    }
                    f.getRangeBuilder().setLow(bytes(m.value)).setHigh(bytes(m.high));
                    break;
                default:
                    if (m.isWildcard()) {
                        continue;
                    }
                    f.getOptionalBuilder().setValue(bytes(m.value));
            }
            b.addMatch(f);
        }
        if (e.indirect != null) {
            b.setAction(indirectActions.get(e));
        } else {
            b.getActionBuilder().setAction(action(e.action));
        }
        if (withCounters) {
            long[] counts = t.counts(e);
            b.setCounterData(CounterData.newBuilder().setPacketCount(counts[0]).setByteCount(counts[1]));
        }
        if (withHitTime) {
            b.getTimeSinceLastHitBuilder().setElapsedNs(now - t.lastHit(e));
        }
        return b.build();
    }

    private p4.v1.P4RuntimeOuterClass.Action action(Table.ActionCall call) {
        var act = p4.v1.P4RuntimeOuterClass.Action.newBuilder().setActionId(actionIds.get(call.action.name));
        for (int i = 0; i < call.action.controlParamCount(); i++) {
            act.addParamsBuilder().setParamId(i + 1).setValue(bytes(call.arg(i)));
        }
        return act.build();
    }

    /** The program's digests on their way to the controller. */
    public Digests digests() {
        return digests;
    }

    /** The P4Runtime table ID of a table. */
    public int tableId(Table t) {
        return tableIds.get(t.name);
    }

    /** An installed entry as a P4Runtime entity (for idle-timeout notifications). */
    public TableEntry describe(Table t, Table.Entry e) {
        return tableEntry(t, tableIds.get(t.name), e, false, false, 0);
    }

    /** An action as it reads back: its parameters' values canonical (P4Runtime 8.4, read-write symmetry). */
    static p4.v1.P4RuntimeOuterClass.Action canonical(p4.v1.P4RuntimeOuterClass.Action a) {
        var b = a.toBuilder();
        for (var param : b.getParamsBuilderList()) {
            param.setValue(bytes(new BigInteger(1, param.getValue().toByteArray())));
        }
        return b.build();
    }

    /** An indirect table entry's action as it reads back: a one-shot set's actions and watch ports canonical. */
    private static TableAction canonical(TableAction a) {
        if (!a.hasActionProfileActionSet()) {
            return a;
        }
        var b = a.toBuilder();
        for (var member : b.getActionProfileActionSetBuilder().getActionProfileActionsBuilderList()) {
            member.setAction(canonical(member.getAction()));
            NewerFields.withCanonicalBytes(member, NewerFields.WATCH_PORT);
        }
        return b.build();
    }

    /** Canonical P4Runtime bytestring: big-endian, no leading zero bytes (at least one byte). */
    public static ByteString bytes(BigInteger v) {
        byte[] b = v.toByteArray();
        int skip = 0;
        while (skip < b.length - 1 && b[skip] == 0) {
            skip++;
        }
        return ByteString.copyFrom(b, skip, b.length - skip);
    }
}
