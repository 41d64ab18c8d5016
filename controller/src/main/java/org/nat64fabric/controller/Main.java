package org.nat64fabric.controller;

import io.grpc.ChannelCredentials;
import io.grpc.TlsChannelCredentials;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.ssl.SSLContext;
import org.nat64fabric.controller.DurableNatStore.Recovery;
import org.nat64fabric.controller.DurableNatStore.StateException;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.control.Nat64Fabric;
import org.nat64fabric.core.event.NatEvent;
import org.nat64fabric.core.event.ipfix.IpfixExporter;
import org.nat64fabric.core.p4.P4InfoConstants;

/**
 * The embedded controller: the NAT64 fabric without ONOS. Reads the fabric's netcfg-form
 * configuration, keeps NAT state in a durable store, drives every switch over P4Runtime and
 * serves the REST API at http(s)://ADDR:PORT/onos/nat64fabric/, the ONOS app's paths.
 */
public final class Main {
    private static final Logger LOG = Logger.getLogger(Main.class.getName());
    /** Jersey warns at start about optional features it does not find (JAXB, WADL, activation). */
    private static final Logger JERSEY = Logger.getLogger("org.glassfish.jersey");
    private static final long BACKUP_EVERY_MINUTES = 60;
    private static final String USAGE = String.join("\n",
            "usage: nat64fabric-controller --config FABRIC.json --state DIR --p4info P4INFO.txt",
            "                              --device-config DEVICE_CONFIG.bin [options]",
            "  --config         the fabric in ONOS netcfg form (docs/netcfg.md)",
            "  --state          directory of the durable NAT state (nat64.db, its backup nat64.db.bak), the REST",
            "                   credentials (rest-credentials) and the NAT event log (nat-events.log)",
            "  --p4info, --device-config   the pipeline, as `make p4` writes them to p4/build/",
            "  --rest-addr ADDR, --rest-port PORT   where the REST API listens (default 127.0.0.1:8181)",
            "  --rest-tls-cert PEM, --rest-tls-key PEM   serve the REST API over HTTPS (key in PKCS#8 PEM)",
            "  --p4rt-ca-cert PEM   trust these CAs for switches at grpcs:// addresses (default: the system's)",
            "  --p4rt-cert PEM, --p4rt-key PEM   the controller's own certificate, for switches that ask for one",
            "  --counter-poll-seconds N   read every switch's data-plane counters this often (default 5; 0: never)",
            "  --restore-backup     the state file is damaged: set it aside and start from nat64.db.bak",
            "  --empty-state        the state file is damaged: set it aside and start with no NAT state");

    private Main() {
    }

    public static void main(String[] args) {
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT %4$s %3$s: %5$s%6$s%n");
        JERSEY.setLevel(Level.SEVERE);
        Map<String, String> opts = new HashMap<>();
        Recovery recovery = Recovery.NONE;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "-h": case "--help":
                    System.out.println(USAGE);
                    return;
                case "--restore-backup": case "--empty-state":
                    if (recovery != Recovery.NONE) {
                        fail("choose one of --restore-backup and --empty-state");
                    }
                    recovery = a.equals("--empty-state") ? Recovery.START_EMPTY : Recovery.RESTORE_BACKUP;
                    continue;
                case "--config": case "--state": case "--p4info": case "--device-config": case "--rest-addr":
                case "--rest-port": case "--rest-tls-cert": case "--rest-tls-key": case "--p4rt-ca-cert":
                case "--p4rt-cert": case "--p4rt-key": case "--counter-poll-seconds":
                    if (i + 1 >= args.length) {
                        fail("option " + a + " needs a value");
                    }
                    opts.put(a, args[++i]);
                    continue;
                default:
                    fail("unknown option " + a);
            }
        }
        for (String required : List.of("--config", "--state", "--p4info", "--device-config")) {
            if (!opts.containsKey(required)) {
                fail(required + " is required");
            }
        }
        if (opts.containsKey("--rest-tls-cert") != opts.containsKey("--rest-tls-key")) {
            fail("--rest-tls-cert and --rest-tls-key go together");
        }
        if (opts.containsKey("--p4rt-cert") != opts.containsKey("--p4rt-key")) {
            fail("--p4rt-cert and --p4rt-key go together");
        }
        int restPort = number(opts, "--rest-port", "8181");
        number(opts, "--counter-poll-seconds", "5");
        try {
            run(opts, restPort, recovery);
        } catch (ConfigException e) {
            // the file's own faults (not JSON, no object) name it as their field: once is enough
            String file = opts.get("--config");
            boolean theFile = e.field().equals(file) || e.field().equals(Path.of(file).toString());
            System.err.println("nat64fabric-controller: " + file + ": " + (theFile ? e.problem() : e.getMessage()));
            System.exit(2);
        } catch (StateException e) {
            System.err.println("nat64fabric-controller: " + e.getMessage());   // one line: what, and what to do
            System.exit(2);
        } catch (IOException | GeneralSecurityException e) {
            fail(e.getMessage());
        }
    }

    /** A whole number option of at least 0, or its default. */
    private static int number(Map<String, String> opts, String option, String byDefault) {
        String text = opts.getOrDefault(option, byDefault);
        try {
            int n = Integer.parseInt(text);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        fail(option + " must be a whole number of at least 0, not '" + text + "'");
        return 0;
    }

    private static void run(Map<String, String> opts, int restPort, Recovery recovery)
            throws IOException, GeneralSecurityException, StateException {
        FabricConfig config = FabricConfig.read(Path.of(opts.get("--config")));
        if (config.nat64.timeouts.belowRfcMinimums) {
            LOG.warning("nat64.timeouts.belowRfcMinimums is set: session lifetimes may be below RFC 6146's floors "
                    + "(a lab's setting, not for subscribers)");
        }
        Path p4info = Path.of(opts.get("--p4info"));
        Path deviceConfig = Path.of(opts.get("--device-config"));
        for (Path p : List.of(p4info, deviceConfig)) {
            if (!Files.isRegularFile(p)) {
                fail(p + " is missing: run `make p4` to compile the pipeline");
            }
        }
        EntryCodec codec = EntryCodec.load(p4info);
        byte[] device = Files.readAllBytes(deviceConfig);
        ChannelCredentials switchTls = switchTls(opts);
        // the REST API's TLS files too are read before any switch is contacted: a wrong one stops here
        SSLContext restTls = opts.containsKey("--rest-tls-cert")
                ? RestServer.sslContext(Path.of(opts.get("--rest-tls-cert")), Path.of(opts.get("--rest-tls-key"))) : null;
        Path stateDir = Path.of(opts.get("--state"));
        DurableNatStore store = DurableNatStore.open(stateDir, stateDir.resolve(Credentials.FILE), recovery);
        Credentials credentials = Credentials.loadOrCreate(stateDir);
        EventLog eventLog = new EventLog(stateDir.resolve("nat-events.log"));
        Optional<IpfixExporter> ipfix = config.ipfix.isPresent()
                ? Optional.of(new IpfixExporter(config.ipfix.get(), System::currentTimeMillis)) : Optional.empty();
        Consumer<NatEvent> natEvents = ipfix.isPresent() ? ipfix.get().andThen(eventLog) : eventLog;   // never waits
        ExecutorService setups = Executors.newSingleThreadExecutor(r -> new Thread(r, "fabric-setups"));
        ExecutorService writers = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fabric-writes");
            t.setDaemon(true);
            return t;
        });
        Nat64Fabric fabric = new Nat64Fabric(config, store, natEvents, System::currentTimeMillis,
                setups, writers);
        ipfix.ifPresent(exporter -> fabric.addCounters(exporter::counters));
        // each mapping takes one entry of each session table: a full one refuses it (a SUME card holds 4 096)
        fabric.setBibCapacity(Math.min(codec.tableSize(P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V6),
                codec.tableSize(P4InfoConstants.NAT64_INGRESS_TRANSLATE_SESSION_V4)));
        LOG.info("NAT state in " + stateDir.resolve(DurableNatStore.FILE) + ": " + store.bib().size() + " BIB entries, "
                + store.sessions().size() + " sessions, " + store.eams().size() + " EAMs; last good copy in "
                + stateDir.resolve(DurableNatStore.BACKUP));

        ExecutorService events = Executors.newSingleThreadExecutor(r -> new Thread(r, "fabric-events"));
        List<P4RuntimeLink> links = new ArrayList<>();
        long electionId = System.currentTimeMillis();   // a restarted controller outranks its predecessor
        config.devices.forEach((id, d) -> links.add(new P4RuntimeLink(id, d.managementAddress, switchTls, codec,
                device, electionId, fabric, events)));
        links.forEach(P4RuntimeLink::start);

        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        timer.scheduleWithFixedDelay(() -> events.execute(fabric::tick), 5, 5, TimeUnit.SECONDS);
        timer.scheduleWithFixedDelay(() -> events.execute(fabric::answerHeldSyns), 1, 1, TimeUnit.SECONDS);
        timer.scheduleWithFixedDelay(() -> {
            try {
                store.backup();
            } catch (Exception e) {
                LOG.warning("could not write the backup " + stateDir.resolve(DurableNatStore.BACKUP) + ": " + e);
            }
        }, BACKUP_EVERY_MINUTES, BACKUP_EVERY_MINUTES, TimeUnit.MINUTES);
        int pollSeconds = number(opts, "--counter-poll-seconds", "5");
        if (pollSeconds > 0) {
            timer.scheduleWithFixedDelay(fabric::pollCounters, pollSeconds, pollSeconds, TimeUnit.SECONDS);
        }

        String restAddr = opts.getOrDefault("--rest-addr", "127.0.0.1");
        org.eclipse.jetty.server.Server http = RestServer.start(fabric, credentials, restAddr, restPort, restTls);
        LOG.info(links.size() + " switches");

        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                http.stop();
            } catch (Exception e) {
                LOG.warning("the REST server did not stop cleanly: " + e.getMessage());
            }
            links.forEach(P4RuntimeLink::stop);
            timer.shutdownNow();
            events.shutdown();
            setups.shutdown();
            try {
                events.awaitTermination(5, TimeUnit.SECONDS);
                setups.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                store.close();
            } catch (Exception e) {
                // every change was committed when it was made; only the backup copy may be older
                System.err.println("nat64fabric-controller: closing " + stateDir.resolve(DurableNatStore.FILE) + ": " + e);
            }
            eventLog.close();
            ipfix.ifPresent(IpfixExporter::close);
        }));
    }

    /** How the controller speaks TLS to switches at grpcs:// addresses. */
    /** The credentials for grpcs:// switches, their files checked now (Pem), not at the first handshake. */
    private static ChannelCredentials switchTls(Map<String, String> opts) throws IOException, GeneralSecurityException {
        TlsChannelCredentials.Builder tls = TlsChannelCredentials.newBuilder();
        if (opts.containsKey("--p4rt-ca-cert")) {
            Path ca = Path.of(opts.get("--p4rt-ca-cert"));
            Pem.certificates("--p4rt-ca-cert", ca);
            tls.trustManager(ca.toFile());
        }
        if (opts.containsKey("--p4rt-cert")) {
            Path cert = Path.of(opts.get("--p4rt-cert"));
            Path key = Path.of(opts.get("--p4rt-key"));
            Pem.pair("--p4rt-key " + key, Pem.certificates("--p4rt-cert", cert).get(0), Pem.privateKey("--p4rt-key", key));
            tls.keyManager(cert.toFile(), key.toFile());
        }
        return tls.build();
    }

    private static void fail(String message) {
        System.err.println("nat64fabric-controller: " + message);
        System.err.println("run with --help for the options");
        System.exit(2);
    }
}
