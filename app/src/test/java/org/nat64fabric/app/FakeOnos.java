package org.nat64fabric.app;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.collect.ImmutableMap;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.nat64fabric.app.config.Nat64AppConfig;
import org.nat64fabric.app.config.Nat64DeviceConfig;
import org.nat64fabric.core.p4.Constants;
import org.nat64fabric.core.p4.P4InfoConstants;
import org.onlab.packet.Data;
import org.onlab.packet.Ethernet;
import org.onlab.packet.IPv6;
import org.onlab.packet.Ip6Address;
import org.onlab.packet.UDP;
import org.onosproject.cfg.ComponentConfigAdapter;
import org.onosproject.cfg.ConfigProperty;
import org.onosproject.cluster.NodeId;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreServiceAdapter;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.core.GroupId;
import org.onosproject.mastership.MastershipEvent;
import org.onosproject.mastership.MastershipInfo;
import org.onosproject.mastership.MastershipListener;
import org.onosproject.mastership.MastershipServiceAdapter;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DefaultLink;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Link;
import org.onosproject.net.PortNumber;
import org.onosproject.net.config.Config;
import org.onosproject.net.config.NetworkConfigEvent;
import org.onosproject.net.config.NetworkConfigListener;
import org.onosproject.net.config.NetworkConfigRegistryAdapter;
import org.onosproject.net.config.basics.BasicDeviceConfig;
import org.onosproject.net.device.DeviceEvent;
import org.onosproject.net.device.DeviceListener;
import org.onosproject.net.device.DeviceServiceAdapter;
import org.onosproject.net.flow.DefaultFlowEntry;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleEvent;
import org.onosproject.net.flow.FlowRuleListener;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleServiceAdapter;
import org.onosproject.net.group.DefaultGroup;
import org.onosproject.net.group.DefaultGroupDescription;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupBuckets;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.group.GroupKey;
import org.onosproject.net.group.GroupServiceAdapter;
import org.onosproject.net.link.LinkServiceAdapter;
import org.onosproject.net.meter.Band;
import org.onosproject.net.meter.DefaultMeter;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterRequest;
import org.onosproject.net.meter.MeterScope;
import org.onosproject.net.meter.MeterServiceAdapter;
import org.onosproject.net.meter.MeterState;
import org.onosproject.net.packet.DefaultInboundPacket;
import org.onosproject.net.packet.OutboundPacket;
import org.onosproject.net.packet.PacketContextAdapter;
import org.onosproject.net.packet.PacketProcessor;
import org.onosproject.net.packet.PacketServiceAdapter;
import org.onosproject.net.pi.PiPipeconfServiceAdapter;
import org.onosproject.net.pi.model.DefaultPiPipeconf;
import org.onosproject.net.pi.model.PiActionProfileId;
import org.onosproject.net.pi.model.PiActionProfileModel;
import org.onosproject.net.pi.model.PiCounterId;
import org.onosproject.net.pi.model.PiCounterModel;
import org.onosproject.net.pi.model.PiCounterType;
import org.onosproject.net.pi.model.PiMeterId;
import org.onosproject.net.pi.model.PiMeterModel;
import org.onosproject.net.pi.model.PiMeterType;
import org.onosproject.net.pi.model.PiPacketMetadataId;
import org.onosproject.net.pi.model.PiPacketMetadataModel;
import org.onosproject.net.pi.model.PiPacketOperationModel;
import org.onosproject.net.pi.model.PiPacketOperationType;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiPipeconfId;
import org.onosproject.net.pi.model.PiPipelineModel;
import org.onosproject.net.pi.model.PiRegisterId;
import org.onosproject.net.pi.model.PiRegisterModel;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.model.PiTableModel;
import org.onosproject.net.pi.runtime.PiCounterCell;
import org.onosproject.net.pi.runtime.PiMeterCellId;
import org.onosproject.p4runtime.api.P4RuntimeClient;
import org.onosproject.p4runtime.api.P4RuntimeController;
import org.onosproject.p4runtime.api.P4RuntimeReadClient;
import org.onosproject.net.provider.ProviderId;
import org.onosproject.store.service.TestStorageService;

/**
 * ONOS as {@link Nat64Manager} sees it, from ONOS's test adapters: a flow rule store that
 * confirms batches and fires RULE_REMOVED as ONOS does, the netcfg, devices and their mastership,
 * and the packet service. {@link #journal} records writes and packet-outs in order.
 */
final class FakeOnos {
    static final ApplicationId APP = new DefaultApplicationId(7, "org.nat64fabric.app");
    static final DeviceId LEAF = DeviceId.deviceId("device:leaf1");
    static final DeviceId BORDER1 = DeviceId.deviceId("device:border1");
    static final DeviceId BORDER2 = DeviceId.deviceId("device:border2");
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** "device ADD|MODIFY|REMOVE table" and "device packet-out", in the order they happened. */
    final List<String> journal = new CopyOnWriteArrayList<>();
    /** FlowRuleOperations applied, by device they touch. */
    final Map<DeviceId, java.util.concurrent.atomic.AtomicInteger> applies = new java.util.concurrent.ConcurrentHashMap<>();
    /** While set and closed, applying FlowRuleOperations waits: as a slow device would hold its writes. */
    volatile java.util.concurrent.CountDownLatch applyGate;
    final java.util.concurrent.atomic.AtomicInteger heldAtGate = new java.util.concurrent.atomic.AtomicInteger();
    final Map<FlowId, FlowEntry> flows = new ConcurrentHashMap<>();
    final List<OutboundPacket> packetOuts = new CopyOnWriteArrayList<>();
    final Set<DeviceId> available = ConcurrentHashMap.newKeySet();
    /** The links ONOS knows, each direction on its own. */
    final List<Link> links = new CopyOnWriteArrayList<>();
    final Set<DeviceId> mastered = ConcurrentHashMap.newKeySet();
    final Map<Object, Config<?>> configs = new ConcurrentHashMap<>();
    final List<NetworkConfigListener> configListeners = new CopyOnWriteArrayList<>();
    final List<DeviceListener> deviceListeners = new CopyOnWriteArrayList<>();
    final List<FlowRuleListener> flowListeners = new CopyOnWriteArrayList<>();
    final List<MastershipListener> mastershipListeners = new CopyOnWriteArrayList<>();
    volatile PacketProcessor processor;
    /** Groups and meters by device and key (meters: device and cell). */
    final Map<String, DefaultGroup> groups = new ConcurrentHashMap<>();
    final Map<String, Meter> meters = new ConcurrentHashMap<>();
    /** Management addresses (basic.managementAddress) by device. */
    final Map<DeviceId, BasicDeviceConfig> basics = new ConcurrentHashMap<>();
    /** The indirect counters' cells each device's P4Runtime client answers with. */
    final Map<DeviceId, List<PiCounterCell>> counterCells = new ConcurrentHashMap<>();
    /** "device p4DeviceId counter,counter..." per counter Read. */
    final List<String> counterReads = new CopyOnWriteArrayList<>();
    volatile boolean counterReadFails;
    /** The devices' pipeline: counters and the tables with direct counters. */
    static final long SESSION_TABLE_SIZE = 1 << 20;
    static final long ROUTES_TABLE_SIZE = 65_536;
    final java.util.concurrent.atomic.AtomicInteger meterSubmits = new java.util.concurrent.atomic.AtomicInteger();
    /** "component name" → value, as the app set them through ComponentConfigService. */
    final Map<String, String> componentProperties = new ConcurrentHashMap<>();
    /** Tables the devices' pipeline lacks (it has every other), and its P4Info architecture. */
    final Set<String> missingTables = ConcurrentHashMap.newKeySet();
    volatile String architecture = "v1model";
    /** The devices' packet_out fields, none by default (as a pipeline model without packet-outs). */
    final Set<String> packetOutFields = ConcurrentHashMap.newKeySet();
    /** The cells of each meter the devices' pipeconf has; empty: a pipeline without punt meters. */
    final Map<String, Long> meterSizes = new ConcurrentHashMap<>(Map.of(P4InfoConstants.NAT64_INGRESS_PUNT_PORT_METER, 512L,
            P4InfoConstants.NAT64_INGRESS_PUNT_SOURCE_METER, 4096L, P4InfoConstants.NAT64_INGRESS_ICMP_ERROR_ERROR_METER, 512L,
            P4InfoConstants.NAT64_INGRESS_INBOUND_SYN_METER, 1L));

    /**
     * ONOS's P4Runtime clients, as far as counter reads go: each device's client answers a Read
     * of counters with the cells of {@link #counterCells} and records it in {@link #counterReads}.
     */
    private P4RuntimeController p4RuntimeController() {
        return proxy(P4RuntimeController.class, (method, args) -> {
            if (!method.equals("get")) {
                return null;
            }
            DeviceId d = (DeviceId) args[0];
            return proxy(P4RuntimeClient.class, (clientMethod, readArgs) -> {
                long p4DeviceId = (Long) readArgs[0];
                List<PiCounterId> asked = new ArrayList<>();
                return proxy(P4RuntimeReadClient.ReadRequest.class, new Answer() {
                    @Override
                    public Object answer(String requestMethod, Object[] a) {
                        if (requestMethod.equals("counterCells")) {
                            ((Iterable<?>) a[0]).forEach(c -> asked.add((PiCounterId) c));
                            return proxy(P4RuntimeReadClient.ReadRequest.class, this);
                        }
                        counterReads.add(d + " " + p4DeviceId + " " + asked.stream().map(PiCounterId::id).sorted()
                                .collect(Collectors.joining(",")));
                        List<PiCounterCell> cells = counterCells.getOrDefault(d, List.of()).stream()
                                .filter(c -> asked.contains(c.cellId().counterId())).collect(Collectors.toList());
                        return proxy(P4RuntimeReadClient.ReadResponse.class, (responseMethod, x) -> {
                            switch (responseMethod) {
                                case "isSuccess":
                                    return !counterReadFails;
                                case "explanation":
                                    return "UNAVAILABLE: connection refused";
                                case "all":
                                    return cells;
                                default:
                                    return null;
                            }
                        });
                    }
                });
            });
        });
    }

    /** What a fake's method answers, by the method's name. */
    interface Answer {
        Object answer(String method, Object[] args);
    }

    /** One direction of a DIRECT link, as ONOS's LinkService gives it. */
    static Link link(DeviceId src, int srcPort, DeviceId dst, int dstPort, Link.State state) {
        return DefaultLink.builder().providerId(new ProviderId("lldp", "test"))
                .src(new ConnectPoint(src, PortNumber.portNumber(srcPort)))
                .dst(new ConnectPoint(dst, PortNumber.portNumber(dstPort)))
                .type(Link.Type.DIRECT).state(state).build();
    }

    /** A fake of a large ONOS interface that answers only the methods a test uses. */
    static <T> T proxy(Class<T> type, Answer answer) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> answer.answer(method.getName(), args)));
    }

    Nat64Manager start() {
        Nat64Manager m = new Nat64Manager();
        m.coreService = new CoreServiceAdapter() {
            @Override
            public ApplicationId registerApplication(String name) {
                return APP;
            }
        };
        m.configRegistry = new NetworkConfigRegistryAdapter() {
            @Override
            public void addListener(NetworkConfigListener l) {
                configListeners.add(l);
            }

            @Override
            @SuppressWarnings("unchecked")
            public <S, C extends Config<S>> C getConfig(S subject, Class<C> configClass) {
                Config<?> c = configClass == BasicDeviceConfig.class ? basics.get(subject) : configs.get(subject);
                return configClass.isInstance(c) ? (C) c : null;
            }

            @Override
            @SuppressWarnings("unchecked")
            public <S, C extends Config<S>> Set<S> getSubjects(Class<S> subjectClass, Class<C> configClass) {
                return (Set<S>) configs.keySet().stream().filter(subjectClass::isInstance).collect(Collectors.toSet());
            }
        };
        m.deviceService = new DeviceServiceAdapter() {
            @Override
            public boolean isAvailable(DeviceId d) {
                return available.contains(d);
            }

            @Override
            public void addListener(DeviceListener l) {
                deviceListeners.add(l);
            }
        };
        m.mastershipService = new MastershipServiceAdapter() {
            @Override
            public boolean isLocalMaster(DeviceId d) {
                return mastered.contains(d);
            }

            @Override
            public void addListener(MastershipListener l) {
                mastershipListeners.add(l);
            }
        };
        m.flowRuleService = new FlowRuleServiceAdapter() {
            @Override
            public void apply(FlowRuleOperations ops) {
                java.util.concurrent.CountDownLatch gate = applyGate;
                if (gate != null) {
                    heldAtGate.incrementAndGet();
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                ops.stages().stream().flatMap(Set::stream).map(op -> op.rule().deviceId()).distinct()
                        .forEach(d -> applies.computeIfAbsent(d, k -> new java.util.concurrent.atomic.AtomicInteger())
                                .incrementAndGet());
                for (Set<FlowRuleOperation> stage : ops.stages()) {
                    for (FlowRuleOperation op : stage) {
                        FlowRule r = op.rule();
                        journal.add(r.deviceId() + " " + op.type() + " " + r.table());
                        if (op.type() == FlowRuleOperation.Type.REMOVE) {
                            FlowEntry gone = flows.remove(r.id());
                            if (gone != null) {
                                fire(new FlowRuleEvent(FlowRuleEvent.Type.RULE_REMOVED, gone));
                            }
                        } else {
                            flows.put(r.id(), new DefaultFlowEntry(r, FlowEntry.FlowEntryState.ADDED));
                        }
                    }
                }
                ops.callback().onSuccess(ops);
            }

            @Override
            public Iterable<FlowEntry> getFlowEntries(DeviceId d) {
                return flows.values().stream().filter(f -> f.deviceId().equals(d)).collect(Collectors.toList());
            }

            @Override
            public FlowEntry getFlowEntry(FlowRule r) {
                return flows.get(r.id());
            }

            @Override
            public Iterable<FlowEntry> getFlowEntriesById(ApplicationId id) {
                return flows.values().stream().filter(f -> f.appId() == id.id()).collect(Collectors.toList());
            }

            @Override
            public void addListener(FlowRuleListener l) {
                flowListeners.add(l);
            }
        };
        m.packetService = new PacketServiceAdapter() {
            @Override
            public void addProcessor(PacketProcessor p, int priority) {
                processor = p;
            }

            @Override
            public void emit(OutboundPacket packet) {
                journal.add(packet.sendThrough() + " packet-out");
                packetOuts.add(packet);
            }
        };
        m.storageService = new TestStorageService();
        m.groupService = new GroupServiceAdapter() {
            @Override
            public void addGroup(GroupDescription g) {
                journal.add(g.deviceId() + " ADD_GROUP " + g.type() + " " + g.givenGroupId());
                DefaultGroup group = new DefaultGroup(new GroupId(g.givenGroupId()), g);
                group.setState(Group.GroupState.ADDED);
                groups.put(g.deviceId() + "|" + g.appCookie(), group);
            }

            @Override
            public void setBucketsForGroup(DeviceId d, GroupKey key, GroupBuckets buckets, GroupKey newKey,
                                           ApplicationId app) {
                journal.add(d + " SET_BUCKETS " + groups.get(d + "|" + key).id().id());
                DefaultGroup old = groups.get(d + "|" + key);
                DefaultGroup group = new DefaultGroup(old.id(), new DefaultGroupDescription(d, old.type(), buckets,
                        newKey, old.givenGroupId(), app));
                group.setState(Group.GroupState.ADDED);
                groups.put(d + "|" + newKey, group);
            }

            @Override
            public void removeGroup(DeviceId d, GroupKey key, ApplicationId app) {
                journal.add(d + " REMOVE_GROUP " + groups.remove(d + "|" + key).id().id());
            }

            @Override
            public Group getGroup(DeviceId d, GroupKey key) {
                return groups.get(d + "|" + key);
            }

            @Override
            public Iterable<Group> getGroups(DeviceId d, ApplicationId app) {
                return groups.values().stream().filter(g -> g.deviceId().equals(d) && g.appId().equals(app))
                        .collect(Collectors.toList());
            }
        };
        m.componentConfigService = new ComponentConfigAdapter() {
            @Override
            public void setProperty(String component, String name, String value) {
                componentProperties.put(component + " " + name, value);
            }

            @Override
            public Set<ConfigProperty> getProperties(String component) {
                return componentProperties.entrySet().stream().filter(e -> e.getKey().startsWith(component + " "))
                        .map(e -> ConfigProperty.defineProperty(e.getKey().substring(component.length() + 1),
                                ConfigProperty.Type.BOOLEAN, e.getValue(), ""))
                        .collect(Collectors.toSet());
            }
        };
        m.meterService = new MeterServiceAdapter() {
            /** As ONOS 2.7's MeterManager: an index only in user-defined index mode. */
            @Override
            public Meter submit(MeterRequest r) {
                if (r.index().isPresent() && !"true".equals(componentProperties.get(
                        "org.onosproject.net.meter.impl.MeterManager userDefinedIndex"))) {
                    throw new IllegalArgumentException("Index cannot be provided when userDefinedIndex mode is disabled");
                }
                // ONOS's PI meter translator takes a two-rate meter as one MARK_YELLOW and one MARK_RED band
                if (!r.bands().stream().map(Band::type).sorted().collect(Collectors.toList())
                        .equals(List.of(Band.Type.MARK_YELLOW, Band.Type.MARK_RED))) {
                    throw new AssertionError("ONOS cannot translate the bands " + r.bands());
                }
                meterSubmits.incrementAndGet();
                PiMeterCellId cell = PiMeterCellId.ofIndirect(PiMeterId.of(r.scope().id()), r.index().orElseThrow());
                Meter meter = DefaultMeter.builder().forDevice(r.deviceId()).fromApp(r.appId()).withUnit(r.unit())
                        .burst().withBands(r.bands()).withCellId(cell).build();
                ((DefaultMeter) meter).setState(MeterState.ADDED);
                meters.put(r.deviceId() + "|" + cell, meter);
                return meter;
            }

            @Override
            public Collection<Meter> getMeters(DeviceId d, MeterScope scope) {
                return meters.values().stream().filter(x -> x.deviceId().equals(d)
                        && ((PiMeterCellId) x.meterCellId()).meterId().id().equals(scope.id()))
                        .collect(Collectors.toList());
            }
        };
        m.pipeconfService = new PiPipeconfServiceAdapter() {
            @Override
            public Optional<PiPipeconf> getPipeconf(DeviceId d) {
                return Optional.of(DefaultPiPipeconf.builder().withId(new PiPipeconfId("test"))
                        .withPipelineModel(new TestPipeline()).build());
            }
        };
        m.p4RuntimeController = p4RuntimeController();
        m.linkService = new LinkServiceAdapter() {
            @Override
            public Iterable<Link> getLinks() {
                return List.copyOf(links);
            }
        };
        m.activate();
        return m;
    }

    /** The devices' pipeline: every table but {@link #missingTables}, the meters of {@link #meterSizes}, its counters. */
    private final class TestPipeline implements PiPipelineModel {
        @Override
        public Optional<PiMeterModel> meter(PiMeterId id) {
            Long size = meterSizes.get(id.id());
            return size == null ? Optional.empty() : Optional.of(new PiMeterModel() {
                @Override
                public PiMeterId id() {
                    return id;
                }

                @Override
                public PiMeterType meterType() {
                    return PiMeterType.INDIRECT;
                }

                @Override
                public Unit unit() {
                    return Unit.PACKETS;
                }

                @Override
                public PiTableId table() {
                    return null;
                }

                @Override
                public long size() {
                    return size;
                }
            });
        }

        @Override
        public Collection<PiMeterModel> meters() {
            return meterSizes.keySet().stream().map(n -> meter(PiMeterId.of(n)).orElseThrow()).collect(Collectors.toList());
        }

        @Override
        public Optional<String> architecture() {
            return Optional.of(architecture);
        }

        @Override
        public Optional<PiTableModel> table(PiTableId id) {
            long size = id.id().equals(P4InfoConstants.NAT64_INGRESS_IPV6_ROUTES) ? ROUTES_TABLE_SIZE
                    : id.id().equals(P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V6) ? SESSION_TABLE_SIZE : 1024;
            return missingTables.contains(id.id()) ? Optional.empty() : Optional.of(proxy(PiTableModel.class,
                    (method, args) -> method.equals("maxSize") ? (Object) size : method.equals("id") ? id : null));
        }

        @Override
        public Collection<PiTableModel> tables() {
            return List.of();
        }

        @Override
        public Optional<PiCounterModel> counter(PiCounterId id) {
            return counters().stream().filter(c -> c.id().equals(id)).findFirst();
        }

        /** As ONOS's P4Info parser makes them: indirect ones with their size, direct ones with their table. */
        @Override
        public Collection<PiCounterModel> counters() {
            return List.of(counterModel(P4InfoConstants.NAT64_INGRESS_DROPS, PiCounterType.INDIRECT, null,
                            Constants.DROP_REASONS.size()),
                    counterModel(P4InfoConstants.NAT64_INGRESS_TRANSLATIONS, PiCounterType.INDIRECT, null,
                            Constants.TRANSLATIONS.size()),
                    counterModel(P4InfoConstants.NAT64_INGRESS_IPV6_ROUTES_COUNTER, PiCounterType.DIRECT,
                            P4InfoConstants.NAT64_INGRESS_IPV6_ROUTES, -1),
                    counterModel(P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V6_COUNTER, PiCounterType.DIRECT,
                            P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V6, -1));
        }

        private PiCounterModel counterModel(String name, PiCounterType type, String table, long size) {
            return proxy(PiCounterModel.class, (method, args) -> {
                switch (method) {
                    case "id":
                        return PiCounterId.of(name);
                    case "counterType":
                        return type;
                    case "table":
                        return table == null ? null : PiTableId.of(table);
                    case "size":
                        return size;
                    default:
                        return null;
                }
            });
        }

        @Override
        public Optional<PiRegisterModel> register(PiRegisterId id) {
            return Optional.empty();
        }

        @Override
        public Collection<PiRegisterModel> registers() {
            return List.of();
        }

        @Override
        public Optional<PiActionProfileModel> actionProfiles(PiActionProfileId id) {
            return Optional.empty();
        }

        @Override
        public Collection<PiActionProfileModel> actionProfiles() {
            return List.of();
        }

        @Override
        public Optional<PiPacketOperationModel> packetOperationModel(PiPacketOperationType type) {
            if (type != PiPacketOperationType.PACKET_OUT || packetOutFields.isEmpty()) {
                return Optional.empty();
            }
            List<PiPacketMetadataModel> fields = packetOutFields.stream().map(name -> proxy(PiPacketMetadataModel.class,
                    (method, args) -> method.equals("id") ? PiPacketMetadataId.of(name) : null))
                    .collect(Collectors.toList());
            return Optional.of(proxy(PiPacketOperationModel.class, (method, args) -> method.equals("metadatas") ? fields
                    : method.equals("type") ? type : null));
        }
    }

    /** This instance becomes the device's master, as ONOS's mastership service tells it. */
    void becomeMaster(DeviceId d) {
        mastered.add(d);
        MastershipEvent e = new MastershipEvent(MastershipEvent.Type.MASTER_CHANGED, d,
                new MastershipInfo(1, Optional.of(NodeId.nodeId("local")), ImmutableMap.of()));
        mastershipListeners.stream().filter(l -> l.isRelevant(e)).forEach(l -> l.event(e));
    }

    /** What ONOS's flow subsystem does when a temporary rule's counters stood still too long. */
    void expire(FlowEntry f) {
        flows.remove(f.id());
        fire(new FlowRuleEvent(FlowRuleEvent.Type.RULE_REMOVED, f));
    }

    private void fire(FlowRuleEvent e) {
        flowListeners.stream().filter(l -> l.isRelevant(e)).forEach(l -> l.event(e));
    }

    /** Pushes the netcfg: the NAT64 and three switches, as onos-netcfg would. */
    void pushNetcfg(String pool4) throws Exception {
        pushNetcfg(pool4, "");
    }

    /** {@code moreNat64}: fields added to the NAT64 section, each after a comma. */
    void pushNetcfg(String pool4, String moreNat64) throws Exception {
        String sw = "{\"role\": \"%s\", \"routerMac\": \"00:00:00:00:b1:0%d\", \"ipv4\": \"198.51.100.%d\","
                + " \"ipv6\": \"2001:db8:ff::%d\", \"routes\": [{\"prefix\": \"2001:db8:1::/64\", \"port\": 1,"
                + " \"nextHopMac\": \"00:00:00:00:01:10\"}]}";
        Nat64AppConfig app = new Nat64AppConfig();
        app.init(APP, Nat64AppConfig.KEY, MAPPER.readTree("{\"pool6\": \"2001:db8:64::/96\", \"pool4\": " + pool4
                + moreNat64 + "}"),
                MAPPER, null);
        configs.put(APP, app);
        int n = 1;
        for (DeviceId d : List.of(LEAF, BORDER1, BORDER2)) {
            Nat64DeviceConfig c = new Nat64DeviceConfig();
            JsonNode node = MAPPER.readTree(String.format(sw, d == LEAF ? "EDGE" : "BORDER", n, n, n));
            c.init(d, Nat64DeviceConfig.KEY, node, MAPPER, null);
            configs.put(d, c);
            BasicDeviceConfig basic = new BasicDeviceConfig();
            basic.init(d, "basic", MAPPER.createObjectNode(), MAPPER, null);
            basics.put(d, basic.managementAddress("grpc://127.0.0.1:5000" + n + "?device_id=" + n));
            n++;
        }
        NetworkConfigEvent e = new NetworkConfigEvent(NetworkConfigEvent.Type.CONFIG_ADDED, APP, Nat64AppConfig.class);
        configListeners.stream().filter(l -> l.isRelevant(e)).forEach(l -> l.event(e));
    }

    void deviceAvailable(DeviceId d, boolean up) {
        if (up) {
            available.add(d);
        } else {
            available.remove(d);
        }
        DeviceEvent e = new DeviceEvent(DeviceEvent.Type.DEVICE_AVAILABILITY_CHANGED,
                new org.onosproject.net.DefaultDevice(null, d, org.onosproject.net.Device.Type.SWITCH,
                        "nat64fabric", "softswitch", "0", "0", new org.onlab.packet.ChassisId()));
        deviceListeners.stream().filter(l -> l.isRelevant(e)).forEach(l -> l.event(e));
    }

    List<FlowEntry> flowsOn(DeviceId d, String tablePart) {
        return flows.values().stream().filter(f -> f.deviceId().equals(d))
                .filter(f -> f.table().toString().contains(tablePart)).collect(Collectors.toList());
    }

    Map<String, Long> journalCounts(DeviceId d) {
        Map<String, Long> counts = new LinkedHashMap<>();
        journal.stream().filter(j -> j.startsWith(d + " ")).forEach(j -> counts.merge(j, 1L, Long::sum));
        return counts;
    }

    /** IPv6/UDP from the host behind the leaf to 198.51.100.10 through pool6, checksummed by ONOS's packet library. */
    static byte[] udpFrame(int sourcePort) {
        UDP udp = new UDP();
        udp.setSourcePort(sourcePort);
        udp.setDestinationPort(53);
        udp.setPayload(new Data(new byte[] {1, 2, 3, 4}));
        IPv6 ip = new IPv6();
        ip.setSourceAddress(Ip6Address.valueOf("2001:db8:1::10").toOctets());
        ip.setDestinationAddress(Ip6Address.valueOf("2001:db8:64::c633:640a").toOctets());
        ip.setNextHeader(IPv6.PROTOCOL_UDP);
        ip.setHopLimit((byte) 64);
        ip.setPayload(udp);
        Ethernet eth = new Ethernet();
        eth.setEtherType(Ethernet.TYPE_IPV6);
        eth.setSourceMACAddress("00:00:00:00:01:10");
        eth.setDestinationMACAddress("00:00:00:00:b1:01");
        eth.setPayload(ip);
        return eth.serialize();
    }

    /** A session miss punted by the leaf, as the pipeconf's interpreter hands it to packet processors. */
    PacketContextAdapter packetIn(byte[] frame, long puntReason) throws Exception {
        DefaultInboundPacket in = new DefaultInboundPacket(new ConnectPoint(LEAF, PortNumber.portNumber(1)),
                Ethernet.deserializer().deserialize(frame, 0, frame.length), ByteBuffer.wrap(frame),
                Optional.of(puntReason));
        PacketContextAdapter context = new PacketContextAdapter(0, in, null, false);
        processor.process(context);
        return context;
    }

    /** Waits until the manager has written nothing for 200 ms. */
    void settle() throws InterruptedException {
        int size;
        do {
            size = journal.size();
            Thread.sleep(200);
        } while (journal.size() != size);
    }

    /** The manager works on its own thread: waits for what it should have done. */
    static void await(String what, BooleanSupplier done) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            if (done.getAsBoolean()) {
                return;
            }
            Thread.sleep(10);
        }
        fail("not within 5 s: " + what);
    }
}
