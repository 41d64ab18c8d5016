package org.nat64fabric.core.fabric;

import static org.nat64fabric.core.p4.P4InfoConstants.*;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.addr.Ipv6Prefix;
import org.nat64fabric.core.addr.Reserved;
import org.nat64fabric.core.config.Nat64Config;
import org.nat64fabric.core.config.IcmpErrors;
import org.nat64fabric.core.config.PuntPolicing;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.p4.Constants;
import org.nat64fabric.core.p4.P4InfoConstants;
import org.nat64fabric.core.pool6.Pool6;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;

/**
 * What each switch must hold (table entries, the CPU clone session, the punt meters'
 * configurations), computed from configuration and NAT state alone, so that a switch that
 * (re)connects is brought to exactly this set (extra entries deleted, missing ones written) and
 * any controller instance computes the same answer.
 */
public final class DesiredState {
    private DesiredState() {
    }

    /** Everything one switch holds, given every BIB entry's session entries (with the lifetime each ages after). */
    public static List<Entity> of(SwitchConfig sw, Nat64Config config, List<Eam> eams,
                                  Collection<SessionEntries> bibEntries, Collection<Session> sessions) {
        List<Entity> out = new ArrayList<>(punting(config.puntPolicing, config.pool4.subscriberPrefixLength()));
        out.add(icmpErrorLimit(config.icmpErrors));
        out.add(inboundSynLimit(config));
        out.addAll(routing(sw));
        if (sw.translates()) {
            out.addAll(translation(config, eams));
            out.add(rfc6791Pool(sw, config.icmpErrors));
            for (SessionEntries b : bibEntries) {
                out.addAll(b.entries());
            }
            sessions.stream().filter(s -> config.filters(s.bib().protocol())).forEach(s -> out.addAll(remoteFilters(s)));
        }
        return out;
    }

    /**
     * RFC 6791: the IPv4 source of an ICMPv6 error from an IPv6 router without an EAM, translated:
     * an address of the configured pool, else the switch's own IPv4 address (its section 4: a
     * single public IPv4 address; the error's recipient sees the NAT64, not the host it is about,
     * answer for every hop beyond), else (no address) the host's mapping, which NoAction leaves.
     */
    public static TableEntry rfc6791Pool(SwitchConfig sw, IcmpErrors icmpErrors) {
        Optional<Ipv4Prefix> pool = icmpErrors.rfc6791Pool()
                .or(() -> Optional.ofNullable(sw.address4).map(a -> Ipv4Prefix.of(a, 32, "ipv4")));
        return pool.map(p -> TableEntry.in(NAT64_INGRESS_TRANSLATE_RFC6791_POOL)
                .action(NAT64_INGRESS_TRANSLATE_USE_RFC6791_POOL).param(FIRST, v4(p.address()))
                .param(COUNT, 1L << (32 - p.length())).build())
                .orElseGet(() -> TableEntry.in(NAT64_INGRESS_TRANSLATE_RFC6791_POOL).action(NO_ACTION).build());
    }

    /**
     * What every switch needs to reach the controller, whatever its role (edges punt session
     * misses too): the clone session that copies TCP control segments to the CPU port, the
     * subscriber prefix that the source meter counts, and the punt meters' limits. Committed and peak rates are the same, so a punt is green or red.
     */
    public static List<Entity> punting(PuntPolicing p, int subscriberPrefixLength) {
        BigInteger ones = BigInteger.ONE.shiftLeft(128).subtract(BigInteger.ONE);
        BigInteger subscriberMask = ones.shiftLeft(128 - subscriberPrefixLength).and(ones);
        return List.of(
                new CloneSession(Constants.CPU_CLONE_SESSION, List.of(Constants.CPU_PORT)),
                TableEntry.in(NAT64_INGRESS_PUNT_SUBSCRIBER).action(NAT64_INGRESS_SET_SUBSCRIBER_MASK)
                        .param(MASK, subscriberMask).build(),
                new MeterConfig(P4InfoConstants.NAT64_INGRESS_PUNT_PORT_METER, p.perPortPps, p.perPortBurst, p.perPortPps, p.perPortBurst),
                new MeterConfig(P4InfoConstants.NAT64_INGRESS_PUNT_SOURCE_METER, p.perSourcePps, p.perSourceBurst, p.perSourcePps,
                        p.perSourceBurst));
    }

    /** Every switch sends ICMP errors (Time Exceeded at least): their limit per ingress port. */
    public static MeterConfig icmpErrorLimit(IcmpErrors e) {
        return new MeterConfig(P4InfoConstants.NAT64_INGRESS_ICMP_ERROR_ERROR_METER, e.perPortPps, e.perPortBurst,
                e.perPortPps, e.perPortBurst);
    }

    /**
     * IPv4 SYNs punted to be held (RFC 6146 3.5.2.2), per switch: a burst of half what the
     * controller holds and a rate that brings the other half in over TCP_INCOMING_SYN, so that one
     * switch's punts fit what is held; more would only be dropped there.
     */
    public static MeterConfig inboundSynLimit(Nat64Config c) {
        long half = c.maxHeldSyns / 2;
        long burst = Math.max(1, half);
        long pps = Math.max(1, (half + c.timeouts.tcpIncomingSyn - 1) / c.timeouts.tcpIncomingSyn);
        return new MeterConfig(P4InfoConstants.NAT64_INGRESS_INBOUND_SYN_METER, pps, burst, pps, burst);
    }

    /** The switch's own addresses, routes, port MTUs and the source of its ICMP errors. */
    public static List<TableEntry> routing(SwitchConfig sw) {
        List<TableEntry> out = new ArrayList<>();
        if (sw.address4 != null) {
            out.add(TableEntry.in(NAT64_INGRESS_LOCAL_HOST_LOCAL_IPV4).exact(HDR_META_LOCAL4_KEY, v4(sw.address4))
                    .action(NAT64_INGRESS_LOCAL_HOST_IS_LOCAL).param(MAC, sw.routerMac).build());
        }
        if (sw.address6 != null) {
            out.add(TableEntry.in(NAT64_INGRESS_LOCAL_HOST_LOCAL_IPV6).exact(HDR_META_LOCAL6_KEY, v6(sw.address6))
                    .action(NAT64_INGRESS_LOCAL_HOST_IS_LOCAL).param(MAC, sw.routerMac).build());
        }
        // Keyless: written without addresses too, so that a switch that kept old ones sends no errors.
        out.add(sw.address4 != null && sw.address6 != null
                ? TableEntry.in(NAT64_INGRESS_ICMP_ERROR_ICMP_SOURCE).action(NAT64_INGRESS_ICMP_ERROR_USE_SOURCE)
                        .param(ADDR4, v4(sw.address4)).param(ADDR6, v6(sw.address6)).build()
                : TableEntry.in(NAT64_INGRESS_ICMP_ERROR_ICMP_SOURCE).action(NO_ACTION).build());
        for (Route r : sw.routes) {
            TableEntry.Builder e = TableEntry.in(r.ipv6 ? NAT64_INGRESS_IPV6_ROUTES : NAT64_INGRESS_IPV4_ROUTES);
            if (r.ipv6) {
                Ipv6Prefix p = Ipv6Prefix.parse(r.prefix, "route");
                e.lpm(HDR_DST_ADDR, v6(p.address()), p.length());
            } else {
                Ipv4Prefix p = Ipv4Prefix.parse(r.prefix, "route");
                e.lpm(HDR_DST_ADDR, v4(p.address()), p.length());
            }
            switch (r.kind) {
                case NEXT_HOP:
                    e.action(NAT64_INGRESS_SET_NEXT_HOP).param(PORT, r.port).param(SRC_MAC, r.srcMac)
                            .param(DST_MAC, r.dstMac);
                    break;
                case HAIRPIN:
                    e.action(NAT64_INGRESS_HAIRPIN);
                    break;
                case PUNT:
                    e.action(NAT64_INGRESS_PUNT_NO_ROUTE);
                    break;
                default:
                    e.action(NAT64_INGRESS_NO_ROUTE);
            }
            out.add(e.build());
        }
        // Every port's MTU as the default action, so that oversize packets get Packet Too Big or
        // Fragmentation Needed from the pipeline on any port; then the ports that differ. The same
        // by ingress port, for the MTU that a translated Packet Too Big or Fragmentation Needed tells.
        out.addAll(portMtus(sw, NAT64_INGRESS_EGRESS_MTU, NAT64_INGRESS_SET_MTU));
        out.addAll(portMtus(sw, NAT64_INGRESS_INGRESS_MTU, NAT64_INGRESS_SET_INGRESS_MTU));
        return out;
    }

    private static List<TableEntry> portMtus(SwitchConfig sw, String table, String action) {
        List<TableEntry> out = new ArrayList<>();
        out.add(TableEntry.in(table).action(action).param(MTU, sw.mtu).build());
        for (Map.Entry<Integer, Integer> m : sw.portMtus.entrySet()) {
            out.add(TableEntry.in(table).exact(HDR_PORT, m.getKey()).action(action).param(MTU, m.getValue()).build());
        }
        return out;
    }

    /**
     * The IPv4 prefixes a translating switch routes back into itself besides the configured
     * hairpin routes: pool4, and the SIIT prefixes (an IPv6 host's packet to a SIIT host comes back
     * as IPv6, RFC 6146 3.8, RFC 7915).
     */
    public static List<Ipv4Prefix> hairpinned(Nat64Config config) {
        List<Ipv4Prefix> out = new ArrayList<>(config.pool4.addresses());
        out.addAll(config.siitPrefixes);
        return out;
    }

    /** pool6, pool4 and the EAMT, on a switch that translates. */
    public static List<TableEntry> translation(Nat64Config config, List<Eam> eams) {
        List<TableEntry> out = new ArrayList<>();
        Pool6 pool6 = config.pool6;
        Ipv6Prefix p6 = pool6.prefix();
        out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_POOL6).lpm(HDR_DST_ADDR, v6(p6.address()), p6.length())
                .action(extractAction(p6.length())).build());
        out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_POOL6_EMBED).action(NAT64_INGRESS_TRANSLATE_USE_POOL6)
                .param(PREFIX, v6(p6.address())).param(LENGTH, p6.length()).build());
        for (Ipv4Prefix n : pool6.unrepresented()) {
            Ipv6Prefix embedded = pool6.embed(n);
            out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_POOL6).lpm(HDR_DST_ADDR, v6(embedded.address()), embedded.length())
                    .action(NAT64_INGRESS_TRANSLATE_NOT_GLOBAL).build());
            out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_POOL6_EMBED).lpm(HDR_IPV4_ADDR, v4(n.address()), n.length())
                    .action(NAT64_INGRESS_TRANSLATE_NOT_GLOBAL_SOURCE).build());
            // RFC 6052 3.1 drops the well-known prefix's; under a network-specific one an ICMPv4
            // error's "illegal" router is written into pool6 for troubleshooting (RFC 7915 4.1)
            if (pool6.isWellKnown()) {
                out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_NON_GLOBAL_ROUTER).lpm(HDR_IPV4_ADDR, v4(n.address()), n.length())
                        .action(NAT64_INGRESS_TRANSLATE_NOT_GLOBAL_ROUTER).build());
            }
        }
        // IPv6 sources no router forwards (Reserved: unspecified, loopback, IPv4-mapped and the
        // like, link-local, multicast) make no mapping and are not translated.
        for (Ipv6Prefix r : Reserved.IPV6) {
            out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_POOL6_SRC).lpm(HDR_SRC_ADDR, v6(r.address()), r.length())
                    .action(NAT64_INGRESS_TRANSLATE_NOT_GLOBAL).build());
        }
        for (Ipv4Prefix p : config.pool4.addresses()) {
            out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_POOL4).lpm(HDR_DST_ADDR, v4(p.address()), p.length())
                    .action(NAT64_INGRESS_TRANSLATE_IN_POOL4)
                    .param(UNMAPPED_PORT_UNREACHABLE, config.icmpErrors.unmappedPortUnreachable ? 1 : 0).build());
        }
        // Pool6 sources outside the SIIT prefixes (longer entries) are IPv4 hosts', not translated.
        out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_POOL6_SRC).lpm(HDR_SRC_ADDR, v6(p6.address()), p6.length())
                .action(NAT64_INGRESS_TRANSLATE_IPV4_HOST_SOURCE).build());
        for (Ipv4Prefix p : config.siitPrefixes) {
            Ipv6Prefix embedded = pool6.embed(p);
            out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_POOL6_SRC)
                    .lpm(HDR_SRC_ADDR, v6(embedded.address()), embedded.length()).action(extractAction(p6.length())).build());
            // a router numbered in a SIIT prefix is IPv4-translatable: its errors keep its address (RFC 6791 1)
            out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_EAMT_V6_ERROR_SRC)
                    .lpm(HDR_IPV6_ADDR, v6(embedded.address()), embedded.length()).action(extractAction(p6.length())).build());
            out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_SIIT_V4_DST).lpm(HDR_DST_ADDR, v4(p.address()), p.length())
                    .action(NAT64_INGRESS_TRANSLATE_EMBED_DST).param(PREFIX, v6(p6.address())).param(LENGTH, p6.length())
                    .build());
        }
        for (Ipv4Prefix p : hairpinned(config)) {
            out.add(TableEntry.in(NAT64_INGRESS_IPV4_ROUTES).lpm(HDR_DST_ADDR, v4(p.address()), p.length())
                    .action(NAT64_INGRESS_HAIRPIN).build());
        }
        out.add(TableEntry.in(NAT64_INGRESS_LOWEST_IPV6_MTU).action(NAT64_INGRESS_SET_LOWEST_IPV6_MTU)
                .param(MTU, config.lowestIpv6Mtu).build());
        // The keyless tables' defaults are written whether on or off, so that a switch that kept
        // its state across a change of the setting follows the new one.
        out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_INBOUND_SYN)
                .action(config.dropExternallyInitiatedTcp ? NAT64_INGRESS_TRANSLATE_CHECK_INBOUND_SYNS
                        : config.maxHeldSyns > 0 ? NAT64_INGRESS_TRANSLATE_HOLD_INBOUND_SYNS : NO_ACTION).build());
        out.add(TableEntry.in(NAT64_INGRESS_REWRITE_TRAFFIC_CLASS).action(NAT64_INGRESS_REWRITE_CLASS_AND_TOS)
                .param(ZERO_CLASS, config.zeroTrafficClass ? 1 : 0).param(FIX_TOS, config.ipv4Tos >= 0 ? 1 : 0)
                .param(TOS_VALUE, Math.max(config.ipv4Tos, 0)).build());
        out.add(TableEntry.in(NAT64_INGRESS_TRANSLATE_UDP_ZERO_CHECKSUM)
                .action(config.computeUdpZeroChecksum ? NO_ACTION : NAT64_INGRESS_TRANSLATE_DROP_UDP_WITHOUT_CHECKSUM)
                .build());
        for (Eam e : eams) {
            out.addAll(eamEntries(e));
        }
        return out;
    }

    /**
     * How many EAMs a translating switch holds: an entry in each of its six EAMT tables, the SIIT
     * prefixes taking their places in the one they share (eamt_v6_error_src).
     */
    public static long eamCapacity(Nat64Config config) {
        return java.util.stream.LongStream.of(NAT64_INGRESS_TRANSLATE_EAMT_V6_SRC_SIZE, NAT64_INGRESS_TRANSLATE_EAMT_V6_DST_SIZE,
                NAT64_INGRESS_TRANSLATE_EAMT_V4_SRC_SIZE, NAT64_INGRESS_TRANSLATE_EAMT_V4_DST_SIZE,
                NAT64_INGRESS_TRANSLATE_EAMT_V4_ERROR_SRC_SIZE,
                NAT64_INGRESS_TRANSLATE_EAMT_V6_ERROR_SRC_SIZE - config.siitPrefixes.size()).min().getAsLong();
    }

    /**
     * An EAM is written into the four EAMT tables (source and destination, each direction) and
     * the two that translate the source of an ICMP error a router sent, one per direction.
     */
    public static List<TableEntry> eamEntries(Eam e) {
        BigInteger a6 = v6(e.ipv6().address());
        BigInteger a4 = v4(e.ipv4().address());
        int l6 = e.ipv6().length();
        int l4 = e.ipv4().length();
        long mask = e.suffixMask() & 0xffffffffL;
        return List.of(
                TableEntry.in(NAT64_INGRESS_TRANSLATE_EAMT_V6_SRC).lpm(HDR_IPV6_ADDR, a6, l6)
                        .action(NAT64_INGRESS_TRANSLATE_EAM_V6_TO_V4_SRC).param(PREFIX, a4).param(SUFFIX_MASK, mask).build(),
                TableEntry.in(NAT64_INGRESS_TRANSLATE_EAMT_V6_ERROR_SRC).lpm(HDR_IPV6_ADDR, a6, l6)
                        .action(NAT64_INGRESS_TRANSLATE_EAM_V6_ERROR_SRC).param(PREFIX, a4).param(SUFFIX_MASK, mask).build(),
                TableEntry.in(NAT64_INGRESS_TRANSLATE_EAMT_V6_DST).lpm(HDR_IPV6_ADDR, a6, l6)
                        .action(NAT64_INGRESS_TRANSLATE_EAM_V6_TO_V4_DST).param(PREFIX, a4).param(SUFFIX_MASK, mask).build(),
                TableEntry.in(NAT64_INGRESS_TRANSLATE_EAMT_V4_SRC).lpm(HDR_IPV4_ADDR, a4, l4)
                        .action(NAT64_INGRESS_TRANSLATE_EAM_V4_TO_V6_SRC).param(PREFIX, a6).param(SUFFIX_MASK, mask).build(),
                TableEntry.in(NAT64_INGRESS_TRANSLATE_EAMT_V4_DST).lpm(HDR_IPV4_ADDR, a4, l4)
                        .action(NAT64_INGRESS_TRANSLATE_EAM_V4_TO_V6_DST).param(PREFIX, a6).param(SUFFIX_MASK, mask).build(),
                TableEntry.in(NAT64_INGRESS_TRANSLATE_EAMT_V4_ERROR_SRC).lpm(HDR_IPV4_ADDR, a4, l4)
                        .action(NAT64_INGRESS_TRANSLATE_EAM_V4_ERROR_SRC).param(PREFIX, a6).param(SUFFIX_MASK, mask).build());
    }

    /**
     * A BIB entry's two entries (session_v6 and session_v4), aging after {@code lifetime} s (0:
     * never); {@code filtered}: both directions check the remote against its sessions' ({@link #remoteFilters});
     * {@code transitory}: the switch copies the mapping's packets to the controller ({@link SessionEntries}).
     */
    public static List<TableEntry> bibEntries(BibEntry b, long lifetime, boolean filtered, boolean transitory) {
        int proto = b.protocol().number;
        Ipv6Address address6 = b.address6();
        long address4 = b.v4().address().unsigned();
        // longs, not BigIntegers: two of these are made at every setup
        return List.of(
                TableEntry.in(NAT64_INGRESS_TRANSLATE_SESSION_V6).exact(HDR_PROTO, proto)
                        .exact(HDR_SRC_ADDR, address6.high(), address6.low()).exact(HDR_SRC_PORT, b.port6())
                        .action(NAT64_INGRESS_TRANSLATE_SNAT).param(SRC4, address4)
                        .param(SRC_PORT, b.v4().port()).param(FILTERED, filtered ? 1 : 0)
                        .param(TRANSITORY, transitory ? 1 : 0).idleTimeout(lifetime).build(),
                TableEntry.in(NAT64_INGRESS_TRANSLATE_SESSION_V4).exact(HDR_PROTO, proto)
                        .exact(HDR_DST_ADDR, address4).exact(HDR_DST_PORT, b.v4().port())
                        .action(NAT64_INGRESS_TRANSLATE_DNAT).param(DST6, address6.high(), address6.low())
                        .param(DST_PORT, b.port6()).param(FILTERED, filtered ? 1 : 0)
                        .param(TRANSITORY, transitory ? 1 : 0).idleTimeout(lifetime).build());
    }

    /**
     * With address-dependent filtering: the remote address a session's mapping has sent to, as
     * IPv4 packets from it name the mapping (remote_filter, which lets them in) and as the host's
     * packets to it do (remote_filter_v6; a packet to a remote without it makes its session first).
     */
    public static List<TableEntry> remoteFilters(Session s) {
        BibEntry b = s.bib();
        Ipv6Address address6 = b.address6();
        return List.of(TableEntry.in(NAT64_INGRESS_TRANSLATE_REMOTE_FILTER).exact(HDR_PROTO, b.protocol().number)
                        .exact(HDR_DST_ADDR, v4(b.v4().address())).exact(HDR_DST_PORT, b.v4().port())
                        .exact(HDR_REMOTE_ADDR, v4(s.remote4().address())).action(NO_ACTION).build(),
                TableEntry.in(NAT64_INGRESS_TRANSLATE_REMOTE_FILTER_V6).exact(HDR_PROTO, b.protocol().number)
                        .exact(HDR_SRC_ADDR, address6.high(), address6.low()).exact(HDR_SRC_PORT, b.port6())
                        .exact(HDR_REMOTE_ADDR, v4(s.remote4().address())).action(NO_ACTION).build());
    }

    private static String extractAction(int length) {
        switch (length) {
            case 32: return NAT64_INGRESS_TRANSLATE_EXTRACT_32;
            case 40: return NAT64_INGRESS_TRANSLATE_EXTRACT_40;
            case 48: return NAT64_INGRESS_TRANSLATE_EXTRACT_48;
            case 56: return NAT64_INGRESS_TRANSLATE_EXTRACT_56;
            case 64: return NAT64_INGRESS_TRANSLATE_EXTRACT_64;
            default: return NAT64_INGRESS_TRANSLATE_EXTRACT_96;
        }
    }

    static BigInteger v4(Ipv4Address a) {
        return BigInteger.valueOf(a.unsigned());
    }

    static BigInteger v6(Ipv6Address a) {
        return new BigInteger(1, a.toBytes());
    }
}
