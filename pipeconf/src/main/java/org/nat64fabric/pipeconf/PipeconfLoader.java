package org.nat64fabric.pipeconf;

import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import org.onosproject.net.driver.DriverAdminService;
import org.onosproject.net.driver.DriverProvider;
import org.onosproject.net.pi.model.DefaultPiPipeconf;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.model.PiPipeconfId;
import org.onosproject.net.pi.model.PiPipelineInterpreter;
import org.onosproject.net.pi.service.PiPipeconfService;
import org.onosproject.p4runtime.model.P4InfoParser;
import org.onosproject.p4runtime.model.P4InfoParserException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers the NAT64 pipeconfs: one for softswitch (its device config as RAW_DEVICE_CONFIG),
 * one for the NetFPGA SUME variant (hw/netfpga/nat64_sume.p4, driven through the SUME agent,
 * hw/netfpga/agent: its P4Info, its {@link SumeInterpreter}, and as RAW_DEVICE_CONFIG what the card
 * was built from) and, when p4c built {@code nat64.json}, one for BMv2 and Stratum-BMv2 (BMV2_JSON). Stale
 * pipeconfs of the same id, and the drivers ONOS merged with them, go first, so a reinstalled
 * app never runs with an old pipeline.
 */
@Component(immediate = true)
public final class PipeconfLoader {
    public static final PiPipeconfId SOFTSWITCH = new PiPipeconfId("org.nat64fabric.softswitch");
    public static final PiPipeconfId BMV2 = new PiPipeconfId("org.nat64fabric.bmv2");
    public static final PiPipeconfId SUME = new PiPipeconfId("org.nat64fabric.sume");

    private static final Logger log = LoggerFactory.getLogger(PipeconfLoader.class);

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    PiPipeconfService pipeconfService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    DriverAdminService driverAdminService;

    private final List<PiPipeconfId> registered = new ArrayList<>();

    @Activate
    void activate() throws P4InfoParserException {
        for (PiPipeconfId id : List.of(SOFTSWITCH, SUME, BMV2)) {
            removeStale(id);
        }
        for (PiPipeconf p : pipeconfs()) {
            pipeconfService.register(p);
            registered.add(p.id());
            log.info("Registered pipeconf {}", p.id());
        }
        if (!registered.contains(BMV2)) {
            log.warn("Pipeconf {} not registered: this build has no BMv2 JSON (p4c was not installed when it was"
                    + " built; install p4c, run make p4 and rebuild). Softswitch devices use {}.", BMV2, SOFTSWITCH);
        }
    }

    @Deactivate
    void deactivate() {
        registered.forEach(pipeconfService::unregister);
        registered.clear();
    }

    /** The pipeconfs this build can offer, from the bundle's resources. */
    static List<PiPipeconf> pipeconfs() throws P4InfoParserException {
        URL p4info = resource("/p4/p4info.txt");
        List<PiPipeconf> out = new ArrayList<>();
        out.add(pipeconf(SOFTSWITCH, p4info, Nat64Interpreter.class)
                .addExtension(PiPipeconf.ExtensionType.RAW_DEVICE_CONFIG, resource("/p4/device_config.bin")).build());
        out.add(pipeconf(SUME, resource("/p4/sume/p4info.txt"), SumeInterpreter.class)
                .addExtension(PiPipeconf.ExtensionType.RAW_DEVICE_CONFIG, resource("/p4/sume/device_config.bin")).build());
        URL json = PipeconfLoader.class.getResource("/p4/nat64.json");
        if (json != null) {
            out.add(pipeconf(BMV2, p4info, Nat64Interpreter.class).addExtension(PiPipeconf.ExtensionType.BMV2_JSON, json)
                    .addExtension(PiPipeconf.ExtensionType.CPU_PORT_TXT, resource("/cpu_port.txt")).build());
        }
        return out;
    }

    private static DefaultPiPipeconf.Builder pipeconf(PiPipeconfId id, URL p4info,
                                                      Class<? extends Nat64Interpreter> interpreter)
            throws P4InfoParserException {
        return DefaultPiPipeconf.builder().withId(id).withPipelineModel(new AgingByCountersModel(P4InfoParser.parse(p4info)))
                .addBehaviour(PiPipelineInterpreter.class, interpreter)
                .addExtension(PiPipeconf.ExtensionType.P4_INFO_TEXT, p4info);
    }

    private static URL resource(String path) {
        URL url = PipeconfLoader.class.getResource(path);
        if (url == null) {
            throw new IllegalStateException(path + " is missing from the bundle: build it with make build");
        }
        return url;
    }

    private void removeStale(PiPipeconfId id) {
        if (pipeconfService.getPipeconf(id).isPresent()) {
            pipeconfService.unregister(id);
        }
        List<DriverProvider> merged = new ArrayList<>();
        for (DriverProvider p : driverAdminService.getProviders()) {
            if (p.getDrivers().stream().anyMatch(d -> d.name().endsWith(":" + id.id()))) {
                merged.add(p);
            }
        }
        merged.forEach(driverAdminService::unregisterProvider);
    }
}
