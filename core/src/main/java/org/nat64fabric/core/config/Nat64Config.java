package org.nat64fabric.core.config;

import java.util.List;
import java.util.Locale;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.addr.Reserved;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.pool4.Pool4Config;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.pool6.Pool6;
import org.nat64fabric.core.session.Timeouts;

/**
 * The translator's settings, shared by every switch: pool6, pool4, timers, filtering, the
 * per-subscriber session limit (RFC 6888 REQ-4), whether logs carry destinations (REQ-12) and
 * the policing of punts.
 */
public final class Nat64Config {
    public final Pool6 pool6;
    public final Pool4Config pool4;
    public final Timeouts timeouts;
    /** RFC 4787 address-dependent filtering: inbound only from remotes the mapping has sent to. */
    public final boolean addressDependentFiltering;
    public final int maxSessionsPerSubscriber;
    public final boolean logDestination;
    /** The pipeline's limits on punts to the controller. */
    public final PuntPolicing puntPolicing;
    /** How many punted packets wait for a setup, per subscriber and in all. */
    public final SetupQueues setupQueues;
    /** The ICMP errors the switches originate: their rate, and the answer to unmapped UDP. */
    public final IcmpErrors icmpErrors;
    /**
     * RFC 7915 4.5: an unfragmented IPv4 UDP packet without a checksum gets one computed (true,
     * the default: RFC 6146 3.4 asks it of a stateful NAT64), or is dropped (false). A fragmented
     * one is always dropped: its checksum cannot be computed from one fragment.
     */
    public final boolean computeUdpZeroChecksum;
    /**
     * Stateless SIIT (RFC 7915 with RFC 6052): IPv4 prefixes whose hosts live on the IPv6 side at
     * their pool6 addresses; both directions are translated by pool6 alone, no session. Only these:
     * another IPv6 source inside pool6 could otherwise choose any IPv4 source it liked.
     */
    public final List<Ipv4Prefix> siitPrefixes;
    /**
     * RFC 7915 4: the smallest MTU of the IPv6 network; an IPv4 packet without DF whose
     * translation is larger is fragmented to it (by the controller). 1280 unless every IPv6 link
     * is known to carry more.
     */
    public final int lowestIpv6Mtu;
    /**
     * RFC 6146 3.5.2.2: the security policy that silently drops externally initiated TCP
     * connections. Off (the default), an IPv4 SYN the NAT64 would not translate (no BIB entry, or
     * filtered) is held for a simultaneous open (RFC 5382 REQ-4); on, TCP is filtered by address
     * whatever {@link #addressDependentFiltering} says and such a SYN is dropped at the switch.
     */
    public final boolean dropExternallyInitiatedTcp;
    /** How many such SYNs the controller holds at once; more are dropped (and counted). */
    public final int maxHeldSyns;
    /**
     * RFC 7915 4.1 (SHOULD): the IPv6 Traffic Class of a packet translated from IPv4 is 0, not its
     * TOS octet, where IPv4 may use the old TOS and precedence meanings.
     */
    public final boolean zeroTrafficClass;
    /** RFC 7915 5.1 (SHOULD): the TOS octet of a packet translated from IPv6, 0-255; -1 copies the Traffic Class. */
    public final int ipv4Tos;
    public static final int MAX_HELD_SYNS = 1_000_000;

    private Nat64Config(Builder b) {
        this.pool6 = b.pool6;
        this.pool4 = b.pool4;
        this.timeouts = b.timeouts;
        this.addressDependentFiltering = b.addressDependentFiltering;
        this.maxSessionsPerSubscriber = b.maxSessionsPerSubscriber;
        this.logDestination = b.logDestination;
        this.puntPolicing = b.puntPolicing;
        this.setupQueues = b.setupQueues;
        this.icmpErrors = b.icmpErrors;
        this.computeUdpZeroChecksum = b.computeUdpZeroChecksum;
        this.siitPrefixes = List.copyOf(b.siitPrefixes);
        this.lowestIpv6Mtu = b.lowestIpv6Mtu;
        this.dropExternallyInitiatedTcp = b.dropExternallyInitiatedTcp;
        this.maxHeldSyns = b.maxHeldSyns;
        this.zeroTrafficClass = b.zeroTrafficClass;
        this.ipv4Tos = b.ipv4Tos;
    }

    /**
     * Whether the switches let in packets of this protocol only from remotes its mapping has sent
     * to (remote_filter): with address-dependent filtering, and for TCP when externally initiated
     * connections are dropped.
     */
    public boolean filters(Protocol protocol) {
        return addressDependentFiltering || protocol == Protocol.TCP && dropExternallyInitiatedTcp;
    }

    /** Whether any protocol is filtered by remote address ({@link #filters}). */
    public boolean filtersAny() {
        return addressDependentFiltering || dropExternallyInitiatedTcp;
    }

    /**
     * Refuses a static BIB entry the configuration rules out, whatever the state: its IPv6 side
     * must be a host's unicast address ({@link Reserved}) outside pool6 (whose addresses stand for
     * IPv4 hosts), its IPv4 side in pool4 and inside the protocol's port range. {@code at} is the
     * entry's path; the store may still refuse it (port in use, paired pooling).
     */
    public void checkStaticBib(Protocol protocol, Ipv6Address address6, TransportAddress v4, String at) {
        Reserved.why(address6).ifPresent(why -> {
            throw new ConfigException(at + ".ipv6Address", why + "; a static BIB entry needs an IPv6 host's unicast address");
        });
        if (pool6.prefix().contains(address6)) {
            throw new ConfigException(at + ".ipv6Address", address6 + " is inside pool6 " + pool6.prefix()
                    + ": its addresses stand for IPv4 hosts, not IPv6 servers");
        }
        if (pool4.addresses().stream().noneMatch(p -> p.contains(v4.address()))) {
            throw new ConfigException(at + ".ipv4Address", v4.address() + " is not in pool4 " + pool4.addresses());
        }
        int[] range = pool4.portRange(protocol);
        if (v4.port() < range[0] || v4.port() > range[1]) {
            throw new ConfigException(at + ".ipv4Port", (protocol == Protocol.ICMP ? "identifier " : "port ") + v4.port()
                    + " is outside the " + protocol + " range " + range[0] + "–" + range[1] + " (pool4."
                    + protocol.name().toLowerCase(Locale.ROOT) + "Ports)");
        }
    }

    /**
     * Refuses an EAM the configuration rules out: reserved addresses on either side
     * ({@link Reserved}), an IPv6 prefix overlapping pool6 or an IPv4 prefix overlapping pool4
     * (RFC 7757 looks the EAMT up first, so it would take their traffic). {@code at} is its path.
     */
    public void checkEam(Eam eam, String at) {
        Reserved.why(eam.ipv6()).ifPresent(why -> {
            throw new ConfigException(at + ".ipv6Prefix", why);
        });
        if (eam.ipv6().overlaps(pool6.prefix())) {
            throw new ConfigException(at + ".ipv6Prefix", eam.ipv6() + " overlaps pool6 " + pool6.prefix()
                    + ": the EAMT would take its traffic");
        }
        Reserved.why(eam.ipv4()).ifPresent(why -> {
            throw new ConfigException(at + ".ipv4Prefix", why);
        });
        pool4.addresses().stream().filter(p -> p.overlaps(eam.ipv4())).findFirst().ifPresent(p -> {
            throw new ConfigException(at + ".ipv4Prefix", eam.ipv4() + " overlaps pool4 " + p
                    + ": its addresses are for sessions");
        });
        for (int i = 0; i < siitPrefixes.size(); i++) {
            if (siitPrefixes.get(i).overlaps(eam.ipv4())) {
                throw new ConfigException(at + ".ipv4Prefix", eam.ipv4() + " overlaps siitPrefixes[" + i + "] "
                        + siitPrefixes.get(i) + ": those hosts are at their pool6 addresses, not an EAM's");
            }
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private Pool6 pool6;
        private Pool4Config pool4;
        private Timeouts timeouts = Timeouts.DEFAULTS;
        private boolean addressDependentFiltering;
        private int maxSessionsPerSubscriber = 4096;
        private boolean logDestination = true;
        private PuntPolicing puntPolicing = PuntPolicing.DEFAULTS;
        private SetupQueues setupQueues = SetupQueues.DEFAULTS;
        private IcmpErrors icmpErrors = IcmpErrors.DEFAULTS;
        private boolean computeUdpZeroChecksum = true;
        private List<Ipv4Prefix> siitPrefixes = List.of();
        private int lowestIpv6Mtu = 1280;
        private boolean dropExternallyInitiatedTcp;
        private int maxHeldSyns = 1024;
        private boolean zeroTrafficClass;
        private int ipv4Tos = -1;

        public Builder pool6(Pool6 pool6) {
            this.pool6 = pool6;
            return this;
        }

        public Builder pool4(Pool4Config pool4) {
            this.pool4 = pool4;
            return this;
        }

        public Builder timeouts(Timeouts timeouts) {
            this.timeouts = timeouts;
            return this;
        }

        public Builder addressDependentFiltering(boolean on) {
            this.addressDependentFiltering = on;
            return this;
        }

        public Builder maxSessionsPerSubscriber(int max) {
            this.maxSessionsPerSubscriber = max;
            return this;
        }

        public Builder logDestination(boolean on) {
            this.logDestination = on;
            return this;
        }

        public Builder puntPolicing(PuntPolicing policing) {
            this.puntPolicing = policing;
            return this;
        }

        public Builder setupQueues(SetupQueues queues) {
            this.setupQueues = queues;
            return this;
        }

        public Builder icmpErrors(IcmpErrors errors) {
            this.icmpErrors = errors;
            return this;
        }

        public Builder computeUdpZeroChecksum(boolean compute) {
            this.computeUdpZeroChecksum = compute;
            return this;
        }

        public Builder lowestIpv6Mtu(int mtu) {
            this.lowestIpv6Mtu = mtu;
            return this;
        }

        public Builder dropExternallyInitiatedTcp(boolean drop) {
            this.dropExternallyInitiatedTcp = drop;
            return this;
        }

        public Builder maxHeldSyns(int max) {
            this.maxHeldSyns = max;
            return this;
        }

        public Builder zeroTrafficClass(boolean zero) {
            this.zeroTrafficClass = zero;
            return this;
        }

        /** -1: copied from the Traffic Class. */
        public Builder ipv4Tos(int tos) {
            this.ipv4Tos = tos;
            return this;
        }

        public Builder siitPrefixes(List<Ipv4Prefix> prefixes) {
            this.siitPrefixes = prefixes;
            return this;
        }

        /**
         * A SIIT prefix must be one pool6 may represent (RFC 6052 3.1: only global IPv4 under the
         * well-known prefix), and outside pool4, whose addresses are for sessions.
         */
        private void checkSiitPrefix(Ipv4Prefix p, String at) {
            if (pool6.isWellKnown() && Pool6.NON_GLOBAL.stream().anyMatch(p::overlaps)) {
                throw new ConfigException(at, p + " is not global IPv4, which the well-known prefix " + pool6
                        + " may not carry (RFC 6052 3.1): use a network-specific pool6");
            }
            pool4.addresses().stream().filter(p::overlaps).findFirst().ifPresent(q -> {
                throw new ConfigException(at, p + " overlaps pool4 " + q + ": its addresses are for sessions");
            });
        }

        public Nat64Config build() {
            if (pool6 == null) {
                throw new ConfigException("pool6", "is required (for example 64:ff9b::/96)");
            }
            if (pool4 == null) {
                throw new ConfigException("pool4", "is required (at least one IPv4 prefix in pool4.addresses)");
            }
            if (ipv4Tos < -1 || ipv4Tos > 255) {
                throw new ConfigException("ipv4Tos", ipv4Tos + " is not a TOS octet: from 0 to 255");
            }
            if (maxSessionsPerSubscriber < 1) {
                throw new ConfigException("maxSessionsPerSubscriber", "must be at least 1");
            }
            if (lowestIpv6Mtu < 1280 || lowestIpv6Mtu > 65535) {
                throw new ConfigException("lowestIpv6Mtu", lowestIpv6Mtu + " is not an IPv6 MTU: from 1280 (RFC 8200 5) to 65535");
            }
            for (int i = 0; i < siitPrefixes.size(); i++) {
                checkSiitPrefix(siitPrefixes.get(i), "siitPrefixes[" + i + "]");
            }
            return new Nat64Config(this);
        }
    }
}
