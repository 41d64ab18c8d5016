package org.nat64fabric.controller;

import com.google.protobuf.ByteString;
import com.google.protobuf.TextFormat;
import com.google.protobuf.UnsafeByteOperations;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import p4.config.v1.P4InfoOuterClass.Action;
import p4.config.v1.P4InfoOuterClass.MatchField;
import p4.config.v1.P4InfoOuterClass.Meter;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.config.v1.P4InfoOuterClass.Table;
import p4.v1.P4RuntimeOuterClass;
import p4.v1.P4RuntimeOuterClass.CloneSessionEntry;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.Index;
import p4.v1.P4RuntimeOuterClass.MeterEntry;
import p4.v1.P4RuntimeOuterClass.PacketReplicationEngineEntry;
import p4.v1.P4RuntimeOuterClass.Replica;
import org.nat64fabric.core.fabric.CloneSession;
import org.nat64fabric.core.fabric.Entity;
import org.nat64fabric.core.fabric.MeterConfig;
import org.nat64fabric.core.fabric.TableEntry;

/**
 * Core's named entities to P4Runtime's numbered ones and back, through the pipeline's P4Info:
 * table entries, clone sessions, and meter configurations (one core entity, one P4Runtime
 * MeterEntry per cell). Values are canonical bytestrings (P4Runtime 1.3 section 8.4: big-endian,
 * no leading zero bytes).
 */
final class EntryCodec {
    private static final long NANOS = 1_000_000_000L;

    private final P4Info p4info;
    private final Map<String, Table> tables = new HashMap<>();
    private final Map<Integer, Table> tablesById = new HashMap<>();
    /** Per table name, its match fields by name: every setup's entries look theirs up. */
    private final Map<String, Map<String, MatchField>> matchFields = new HashMap<>();
    private final Map<String, Action> actions = new HashMap<>();
    private final Map<Integer, Action> actionsById = new HashMap<>();
    private final Map<String, Meter> meters = new HashMap<>();
    private final Map<Integer, Meter> metersById = new HashMap<>();

    EntryCodec(P4Info p4info) {
        this.p4info = p4info;
        for (Table t : p4info.getTablesList()) {
            tables.put(t.getPreamble().getName(), t);
            tablesById.put(t.getPreamble().getId(), t);
            Map<String, MatchField> fields = new HashMap<>();
            t.getMatchFieldsList().forEach(f -> fields.put(f.getName(), f));
            matchFields.put(t.getPreamble().getName(), fields);
        }
        for (Action a : p4info.getActionsList()) {
            actions.put(a.getPreamble().getName(), a);
            actionsById.put(a.getPreamble().getId(), a);
        }
        for (Meter m : p4info.getMetersList()) {
            meters.put(m.getPreamble().getName(), m);
            metersById.put(m.getPreamble().getId(), m);
        }
    }

    /** The size the P4Info gives a table, or Long.MAX_VALUE when the pipeline has no table of that name or no size. */
    long tableSize(String name) {
        Table t = tables.get(name);
        return t == null || t.getSize() <= 0 ? Long.MAX_VALUE : t.getSize();
    }

    static EntryCodec load(Path p4infoText) throws IOException {
        P4Info.Builder b = P4Info.newBuilder();
        TextFormat.merge(withoutInformativeP4Runtime14Fields(new String(Files.readAllBytes(p4infoText), StandardCharsets.UTF_8)), b);
        return new EntryCodec(b.build());
    }

    /**
     * The P4Info classes here are P4Runtime 1.3's, whose strict text parser refuses the fields 1.4
     * added. Those that only inform (has_initial_entries, initial_default_action, sum_of_weights:
     * softswitch and p4c write them) are taken out; any other unknown field is still refused.
     */
    static String withoutInformativeP4Runtime14Fields(String text) {
        StringBuilder out = new StringBuilder();
        Matcher m = INFORMATIVE_P4RUNTIME_14_FIELD.matcher(text);
        int from = 0;
        while (m.find(from)) {
            out.append(text, from, m.start());
            int i = m.end();
            if (text.charAt(i - 1) == '{') {   // a message: up to its closing brace, past any in quoted bytes
                int depth = 1;
                for (boolean quoted = false; depth > 0 && i < text.length(); i++) {
                    char c = text.charAt(i);
                    if (c == '\\' && quoted) {
                        i++;
                    } else if (c == '"') {
                        quoted = !quoted;
                    } else if (!quoted) {
                        depth += c == '{' ? 1 : c == '}' ? -1 : 0;
                    }
                }
            } else {   // a scalar: up to the next white space
                while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
                    i++;
                }
                while (i < text.length() && !Character.isWhitespace(text.charAt(i)) && text.charAt(i) != '}') {
                    i++;
                }
            }
            from = i;
        }
        return out.append(text.substring(from)).toString();
    }

    private static final Pattern INFORMATIVE_P4RUNTIME_14_FIELD =
            Pattern.compile("\\b(?:has_initial_entries\\s*:|(?:initial_default_action|sum_of_weights)\\s*:?\\s*\\{)");

    P4Info p4info() {
        return p4info;
    }

    boolean isConstTable(int tableId) {
        Table t = tablesById.get(tableId);
        return t != null && t.getIsConstTable();
    }

    /**
     * Why the pipeline cannot hold {@code e}, or empty when it can: a meter or a table it does not
     * have (a program older than the configuration, or one for a target without them, as the
     * NetFPGA SUME variant has no meters, counters or ICMP error tables), or a clone session on a
     * target without a packet replication engine (the SUME's SimpleSumeSwitch, P4Info arch "sume").
     */
    Optional<String> unsupported(Entity e) {
        if (e instanceof MeterConfig && !meters.containsKey(((MeterConfig) e).meter)) {
            return Optional.of("no meter " + ((MeterConfig) e).meter + ": its punts are not policed");
        }
        if (e instanceof TableEntry && !tables.containsKey(((TableEntry) e).table())) {
            return Optional.of("no table " + ((TableEntry) e).table() + ": its entries are not written");
        }
        if (e instanceof CloneSession && !replicates()) {
            return Optional.of("no packet replication (" + p4info.getPkgInfo().getArch() + "): no clone sessions");
        }
        return Optional.empty();
    }

    private boolean replicates() {
        return !"sume".equals(p4info.getPkgInfo().getArch());
    }

    /**
     * The P4Runtime entities that write {@code e}: one, or one per cell of a meter (every cell
     * gets the configuration; a meter the pipeline lacks gives none).
     */
    List<P4RuntimeOuterClass.Entity> encode(Entity e) {
        if (e instanceof TableEntry) {
            return List.of(P4RuntimeOuterClass.Entity.newBuilder().setTableEntry(encode((TableEntry) e)).build());
        }
        if (e instanceof CloneSession) {
            CloneSession c = (CloneSession) e;
            CloneSessionEntry.Builder b = CloneSessionEntry.newBuilder().setSessionId(c.sessionId);
            Map<Integer, Integer> copies = new HashMap<>();
            // (port, instance) names a replica: copies to the same port are numbered from 1
            c.ports.forEach(p -> b.addReplicas(Replica.newBuilder().setEgressPort(p)
                    .setInstance(copies.merge(p, 1, Integer::sum))));
            return List.of(P4RuntimeOuterClass.Entity.newBuilder().setPacketReplicationEngineEntry(
                    PacketReplicationEngineEntry.newBuilder().setCloneSessionEntry(b)).build());
        }
        MeterConfig m = (MeterConfig) e;
        Meter meter = meters.get(m.meter);
        if (meter == null) {
            return List.of();
        }
        P4RuntimeOuterClass.MeterConfig config = P4RuntimeOuterClass.MeterConfig.newBuilder().setCir(m.cir)
                .setCburst(m.cburst).setPir(m.pir).setPburst(m.pburst).build();
        List<P4RuntimeOuterClass.Entity> out = new ArrayList<>((int) meter.getSize());
        for (long i = 0; i < meter.getSize(); i++) {
            out.add(P4RuntimeOuterClass.Entity.newBuilder().setMeterEntry(MeterEntry.newBuilder()
                    .setMeterId(meter.getPreamble().getId()).setIndex(Index.newBuilder().setIndex(i))
                    .setConfig(config)).build());
        }
        return out;
    }

    /** What a read asks for: every table entry, every clone session, every cell of every meter. */
    List<P4RuntimeOuterClass.Entity> readRequest() {
        List<P4RuntimeOuterClass.Entity> out = new ArrayList<>();
        out.add(P4RuntimeOuterClass.Entity.newBuilder().setTableEntry(P4RuntimeOuterClass.TableEntry.newBuilder())
                .build());
        if (replicates()) {
            out.add(P4RuntimeOuterClass.Entity.newBuilder().setPacketReplicationEngineEntry(
                    PacketReplicationEngineEntry.newBuilder().setCloneSessionEntry(CloneSessionEntry.newBuilder())).build());
        }
        for (Meter m : meters.values()) {
            out.add(P4RuntimeOuterClass.Entity.newBuilder().setMeterEntry(MeterEntry.newBuilder()
                    .setMeterId(m.getPreamble().getId())).build());
        }
        return out;
    }

    /**
     * What a read returned, as core's entities: table entries of the controller's tables (const
     * tables hold the pipeline's own entries, default entries are not listed), clone sessions, and
     * a meter's configuration when every cell has the same one (otherwise none, so that it is
     * written again).
     */
    List<Entity> decode(List<P4RuntimeOuterClass.Entity> read) {
        List<Entity> out = new ArrayList<>();
        Map<Integer, List<MeterConfig>> meterCells = new LinkedHashMap<>();
        for (P4RuntimeOuterClass.Entity e : read) {
            if (e.hasTableEntry()) {
                if (!e.getTableEntry().getIsDefaultAction() && !isConstTable(e.getTableEntry().getTableId())) {
                    out.add(decode(e.getTableEntry()));
                }
            } else if (e.hasPacketReplicationEngineEntry()
                    && e.getPacketReplicationEngineEntry().hasCloneSessionEntry()) {
                CloneSessionEntry c = e.getPacketReplicationEngineEntry().getCloneSessionEntry();
                out.add(new CloneSession(c.getSessionId(), c.getReplicasList().stream()
                        .map(Replica::getEgressPort).collect(Collectors.toList())));
            } else if (e.hasMeterEntry()) {
                MeterEntry m = e.getMeterEntry();
                Meter meter = metersById.get(m.getMeterId());
                if (meter != null) {
                    P4RuntimeOuterClass.MeterConfig c = m.getConfig();
                    meterCells.computeIfAbsent(m.getMeterId(), id -> new ArrayList<>()).add(m.hasConfig()
                            ? new MeterConfig(meter.getPreamble().getName(), c.getCir(), c.getCburst(), c.getPir(),
                                    c.getPburst()) : null);
                }
            }
        }
        meterCells.forEach((id, cells) -> MeterConfig.ofCells(metersById.get(id).getSize(), cells)
                .ifPresent(out::add));
        return out;
    }

    P4RuntimeOuterClass.TableEntry encode(TableEntry e) {
        Table t = table(e.table());
        P4RuntimeOuterClass.TableEntry.Builder b = P4RuntimeOuterClass.TableEntry.newBuilder()
                .setTableId(t.getPreamble().getId());
        if (e.isDefault()) {
            b.setIsDefaultAction(true);
        }
        Map<String, MatchField> fields = matchFields.get(e.table());
        // by index, not through matches() and the list's iterator: several entries per setup
        for (int i = 0; i < e.matchCount(); i++) {
            TableEntry.Match m = e.match(i);
            MatchField f = fields.get(m.field);
            if (f == null) {
                throw new IllegalArgumentException(e.table() + " has no match field " + m.field);
            }
            FieldMatch.Builder fm = FieldMatch.newBuilder().setFieldId(f.getId());
            // wrapped, not copied: the arrays are made for this call and never changed
            ByteString value = UnsafeByteOperations.unsafeWrap(m.bytes());
            if (m.isLpm()) {
                fm.setLpm(FieldMatch.LPM.newBuilder().setValue(value).setPrefixLen(m.prefixLength));
            } else {
                fm.setExact(FieldMatch.Exact.newBuilder().setValue(value));
            }
            b.addMatch(fm);
        }
        if (e.action() != null) {
            Action a = action(e.action());
            P4RuntimeOuterClass.Action.Builder ab = P4RuntimeOuterClass.Action.newBuilder()
                    .setActionId(a.getPreamble().getId());
            for (int i = 0; i < a.getParamsCount(); i++) {
                Action.Param p = a.getParams(i);
                byte[] v = e.paramBytes(p.getName());
                if (v == null) {
                    throw new IllegalArgumentException(e.action() + " needs parameter " + p.getName());
                }
                ab.addParams(P4RuntimeOuterClass.Action.Param.newBuilder().setParamId(p.getId())
                        .setValue(UnsafeByteOperations.unsafeWrap(v)));
            }
            b.setAction(P4RuntimeOuterClass.TableAction.newBuilder().setAction(ab));
        }
        // A table without idle timeouts (the SUME's) takes the entry without one: it does not age there.
        if (e.idleTimeoutSeconds() > 0 && t.getIdleTimeoutBehavior() == Table.IdleTimeoutBehavior.NOTIFY_CONTROL) {
            b.setIdleTimeoutNs(e.idleTimeoutSeconds() * NANOS);
        }
        return b.build();
    }

    TableEntry decode(P4RuntimeOuterClass.TableEntry p) {
        Table t = tablesById.get(p.getTableId());
        if (t == null) {
            throw new IllegalArgumentException("table id " + p.getTableId() + " is not in the P4Info");
        }
        TableEntry.Builder b = TableEntry.in(t.getPreamble().getName());
        for (FieldMatch fm : p.getMatchList()) {
            String field = t.getMatchFieldsList().stream().filter(x -> x.getId() == fm.getFieldId())
                    .map(MatchField::getName).findFirst().orElse("?");
            if (fm.hasLpm()) {
                b.lpm(field, value(fm.getLpm().getValue()), fm.getLpm().getPrefixLen());
            } else {
                b.exact(field, value(fm.getExact().getValue()));
            }
        }
        if (p.hasAction() && p.getAction().hasAction()) {
            P4RuntimeOuterClass.Action pa = p.getAction().getAction();
            Action a = actionsById.get(pa.getActionId());
            b.action(a.getPreamble().getName());
            for (P4RuntimeOuterClass.Action.Param param : pa.getParamsList()) {
                String name = a.getParamsList().stream().filter(x -> x.getId() == param.getParamId())
                        .map(Action.Param::getName).findFirst().orElse("?");
                b.param(name, value(param.getValue()));
            }
        }
        if (p.getIdleTimeoutNs() > 0) {
            b.idleTimeout(p.getIdleTimeoutNs() / NANOS);
        }
        return b.build();
    }

    private Table table(String name) {
        Table t = tables.get(name);
        if (t == null) {
            throw new IllegalArgumentException("table " + name + " is not in the P4Info: is p4/build up to date?");
        }
        return t;
    }

    private Action action(String name) {
        Action a = actions.get(name);
        if (a == null) {
            throw new IllegalArgumentException("action " + name + " is not in the P4Info: is p4/build up to date?");
        }
        return a;
    }

    static ByteString bytes(BigInteger v) {
        byte[] raw = v.toByteArray();
        int skip = 0;
        while (skip < raw.length - 1 && raw[skip] == 0) {
            skip++;
        }
        return ByteString.copyFrom(raw, skip, raw.length - skip);
    }

    static BigInteger value(ByteString b) {
        return new BigInteger(1, b.toByteArray());
    }
}
