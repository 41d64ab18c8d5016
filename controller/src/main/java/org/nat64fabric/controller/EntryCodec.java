package org.nat64fabric.controller;

import com.google.protobuf.ByteString;
import com.google.protobuf.TextFormat;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import p4.config.v1.P4InfoOuterClass.Action;
import p4.config.v1.P4InfoOuterClass.MatchField;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.config.v1.P4InfoOuterClass.Table;
import p4.v1.P4RuntimeOuterClass;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import org.nat64fabric.core.fabric.TableEntry;

/**
 * Core's named table entries to P4Runtime's numbered ones and back, through the pipeline's
 * P4Info. Values are canonical bytestrings (P4Runtime 1.3 section 8.4: big-endian, no leading
 * zero bytes).
 */
final class EntryCodec {
    private static final long NANOS = 1_000_000_000L;

    private final P4Info p4info;
    private final Map<String, Table> tables = new HashMap<>();
    private final Map<Integer, Table> tablesById = new HashMap<>();
    private final Map<String, Action> actions = new HashMap<>();
    private final Map<Integer, Action> actionsById = new HashMap<>();

    EntryCodec(P4Info p4info) {
        this.p4info = p4info;
        for (Table t : p4info.getTablesList()) {
            tables.put(t.getPreamble().getName(), t);
            tablesById.put(t.getPreamble().getId(), t);
        }
        for (Action a : p4info.getActionsList()) {
            actions.put(a.getPreamble().getName(), a);
            actionsById.put(a.getPreamble().getId(), a);
        }
    }

    static EntryCodec load(Path p4infoText) throws IOException {
        P4Info.Builder b = P4Info.newBuilder();
        TextFormat.merge(new String(Files.readAllBytes(p4infoText), StandardCharsets.UTF_8), b);
        return new EntryCodec(b.build());
    }

    P4Info p4info() {
        return p4info;
    }

    boolean isConstTable(int tableId) {
        Table t = tablesById.get(tableId);
        return t != null && t.getIsConstTable();
    }

    P4RuntimeOuterClass.TableEntry encode(TableEntry e) {
        Table t = table(e.table());
        P4RuntimeOuterClass.TableEntry.Builder b = P4RuntimeOuterClass.TableEntry.newBuilder()
                .setTableId(t.getPreamble().getId());
        if (e.isDefault()) {
            b.setIsDefaultAction(true);
        }
        for (TableEntry.Match m : e.matches()) {
            MatchField f = t.getMatchFieldsList().stream().filter(x -> x.getName().equals(m.field)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(e.table() + " has no match field " + m.field));
            FieldMatch.Builder fm = FieldMatch.newBuilder().setFieldId(f.getId());
            if (m.isLpm()) {
                fm.setLpm(FieldMatch.LPM.newBuilder().setValue(bytes(m.value)).setPrefixLen(m.prefixLength));
            } else {
                fm.setExact(FieldMatch.Exact.newBuilder().setValue(bytes(m.value)));
            }
            b.addMatch(fm);
        }
        if (e.action() != null) {
            Action a = action(e.action());
            P4RuntimeOuterClass.Action.Builder ab = P4RuntimeOuterClass.Action.newBuilder()
                    .setActionId(a.getPreamble().getId());
            for (Action.Param p : a.getParamsList()) {
                BigInteger v = e.params().get(p.getName());
                if (v == null) {
                    throw new IllegalArgumentException(e.action() + " needs parameter " + p.getName());
                }
                ab.addParams(P4RuntimeOuterClass.Action.Param.newBuilder().setParamId(p.getId()).setValue(bytes(v)));
            }
            b.setAction(P4RuntimeOuterClass.TableAction.newBuilder().setAction(ab));
        }
        if (e.idleTimeoutSeconds() > 0) {
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
