package org.nat64fabric.core.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.session.TcpStateMachine.Segment;
import org.nat64fabric.core.session.TcpStateMachine.Side;
import org.nat64fabric.core.session.TcpStateMachine.Step;

class TcpStateMachineTest {
    private final TcpStateMachine m = new TcpStateMachine(Timeouts.DEFAULTS);

    private Step run(TcpState from, Object... events) {
        Step s = new Step(from, 0);
        for (int i = 0; i < events.length; i += 2) {
            s = m.onSegment(s.state, (Side) events[i], (Segment) events[i + 1]);
        }
        return s;
    }

    @Test
    void outboundOpenAndBothFinsCloseAfterTheTransitoryTime() {
        Step s = run(TcpState.CLOSED, Side.V6, Segment.SYN);
        assertEquals(TcpState.V6_INIT, s.state);
        assertEquals(240, s.lifetime);
        s = run(s.state, Side.V4, Segment.SYN);
        assertEquals(TcpState.ESTABLISHED, s.state);
        assertEquals(7440, s.lifetime);
        s = run(s.state, Side.V4, Segment.FIN, Side.V6, Segment.FIN);
        assertEquals(TcpState.V4_FIN_V6_FIN_RCV, s.state);
        assertEquals(240, s.lifetime);
        assertEquals(TcpState.CLOSED, m.onIdle(s.state).state);
    }

    @Test
    void inboundSynWaitsSixSecondsForSimultaneousOpen() {
        Step s = run(TcpState.CLOSED, Side.V4, Segment.SYN);
        assertEquals(TcpState.V4_INIT, s.state);
        assertEquals(6, s.lifetime);
        assertEquals(TcpState.ESTABLISHED, run(s.state, Side.V6, Segment.SYN).state);
        assertEquals(TcpState.CLOSED, m.onIdle(TcpState.V4_INIT).state, "no IPv6 SYN in 6 s: dropped");
    }

    @Test
    void rstMovesToTransitoryAndTrafficBringsItBack() {
        Step s = run(TcpState.ESTABLISHED, Side.V6, Segment.RST);
        assertEquals(TcpState.TRANS, s.state);
        assertEquals(240, s.lifetime);
        assertEquals(TcpState.ESTABLISHED, run(TcpState.TRANS, Side.V4, Segment.OTHER).state);
        assertEquals(TcpState.V6_FIN_RCV, run(TcpState.TRANS, Side.V6, Segment.FIN).state,
                "a FIN after an idle spell closes the re-established session");
        assertEquals(TcpState.CLOSED, m.onIdle(TcpState.TRANS).state);
        assertEquals(TcpState.TRANS, m.onIdle(TcpState.ESTABLISHED).state, "idle established: transitory");
    }

    @Test
    void finFromOneSideKeepsTheSessionEstablishedLong() {
        assertEquals(TcpState.V6_FIN_RCV, run(TcpState.ESTABLISHED, Side.V6, Segment.FIN).state);
        assertEquals(7440, run(TcpState.ESTABLISHED, Side.V6, Segment.FIN).lifetime);
        assertEquals(TcpState.V6_FIN_RCV, run(TcpState.V6_FIN_RCV, Side.V6, Segment.FIN).state, "same side again");
        assertEquals(TcpState.CLOSED, run(TcpState.CLOSED, Side.V6, Segment.FIN).state, "no SYN, no session");
    }

    @Test
    void timeoutsBelowTheRfcFloorsAreRefusedNamingTheField() {
        assertEquals("timeouts.udp", assertThrows(ConfigException.class,
                () -> Timeouts.of(60, 7440, 240, 6, 60, false)).field());
        assertEquals("timeouts.tcpEstablished", assertThrows(ConfigException.class,
                () -> Timeouts.of(300, 3600, 240, 6, 60, false)).field());
        ConfigException icmp = assertThrows(ConfigException.class, () -> Timeouts.of(300, 7440, 240, 6, 59, false));
        assertEquals("timeouts.icmp", icmp.field());
        assertTrue(icmp.problem().contains("RFC 5508 REQ-2") && icmp.problem().contains("belowRfcMinimums"),
                icmp.problem());
        assertEquals(300, Timeouts.of(300, 7440, 240, 6, 60, false).udp);
    }

    @Test
    void aLabMayGoBelowTheFloorsButNotBelowASecond() {
        Timeouts lab = Timeouts.of(2, 3, 4, 1, 2, true);
        assertEquals(2, lab.icmp);
        assertTrue(lab.belowRfcMinimums);
        assertFalse(Timeouts.DEFAULTS.belowRfcMinimums);
        assertEquals("timeouts.icmp", assertThrows(ConfigException.class,
                () -> Timeouts.of(300, 7440, 240, 6, 0, true)).field());
    }
}
