package org.nat64fabric.softswitch.cli;

import io.grpc.InsecureServerCredentials;
import io.grpc.ServerCredentials;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.ConsoleHandler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.nat64fabric.softswitch.ebpf.FastPath;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.frontend.P4CompileException;
import org.nat64fabric.softswitch.frontend.Preprocessor;
import org.nat64fabric.softswitch.io.AfPacketPort;
import org.nat64fabric.softswitch.io.PacketLoop;
import org.nat64fabric.softswitch.proto.DeviceConfig;
import org.nat64fabric.softswitch.server.Device;
import org.nat64fabric.softswitch.server.SwitchServer;

/** softswitch run: a P4Runtime switch on Linux interfaces, in the manner of simple_switch_grpc. */
final class RunCommand {
    static final String USAGE = String.join("\n",
            "usage: softswitch run -i PORT@IFACE [-i ...] [OPTIONS]",
            "",
            "  -i, --interface PORT@IFACE       attach Linux interface IFACE as switch port PORT (repeatable)",
            "  --device-id N                    P4Runtime device ID (default 1)",
            "  --grpc-server-addr ADDR:PORT     P4Runtime address (default 127.0.0.1:9559; [::1]:9559 for IPv6)",
            "  --grpc-addr HOST                 P4Runtime host only (default 127.0.0.1; 0.0.0.0 for every interface)",
            "  --grpc-port N                    P4Runtime port only (default 9559; 0 picks a free one)",
            "  --grpc-server-ssl                serve P4Runtime over TLS, with:",
            "  --grpc-server-cert FILE            the server's certificate chain (PEM)",
            "  --grpc-server-key FILE             its private key (PEM, PKCS#8)",
            "  --grpc-server-cacert FILE          CA that signs client certificates, with:",
            "  --grpc-server-with-client-auth     only clients with a certificate of that CA may connect",
            "  --cpu-port N                     port whose packets become packet-ins (default 255)",
            "  --p4 PROGRAM.p4                  start with this program (P4Info as 'softswitch p4info' makes it)",
            "  --pcap DIR                       write DIR/portN_in.pcap and DIR/portN_out.pcap for every port",
            "  --fast-path tc|xdp|xdp-generic   also run the program in the kernel, compiled to eBPF at each port's",
            "                                   TC ingress or XDP hook (needs clang and libbpf; tc: any interface,",
            "                                   Linux 6.6 or later, the fastest here; xdp: driver mode, whose veth peers",
            "                                   need GRO on; xdp-generic: any interface); packets it cannot finish go",
            "                                   to the interpreter as without it",
            "  --log-level LEVEL                error, warn, info (default) or debug",
            "",
            "Stops cleanly on SIGTERM or SIGINT, printing its counters.");

    private RunCommand() {
    }

    static int run(String[] args) {
        Map<Integer, String> interfaces = new TreeMap<>();
        long deviceId = 1;
        int grpcPort = 9559;
        String grpcAddr = "127.0.0.1";   // any host that reaches the port could become primary
        boolean tls = false;
        boolean clientAuth = false;
        Path cert = null;
        Path key = null;
        Path caCert = null;
        int cpuPort = 255;
        Path p4 = null;
        Path pcapDir = null;
        FastPath.Mode fastPath = null;
        List<String> defines = new ArrayList<>();
        Level level = Level.INFO;
        try {
            for (int i = 1; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "-i":
                    case "--interface": {
                        String spec = Main.value(args, ++i, a);
                        int at = spec.indexOf('@');
                        if (at <= 0 || at == spec.length() - 1) {
                            throw new IllegalArgumentException(a + " takes PORT@IFACE, e.g. -i 1@veth1 (got '" + spec + "')");
                        }
                        int port = Main.number(spec.substring(0, at), a);
                        if (port < 0 || port >= 511 || interfaces.put(port, spec.substring(at + 1)) != null) {
                            throw new IllegalArgumentException(a + ": port " + port + " is out of 0..510 or given twice");
                        }
                        break;
                    }
                    case "--device-id": deviceId = Main.number(Main.value(args, ++i, a), a); break;
                    case "--grpc-port": grpcPort = Main.number(Main.value(args, ++i, a), a); break;
                    case "--grpc-addr": grpcAddr = Main.value(args, ++i, a); break;
                    case "--grpc-server-addr": {
                        String spec = Main.value(args, ++i, a);
                        int colon = spec.lastIndexOf(':');
                        if (colon <= 0 || colon == spec.length() - 1) {
                            throw new IllegalArgumentException(a + " takes ADDR:PORT, e.g. 127.0.0.1:9559 or [::1]:9559"
                                    + " (got '" + spec + "')");
                        }
                        grpcAddr = spec.substring(0, colon).replaceAll("^\\[(.*)]$", "$1");
                        grpcPort = Main.number(spec.substring(colon + 1), a);
                        break;
                    }
                    case "--grpc-server-ssl": tls = true; break;
                    case "--grpc-server-cert": cert = Path.of(Main.value(args, ++i, a)); break;
                    case "--grpc-server-key": key = Path.of(Main.value(args, ++i, a)); break;
                    case "--grpc-server-cacert": caCert = Path.of(Main.value(args, ++i, a)); break;
                    case "--grpc-server-with-client-auth": clientAuth = true; break;
                    case "--cpu-port": cpuPort = Main.number(Main.value(args, ++i, a), a); break;
                    case "--p4": p4 = Path.of(Main.value(args, ++i, a)); break;
                    case "--pcap": pcapDir = Path.of(Main.value(args, ++i, a)); break;
                    case "--fast-path": fastPath = fastPathMode(Main.value(args, ++i, a)); break;
                    case "-D": defines.add(Main.value(args, ++i, a)); break;
                    case "--log-level": level = level(Main.value(args, ++i, a)); break;
                    case "-h":
                    case "--help":
                        System.out.println(USAGE);
                        return 0;
                    default:
                        throw new IllegalArgumentException("unknown option " + a + " (see softswitch run --help)");
                }
            }
            if (tls != (cert != null && key != null) || (!tls && (caCert != null || clientAuth))) {
                throw new IllegalArgumentException("TLS takes --grpc-server-ssl with both --grpc-server-cert and"
                        + " --grpc-server-key (and optionally --grpc-server-cacert with --grpc-server-with-client-auth)");
            }
            if (clientAuth != (caCert != null)) {
                throw new IllegalArgumentException("--grpc-server-with-client-auth and --grpc-server-cacert go together:"
                        + " the CA is what client certificates are checked against");
            }
            if (interfaces.containsKey(cpuPort)) {
                throw new IllegalArgumentException("port " + cpuPort + " is the CPU port; give interfaces other numbers");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("softswitch: " + e.getMessage());
            return 2;
        }
        configureLogging(level);
        Logger log = Logger.getLogger("softswitch");
        Device device = new Device(deviceId, cpuPort);
        List<AfPacketPort> ports = new ArrayList<>();
        SwitchServer server = null;
        try {
            if (p4 != null) {
                Preprocessor.Result pre = Preprocessor.run(p4, defines, List.of());
                DeviceConfig config = Main.deviceConfig(p4, pre, 0);
                SwitchServer.preload(device, Frontend.compilePreprocessed(pre.preprocessed, p4.toString(), 0), config);
            }
            if (pcapDir != null) {
                Files.createDirectories(pcapDir);
            }
            for (Map.Entry<Integer, String> e : interfaces.entrySet()) {
                AfPacketPort port = new AfPacketPort(e.getValue(), e.getKey(), device);
                ports.add(port);
                device.addPort(e.getKey(), port);
                if (pcapDir != null) {
                    device.capture(pcapDir, e.getKey());
                }
            }
            if (fastPath != null) {
                device.enableFastPath(fastPath, level.intValue() <= Level.FINE.intValue());
            }
            InetSocketAddress listen = new InetSocketAddress(grpcAddr, grpcPort);
            if (listen.isUnresolved()) {
                throw new IOException("cannot listen on " + grpcAddr + ": no such address");
            }
            ServerCredentials credentials = tls ? SwitchServer.tls(cert, key, caCert) : InsecureServerCredentials.create();
            server = SwitchServer.start(device, listen, credentials);
            if (!tls && !listen.getAddress().isLoopbackAddress()) {
                log.warning("P4Runtime listens on " + grpcAddr + " without TLS: any host that reaches port "
                        + server.port() + " can become primary and rewrite the pipeline (see --grpc-server-ssl)");
            }
        } catch (P4CompileException e) {
            System.err.println(e.getMessage());
            closeAll(ports);
            return 1;
        } catch (IOException | io.grpc.StatusException e) {
            System.err.println("softswitch: " + e.getMessage());
            closeAll(ports);
            return 1;
        }
        PacketLoop loop = new PacketLoop(device, ports);
        Thread dataplane = new Thread(loop, "dataplane");
        dataplane.start();
        SwitchServer running = server;
        Thread shutdown = new Thread(() -> {
            loop.stop();
            try {
                dataplane.join(1000);
                running.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            closeAll(ports);
            // java.util.logging shuts itself down in its own hook: print directly.
            StringBuilder sb = new StringBuilder("softswitch stopped; counters:");
            device.stats().forEach((k, v) -> sb.append("\n  ").append(k).append(": ").append(v));
            System.err.println(sb);
        });
        Runtime.getRuntime().addShutdownHook(shutdown);
        StringBuilder desc = new StringBuilder();
        interfaces.forEach((n, name) -> desc.append(' ').append(n).append('@').append(name));
        log.info("device " + deviceId + ", ports" + (desc.length() == 0 ? " (none)" : desc) + ", CPU port " + cpuPort
                + ", P4Runtime on " + grpcAddr + ":" + server.port() + (tls ? " (TLS" + (clientAuth ? ", client certificates)" : ")") : "")
                + (p4 != null ? ", running " + p4 : ", waiting for a pipeline"));
        System.out.println("softswitch ready: grpc port " + server.port());
        System.out.flush();
        try {
            dataplane.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    private static void closeAll(List<AfPacketPort> ports) {
        for (AfPacketPort p : ports) {
            p.close();
        }
        ports.clear();
    }

    private static FastPath.Mode fastPathMode(String name) {
        for (FastPath.Mode m : FastPath.Mode.values()) {
            if (m.option.equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException("--fast-path is tc, xdp or xdp-generic, not '" + name + "'");
    }

    private static Level level(String name) {
        switch (name) {
            case "error": return Level.SEVERE;
            case "warn": return Level.WARNING;
            case "info": return Level.INFO;
            case "debug": return Level.FINE;
            default: throw new IllegalArgumentException("--log-level is error, warn, info or debug, not '" + name + "'");
        }
    }

    /** One line per message on stderr: time, level, text. */
    private static void configureLogging(Level level) {
        Logger root = Logger.getLogger("");
        for (var h : root.getHandlers()) {
            root.removeHandler(h);
        }
        ConsoleHandler h = new ConsoleHandler();
        h.setLevel(level);
        h.setFormatter(new SimpleFormatter() {
            @Override
            public String format(LogRecord r) {
                String text = String.format("%1$tT.%1$tL %2$s %3$s%n", r.getMillis(), r.getLevel().getName(), formatMessage(r));
                return r.getThrown() == null ? text : text + "  " + r.getThrown() + System.lineSeparator();
            }
        });
        root.addHandler(h);
        root.setLevel(level);
        Logger.getLogger("io.grpc").setLevel(Level.WARNING);
        Logger.getLogger("io.grpc.netty.shaded.io.netty").setLevel(Level.SEVERE);   // e.g. "no hardware address" in namespaces
    }
}
