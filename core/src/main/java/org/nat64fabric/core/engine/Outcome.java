package org.nat64fabric.core.engine;

import java.util.Optional;
import org.nat64fabric.core.session.Session;

/**
 * What to do with a packet the controller saw: translate it with {@code session} (after
 * writing the session's entries when {@code reprogram} is set), or drop it, answering with
 * {@code icmpError} when there is one.
 */
public final class Outcome {
    /** ICMP errors the controller sends in place of a dropped packet. */
    public enum IcmpError {
        /** ICMPv6 Destination Unreachable, code 3 (address unreachable): RFC 6146 3.5.1.1, no mapping possible. */
        V6_ADDRESS_UNREACHABLE
    }

    private final Session session;
    private final boolean reprogram;
    private final String dropReason;
    private final IcmpError icmpError;

    private Outcome(Session session, boolean reprogram, String dropReason, IcmpError icmpError) {
        this.session = session;
        this.reprogram = reprogram;
        this.dropReason = dropReason;
        this.icmpError = icmpError;
    }

    static Outcome translate(Session session, boolean reprogram) {
        return new Outcome(session, reprogram, null, null);
    }

    static Outcome drop(String reason) {
        return new Outcome(null, false, reason, null);
    }

    static Outcome refuse(String reason, IcmpError error) {
        return new Outcome(null, false, reason, error);
    }

    public boolean translated() {
        return session != null;
    }

    public Optional<Session> session() {
        return Optional.ofNullable(session);
    }

    /** The session's table entries must be (re)written: a new BIB entry or session, or a new lifetime. */
    public boolean reprogram() {
        return reprogram;
    }

    public Optional<String> dropReason() {
        return Optional.ofNullable(dropReason);
    }

    public Optional<IcmpError> icmpError() {
        return Optional.ofNullable(icmpError);
    }

    @Override
    public String toString() {
        return session != null ? "translate " + session + (reprogram ? " (reprogram)" : "")
                : "drop: " + dropReason + (icmpError != null ? " (" + icmpError + ")" : "");
    }
}
