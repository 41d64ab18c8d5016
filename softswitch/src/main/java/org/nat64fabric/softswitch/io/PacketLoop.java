package org.nat64fabric.softswitch.io;

import com.sun.jna.Memory;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.nat64fabric.softswitch.server.Device;

/**
 * The data-plane thread: takes batches of frames from every port's receive ring, runs them through
 * the device, then flushes the transmit rings once per batch. It sleeps in poll() when all are idle.
 */
public final class PacketLoop implements Runnable {
    private static final Logger LOG = Logger.getLogger("softswitch");
    private static final int BATCH = 64;
    private static final int POLL_MS = 100;

    private final Device device;
    private final AfPacketPort[] ports;
    private volatile boolean running = true;

    public PacketLoop(Device device, List<AfPacketPort> ports) {
        this.device = device;
        this.ports = ports.toArray(new AfPacketPort[0]);
    }

    @Override
    public void run() {
        Memory fds = AfPacketPort.pollFds(ports);
        while (running) {
            try {
                int received = 0;
                for (AfPacketPort p : ports) {
                    received += p.receive(BATCH, (frame, port) -> device.receive(port, frame));
                }
                for (AfPacketPort p : ports) {
                    p.flush();
                }
                if (received == 0) {
                    LibC.poll(fds, ports.length, POLL_MS);
                }
            } catch (RuntimeException e) {
                // A fault must cost packets, never the data plane: this thread is the only one that forwards.
                device.count("dataplane: internal error");
                LOG.log(Level.WARNING, "data-plane loop: internal error, going on", e);
            }
        }
    }

    public void stop() {
        running = false;
    }
}
