package org.nat64fabric.core.control;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.config.Nat64Config;
import org.nat64fabric.core.control.SwitchLink.Update;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.engine.Nat64Engine;
import org.nat64fabric.core.engine.Outcome;
import org.nat64fabric.core.event.NatEvent;
import org.nat64fabric.core.fabric.DesiredState;
import org.nat64fabric.core.fabric.SwitchConfig;
import org.nat64fabric.core.fabric.TableEntry;
import org.nat64fabric.core.p4.P4InfoConstants;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.store.NatStore;

/**
 * The fabric as one NAT64: turns what switches punt and report into NAT state (through
 * {@link Nat64Engine}) and keeps every connected switch holding exactly its
 * {@link DesiredState}. Both runtimes use it: the embedded controller and the ONOS app, each with
 * its own {@link SwitchLink}s and {@link NatStore}.
 *
 * <p>Setups are serialised: a session miss is written to every border switch before the punted
 * packet is sent back through the pipeline, so its translation finds the new entries.
 */
public final class Nat64Fabric implements Nat64Service {
    /** Punt reasons of p4/include/defines.p4, carried in packet-in metadata. */
    public static final int PUNT_SESSION_MISS = 1;
    public static final int PUNT_TCP_CONTROL = 2;
    public static final int PUNT_NEEDS_FRAGMENTATION = 3;
    public static final int PUNT_NO_ROUTE = 4;
    /** RFC 4443 3.1 Destination Unreachable code 3: address unreachable (RFC 6146 3.5.1.1). */
    private static final int ICMP6_ADDRESS_UNREACHABLE = 3;

    private static final Logger LOG = Logger.getLogger(Nat64Fabric.class.getName());

    private final FabricConfig config;
    private final Nat64Engine engine;
    private final LongSupplier clock;
    private final Map<String, SwitchLink> links = new ConcurrentHashMap<>();
    /** What each connected switch holds, by entry key, as last written or read. */
    private final Map<String, Map<String, TableEntry>> installed = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();

    public Nat64Fabric(FabricConfig config, NatStore store, Consumer<NatEvent> log, LongSupplier clock) {
        this.config = config;
        this.clock = clock;
        this.engine = new Nat64Engine(config.nat64, store, e -> {
            count("events." + e.type());
            log.accept(e);
        });
        long now = clock.getAsLong();
        for (Eam e : config.eamt) {
            if (!store.eams().contains(e)) {
                engine.addEam(e);
            }
        }
        for (FabricConfig.StaticBib b : config.staticBib) {
            Optional<BibEntry> held = store.bibBy6(b.protocol, b.address6, b.port6);
            if (held.isEmpty()) {
                engine.addStaticBib(b.protocol, b.address6, b.port6, b.v4, now);
            } else if (!held.get().v4().equals(b.v4)) {
                throw new ConfigException("staticBib", held.get() + " is already in the store with another"
                        + " IPv4 side: remove it first");
            }
        }
    }

    // ---- switches --------------------------------------------------------------------------

    /**
     * A switch (re)connected with its pipeline set: reads what it holds and writes the
     * difference to its desired state (extra entries deleted, missing or changed ones written).
     */
    public synchronized void connected(SwitchLink link) {
        SwitchConfig sw = switchConfig(link.deviceId());
        Map<String, TableEntry> held = new LinkedHashMap<>();
        link.read().forEach(e -> held.put(e.key(), e));
        Map<String, TableEntry> desired = new LinkedHashMap<>();
        desiredState(sw).forEach(e -> desired.put(e.key(), e));
        List<Update> updates = new ArrayList<>();
        held.forEach((key, e) -> {
            if (!desired.containsKey(key)) {
                updates.add(new Update(Update.Type.DELETE, e));
            }
        });
        desired.forEach((key, e) -> {
            TableEntry h = held.get(key);
            if (e.isDefault() || h != null && !h.equals(e)) {
                updates.add(new Update(Update.Type.MODIFY, e));
            } else if (h == null) {
                updates.add(new Update(Update.Type.INSERT, e));
            }
        });
        link.write(updates);
        links.put(link.deviceId(), link);
        installed.put(link.deviceId(), new ConcurrentHashMap<>(desired));
        count("reconciliations");
        LOG.info(() -> link.deviceId() + ": reconciled, " + held.size() + " entries found, " + updates.size()
                + " updates written, " + desired.size() + " entries held");
    }

    /**
     * A switch that another controller instance reconciles (in an ONOS cluster, the device's
     * master): this instance writes its setups to it too, but leaves what it holds alone.
     */
    public synchronized void attached(SwitchLink link) {
        links.put(link.deviceId(), link);
        Map<String, TableEntry> desired = new ConcurrentHashMap<>();
        desiredState(switchConfig(link.deviceId())).forEach(e -> desired.put(e.key(), e));
        installed.put(link.deviceId(), desired);
    }

    public synchronized void disconnected(String deviceId) {
        links.remove(deviceId);
        installed.remove(deviceId);
    }

    /** The switch's desired state now. */
    public synchronized List<TableEntry> desiredState(String deviceId) {
        return desiredState(switchConfig(deviceId));
    }

    private List<TableEntry> desiredState(SwitchConfig sw) {
        NatStore store = engine.store();
        return DesiredState.of(sw, config.nat64, store.eams(), store.bib(), engine::lifetimeOf, store.sessions());
    }

    private SwitchConfig switchConfig(String deviceId) {
        FabricConfig.Device d = config.devices.get(deviceId);
        if (d == null) {
            throw new ConfigException("devices", deviceId + " is not configured: add it under devices with a"
                    + " nat64fabric section");
        }
        return d.config;
    }

    // ---- events from switches ----------------------------------------------------------------

    /** A packet-in: sets up a session, follows a TCP control segment, or is counted and dropped. */
    public synchronized void packetIn(String deviceId, int puntReason, byte[] frame) {
        count("packetIn." + puntReason);
        if (puntReason != PUNT_SESSION_MISS && puntReason != PUNT_TCP_CONTROL) {
            LOG.fine(() -> deviceId + ": packet-in reason " + puntReason + " needs no setup, dropped");
            return;
        }
        Optional<PuntedPacket> parsed = PuntedPacket.parse(frame);
        if (parsed.isEmpty()) {
            count("packetIn.unparsed");
            return;
        }
        PuntedPacket p = parsed.get();
        long now = clock.getAsLong();
        Outcome o;
        try {
            o = p.ipv6
                    ? engine.fromV6(p.protocol, p.source6(), p.sourcePort, p.destination6(), p.destinationPort,
                            p.segment, now)
                    : engine.fromV4(p.protocol, p.source4(), p.sourcePort, p.destination4(), p.destinationPort,
                            p.segment, now);
        } catch (ConfigException e) {
            count("packetIn.unparsed");
            return;
        }
        if (o.icmpError().isPresent() && p.ipv6) {
            count("setups.refused");
            SwitchConfig sw = switchConfig(deviceId);
            LOG.info(() -> deviceId + ": " + p + " refused: " + o.dropReason().orElse(""));
            if (sw.address6 != null) {
                send(deviceId, PuntedPacket.icmpv6Unreachable(frame, sw.address6, sw.routerMac,
                        ICMP6_ADDRESS_UNREACHABLE));
            }
            return;
        }
        if (!o.translated()) {
            count("setups.dropped");
            LOG.fine(() -> deviceId + ": " + p + " dropped: " + o.dropReason().orElse(""));
            return;
        }
        Session s = o.session().orElseThrow();
        if (o.reprogram()) {
            putOnBorders(bibEntries(s.bib()));
        }
        if (puntReason == PUNT_SESSION_MISS) {
            count("setups.translated");
            send(deviceId, frame);
        }
    }

    /**
     * A switch reports a session entry idle. Once every border switch reported both of a BIB
     * entry's entries idle, its sessions time out; what is left is rewritten or deleted.
     */
    public synchronized void idle(String deviceId, TableEntry entry) {
        count("idleNotifications");
        Optional<BibEntry> bib = bibOf(entry);
        if (bib.isEmpty()) {
            deleteOn(deviceId, List.of(entry));         // stale: nothing maps it any more
            return;
        }
        BibEntry b = bib.get();
        List<TableEntry> before = bibEntries(b);
        Set<String> holders = links.keySet().stream().filter(d -> switchConfig(d).translates())
                .flatMap(d -> before.stream().filter(e -> !e.table().equals(P4InfoConstants
                        .NAT64_INGRESS_TRANSLATE_REMOTE_FILTER)).map(e -> d + "|" + e.table()))
                .collect(Collectors.toSet());
        Nat64Engine.Idle what = engine.onIdle(b.protocol(), b.address6(), b.port6(), deviceId + "|" + entry.table(),
                holders, clock.getAsLong());
        switch (what) {
            case REPROGRAM:
                List<TableEntry> after = bibEntries(b);
                Set<String> kept = after.stream().map(TableEntry::key).collect(Collectors.toSet());
                deleteOnBorders(before.stream().filter(e -> !kept.contains(e.key())).collect(Collectors.toList()));
                putOnBorders(after);
                break;
            case REMOVED:
                deleteOnBorders(before);
                break;
            default:
                break;
        }
    }

    /** Periodic work: port blocks left empty or resting go back to the pool. */
    public synchronized void tick() {
        engine.expireBlocks(clock.getAsLong());
    }

    private Optional<BibEntry> bibOf(TableEntry e) {
        Map<String, BigInteger> m = e.matches().stream()
                .collect(Collectors.toMap(x -> x.field, x -> x.value));
        BigInteger proto = m.get(P4InfoConstants.HDR_PROTO);
        Optional<Protocol> protocol = Arrays.stream(Protocol.values())
                .filter(p -> proto != null && p.number == proto.intValue()).findFirst();
        if (protocol.isEmpty()) {
            return Optional.empty();
        }
        if (e.table().equals(P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V6)) {
            BigInteger a = m.get(P4InfoConstants.HDR_SRC_ADDR);
            return engine.store().bibBy6(protocol.get(), Ipv6Address.of(a.shiftRight(64).longValue(), a.longValue()),
                    m.get(P4InfoConstants.HDR_SRC_PORT).intValue());
        }
        if (e.table().equals(P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V4)) {
            return engine.store().bibBy4(protocol.get(), new TransportAddress(
                    Ipv4Address.of(m.get(P4InfoConstants.HDR_DST_ADDR).intValue()),
                    m.get(P4InfoConstants.HDR_DST_PORT).intValue()));
        }
        return Optional.empty();
    }

    /** A BIB entry's entries now: its two session entries, and its sessions' remote filters. */
    private List<TableEntry> bibEntries(BibEntry b) {
        Nat64Config c = config.nat64;
        List<TableEntry> out = new ArrayList<>(DesiredState.bibEntries(b, engine.lifetimeOf(b),
                c.addressDependentFiltering));
        if (c.addressDependentFiltering) {
            engine.sessionsOf(b).forEach(s -> out.add(DesiredState.remoteFilter(s)));
        }
        return out;
    }

    // ---- writing -------------------------------------------------------------------------------

    private void putOnBorders(List<TableEntry> entries) {
        for (String d : borders()) {
            Map<String, TableEntry> held = installed.get(d);
            List<Update> updates = new ArrayList<>();
            for (TableEntry e : entries) {
                TableEntry h = held.get(e.key());
                if (h == null) {
                    updates.add(new Update(Update.Type.INSERT, e));
                } else if (!h.equals(e)) {
                    updates.add(new Update(Update.Type.MODIFY, e));
                }
            }
            apply(d, updates);
        }
    }

    private void deleteOnBorders(List<TableEntry> entries) {
        borders().forEach(d -> deleteOn(d, entries));
    }

    private void deleteOn(String deviceId, List<TableEntry> entries) {
        Map<String, TableEntry> held = installed.get(deviceId);
        if (held != null) {
            apply(deviceId, entries.stream().filter(e -> held.containsKey(e.key()))
                    .map(e -> new Update(Update.Type.DELETE, e)).collect(Collectors.toList()));
        }
    }

    private void apply(String deviceId, List<Update> updates) {
        SwitchLink link = links.get(deviceId);
        if (link == null || updates.isEmpty()) {
            return;
        }
        Map<String, TableEntry> held = installed.get(deviceId);
        try {
            link.write(updates);
            count("writes");
        } catch (SwitchLink.SwitchException e) {
            // The switch and our view of it differ: bring it back to its desired state.
            count("writes.failed");
            LOG.warning(deviceId + ": " + e.getMessage() + "; reconciling");
            connected(link);
            return;
        }
        for (Update u : updates) {
            if (u.type == Update.Type.DELETE) {
                held.remove(u.entry.key());
            } else {
                held.put(u.entry.key(), u.entry);
            }
        }
    }

    private void send(String deviceId, byte[] frame) {
        SwitchLink link = links.get(deviceId);
        if (link != null) {
            link.packetOut(frame);
        }
    }

    private List<String> borders() {
        return links.keySet().stream().filter(d -> switchConfig(d).translates()).sorted().collect(Collectors.toList());
    }

    private void count(String what) {
        counters.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
    }

    // ---- the operator's API (REST, CLI) ---------------------------------------------------------

    @Override
    public Nat64Config config() {
        return config.nat64;
    }

    @Override
    public List<Eam> eamt() {
        return engine.store().eams();
    }

    @Override
    public synchronized void addEam(Eam eam) {
        engine.addEam(eam);
        putOnBorders(DesiredState.eamEntries(eam));
    }

    @Override
    public synchronized Optional<Eam> removeEam(Ipv4Prefix ipv4) {
        Optional<Eam> found = engine.store().eams().stream().filter(e -> e.ipv4().equals(ipv4)).findFirst();
        found.ifPresent(e -> {
            engine.removeEam(e);
            deleteOnBorders(DesiredState.eamEntries(e));
        });
        return found;
    }

    @Override
    public List<BibEntry> bib() {
        return engine.store().bib();
    }

    @Override
    public synchronized BibEntry addStaticBib(Protocol protocol, Ipv6Address address6, int port6, TransportAddress v4) {
        BibEntry b = engine.addStaticBib(protocol, address6, port6, v4, clock.getAsLong());
        putOnBorders(bibEntries(b));
        return b;
    }

    @Override
    public synchronized Optional<BibEntry> removeBib(Protocol protocol, Ipv6Address address6, int port6) {
        Optional<BibEntry> found = engine.store().bibBy6(protocol, address6, port6);
        found.ifPresent(b -> {
            List<TableEntry> entries = bibEntries(b);
            engine.removeBib(protocol, address6, port6, clock.getAsLong());
            deleteOnBorders(entries);
        });
        return found;
    }

    @Override
    public List<Session> sessions() {
        return engine.store().sessions();
    }

    @Override
    public List<PortBlock> blocks() {
        return engine.store().blocks();
    }

    @Override
    public Map<String, Long> stats() {
        Map<String, Long> out = new TreeMap<>();
        counters.forEach((k, v) -> out.put(k, v.get()));
        NatStore store = engine.store();
        out.put("bib", (long) store.bib().size());
        out.put("sessions", (long) store.sessions().size());
        out.put("portBlocks", (long) store.blocks().size());
        out.put("eamt", (long) store.eams().size());
        return out;
    }

    @Override
    public List<DeviceStatus> devices() {
        return config.devices.keySet().stream().sorted().map(id -> {
            Map<String, TableEntry> held = installed.get(id);
            return new DeviceStatus(id, switchConfig(id).role, links.containsKey(id), held == null ? 0 : held.size());
        }).collect(Collectors.toList());
    }
}
