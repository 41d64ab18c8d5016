package org.nat64fabric.app;

import static org.onlab.util.Tools.groupedThreads;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.config.Nat64Config;
import org.nat64fabric.core.control.LinkStatus;
import org.nat64fabric.core.control.Nat64Fabric;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.control.SwitchLink;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.event.NatEvent;
import org.nat64fabric.core.event.ipfix.IpfixExporter;
import org.nat64fabric.core.p4.SumeHeaders;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.app.config.Nat64AppConfig;
import org.nat64fabric.app.config.Nat64DeviceConfig;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.cfg.ConfigProperty;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.mastership.MastershipEvent;
import org.onosproject.mastership.MastershipListener;
import org.onosproject.mastership.MastershipService;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Link;
import org.onosproject.net.config.ConfigFactory;
import org.onosproject.net.config.NetworkConfigEvent;
import org.onosproject.net.config.NetworkConfigListener;
import org.onosproject.net.config.NetworkConfigRegistry;
import org.onosproject.net.config.basics.SubjectFactories;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleEvent;
import org.onosproject.net.flow.FlowRuleListener;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.group.GroupService;
import org.onosproject.net.link.LinkService;
import org.onosproject.net.meter.MeterService;
import org.onosproject.net.packet.InboundPacket;
import org.onosproject.net.packet.PacketContext;
import org.onosproject.net.packet.PacketProcessor;
import org.onosproject.net.packet.PacketService;
import org.onosproject.net.pi.service.PiPipeconfService;
import org.onosproject.p4runtime.api.P4RuntimeController;
import org.onosproject.store.service.StorageService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The network-wide NAT64 inside ONOS: hosts core's {@link Nat64Fabric} over ONOS services.
 * The netcfg gives the pools and each switch's role; the NAT state lives in
 * {@link DistributedNatStore}, so allocations are unique across the cluster and survive any
 * instance. Session misses and TCP control copies punted by the pipeline come in through a
 * packet processor and are set up in batches (core's pipeline: one confirmed flow-rule batch per
 * switch per setup batch); what a NetFPGA SUME hands over to finish (PUNT_FINISH) is finished by
 * core's {@code Nat64Fabric.finish}, as the embedded controller does, and sent out through the
 * packet service; switches are programmed with PI flow rules, a CLONE group for the CPU
 * clone session and ONOS meters for the punt policers; a switch that becomes available is
 * reconciled by the instance that masters it; a session rule that ONOS's flow subsystem expires
 * is an idle report. Events are handled on the app's threads, never on ONOS's event threads.
 */
@Component(immediate = true, service = Nat64Service.class)
public final class Nat64Manager implements Nat64Service {
    private static final Logger LOG = LoggerFactory.getLogger(Nat64Manager.class);
    /** RFC 8158 events, one line each: route this logger to a file of its own in Karaf. */
    private static final Logger EVENTS = LoggerFactory.getLogger("org.nat64fabric.events");
    private static final long TICK_SECONDS = 5;
    /** As the embedded controller's default --counter-poll-seconds. */
    private static final long COUNTER_POLL_SECONDS = 5;
    /** Switches written at the same time. */
    private static final int WRITER_THREADS = 4;
    /**
     * ONOS's meter subsystem takes a meter with an index (a P4 meter's cell, as the punt policers
     * are written) only in this component's user-defined index mode, off by default.
     */
    static final String METER_MANAGER = "org.onosproject.net.meter.impl.MeterManager";
    static final String USER_DEFINED_INDEX = "userDefinedIndex";

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ComponentConfigService componentConfigService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected NetworkConfigRegistry configRegistry;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected MastershipService mastershipService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowRuleService flowRuleService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PacketService packetService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected StorageService storageService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected GroupService groupService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected MeterService meterService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PiPipeconfService pipeconfService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected P4RuntimeController p4RuntimeController;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected LinkService linkService;

    private final ConfigFactory<ApplicationId, Nat64AppConfig> appConfigFactory = new ConfigFactory<>(
            SubjectFactories.APP_SUBJECT_FACTORY, Nat64AppConfig.class, Nat64AppConfig.KEY) {
        @Override
        public Nat64AppConfig createConfig() {
            return new Nat64AppConfig();
        }
    };
    private final ConfigFactory<DeviceId, Nat64DeviceConfig> deviceConfigFactory = new ConfigFactory<>(
            SubjectFactories.DEVICE_SUBJECT_FACTORY, Nat64DeviceConfig.class, Nat64DeviceConfig.KEY) {
        @Override
        public Nat64DeviceConfig createConfig() {
            return new Nat64DeviceConfig();
        }
    };
    private final NetworkConfigListener configListener = new InternalConfigListener();
    private final DeviceListener deviceListener = new InternalDeviceListener();
    private final MastershipListener mastershipListener = new InternalMastershipListener();
    private final FlowRuleListener flowListener = new InternalFlowListener();
    private final PacketProcessor packetProcessor = new InternalPacketProcessor();
    private final Set<FlowId> removing = ConcurrentHashMap.newKeySet();

    private ApplicationId appId;
    private DistributedNatStore store;
    private ScheduledExecutorService events;
    /** Setup batches (one at a time), and the writes to switches (several switches at once). */
    private ExecutorService setups;
    private ExecutorService writers;
    /** Counter reads wait on the devices: off the events thread, as the embedded controller's timer. */
    private ScheduledExecutorService counterPoller;
    private CounterCells counterCells;
    /** Null until the netcfg holds a valid NAT64 configuration. */
    private volatile Nat64Fabric fabric;
    /** The fabric's IPFIX exporter, when the netcfg has an ipfix section (only the events thread changes it). */
    private IpfixExporter ipfix;

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(FabricConfig.APP);
        store = new DistributedNatStore(storageService);
        events = Executors.newSingleThreadScheduledExecutor(groupedThreads("nat64fabric", "events", LOG));
        setups = Executors.newSingleThreadExecutor(groupedThreads("nat64fabric", "setups", LOG));
        writers = Executors.newFixedThreadPool(WRITER_THREADS, groupedThreads("nat64fabric", "writer-%d", LOG));
        counterPoller = Executors.newSingleThreadScheduledExecutor(groupedThreads("nat64fabric", "counters", LOG));
        counterCells = new P4RuntimeCounterCells(p4RuntimeController, configRegistry);
        configRegistry.registerConfigFactory(appConfigFactory);
        configRegistry.registerConfigFactory(deviceConfigFactory);
        configRegistry.addListener(configListener);
        deviceService.addListener(deviceListener);
        mastershipService.addListener(mastershipListener);
        flowRuleService.addListener(flowListener);
        packetService.addProcessor(packetProcessor, PacketProcessor.director(2));
        submit("meter index mode", this::userDefinedMeterIndexes);
        submit("configuration", this::configure);
        events.scheduleWithFixedDelay(this::tick, TICK_SECONDS, TICK_SECONDS, TimeUnit.SECONDS);
        events.scheduleWithFixedDelay(this::answerHeldSyns, 1, 1, TimeUnit.SECONDS);
        counterPoller.scheduleWithFixedDelay(this::pollCounters, COUNTER_POLL_SECONDS, COUNTER_POLL_SECONDS,
                TimeUnit.SECONDS);
        LOG.info("Started");
    }

    @Deactivate
    protected void deactivate() {
        packetService.removeProcessor(packetProcessor);
        flowRuleService.removeListener(flowListener);
        mastershipService.removeListener(mastershipListener);
        deviceService.removeListener(deviceListener);
        configRegistry.removeListener(configListener);
        configRegistry.unregisterConfigFactory(appConfigFactory);
        configRegistry.unregisterConfigFactory(deviceConfigFactory);
        for (ExecutorService e : List.of(counterPoller, events, setups, writers)) {
            e.shutdown();
            try {
                e.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        fabric = null;
        stopIpfix();
        // The rules stay on the switches and the state in the store: a reactivated app carries on.
        LOG.info("Stopped");
    }

    // ---- configuration and switches (on the events thread) ----------------------------------

    /** (Re)builds the fabric from the netcfg and attaches every available configured switch. */
    private void configure() {
        Nat64AppConfig app = configRegistry.getConfig(appId, Nat64AppConfig.class);
        if (app == null) {
            fabric = null;
            stopIpfix();
            LOG.info("Waiting for the netcfg at {} (docs/netcfg.md)", FabricConfig.NAT64);
            return;
        }
        ObjectNode root = new ObjectMapper().createObjectNode();
        root.putObject("apps").putObject(FabricConfig.APP).set(Nat64AppConfig.KEY, app.node());
        ObjectNode devices = root.putObject("devices");
        for (DeviceId d : configRegistry.getSubjects(DeviceId.class, Nat64DeviceConfig.class)) {
            devices.putObject(d.toString()).set(Nat64DeviceConfig.KEY,
                    configRegistry.getConfig(d, Nat64DeviceConfig.class).node());
        }
        try {
            FabricConfig config = FabricConfig.parse(root);
            if (ipfix != null && !config.ipfix.equals(Optional.of(ipfix.config()))) {
                stopIpfix();
            }
            if (ipfix == null && config.ipfix.isPresent()) {   // kept otherwise: its sequence numbers go on
                try {
                    ipfix = new IpfixExporter(config.ipfix.get(), System::currentTimeMillis);
                } catch (IOException e) {
                    LOG.error("No IPFIX export, no UDP socket: {}", e.toString());
                }
            }
            Consumer<NatEvent> log = e -> EVENTS.info("{}", e);
            if (ipfix != null) {
                log = ipfix.andThen(log);
            }
            // Packet-ins queue on the events thread; batches form while the setups thread runs one.
            Nat64Fabric f = new Nat64Fabric(config, store, log, System::currentTimeMillis, setups, writers);
            if (ipfix != null) {
                f.addCounters(ipfix::counters);
            }
            fabric = f;
            for (String id : config.devices.keySet()) {
                DeviceId d = DeviceId.deviceId(id);
                if (deviceService.isAvailable(d)) {
                    attach(f, d);
                }
            }
            LOG.info("Configured: {} switches", devices.size());
        } catch (ConfigException e) {
            fabric = null;
            stopIpfix();
            LOG.error("The netcfg is not usable, NAT64 stopped: {}", e.getMessage());
        }
    }

    /**
     * The punt policers are meter cells written by index, which ONOS's MeterManager takes only in
     * its user-defined index mode: turned on (cluster-wide; it stays on after the app stops), and
     * waited for up to 5 s, as ONOS applies it asynchronously, before any switch is configured.
     * Where ONOS refuses it, each meter refused says how to turn it on.
     */
    private void userDefinedMeterIndexes() {
        LOG.info("Setting {} {} to true: the punt policers are meter cells written by index", METER_MANAGER,
                USER_DEFINED_INDEX);
        try {
            componentConfigService.setProperty(METER_MANAGER, USER_DEFINED_INDEX, "true");
            for (int i = 0; i < 50 && !userDefinedIndexOn(); i++) {
                Thread.sleep(100);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {   // not registered (yet), or another ONOS
            LOG.warn("{} {} not set ({}): meters written by index may be refused", METER_MANAGER, USER_DEFINED_INDEX,
                    e.toString());
        }
    }

    private boolean userDefinedIndexOn() {
        Set<ConfigProperty> properties = componentConfigService.getProperties(METER_MANAGER);
        return properties != null && properties.stream()
                .anyMatch(p -> p.name().equals(USER_DEFINED_INDEX) && "true".equals(p.value()));
    }

    /** Sends what the exporter holds and closes it. */
    private void stopIpfix() {
        if (ipfix != null) {
            ipfix.close();
            ipfix = null;
        }
    }

    /** The device's master reconciles it; other instances only write their setups to it. */
    private void attach(Nat64Fabric f, DeviceId d) {
        SwitchLink link = new FlowRuleSwitchLink(d, appId, flowRuleService, packetService, groupService,
                meterService, pipeconfService, counterCells, removing);
        try {
            if (mastershipService.isLocalMaster(d)) {
                f.connected(link);
            } else {
                f.attached(link);
            }
        } catch (RuntimeException e) {   // one switch's failure leaves the others attached
            LOG.warn("{}: not reconciled, retried when it is next available or mastered: {}", d,
                    e instanceof SwitchLink.SwitchException ? e.getMessage() : e.toString());
        }
    }

    private void deviceChanged(DeviceId d) {
        Nat64Fabric f = fabric;
        if (f == null || configRegistry.getConfig(d, Nat64DeviceConfig.class) == null) {
            return;
        }
        if (deviceService.isAvailable(d)) {
            attach(f, d);
        } else {
            f.disconnected(d.toString());
        }
    }

    private void tick() {
        Nat64Fabric f = fabric;
        if (f != null) {
            f.tick();
        }
    }

    /** Every second: held IPv4 SYNs whose time is up (RFC 6146 3.5.2.2); a failure waits for the next second. */
    private void answerHeldSyns() {
        Nat64Fabric f = fabric;
        if (f != null) {
            try {
                f.answerHeldSyns();
            } catch (RuntimeException e) {
                LOG.warn("answering held SYNs failed: {}", e.toString());
            }
        }
    }

    /** The switches' data-plane counters, for stats and metrics: as the embedded controller polls them. */
    void pollCounters() {
        Nat64Fabric f = fabric;
        if (f != null) {
            try {
                f.pollCounters();
            } catch (RuntimeException e) {
                LOG.warn("counter poll failed: {}", e.toString());   // the next poll tries again
            }
        }
    }

    private void submit(String what, Runnable work) {
        events.execute(() -> {
            try {
                work.run();
            } catch (RuntimeException e) {
                LOG.warn("{} failed: {}", what, e.toString());
            }
        });
    }

    private final class InternalConfigListener implements NetworkConfigListener {
        @Override
        public boolean isRelevant(NetworkConfigEvent event) {
            return event.configClass().equals(Nat64AppConfig.class)
                    || event.configClass().equals(Nat64DeviceConfig.class);
        }

        @Override
        public void event(NetworkConfigEvent event) {
            submit("configuration", Nat64Manager.this::configure);
        }
    }

    private final class InternalDeviceListener implements DeviceListener {
        @Override
        public boolean isRelevant(DeviceEvent event) {
            return event.type() == DeviceEvent.Type.DEVICE_ADDED
                    || event.type() == DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED
                    || event.type() == DeviceEvent.Type.DEVICE_REMOVED;
        }

        @Override
        public void event(DeviceEvent event) {
            DeviceId d = event.subject().id();
            submit(d + " " + event.type(), () -> deviceChanged(d));
        }
    }

    /** An instance that becomes a device's master reconciles it, as when it becomes available. */
    private final class InternalMastershipListener implements MastershipListener {
        @Override
        public boolean isRelevant(MastershipEvent event) {
            return event.type() == MastershipEvent.Type.MASTER_CHANGED && mastershipService.isLocalMaster(event.subject());
        }

        @Override
        public void event(MastershipEvent event) {
            DeviceId d = event.subject();
            submit(d + " mastered", () -> deviceChanged(d));
        }
    }

    /** A temporary rule of this app removed by ONOS, not by the app: it went idle. */
    private final class InternalFlowListener implements FlowRuleListener {
        @Override
        public boolean isRelevant(FlowRuleEvent event) {
            FlowRule rule = event.subject();
            return event.type() == FlowRuleEvent.Type.RULE_REMOVED && appId != null
                    && rule.appId() == appId.id() && !rule.isPermanent();
        }

        @Override
        public void event(FlowRuleEvent event) {
            FlowRule rule = event.subject();
            if (removing.remove(rule.id())) {
                return;
            }
            submit("idle " + rule.id(), () -> {
                Nat64Fabric f = fabric;
                if (f != null) {
                    f.idle(rule.deviceId().toString(), FlowRuleSwitchLink.tableEntry(rule));
                }
            });
        }
    }

    /**
     * Punted packets: the interpreter puts punt_reason in the cookie, and for what a NetFPGA SUME
     * hands over to finish (PUNT_FINISH) the rest of its packet_in (core's SumeHeaders).
     */
    private final class InternalPacketProcessor implements PacketProcessor {
        @Override
        public void process(PacketContext context) {
            InboundPacket in = context.inPacket();
            if (context.isHandled() || in.cookie().isEmpty() || fabric == null) {
                return;
            }
            context.block();
            long cookie = in.cookie().get();
            int reason = SumeHeaders.puntReason(cookie);
            ByteBuffer data = in.unparsed().duplicate();
            byte[] frame = new byte[data.remaining()];
            data.get(frame);
            DeviceId d = in.receivedFrom().deviceId();
            // Straight into the fabric's bounded per-subscriber queues (packetIn only parses and
            // queues, or rewrites a later fragment's header; finish only sums, cuts or builds and sends): through the events executor, a
            // flood would queue there without bound and ahead of every other subscriber.
            Nat64Fabric f = fabric;
            try {
                if (f != null && reason == Nat64Fabric.PUNT_FINISH) {
                    f.finish(d.toString(), frame, SumeHeaders.finish(cookie), SumeHeaders.outPort(cookie),
                            SumeHeaders.truncateTo(cookie), SumeHeaders.errorType(cookie),
                            SumeHeaders.errorCode(cookie), SumeHeaders.errorParam(cookie));
                } else if (f != null) {
                    f.packetIn(d.toString(), reason, SumeHeaders.finish(cookie),
                            (int) in.receivedFrom().port().toLong(), frame);
                }
            } catch (RuntimeException e) {
                LOG.warn("packet-in from {} failed: {}", d, e.toString());
            }
        }
    }

    // ---- Nat64Service: the operator's API, for REST and CLI ------------------------------------

    private Nat64Fabric fabric() {
        Nat64Fabric f = fabric;
        if (f == null) {
            throw new NotConfigured(FabricConfig.NAT64, "no valid NAT64 configuration: push it with onos-netcfg"
                    + " (docs/netcfg.md, docs/onos.md)");
        }
        return f;
    }

    @Override
    public Nat64Config config() {
        return fabric().config();
    }

    @Override
    public List<Eam> eamt() {
        return fabric().eamt();
    }

    @Override
    public void addEam(Eam eam) {
        fabric().addEam(eam);
    }

    @Override
    public Optional<Eam> removeEam(Ipv4Prefix ipv4) {
        return fabric().removeEam(ipv4);
    }

    @Override
    public List<BibEntry> bib() {
        return fabric().bib();
    }

    @Override
    public List<BibEntry> staticBib() {
        return fabric().staticBib();
    }

    @Override
    public BibEntry addStaticBib(Protocol protocol, Ipv6Address address6, int port6, TransportAddress v4) {
        return fabric().addStaticBib(protocol, address6, port6, v4);
    }

    @Override
    public Optional<BibEntry> removeBib(Protocol protocol, Ipv6Address address6, int port6) {
        return fabric().removeBib(protocol, address6, port6);
    }

    @Override
    public List<Session> sessions() {
        return fabric().sessions();
    }

    @Override
    public List<PortBlock> blocks() {
        return fabric().blocks();
    }

    @Override
    public Map<String, Long> stats() {
        return fabric().stats();
    }

    @Override
    public String metrics() {
        return fabric().metrics();
    }

    @Override
    public List<DeviceStatus> devices() {
        return fabric().devices();
    }

    /** ONOS's links, discovered or configured (netcfg's links), whether or not the NAT64 is configured. */
    @Override
    public List<LinkStatus> links() {
        List<LinkStatus> directed = new ArrayList<>();
        for (Link l : linkService.getLinks()) {
            directed.add(LinkStatus.directed(l.src().deviceId().toString(), l.src().port().toLong(),
                    l.dst().deviceId().toString(), l.dst().port().toLong(), l.type().name(),
                    l.state() == Link.State.ACTIVE));
        }
        return LinkStatus.paired(directed);
    }
}
