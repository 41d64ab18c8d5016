package org.nat64fabric.softswitch.io;

import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The thread that flushes the ports' transmit queues, so that the data-plane thread goes on
 * interpreting while the kernel sends. A send on a veth runs the frame through the peer's
 * receive path (IP, TCP, waking the receiver) in the sender's thread, at a third of the
 * data-plane thread's time when that thread did it itself. The data-plane thread calls
 * {@link #wake()} after a batch; this thread flushes every port with frames queued until none
 * has any, then sleeps. It does not spin waiting for more: on a machine of few cores the spin
 * takes the time of the threads that make the traffic (measured: a 20 µs spin cost a fifth of
 * the throughput through iperf3 on 2 cores, a 100 µs one a third).
 */
final class Transmitter implements Runnable {
    private static final Logger LOG = Logger.getLogger("softswitch");
    /** A flush that failed is tried again after this long. */
    private static final long RETRY_NS = 1_000_000;
    /**
     * With nothing queued the thread sleeps until {@link #wake()}; this is only a backstop. Woken
     * every millisecond instead, an idle switch of four ports used 5.7 % of a core (1.3 % so).
     */
    private static final long IDLE_NS = 100_000_000;
    /** What {@link #flushAll()} did. */
    private static final int NOTHING = 0;
    private static final int SENT = 1;
    private static final int FAILED = 2;

    private final AfPacketPort[] ports;
    private volatile boolean running = true;
    private volatile boolean sleeping;
    private volatile Thread thread;

    Transmitter(AfPacketPort[] ports) {
        this.ports = ports;
        for (AfPacketPort p : ports) {
            p.retryFailedFlushesWith(this::wake);
        }
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
        while (running) {
            try {
                int flushed = flushAll();
                if (flushed == SENT) {
                    continue;
                }
                if (flushed == FAILED) {
                    LockSupport.parkNanos(this, RETRY_NS);   // e.g. ENOBUFS or a link down: try again in a while
                    continue;
                }
                sleeping = true;
                if (!anyPending()) {   // looked at after announcing the sleep: a frame queued before it is seen
                    LockSupport.parkNanos(this, IDLE_NS);
                }
                sleeping = false;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "transmit loop: internal error, going on", e);
            }
        }
        flushAll();
    }

    /** Flushes every port with frames queued: NOTHING queued, all SENT, or some FAILED and stay queued. */
    private int flushAll() {
        int result = NOTHING;
        for (AfPacketPort p : ports) {
            if (p.hasPending()) {
                result = Math.max(result, p.transmit() ? SENT : FAILED);
            }
        }
        return result;
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
