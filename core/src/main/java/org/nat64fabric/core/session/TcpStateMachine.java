package org.nat64fabric.core.session;

/**
 * RFC 6146 3.5.2.2, driven by what the controller sees: copies of SYN, FIN and RST segments
 * (each from one side) and idle timeouts reported by the switches. A step gives the next state
 * and the lifetime the session's table entries get; CLOSED means the session is deleted.
 */
public final class TcpStateMachine {
    /** A segment's flags, as the data plane copies them. */
    public enum Segment { SYN, FIN, RST, OTHER }

    /** Which network the segment came from. */
    public enum Side { V6, V4 }

    /** The next state and the lifetime, in seconds, of the session's entries in it. */
    public static final class Step {
        public final TcpState state;
        public final long lifetime;

        Step(TcpState state, long lifetime) {
            this.state = state;
            this.lifetime = lifetime;
        }

        @Override
        public String toString() {
            return state + " (" + lifetime + " s)";
        }
    }

    private final Timeouts t;

    public TcpStateMachine(Timeouts timeouts) {
        this.t = timeouts;
    }

    private Step est(TcpState s) {
        return new Step(s, t.tcpEstablished);
    }

    private Step trans(TcpState s) {
        return new Step(s, t.tcpTransitory);
    }

    public Step onSegment(TcpState state, Side side, Segment seg) {
        boolean v6 = side == Side.V6;
        switch (state) {
            case CLOSED:
                if (seg == Segment.SYN) {
                    return v6 ? trans(TcpState.V6_INIT) : new Step(TcpState.V4_INIT, t.tcpIncomingSyn);
                }
                return new Step(TcpState.CLOSED, 0);
            case V6_INIT:
                if (seg == Segment.SYN) {
                    return v6 ? trans(TcpState.V6_INIT) : est(TcpState.ESTABLISHED);
                }
                return trans(TcpState.V6_INIT);
            case V4_INIT:
                if (seg == Segment.SYN && v6) {
                    return est(TcpState.ESTABLISHED);   // simultaneous open completed
                }
                return new Step(TcpState.V4_INIT, t.tcpIncomingSyn);
            case ESTABLISHED:
                if (seg == Segment.FIN) {
                    return est(v6 ? TcpState.V6_FIN_RCV : TcpState.V4_FIN_RCV);
                }
                if (seg == Segment.RST) {
                    return trans(TcpState.TRANS);
                }
                return est(TcpState.ESTABLISHED);
            case V4_FIN_RCV:
                if (seg == Segment.FIN && v6) {
                    return trans(TcpState.V4_FIN_V6_FIN_RCV);
                }
                return est(TcpState.V4_FIN_RCV);
            case V6_FIN_RCV:
                if (seg == Segment.FIN && !v6) {
                    return trans(TcpState.V4_FIN_V6_FIN_RCV);
                }
                return est(TcpState.V6_FIN_RCV);
            case V4_FIN_V6_FIN_RCV:
                return trans(TcpState.V4_FIN_V6_FIN_RCV);     // lifetime not refreshed by the RFC
            case TRANS:
                if (seg == Segment.FIN) {
                    // Traffic re-establishes the session (RFC 6146), a FIN too: applied to the
                    // re-established session at once.
                    return est(v6 ? TcpState.V6_FIN_RCV : TcpState.V4_FIN_RCV);
                }
                return seg == Segment.RST ? trans(TcpState.TRANS) : est(TcpState.ESTABLISHED);
            default:
                throw new AssertionError(state);
        }
    }

    /**
     * The session's entries went idle for their lifetime. An established session moves to TRANS
     * (the RFC's probe is not sent: a switch cannot originate TCP); every other state closes.
     */
    public Step onIdle(TcpState state) {
        return state == TcpState.ESTABLISHED ? trans(TcpState.TRANS) : new Step(TcpState.CLOSED, 0);
    }
}
