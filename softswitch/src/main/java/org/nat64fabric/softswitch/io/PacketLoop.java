package org.nat64fabric.softswitch.io;

import com.sun.jna.Memory;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.nat64fabric.softswitch.server.Device;

/**
 * The data-plane thread: takes batches of frames from every port's receive ring, runs them through
 * the device, then hands the transmit queues to the {@link Transmitter}s' threads, which flush
 * them while this one goes on. It sleeps in poll() when all receive rings are idle.
 *
 * <p>The ports are shared out among as many transmit threads as there are cores (port i to thread
 * i mod n), because a send on a veth runs the peer's whole receive path on the sending thread:
 * through one switch carrying TCP, one thread sending both ways carried both hosts' TCP stacks
 * and was the limit (at 92 % of a core while the data-plane thread was at 44 %).
 */
public final class PacketLoop implements Runnable {
    private static final Logger LOG = Logger.getLogger("softswitch");
    private static final int BATCH = 64;
    private static final int POLL_MS = 100;

    private final Device device;
    private final AfPacketPort[] ports;
    private final Transmitter[] transmitters;
    private volatile boolean running = true;

    public PacketLoop(Device device, List<AfPacketPort> ports) {
        this.device = device;
        this.ports = ports.toArray(new AfPacketPort[0]);
        int threads = Math.max(1, Math.min(this.ports.length, Runtime.getRuntime().availableProcessors()));
        this.transmitters = new Transmitter[threads];
        for (int k = 0; k < threads; k++) {
            List<AfPacketPort> share = new ArrayList<>();
            for (int i = k; i < this.ports.length; i += threads) {
                share.add(this.ports[i]);
            }
            transmitters[k] = new Transmitter(share.toArray(new AfPacketPort[0]));
        }
    }

    @Override
    public void run() {
        Thread[] threads = new Thread[transmitters.length];
        for (int k = 0; k < threads.length; k++) {
            threads[k] = new Thread(transmitters[k], "transmit-" + k);
            threads[k].setDaemon(true);
            threads[k].start();
        }
        try {
            loop();
        } finally {
            for (Transmitter t : transmitters) {
                t.stop();
            }
            try {
                for (Thread t : threads) {
                    t.join(1000);
                }
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
                try {
                    for (AfPacketPort p : ports) {
                        received += p.receive(BATCH, (frame, length, port) -> device.receive(port, frame, length));
                    }
                } finally {
                    for (Transmitter t : transmitters) {
                        t.wake();   // after a fault too: what the batch queued before it goes out now
                    }
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
