package org.nat64fabric.core.fabric;

import static org.nat64fabric.core.p4.P4InfoConstants.*;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.BibSide;

/**
 * A BIB entry's two session entries (session_v6 and session_v4) as one value: the BIB entry,
 * the lifetime they age after, and whether the IPv4 side filters by remote address. Every border
 * holds two such entries per BIB entry, nearly all of what it holds; the controller remembers
 * what it wrote to a switch as this value, {@link #packed} into longs, rather than as the
 * entries, which it makes again when it writes them: 53-107 bytes per BIB entry and border
 * instead of some 450, and no object for each young collection to copy into the old generation.
 */
public final class SessionEntries {
    private final BibEntry bib;
    private final long lifetime;
    private final boolean filtered;
    private final boolean transitory;

    /**
     * {@code filtered}: the remotes must be known (remote_filter); {@code transitory}: every
     * session of the mapping is in TCP's TRANS, so the switch copies its packets to the controller
     * (the first but a RST re-establishes its session, RFC 6146 3.5.2.2).
     */
    public SessionEntries(BibEntry bib, long lifetime, boolean filtered, boolean transitory) {
        this.bib = bib;
        this.lifetime = lifetime;
        this.filtered = filtered;
        this.transitory = transitory;
    }

    /** Identifies both entries: the BIB entry's IPv6 side. */
    public BibSide side() {
        return BibSide.of(bib);
    }

    /**
     * The rest of this value beside {@link #side()}, in two longs: the IPv4 side and the flags,
     * then the lifetime ({@link #unpacked} makes the value again).
     */
    public long[] packed() {
        return new long[] {bib.v4().packed() << 16 | (transitory ? 4 : 0) | (bib.isStatic() ? 2 : 0)
                | (filtered ? 1 : 0), lifetime};
    }

    public static SessionEntries unpacked(BibSide side, long[] packed) {
        long w = packed[0];
        return new SessionEntries(new BibEntry(side.protocol, side.address, side.port,
                TransportAddress.unpacked(w >>> 16), (w & 2) != 0), packed[1], (w & 1) != 0, (w & 4) != 0);
    }

    /** session_v6, then session_v4, aging after the lifetime (0: never). */
    public List<TableEntry> entries() {
        return DesiredState.bibEntries(bib, lifetime, filtered, transitory);
    }

    /** Whether {@code entity} is an entry of session_v6 or session_v4. */
    public static boolean isSessionEntry(Entity entity) {
        if (!(entity instanceof TableEntry)) {
            return false;
        }
        String table = ((TableEntry) entity).table();
        return table.equals(NAT64_INGRESS_TRANSLATE_SESSION_V6) || table.equals(NAT64_INGRESS_TRANSLATE_SESSION_V4);
    }

    /**
     * The IPv6 side of the BIB entry a session entry was made from (a session_v6 entry matches
     * it, a session_v4 entry sends to it), or empty for any other entry and for a session_v4
     * entry without its action (as BMv2 reports an idle entry: table and match).
     */
    public static Optional<BibSide> sideOf(Entity entity) {
        if (!isSessionEntry(entity)) {
            return Optional.empty();
        }
        TableEntry e = (TableEntry) entity;
        Map<String, BigInteger> match = new HashMap<>();
        e.matches().forEach(m -> match.put(m.field, m.value()));
        boolean v6 = e.table().equals(NAT64_INGRESS_TRANSLATE_SESSION_V6);
        BigInteger address6 = v6 ? match.get(HDR_SRC_ADDR) : e.params().get(DST6);
        BigInteger port6 = v6 ? match.get(HDR_SRC_PORT) : e.params().get(DST_PORT);
        Optional<Protocol> protocol = Optional.ofNullable(match.get(HDR_PROTO))
                .flatMap(p -> Protocol.byNumber(p.intValue()));
        if (protocol.isEmpty() || address6 == null || port6 == null) {
            return Optional.empty();
        }
        return Optional.of(new BibSide(protocol.get(), Ipv6Address.of(address6.shiftRight(64).longValue(),
                address6.longValue()), port6.intValue()));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SessionEntries)) {
            return false;
        }
        SessionEntries s = (SessionEntries) o;
        return s.lifetime == lifetime && s.filtered == filtered && s.transitory == transitory && s.bib.equals(bib);
    }

    @Override
    public int hashCode() {
        return Objects.hash(bib, lifetime, filtered, transitory);
    }

    @Override
    public String toString() {
        return bib + ", lifetime " + lifetime + " s" + (filtered ? ", filtered" : "") + (transitory ? ", transitory" : "");
    }
}
