package org.nat64fabric.core.event.ipfix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.config.IpfixConfig;
import org.nat64fabric.core.event.NatEvent;

/** The exporter over UDP on loopback, a socket of the test's standing in for the collector. */
class IpfixExporterTest {
    private static final long DOMAIN = 77;

    /** The next datagram, as a buffer; fails after 5 s. */
    private static ByteBuffer receive(DatagramSocket collector) throws Exception {
        DatagramPacket p = new DatagramPacket(new byte[65535], 65535);
        collector.receive(p);
        return ByteBuffer.wrap(p.getData(), 0, p.getLength());
    }

    /** Data Records in the message: the lengths of its data sets over the record lengths of their templates. */
    private static int dataRecords(ByteBuffer m) {
        int records = 0;
        for (int at = 16; at < m.limit(); at += m.getShort(at + 2)) {
            int id = m.getShort(at);
            if (id >= 256) {
                int length = NatTemplate.ALL.stream().filter(t -> t.id == id).findFirst().orElseThrow().recordLength;
                records += (m.getShort(at + 2) - 4) / length;
            }
        }
        return records;
    }

    @Test
    void templatesGoFirstAndAgainEachRefreshAndSequenceNumbersCountDataRecords() throws Exception {
        try (DatagramSocket collector = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            collector.setSoTimeout(5000);
            IpfixConfig config = IpfixConfig.of("127.0.0.1", collector.getLocalPort(), DOMAIN, 1);
            IpfixExporter exporter = new IpfixExporter(config, () -> 1_795_511_469_016L);
            ByteBuffer first = receive(collector);
            assertEquals(2, first.getShort(16), "a Template Set first");
            assertEquals(0, first.getInt(8), "no data record sent yet");
            assertEquals(DOMAIN, first.getInt(12));
            assertEquals(1_795_511_469L, first.getInt(4), "export time in seconds");

            List<NatEvent> events = Events.everyKind();
            events.forEach(exporter);
            long expected = 0;
            int templateMessages = 0;
            long deadline = System.currentTimeMillis() + 4000;
            while (System.currentTimeMillis() < deadline) {   // the events, and the refresh at 1 s
                ByteBuffer m = receive(collector);
                assertEquals(expected, Integer.toUnsignedLong(m.getInt(8)), "records sent before this message");
                if (m.getShort(16) == 2) {
                    templateMessages++;
                }
                expected += dataRecords(m);
                if (expected == events.size() && templateMessages >= 2) {
                    break;
                }
            }
            assertEquals(events.size(), expected);
            assertTrue(templateMessages >= 2, "templates sent again every refresh: " + templateMessages);
            exporter.close();
            Map<String, Long> counters = exporter.counters();
            assertEquals((long) events.size(), counters.get("ipfix.exported"));
            assertEquals(0L, counters.get("ipfix.dropped"));
            assertEquals(0L, counters.get("ipfix.sendFailed"));
        }
    }

    @Test
    void acceptNeverWaitsAndCountsWhatItCannotQueue() throws Exception {
        try (DatagramSocket collector = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            IpfixConfig config = IpfixConfig.of("127.0.0.1", collector.getLocalPort(), DOMAIN, 600);
            IpfixExporter exporter = new IpfixExporter(config, System::currentTimeMillis);
            NatEvent e = Events.everyKind().get(0);
            int offered = 3 * IpfixExporter.QUEUE_CAPACITY;
            long start = System.nanoTime();
            for (int i = 0; i < offered; i++) {
                exporter.accept(e);
            }
            long perEventNanos = (System.nanoTime() - start) / offered;
            exporter.close();
            exporter.accept(e);                                  // after close: counted, not queued
            Map<String, Long> c = exporter.counters();
            assertEquals(offered + 1L, c.get("ipfix.exported") + c.get("ipfix.dropped") + c.get("ipfix.sendFailed"),
                    c::toString);
            assertTrue(c.get("ipfix.dropped") >= 1, c::toString);
            assertTrue(perEventNanos < 50_000, "accept took " + perEventNanos + " ns an event");
        }
    }
}
