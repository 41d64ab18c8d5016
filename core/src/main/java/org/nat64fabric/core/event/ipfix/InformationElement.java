package org.nat64fabric.core.event.ipfix;

import java.nio.ByteBuffer;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

/**
 * The IPFIX information elements of the NAT event templates: each by its IANA name (as
 * {@link org.nat64fabric.core.event.NatEvent} names its fields), its element ID in the IANA
 * "IPFIX Information Elements" registry, and the length of its abstract data type (RFC 7011 6.1).
 */
public enum InformationElement {
    PROTOCOL_IDENTIFIER("protocolIdentifier", 4, Kind.UNSIGNED, 1),
    SOURCE_TRANSPORT_PORT("sourceTransportPort", 7, Kind.UNSIGNED, 2),
    DESTINATION_TRANSPORT_PORT("destinationTransportPort", 11, Kind.UNSIGNED, 2),
    SOURCE_IPV6_ADDRESS("sourceIPv6Address", 27, Kind.IPV6, 16),
    DESTINATION_IPV6_ADDRESS("destinationIPv6Address", 28, Kind.IPV6, 16),
    POST_NAT_SOURCE_IPV4_ADDRESS("postNATSourceIPv4Address", 225, Kind.IPV4, 4),
    POST_NAT_DESTINATION_IPV4_ADDRESS("postNATDestinationIPv4Address", 226, Kind.IPV4, 4),
    POST_NAPT_SOURCE_TRANSPORT_PORT("postNAPTSourceTransportPort", 227, Kind.UNSIGNED, 2),
    POST_NAPT_DESTINATION_TRANSPORT_PORT("postNAPTDestinationTransportPort", 228, Kind.UNSIGNED, 2),
    NAT_EVENT("natEvent", 230, Kind.UNSIGNED, 1),
    OBSERVATION_TIME_MILLISECONDS("observationTimeMilliseconds", 323, Kind.UNSIGNED, 8),
    PORT_RANGE_START("portRangeStart", 361, Kind.UNSIGNED, 2),
    PORT_RANGE_END("portRangeEnd", 362, Kind.UNSIGNED, 2),
    PORT_RANGE_STEP_SIZE("portRangeStepSize", 363, Kind.UNSIGNED, 2),
    PORT_RANGE_NUM_PORTS("portRangeNumPorts", 364, Kind.UNSIGNED, 2),
    NAT_QUOTA_EXCEEDED_EVENT("natQuotaExceededEvent", 466, Kind.UNSIGNED, 4),
    MAX_ENTRIES_PER_USER("maxEntriesPerUser", 473, Kind.UNSIGNED, 4);

    /** How a value is written: unsigned integers (and dateTimeMilliseconds) in network byte order. */
    private enum Kind { UNSIGNED, IPV4, IPV6 }

    public final String ianaName;
    public final int id;
    public final int length;
    private final Kind kind;

    InformationElement(String ianaName, int id, Kind kind, int length) {
        this.ianaName = ianaName;
        this.id = id;
        this.kind = kind;
        this.length = length;
    }

    /** Writes {@code value} in this element's {@link #length} octets. */
    void write(ByteBuffer out, Object value) {
        switch (kind) {
            case IPV6:
                Ipv6Address a6 = (Ipv6Address) value;
                out.putLong(a6.high()).putLong(a6.low());
                return;
            case IPV4:
                out.putInt(((Ipv4Address) value).bits());
                return;
            default:
                long n = ((Number) value).longValue();
                if (length < 8 && (n < 0 || n >> (8 * length) != 0)) {
                    throw new IllegalArgumentException(ianaName + ": " + n + " does not fit in " + length + " octets");
                }
                for (int shift = 8 * (length - 1); shift >= 0; shift -= 8) {
                    out.put((byte) (n >>> shift));
                }
        }
    }
}
