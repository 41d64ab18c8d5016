package org.nat64fabric.softswitch.io;

import com.sun.jna.Memory;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.nat64fabric.softswitch.server.Device;

/**
 * The data-plane thread: takes batches of frames from every port's receive ring, runs them through
 * the device, then hands the transmit queues to the {@link Transmitter}'s thread, which flushes
 * them while this one goes on. It sleeps in poll() when all receive rings are idle.
 */
public final class PacketLoop implements Runnable {
    private static final Logger LOG = Logger.getLogger("softswitch");
    private static final int BATCH = 64;
    private static final int POLL_MS = 100;

    private final Device device;
    private final AfPacketPort[] ports;
    private final Transmitter transmitter;
    private volatile boolean running = true;

    public PacketLoop(Device device, List<AfPacketPort> ports) {
        this.device = device;
        this.ports = ports.toArray(new AfPacketPort[0]);
        this.transmitter = new Transmitter(this.ports);
    }

    @Override
    public void run() {
        Thread transmit = new Thread(transmitter, "transmit");
        transmit.setDaemon(true);
        transmit.start();
        try {
            loop();
        } finally {
            transmitter.stop();
            try {
                transmit.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void loop() {
        Memory fds = AfPacketPort.pollFds(ports);
        while (running) {
            try {
                int received = 0;
                for (AfPacketPort p : ports) {
                    received += p.receive(BATCH, (frame, length, port) -> device.receive(port, frame, length));
                }
                transmitter.wake();
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
