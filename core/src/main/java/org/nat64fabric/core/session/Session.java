package org.nat64fabric.core.session;

import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.pool4.TransportAddress;

/**
 * An RFC 6146 session: a BIB entry talking to one remote IPv4 transport address (Z, z), known on
 * the IPv6 side as (Y', z) with Y' the pool6 representation of Z. TCP sessions carry their
 * state; {@code lifetime} is the idle timeout, in seconds, the session's table entries get.
 */
public final class Session implements Serializable {
    /** Kept in the embedded controller's durable store. */
    private static final long serialVersionUID = 1L;

    private final BibEntry bib;
    private final TransportAddress remote4;
    private final Ipv6Address remote6;
    private final TcpState state;
    private final long lifetime;
    private final long createdMillis;
    /** Made once: the store and its index ask for it at every change. */
    private transient String key;

    public Session(BibEntry bib, TransportAddress remote4, Ipv6Address remote6, TcpState state, long lifetime,
                   long createdMillis) {
        this.bib = bib;
        this.remote4 = remote4;
        this.remote6 = remote6;
        this.state = state;
        this.lifetime = lifetime;
        this.createdMillis = createdMillis;
    }

    public BibEntry bib() {
        return bib;
    }

    public TransportAddress remote4() {
        return remote4;
    }

    public Ipv6Address remote6() {
        return remote6;
    }

    /** The TCP state; empty for UDP and ICMP. */
    public Optional<TcpState> state() {
        return Optional.ofNullable(state);
    }

    public long lifetime() {
        return lifetime;
    }

    public long createdMillis() {
        return createdMillis;
    }

    public Session with(TcpState newState, long newLifetime) {
        Session next = new Session(bib, remote4, remote6, newState, newLifetime, createdMillis);
        next.key = key;   // the same flow, so the same key
        return next;
    }

    public String key() {
        String k = key;
        if (k == null) {
            k = key(bib, remote4);
            key = k;
        }
        return k;
    }

    public static String key(BibEntry bib, TransportAddress remote4) {
        // one builder, not a concatenation of the address's and the transport address's strings:
        // the store builds a session's key several times per setup
        String key6 = bib.key6();
        StringBuilder s = new StringBuilder(key6.length() + 25).append(key6).append(" -> ");
        return remote4.address().appendTo(s).append(':').append(remote4.port()).toString();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Session)) {
            return false;
        }
        Session s = (Session) o;
        return s.bib.equals(bib) && s.remote4.equals(remote4) && s.remote6.equals(remote6) && s.state == state
                && s.lifetime == lifetime && s.createdMillis == createdMillis;
    }

    @Override
    public int hashCode() {
        return Objects.hash(bib, remote4, state, lifetime);
    }

    @Override
    public String toString() {
        return key() + (state != null ? " " + state : "") + " (" + lifetime + " s)";
    }
}
