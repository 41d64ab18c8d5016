package org.nat64fabric.core.config;

import org.nat64fabric.core.ConfigException;

/**
 * Control-plane policing of punts, as routers police what reaches their CPU: the pipeline's
 * packet meters limit the packets each ingress port, and each source (a hash bucket of the
 * source address), may send to the controller; the excess is dropped in the switch and counted.
 * Rates in packets per second, bursts in packets.
 *
 * <p>Defaults: a subscriber opens a few flows per second and a page load a few dozen at once, each
 * TCP flow punting its miss and its SYN/FIN copies, so 500 per second with a burst of 250 (half a
 * second) never touches a normal host, even with a few sharing a hash bucket, yet holds one host
 * to a twentieth of the controller's 10 000 setups per second. A port carries many subscribers:
 * 20 000 per second with a burst of 5 000 (a quarter second) lets a port's fair share through,
 * and two ports still cannot queue more than the controller clears in a few seconds.
 */
public final class PuntPolicing {
    public static final PuntPolicing DEFAULTS = new PuntPolicing(20_000, 5_000, 500, 250);
    /** Far above any switch's punt path; keeps rates inside the meters' 64-bit fields with room. */
    static final long MAX = 100_000_000;

    public final long perPortPps;
    public final long perPortBurst;
    public final long perSourcePps;
    public final long perSourceBurst;

    private PuntPolicing(long perPortPps, long perPortBurst, long perSourcePps, long perSourceBurst) {
        this.perPortPps = perPortPps;
        this.perPortBurst = perPortBurst;
        this.perSourcePps = perSourcePps;
        this.perSourceBurst = perSourceBurst;
    }

    /** Errors name the field by its name alone ({@code perPortPps}); the reader puts them under its path. */
    public static PuntPolicing of(long perPortPps, long perPortBurst, long perSourcePps, long perSourceBurst) {
        check("perPortPps", perPortPps);
        check("perPortBurst", perPortBurst);
        check("perSourcePps", perSourcePps);
        check("perSourceBurst", perSourceBurst);
        return new PuntPolicing(perPortPps, perPortBurst, perSourcePps, perSourceBurst);
    }

    private static void check(String field, long value) {
        checkMeterValue(field, value, " (a meter that lets nothing through would cut the controller off)");
    }

    /** A meter's rate or burst from the config: 1 to {@link #MAX}; {@code why} ends the error. */
    static void checkMeterValue(String field, long value, String why) {
        if (value < 1 || value > MAX) {
            throw new ConfigException(field, value + " is not from 1 to " + MAX + why);
        }
    }

    @Override
    public String toString() {
        return "per port " + perPortPps + " pps (burst " + perPortBurst + "), per source " + perSourcePps
                + " pps (burst " + perSourceBurst + ")";
    }
}
