package org.nat64fabric.core.session;

import org.nat64fabric.core.ConfigException;

/**
 * RFC 6146 section 4 session lifetimes, in seconds, with the RFC's floors: UDP at least 2 min
 * (default 5), TCP established at least 2 h 4 min, TCP transitory at least 4 min, an inbound
 * SYN waits 6 s, ICMP queries 60 s.
 */
public final class Timeouts {
    public static final Timeouts DEFAULTS = new Timeouts(300, 7440, 240, 6, 60);

    public final long udp;
    public final long tcpEstablished;
    public final long tcpTransitory;
    public final long tcpIncomingSyn;
    public final long icmp;

    private Timeouts(long udp, long tcpEstablished, long tcpTransitory, long tcpIncomingSyn, long icmp) {
        this.udp = udp;
        this.tcpEstablished = tcpEstablished;
        this.tcpTransitory = tcpTransitory;
        this.tcpIncomingSyn = tcpIncomingSyn;
        this.icmp = icmp;
    }

    public static Timeouts of(long udp, long tcpEstablished, long tcpTransitory, long tcpIncomingSyn, long icmp) {
        atLeast("timeouts.udp", udp, 120, "RFC 6146 4: UDP_MIN is 2 min");
        atLeast("timeouts.tcpEstablished", tcpEstablished, 7440, "RFC 6146 4: TCP_EST is at least 2 h 4 min");
        atLeast("timeouts.tcpTransitory", tcpTransitory, 240, "RFC 6146 4: TCP_TRANS is at least 4 min");
        atLeast("timeouts.tcpIncomingSyn", tcpIncomingSyn, 6, "RFC 6146 4: TCP_INCOMING_SYN is at least 6 s");
        atLeast("timeouts.icmp", icmp, 1, "ICMP query sessions need a lifetime");
        return new Timeouts(udp, tcpEstablished, tcpTransitory, tcpIncomingSyn, icmp);
    }

    private static void atLeast(String field, long value, long floor, String why) {
        if (value < floor) {
            throw new ConfigException(field, value + " s is below " + floor + " s (" + why + ")");
        }
    }
}
