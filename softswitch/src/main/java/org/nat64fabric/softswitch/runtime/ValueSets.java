package org.nat64fabric.softswitch.runtime;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.nat64fabric.softswitch.pipeline.Bits;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.ValueSet;
import org.nat64fabric.softswitch.runtime.EntityException.Code;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.FieldMatch;
import p4.v1.P4RuntimeOuterClass.Update;
import p4.v1.P4RuntimeOuterClass.ValueSetEntry;
import p4.v1.P4RuntimeOuterClass.ValueSetMember;

/**
 * Parser value sets as P4Runtime entities (ValueSetEntry): a MODIFY replaces a set's members
 * (INSERT and DELETE do not apply to value sets), a read returns them.
 */
final class ValueSets {
    private final Map<Integer, ValueSet> byId = new HashMap<>();
    private final Map<ValueSet, Integer> ids = new HashMap<>();
    private final List<ValueSet> all;

    ValueSets(Program program, P4Info info) {
        this.all = program.valueSets;
        for (P4InfoOuterClass.ValueSet v : info.getValueSetsList()) {
            for (ValueSet set : program.valueSets) {
                if (set.name.equals(v.getPreamble().getName())) {
                    byId.put(v.getPreamble().getId(), set);
                    ids.put(set, v.getPreamble().getId());
                }
            }
        }
    }

    private ValueSet set(int id) throws EntityException {
        ValueSet v = byId.get(id);
        if (v == null) {
            throw new EntityException(id == 0 ? Code.INVALID_ARGUMENT : Code.NOT_FOUND,
                    id == 0 ? "a value set write must name the value set (ID 0 is a wildcard)" : "no value set with ID " + Integer.toUnsignedString(id));
        }
        return v;
    }

    void apply(Update.Type type, ValueSetEntry e) throws EntityException {
        ValueSet v = set(e.getValueSetId());
        if (type != Update.Type.MODIFY) {
            throw new EntityException(Code.INVALID_ARGUMENT, "value set " + v.name + ": only MODIFY applies to a value set "
                    + "(it replaces the members)");
        }
        if (e.getMembersCount() > v.size) {
            throw new EntityException(Code.RESOURCE_EXHAUSTED, "value set " + v.name + " holds " + v.size + " members, not "
                    + e.getMembersCount());
        }
        List<ValueSet.Member> members = new ArrayList<>();
        Set<List<BigInteger>> seen = new HashSet<>();
        for (ValueSetMember m : e.getMembersList()) {
            ValueSet.Member member = member(v, m);
            List<BigInteger> key = new ArrayList<>(Arrays.asList(member.value));
            key.addAll(Arrays.asList(member.mask));
            if (!seen.add(key)) {
                throw new EntityException(Code.ALREADY_EXISTS, "value set " + v.name + ": member " + (members.size() + 1)
                        + " repeats an earlier one (P4Runtime 9.6: members are a set)");
            }
            members.add(member);
        }
        v.replace(members);
    }

    private static ValueSet.Member member(ValueSet v, ValueSetMember m) throws EntityException {
        int n = v.fields.size();
        BigInteger[] value = new BigInteger[n];
        BigInteger[] mask = new BigInteger[n];
        for (FieldMatch f : m.getMatchList()) {
            int i = f.getFieldId() - 1;
            if (i < 0 || i >= n) {
                throw new EntityException(Code.INVALID_ARGUMENT, "value set " + v.name + " has no match field with ID " + f.getFieldId());
            }
            if (value[i] != null) {
                throw new EntityException(Code.INVALID_ARGUMENT, "match field " + f.getFieldId() + " appears twice");
            }
            ValueSet.Field field = v.fields.get(i);
            String where = "value set " + v.name + " field " + f.getFieldId();
            if (f.hasExact() && !field.ternary) {
                value[i] = Entities.value(f.getExact().getValue(), field.width, where);
                mask[i] = Bits.wideMask(field.width);
            } else if (f.hasTernary() && field.ternary) {
                BigInteger[] vm = Entities.ternary(f.getTernary(), field.width, () -> where);
                value[i] = vm[0];
                mask[i] = vm[1];
            } else {
                throw new EntityException(Code.INVALID_ARGUMENT, where + " is " + (field.ternary ? "ternary" : "exact")
                        + ", not " + f.getFieldMatchTypeCase().name().toLowerCase());
            }
        }
        for (int i = 0; i < n; i++) {
            if (value[i] == null) {
                if (!v.fields.get(i).ternary) {
                    throw new EntityException(Code.INVALID_ARGUMENT, "value set " + v.name + ": exact field " + (i + 1) + " is missing");
                }
                value[i] = BigInteger.ZERO;
                mask[i] = BigInteger.ZERO;
            }
        }
        return new ValueSet.Member(value, mask);
    }

    List<Entity> read(ValueSetEntry q) throws EntityException {
        List<Entity> out = new ArrayList<>();
        for (ValueSet v : q.getValueSetId() == 0 ? all : List.of(set(q.getValueSetId()))) {
            ValueSetEntry.Builder b = ValueSetEntry.newBuilder().setValueSetId(ids.get(v));
            for (ValueSet.Member m : v.members()) {
                ValueSetMember.Builder mb = b.addMembersBuilder();
                for (int i = 0; i < m.value.length; i++) {
                    if (!v.fields.get(i).ternary) {
                        mb.addMatchBuilder().setFieldId(i + 1).getExactBuilder().setValue(Entities.bytes(m.value[i]));
                    } else if (m.mask[i].signum() != 0) {
                        mb.addMatchBuilder().setFieldId(i + 1).getTernaryBuilder().setValue(Entities.bytes(m.value[i]))
                                .setMask(Entities.bytes(m.mask[i]));
                    }
                }
            }
            out.add(Entity.newBuilder().setValueSetEntry(b).build());
        }
        return out;
    }
}
