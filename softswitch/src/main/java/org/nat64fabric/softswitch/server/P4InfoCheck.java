package org.nat64fabric.softswitch.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.nat64fabric.softswitch.runtime.NewerFields;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.config.v1.P4Types;

/**
 * Checks that the P4Info a controller sent describes the program it sent: the same objects, by
 * name, with the same match fields, parameters, widths and sizes. IDs may differ from ours (another
 * compiler may have assigned them); the controller's IDs are the ones the switch then uses.
 */
final class P4InfoCheck {
    private P4InfoCheck() {
    }

    /**
     * Null when every object of the P4Info has an ID of its own, not 0, and every ID it refers to
     * (a table's actions, action profile and direct resources, a profile's tables) is one of them;
     * else the first that is not (P4Runtime: IDs are one number space, 0 means unset).
     */
    static String badIds(P4Info info) {
        Map<Integer, String> named = new HashMap<>();
        List<P4InfoOuterClass.Preamble> all = new ArrayList<>();
        info.getTablesList().forEach(t -> all.add(t.getPreamble()));
        info.getActionsList().forEach(a -> all.add(a.getPreamble()));
        info.getActionProfilesList().forEach(a -> all.add(a.getPreamble()));
        info.getCountersList().forEach(c -> all.add(c.getPreamble()));
        info.getDirectCountersList().forEach(c -> all.add(c.getPreamble()));
        info.getMetersList().forEach(m -> all.add(m.getPreamble()));
        info.getDirectMetersList().forEach(m -> all.add(m.getPreamble()));
        info.getControllerPacketMetadataList().forEach(m -> all.add(m.getPreamble()));
        info.getValueSetsList().forEach(v -> all.add(v.getPreamble()));
        info.getRegistersList().forEach(r -> all.add(r.getPreamble()));
        info.getDigestsList().forEach(d -> all.add(d.getPreamble()));
        for (P4InfoOuterClass.Preamble p : all) {
            if (p.getId() == 0) {
                return "'" + p.getName() + "' has ID 0, which P4Runtime reserves for \"unset\"";
            }
            String earlier = named.putIfAbsent(p.getId(), p.getName());
            if (earlier != null) {
                return "'" + earlier + "' and '" + p.getName() + "' have the same ID " + Integer.toUnsignedString(p.getId());
            }
        }
        for (P4InfoOuterClass.Table t : info.getTablesList()) {
            String table = "table '" + t.getPreamble().getName() + "'";
            for (P4InfoOuterClass.ActionRef r : t.getActionRefsList()) {
                if (!named.containsKey(r.getId())) {
                    return table + " refers to action ID " + Integer.toUnsignedString(r.getId()) + ", which nothing has";
                }
            }
            if (t.getImplementationId() != 0 && !named.containsKey(t.getImplementationId())) {
                return table + "'s implementation_id " + Integer.toUnsignedString(t.getImplementationId()) + " is nothing's";
            }
            for (int id : t.getDirectResourceIdsList()) {
                if (!named.containsKey(id)) {
                    return table + "'s direct resource ID " + Integer.toUnsignedString(id) + " is nothing's";
                }
            }
        }
        for (P4InfoOuterClass.ActionProfile a : info.getActionProfilesList()) {
            for (int id : a.getTableIdsList()) {
                if (!named.containsKey(id)) {
                    return "action profile '" + a.getPreamble().getName() + "' refers to table ID "
                            + Integer.toUnsignedString(id) + ", which nothing has";
                }
            }
        }
        return null;
    }

    /** Null when they match, else what differs. */
    static String difference(P4Info program, P4Info given) {
        Map<String, String> ours = describe(program);
        Map<String, String> theirs = describe(given);
        for (Map.Entry<String, String> e : ours.entrySet()) {
            String t = theirs.get(e.getKey());
            if (t == null) {
                return e.getKey() + " is in the program but not in the P4Info";
            }
            if (!t.equals(e.getValue())) {
                return e.getKey() + " differs: the P4Info says " + t + ", the program has " + e.getValue();
            }
        }
        for (String k : theirs.keySet()) {
            if (!ours.containsKey(k)) {
                return k + " is in the P4Info but not in the program";
            }
        }
        return null;
    }

    private static Map<String, String> describe(P4Info info) {
        Map<Integer, String> actionNames = new HashMap<>();
        for (P4InfoOuterClass.Action a : info.getActionsList()) {
            actionNames.put(a.getPreamble().getId(), a.getPreamble().getName());
        }
        Map<Integer, String> profileNames = new HashMap<>();
        for (P4InfoOuterClass.ActionProfile a : info.getActionProfilesList()) {
            profileNames.put(a.getPreamble().getId(), a.getPreamble().getName());
        }
        Map<Integer, String> tableNames = new HashMap<>();
        for (P4InfoOuterClass.Table t : info.getTablesList()) {
            tableNames.put(t.getPreamble().getId(), t.getPreamble().getName());
        }
        Map<String, String> out = new TreeMap<>();
        for (P4InfoOuterClass.ActionProfile a : info.getActionProfilesList()) {
            TreeSet<String> tables = new TreeSet<>();
            for (int id : a.getTableIdsList()) {
                tables.add(tableNames.get(id));
            }
            // max_group_size is not compared: the switch keeps the P4Info's (another compiler may choose its own default).
            long maxMemberWeight = NewerFields.maxMemberWeight(a);
            out.put("action profile " + a.getPreamble().getName(), (a.getWithSelector() ? "selector" : "profile") + " size "
                    + a.getSize() + " tables " + tables + (maxMemberWeight < 0 ? "" : " sum_of_members"));
        }
        for (P4InfoOuterClass.Table t : info.getTablesList()) {
            StringBuilder sb = new StringBuilder("match (");
            for (P4InfoOuterClass.MatchField f : t.getMatchFieldsList()) {
                sb.append(f.getId()).append(':').append(f.getName()).append(' ').append(f.getMatchType())
                        .append(" bit<").append(f.getBitwidth()).append(">; ");
            }
            TreeSet<String> actions = new TreeSet<>();
            for (P4InfoOuterClass.ActionRef r : t.getActionRefsList()) {
                actions.add(actionNames.get(r.getId()) + " " + r.getScope());
            }
            sb.append(") actions ").append(actions).append(" size ").append(t.getSize())
                    .append(" idle timeout ").append(t.getIdleTimeoutBehavior())
                    .append(" direct resources ").append(t.getDirectResourceIdsCount())
                    .append(" implementation ").append(profileNames.get(t.getImplementationId()));
            out.put("table " + t.getPreamble().getName(), sb.toString());
        }
        for (P4InfoOuterClass.Action a : info.getActionsList()) {
            StringBuilder sb = new StringBuilder("params (");
            for (P4InfoOuterClass.Action.Param p : a.getParamsList()) {
                sb.append(p.getId()).append(':').append(p.getName()).append(" bit<").append(p.getBitwidth()).append(">; ");
            }
            out.put("action " + a.getPreamble().getName(), sb.append(')').toString());
        }
        for (P4InfoOuterClass.Counter c : info.getCountersList()) {
            out.put("counter " + c.getPreamble().getName(), c.getSpec().getUnit() + " size " + c.getSize());
        }
        for (P4InfoOuterClass.DirectCounter c : info.getDirectCountersList()) {
            out.put("direct counter " + c.getPreamble().getName(), c.getSpec().getUnit().toString());
        }
        for (P4InfoOuterClass.Meter m : info.getMetersList()) {
            out.put("meter " + m.getPreamble().getName(), m.getSpec().getUnit() + " size " + m.getSize());
        }
        for (P4InfoOuterClass.DirectMeter m : info.getDirectMetersList()) {
            out.put("direct meter " + m.getPreamble().getName(), m.getSpec().getUnit().toString());
        }
        for (P4InfoOuterClass.Register r : info.getRegistersList()) {
            P4Types.P4BitstringLikeTypeSpec bits = r.getTypeSpec().getBitstring();
            out.put("register " + r.getPreamble().getName(), (bits.hasInt() ? "int<" + bits.getInt().getBitwidth()
                    : "bit<" + bits.getBit().getBitwidth()) + "> size " + r.getSize());
        }
        for (P4InfoOuterClass.ValueSet v : info.getValueSetsList()) {
            StringBuilder sb = new StringBuilder("match (");
            for (P4InfoOuterClass.MatchField f : v.getMatchList()) {
                sb.append(f.getId()).append(':').append(f.getName()).append(' ').append(f.getMatchType())
                        .append(" bit<").append(f.getBitwidth()).append(">; ");
            }
            out.put("value set " + v.getPreamble().getName(), sb.append(") size ").append(v.getSize()).toString());
        }
        for (P4InfoOuterClass.Digest d : info.getDigestsList()) {
            String struct = d.getTypeSpec().getStruct().getName();
            StringBuilder sb = new StringBuilder("struct ").append(struct).append(" (");
            var spec = info.getTypeInfo().getStructsMap().get(struct);
            if (spec != null) {
                for (var m : spec.getMembersList()) {
                    sb.append(m.getName()).append(" bit<").append(m.getTypeSpec().getBitstring().getBit().getBitwidth()).append(">; ");
                }
            }
            out.put("digest " + d.getPreamble().getName(), sb.append(')').toString());
        }
        for (P4InfoOuterClass.ControllerPacketMetadata m : info.getControllerPacketMetadataList()) {
            StringBuilder sb = new StringBuilder("(");
            for (P4InfoOuterClass.ControllerPacketMetadata.Metadata f : m.getMetadataList()) {
                sb.append(f.getId()).append(':').append(f.getName()).append(" bit<").append(f.getBitwidth()).append(">; ");
            }
            out.put("controller header " + m.getPreamble().getName(), sb.append(')').toString());
        }
        return out;
    }
}
