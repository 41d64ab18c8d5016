package org.nat64fabric.softswitch.io;

import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The thread that flushes the ports' transmit rings, so that the data-plane thread goes on
 * interpreting while the kernel sends. A send() on a veth runs the frame through the peer's
 * receive path (IP, TCP, waking the receiver) in the sender's thread, at a third of the
 * data-plane thread's time when that thread did it itself. The data-plane thread calls
 * {@link #wake()} after a batch; this thread flushes every port with frames queued, looks again
 * for a short while (frames keep coming under load, and a wake-up costs more than a look), then sleeps.
 */
final class Transmitter implements Runnable {
    private static final Logger LOG = Logger.getLogger("softswitch");
    /** How long to look for more frames before sleeping. */
    private static final long LINGER_NS = 20_000;
    /** Sleeps are this long at most, so a flush that left frames queued (ENOBUFS) is tried again. */
    private static final long SLEEP_NS = 1_000_000;

    private final AfPacketPort[] ports;
    private volatile boolean running = true;
    private volatile boolean sleeping;
    private volatile Thread thread;

    Transmitter(AfPacketPort[] ports) {
        this.ports = ports;
    }

    /** Called after a batch: makes sure that the frames it queued are flushed soon. */
    void wake() {
        if (sleeping && anyPending()) {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        long idleSince = System.nanoTime();
        while (running) {
            try {
                if (flushAll()) {
                    idleSince = System.nanoTime();
                    continue;
                }
                if (System.nanoTime() - idleSince < LINGER_NS) {
                    Thread.onSpinWait();
                    continue;
                }
                sleeping = true;
                if (!anyPending()) {   // looked at after announcing the sleep: a frame queued before it is seen
                    LockSupport.parkNanos(this, SLEEP_NS);
                }
                sleeping = false;
                idleSince = System.nanoTime();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "transmit loop: internal error, going on", e);
            }
        }
        flushAll();
    }

    /** Flushes every port with frames queued; whether there was one. */
    private boolean flushAll() {
        boolean any = false;
        for (AfPacketPort p : ports) {
            if (p.hasPending()) {
                any = true;
                p.flush();
            }
        }
        return any;
    }

    private boolean anyPending() {
        for (AfPacketPort p : ports) {
            if (p.hasPending()) {
                return true;
            }
        }
        return false;
    }

    void stop() {
        running = false;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
