package org.nat64fabric.softswitch.io;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.logging.Logger;
import org.nat64fabric.softswitch.server.Device;

/**
 * Frames one port dropped, by reason: frames it could not send, frames the kernel could not hand it.
 * Each drop is a device counter ("drop: port 2 (veth2) tx oversize", "drop: port 2 (veth2) rx ring
 * full", printed with the others at shutdown); the first drop of each reason is a warning in the
 * log, later ones are summed into at most one warning per {@link #LOG_INTERVAL_NS}, so a flood of
 * drops cannot flood the log, yet a user watching the log sees that they go on.
 */
final class PortDrops {
    static final long LOG_INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);
    private static final Logger LOG = Logger.getLogger("softswitch");

    private final Device device;
    private final String port;
    private final LongSupplier nanoClock;
    private final Map<String, Tally> tallies = new HashMap<>();

    private static final class Tally {
        final String counter;
        long total;
        long lastLoggedNanos;
        long sinceLogged;

        Tally(String counter) {
            this.counter = counter;
        }
    }

    PortDrops(Device device, int number, String name, LongSupplier nanoClock) {
        this.device = device;
        this.port = "port " + number + " (" + name + ")";
        this.nanoClock = nanoClock;
    }

    /** The counter name of a reason ("tx oversize", "rx ring full"), as {@link Device#stats()} shows it. */
    String counterName(String reason) {
        return "drop: " + port + " " + reason;
    }

    /** One frame lost; {@code detail} is built only when the drop is logged: under a flood of drops, rarely. */
    void drop(String reason, Supplier<String> detail) {
        drop(reason, 1, detail);
    }

    /** {@code frames} frames lost for one reason. */
    synchronized void drop(String reason, long frames, Supplier<String> detail) {
        Tally t = tallies.get(reason);
        if (t == null) {
            t = new Tally(counterName(reason));
            tallies.put(reason, t);
        }
        device.add(t.counter, frames);
        boolean first = t.total == 0;
        t.total += frames;
        t.sinceLogged += frames;
        long now = nanoClock.getAsLong();
        if (first) {
            LOG.warning(port + ": dropped " + (frames == 1 ? "a frame" : frames + " frames") + " (" + reason + ": "
                    + detail.get() + "); further drops of this kind are summed up at most every "
                    + TimeUnit.NANOSECONDS.toSeconds(LOG_INTERVAL_NS) + " s and counted in the totals at shutdown");
        } else if (now - t.lastLoggedNanos >= LOG_INTERVAL_NS) {
            LOG.warning(port + ": " + t.sinceLogged + " more frames dropped (" + reason + ": " + detail.get() + "), "
                    + t.total + " in all");
        } else {
            return;
        }
        t.lastLoggedNanos = now;
        t.sinceLogged = 0;
    }
}
