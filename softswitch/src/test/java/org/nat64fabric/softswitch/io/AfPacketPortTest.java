package org.nat64fabric.softswitch.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.server.Device;

/**
 * A real port on a veth pair, in a network namespace of the test's own (so nothing leaves it):
 * a frame the link cannot carry is dropped and counted, whether softswitch, the kernel or the
 * device refuses it, and the frames after it are sent; frames queued while the link is down go out
 * when it is up again; frames go out in order round the end of the queue; a VLAN-tagged frame
 * arrives as it was sent; frames the receive ring had no room for are counted. Needs root, as {@code softswitch run} does.
 */
class AfPacketPortTest {
    private static final int CLONE_NEWNET = 0x40000000;
    private static final int EXPERIMENTAL_ETHERTYPE = 0x88b5;

    interface Unshare extends Library {
        int unshare(int flags);
    }

    @Test
    void oversizeFrameIsDroppedAndCountedAndLaterFramesAreSent() throws Exception {
        inPrivateNamespace(() -> {
            ip("link", "set", "ssA", "mtu", "1280");
            Device device = new Device(1, 255);
            try (AfPacketPort a = new AfPacketPort("ssA", 1, device); AfPacketPort b = new AfPacketPort("ssB", 2, device)) {
                send(a, frame(1, 1280 + 14 + 1));
                send(a, frame(2, 1280 + 14));
                send(a, frame(3, 60));
                a.flush();
                assertEquals(List.of(2, 3), received(b, 2));
                assertEquals(1L, device.stats().get("drop: port 1 (ssA) tx oversize"));
            } finally {
                device.close();
            }
            return null;
        });
    }

    @Test
    void frameTheKernelRefusesIsCountedAndDoesNotBlockTheFramesBehindIt() throws Exception {
        inPrivateNamespace(() -> {
            Device device = new Device(1, 255);
            try (AfPacketPort a = new AfPacketPort("ssA", 1, device); AfPacketPort b = new AfPacketPort("ssB", 2, device)) {
                // softswitch read 1500 when it opened the port and keeps that for a second: the kernel refuses.
                ip("link", "set", "ssA", "mtu", "1280");
                send(a, frame(1, 100));
                send(a, frame(2, 1400));
                send(a, frame(3, 100));
                send(a, frame(4, 100));
                a.flush();
                send(a, frame(5, 100));
                a.flush();
                assertEquals(List.of(1, 3, 4, 5), received(b, 4));
                assertEquals(1L, device.stats().get("drop: port 1 (ssA) tx refused by the kernel"));
                assertNull(device.stats().get("drop: port 1 (ssA) tx oversize"));
            } finally {
                device.close();
            }
            return null;
        });
    }

    @Test
    void frameRefusedWhileTheQueueWasFullDoesNotBlockTheFramesBehindIt() throws Exception {
        inPrivateNamespace(() -> {
            Device device = new Device(1, 255);
            try (AfPacketPort a = new AfPacketPort("ssA", 1, device); AfPacketPort b = new AfPacketPort("ssB", 2, device)) {
                ip("link", "set", "ssA", "mtu", "1280");   // softswitch still believes 1500: the kernel refuses frame 3
                int queue = 1024;
                for (int seq = 1; seq <= queue; seq++) {
                    send(a, frame(seq, seq == 3 ? 1400 : 100));   // fills the transmit queue, nothing sent yet
                }
                assertEquals(List.of(), received(b, 0));
                // No room for this one: send() itself has the kernel take the queue, refused frame and all.
                send(a, frame(queue + 1, 100));
                List<Integer> expected = new ArrayList<>();
                for (int seq = 1; seq <= queue; seq++) {
                    if (seq != 3) {
                        expected.add(seq);
                    }
                }
                assertEquals(expected, received(b, expected.size()));
                a.flush();
                assertEquals(List.of(queue + 1), received(b, 1));
                assertEquals(1L, device.stats().get("drop: port 1 (ssA) tx refused by the kernel"));
                assertNull(device.stats().get("drop: port 1 (ssA) tx ring full"));
            } finally {
                device.close();
            }
            return null;
        });
    }

    @Test
    void frameTheDeviceDropsAgainAndAgainIsCountedAndDoesNotBlockTheFramesBehindIt() throws Exception {
        inPrivateNamespace(() -> {
            Device device = new Device(1, 255);
            try (AfPacketPort a = new AfPacketPort("ssA", 1, device); AfPacketPort b = new AfPacketPort("ssB", 2, device)) {
                // ssA takes 1500 bytes, but the veth drops what its peer ssB could not take (ENOBUFS).
                ip("link", "set", "ssB", "mtu", "1280");
                send(a, frame(1, 100));
                send(a, frame(2, 1400));
                send(a, frame(3, 100));
                int flushes = 1;
                while (!a.transmit() && flushes < 10) {   // as the transmit thread does, a millisecond apart
                    Thread.sleep(1);
                    flushes++;
                }
                assertEquals(3, flushes);   // dropped three times in a row, then counted as refused
                assertEquals(List.of(1, 3), received(b, 2));
                assertEquals(1L, device.stats().get("drop: port 1 (ssA) tx refused by the kernel"));
            } finally {
                device.close();
            }
            return null;
        });
    }

    @Test
    void framesAroundTheEndOfTheQueueGoOutInOrder() throws Exception {
        inPrivateNamespace(() -> {
            Device device = new Device(1, 255);
            try (AfPacketPort a = new AfPacketPort("ssA", 1, device); AfPacketPort b = new AfPacketPort("ssB", 2, device)) {
                for (int[] run : new int[][] {{1, 1000}, {1001, 1100}}) {   // the second from slot 1000 round to slot 75
                    List<Integer> expected = new ArrayList<>();
                    for (int seq = run[0]; seq <= run[1]; seq++) {
                        send(a, frame(seq, 60 + seq % 700));
                        expected.add(seq);
                    }
                    a.flush();
                    assertEquals(expected, received(b, expected.size()));
                }
            } finally {
                device.close();
            }
            return null;
        });
    }

    @Test
    void aFlushThatLeavesFramesQueuedAsksTheTransmitThreadToTryAgain() throws Exception {
        // A packet-out flushes on its gRPC thread, which does not come back: the port's transmit
        // thread, asleep until woken, must hear of frames an error of the moment left behind.
        inPrivateNamespace(() -> {
            Device device = new Device(1, 255);
            try (AfPacketPort a = new AfPacketPort("ssA", 1, device); AfPacketPort b = new AfPacketPort("ssB", 2, device)) {
                AtomicInteger asked = new AtomicInteger();
                a.retryFailedFlushesWith(asked::incrementAndGet);
                send(a, frame(1, 100));
                a.flush();
                assertEquals(List.of(1), received(b, 1));
                assertEquals(0, asked.get());   // sent: nothing to try again
                ip("link", "set", "ssA", "down");
                send(a, frame(2, 100));
                a.flush();   // ENETDOWN: the frame stays queued
                assertEquals(1, asked.get());
                assertEquals(true, a.hasPending());
            } finally {
                device.close();
            }
            return null;
        });
    }

    @Test
    void framesQueuedWhileTheLinkIsDownGoOutWhenItComesBackAndTheExcessIsCounted() throws Exception {
        inPrivateNamespace(() -> {
            Device device = new Device(1, 255);
            try (AfPacketPort a = new AfPacketPort("ssA", 1, device); AfPacketPort b = new AfPacketPort("ssB", 2, device)) {
                ip("link", "set", "ssA", "down");
                int queue = 1024;
                for (int seq = 1; seq <= queue + 5; seq++) {
                    send(a, frame(seq, 100));   // the last five find every slot taken and the kernel refusing
                }
                assertEquals(false, a.transmit());   // ENETDOWN: an error of the moment, the frames stay queued
                assertEquals(5L, device.stats().get("drop: port 1 (ssA) tx ring full"));
                assertNull(device.stats().get("drop: port 1 (ssA) tx refused by the kernel"));
                ip("link", "set", "ssA", "up");
                List<Integer> expected = new ArrayList<>();
                for (int seq = 1; seq <= queue; seq++) {
                    expected.add(seq);
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (!a.transmit() && System.nanoTime() < deadline) {
                    Thread.sleep(10);   // the veth pair's carrier may take a moment
                }
                assertEquals(expected, received(b, expected.size()));
                assertNull(device.stats().get("drop: port 1 (ssA) tx refused by the kernel"));
            } finally {
                device.close();
            }
            return null;
        });
    }

    @Test
    void framesTheReceiveRingHadNoRoomForAreCounted() throws Exception {
        inPrivateNamespace(() -> {
            Device device = new Device(1, 255);
            int ring = 1024;
            int extra = 76;
            try (AfPacketPort a = new AfPacketPort("ssA", 1, device)) {
                try (AfPacketPort b = new AfPacketPort("ssB", 2, device)) {
                    sendNumbered(a, 1, ring + extra);   // b reads none of them yet
                    assertEquals(numbers(1, ring), received(b, ring));
                    // The kernel says so on the next frame the ring takes.
                    assertNull(device.stats().get("drop: port 2 (ssB) rx ring full"));
                    sendNumbered(a, ring + extra + 1, ring + extra + 1);
                    assertEquals(List.of(ring + extra + 1), received(b, 1));
                    assertEquals((long) extra, device.stats().get("drop: port 2 (ssB) rx ring full"));
                    sendNumbered(a, 1, ring + 6);   // no frame after these: closing the port counts them
                }
                assertEquals(extra + 6L, device.stats().get("drop: port 2 (ssB) rx ring full"));
            } finally {
                device.close();
            }
            return null;
        });
    }

    @Test
    void vlanTaggedFrameIsReceivedWithItsTag() throws Exception {
        inPrivateNamespace(() -> {
            Device device = new Device(1, 255);
            try (AfPacketPort a = new AfPacketPort("ssA", 1, device); AfPacketPort b = new AfPacketPort("ssB", 2, device)) {
                for (int tpid : new int[] {0x8100, 0x88a8}) {
                    byte[] untagged = frame(tpid, 64);
                    byte[] tagged = ByteBuffer.allocate(68).put(untagged, 0, 12).putShort((short) tpid)
                            .putShort((short) 0x2123).put(untagged, 12, 52).array();   // priority 1, VLAN 291
                    send(a, tagged);
                    a.flush();
                    assertEquals(List.of(Arrays.toString(tagged)), framesOf(b, tagged.length));
                }
            } finally {
                device.close();
            }
            return null;
        });
    }

    /** Runs {@code body} on a thread of its own in a new network namespace with veth pair ssA/ssB. */
    private static void inPrivateNamespace(Callable<Void> body) throws Exception {
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            thread.submit(() -> {
                // unshare() moves only the calling thread; the ip commands it starts inherit its namespace.
                if (Native.load("c", Unshare.class).unshare(CLONE_NEWNET) != 0) {
                    throw new IllegalStateException("cannot create a network namespace: run as root");
                }
                ip("link", "add", "ssA", "type", "veth", "peer", "name", "ssB");
                // No IPv6 link-local addresses: the kernel then sends no NDP or MLD of its own,
                // which could take receive ring frames a test fills with its own.
                ip("link", "set", "ssA", "addrgenmode", "none");
                ip("link", "set", "ssB", "addrgenmode", "none");
                ip("link", "set", "ssA", "up");
                ip("link", "set", "ssB", "up");
                return body.call();
            }).get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception) {
                throw (Exception) e.getCause();
            }
            throw (Error) e.getCause();
        } finally {
            thread.shutdownNow();
        }
    }

    private static void ip(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(Arrays.asList(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
    }

    private static void send(AfPacketPort port, byte[] frame) {
        port.send(frame, frame.length);
    }

    /** Sends frames {@code first} to {@code last}, flushing before the transmit queue (1024 frames) is full. */
    private static void sendNumbered(AfPacketPort port, int first, int last) {
        for (int seq = first; seq <= last; seq++) {
            send(port, frame(seq, 100));
            if ((seq - first) % 500 == 499) {
                port.flush();
            }
        }
        port.flush();
    }

    private static List<Integer> numbers(int first, int last) {
        List<Integer> out = new ArrayList<>();
        for (int seq = first; seq <= last; seq++) {
            out.add(seq);
        }
        return out;
    }

    /** A broadcast frame of the local experimental EtherType carrying {@code seq}, {@code length} bytes long. */
    private static byte[] frame(int seq, int length) {
        ByteBuffer b = ByteBuffer.allocate(length);
        b.put(new byte[] {-1, -1, -1, -1, -1, -1, 2, 0, 0, 0, 0, 1}).putShort((short) EXPERIMENTAL_ETHERTYPE).putInt(seq);
        return b.array();
    }

    /** The frames of {@code length} bytes that reach {@code port} within 2 s (the kernel's own NDP is shorter). */
    private static List<String> framesOf(AfPacketPort port, int length) throws InterruptedException {
        List<String> frames = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (frames.isEmpty() && System.nanoTime() < deadline) {
            port.receive(64, (f, n, p) -> {
                if (n == length) {
                    frames.add(Arrays.toString(Arrays.copyOf(f, n)));
                }
            });
            Thread.sleep(10);
        }
        return frames;
    }

    /** The sequence numbers of the test's frames that reach {@code port}: up to 2 s for {@code count}, then 100 ms more. */
    private static List<Integer> received(AfPacketPort port, int count) throws InterruptedException {
        List<Integer> seqs = new ArrayList<>();
        AfPacketPort.Receiver ours = (f, n, p) -> {
            ByteBuffer b = ByteBuffer.wrap(f, 0, n);
            if (n >= 18 && (b.getShort(12) & 0xffff) == EXPERIMENTAL_ETHERTYPE) {   // not the kernel's own NDP
                seqs.add(b.getInt(14));
            }
        };
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (seqs.size() < count && System.nanoTime() < deadline) {
            port.receive(64, ours);
            Thread.sleep(10);
        }
        Thread.sleep(100);
        port.receive(64, ours);
        return seqs;
    }
}
