package org.nat64fabric.core.control;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
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
import org.nat64fabric.core.fabric.Entity;
import org.nat64fabric.core.fabric.Route;
import org.nat64fabric.core.fabric.SessionEntries;
import org.nat64fabric.core.fabric.SwitchConfig;
import org.nat64fabric.core.fabric.TableEntry;
import org.nat64fabric.core.metrics.LatencyHistogram;
import org.nat64fabric.core.p4.Constants;
import org.nat64fabric.core.p4.P4InfoConstants;
import org.nat64fabric.core.p4.SumeHeaders;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.BibSide;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.session.TcpStateMachine.Segment;
import org.nat64fabric.core.store.MapNatStore;
import org.nat64fabric.core.store.NatStore;

/**
 * The fabric as one NAT64: turns what switches punt and report into NAT state (through
 * {@link Nat64Engine}) and keeps every connected switch holding exactly its
 * {@link DesiredState}. Both runtimes use it: the embedded controller and the ONOS app, each with
 * its own {@link SwitchLink}s and {@link NatStore}.
 *
 * <p>Setups run in batches: packet-ins wait in per-subscriber queues ({@link SetupQueue}); a
 * batch takes them round-robin, allocates in memory, makes the batch durable with one commit,
 * writes each border switch once (all borders at the same time), and only then sends the punted
 * packets back through the pipeline, so their translation finds the new entries. A subscriber
 * whose queue is full is refused with ICMPv6 address unreachable (rate-limited) and counted.
 */
public final class Nat64Fabric implements Nat64Service {
    /** Punt reasons of p4/include/defines.p4, carried in packet-in metadata. */
    public static final int PUNT_SESSION_MISS = 1;
    public static final int PUNT_TCP_CONTROL = 2;
    public static final int PUNT_NEEDS_FRAGMENTATION = 3;
    public static final int PUNT_NO_ROUTE = 4;
    /** NetFPGA SUME: translated and routed; the controller finishes it (see {@link #finish}). */
    public static final int PUNT_FINISH = 5;
    /** NetFPGA SUME: IPv4 whose translation to fragment would not fit a DMA frame (see {@link Probes}). */
    public static final int PUNT_TOO_LONG = 6;
    /** A stateful datagram's fragment after the first, an echo's first, a stateless ICMP datagram's later (see {@link LaterFragments}). */
    public static final int PUNT_FRAGMENT = 7;
    /** A copy of a stateful first fragment the switch translated (see {@link LaterFragments}). */
    public static final int PUNT_FIRST_FRAGMENT = 8;
    /** An IPv4 SYN the switch would not translate: held for a simultaneous open (see {@link HeldSyns}). */
    public static final int PUNT_INBOUND_SYN = 9;
    /** An ICMP error whose extension fits its translation only with its datagram cut (see {@link ExtensionCut}). */
    public static final int PUNT_ICMP_EXTENSION = 10;
    /** A packet-in's ingress port where the runtime does not give it. */
    public static final int PORT_UNKNOWN = -1;
    /** RFC 4443 3.1 Destination Unreachable, code 3: address unreachable (RFC 6146 3.5.1.1). */
    private static final int ICMP6_DEST_UNREACHABLE = 1;
    private static final int ICMP6_ADDRESS_UNREACHABLE = 3;
    /** RFC 792 Destination Unreachable, code 3: port unreachable (RFC 6146 3.5.2.2). */
    private static final int ICMP_DEST_UNREACHABLE = 3;
    private static final int ICMP_PORT_UNREACHABLE = 3;

    private static final Logger LOG = Logger.getLogger(Nat64Fabric.class.getName());
    /** Packets a batch takes. */
    static final int MAX_BATCH = 1024;
    /** Packets a batch takes from one subscriber: one flooding alone makes batches this small. */
    static final int MAX_BATCH_PER_SUBSCRIBER = 64;
    /** Batches whose writes may be under way while the next one allocates. */
    static final int BATCHES_IN_FLIGHT = 4;
    /** RFC 4443 2.4(f): ICMP errors are rate-limited; each switch sends at most this many a second. */
    private static final int REFUSALS_PER_SECOND = 100;
    /** The durability of changes made by a synchronous batch: they are durable when it returns. */
    private static final CompletableFuture<Void> DURABLE = CompletableFuture.completedFuture(null);

    /** The stages of a setup whose time is measured, in order; each packet's add up to TOTAL. */
    enum SetupStage { QUEUED, DURABLE, WRITTEN, SENDING, TOTAL }

    /** A punted packet waiting for its setup. */
    private static final class Punt {
        final String deviceId;
        final int reason;
        final byte[] frame;
        final PuntedPacket packet;
        final long arrived = System.nanoTime();

        Punt(String deviceId, int reason, byte[] frame, PuntedPacket packet) {
            this.deviceId = deviceId;
            this.reason = reason;
            this.frame = frame;
            this.packet = packet;
        }
    }

    private final FabricConfig config;
    private final Nat64Engine engine;
    private final LongSupplier clock;
    private final LongSupplier monotonic;
    private final Map<String, SwitchLink> links = new ConcurrentHashMap<>();
    /** What each connected switch holds, by entity key, as last written or read. */
    private final Map<String, HeldEntities> installed = new ConcurrentHashMap<>();
    /** Connected switches whose reconciliation is written (or that another instance reconciles). */
    private final Set<String> programmed = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();
    private final DataPlaneCounters dataPlane = new DataPlaneCounters();
    /** Counters kept beside the fabric (the IPFIX exporter's), shown with its own. */
    private final List<Supplier<Map<String, Long>>> moreCounters = new CopyOnWriteArrayList<>();
    /**
     * Where a set-up packet's time went, by stage: waiting in its queue (for its turn, then for a
     * batch slot); its batch's allocation and commit; the batch's writes to the borders; its
     * packet-out after the batch's earlier ones; and in all, from packet-in to packet-out.
     */
    private final Map<SetupStage, LatencyHistogram> setupLatency = new EnumMap<>(SetupStage.class);
    /** Packets waiting for a setup, by subscriber, within the configured limits. */
    private final SetupQueue<Punt> setupQueue;
    private final Executor setups;
    private final SwitchWriters switchWriters;
    /** Switches whose reconciliation, after a failed write, is queued and has not started. */
    private final Set<String> reconciling = ConcurrentHashMap.newKeySet();
    private final Semaphore batchesInFlight = new Semaphore(BATCHES_IN_FLIGHT);
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    /** Per switch: the second its ICMP errors are counted in, and how many went out in it. */
    private final Map<String, long[]> refusalBudgets = new ConcurrentHashMap<>();
    private final PortErrorLimit portErrorLimit;
    private final LaterFragments laterFragments;
    private final HeldSyns heldSyns = new HeldSyns();
    private final Probes probes;

    /**
     * Setups and writes run on the caller's thread: for tests, where each packet-in completes at
     * once and {@code clock} times what a monotonic clock times in service too.
     */
    public Nat64Fabric(FabricConfig config, NatStore store, Consumer<NatEvent> log, LongSupplier clock) {
        this(config, store, log, clock, clock, Runnable::run, Runnable::run);
    }

    /**
     * @param setups  runs the setup batches (one at a time is enough: batches grow while one runs)
     * @param writers runs the writes, several switches at the same time, each switch's in order
     */
    public Nat64Fabric(FabricConfig config, NatStore store, Consumer<NatEvent> log, LongSupplier clock,
                       Executor setups, Executor writers) {
        this(config, store, log, clock, Nat64Fabric::monotonicMs, setups, writers);
    }

    /** {@code monotonic}: times what must not step with the wall clock (held SYNs), in ms. */
    Nat64Fabric(FabricConfig config, NatStore store, Consumer<NatEvent> log, LongSupplier clock,
                        LongSupplier monotonic, Executor setups, Executor writers) {
        this.config = config;
        this.laterFragments = new LaterFragments(config.nat64.zeroTrafficClass, config.nat64.ipv4Tos);
        this.monotonic = monotonic;
        this.portErrorLimit = new PortErrorLimit(config.nat64.icmpErrors.perPortPps, config.nat64.icmpErrors.perPortBurst);
        for (SetupStage stage : SetupStage.values()) {
            setupLatency.put(stage, new LatencyHistogram());
        }
        this.setupQueue = new SetupQueue<>(config.nat64.setupQueues.perSubscriber, config.nat64.setupQueues.total);
        this.clock = clock;
        this.probes = new Probes(clock);
        this.setups = setups;
        this.switchWriters = new SwitchWriters(writers, this::writeNow);
        this.engine = new Nat64Engine(config.nat64, store, e -> {
            count("events." + e.type());
            log.accept(e);
        });
        long now = clock.getAsLong();
        for (int i = 0; i < config.eamt.size(); i++) {
            Eam e = config.eamt.get(i);
            if (!store.eams().contains(e)) {
                engine.addEam(e, FabricConfig.NAT64 + ".eamt[" + i + "]", DesiredState.eamCapacity(config.nat64));
            }
        }
        for (int i = 0; i < config.staticBib.size(); i++) {
            FabricConfig.StaticBib b = config.staticBib.get(i);
            String at = FabricConfig.NAT64 + ".staticBib[" + i + "]";
            config.checkSwitchAddress(b.address6, at + ".ipv6Address");
            Optional<BibEntry> held = store.bibBy6(b.protocol, b.address6, b.port6);
            if (held.isEmpty()) {
                engine.addStaticBib(b.protocol, b.address6, b.port6, b.v4, now, at);
            } else if (!held.get().v4().equals(b.v4)) {
                throw new ConfigException(at, held.get() + " is already in the NAT state with another IPv4 side: give"
                        + " this entry that side, or start once without it and remove the other with DELETE /bib/"
                        + b.protocol + "/" + b.address6 + "/" + b.port6);
            }
        }
        warnOfStateTheNetcfgRulesOut();
    }

    /**
     * The netcfg may have changed since the REST API added an EAM or a static BIB entry: each the API
     * would now refuse is kept (a start does not drop mappings), and named in a warning with the
     * request that removes it.
     */
    private void warnOfStateTheNetcfgRulesOut() {
        for (Eam e : engine.store().eams()) {
            if (config.eamt.contains(e)) {
                continue;   // checked as the netcfg's own
            }
            try {
                config.nat64.checkEam(e, "eam");
                config.checkSwitchAddresses(e, "eam");
            } catch (ConfigException x) {
                LOG.warning("the EAM " + e + " in the NAT state is one the netcfg now rules out (" + x.getMessage()
                        + "); it stays until removed: DELETE /eamt?ipv4Prefix=" + e.ipv4());
            }
        }
        for (BibEntry b : engine.store().staticBib()) {
            try {
                config.nat64.checkStaticBib(b.protocol(), b.address6(), b.v4(), "bib");
                config.checkSwitchAddress(b.address6(), "bib.ipv6Address");
            } catch (ConfigException x) {
                LOG.warning("the static BIB entry " + b + " in the NAT state is one the netcfg now rules out ("
                        + x.getMessage() + "); it stays until removed: DELETE /bib/" + b.protocol() + "/" + b.address6()
                        + "/" + b.port6());
            }
        }
    }

    // ---- switches --------------------------------------------------------------------------

    /**
     * A switch (re)connected with its pipeline set: reads what it holds and writes the
     * difference to its desired state (extra entities deleted, missing or changed ones written),
     * in one batch.
     */
    public void connected(SwitchLink link) {
        switchWriters.submit(link.deviceId(), () -> reconcile(link, false)).join();   // after the writes queued before
    }

    /**
     * The work of {@link #connected}, on the switch's writer queue: the switch is read, then what
     * it must hold is taken and recorded under the fabric's lock (so a batch allocating meanwhile
     * diffs against it and queues its write after this one), then the difference is written. No
     * thread holds the lock while it waits for a write, so taking it here cannot deadlock.
     */
    private void reconcile(SwitchLink link, boolean ifStillConnected) {
        Map<Object, Entity> held = new LinkedHashMap<>();
        link.read().forEach(e -> held.put(e.key(), e));
        Map<Object, Entity> desired = new LinkedHashMap<>();
        synchronized (this) {
            if (ifStillConnected && links.get(link.deviceId()) != link) {
                return;   // disconnected meanwhile: its next connection reconciles it
            }
            installed.put(link.deviceId(), desiredAndHeld(link.deviceId(), desired));
            links.put(link.deviceId(), link);
        }
        List<Update> updates = new ArrayList<>();
        held.forEach((key, e) -> {
            if (!desired.containsKey(key) && !e.alwaysPresent()) {
                updates.add(new Update(Update.Type.DELETE, e));
            }
        });
        // What no read lists (default entries) is written every time; what always exists (meter
        // cells, default entries) is modified, never inserted or deleted.
        desired.forEach((key, e) -> {
            Entity h = held.get(key);
            if (!e.readable() || h != null && !h.equals(e) || h == null && e.alwaysPresent()) {
                updates.add(new Update(Update.Type.MODIFY, e));
            } else if (h == null) {
                updates.add(new Update(Update.Type.INSERT, e));
            }
        });
        link.write(updates);
        programmed.add(link.deviceId());
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
        programmed.add(link.deviceId());
        installed.put(link.deviceId(), desiredAndHeld(link.deviceId(), new LinkedHashMap<>()));
    }

    /**
     * Puts the switch's desired state into {@code desired} (by key) and returns what it holds once
     * it holds that; under the fabric's lock. A translating switch's maps are made for a full
     * session table (and with address-dependent filtering, a remote filter per session).
     */
    private HeldEntities desiredAndHeld(String deviceId, Map<Object, Entity> desired) {
        SwitchConfig sw = switchConfig(deviceId);
        List<SessionEntries> bibs = sessionEntriesOn(sw);
        desiredState(sw, bibs).forEach(e -> desired.put(e.key(), e));
        int expected = sw.translates() ? MapNatStore.EXPECTED_SESSIONS : 0;
        HeldEntities held = new HeldEntities(config.nat64.filtersAny() ? expected : 0);
        desired.values().stream().filter(e -> !SessionEntries.isSessionEntry(e)).forEach(held::hold);
        bibs.forEach(held::hold);
        return held;
    }

    public synchronized void disconnected(String deviceId) {
        programmed.remove(deviceId);
        links.remove(deviceId);
        installed.remove(deviceId);
    }

    /** The switch's desired state now. */
    public synchronized List<Entity> desiredState(String deviceId) {
        SwitchConfig sw = switchConfig(deviceId);
        return desiredState(sw, sessionEntriesOn(sw));
    }

    /** Every BIB entry's session entries, on a switch that translates. */
    private List<SessionEntries> sessionEntriesOn(SwitchConfig sw) {
        return sw.translates()
                ? engine.store().bib().stream().map(this::sessionEntries).collect(Collectors.toList()) : List.of();
    }

    private List<Entity> desiredState(SwitchConfig sw, List<SessionEntries> bibs) {
        NatStore store = engine.store();
        return DesiredState.of(sw, config.nat64, store.eams(), bibs, store.sessions());
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

    /** A packet-in without packet_in.finish bits (a v1model switch's), its ingress port unknown. */
    public void packetIn(String deviceId, int puntReason, byte[] frame) {
        packetIn(deviceId, puntReason, 0, PORT_UNKNOWN, frame);
    }

    /**
     * A packet-in: queued for a setup (a session miss, a TCP control segment), fragmented, or
     * counted and dropped. Returns at once; the setup runs in the next batch. {@code finish}: a
     * NetFPGA SUME's packet_in.finish bits besides PUNT_FINISH (FINISH_NO_ETHERNET, FINISH_PROBED,
     * FINISH_UDP_CHECKSUM), 0 for a v1model switch; {@code ingressPort}: packet_in.ingress_port,
     * or {@link #PORT_UNKNOWN}.
     */
    public void packetIn(String deviceId, int puntReason, int finish, int ingressPort, byte[] frame) {
        count("packetIn." + puntReason);
        boolean noEthernet = (finish & SumeHeaders.FINISH_NO_ETHERNET) != 0;
        if (puntReason == PUNT_NEEDS_FRAGMENTATION) {
            Optional<byte[]> whole = (finish & SumeHeaders.FINISH_PROBED) != 0 ? probes.translated(deviceId, frame)
                    : noEthernet ? MissingEthernet.towardsDestination(frame, switchConfig(deviceId))
                    : Optional.of(frame);
            Optional<byte[]> done = (finish & SumeHeaders.FINISH_UDP_CHECKSUM) == 0
                    ? whole.map(Finisher::withUdpSumMended)
                    : whole.flatMap(f -> Finisher.finish(f, SumeHeaders.FINISH_UDP_CHECKSUM, 0));
            if (done.isEmpty()) {
                count("fragmentation.unparsed");
                return;
            }
            learnFromFragmented(deviceId, done.get());
            fragment(deviceId, done.get());
            return;
        }
        Optional<byte[]> framed = noEthernet ? MissingEthernet.blank(frame) : Optional.of(frame);
        if (puntReason == PUNT_TOO_LONG) {
            probe(deviceId, framed);
            return;
        }
        if (puntReason == PUNT_FRAGMENT) {
            if (framed.flatMap(LaterFragments::firstOfSeveral).isPresent()) {
                firstEchoFragment(deviceId, framed.get());
            } else {
                sendFragments(framed.map(f -> laterFragments.later(deviceId, f, monotonicMs())));
            }
            return;
        }
        if (puntReason == PUNT_ICMP_EXTENSION) {
            // Sent back cut, or as it came (the switch then translates it without its extension).
            Optional<byte[]> cut = framed.flatMap(ExtensionCut::cut);
            count(cut.isPresent() ? "icmpExtension.cut" : "icmpExtension.uncut");
            framed.ifPresent(f -> send(deviceId, cut.orElse(f)));
            return;
        }
        if (puntReason == PUNT_INBOUND_SYN) {
            holdSyn(deviceId, ingressPort, framed);
            return;
        }
        if (puntReason == PUNT_FIRST_FRAGMENT || puntReason == PUNT_TCP_CONTROL) {
            framed.ifPresent(f -> learnFirstFragment(deviceId, f, false));     // a copy of a first fragment, TCP control or not
            if (puntReason == PUNT_FIRST_FRAGMENT) {
                return;
            }
        }
        if (puntReason == 0) {
            // A v1model switch's ICMP error about a packet the controller sent through its
            // pipeline (a flow's first packet too large, a hairpin's second pass): it went back
            // out of the port that packet came in by, the CPU port. Sent on, the pipeline routes it.
            if (framed.filter(IcmpErrors::isError).isPresent()) {
                send(deviceId, framed.get());
                count("packetIn.errorsRouted");
            }
            return;
        }
        if (puntReason != PUNT_SESSION_MISS && puntReason != PUNT_TCP_CONTROL) {
            LOG.fine(() -> deviceId + ": packet-in reason " + puntReason + " needs no setup, dropped");
            return;
        }
        Optional<PuntedPacket> parsed = framed.flatMap(PuntedPacket::parse);
        if (parsed.isEmpty()) {
            count("packetIn.unparsed");
            return;
        }
        queueSetup(deviceId, puntReason, framed.get(), parsed.get());
    }

    /**
     * From a first fragment the switch translated by a session, the addresses its datagram's later
     * fragments are translated to; and those that came first, translated now. The first fragment
     * comes as it arrived (v1model's copy, {@code translated} false) or as the switch translated
     * it ({@code translated}: to be fragmented here, or finished for a NetFPGA SUME); anything
     * but a first fragment of several teaches nothing.
     */
    private void learnFirstFragment(String deviceId, byte[] frame, boolean translated) {
        Optional<LaterFragments.Datagram> datagram = LaterFragments.firstOfSeveral(frame);
        Optional<PuntedPacket> p = datagram.flatMap(d -> PuntedPacket.parse(frame));
        if (p.isEmpty() || p.get().protocol == Protocol.ICMP) {
            return;                                   // an echo's fragments are not translated
        }
        PuntedPacket f = p.get();
        LaterFragments.Datagram d = datagram.get();
        long now = monotonicMs();
        Optional<LaterFragments.Result> learnt;
        if (!translated) {
            learnt = f.ipv6
                    ? engine.store().bibBy6(f.protocol, f.source6(), f.sourcePort).flatMap(bib -> engine.ipv4Of(
                            f.destination6()).map(dst -> laterFragments.learn(d, bib.v4().address(), dst, now)))
                    : engine.store().bibBy4(f.protocol, new TransportAddress(f.destination4(), f.destinationPort))
                            .map(bib -> laterFragments.learn(d, sourceOf(deviceId, f.source4()), bib.address6(), now));
        } else {
            learnt = f.ipv6
                    ? engine.ipv4Of(f.source6()).flatMap(src -> engine.store().bibBy6(f.protocol, f.destination6(),
                            f.destinationPort).map(bib -> laterFragments.learn(d.from(src, bib.v4().address()),
                            f.source6(), f.destination6(), now)))
                    : engine.store().bibBy4(f.protocol, new TransportAddress(f.source4(), f.sourcePort))
                            .map(bib -> laterFragments.learn(d.from(bib.address6(), remote6Of(bib, f.destination4(),
                                    f.destinationPort)), f.source4(), f.destination4(), now));
        }
        if (learnt.isEmpty()) {
            if (!translated) {
                count("fragments.unmapped");   // (a frame to fragment may be routed, not translated)
            }
            return;
        }
        count("fragments.learned");
        sendFragments(learnt);
    }

    /**
     * An echo in fragments: the switch punts the first untranslated (its ICMPv6 checksum counts
     * the whole message's length), which is translated once the last fragment has come
     * ({@link LaterFragments#echoFirst}): a session's with its mapping's identifier, a stateless
     * host's (EAM, SIIT) by its addresses alone, keeping its own; one to a stateless host's IPv4
     * address, hairpinned, translated back to IPv6 at once.
     */
    private void firstEchoFragment(String deviceId, byte[] frame) {
        LaterFragments.Datagram d = LaterFragments.firstOfSeveral(frame).orElseThrow();
        Optional<PuntedPacket> p = PuntedPacket.parse(frame).filter(f -> f.protocol == Protocol.ICMP);
        long now = monotonicMs();
        // Stateless first, as the switch looks its tables up (the EAMT, SIIT prefixes, then sessions).
        Optional<LaterFragments.Result> waiting = p.flatMap(f -> f.ipv6
                ? engine.statelessIpv4Of(f.source6()).flatMap(src -> engine.ipv4Of(f.destination6())
                        .map(dst -> laterFragments.echoFirst(deviceId, frame, d, src, dst, f.sourcePort,
                                hairpinOf(deviceId, src, dst), now)))
                        .or(() -> engine.store().bibBy6(Protocol.ICMP, f.source6(), f.sourcePort).flatMap(bib ->
                                engine.ipv4Of(f.destination6()).map(dst -> laterFragments.echoFirst(deviceId, frame, d,
                                        bib.v4().address(), dst, bib.v4().port(),
                                        hairpinOf(deviceId, bib.v4().address(), dst), now))))
                : engine.statelessIpv6Of(f.destination4()).map(dst -> laterFragments.echoFirst(deviceId, frame, d,
                                sourceOf(deviceId, f.source4()), dst, f.destinationPort, null, now))
                        .or(() -> engine.store().bibBy4(Protocol.ICMP, new TransportAddress(f.destination4(),
                                f.destinationPort)).map(bib -> laterFragments.echoFirst(deviceId, frame, d,
                                sourceOf(deviceId, f.source4()), bib.address6(), bib.port6(), null, now))));
        if (waiting.isEmpty()) {
            count("fragments.unmapped");
            return;
        }
        count("fragments.echoes");
        sendFragments(waiting);
    }

    /**
     * RFC 7757 4.2: an echo from IPv6 to a stateless host's IPv4 address goes back to IPv6, its
     * source written into pool6 (not mapped back by an EAM), where the pipeline would hairpin it;
     * null for another destination (an IPv4 host an EAM names is routed). (To a session's pool4
     * address it goes round the pipeline and comes back here from IPv4: {@link #sourceOf}.)
     */
    private LaterFragments.Hairpin hairpinOf(String deviceId, Ipv4Address source, Ipv4Address destination) {
        return routedBack(deviceId, destination) ? engine.statelessIpv6Of(destination)
                .map(d -> new LaterFragments.Hairpin(engine.inPool6(source), d)).orElse(null) : null;
    }

    /**
     * The IPv6 source of IPv4 from {@code source} through the switch: written into pool6 where the
     * switch routes that address back into itself, for the packet was hairpinned (RFC 6146 3.8,
     * RFC 7757 4.2: from an IPv6 host, as the pipeline's second pass writes it), else its EAM's or
     * pool6's.
     */
    private Ipv6Address sourceOf(String deviceId, Ipv4Address source) {
        return routedBack(deviceId, source) ? engine.inPool6(source) : engine.representation(source);
    }

    /**
     * The switch's route to {@code a} is a hairpin, as written: configured (an EAM prefix's), or
     * for a pool4 or SIIT prefix ({@link DesiredState#hairpinned}).
     */
    private boolean routedBack(String deviceId, Ipv4Address a) {
        List<Route> routes = new ArrayList<>(switchConfig(deviceId).routes);
        DesiredState.hairpinned(config.nat64).forEach(p -> routes.add(Route.of(p.toString(), Route.Kind.HAIRPIN, "")));
        return SwitchConfig.longestMatch(routes, a.toString()).filter(r -> r.kind == Route.Kind.HAIRPIN).isPresent();
    }

    /** Fragments wait by a clock that does not step ({@link LaterFragments} forgets eldest first). */
    private static long monotonicMs() {
        return System.nanoTime() / 1_000_000;
    }

    /**
     * Sends later fragments translated back through their switch's pipeline, which routes them;
     * IPv6 ones cut to the lowest IPv6 MTU and their route's port MTU (RFC 7915 4), as the first
     * fragment was. Counts what became of them.
     */
    private void sendFragments(Optional<LaterFragments.Result> result) {
        if (result.isEmpty()) {
            count("fragments.unparsed");
            return;
        }
        LaterFragments.Result r = result.get();
        count("fragments.held", r.held);
        count("fragments.expired", r.expired);
        count("fragments.overflow", r.overflow);
        count("fragments.unparsed", r.unparsed);
        count("fragments.ttlExpired", r.ttlExpired);
        for (LaterFragments.Out out : r.translated) {
            SwitchLink link = links.get(out.deviceId);
            if (link == null) {
                count("fragments.unsent");        // its switch went meanwhile
                continue;
            }
            SwitchConfig sw = switchConfig(out.deviceId);
            Optional<List<byte[]>> pieces = !out.ipv6 ? Optional.of(List.of(out.frame))
                    : Fragmenter.destination(out.frame).flatMap(d -> Fragmenter.fragment(out.frame, fragmentMtu(sw, d)));
            if (pieces.isEmpty()) {
                count("fragments.unparsed");
                continue;
            }
            pieces.get().forEach(link::packetOut);
            count("fragments.translated");
        }
    }

    /** A packet the card could not translate whole: its headers go through the pipe as a probe. */
    private void probe(String deviceId, Optional<byte[]> frame) {
        Optional<byte[]> probe = frame.flatMap(f -> probes.probe(deviceId, f));
        SwitchLink link = links.get(deviceId);
        if (probe.isEmpty()) {
            count("fragmentation.unparsed");
        } else if (link == null || !link.probe(probe.get())) {
            count("fragmentation.notSupported");
        } else {
            count("fragmentation.probes");
        }
    }

    private void queueSetup(String deviceId, int puntReason, byte[] frame, PuntedPacket p) {
        Object subscriber = p.ipv6 ? engine.pool4().subscriberOf(p.source6()) : p.source4();
        Punt refused = setupQueue.offer(subscriber, new Punt(deviceId, puntReason, frame, p));
        if (refused != null) {
            count("setups.queueFull");
            if (refused.packet.ipv6 && refused.reason == PUNT_SESSION_MISS && refusalAllowed(refused.deviceId)) {
                refuse(refused.deviceId, refused.frame);
            }
        }
        if (drainScheduled.compareAndSet(false, true)) {
            setups.execute(this::drainSetups);
        }
    }

    /**
     * A packet a NetFPGA SUME translated and routed but could not complete (PUNT_FINISH): cut and
     * checksummed here as {@code finish} says, then sent out of {@code outPort} as it is. A TCP
     * control segment (the card has no clone to the CPU) is also tracked, as v1model's copy is,
     * from the flow it was translated from. A hairpinned packet goes back through the pipeline for
     * its second translation (where the runtime cannot mark it so, it is counted and dropped).
     * A packet the card answers with an ICMP error (FINISH_ICMP_ERROR: {@code errorType},
     * {@code errorCode}, {@code errorParam}) is not translated: the error about it goes back out
     * of {@code outPort}, the port it came in on; with FINISH_NO_ETHERNET the card left its
     * Ethernet header out, which is written back from the route to its source ({@link MissingEthernet}).
     * With FINISH_PROBED the frame is a probe's translation, finished once the payload it left out
     * is behind it ({@link Probes}).
     */
    public void finish(String deviceId, byte[] frame, int finish, int outPort, int truncateTo, int errorType,
                       int errorCode, int errorParam) {
        count("packetIn." + PUNT_FINISH);
        if ((finish & SumeHeaders.FINISH_PROBED) == 0) {
            finishWhole(deviceId, frame, finish, outPort, truncateTo, errorType, errorCode, errorParam);
            return;
        }
        Optional<byte[]> whole = probes.translated(deviceId, frame);
        if (whole.isEmpty()) {
            count("finish.unparsed");
            return;
        }
        finishWhole(deviceId, whole.get(), finish & ~SumeHeaders.FINISH_PROBED, outPort, truncateTo, errorType,
                errorCode, errorParam);
    }

    private void finishWhole(String deviceId, byte[] frame, int finish, int outPort, int truncateTo, int errorType,
                             int errorCode, int errorParam) {
        if ((finish & ~SumeHeaders.FINISH_NO_ETHERNET) == SumeHeaders.FINISH_ICMP_ERROR) {
            Optional<byte[]> framed = (finish & SumeHeaders.FINISH_NO_ETHERNET) == 0 ? Optional.of(frame)
                    : MissingEthernet.fromSource(frame, switchConfig(deviceId));
            if (framed.isEmpty()) {
                count("icmpErrors.notSent");
                return;
            }
            sendError(deviceId, framed.get(), outPort, errorType, errorCode, errorParam);
            return;
        }
        int rest = finish & ~(SumeHeaders.FINISH_TRACK | SumeHeaders.FINISH_HAIRPIN);
        Optional<byte[]> done = rest == 0 ? Optional.of(frame) : Finisher.finish(frame, rest, truncateTo);
        if (done.isEmpty()) {
            count("finish.unparsed");
            LOG.fine(() -> deviceId + ": a packet to finish (" + finish + ") dropped");
            return;
        }
        if ((finish & SumeHeaders.FINISH_TRACK) != 0) {
            track(deviceId, done.get());
        }
        SwitchLink link = links.get(deviceId);
        if ((finish & SumeHeaders.FINISH_HAIRPIN) != 0) {
            count(link != null && link.hairpin(done.get()) ? "finish.hairpinned" : "finish.notSupported");
        } else if (link != null) {
            link.packetOut(done.get(), outPort);
            count("finish.sent");
        }
    }

    /**
     * A packet the switch punts to be fragmented, which it copies for nothing else: what a copy
     * would tell is learnt from it. A first fragment of several translated too large for its link
     * teaches how its later fragments are translated; a translated TCP segment drives its session's
     * state as a copy would (a routed one has no mapping and teaches nothing).
     */
    private void learnFromFragmented(String deviceId, byte[] frame) {
        learnFirstFragment(deviceId, frame, true);
        trackTcp(deviceId, frame);
    }

    /**
     * A packet a NetFPGA SUME handed over translated to be tracked (FINISH_TRACK): a first fragment
     * of several teaches how its later fragments are translated; a TCP segment (a control segment,
     * any of a transitory mapping; a first fragment may be one too) drives its session's state.
     */
    private void track(String deviceId, byte[] frame) {
        boolean firstFragment = LaterFragments.firstOfSeveral(frame).isPresent();
        learnFirstFragment(deviceId, frame, true);
        if (!trackTcp(deviceId, frame) && !firstFragment) {
            count("finish.untracked");     // its mapping went meanwhile: sent on all the same
        }
    }

    /**
     * Queues a translated TCP segment to drive its session's state (a SYN, FIN or RST, or any
     * segment of a transitory mapping, which the switch hands over or punts to be fragmented
     * instead of copying); false for anything else.
     */
    private boolean trackTcp(String deviceId, byte[] frame) {
        Optional<PuntedPacket> original = PuntedPacket.parse(frame)
                .filter(t -> t.protocol == Protocol.TCP).flatMap(this::untranslated);
        original.ifPresent(o -> queueSetup(deviceId, PUNT_TCP_CONTROL, frame, o));
        return original.isPresent();
    }

    /**
     * An IPv4 SYN to a pool4 address without a BIB entry, or filtered: held until TCP_INCOMING_SYN
     * is up ({@link HeldSyns}), as the Port Unreachable that will answer it (at most 590 bytes,
     * whatever the SYN's size). When the policy drops externally initiated connections, the switch
     * punts the SYNs its address filter lets in: one of a connection with a session goes back
     * through the pipeline, any other is dropped.
     */
    private void holdSyn(String deviceId, int cameIn, Optional<byte[]> frame) {
        Optional<PuntedPacket> p = frame.flatMap(PuntedPacket::parse)
                .filter(f -> !f.ipv6 && f.protocol == Protocol.TCP && f.segment == Segment.SYN);
        if (p.isEmpty()) {
            count("packetIn.unparsed");
            return;
        }
        Nat64Config nat = config.nat64;
        PuntedPacket syn = p.get();
        TransportAddress local4 = new TransportAddress(syn.destination4(), syn.destinationPort);
        TransportAddress remote4 = new TransportAddress(syn.source4(), syn.sourcePort);
        if (nat.dropExternallyInitiatedTcp) {
            // One the address filter let in: it goes on only as half of a connection the host
            // opened, a simultaneous open (RFC 6146 3.5.2.2); the pipeline does not punt it again.
            boolean opened = tcpSessionExists(local4, remote4);
            if (opened) {
                send(deviceId, frame.get());
                // v1model copies no packet-out (a SUME card hands it back to be tracked: the same
                // SYN twice changes nothing)
                queueSetup(deviceId, PUNT_TCP_CONTROL, frame.get(), syn);
            }
            count(opened ? "heldSyns.admitted" : "heldSyns.dropped");
            return;
        }
        // The error is built only for a SYN that will be held (a flood of repeats builds none).
        HeldSyns.Outcome o = heldSyns.hold(deviceId, cameIn, () -> IcmpErrors.about(frame.get(),
                        switchConfig(deviceId).address4, null, ICMP_DEST_UNREACHABLE, ICMP_PORT_UNREACHABLE, 0),
                local4, remote4, monotonic.getAsLong(),
                nat.timeouts.tcpIncomingSyn * 1000, nat.maxHeldSyns);
        count("heldSyns." + o.name().toLowerCase(java.util.Locale.ROOT));
    }

    /**
     * Periodic, every second: the held SYNs whose TCP_INCOMING_SYN is up. One whose flow has a
     * session now (the IPv6 host's SYN came: a simultaneous open) is dropped, as RFC 6146 3.5.2.2
     * asks; any other is answered with its Port Unreachable, through the switch it came to.
     */
    public void answerHeldSyns() {
        for (HeldSyns.Held h : heldSyns.due(monotonic.getAsLong())) {
            boolean opened = tcpSessionExists(h.local4, h.remote4);
            if (opened) {
                count("heldSyns.opened");
            } else {
                count(sendBack(h) ? "heldSyns.refused" : "heldSyns.unanswered");
            }
        }
    }

    /** Whether a TCP session joins the mapping of pool4's {@code local4} to the remote {@code remote4}. */
    private boolean tcpSessionExists(TransportAddress local4, TransportAddress remote4) {
        return engine.store().bibBy4(Protocol.TCP, local4)
                .flatMap(bib -> engine.store().session(Session.key(bib, remote4))).isPresent();
    }

    /**
     * Sends a held SYN's Port Unreachable, within the switch's budget (RFC 4443 2.4(f)): out of the
     * port the SYN came in by when the route to its sender leads there, with that route's MACs, so
     * that an IPv4 host an EAM also names gets it as it is, not turned into IPv6 by the EAMT;
     * otherwise through the pipeline, which routes it (a SYN hairpinned from IPv6 came in by the
     * IPv6 host's port, to which its error goes back translated).
     */
    private boolean sendBack(HeldSyns.Held h) {
        SwitchLink link = links.get(h.deviceId);
        if (link == null || !refusalAllowed(h.deviceId)) {
            return false;
        }
        byte[] packet = Arrays.copyOfRange(h.error, SumeHeaders.ETHERNET, h.error.length);
        Optional<byte[]> back = MissingEthernet.routeToDestination(packet, switchConfig(h.deviceId))
                .filter(r -> r.port == h.cameIn).map(r -> SumeHeaders.withEthernet(packet, r.dstMac, r.srcMac));
        if (back.isPresent()) {
            link.packetOut(back.get(), h.cameIn);
        } else {
            link.packetOut(h.error);
        }
        return true;
    }

    /**
     * The ICMP error a v1model switch sends itself, built here for a card that cannot sum what it
     * quotes: from the switch's own address of the packet's family (sent only where it has both,
     * as v1model's icmp_error.icmp_source), rate-limited per port as v1model's icmp_error.error_meter
     * limits them ({@link PortErrorLimit}; RFC 4443 2.4(f), RFC 1812 4.3.2.8), counted by kind as
     * v1model's icmp_error.sent. Out of the port the packet came in by, or, for one the controller
     * sent (the CPU port), through the pipeline, which routes it.
     */
    private void sendError(String deviceId, byte[] frame, int outPort, int type, int code, int param) {
        SwitchConfig sw = switchConfig(deviceId);
        SwitchLink link = links.get(deviceId);
        Optional<byte[]> error = sw.address4 == null || sw.address6 == null ? Optional.empty()
                : IcmpErrors.about(frame, sw.address4, sw.address6, type, code, param);
        if (error.isEmpty() || link == null) {
            count("icmpErrors.notSent");
            return;
        }
        if (portErrorLimit.allow(deviceId, outPort, clock.getAsLong())) {
            if (outPort == Constants.CPU_PORT) {
                link.packetOut(error.get());      // about a packet the controller sent: its pipeline routes it
            } else {
                link.packetOut(error.get(), outPort);
            }
            count("icmpErrors.sent." + IcmpErrors.kind(frame, type, code));
        } else {
            count("icmpErrors.rateLimited");
        }
    }

    /**
     * The flow a translated TCP segment was translated from, as the switch saw it before: for an
     * IPv4 segment, from the IPv6 host whose BIB entry holds its source; for an IPv6 one, from the
     * IPv4 address its source represents to the BIB entry of its destination.
     */
    /** The IPv6 address a host reached an IPv4 remote by: its session's, else the remote's representation. */
    private Ipv6Address remote6Of(BibEntry bib, Ipv4Address remote, int remotePort) {
        return engine.store().session(Session.key(bib, new TransportAddress(remote, remotePort))).map(Session::remote6)
                .orElseGet(() -> engine.representation(remote));
    }

    private Optional<PuntedPacket> untranslated(PuntedPacket t) {
        if (t.protocol != Protocol.TCP) {
            return Optional.empty();
        }
        if (!t.ipv6) {
            return engine.store().bibBy4(Protocol.TCP, new TransportAddress(t.source4(), t.sourcePort))
                    .map(bib -> PuntedPacket.tcp(true, bib.address6(), bib.port6(),
                            remote6Of(bib, t.destination4(), t.destinationPort), t.destinationPort, t.segment));
        }
        return engine.ipv4Of(t.source6()).flatMap(src -> engine.store().bibBy6(Protocol.TCP, t.destination6(),
                t.destinationPort).map(bib -> PuntedPacket.tcp(false, src, t.sourcePort, bib.v4().address(),
                        bib.v4().port(), t.segment)));
    }

    /**
     * Runs batches until the queue is empty. A batch is taken once it has a slot among those in
     * flight, so that it holds what waits then, not what waited when the slots were full.
     */
    private void drainSetups() {
        drainScheduled.set(false);    // a packet-in queued from now on schedules another drain
        while (true) {
            batchesInFlight.acquireUninterruptibly();
            List<Punt> batch = setupQueue.take(MAX_BATCH, MAX_BATCH_PER_SUBSCRIBER);
            if (batch.isEmpty()) {
                batchesInFlight.release();
                return;
            }
            try {
                setUp(batch);
            } catch (RuntimeException e) {
                count("setups.failed");
                LOG.log(java.util.logging.Level.WARNING, "a batch of " + batch.size() + " setups failed", e);
            }
        }
    }

    /**
     * One batch: every allocation in memory, under the fabric's lock; then, while the next batch
     * allocates, its commit, and once that is durable one write per border switch, borders at the
     * same time; the packets go back once their batch's writes are done on every border. A batch
     * whose commit fails is neither written nor sent: its senders retry. It holds a slot in
     * flight, taken by the caller, until then.
     */
    private void setUp(List<Punt> batch) {
        long started = System.nanoTime();
        long[] durableAt = new long[1];
        List<Punt> toSend = new ArrayList<>();
        List<Punt> refused = new ArrayList<>();
        CompletableFuture<Void> written;
        try {
            written = allocate(batch, toSend, refused, durableAt);
        } catch (Throwable e) {
            batchesInFlight.release();
            throw e;
        }
        written.whenComplete((done, notDurable) -> {
            batchesInFlight.release();
            if (notDurable != null) {
                count("setups.failed");
                LOG.log(java.util.logging.Level.WARNING, "a batch of " + batch.size() + " setups failed", notDurable);
                return;
            }
            long writtenAt = System.nanoTime();
            toSend.forEach(p -> {
                if (p.reason == PUNT_SESSION_MISS) {
                    learnFirstFragment(p.deviceId, p.frame, false);   // the switch does not copy what the controller sends
                }
                send(p.deviceId, p.frame);
                long sent = System.nanoTime();
                // Per packet sent, so that the stages add up to its total.
                setupLatency.get(SetupStage.QUEUED).record(started - p.arrived);
                setupLatency.get(SetupStage.DURABLE).record(durableAt[0] - started);
                setupLatency.get(SetupStage.WRITTEN).record(writtenAt - durableAt[0]);
                setupLatency.get(SetupStage.SENDING).record(sent - writtenAt);
                setupLatency.get(SetupStage.TOTAL).record(sent - p.arrived);
            });
        });
        refused.stream().filter(p -> refusalAllowed(p.deviceId)).forEach(p -> refuse(p.deviceId, p.frame));
    }

    /**
     * Allocates the batch and queues its writes; the future completes once the batch is durable
     * and written (a failed write queued the switch's reconciliation: a packet that still misses
     * is punted again), or
     * fails when the batch is not durable.
     */
    private synchronized CompletableFuture<Void> allocate(List<Punt> batch, List<Punt> toSend, List<Punt> refused,
                                                          long[] durableAt) {
        long now = clock.getAsLong();
        Entries toPut = new Entries();
        // Misses of one flow in one batch (a burst before the first setup is done) are set up once.
        Map<List<Object>, Outcome> misses = new HashMap<>();
        CompletableFuture<Void> durable = engine.store().batchAsync(() -> {
            for (Punt punt : batch) {
                List<Object> flow = punt.reason == PUNT_SESSION_MISS ? flowOf(punt.packet) : null;
                Outcome seen = flow == null ? null : misses.get(flow);
                if (seen != null) {
                    count("setups.coalesced");
                    if (seen.translated()) {
                        toSend.add(punt);
                    } else if (seen.icmpError().isPresent() && punt.packet.ipv6) {
                        refused.add(punt);
                    }
                    continue;
                }
                Outcome o = outcome(punt.packet, now);
                if (flow != null && o != null) {
                    misses.put(flow, o);
                }
                if (o == null) {
                    count("packetIn.unparsed");
                } else if (o.icmpError().isPresent() && punt.packet.ipv6) {
                    count("setups.refused");
                    // Not at INFO: a flooding host would write a line per packet; its NAT event
                    // (quota or pool exhausted) and the counter say who and how many.
                    LOG.fine(() -> punt.deviceId + ": " + punt.packet + " refused: " + o.dropReason().orElse(""));
                    refused.add(punt);
                } else if (!o.translated()) {
                    count("setups.dropped");
                    LOG.fine(() -> punt.deviceId + ": " + punt.packet + " dropped: " + o.dropReason().orElse(""));
                } else {
                    Session s = o.session().orElseThrow();
                    if (o.reprogram() || punt.reason == PUNT_SESSION_MISS) {
                        // A miss of a held session too: if its entries are not on the switch (a
                        // write lost), they are written; if they are, the diff makes it free and
                        // the packet still waits behind the write that carries them.
                        toPut.addAll(bibEntries(s.bib()));   // the last state wins
                    }
                    if (punt.reason == PUNT_SESSION_MISS) {
                        count("setups.translated");
                        toSend.add(punt);
                    }
                }
            }
        });
        count("setups.batches");
        durable = durable.thenRun(() -> durableAt[0] = System.nanoTime());
        CompletableFuture<Void> written = putOnBorders(toPut, durable);
        return durable.thenCompose(d -> written.exceptionally(writeFailed -> null));
    }

    private static List<Object> flowOf(PuntedPacket p) {
        return List.of(p.protocol, p.source, p.sourcePort, p.destination, p.destinationPort);
    }

    private Outcome outcome(PuntedPacket p, long now) {
        try {
            return p.ipv6
                    ? engine.fromV6(p.protocol, p.source6(), p.sourcePort, p.destination6(), p.destinationPort,
                            p.segment, heldSyns::heldFrom, now)
                    : engine.fromV4(p.protocol, p.source4(), p.sourcePort, p.destination4(), p.destinationPort,
                            p.segment, now);
        } catch (ConfigException e) {
            return null;
        }
    }

    /** RFC 6146 3.5.1.1: a flow that gets no mapping is answered ICMPv6 address unreachable. */
    private void refuse(String deviceId, byte[] frame) {
        SwitchConfig sw = switchConfig(deviceId);
        IcmpErrors.about(frame, null, sw.address6, ICMP6_DEST_UNREACHABLE, ICMP6_ADDRESS_UNREACHABLE, 0)
                .ifPresent(error -> send(deviceId, error));
    }

    /**
     * RFC 4443 2.4(f): whether one more ICMP error may go out of this switch this second; counted
     * when not (none when the operator sends none: {@code icmpErrors.perPortPps} 0). Each switch is a node sending errors from its own address, so each has its own
     * budget: a flood at one edge does not silence the errors of the others.
     */
    private boolean refusalAllowed(String deviceId) {
        if (!config.nat64.icmpErrors.sent()) {
            count("icmpErrors.notSent");
            return false;
        }
        long[] budget = refusalBudgets.computeIfAbsent(deviceId, d -> new long[2]);
        synchronized (budget) {     // not the fabric's lock: gRPC's thread asks this under a flood
            long second = clock.getAsLong() / 1000;
            if (second != budget[0]) {
                budget[0] = second;
                budget[1] = 0;
            }
            if (budget[1]++ < REFUSALS_PER_SECOND) {
                return true;
            }
        }
        count("icmpErrors.rateLimited");
        return false;
    }

    /**
     * A switch reports a session entry idle. Once every border switch reported both of a BIB
     * entry's entries idle, its sessions time out; what is left is rewritten or deleted.
     */
    public void idle(String deviceId, TableEntry entry) {
        idle(deviceId, List.of(entry));
    }

    /**
     * A switch reports entries idle (one P4Runtime notification): handled as one batch, one
     * commit, and on each border one write of what is deleted, then one of what is rewritten.
     */
    public void idle(String deviceId, List<TableEntry> entries) {
        idleWrites(deviceId, entries).join();
    }

    private synchronized CompletableFuture<Void> idleWrites(String deviceId, List<TableEntry> entries) {
        List<TableEntry> stale = new ArrayList<>();
        // by key: an entry is either deleted or rewritten, whatever order its BIB entry's reports came in
        Entries deletes = new Entries();
        Entries puts = new Entries();
        long now = clock.getAsLong();
        SwitchLink reporter = links.get(deviceId);
        boolean renewed = reporter == null || reporter.renewsIdleReports();
        engine.store().batch(() -> {
            // Each entry's BIB entry is found before any is handled: an entry reported beside the
            // one that ends its BIB entry is deleted with it (below, on every border), not as stale.
            List<Optional<BibEntry>> bibs = entries.stream().map(this::bibOf).collect(Collectors.toList());
            for (int i = 0; i < entries.size(); i++) {
                TableEntry entry = entries.get(i);
                count("idleNotifications");
                Optional<BibEntry> bib = bibs.get(i);
                if (bib.isEmpty()) {
                    stale.add(entry);
                    continue;
                }
                BibEntry b = bib.get();
                Entries before = bibEntries(b);
                Set<String> holders = links.keySet().stream().filter(d -> switchConfig(d).translates())
                        .flatMap(d -> Stream.of(P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V6,
                                P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V4).map(t -> d + "|" + t))
                        .collect(Collectors.toSet());
                Nat64Engine.Idle what = engine.onIdle(b.protocol(), b.address6(), b.port6(),
                        deviceId + "|" + entry.table(), holders, renewed, now);
                if (what == Nat64Engine.Idle.REPROGRAM) {
                    Entries after = bibEntries(b);
                    deletes.addAll(before);
                    deletes.removeAll(after);
                    puts.addAll(after);
                } else if (what == Nat64Engine.Idle.REMOVED) {
                    puts.removeAll(before);
                    deletes.addAll(before);
                }
            }
        });
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        if (!stale.isEmpty()) {
            // stale: nothing maps them any more; deleted even if our view of the switch lacks them
            HeldEntities held = installed.get(deviceId);
            if (held != null) {
                stale.forEach(held::removeEntry);
            }
            writes.add(write(deviceId, stale.stream().map(e -> new Update(Update.Type.DELETE, e))
                    .collect(Collectors.toList())));
        }
        writes.add(deleteOnBorders(deletes));
        writes.add(putOnBorders(puts));   // queued after the deletes on each switch
        return CompletableFuture.allOf(writes.toArray(new CompletableFuture[0]));
    }

    /** Periodic work: port blocks left empty or resting go back to the pool. */
    public synchronized void tick() {
        engine.store().batch(() -> engine.expireBlocks(clock.getAsLong()));
    }

    private Optional<BibEntry> bibOf(TableEntry e) {
        Map<String, BigInteger> m = e.matches().stream()
                .collect(Collectors.toMap(x -> x.field, x -> x.value()));
        BigInteger proto = m.get(P4InfoConstants.HDR_PROTO);
        Optional<Protocol> protocol = proto == null ? Optional.empty() : Protocol.byNumber(proto.intValue());
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

    /**
     * Entries to write or delete, by key (the last state wins): a BIB entry's two session entries
     * as one {@link SessionEntries}, the others one by one.
     */
    private static final class Entries {
        final Map<Object, TableEntry> tables = new LinkedHashMap<>();
        final Map<BibSide, SessionEntries> sessions = new LinkedHashMap<>();

        static Entries of(List<TableEntry> entries) {
            Entries out = new Entries();
            entries.forEach(e -> out.tables.put(e.key(), e));
            return out;
        }

        void addAll(Entries o) {
            tables.putAll(o.tables);
            sessions.putAll(o.sessions);
        }

        void removeAll(Entries o) {
            tables.keySet().removeAll(o.tables.keySet());
            sessions.keySet().removeAll(o.sessions.keySet());
        }
    }

    /** A BIB entry's entries now: its two session entries, and its sessions' remote filters. */
    private Entries bibEntries(BibEntry b) {
        Entries out = new Entries();
        SessionEntries s = sessionEntries(b);
        out.sessions.put(s.side(), s);
        if (config.nat64.filters(b.protocol())) {
            engine.sessionsOf(b).forEach(x -> DesiredState.remoteFilters(x).forEach(e -> out.tables.put(e.key(), e)));
        }
        return out;
    }

    private SessionEntries sessionEntries(BibEntry b) {
        Nat64Engine.EntryState e = engine.entryStateOf(b);
        return new SessionEntries(b, e.lifetime, config.nat64.filters(b.protocol()), e.transitory);
    }

    // ---- writing -------------------------------------------------------------------------------

    private CompletableFuture<Void> putOnBorders(Entries entries) {
        return putOnBorders(entries, DURABLE);
    }

    /**
     * Writes the entries to every border switch that lacks them, all borders at the same time,
     * once {@code durable} completes; done when every border took them. What each switch holds is
     * updated now, so that the next batch's difference counts this one's entries as written (a
     * failed write reconciles; a write never made, its batch not durable, is forgotten).
     */
    private CompletableFuture<Void> putOnBorders(Entries entries, CompletableFuture<Void> durable) {
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        Map<SessionEntries, List<TableEntry>> made = new IdentityHashMap<>();   // once for all borders
        Function<SessionEntries, List<TableEntry>> entriesOf = s -> made.computeIfAbsent(s, SessionEntries::entries);
        for (String d : borders()) {
            HeldEntities held = installed.get(d);
            if (held == null) {
                continue;
            }
            List<Update> updates = new ArrayList<>();
            List<TableEntry> changed = new ArrayList<>();
            List<SessionEntries> changedSessions = new ArrayList<>();
            for (TableEntry e : entries.tables.values()) {
                Update u = held.put(e);
                if (u != null) {
                    updates.add(u);
                    changed.add(e);
                }
            }
            for (SessionEntries s : entries.sessions.values()) {
                if (held.put(s, entriesOf, updates)) {
                    changedSessions.add(s);
                }
            }
            writes.add(write(d, updates, durable, () -> {
                changed.forEach(held::forget);
                changedSessions.forEach(held::forget);
            }));
        }
        return CompletableFuture.allOf(writes.toArray(new CompletableFuture[0]));
    }

    private CompletableFuture<Void> deleteOnBorders(Entries entries) {
        return CompletableFuture.allOf(borders().stream().map(d -> deleteOn(d, entries))
                .toArray(CompletableFuture[]::new));
    }

    /** Deletes what the switch holds of {@code entries} (of a BIB entry's session entries, those it holds). */
    private CompletableFuture<Void> deleteOn(String deviceId, Entries entries) {
        HeldEntities held = installed.get(deviceId);
        if (held == null) {
            return CompletableFuture.completedFuture(null);
        }
        List<Update> updates = new ArrayList<>();
        entries.tables.values().stream().filter(held::remove).forEach(e -> updates.add(new Update(Update.Type.DELETE, e)));
        entries.sessions.keySet().forEach(side -> held.removeSessions(side)
                .forEach(e -> updates.add(new Update(Update.Type.DELETE, e))));
        return write(deviceId, updates);
    }

    /** Queues one batch for the switch, after the ones queued before. */
    private CompletableFuture<Void> write(String deviceId, List<Update> updates) {
        return write(deviceId, updates, DURABLE, () -> { });
    }

    /**
     * Queues one batch for the switch, after the ones queued before; it is written once
     * {@code durable} completes (the switch's later writes wait behind it), never when that
     * fails: then {@code notWritten} runs.
     */
    private CompletableFuture<Void> write(String deviceId, List<Update> updates, CompletableFuture<Void> durable,
                                          Runnable notWritten) {
        return switchWriters.write(deviceId, updates, durable, notWritten);
    }

    /** One write to the switch, on its writer queue: a failed one brings the switch back to its desired state. */
    private void writeNow(String deviceId, List<Update> updates) {
        SwitchLink link = links.get(deviceId);
        if (link == null) {
            return;   // disconnected: it is reconciled when it comes back
        }
        try {
            link.write(updates);
            count("writes");
        } catch (SwitchLink.SwitchException e) {
            // The switch and our view of it differ: bring it back to its desired state, once for
            // every write that fails before that reconciliation starts (those were queued before it).
            count("writes.failed");
            if (reconciling.add(deviceId)) {
                LOG.warning(e.getMessage() + "; reconciling");   // the message names its switch
                switchWriters.submit(deviceId, () -> {
                    reconciling.remove(deviceId);
                    SwitchLink now = links.get(deviceId);
                    try {
                        if (now != null) {
                            reconcile(now, true);
                        }
                    } catch (RuntimeException failed) {
                        LOG.warning(deviceId + ": reconciliation failed: " + failed.getMessage()
                                + " (the next failed write or reconnection tries again)");
                    }
                });
            } else {
                LOG.warning(e.getMessage() + "; a reconciliation is queued");
            }
        }
    }

    /**
     * A packet the switch translated and routed (MACs written) but may not send whole (IPv4
     * without DF, or translated from IPv6 to at most 1260 bytes for an IPv4 link smaller than
     * that, RFC 7915 5): its fragments leave by the port its route names, past the pipeline, which
     * is done with it. They fit that port's MTU, and IPv6 ones the lowest IPv6 MTU of the network
     * too (RFC 7915 4).
     */
    private void fragment(String deviceId, byte[] frame) {
        SwitchConfig sw = switchConfig(deviceId);
        Optional<String> destination = Fragmenter.destination(frame);
        OptionalInt port = destination.map(sw::nextHopPort).orElse(OptionalInt.empty());
        Optional<List<byte[]>> fragments = port.isEmpty() ? Optional.empty()
                : Fragmenter.fragment(frame, fragmentMtu(sw, destination.get()));
        if (fragments.isEmpty()) {
            count("fragmentation.unparsed");
            return;
        }
        count("fragmentation.packets");
        SwitchLink link = links.get(deviceId);
        for (byte[] f : fragments.get()) {
            if (link != null) {
                link.packetOut(f, port.getAsInt());
                count("fragmentation.fragments");
            }
        }
    }

    /** How many mappings the switches' session tables hold ({@link Nat64Engine#setBibCapacity}). */
    public void setBibCapacity(long capacity) {
        engine.setBibCapacity(capacity);
    }

    /** What the fragments toward {@code destination} fit: its route's port MTU, for IPv6 the lowest IPv6 MTU too. */
    private int fragmentMtu(SwitchConfig sw, String destination) {
        int link = sw.mtuToward(destination);
        return destination.contains(":") ? Math.min(config.nat64.lowestIpv6Mtu, link) : link;
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
        count(what, 1);
    }

    private void count(String what, long n) {
        if (n != 0) {
            counters.computeIfAbsent(what, k -> new AtomicLong()).addAndGet(n);
        }
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
    public void addEam(Eam eam) {
        CompletableFuture<Void> written;
        synchronized (this) {
            config.checkSwitchAddresses(eam, "eam");
            try {
                engine.addEam(eam, "eam", DesiredState.eamCapacity(config.nat64));
            } catch (NatStore.NotDurable e) {
                throw undo(() -> engine.removeEam(eam), e);
            }
            written = putOnBorders(Entries.of(DesiredState.eamEntries(eam)));
        }
        written.join();   // answered once every border has it; no lock held while waiting
    }

    @Override
    public Optional<Eam> removeEam(Ipv4Prefix ipv4) {
        Optional<Eam> found;
        CompletableFuture<Void> written = CompletableFuture.completedFuture(null);
        synchronized (this) {
            found = engine.store().eams().stream().filter(e -> e.ipv4().equals(ipv4)).findFirst();
            for (int i = 0; found.isPresent() && i < config.eamt.size(); i++) {
                if (config.eamt.get(i).equals(found.get())) {
                    throw fromNetcfg("ipv4Prefix", found.get().toString(), "eamt[" + i + "]");
                }
            }
            if (found.isPresent()) {
                Eam removed = found.get();
                try {
                    engine.removeEam(removed);
                } catch (NatStore.NotDurable e) {
                    throw undo(() -> engine.addEam(removed, "eam"), e);
                }
                written = deleteOnBorders(Entries.of(DesiredState.eamEntries(removed)));
            }
        }
        written.join();
        return found;
    }

    @Override
    public List<BibEntry> bib() {
        return engine.store().bib();
    }

    @Override
    public List<BibEntry> staticBib() {
        return engine.store().staticBib();
    }

    @Override
    public BibEntry addStaticBib(Protocol protocol, Ipv6Address address6, int port6, TransportAddress v4) {
        BibEntry b;
        CompletableFuture<Void> written;
        synchronized (this) {
            config.checkSwitchAddress(address6, "bib.ipv6Address");
            BibEntry[] added = new BibEntry[1];
            // block, port and entry in one commit: a crash between them would leave the port claimed for good
            try {
                engine.store().batch(() -> added[0] = engine.addStaticBib(protocol, address6, port6, v4,
                        clock.getAsLong(), "bib"));
            } catch (NatStore.NotDurable e) {
                throw undo(() -> engine.store().batch(() -> engine.removeBib(protocol, address6, port6,
                        clock.getAsLong())), e);
            }
            b = added[0];
            written = putOnBorders(bibEntries(b));
        }
        written.join();
        return b;
    }

    @Override
    public Optional<BibEntry> removeBib(Protocol protocol, Ipv6Address address6, int port6) {
        Optional<BibEntry> found;
        CompletableFuture<Void> written = CompletableFuture.completedFuture(null);
        synchronized (this) {
            found = engine.store().bibBy6(protocol, address6, port6);
            for (int i = 0; found.isPresent() && i < config.staticBib.size(); i++) {
                FabricConfig.StaticBib b = config.staticBib.get(i);
                if (b.protocol == protocol && b.address6.equals(address6) && b.port6 == port6) {
                    throw fromNetcfg("ipv6Address", found.get().toString(), "staticBib[" + i + "]");
                }
            }
            if (found.isPresent()) {
                Entries entries = bibEntries(found.get());
                try {
                    engine.store().batch(() -> engine.removeBib(protocol, address6, port6, clock.getAsLong()));
                } catch (NatStore.NotDurable e) {
                    // gone from memory (its port resting, its sessions ended), so gone from the switches too
                    deleteOnBorders(entries).join();
                    throw new NatStore.NotDurable(found.get() + " is removed from the running fabric, but not yet from the"
                            + " disk: " + e.getMessage() + " (a restart before a commit succeeds brings it back)", e);
                }
                written = deleteOnBorders(entries);
            }
        }
        written.join();
        return found;
    }

    /**
     * Takes an operator's change back out of memory after its commit failed, so that what the API
     * answered (an error) is what holds. The undoing commit fails too while the disk does; the two
     * changes then go with the next commit together, and cancel out.
     */
    private static NatStore.NotDurable undo(Runnable inverse, NatStore.NotDurable failed) {
        try {
            inverse.run();
        } catch (NatStore.NotDurable expected) {
            // in memory it is undone; see above
        }
        return new NatStore.NotDurable("nothing changed: " + failed.getMessage(), failed);
    }

    /**
     * The netcfg's EAMs and static BIB entries are added again at every start, so the API does not
     * remove them: a restart would bring them back (or fail, if another entry took their place).
     */
    private static ConfigException fromNetcfg(String field, String entry, String where) {
        return new ConfigException(field, entry + " is in the netcfg (" + FabricConfig.NAT64 + "." + where + "), which"
                + " adds it at every start: remove it from the netcfg and restart");
    }

    @Override
    public List<Session> sessions() {
        return engine.store().sessions();
    }

    @Override
    public List<PortBlock> blocks() {
        return engine.store().blocks();
    }

    /**
     * Reads every programmed switch's data-plane counters (the runtime calls this periodically);
     * a switch whose read fails is counted and skipped until the next poll.
     */
    public void pollCounters() {
        for (SwitchLink link : links.values()) {
            if (!programmed.contains(link.deviceId())) {
                continue;
            }
            try {
                link.readCounters().ifPresent(r -> dataPlane.record(link.deviceId(), r, System.nanoTime()));
            } catch (SwitchLink.SwitchException e) {
                count("counters.readFailed");
                LOG.fine(() -> "counters: " + e.getMessage());
            }
        }
    }

    @Override
    public String metrics() {
        return FabricMetrics.write(controllerCounters(), setupLatency, engine.store(), config.nat64.pool4, devices(),
                dataPlane.values());
    }

    private Map<String, Long> controllerCounters() {
        Map<String, Long> out = new TreeMap<>();
        counters.forEach((k, v) -> out.put(k, v.get()));
        moreCounters.forEach(c -> out.putAll(c.get()));
        return out;
    }

    /** Adds counters kept beside the fabric (the IPFIX exporter's) to its stats and metrics. */
    public void addCounters(Supplier<Map<String, Long>> source) {
        moreCounters.add(source);
    }

    @Override
    public Map<String, Long> stats() {
        Map<String, Long> out = controllerCounters();
        out.putAll(dataPlane.stats());
        NatStore store = engine.store();
        long[] held = new long[2];
        store.counts().values().forEach(n -> {
            held[0] += n[0];
            held[1] += n[1];
        });
        out.put("bib", held[0]);
        out.put("sessions", held[1]);
        out.put("portBlocks", (long) store.blocks().size());
        out.put("eamt", (long) store.eams().size());
        out.put("heldSyns.waiting", (long) heldSyns.size());
        setupLatency.forEach((stage, h) -> {
            String key = "setups.latencyUs." + stage.name().toLowerCase(java.util.Locale.ROOT);
            out.put(key + ".p50", h.quantileMicros(0.5));
            out.put(key + ".p99", h.quantileMicros(0.99));
            out.put(key + ".count", h.count());
            out.put(key + ".sum", h.sumMicros());
        });
        return out;
    }

    @Override
    public List<DeviceStatus> devices() {
        return config.devices.keySet().stream().sorted().map(id -> {
            HeldEntities held = installed.get(id);
            return new DeviceStatus(id, switchConfig(id).role, programmed.contains(id), held == null ? 0 : held.size());
        }).collect(Collectors.toList());
    }

    /** The configured links; a link is up when both its switches are connected (programmed). */
    @Override
    public List<LinkStatus> links() {
        List<LinkStatus> directed = new ArrayList<>();
        for (FabricConfig.Link l : config.links) {
            boolean up = programmed.contains(l.srcDevice) && programmed.contains(l.dstDevice);
            directed.add(LinkStatus.directed(l.srcDevice, l.srcPort, l.dstDevice, l.dstPort, l.type, up));
            if (l.bidirectional) {
                directed.add(LinkStatus.directed(l.dstDevice, l.dstPort, l.srcDevice, l.srcPort, l.type, up));
            }
        }
        return LinkStatus.paired(directed);
    }
}
