package org.nat64fabric.core.event.ipfix;

import static org.nat64fabric.core.event.ipfix.InformationElement.DESTINATION_IPV6_ADDRESS;
import static org.nat64fabric.core.event.ipfix.InformationElement.DESTINATION_TRANSPORT_PORT;
import static org.nat64fabric.core.event.ipfix.InformationElement.MAX_ENTRIES_PER_USER;
import static org.nat64fabric.core.event.ipfix.InformationElement.NAT_EVENT;
import static org.nat64fabric.core.event.ipfix.InformationElement.NAT_QUOTA_EXCEEDED_EVENT;
import static org.nat64fabric.core.event.ipfix.InformationElement.OBSERVATION_TIME_MILLISECONDS;
import static org.nat64fabric.core.event.ipfix.InformationElement.PORT_RANGE_END;
import static org.nat64fabric.core.event.ipfix.InformationElement.PORT_RANGE_NUM_PORTS;
import static org.nat64fabric.core.event.ipfix.InformationElement.PORT_RANGE_START;
import static org.nat64fabric.core.event.ipfix.InformationElement.PORT_RANGE_STEP_SIZE;
import static org.nat64fabric.core.event.ipfix.InformationElement.POST_NAPT_DESTINATION_TRANSPORT_PORT;
import static org.nat64fabric.core.event.ipfix.InformationElement.POST_NAPT_SOURCE_TRANSPORT_PORT;
import static org.nat64fabric.core.event.ipfix.InformationElement.POST_NAT_DESTINATION_IPV4_ADDRESS;
import static org.nat64fabric.core.event.ipfix.InformationElement.POST_NAT_SOURCE_IPV4_ADDRESS;
import static org.nat64fabric.core.event.ipfix.InformationElement.PROTOCOL_IDENTIFIER;
import static org.nat64fabric.core.event.ipfix.InformationElement.SOURCE_IPV6_ADDRESS;
import static org.nat64fabric.core.event.ipfix.InformationElement.SOURCE_TRANSPORT_PORT;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.nat64fabric.core.event.NatEvent;
import org.nat64fabric.core.event.NatEvent.Type;

/**
 * The templates the exporter announces, after RFC 8158 section 4.4's event templates: each starts
 * with the time stamp (observationTimeMilliseconds), ends with natEvent, and holds the event's
 * own fields between. Template IDs are fixed, so that a collector's cached templates stay right
 * across controller restarts (over UDP a collector keeps them until refreshed, RFC 7011 8.4).
 */
public final class NatTemplate {
    /** NAT64 session create and delete, with the destination. */
    public static final NatTemplate NAT64_SESSION = new NatTemplate(256,
            EnumSet.of(Type.NAT64_SESSION_CREATE, Type.NAT64_SESSION_DELETE),
            SOURCE_IPV6_ADDRESS, POST_NAT_SOURCE_IPV4_ADDRESS, PROTOCOL_IDENTIFIER, SOURCE_TRANSPORT_PORT,
            POST_NAPT_SOURCE_TRANSPORT_PORT, DESTINATION_IPV6_ADDRESS, POST_NAT_DESTINATION_IPV4_ADDRESS,
            DESTINATION_TRANSPORT_PORT, POST_NAPT_DESTINATION_TRANSPORT_PORT);
    /** The same without the destination, optional in RFC 8158 (logDestination false, RFC 6888 REQ-12). */
    public static final NatTemplate NAT64_SESSION_NO_DESTINATION = new NatTemplate(257,
            EnumSet.of(Type.NAT64_SESSION_CREATE, Type.NAT64_SESSION_DELETE),
            SOURCE_IPV6_ADDRESS, POST_NAT_SOURCE_IPV4_ADDRESS, PROTOCOL_IDENTIFIER, SOURCE_TRANSPORT_PORT,
            POST_NAPT_SOURCE_TRANSPORT_PORT);
    /** NAT64 BIB create and delete. */
    public static final NatTemplate NAT64_BIB = new NatTemplate(258,
            EnumSet.of(Type.NAT64_BIB_CREATE, Type.NAT64_BIB_DELETE),
            SOURCE_IPV6_ADDRESS, POST_NAT_SOURCE_IPV4_ADDRESS, PROTOCOL_IDENTIFIER, SOURCE_TRANSPORT_PORT,
            POST_NAPT_SOURCE_TRANSPORT_PORT);
    /** Port block allocation and de-allocation. */
    public static final NatTemplate PORT_BLOCK = new NatTemplate(259,
            EnumSet.of(Type.PORT_BLOCK_ALLOCATION, Type.PORT_BLOCK_DEALLOCATION),
            SOURCE_IPV6_ADDRESS, POST_NAT_SOURCE_IPV4_ADDRESS, PROTOCOL_IDENTIFIER, PORT_RANGE_START, PORT_RANGE_END,
            PORT_RANGE_STEP_SIZE, PORT_RANGE_NUM_PORTS);
    /** Addresses or ports exhausted: the protocol whose pool4 ran out. */
    public static final NatTemplate EXHAUSTED = new NatTemplate(260,
            EnumSet.of(Type.NAT_ADDRESSES_EXHAUSTED, Type.NAT_PORTS_EXHAUSTED), PROTOCOL_IDENTIFIER);
    /** Quota exceeded, maximum entries per user. */
    public static final NatTemplate QUOTA_EXCEEDED = new NatTemplate(261,
            EnumSet.of(Type.QUOTA_EXCEEDED),
            NAT_QUOTA_EXCEEDED_EVENT, MAX_ENTRIES_PER_USER, SOURCE_IPV6_ADDRESS);

    /** Every template, as sent at start and at each refresh. */
    public static final List<NatTemplate> ALL = List.of(NAT64_SESSION, NAT64_SESSION_NO_DESTINATION, NAT64_BIB,
            PORT_BLOCK, EXHAUSTED, QUOTA_EXCEEDED);

    /** RFC 7011 3.3.2: the Set ID of a Template Set. */
    static final int TEMPLATE_SET_ID = 2;

    public final int id;
    private final Set<Type> types;
    /** The event's own fields, without the time stamp and natEvent. */
    private final List<InformationElement> fields;
    /** Every element, in record order. */
    public final List<InformationElement> elements;
    /** Octets of one data record. */
    public final int recordLength;

    private NatTemplate(int id, Set<Type> types, InformationElement... fields) {
        this.id = id;
        this.types = types;
        this.fields = List.of(fields);
        List<InformationElement> all = new ArrayList<>();
        all.add(OBSERVATION_TIME_MILLISECONDS);
        all.addAll(this.fields);
        all.add(NAT_EVENT);
        this.elements = List.copyOf(all);
        this.recordLength = all.stream().mapToInt(e -> e.length).sum();
    }

    /** The template whose event types and fields are the event's, if any. */
    public static Optional<NatTemplate> of(NatEvent event) {
        Set<String> names = Set.copyOf(event.fieldNames());
        for (NatTemplate t : ALL) {
            if (t.types.contains(event.type()) && t.fields.size() == names.size()
                    && t.fields.stream().map(f -> f.ianaName).collect(Collectors.toSet()).equals(names)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }

    /** Octets of its Template Record (RFC 7011 3.4.1): ID, field count, then each field's ID and length. */
    int templateRecordLength() {
        return 4 + 4 * elements.size();
    }
}
