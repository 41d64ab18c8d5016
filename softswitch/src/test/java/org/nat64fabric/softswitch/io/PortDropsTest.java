package org.nat64fabric.softswitch.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.server.Device;

/** Drops are counted per port and reason, warned about at the first, then summed at most every interval. */
class PortDropsTest {
    private final List<String> warnings = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override public void publish(LogRecord r) {
            if (r.getLevel() == Level.WARNING) {
                warnings.add(r.getMessage());
            }
        }

        @Override public void flush() {
        }

        @Override public void close() {
        }
    };
    private final Logger log = Logger.getLogger("softswitch");
    private Device device;
    private long now;

    @BeforeEach
    void setUp() {
        log.addHandler(capture);
        device = new Device(1, 255);
    }

    @AfterEach
    void tearDown() {
        log.removeHandler(capture);
        device.close();
    }

    @Test
    void countsEachReasonPerPortAndWarnsOnceThenSummed() {
        PortDrops port2 = new PortDrops(device, 2, "veth2", () -> now);
        PortDrops port3 = new PortDrops(device, 3, "veth3", () -> now);
        port2.drop("tx oversize", () -> "1520-byte frame, MTU 1500");
        assertEquals(1, warnings.size());
        assertTrue(warnings.get(0).startsWith("port 2 (veth2): dropped a frame (tx oversize: 1520-byte"),
                warnings.get(0));
        for (int i = 0; i < 99; i++) {
            now += PortDrops.LOG_INTERVAL_NS / 100;
            port2.drop("tx oversize", () -> "1520-byte frame, MTU 1500");
        }
        assertEquals(1, warnings.size(), "no more than one warning per interval");
        now += PortDrops.LOG_INTERVAL_NS / 100;
        port2.drop("tx oversize", () -> "1520-byte frame, MTU 1500");
        assertEquals(2, warnings.size());
        assertTrue(warnings.get(1).contains("100 more frames dropped") && warnings.get(1).endsWith("101 in all"),
                warnings.get(1));
        port2.drop("tx refused by the kernel", () -> "Message too long (errno 90)");
        port3.drop("tx oversize", () -> "9000-byte frame, MTU 1500");
        assertEquals(4, warnings.size(), "a new reason or a new port is warned about at once");

        assertEquals(101L, device.stats().get("drop: port 2 (veth2) tx oversize"));
        assertEquals(1L, device.stats().get("drop: port 2 (veth2) tx refused by the kernel"));
        assertEquals(1L, device.stats().get("drop: port 3 (veth3) tx oversize"));

        port3.drop("rx ring full", 76, () -> "the switch took frames in slower than they came");
        assertTrue(warnings.get(4).startsWith("port 3 (veth3): dropped 76 frames (rx ring full: the switch"), warnings.get(4));
        assertEquals(76L, device.stats().get("drop: port 3 (veth3) rx ring full"));
    }

    @Test
    void maxFrameLengthIsMtuPlusEthernetHeaderAndVlanTag() {
        byte[] untagged = new byte[1514];
        untagged[12] = (byte) 0x86;
        untagged[13] = (byte) 0xdd;
        assertEquals(1514, AfPacketPort.maxFrameLength(untagged, untagged.length, 1500));
        byte[] tagged = new byte[1518];
        tagged[12] = (byte) 0x81;
        assertEquals(1518, AfPacketPort.maxFrameLength(tagged, tagged.length, 1500));
    }
}
