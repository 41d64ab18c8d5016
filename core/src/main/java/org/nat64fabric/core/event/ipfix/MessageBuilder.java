package org.nat64fabric.core.event.ipfix;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.nat64fabric.core.event.NatEvent;

/**
 * One IPFIX Message (RFC 7011 3): the 16-octet header, then Sets of whole records, never longer
 * than the limit it was made with. Consecutive records of one template share a Data Set.
 */
final class MessageBuilder {
    static final int VERSION = 10;
    static final int HEADER_LENGTH = 16;
    static final int SET_HEADER_LENGTH = 4;

    private final ByteBuffer out;
    /** Where the open Set starts, or -1. */
    private int setStart = -1;
    private int setId;
    private int dataRecords;

    MessageBuilder(int maxLength) {
        out = ByteBuffer.allocate(maxLength);
        out.position(HEADER_LENGTH);
    }

    /** Adds the template's Template Record; false when the message has no room for it. */
    boolean addTemplate(NatTemplate t) {
        if (!openSet(NatTemplate.TEMPLATE_SET_ID, t.templateRecordLength())) {
            return false;
        }
        out.putShort((short) t.id).putShort((short) t.elements.size());
        for (InformationElement e : t.elements) {
            out.putShort((short) e.id).putShort((short) e.length);   // enterprise bit 0: IANA elements
        }
        return true;
    }

    /** Adds the event as a Data Record of its template; false when the message has no room for it. */
    boolean addRecord(NatTemplate t, NatEvent event) {
        if (!openSet(t.id, t.recordLength)) {
            return false;
        }
        int start = out.position();
        try {
            for (InformationElement e : t.elements) {
                e.write(out, value(e, event));
            }
        } catch (RuntimeException badValue) {
            out.position(start);   // the message stays whole without it
            throw badValue;
        }
        dataRecords++;
        return true;
    }

    int dataRecords() {
        return dataRecords;
    }

    boolean isEmpty() {
        return out.position() == HEADER_LENGTH;
    }

    /**
     * The message's octets. {@code sequence}: the Data Records sent before it in this
     * Observation Domain, modulo 2^32 (RFC 7011 3.1); {@code exportSeconds}: the time it leaves.
     */
    byte[] finish(long exportSeconds, long sequence, long observationDomainId) {
        closeSet();
        int length = out.position();
        out.putShort(0, (short) VERSION).putShort(2, (short) length).putInt(4, (int) exportSeconds)
                .putInt(8, (int) sequence).putInt(12, (int) observationDomainId);
        return Arrays.copyOf(out.array(), length);
    }

    private static Object value(InformationElement e, NatEvent event) {
        switch (e) {
            case OBSERVATION_TIME_MILLISECONDS:
                return event.observationTimeMilliseconds();
            case NAT_EVENT:
                return event.type().natEvent;
            default:
                return event.field(e.ianaName);
        }
    }

    /** Makes {@code id}'s Set the open one, with room for a record of {@code length} octets. */
    private boolean openSet(int id, int length) {
        if (setStart >= 0 && setId == id) {
            return out.remaining() >= length;
        }
        if (out.remaining() < SET_HEADER_LENGTH + length) {
            return false;
        }
        closeSet();
        setStart = out.position();
        setId = id;
        out.putShort((short) id).putShort((short) 0);   // its length, written when it closes
        return true;
    }

    private void closeSet() {
        if (setStart >= 0) {
            out.putShort(setStart + 2, (short) (out.position() - setStart));
            setStart = -1;
        }
    }
}
