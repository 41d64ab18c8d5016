package org.nat64fabric.core.config;

import org.nat64fabric.core.ConfigException;

/**
 * How many punted packets wait for a session setup: at most {@link #perSubscriber} from one
 * subscriber and {@link #total} in all. A packet beyond them is refused with ICMPv6 address
 * unreachable (rate-limited) and counted as {@code setups.queueFull}.
 *
 * <p>Defaults: 256 per subscriber is a page load's burst several times over; 65 536 in all is
 * about 16 seconds of the setup rate measured on a 2-core machine (`bench/setup/`), past which
 * waiting longer helps no one (clients retransmit after a second or more), and about 100 MB of
 * full-size packets at most.
 */
public final class SetupQueues {
    public static final SetupQueues DEFAULTS = new SetupQueues(256, 65_536);
    /** Each waiting packet holds its frame: a million of them is already gigabytes. */
    static final long MAX = 1_048_576;

    public final int perSubscriber;
    public final int total;

    private SetupQueues(int perSubscriber, int total) {
        this.perSubscriber = perSubscriber;
        this.total = total;
    }

    /** Errors name the field by its name alone ({@code perSubscriber}); the reader puts them under its path. */
    public static SetupQueues of(long perSubscriber, long total) {
        if (total < 1 || total > MAX) {
            throw new ConfigException("total", total + " is not from 1 to " + MAX);
        }
        if (perSubscriber < 1 || perSubscriber > total) {
            throw new ConfigException("perSubscriber", perSubscriber + " is not from 1 to total (" + total + ")");
        }
        return new SetupQueues((int) perSubscriber, (int) total);
    }

    @Override
    public String toString() {
        return perSubscriber + " per subscriber, " + total + " in all";
    }
}
