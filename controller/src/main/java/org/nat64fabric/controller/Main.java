package org.nat64fabric.controller;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import com.sun.net.httpserver.HttpServer;
import org.glassfish.jersey.jdkhttp.JdkHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.control.Nat64Fabric;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.rest.Nat64Resource;

/**
 * The embedded controller: the NAT64 fabric without ONOS. Reads the fabric's netcfg-form
 * configuration, keeps NAT state in a durable store, drives every switch over P4Runtime and
 * serves the REST API at http://ADDR:PORT/onos/nat64fabric/, the ONOS app's paths.
 */
public final class Main {
    private static final Logger LOG = Logger.getLogger(Main.class.getName());
    /** Jersey warns at start about optional features it does not find (JAXB, WADL, activation). */
    private static final Logger JERSEY = Logger.getLogger("org.glassfish.jersey");
    private static final String USAGE = String.join("\n",
            "usage: nat64fabric-controller --config FABRIC.json --state DIR --p4info P4INFO.txt",
            "                              --device-config DEVICE_CONFIG.bin [--rest-addr 127.0.0.1] [--rest-port 8181]",
            "  --config         the fabric in ONOS netcfg form (docs/netcfg.md)",
            "  --state          directory of the durable NAT state (nat64.mv) and the NAT event log (nat-events.log)",
            "  --p4info, --device-config   the pipeline, as `make p4` writes them to p4/build/",
            "  --rest-addr/--rest-port     where the REST API listens (default 127.0.0.1:8181)");

    /** The REST API at the ONOS app's paths. */
    @Path("onos/nat64fabric")
    @Produces(MediaType.APPLICATION_JSON)
    public static final class RestApi extends Nat64Resource {
        public RestApi(Nat64Service service) {
            super(() -> service);
        }
    }

    private Main() {
    }

    public static void main(String[] args) throws IOException {
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT %4$s %3$s: %5$s%6$s%n");
        JERSEY.setLevel(java.util.logging.Level.SEVERE);
        String config = null;
        String state = null;
        String p4info = null;
        String deviceConfig = null;
        String restAddr = "127.0.0.1";
        int restPort = 8181;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                System.out.println(USAGE);
                return;
            }
            if (i + 1 >= args.length) {
                fail("option " + a + " needs a value");
            }
            String v = args[++i];
            switch (a) {
                case "--config": config = v; break;
                case "--state": state = v; break;
                case "--p4info": p4info = v; break;
                case "--device-config": deviceConfig = v; break;
                case "--rest-addr": restAddr = v; break;
                case "--rest-port": restPort = Integer.parseInt(v); break;
                default: fail("unknown option " + a);
            }
        }
        if (config == null || state == null || p4info == null || deviceConfig == null) {
            fail("--config, --state, --p4info and --device-config are required");
        }
        try {
            run(java.nio.file.Path.of(config), java.nio.file.Path.of(state), java.nio.file.Path.of(p4info),
                    java.nio.file.Path.of(deviceConfig), restAddr, restPort);
        } catch (ConfigException e) {
            fail(config + ": " + e.getMessage());
        }
    }

    private static void run(java.nio.file.Path configFile, java.nio.file.Path stateDir, java.nio.file.Path p4info,
                            java.nio.file.Path deviceConfig, String restAddr, int restPort) throws IOException {
        FabricConfig config = FabricConfig.read(configFile);
        for (java.nio.file.Path p : List.of(p4info, deviceConfig)) {
            if (!Files.isRegularFile(p)) {
                fail(p + " is missing: run `make p4` to compile the pipeline");
            }
        }
        EntryCodec codec = EntryCodec.load(p4info);
        byte[] device = Files.readAllBytes(deviceConfig);
        Files.createDirectories(stateDir);
        DurableNatStore store = DurableNatStore.open(stateDir.resolve("nat64.mv"));
        PrintWriter eventLog = new PrintWriter(Files.newBufferedWriter(stateDir.resolve("nat-events.log"),
                StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND), true);
        Nat64Fabric fabric = new Nat64Fabric(config, store, e -> eventLog.println(e), System::currentTimeMillis);
        LOG.info("NAT state in " + stateDir.resolve("nat64.mv") + ": " + store.bib().size() + " BIB entries, "
                + store.sessions().size() + " sessions, " + store.eams().size() + " EAMs");

        ExecutorService events = Executors.newSingleThreadExecutor(r -> new Thread(r, "fabric-events"));
        List<P4RuntimeLink> links = new ArrayList<>();
        long electionId = System.currentTimeMillis();   // a restarted controller outranks its predecessor
        config.devices.forEach((id, d) -> links.add(new P4RuntimeLink(id, d.managementAddress, codec, device,
                electionId, fabric, events)));
        links.forEach(P4RuntimeLink::start);

        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        timer.scheduleWithFixedDelay(() -> events.execute(fabric::tick), 5, 5, TimeUnit.SECONDS);

        URI base = URI.create("http://" + restAddr + ":" + restPort + "/");
        HttpServer http = JdkHttpServerFactory.createHttpServer(base, new ResourceConfig().register(new RestApi(fabric)));
        LOG.info("REST API at " + base + "onos/nat64fabric/ ; " + links.size() + " switches");

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            http.stop(0);
            links.forEach(P4RuntimeLink::stop);
            timer.shutdownNow();
            events.shutdown();
            try {
                events.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            store.close();
            eventLog.close();
        }));
    }

    private static void fail(String message) {
        System.err.println("nat64fabric-controller: " + message);
        System.err.println(USAGE);
        System.exit(2);
    }
}
