package org.nat64fabric.softswitch.p4info;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos;
import com.google.protobuf.Descriptors;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.TextFormat;
import com.google.protobuf.UnknownFieldSet;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.nat64fabric.softswitch.frontend.Type;
import org.nat64fabric.softswitch.pipeline.Action;
import org.nat64fabric.softswitch.pipeline.ActionProfile;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.pipeline.ValueSet;
import org.nat64fabric.softswitch.runtime.NewerFields;
import org.nat64fabric.softswitch.v1model.Externs;
import p4.config.v1.P4InfoOuterClass;
import p4.config.v1.P4InfoOuterClass.ActionRef;
import p4.config.v1.P4InfoOuterClass.ControllerPacketMetadata;
import p4.config.v1.P4InfoOuterClass.Documentation;
import p4.config.v1.P4InfoOuterClass.CounterSpec;
import p4.config.v1.P4InfoOuterClass.MatchField;
import p4.config.v1.P4InfoOuterClass.MeterSpec;
import p4.config.v1.P4InfoOuterClass.P4Ids;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.config.v1.P4InfoOuterClass.PkgInfo;
import p4.config.v1.P4InfoOuterClass.Preamble;
import p4.config.v1.P4Types;

/**
 * Emits the P4Runtime v1 P4Info of a compiled program. IDs carry the P4Runtime prefix of their
 * kind in the top byte; the rest is @id when given, else a hash of the fully qualified name,
 * so IDs are stable across compilations and independent of declaration order.
 */
public final class P4InfoBuilder {
    /** P4Runtime's ID prefix (the top byte) of each kind of object, as the frontend names the kinds. */
    public static final Map<String, Integer> ID_PREFIXES = Map.of("table", P4Ids.Prefix.TABLE_VALUE,
            "action", P4Ids.Prefix.ACTION_VALUE, "counter", P4Ids.Prefix.COUNTER_VALUE,
            "direct_counter", P4Ids.Prefix.DIRECT_COUNTER_VALUE, "meter", P4Ids.Prefix.METER_VALUE,
            "direct_meter", P4Ids.Prefix.DIRECT_METER_VALUE, "register", P4Ids.Prefix.REGISTER_VALUE,
            "action_profile", P4Ids.Prefix.ACTION_PROFILE_VALUE, "value_set", P4Ids.Prefix.VALUE_SET_VALUE,
            "digest", P4Ids.Prefix.DIGEST_VALUE);

    private final Set<Integer> used = new HashSet<>();
    private final Map<String, Integer> ids = new HashMap<>();

    private P4InfoBuilder() {
    }

    public static P4Info build(Program program) {
        return new P4InfoBuilder().make(program);
    }

    private P4Info make(Program p) {
        reserveExplicitIds(p);
        P4Info.Builder info = P4Info.newBuilder().setPkgInfo(PkgInfo.newBuilder().setArch(p.architecture.p4infoName));
        if (!p.tables.isEmpty() || !p.counters.isEmpty() || !p.meters.isEmpty() || !p.registers.isEmpty()
                || !p.valueSets.isEmpty() || !p.digests.isEmpty()) {
            info.getTypeInfoBuilder();   // present, if empty, where p4c writes it: with a table or an extern instance
        }
        for (Action a : p.actions) {
            var b = info.addActionsBuilder().setPreamble(preamble(P4Ids.Prefix.ACTION_VALUE, a.name, a.annotations));
            for (int i = 0; i < a.controlParamCount(); i++) {
                Action.Param prm = a.params.get(i);
                var param = b.addParamsBuilder().setId(i + 1).setName(prm.name).setBitwidth(p4infoWidth(prm.slot.type, prm.width));
                P4Types.P4NamedType named = typeName(info.getTypeInfoBuilder(), prm.slot.type);
                if (named != null) {
                    param.setTypeName(named);
                }
                if (prm.slot.type instanceof Type.Enum && ((Type.Enum) prm.slot.type).underlying != null) {
                    describe(info.getTypeInfoBuilder(), (Type.Enum) prm.slot.type);
                }
            }
            Action.Param slot = a.idleSlot();
            if (slot != null) {
                // filled by the SUME agent, not by controllers: what it fills, for the agent's layout
                b.getPreambleBuilder().addAnnotations("@" + Action.IDLE_SLOT + "(\"" + slot.annotations.get(Action.IDLE_SLOT).get(0)
                        + "\", " + slot.width + ")");
            }
        }
        for (Table t : p.tables) {
            if (t.annotations.containsKey("hidden")) {
                continue;   // P4_16 18.3: a @hidden table has no control-plane name
            }
            var b = info.addTablesBuilder().setPreamble(preamble(P4Ids.Prefix.TABLE_VALUE, t.name, t.annotations));
            for (Table.KeyField k : t.keys) {
                MatchField.Builder field = MatchField.newBuilder().setId(k.id).setName(k.name)
                        .setBitwidth(p4infoWidth(k.expr.type, k.width)).setMatchType(matchType(k.kind));
                P4Types.P4NamedType named = typeName(info.getTypeInfoBuilder(), k.expr.type);
                if (named != null) {
                    field.setTypeName(named);
                }
                b.addMatchFields(field);
                if (k.expr.type instanceof Type.Enum && ((Type.Enum) k.expr.type).underlying != null) {
                    describe(info.getTypeInfoBuilder(), (Type.Enum) k.expr.type);
                }
            }
            for (Table.ActionRef r : t.actions) {
                ActionRef.Builder ref = b.addActionRefsBuilder().setId(id(r.action.name))
                        .setScope(r.defaultOnly ? ActionRef.Scope.DEFAULT_ONLY
                                : r.tableOnly ? ActionRef.Scope.TABLE_ONLY : ActionRef.Scope.TABLE_AND_DEFAULT);
                if (r.defaultOnly || r.tableOnly) {   // the scope's annotation too, as p4c writes it
                    ref.addAnnotations(r.defaultOnly ? "@defaultonly" : "@tableonly");
                }
            }
            if (t.defaultActionIsConst()) {
                b.setConstDefaultActionId(id(t.defaultAction().action.name));
            }
            if (t.directCounter != null) {
                Preamble dc = preamble(P4Ids.Prefix.DIRECT_COUNTER_VALUE, t.directCounter, annotationsOf(p, "direct_counter", t.directCounter));
                b.addDirectResourceIds(dc.getId());
                info.addDirectCountersBuilder()
                        .setPreamble(dc)
                        .setSpec(CounterSpec.newBuilder().setUnit(unit(t.directCounterUnit)))
                        .setDirectTableId(b.getPreamble().getId());
            }
            if (t.directMeter != null) {
                Preamble dm = preamble(P4Ids.Prefix.DIRECT_METER_VALUE, t.directMeter, annotationsOf(p, "direct_meter", t.directMeter));
                b.addDirectResourceIds(dm.getId());
                info.addDirectMetersBuilder()
                        .setPreamble(dm)
                        .setSpec(MeterSpec.newBuilder().setUnit(meterUnit(t.directMeterUnit)))
                        .setDirectTableId(b.getPreamble().getId());
            }
            if (t.profile() != null) {
                b.setImplementationId(idFor(P4Ids.Prefix.ACTION_PROFILE_VALUE, t.profile().name, t.profile().annotations));
            }
            b.setSize(t.size);
            if (t.supportTimeout) {
                b.setIdleTimeoutBehavior(p4.config.v1.P4InfoOuterClass.Table.IdleTimeoutBehavior.NOTIFY_CONTROL);
            }
            b.setIsConstTable(t.constEntries);
            if (t.initialEntries) {
                NewerFields.withVarint(b, NewerFields.TABLE_HAS_INITIAL_ENTRIES, 1);
            }
            NewerFields.withBytes(b, NewerFields.TABLE_INITIAL_DEFAULT_ACTION, initialDefaultAction(t.initialDefaultAction()));
        }
        for (ActionProfile ap : p.actionProfiles()) {
            var b = info.addActionProfilesBuilder()
                    .setPreamble(preamble(P4Ids.Prefix.ACTION_PROFILE_VALUE, ap.name, ap.annotations))
                    .setWithSelector(ap.withSelector).setSize(ap.size)
                    .setMaxGroupSize(ap.withSelector ? ap.maxGroupSize : 0);   // "0 if the action profile does not have a selector"
            if (ap.withSelector && ap.sumOfMembers == null) {
                NewerFields.withBytes(b, NewerFields.ACTION_PROFILE_SUM_OF_WEIGHTS, ByteString.EMPTY);   // as p4c writes it
            }
            if (ap.sumOfMembers != null) {
                UnknownFieldSet.Builder sum = UnknownFieldSet.newBuilder();
                if (ap.sumOfMembers.maxMemberWeight > 0) {
                    sum.addField(1, UnknownFieldSet.Field.newBuilder().addVarint(ap.sumOfMembers.maxMemberWeight).build());
                }
                NewerFields.withBytes(b, NewerFields.ACTION_PROFILE_SUM_OF_MEMBERS, sum.build().toByteString());
            }
            for (Table t : p.tables) {
                if (t.profile() == ap && !t.annotations.containsKey("hidden")) {
                    b.addTableIds(idFor(P4Ids.Prefix.TABLE_VALUE, t.name, t.annotations));
                }
            }
        }
        for (Externs.Counter c : p.counters) {
            info.addCountersBuilder()
                    .setPreamble(preamble(P4Ids.Prefix.COUNTER_VALUE, c.name, annotationsOf(p, "counter", c.name)))
                    .setSpec(CounterSpec.newBuilder().setUnit(unit(c.unit)))
                    .setSize(c.size);
        }
        for (Externs.Meter m : p.meters) {
            info.addMetersBuilder()
                    .setPreamble(preamble(P4Ids.Prefix.METER_VALUE, m.name, annotationsOf(p, "meter", m.name)))
                    .setSpec(MeterSpec.newBuilder().setUnit(meterUnit(m.unit)))
                    .setSize(m.size);
        }
        // A SimpleSumeSwitch program's registers are P4-NetFPGA's, read by the SUME agent over the card's register interface.
        for (Externs.Register r : p.architecture == Program.Architecture.SUME ? List.<Externs.Register>of() : p.registers) {
            P4Types.P4DataTypeSpec.Builder type = P4Types.P4DataTypeSpec.newBuilder();
            if (r.values != null) {   // register<E>: E named, and described in type_info, as p4c writes it
                type.setSerializableEnum(P4Types.P4NamedType.newBuilder().setName(r.values.name));
                describe(info.getTypeInfoBuilder(), r.values);
            } else if (r.signed) {
                type.setBitstring(P4Types.P4BitstringLikeTypeSpec.newBuilder().setInt(P4Types.P4IntTypeSpec.newBuilder()
                        .setBitwidth(r.width)));
            } else {
                type.setBitstring(P4Types.P4BitstringLikeTypeSpec.newBuilder().setBit(P4Types.P4BitTypeSpec.newBuilder()
                        .setBitwidth(r.width)));
            }
            info.addRegistersBuilder()
                    .setPreamble(preamble(P4Ids.Prefix.REGISTER_VALUE, r.name, annotationsOf(p, "register", r.name)))
                    .setTypeSpec(type).setSize(r.size);
        }
        for (ValueSet v : p.valueSets) {
            var b = info.addValueSetsBuilder().setPreamble(preamble(P4Ids.Prefix.VALUE_SET_VALUE, v.name, v.annotations))
                    .setSize(v.size);
            int fid = 1;
            for (ValueSet.Field f : v.fields) {
                b.addMatch(MatchField.newBuilder().setId(fid++).setName(f.name).setBitwidth(f.width)
                        .setMatchType(f.ternary ? MatchField.MatchType.TERNARY : MatchField.MatchType.EXACT));
            }
        }
        for (Externs.Digest d : p.digests) {
            // Named after its struct, described in type_info, as p4c writes digests.
            info.addDigestsBuilder().setPreamble(preamble(P4Ids.Prefix.DIGEST_VALUE, d.name, Map.of()))
                    .setTypeSpec(P4Types.P4DataTypeSpec.newBuilder().setStruct(P4Types.P4NamedType.newBuilder().setName(d.name)));
            P4Types.P4StructTypeSpec.Builder struct = P4Types.P4StructTypeSpec.newBuilder();
            for (int i = 0; i < d.widths.length; i++) {
                struct.addMembersBuilder().setName(d.fields.get(i))
                        .setTypeSpec(digestMember(info.getTypeInfoBuilder(), p, d.types.get(i), d.widths[i]));
            }
            info.getTypeInfoBuilder().putStructs(d.name, struct.build());
        }
        for (Map.Entry<String, Type.Aggregate> e : p.controllerHeaders.entrySet()) {
            var b = info.addControllerPacketMetadataBuilder().setPreamble(
                    preamble(P4Ids.Prefix.CONTROLLER_HEADER_VALUE, e.getKey(), e.getValue().name, Map.of()).toBuilder()
                            .addAnnotations("@controller_header(\"" + e.getKey() + "\")"));
            int mid = 1;
            for (Type.Field f : e.getValue().fields.values()) {
                var metadata = ControllerPacketMetadata.Metadata.newBuilder().setId(mid++).setName(f.name)
                        .setBitwidth(p4infoWidth(f.type, ((Type.Bits) f.type).width));
                P4Types.P4NamedType named = typeName(info.getTypeInfoBuilder(), f.type);
                if (named != null) {
                    metadata.setTypeName(named);
                }
                b.addMetadata(metadata);
            }
        }
        setAliases(info);
        return info.build();
    }

    /**
     * Every object's Preamble.alias: the shortest dot-separated suffix of its name that no other
     * object's name ends with (unique among the objects, as P4Info asks, and as p4c picks it).
     */
    private static void setAliases(P4Info.Builder info) {
        List<Preamble.Builder> preambles = new ArrayList<>();
        for (Descriptors.FieldDescriptor kind : info.getDescriptorForType().getFields()) {
            Descriptors.FieldDescriptor preamble = kind.getJavaType() == Descriptors.FieldDescriptor.JavaType.MESSAGE
                    && kind.isRepeated() ? kind.getMessageType().findFieldByName("preamble") : null;
            for (int i = 0; preamble != null && i < info.getRepeatedFieldCount(kind); i++) {
                preambles.add((Preamble.Builder) info.getRepeatedFieldBuilder(kind, i).getFieldBuilder(preamble));
            }
        }
        for (Preamble.Builder b : preambles) {
            String[] parts = b.getName().split("\\.");
            String alias = b.getName();
            for (int k = 1; k <= parts.length && alias.equals(b.getName()); k++) {
                String suffix = String.join(".", java.util.Arrays.copyOfRange(parts, parts.length - k, parts.length));
                if (preambles.stream().noneMatch(o -> o != b && (o.getName().equals(suffix) || o.getName().endsWith("." + suffix)))) {
                    alias = suffix;
                }
            }
            b.setAlias(alias);
        }
    }

    /**
     * The bitwidth P4Info gives a key, an action parameter or a controller header field of type
     * {@code t}, {@code width} bits in the data plane: for a `type` with {@code @p4runtime_translation},
     * the controller's width, 0 for a string (P4Runtime 8.5.7).
     */
    private static int p4infoWidth(Type t, int width) {
        Type.NewType declared = t instanceof Type.Bits ? ((Type.Bits) t).declared : null;
        return declared != null && declared.translationUri != null ? declared.controllerWidth : width;
    }

    /**
     * The type_name of a value whose type a `type` declaration named, described once in
     * type_info.new_types (P4Runtime 8.5.6): its translation, or the bit<W> or int<W> under it; null
     * for other types.
     */
    private static P4Types.P4NamedType typeName(P4Types.P4TypeInfo.Builder types, Type t) {
        Type.NewType declared = t instanceof Type.Bits ? ((Type.Bits) t).declared : null;
        if (declared == null) {
            return null;
        }
        if (!types.containsNewTypes(declared.name)) {
            P4Types.P4NewTypeSpec.Builder spec = P4Types.P4NewTypeSpec.newBuilder();
            if (declared.translationUri == null) {
                Type.Bits bits = (Type.Bits) t;
                P4Types.P4BitstringLikeTypeSpec.Builder original = P4Types.P4BitstringLikeTypeSpec.newBuilder();
                if (bits.signed) {
                    original.setInt(P4Types.P4IntTypeSpec.newBuilder().setBitwidth(bits.width));
                } else {
                    original.setBit(P4Types.P4BitTypeSpec.newBuilder().setBitwidth(bits.width));
                }
                spec.setOriginalType(P4Types.P4DataTypeSpec.newBuilder().setBitstring(original));
            } else {
                P4Types.P4NewTypeTranslation.Builder translated = P4Types.P4NewTypeTranslation.newBuilder()
                        .setUri(declared.translationUri);
                if (declared.controllerWidth == 0) {
                    translated.setSdnString(P4Types.P4NewTypeTranslation.SdnString.getDefaultInstance());
                } else {
                    translated.setSdnBitwidth(declared.controllerWidth);
                }
                spec.setTranslatedType(translated);
            }
            types.putNewTypes(declared.name, spec.build());
        }
        return P4Types.P4NamedType.newBuilder().setName(declared.name).build();
    }

    /** A digest field's type (P4Runtime 8.5.x, P4DataTypeSpec): enums and error described in type_info, as p4c writes them. */
    private static P4Types.P4DataTypeSpec digestMember(P4Types.P4TypeInfo.Builder types, Program p, Type t, int width) {
        P4Types.P4DataTypeSpec.Builder spec = P4Types.P4DataTypeSpec.newBuilder();
        if (t == Type.BOOL) {
            return spec.setBool(P4Types.P4BoolType.getDefaultInstance()).build();
        }
        if (t instanceof Type.Enum && ((Type.Enum) t).underlying != null) {
            describe(types, (Type.Enum) t);
            return spec.setSerializableEnum(P4Types.P4NamedType.newBuilder().setName(((Type.Enum) t).name)).build();
        }
        if (t instanceof Type.Enum) {
            Type.Enum e = (Type.Enum) t;
            if (!types.containsEnums(e.name)) {
                P4Types.P4EnumTypeSpec.Builder members = P4Types.P4EnumTypeSpec.newBuilder();
                e.members.keySet().forEach(name -> members.addMembersBuilder().setName(name));
                types.putEnums(e.name, members.build());
            }
            return spec.setEnum(P4Types.P4NamedType.newBuilder().setName(e.name)).build();
        }
        if (t instanceof Type.Named) {   // error
            types.setError(P4Types.P4ErrorTypeSpec.newBuilder().addAllMembers(p.errors));
            return spec.setError(P4Types.P4ErrorType.getDefaultInstance()).build();
        }
        return spec.setBitstring(P4Types.P4BitstringLikeTypeSpec.newBuilder()
                .setBit(P4Types.P4BitTypeSpec.newBuilder().setBitwidth(width))).build();
    }

    /** A serializable enum of a key, an action parameter or a register, in type_info as p4c writes it: its bit<W> and members' values. */
    private static void describe(P4Types.P4TypeInfo.Builder types, Type.Enum e) {
        if (types.containsSerializableEnums(e.name)) {
            return;
        }
        P4Types.P4SerializableEnumTypeSpec.Builder spec = P4Types.P4SerializableEnumTypeSpec.newBuilder()
                .setUnderlyingType(P4Types.P4BitTypeSpec.newBuilder().setBitwidth(e.underlying.width));
        e.members.forEach((name, value) -> spec.addMembersBuilder().setName(name)
                .setValue(ByteString.copyFrom(bytes(BigInteger.valueOf(value), e.underlying.width))));
        types.putSerializableEnums(e.name, spec.build());
    }

    /** v in (width + 7) / 8 bytes, big-endian, cut to its width: how p4c writes values into P4Info. */
    private static byte[] bytes(BigInteger v, int width) {
        byte[] raw = v.and(BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE)).toByteArray();
        byte[] out = new byte[(width + 7) / 8];
        int n = Math.min(raw.length, out.length);
        System.arraycopy(raw, raw.length - n, out, out.length - n, n);
        return out;
    }

    /**
     * Table.initial_default_action (TableActionCall, P4Runtime 1.4): the action and its control-plane
     * arguments, each in as many bytes as its width takes (as p4c writes them).
     */
    private ByteString initialDefaultAction(Table.ActionCall call) {
        UnknownFieldSet.Field.Builder arguments = UnknownFieldSet.Field.newBuilder();
        for (int i = 0; i < Math.min(call.argCount(), call.action.controlParamCount()); i++) {   // a SUME idle slot is no parameter
            byte[] value = bytes(call.arg(i), call.action.params.get(i).width);
            UnknownFieldSet argument = UnknownFieldSet.newBuilder()
                    .addField(2, UnknownFieldSet.Field.newBuilder().addVarint(i + 1).build())
                    .addField(3, UnknownFieldSet.Field.newBuilder().addLengthDelimited(ByteString.copyFrom(value)).build()).build();
            arguments.addLengthDelimited(argument.toByteString());
        }
        return UnknownFieldSet.newBuilder()
                .addField(1, UnknownFieldSet.Field.newBuilder().addVarint(Integer.toUnsignedLong(id(call.action.name))).build())
                .addField(4, arguments.build()).build().toByteString();
    }

    /**
     * P4Info's message type with the fields P4Runtime 1.4 added to the 1.3 classes we build on
     * (Table.initial_default_action and has_initial_entries, ActionProfile.sum_of_weights and
     * sum_of_members), so that the text format writes them by name, as 1.4 parsers read them.
     */
    private static final Descriptors.Descriptor P4INFO_1_4 = p4info14();

    private static Descriptors.Descriptor p4info14() {
        DescriptorProtos.FileDescriptorProto.Builder file = P4InfoOuterClass.getDescriptor().toProto().toBuilder();
        file.addMessageType(DescriptorProtos.DescriptorProto.newBuilder().setName("TableActionCall")
                .addField(field("action_id", 1, Type14.UINT32, null, false))
                .addField(field("arguments", 4, Type14.MESSAGE, ".p4.config.v1.TableActionCall.Argument", true))
                .addNestedType(DescriptorProtos.DescriptorProto.newBuilder().setName("Argument")
                        .addField(field("param_id", 2, Type14.UINT32, null, false))
                        .addField(field("value", 3, Type14.BYTES, null, false))));
        file.addMessageType(DescriptorProtos.DescriptorProto.newBuilder().setName("SumOfWeights"));
        file.addMessageType(DescriptorProtos.DescriptorProto.newBuilder().setName("SumOfMembers")
                .addField(field("max_member_weight", 1, Type14.INT32, null, false)));
        for (DescriptorProtos.DescriptorProto.Builder m : file.getMessageTypeBuilderList()) {
            if (m.getName().equals("Table")) {
                m.addField(field("initial_default_action", NewerFields.TABLE_INITIAL_DEFAULT_ACTION, Type14.MESSAGE,
                        ".p4.config.v1.TableActionCall", false));
                m.addField(field("has_initial_entries", NewerFields.TABLE_HAS_INITIAL_ENTRIES, Type14.BOOL, null, false));
            } else if (m.getName().equals("ActionProfile")) {
                m.addField(field("sum_of_weights", NewerFields.ACTION_PROFILE_SUM_OF_WEIGHTS, Type14.MESSAGE,
                        ".p4.config.v1.SumOfWeights", false));
                m.addField(field("sum_of_members", NewerFields.ACTION_PROFILE_SUM_OF_MEMBERS, Type14.MESSAGE,
                        ".p4.config.v1.SumOfMembers", false));
            }
        }
        try {
            return Descriptors.FileDescriptor.buildFrom(file.build(),
                    P4InfoOuterClass.getDescriptor().getDependencies().toArray(new Descriptors.FileDescriptor[0]))
                    .findMessageTypeByName("P4Info");
        } catch (Descriptors.DescriptorValidationException e) {
            throw new IllegalStateException("P4Runtime 1.4's P4Info fields do not fit the 1.3 descriptor", e);
        }
    }

    private static DescriptorProtos.FieldDescriptorProto field(String name, int number, Type14 type, String typeName,
                                                               boolean repeated) {
        DescriptorProtos.FieldDescriptorProto.Builder f = DescriptorProtos.FieldDescriptorProto.newBuilder().setName(name)
                .setNumber(number).setType(type.proto).setLabel(repeated ? DescriptorProtos.FieldDescriptorProto.Label.LABEL_REPEATED
                        : DescriptorProtos.FieldDescriptorProto.Label.LABEL_OPTIONAL);
        return (typeName == null ? f : f.setTypeName(typeName)).build();
    }

    private enum Type14 {
        UINT32(DescriptorProtos.FieldDescriptorProto.Type.TYPE_UINT32), INT32(DescriptorProtos.FieldDescriptorProto.Type.TYPE_INT32),
        BOOL(DescriptorProtos.FieldDescriptorProto.Type.TYPE_BOOL), BYTES(DescriptorProtos.FieldDescriptorProto.Type.TYPE_BYTES),
        MESSAGE(DescriptorProtos.FieldDescriptorProto.Type.TYPE_MESSAGE);

        final DescriptorProtos.FieldDescriptorProto.Type proto;

        Type14(DescriptorProtos.FieldDescriptorProto.Type proto) {
            this.proto = proto;
        }
    }

    /**
     * protobuf's text printer logs "Invalid key for map field" at INFO for every two entries of a map
     * (type_info's) it sorts in a DynamicMessage, then sorts them right; held here so the level stays.
     */
    private static final java.util.logging.Logger TEXT_FORMAT_LOG = quiet(java.util.logging.Logger.getLogger(TextFormat.class.getName()));

    private static java.util.logging.Logger quiet(java.util.logging.Logger log) {
        log.setLevel(java.util.logging.Level.WARNING);
        return log;
    }

    /** The P4Info in protobuf text format, P4Runtime 1.4's fields written by their names, in field order, as p4c writes them. */
    public static String text(P4Info info) {
        try {
            return TextFormat.printer().printToString(DynamicMessage.parseFrom(P4INFO_1_4, info.toByteString()));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("a P4Info that does not parse as itself", e);
        }
    }

    /**
     * The P4Info for readers built on P4Runtime 1.3 (ONOS 2.7 parses P4Info text strictly with its
     * classes, and refuses a field they lack): has_initial_entries, initial_default_action and
     * sum_of_weights left out, which only inform (the last is what 1.3 assumes). A
     * profile with sum_of_members cannot be told, as its groups would be sized otherwise: an error.
     */
    public static P4Info withoutP4Runtime14Fields(P4Info info) {
        P4Info.Builder b = info.toBuilder();
        for (var ap : b.getActionProfilesList()) {
            if (NewerFields.maxMemberWeight(ap) >= 0) {
                throw new IllegalArgumentException("action profile " + ap.getPreamble().getName() + " sizes its groups by their"
                        + " members (@selector_size_semantics(\"sum_of_members\")), which P4Runtime 1.3 cannot express;"
                        + " use P4Runtime 1.4's P4Info");
            }
        }
        for (var t : b.getTablesBuilderList()) {
            t.setUnknownFields(UnknownFieldSet.newBuilder(t.getUnknownFields()).clearField(NewerFields.TABLE_HAS_INITIAL_ENTRIES)
                    .clearField(NewerFields.TABLE_INITIAL_DEFAULT_ACTION).build());
        }
        for (var ap : b.getActionProfilesBuilderList()) {
            ap.setUnknownFields(UnknownFieldSet.newBuilder(ap.getUnknownFields()).clearField(NewerFields.ACTION_PROFILE_SUM_OF_WEIGHTS)
                    .build());
        }
        return b.build();
    }

    private static MatchField.MatchType matchType(Table.MatchKind k) {
        switch (k) {
            case EXACT: return MatchField.MatchType.EXACT;
            case LPM: return MatchField.MatchType.LPM;
            case TERNARY: return MatchField.MatchType.TERNARY;
            case RANGE: return MatchField.MatchType.RANGE;
            default: return MatchField.MatchType.OPTIONAL;
        }
    }

    private static MeterSpec.Unit meterUnit(int meterType) {
        return meterType == Externs.METER_BYTES ? MeterSpec.Unit.BYTES : MeterSpec.Unit.PACKETS;
    }

    private static CounterSpec.Unit unit(int counterType) {
        return counterType == 0 ? CounterSpec.Unit.PACKETS : counterType == 1 ? CounterSpec.Unit.BYTES : CounterSpec.Unit.BOTH;
    }

    private static Map<String, List<String>> annotationsOf(Program p, String kind, String name) {
        return p.objectAnnotations.getOrDefault(kind + " " + name, Map.of());
    }

    /** ID, name, alias, and the documentation @brief and @description give (as p4c fills Preamble.doc). */
    private Preamble preamble(int prefix, String name, Map<String, List<String>> annotations) {
        return preamble(prefix, name, name, annotations);
    }

    /** idName: the name the ID is hashed from (a controller header's is its header type's, as p4c hashes it). */
    private Preamble preamble(int prefix, String name, String idName, Map<String, List<String>> annotations) {
        Preamble.Builder b = Preamble.newBuilder().setId(idFor(prefix, idName, annotations)).setName(name);
        String brief = docText(annotations.get("brief"));
        String description = docText(annotations.get("description"));
        if (brief != null || description != null) {
            Documentation.Builder doc = b.getDocBuilder();
            if (brief != null) {
                doc.setBrief(brief);
            }
            if (description != null) {
                doc.setDescription(description);
            }
        }
        return b.build();
    }

    /** An annotation's string (the frontend took it from its quotes); null without one. */
    private static String docText(List<String> body) {
        return body == null || body.isEmpty() ? null : body.get(0);
    }

    /** Every @id the program gives (the frontend checked their prefixes and that they differ), before any name is hashed. */
    private void reserveExplicitIds(Program p) {
        for (Map.Entry<String, Map<String, List<String>>> e : p.objectAnnotations.entrySet()) {
            Integer prefix = ID_PREFIXES.get(e.getKey().substring(0, e.getKey().indexOf(' ')));
            List<String> id = e.getValue().get("id");
            if (prefix != null && id != null && !id.isEmpty()) {
                used.add(explicitId(prefix, id.get(0)));
            }
        }
    }

    private static int explicitId(int prefix, String given) {
        long v = Long.decode(given);
        return v < (1 << 24) ? (prefix << 24) | (int) v : (int) v;
    }

    private int id(String name) {
        Integer id = ids.get(name);
        if (id == null) {
            throw new IllegalStateException("no ID assigned to " + name);
        }
        return id;
    }

    private int idFor(int prefix, String name, Map<String, List<String>> annotations) {
        String key = prefix + ":" + name;
        Integer known = ids.get(key);
        if (known != null) {
            return known;
        }
        int id;
        List<String> given = annotations.get("id");
        if (given != null && !given.isEmpty()) {
            id = explicitId(prefix, given.get(0));
        } else {
            int h = hash(name) & 0xFFFFFF;
            id = (prefix << 24) | h;
            while (used.contains(id)) {
                h = (h + 1) & 0xFFFFFF;
                id = (prefix << 24) | h;
            }
        }
        used.add(id);
        ids.put(key, id);
        ids.put(name, id);
        return id;
    }

    /** Jenkins' one-at-a-time hash of the UTF-8 name. */
    static int hash(String name) {
        int h = 0;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h += b & 0xFF;
            h += h << 10;
            h ^= h >>> 6;
        }
        h += h << 3;
        h ^= h >>> 11;
        h += h << 15;
        return h;
    }
}
