package org.nat64fabric.core.eamt;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

/**
 * The RFC 7757 EAM Table: bidirectional, longest prefix first in each direction. Entries may
 * overlap (a longer one refines a shorter one, as LPM resolves), but two entries with the same
 * IPv6 or the same IPv4 prefix would make one direction ambiguous, so the second is refused.
 * A lookup costs a hash lookup per distinct prefix length, not a pass over the entries: a session
 * setup looks its destination up here. Safe for concurrent use.
 */
public final class Eamt {
    /** Replaced whole on a change, so that lookups take no lock. */
    private volatile Index index = new Index(List.of());

    /** A table of entries already checked against each other (a store's): built in one pass. */
    public static Eamt of(Collection<Eam> entries) {
        Eamt t = new Eamt();
        t.index = new Index(List.copyOf(entries));
        return t;
    }

    /** Adds the entry, refusing it as {@link #check} does (errors under {@code at}). */
    public synchronized void add(Eam eam, String at) {
        check(eam, at);
        List<Eam> next = new ArrayList<>(index.entries);
        next.add(eam);
        index = new Index(List.copyOf(next));
    }

    /**
     * Throws {@link ConfigException} when {@code eam} has the IPv6 or IPv4 prefix of an entry,
     * naming that prefix's field under {@code at}.
     */
    public void check(Eam eam, String at) {
        Index i = index;
        Eam same = i.with(eam.ipv6().address(), eam.ipv6().length());
        boolean ipv6 = same != null;
        String which = ipv6 ? eam.ipv6().toString() : eam.ipv4().toString();
        if (same == null) {
            same = i.with(eam.ipv4().address(), eam.ipv4().length());
        }
        if (same != null) {
            throw new ConfigException(at + (ipv6 ? ".ipv6Prefix" : ".ipv4Prefix"), "cannot add " + eam + ": " + which + " is already mapped by " + same
                    + " (remove it first)");
        }
    }

    /** Removes the entry; false when it was not there. */
    public synchronized boolean remove(Eam eam) {
        List<Eam> next = new ArrayList<>(index.entries);
        boolean removed = next.remove(eam);
        index = new Index(List.copyOf(next));
        return removed;
    }

    public List<Eam> entries() {
        return index.entries;
    }

    public Optional<Eam> forIpv6(Ipv6Address a) {
        return Optional.ofNullable(index.longest(a));
    }

    public Optional<Eam> forIpv4(Ipv4Address a) {
        return Optional.ofNullable(index.longest(a));
    }

    public Optional<Ipv4Address> toIpv4(Ipv6Address a) {
        return forIpv6(a).map(e -> e.toIpv4(a));
    }

    public Optional<Ipv6Address> toIpv6(Ipv4Address a) {
        return forIpv4(a).map(e -> e.toIpv6(a));
    }

    /** The entries by prefix length (longest first), each length's by its prefix's address. */
    private static final class Index {
        final List<Eam> entries;
        final TreeMap<Integer, Map<Ipv6Address, Eam>> by6 = new TreeMap<>((x, y) -> y - x);
        final TreeMap<Integer, Map<Integer, Eam>> by4 = new TreeMap<>((x, y) -> y - x);

        Index(List<Eam> entries) {
            this.entries = entries;
            for (Eam e : entries) {
                by6.computeIfAbsent(e.ipv6().length(), n -> new HashMap<>()).put(e.ipv6().address(), e);
                by4.computeIfAbsent(e.ipv4().length(), n -> new HashMap<>()).put(e.ipv4().address().bits(), e);
            }
        }

        Eam with(Ipv6Address prefix, int length) {
            Map<Ipv6Address, Eam> m = by6.get(length);
            return m == null ? null : m.get(prefix);
        }

        Eam with(Ipv4Address prefix, int length) {
            Map<Integer, Eam> m = by4.get(length);
            return m == null ? null : m.get(prefix.bits());
        }

        Eam longest(Ipv6Address a) {
            for (Map.Entry<Integer, Map<Ipv6Address, Eam>> m : by6.entrySet()) {
                Eam e = m.getValue().get(a.mask(m.getKey()));
                if (e != null) {
                    return e;
                }
            }
            return null;
        }

        Eam longest(Ipv4Address a) {
            for (Map.Entry<Integer, Map<Integer, Eam>> m : by4.entrySet()) {
                int length = m.getKey();
                Eam e = m.getValue().get(length == 0 ? 0 : a.bits() & -1 << (32 - length));
                if (e != null) {
                    return e;
                }
            }
            return null;
        }
    }
}
