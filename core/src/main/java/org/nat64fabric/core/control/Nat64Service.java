package org.nat64fabric.core.control;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.Nat64Config;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.fabric.SwitchConfig;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;

/**
 * What an operator manages, through the REST API and the command line: the EAMT, static BIB
 * entries, sessions, pools, switches and counters; and the links, over REST. Changes reach every
 * switch that needs them before the call returns. Bad input throws
 * {@link org.nat64fabric.core.ConfigException} naming the field.
 */
public interface Nat64Service {
    /** A switch as the controller sees it. */
    final class DeviceStatus {
        public final String deviceId;
        public final SwitchConfig.Role role;
        /** Connected and programmed: what it must hold at connection is written. */
        public final boolean connected;
        public final int entries;

        public DeviceStatus(String deviceId, SwitchConfig.Role role, boolean connected, int entries) {
            this.deviceId = deviceId;
            this.role = role;
            this.connected = connected;
            this.entries = entries;
        }
    }

    /** The runtime has no NAT64 configuration yet (ONOS: no netcfg pushed), so it cannot answer. */
    final class NotConfigured extends RuntimeException {
        private static final long serialVersionUID = 1L;
        /** Where the configuration is missing. */
        public final String field;

        public NotConfigured(String field, String message) {
            super(message);
            this.field = field;
        }
    }

    Nat64Config config();

    List<Eam> eamt();

    void addEam(Eam eam);

    /** Removes the EAM of this IPv4 prefix; empty when there was none. */
    Optional<Eam> removeEam(Ipv4Prefix ipv4);

    List<BibEntry> bib();

    /** The static BIB entries (port forwards). */
    List<BibEntry> staticBib();

    /** BIB entries of a protocol and kind (null: any), by their IPv6 side: the REST API's and CLI's filter. */
    default List<BibEntry> bib(Protocol protocol, Boolean isStatic) {
        return (Boolean.TRUE.equals(isStatic) ? staticBib() : bib()).stream()
                .filter(b -> protocol == null || b.protocol() == protocol)
                .filter(b -> isStatic == null || b.isStatic() == isStatic)
                .sorted(Comparator.comparing(BibEntry::key6))
                .collect(Collectors.toList());
    }

    BibEntry addStaticBib(Protocol protocol, Ipv6Address address6, int port6, TransportAddress v4);

    Optional<BibEntry> removeBib(Protocol protocol, Ipv6Address address6, int port6);

    List<Session> sessions();

    /** Sessions matching every filter given (null: any), in key order: the REST API's and CLI's filter. */
    default List<Session> sessions(Protocol protocol, Ipv6Address ipv6, Ipv4Address ipv4, Ipv4Address remote) {
        return sessions().stream()
                .filter(s -> protocol == null || s.bib().protocol() == protocol)
                .filter(s -> ipv6 == null || s.bib().address6().equals(ipv6))
                .filter(s -> ipv4 == null || s.bib().v4().address().equals(ipv4))
                .filter(s -> remote == null || s.remote4().address().equals(remote))
                .sorted(Comparator.comparing(Session::key))
                .collect(Collectors.toList());
    }

    List<PortBlock> blocks();

    /**
     * Counters: packet-ins by punt reason, setups, refusals, writes, NAT events by type, table
     * sizes, and the switches' data-plane counters as last polled ({@code dataplane.*}).
     */
    Map<String, Long> stats();

    /** The same and more (histograms, state by protocol) in the Prometheus text format. */
    String metrics();

    List<DeviceStatus> devices();

    /**
     * The links between switch ports, each once, in order of their ends ({@link LinkStatus#paired}),
     * up as the runtime can know it: ONOS from its LinkService, discovered or configured, up when
     * ONOS has them ACTIVE; the embedded controller from the configuration's links, up when the
     * switches at both ends are connected (it sees no link itself).
     */
    List<LinkStatus> links();
}
