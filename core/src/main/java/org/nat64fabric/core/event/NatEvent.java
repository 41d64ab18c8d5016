package org.nat64fabric.core.event;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
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
    /** The fields' names, one list per kind of event, shared; their values in the same order. */
    private final List<String> names;
    private final Object[] values;

    /** {@code names}: a list {@link NatEvents} keeps per kind of event; {@code values}: one per name. */
    NatEvent(Type type, long observationTimeMilliseconds, List<String> names, Object... values) {
        this.type = type;
        this.observationTimeMilliseconds = observationTimeMilliseconds;
        this.names = names;
        this.values = values;
    }

    public Type type() {
        return type;
    }

    public long observationTimeMilliseconds() {
        return observationTimeMilliseconds;
    }

    /** The names of the template's information elements other than natEvent and the timestamp, in order. */
    public List<String> fieldNames() {
        return names;
    }

    /** The value of the information element {@code name}, or null when the event has none of that name. */
    public Object field(String name) {
        int i = names.indexOf(name);
        return i < 0 ? null : values[i];
    }

    /**
     * The fields by name, in order: made at each call (an event holds two arrays, not a map, as
     * two events go to the log at every setup).
     */
    public Map<String, Object> fields() {
        Map<String, Object> out = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            out.put(names.get(i), values[i]);
        }
        return Collections.unmodifiableMap(out);
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
        for (int i = 0; i < values.length; i++) {
            line.append(' ').append(names.get(i)).append('=');
            if (values[i] instanceof Integer) {
                line.append((int) (Integer) values[i]);   // append(Object) would make a string of it first
            } else {
                line.append(values[i]);
            }
        }
        return line;
    }
}
