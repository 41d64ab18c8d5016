package org.nat64fabric.softswitch.runtime;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import java.math.BigInteger;

/**
 * Fields P4Runtime 1.4 added that the generated classes we build on (P4Runtime 1.3) do not know:
 * protobuf keeps them as unknown fields, read and written here by their field numbers.
 */
public final class NewerFields {
    /** TableEntry.meter_counter_data (MeterCounterData), 1.4. */
    public static final int TABLE_ENTRY_METER_COUNTER_DATA = 12;
    /** MeterEntry.counter_data (MeterCounterData), 1.4. */
    public static final int METER_ENTRY_COUNTER_DATA = 4;
    /** DirectMeterEntry.counter_data (MeterCounterData), 1.4. */
    public static final int DIRECT_METER_ENTRY_COUNTER_DATA = 3;
    /** TableEntry.is_const (bool), 1.4: set by the server in reads, false in writes. */
    public static final int TABLE_ENTRY_IS_CONST = 13;
    /** Replica.port (bytes, an SDN port), 1.4; egress_port (field 1) is deprecated. */
    public static final int REPLICA_PORT = 3;
    /** MulticastGroupEntry.metadata (bytes, opaque to the switch, read back as written), 1.4. */
    public static final int MULTICAST_GROUP_METADATA = 3;
    /** WriteRequest.role and SetForwardingPipelineConfigRequest.role (string), 1.4. */
    public static final int REQUEST_ROLE = 6;
    /** Role.name (string), 1.4. */
    public static final int ROLE_NAME = 3;
    /** MeterConfig.eburst (int64), 1.4: for single-rate meters, which v1model has none of. */
    public static final int METER_CONFIG_EBURST = 5;
    /** ActionProfileGroup.Member.watch_port and ActionProfileAction.watch_port (bytes), 1.4; watch (field 3) is deprecated. */
    public static final int WATCH_PORT = 4;
    /** P4Info ActionProfile.sum_of_members (SumOfMembers, whose field 1 is max_member_weight), 1.4. */
    public static final int ACTION_PROFILE_SUM_OF_MEMBERS = 7;
    /** P4Info ActionProfile.sum_of_weights (SumOfWeights, empty), 1.4: groups sized by their weights, as 1.3 sizes them. */
    public static final int ACTION_PROFILE_SUM_OF_WEIGHTS = 6;
    /** P4Info Table.initial_default_action (TableActionCall), 1.4. */
    public static final int TABLE_INITIAL_DEFAULT_ACTION = 5;
    /** P4Info Table.has_initial_entries (bool), 1.4: the program gives the table entries, const or not. */
    public static final int TABLE_HAS_INITIAL_ENTRIES = 11;

    /**
     * The max_member_weight of an ActionProfile's sum_of_members: -1 when the profile has none (its
     * groups are sized by the sum of their weights), 0 when it sets no limit.
     */
    public static long maxMemberWeight(Message actionProfile) {
        ByteString b = bytes(actionProfile, ACTION_PROFILE_SUM_OF_MEMBERS);
        if (b == null) {
            return -1;
        }
        try {
            var weights = UnknownFieldSet.parseFrom(b).getField(1).getVarintList();
            return weights.isEmpty() ? 0 : weights.get(weights.size() - 1);
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            return 0;
        }
    }

    /**
     * A MeterCounterData (1.4: CounterData green = 1, yellow = 2, red = 3) from colour counts:
     * packets and bytes of GREEN, YELLOW, RED.
     */
    public static ByteString meterCounterData(long[] counts) {
        UnknownFieldSet.Builder b = UnknownFieldSet.newBuilder();
        for (int color = 0; color < 3; color++) {
            ByteString data = p4.v1.P4RuntimeOuterClass.CounterData.newBuilder().setPacketCount(counts[2 * color])
                    .setByteCount(counts[2 * color + 1]).build().toByteString();
            b.mergeField(color + 1, UnknownFieldSet.Field.newBuilder().addLengthDelimited(data).build());
        }
        return b.build().toByteString();
    }

    /**
     * Whether field {@code number} of {@code m} is MeterCounterData of zeros only (the only counts a
     * write may give, 9.1.9): every copy (a parser merges them) length-delimited, each holding at
     * most green, yellow and red CounterData of no packets and no bytes.
     */
    public static boolean meterCountsAreZeros(Message m, int number) {
        UnknownFieldSet.Field copies = m.getUnknownFields().getField(number);
        if (copies.getLengthDelimitedList().isEmpty() || !copies.getVarintList().isEmpty() || !copies.getFixed32List().isEmpty()
                || !copies.getFixed64List().isEmpty() || !copies.getGroupList().isEmpty()) {
            return false;
        }
        try {
            for (ByteString copy : copies.getLengthDelimitedList()) {
                for (var field : UnknownFieldSet.parseFrom(copy).asMap().entrySet()) {
                    if (field.getKey() < 1 || field.getKey() > 3 || !field.getValue().getVarintList().isEmpty()
                            || !field.getValue().getFixed32List().isEmpty() || !field.getValue().getFixed64List().isEmpty()) {
                        return false;
                    }
                    for (ByteString data : field.getValue().getLengthDelimitedList()) {
                        var c = p4.v1.P4RuntimeOuterClass.CounterData.parseFrom(data);
                        if (c.getPacketCount() != 0 || c.getByteCount() != 0) {
                            return false;
                        }
                    }
                }
            }
            return true;
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            return false;
        }
    }

    private NewerFields() {
    }

    public static boolean has(Message m, int number) {
        return m.getUnknownFields().hasField(number);
    }

    /** The last value of a length-delimited field (bytes, string, message), or null when absent. */
    public static ByteString bytes(Message m, int number) {
        var values = m.getUnknownFields().getField(number).getLengthDelimitedList();
        return values.isEmpty() ? null : values.get(values.size() - 1);
    }

    public static String string(Message m, int number) {
        ByteString b = bytes(m, number);
        return b == null ? null : b.toStringUtf8();
    }

    /** The last value of a varint field (bool, integers), 0 when absent. */
    public static long varint(Message m, int number) {
        var values = m.getUnknownFields().getField(number).getVarintList();
        return values.isEmpty() ? 0 : values.get(values.size() - 1);
    }

    /** {@code b} with a length-delimited field added to its unknown fields. */
    public static <B extends Message.Builder> B withBytes(B b, int number, ByteString value) {
        b.setUnknownFields(UnknownFieldSet.newBuilder(b.getUnknownFields())
                .mergeField(number, UnknownFieldSet.Field.newBuilder().addLengthDelimited(value).build()).build());
        return b;
    }

    /**
     * {@code b} with its length-delimited field {@code number}, when set and not empty, made a
     * canonical P4Runtime bytestring (8.4: replies carry the shortest string of the value).
     */
    public static <B extends Message.Builder> B withCanonicalBytes(B b, int number) {
        var values = b.getUnknownFields().getField(number).getLengthDelimitedList();
        if (values.isEmpty() || values.get(values.size() - 1).isEmpty()) {
            return b;
        }
        ByteString value = Entities.bytes(new BigInteger(1, values.get(values.size() - 1).toByteArray()));
        b.setUnknownFields(UnknownFieldSet.newBuilder(b.getUnknownFields()).clearField(number)
                .addField(number, UnknownFieldSet.Field.newBuilder().addLengthDelimited(value).build()).build());
        return b;
    }

    /** {@code b} with a varint field added to its unknown fields. */
    public static <B extends Message.Builder> B withVarint(B b, int number, long value) {
        b.setUnknownFields(UnknownFieldSet.newBuilder(b.getUnknownFields())
                .mergeField(number, UnknownFieldSet.Field.newBuilder().addVarint(value).build()).build());
        return b;
    }
}
