package org.nat64fabric.core.config;

import java.util.Optional;
import org.nat64fabric.core.addr.Ipv4Prefix;

/**
 * The ICMP errors the switches send themselves (Time Exceeded, Packet Too Big, Destination
 * Unreachable, Parameter Problem): how many per second each ingress port may send (RFC 4443
 * 2.4(f) requires a limit, RFC 1812 4.3.2.8 asks for one), and whether an IPv4 UDP packet to a
 * pool4 address that no BIB entry maps is answered with Port Unreachable (RFC 6146 3.5.1) or
 * dropped silently; and the RFC 6791 pool, the IPv4 sources of ICMPv6 errors from IPv6 routers
 * that have no EAM, translated to ICMPv4 (without one, such an error comes from the translated
 * address of the host it is about, which routes back to the NAT64 but hides the router).
 *
 * <p>Defaults: 1 000 errors per second per port with a burst of 200 lets traceroute and path-MTU
 * discovery of a whole access network through, yet keeps a flood of packets that all draw an
 * error from turning the switch into a reflector at line rate. A rate of 0 sends none (RFC 7915
 * 4.4, 5.4: the operator SHOULD be able to have them sent, rate-limited or not sent).
 */
public final class IcmpErrors {
    public static final IcmpErrors DEFAULTS = new IcmpErrors(1_000, 200, true, null);

    public final long perPortPps;
    public final long perPortBurst;
    /** RFC 6146 3.5.1: UDP to pool4 without a BIB entry gets Destination Unreachable, Port Unreachable. */
    public final boolean unmappedPortUnreachable;
    private final Ipv4Prefix rfc6791Pool;

    private IcmpErrors(long perPortPps, long perPortBurst, boolean unmappedPortUnreachable, Ipv4Prefix rfc6791Pool) {
        this.perPortPps = perPortPps;
        this.perPortBurst = perPortBurst;
        this.unmappedPortUnreachable = unmappedPortUnreachable;
        this.rfc6791Pool = rfc6791Pool;
    }

    /**
     * Errors name the field by its name alone; the reader puts them under its path. A
     * {@code perPortPps} of 0 sends no error, and makes the burst 0 whatever it says.
     */
    public static IcmpErrors of(long perPortPps, long perPortBurst, boolean unmappedPortUnreachable,
                                Optional<Ipv4Prefix> rfc6791Pool) {
        if (perPortPps == 0) {
            return new IcmpErrors(0, 0, unmappedPortUnreachable, rfc6791Pool.orElse(null));
        }
        PuntPolicing.checkMeterValue("perPortPps", perPortPps, " (or 0: no errors sent)");
        PuntPolicing.checkMeterValue("perPortBurst", perPortBurst, "");
        return new IcmpErrors(perPortPps, perPortBurst, unmappedPortUnreachable, rfc6791Pool.orElse(null));
    }

    /** Whether the switches send ICMP errors of their own at all. */
    public boolean sent() {
        return perPortPps > 0;
    }

    /** RFC 6791: where translated ICMPv6 errors from routers without an EAM come from, if configured. */
    public Optional<Ipv4Prefix> rfc6791Pool() {
        return Optional.ofNullable(rfc6791Pool);
    }

    @Override
    public String toString() {
        return (sent() ? "per port " + perPortPps + " errors/s (burst " + perPortBurst + ")" : "no errors sent")
                + ", unmapped UDP "
                + (unmappedPortUnreachable ? "answered Port Unreachable" : "dropped silently")
                + (rfc6791Pool == null ? "" : ", RFC 6791 pool " + rfc6791Pool);
    }
}
