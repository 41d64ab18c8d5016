package org.nat64fabric.core.event;

import java.util.Collections;
import java.util.Map;

/**
 * A NAT event for logging and export, named as RFC 8158 names it: the {@code natEvent} value
 * and the IPFIX information elements of its template, each with its IANA name
 * (sourceIPv6Address, postNATSourceIPv4Address, portRangeStart, ...), in template order.
 */
public final class NatEvent {
    /** RFC 8158 natEvent values (its section 4.1.1 table) this NAT64 produces. */
    public enum Type {
        NAT_ADDRESSES_EXHAUSTED(3), NAT64_SESSION_CREATE(6), NAT64_SESSION_DELETE(7), NAT64_BIB_CREATE(10),
        NAT64_BIB_DELETE(11), NAT_PORTS_EXHAUSTED(12), QUOTA_EXCEEDED(13), PORT_BLOCK_ALLOCATION(16),
        PORT_BLOCK_DEALLOCATION(17);

        public final int natEvent;

        Type(int natEvent) {
            this.natEvent = natEvent;
        }
    }

    private final Type type;
    private final long observationTimeMilliseconds;
    private final Map<String, Object> fields;

    /** {@code fields}: a map of the event's own, which {@link NatEvents} builds for it and hands over. */
    NatEvent(Type type, long observationTimeMilliseconds, Map<String, Object> fields) {
        this.type = type;
        this.observationTimeMilliseconds = observationTimeMilliseconds;
        this.fields = Collections.unmodifiableMap(fields);
    }

    public Type type() {
        return type;
    }

    public long observationTimeMilliseconds() {
        return observationTimeMilliseconds;
    }

    /** The template's information elements other than natEvent and the timestamp. */
    public Map<String, Object> fields() {
        return fields;
    }

    /** One log line: {@code natEvent=4 observationTimeMilliseconds=... sourceIPv6Address=...}. */
    @Override
    public String toString() {
        return appendTo(new StringBuilder(256)).toString();
    }

    /** Appends the log line to {@code line}: a writer that reuses its builder makes no string per event. */
    public StringBuilder appendTo(StringBuilder line) {
        line.append("natEvent=").append(type.natEvent).append(" (").append(type)
                .append(") observationTimeMilliseconds=").append(observationTimeMilliseconds);
        fields.forEach((name, value) -> {
            line.append(' ').append(name).append('=');
            if (value instanceof Integer) {
                line.append((int) (Integer) value);   // append(Object) would make a string of it first
            } else {
                line.append(value);
            }
        });
        return line;
    }
}
