package org.nat64fabric.core.session;

/** RFC 6146 3.5.2.2 states of a TCP session. */
public enum TcpState {
    CLOSED, V4_INIT, V6_INIT, ESTABLISHED, V4_FIN_RCV, V6_FIN_RCV, V4_FIN_V6_FIN_RCV, TRANS
}
