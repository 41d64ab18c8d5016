package org.nat64fabric.core.eamt;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

/**
 * The RFC 7757 EAM Table: bidirectional, longest prefix first in each direction. Entries may
 * overlap (a longer one refines a shorter one, as LPM resolves), but two entries with the same
 * IPv6 or the same IPv4 prefix would make one direction ambiguous, so the second is refused.
 * Safe for concurrent use.
 */
public final class Eamt {
    private volatile List<Eam> entries = List.of();

    public synchronized void add(Eam eam) {
        for (Eam e : entries) {
            if (e.ipv6().equals(eam.ipv6()) || e.ipv4().equals(eam.ipv4())) {
                String which = e.ipv6().equals(eam.ipv6()) ? e.ipv6().toString() : e.ipv4().toString();
                throw new ConfigException("eamt", "cannot add " + eam + ": " + which + " is already mapped by " + e
                        + " (remove it first)");
            }
        }
        List<Eam> next = new ArrayList<>(entries);
        next.add(eam);
        entries = List.copyOf(next);
    }

    /** Removes the entry; false when it was not there. */
    public synchronized boolean remove(Eam eam) {
        List<Eam> next = new ArrayList<>(entries);
        boolean removed = next.remove(eam);
        entries = List.copyOf(next);
        return removed;
    }

    public List<Eam> entries() {
        return entries;
    }

    public Optional<Eam> forIpv6(Ipv6Address a) {
        return entries.stream().filter(e -> e.ipv6().contains(a))
                .max(Comparator.comparingInt(e -> e.ipv6().length()));
    }

    public Optional<Eam> forIpv4(Ipv4Address a) {
        return entries.stream().filter(e -> e.ipv4().contains(a))
                .max(Comparator.comparingInt(e -> e.ipv4().length()));
    }

    public Optional<Ipv4Address> toIpv4(Ipv6Address a) {
        return forIpv6(a).map(e -> e.toIpv4(a));
    }

    public Optional<Ipv6Address> toIpv6(Ipv4Address a) {
        return forIpv4(a).map(e -> e.toIpv6(a));
    }
}
