package org.nat64fabric.sume.agent;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.control.Nat64Fabric;
import org.nat64fabric.core.store.InMemoryNatStore;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.frontend.P4CompileException;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.sume.agent.commands.CommandsFile;
import org.nat64fabric.sume.agent.io.RawSocket;
import org.nat64fabric.sume.agent.model.CommandsLoader;
import org.nat64fabric.sume.agent.model.ModelCard;
import org.nat64fabric.sume.agent.model.ModelCardPorts;
import org.nat64fabric.sume.agent.model.Recorder;
import org.nat64fabric.sume.agent.server.AgentServer;
import p4.config.v1.P4InfoOuterClass.P4Info;

/** sume-agent: the P4Runtime server of a NetFPGA SUME card, or of the model card. */
public final class Main {
    static final String HELP = String.join("\n",
            "usage: sume-agent --dma IFACE [--grpc-port N] [--grpc-addr ADDR] [--device-id N]",
            "                  [--model [--program FILE.p4] [--card-dma IFACE] [-i K@IFACE ...]]",
            "",
            "A P4Runtime server on the host of a NetFPGA SUME card: Writes and Reads become the card's",
            "CAM, TCAM and LPM table operations; packet-in/out travel over the host's DMA netdev.",
            "",
            "  --dma IFACE        the host's DMA netdev (nf0 with the SUME reference driver)",
            "  --grpc-port N      P4Runtime port (default 9559)",
            "  --grpc-addr ADDR   address to listen on (default 127.0.0.1; the agent has no TLS: give another",
            "                     only on a management network the controller alone reaches)",
            "  --device-id N      P4Runtime device_id (default 1)",
            "  --idle-poll-ms N   how often the agent polls for idle timeouts (default 100); each entry's hit",
            "                     count on the card is read about 8 times per idle timeout",
            "  --model            drive the model card instead of a SUME: softswitch running the card's",
            "                     program, its tables written through the same register operations",
            "  --program FILE.p4  the model card's program (default hw/netfpga/nat64_sume.p4 of this checkout)",
            "  --card-dma IFACE   the model card's end of its DMA link (the peer of --dma, e.g. a veth)",
            "  -i K@IFACE         the model card's port nfK (0-3) on interface IFACE",
            "  --help             this text",
            "",
            "       sume-agent commands --config FABRIC.json --device ID [--program FILE.p4]",
            "",
            "Prints the P4-NetFPGA flow's commands.txt (p4_px_tables.py syntax): the table entries the",
            "embedded controller would write to switch ID of the fabric config (docs/netcfg.md), for the",
            "card's program (default hw/netfpga/nat64_sume.p4).",
            "",
            "       sume-agent record --commands COMMANDS.txt --cases CASES.txt [--program FILE.p4]",
            "",
            "Prints what the model card, holding the entries of COMMANDS.txt and nothing else, does with",
            "each frame of CASES.txt (lines NAME PORT HEX): the expected results of the SUME simulations,",
            "which hw/netfpga/testdata/gen_testdata.py turns into P4-NetFPGA's test data.",
            "",
            "Without --model the agent needs the SUME driver (kernel module sume_riffa) and the SDNet",
            "table libraries of the card's build; see hw/netfpga/README.md, \"The control agent\".");

    private Main() {
    }

    public static void main(String[] args) {
        try {
            System.exit(run(args));
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("sume-agent: " + e.getMessage());
            System.exit(2);
        }
    }

    static int run(String[] args) throws IOException {
        if (args.length > 0 && args[0].equals("commands")) {
            return commands(args);
        }
        if (args.length > 0 && args[0].equals("record")) {
            return record(args);
        }
        int grpcPort = 9559;
        String grpcAddr = "127.0.0.1";
        long deviceId = 1;
        long idlePollMs = 100;
        String dma = null;
        String cardDma = null;
        boolean model = false;
        Path program = null;
        Map<Integer, String> ports = new TreeMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--help":
                case "-h":
                    System.out.println(HELP);
                    return 0;
                case "--model":
                    model = true;
                    break;
                case "--grpc-port":
                    grpcPort = number(a, value(args, ++i, a), 0, 65535);
                    break;
                case "--grpc-addr":
                    grpcAddr = value(args, ++i, a);
                    break;
                case "--device-id":
                    deviceId = number(a, value(args, ++i, a), 0, Integer.MAX_VALUE);
                    break;
                case "--idle-poll-ms":
                    idlePollMs = number(a, value(args, ++i, a), 1, 3_600_000);
                    break;
                case "--dma":
                    dma = value(args, ++i, a);
                    break;
                case "--card-dma":
                    cardDma = value(args, ++i, a);
                    break;
                case "--program":
                    program = Paths.get(value(args, ++i, a));
                    break;
                case "-i": {
                    String spec = value(args, ++i, a);
                    int at = spec.indexOf('@');
                    if (at < 1) {
                        throw new IllegalArgumentException("-i takes K@IFACE, e.g. -i 1@veth1 (got '" + spec + "')");
                    }
                    int k = number(a, spec.substring(0, at), 0, 3);
                    if (ports.put(k, spec.substring(at + 1)) != null) {
                        throw new IllegalArgumentException("-i: port nf" + k + " is given twice");
                    }
                    break;
                }
                default:
                    throw new IllegalArgumentException("unknown option " + a + " (see --help)");
            }
        }
        if (dma == null) {
            throw new IllegalArgumentException("--dma IFACE is required: the host's DMA netdev (see --help)");
        }
        if (!model) {
            if (!Files.isDirectory(Paths.get("/sys/module/sume_riffa"))) {
                throw new IllegalArgumentException("no NetFPGA SUME driver on this host (kernel module sume_riffa is not "
                        + "loaded); load it, or run the model card with --model");
            }
            throw new IllegalArgumentException("the SUME driver is loaded, but this agent does not drive a real card yet "
                    + "(its binding to the SDNet table libraries is not written: hw/netfpga/README.md, \"The control agent\")");
        }
        if (!ports.isEmpty() && cardDma == null) {
            throw new IllegalArgumentException("-i gives the model card ports: give its DMA end too (--card-dma IFACE)");
        }
        Program p = compile(program != null ? program : defaultProgram());
        ModelCard card = new ModelCard(p);
        P4Info built = P4InfoBuilder.build(p);
        ModelCardPorts cardPorts = cardDma == null ? null : new ModelCardPorts(card, ports, cardDma);
        try (RawSocket dmaSocket = RawSocket.open(dma, 200);
             AgentServer server = AgentServer.start(deviceId, card, built, dmaSocket, new InetSocketAddress(grpcAddr, grpcPort),
                     idlePollMs)) {
            if (!new InetSocketAddress(grpcAddr, 0).getAddress().isLoopbackAddress()) {
                // whoever reaches the port can become primary and set the pipeline
                System.err.println("sume-agent: warning: P4Runtime on " + grpcAddr + " without TLS: any host that reaches"
                        + " it can program the card; keep it on a management network, or bind 127.0.0.1");
            }
            System.err.println("sume-agent: serving P4Runtime on " + grpcAddr + ":" + server.port() + " (device " + deviceId
                    + "), DMA on " + dma + ", the model card running " + p.tables.size() + " tables"
                    + (cardPorts == null ? "" : " with ports " + ports + " and its DMA on " + cardDma));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                server.close();
                if (cardPorts != null) {
                    cardPorts.close();
                }
            }));
            server.awaitTermination();
        }
        return 0;
    }

    /** {@code commands --config FILE --device ID [--program FILE.p4]}: commands.txt on standard output. */
    private static int commands(String[] args) throws IOException {
        Path config = null;
        String device = null;
        Path program = null;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--config":
                    config = Paths.get(value(args, ++i, a));
                    break;
                case "--device":
                    device = value(args, ++i, a);
                    break;
                case "--program":
                    program = Paths.get(value(args, ++i, a));
                    break;
                default:
                    throw new IllegalArgumentException("commands: unknown option " + a + " (see --help)");
            }
        }
        if (config == null || device == null) {
            throw new IllegalArgumentException("commands needs --config FABRIC.json and --device ID (see --help)");
        }
        P4Info p4info = P4InfoBuilder.build(compile(program != null ? program : defaultProgram()));
        try {
            Nat64Fabric fabric = new Nat64Fabric(FabricConfig.read(config), new InMemoryNatStore(), e -> { },
                    System::currentTimeMillis);
            new CommandsFile(p4info).lines(fabric.desiredState(device)).forEach(System.out::println);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(config + ": " + e.getMessage());
        }
        return 0;
    }

    /** {@code record --commands FILE --cases FILE [--program FILE.p4]}: the model card's results on standard output. */
    private static int record(String[] args) throws IOException {
        Path commands = null;
        Path cases = null;
        Path program = null;
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--commands":
                    commands = Paths.get(value(args, ++i, a));
                    break;
                case "--cases":
                    cases = Paths.get(value(args, ++i, a));
                    break;
                case "--program":
                    program = Paths.get(value(args, ++i, a));
                    break;
                default:
                    throw new IllegalArgumentException("record: unknown option " + a + " (see --help)");
            }
        }
        if (commands == null || cases == null) {
            throw new IllegalArgumentException("record needs --commands COMMANDS.txt and --cases CASES.txt (see --help)");
        }
        Path source = program != null ? program : defaultProgram();
        Program p = compile(source);
        ModelCard card = new ModelCard(p);
        new CommandsLoader(p, card).load(commands.toString(), lines("--commands", commands));
        List<String> frames = lines("--cases", cases);
        System.out.println("# The model card (softswitch running " + source.getFileName() + ") holding the entries of "
                + commands + " and nothing else: each frame of " + cases + " and where it left (sume-agent record)");
        new Recorder(card).record(cases.toString(), frames).forEach(System.out::println);
        return 0;
    }

    private static List<String> lines(String option, Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(option + " " + file + ": no such file");
        }
        return Files.readAllLines(file);
    }

    /** The card's program: a SimpleSumeSwitch one (a v1model program's tables are not the card's). */
    private static Program compile(Path file) {
        Program p;
        try {
            p = Frontend.compile(file);
        } catch (P4CompileException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        if (p.architecture != Program.Architecture.SUME) {
            throw new IllegalArgumentException(file + " is a " + p.architecture.name().toLowerCase(java.util.Locale.ROOT)
                    + " program; the card runs a SimpleSumeSwitch one (hw/netfpga/nat64_sume.p4)");
        }
        return p;
    }

    /** hw/netfpga/nat64_sume.p4 beside the agent's module: the jar is hw/netfpga/agent/target/sume-agent.jar. */
    private static Path defaultProgram() {
        try {
            Path jar = Paths.get(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path p = jar.getParent().resolve("../../nat64_sume.p4").normalize();
            if (Files.exists(p)) {
                return p;
            }
        } catch (java.net.URISyntaxException | RuntimeException e) {
            // fall through to the message below
        }
        throw new IllegalArgumentException("cannot find hw/netfpga/nat64_sume.p4 beside the agent: give --program FILE.p4");
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value (see --help)");
        }
        return args[i];
    }

    private static int number(String option, String s, int min, int max) {
        try {
            int n = Integer.parseInt(s);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below says what is expected
        }
        throw new IllegalArgumentException(option + " takes a number in " + min + ".." + max + ", not '" + s + "'");
    }
}
