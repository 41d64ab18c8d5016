package org.nat64fabric.core.event.ipfix;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.event.NatEvent;

/** The encoder against RFC 7011's wire format, read back here octet by octet. */
class MessageBuilderTest {
    @Test
    void everyEventTheEngineBuildsHasATemplateOfItsOwnFields() {
        for (NatEvent e : Events.everyKind()) {
            NatTemplate t = NatTemplate.of(e).orElseThrow(() -> new AssertionError("no template for " + e));
            List<String> names = t.elements.stream().map(x -> x.ianaName).collect(Collectors.toList());
            assertEquals("observationTimeMilliseconds", names.get(0));
            assertEquals("natEvent", names.get(names.size() - 1));
            assertEquals(List.copyOf(e.fields().keySet()), names.subList(1, names.size() - 1), e.toString());
        }
        assertEquals(List.of(256, 257, 258, 259, 260, 261),
                NatTemplate.ALL.stream().map(t -> t.id).collect(Collectors.toList()),
                "fixed IDs from 256 (RFC 7011 3.4.1)");
    }

    @Test
    void theHeaderCarriesVersionLengthExportTimeSequenceAndDomain() {
        MessageBuilder m = new MessageBuilder(IpfixExporter.MAX_MESSAGE_LENGTH);
        assertTrue(m.isEmpty());
        assertTrue(m.addRecord(NatTemplate.NAT64_BIB, Events.everyKind().get(4)));
        ByteBuffer b = ByteBuffer.wrap(m.finish(1_795_511_469L, 0xffff_ffffL, 4_000_000_000L));
        assertEquals(10, b.getShort(0), "version");
        assertEquals(b.capacity(), b.getShort(2), "length");
        assertEquals(1_795_511_469L, Integer.toUnsignedLong(b.getInt(4)), "export time, seconds");
        assertEquals(0xffff_ffffL, Integer.toUnsignedLong(b.getInt(8)), "sequence number");
        assertEquals(4_000_000_000L, Integer.toUnsignedLong(b.getInt(12)), "observation domain");
    }

    @Test
    void aTemplateRecordListsEachElementsIanaIdAndLength() {
        MessageBuilder m = new MessageBuilder(IpfixExporter.MAX_MESSAGE_LENGTH);
        assertTrue(m.addTemplate(NatTemplate.NAT64_BIB));
        ByteBuffer b = ByteBuffer.wrap(m.finish(0, 0, 1));
        b.position(16);
        assertEquals(2, b.getShort(), "Template Set ID");
        assertEquals(4 + 4 + 7 * 4, b.getShort(), "set length: header, template header, 7 field specifiers");
        assertEquals(258, b.getShort());
        assertEquals(7, b.getShort(), "field count");
        int[][] fields = {{323, 8}, {27, 16}, {225, 4}, {4, 1}, {7, 2}, {227, 2}, {230, 1}};
        for (int[] f : fields) {
            assertEquals(f[0], b.getShort(), "IANA element ID, enterprise bit clear");
            assertEquals(f[1], b.getShort(), "length");
        }
        assertFalse(b.hasRemaining());
        assertEquals(0, new MessageBuilder(100).dataRecords(), "templates are not data records");
    }

    @Test
    void aSessionRecordIsItsElementsInNetworkOrder() {
        MessageBuilder m = new MessageBuilder(IpfixExporter.MAX_MESSAGE_LENGTH);
        NatEvent created = Events.everyKind().get(0);
        assertTrue(m.addRecord(NatTemplate.of(created).orElseThrow(), created));
        byte[] message = m.finish(0, 0, 1);
        StringBuilder set = new StringBuilder();
        for (int i = 16; i < message.length; i++) {
            set.append(String.format("%02x", message[i]));
        }
        assertEquals("0100" + "003e"                       // Set ID 256, length 4 + 58
                + "000001a20cd2c3d8"                       // observationTimeMilliseconds 1795511469016
                + "20010db8000100000000000000000005"       // sourceIPv6Address
                + "c0000209" + "11" + "1388" + "0401"      // postNATSourceIPv4Address, UDP, 5000, 1025
                + "0064ff9b0000000000000000c6336407"       // destinationIPv6Address
                + "c6336407" + "0035" + "0035"             // postNATDestinationIPv4Address, 53, 53
                + "06", set.toString());                           // natEvent 6: NAT64 session create (RFC 8158)
        assertEquals(1, m.dataRecords());
    }

    @Test
    void recordsOfOneTemplateShareASetAndMessagesNeverOutgrowTheirLimit() {
        List<NatEvent> events = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            events.add(Events.everyKind().get(i % 2 == 0 || i > 50 ? 0 : 4));
        }
        List<byte[]> messages = new ArrayList<>();
        MessageBuilder m = new MessageBuilder(IpfixExporter.MAX_MESSAGE_LENGTH);
        int records = 0;
        for (NatEvent e : events) {
            NatTemplate t = NatTemplate.of(e).orElseThrow();
            if (!m.addRecord(t, e)) {
                records += m.dataRecords();
                messages.add(m.finish(0, 0, 1));
                m = new MessageBuilder(IpfixExporter.MAX_MESSAGE_LENGTH);
                assertTrue(m.addRecord(t, e));
            }
        }
        records += m.dataRecords();
        messages.add(m.finish(0, 0, 1));
        assertEquals(100, records);
        assertTrue(messages.size() > 1);
        int decoded = 0;
        for (byte[] message : messages) {
            assertTrue(message.length <= 1232, "fits IPv6's minimum MTU with the IPv6 and UDP headers");
            ByteBuffer b = ByteBuffer.wrap(message);
            int at = 16;
            while (at < message.length) {                 // the sets tile the message exactly
                int id = b.getShort(at);
                int length = b.getShort(at + 2);
                int recordLength = id == 256 ? 58 : 34;   // a session with its destination; a BIB entry
                assertEquals(0, (length - 4) % recordLength, "whole records only");
                decoded += (length - 4) / recordLength;
                at += length;
            }
            assertEquals(message.length, at);
        }
        assertEquals(100, decoded);
        byte[] last = messages.get(messages.size() - 1);   // session records only: one set
        assertEquals(last.length - 16, ByteBuffer.wrap(last).getShort(18));
    }

    @Test
    void aValueTooLargeForItsElementIsRefused() {
        ByteBuffer out = ByteBuffer.allocate(8);
        assertThrows(IllegalArgumentException.class, () -> InformationElement.PROTOCOL_IDENTIFIER.write(out, 256));
        assertThrows(IllegalArgumentException.class, () -> InformationElement.SOURCE_TRANSPORT_PORT.write(out, -1));
        InformationElement.MAX_ENTRIES_PER_USER.write(out, 0xffff_ffffL);
        assertArrayEquals(new byte[] {-1, -1, -1, -1}, Arrays.copyOf(out.array(), 4));
    }
}
