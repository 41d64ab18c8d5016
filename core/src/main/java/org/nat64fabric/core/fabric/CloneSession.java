package org.nat64fabric.core.fabric;

import java.util.List;
import java.util.Objects;

/**
 * A clone session of the packet replication engine (P4Runtime CloneSessionEntry): packets the
 * pipeline clones to {@code sessionId} leave a copy at each of {@code ports}. The replicas'
 * instance numbers are left to the runtime (ONOS numbers them itself): the pipeline ignores them.
 */
public final class CloneSession implements Entity {
    public final int sessionId;
    public final List<Integer> ports;

    public CloneSession(int sessionId, List<Integer> ports) {
        this.sessionId = sessionId;
        this.ports = List.copyOf(ports);
    }

    @Override
    public String key() {
        return "clone session " + sessionId;
    }

    @Override
    public boolean alwaysPresent() {
        return false;
    }

    @Override
    public boolean readable() {
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CloneSession && ((CloneSession) o).sessionId == sessionId
                && ((CloneSession) o).ports.equals(ports);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sessionId, ports);
    }

    @Override
    public String toString() {
        return key() + " -> ports " + ports;
    }
}
