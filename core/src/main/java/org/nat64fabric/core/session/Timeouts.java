package org.nat64fabric.core.session;

import org.nat64fabric.core.ConfigException;

/**
 * RFC 6146 section 4 session lifetimes, in seconds, with the RFC's floors: UDP at least 2 min
 * (default 5), TCP established at least 2 h 4 min, TCP transitory at least 4 min, an inbound
 * SYN waits 6 s, ICMP queries at least 60 s. A lab may go below the floors, saying so.
 */
public final class Timeouts {
    public static final Timeouts DEFAULTS = new Timeouts(300, 7440, 240, 6, 60, false);

    public final long udp;
    public final long tcpEstablished;
    public final long tcpTransitory;
    public final long tcpIncomingSyn;
    public final long icmp;
    /** Set by a lab that watches sessions age: some lifetime may be below its RFC floor. */
    public final boolean belowRfcMinimums;

    private Timeouts(long udp, long tcpEstablished, long tcpTransitory, long tcpIncomingSyn, long icmp,
                     boolean belowRfcMinimums) {
        this.udp = udp;
        this.tcpEstablished = tcpEstablished;
        this.tcpTransitory = tcpTransitory;
        this.tcpIncomingSyn = tcpIncomingSyn;
        this.icmp = icmp;
        this.belowRfcMinimums = belowRfcMinimums;
    }

    /**
     * The lifetimes, each at least its RFC floor; with {@code belowRfcMinimums} (a lab's setting,
     * to watch sessions age in seconds) at least 1 s.
     */
    public static Timeouts of(long udp, long tcpEstablished, long tcpTransitory, long tcpIncomingSyn, long icmp,
                              boolean belowRfcMinimums) {
        atLeast("timeouts.udp", udp, 120, belowRfcMinimums, "RFC 6146 4: UDP_MIN is 2 min");
        atLeast("timeouts.tcpEstablished", tcpEstablished, 7440, belowRfcMinimums,
                "RFC 6146 4: TCP_EST is at least 2 h 4 min");
        atLeast("timeouts.tcpTransitory", tcpTransitory, 240, belowRfcMinimums, "RFC 6146 4: TCP_TRANS is at least 4 min");
        atLeast("timeouts.tcpIncomingSyn", tcpIncomingSyn, 6, belowRfcMinimums,
                "RFC 6146 4: TCP_INCOMING_SYN is at least 6 s");
        atLeast("timeouts.icmp", icmp, 60, belowRfcMinimums,
                "RFC 6146 3.5.3 and RFC 5508 REQ-2: an ICMP query session lives at least 60 s");
        return new Timeouts(udp, tcpEstablished, tcpTransitory, tcpIncomingSyn, icmp, belowRfcMinimums);
    }

    private static void atLeast(String field, long value, long rfcFloor, boolean belowRfcMinimums, String why) {
        if (value < 1) {
            throw new ConfigException(field, value + " s: a lifetime is at least 1 s");
        }
        if (value < rfcFloor && !belowRfcMinimums) {
            throw new ConfigException(field, value + " s is below " + rfcFloor + " s (" + why
                    + "); timeouts.belowRfcMinimums: true allows it, in a lab");
        }
    }
}
