package org.nat64fabric.softswitch.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.nat64fabric.softswitch.ebpf.FastPath;
import org.nat64fabric.softswitch.ebpf.KernelProgram;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.frontend.P4CompileException;
import org.nat64fabric.softswitch.frontend.Preprocessor;
import org.nat64fabric.softswitch.p4info.ConstantsWriter;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.proto.DeviceConfig;
import org.nat64fabric.softswitch.runtime.EntityException;
import org.nat64fabric.softswitch.sim.Sim;

/** The softswitch command line: check, p4info, compile, constants, fast-path-c, sim, run. */
public final class Main {
    private static final String USAGE = String.join("\n",
            "usage: softswitch COMMAND [OPTIONS] PROGRAM.p4",
            "",
            "commands:",
            "  check PROGRAM.p4                 parse and type-check; print errors as file:line:col: message",
            "  p4info PROGRAM.p4 [-o FILE]      write the P4Runtime P4Info (text format) to FILE or stdout",
            "  compile PROGRAM.p4 --out-dir DIR write DIR/p4info.txt and DIR/device_config.bin: the pair a",
            "                                   P4Runtime client sends to softswitch in SetForwardingPipelineConfig",
            "      [--p4runtime-version 1.3]    (p4info, compile) a P4Info without P4Runtime 1.4's fields, for",
            "                                   readers built on 1.3 such as ONOS 2.7 (default 1.4)",
            "  constants PROGRAM.p4 --class PACKAGE.NAME --out-dir DIR",
            "                                   write DIR/PACKAGE/NAME.java: a Java constant for every name",
            "                                   in the program's P4Info (tables, fields, actions, ...) and each table's size",
            "  fast-path-c PROGRAM.p4 --hook tc|xdp --out-dir DIR",
            "                                   write DIR/fast_path.c and DIR/softswitch_fast_path.h: the C that",
            "                                   softswitch run --fast-path compiles with clang for the program,",
            "                                   and DIR/compile.sh SOURCE.c OBJECT.o: the clang command it uses",
            "  run -i PORT@IFACE ...            be a P4Runtime switch on Linux interfaces (softswitch run --help)",
            "  sim PROGRAM.p4 --input [PORT:]IN.pcap [--input ...] --output-dir DIR",
            "      [--entries ENTRIES.txt] [--cpu-port N]",
            "                                   run packets through the program offline: packets of IN.pcap",
            "                                   enter on PORT (default 0); writes DIR/portN.pcap per egress",
            "                                   port, DIR/cpu.pcap and DIR/cpu.txt (packet_in metadata) for",
            "                                   the CPU port (default 255). ENTRIES.txt holds P4Runtime",
            "                                   entities in protobuf text format: entities { table_entry {...} }",
            "",
            "options for every command:",
            "  -D NAME[=VALUE]                  define a preprocessor macro",
            "  -I DIR                           add an include folder",
            "  --seed N                         seed of random() and HashAlgorithm.random in the interpreter\n"
            + "                                   (default 0: a fresh one each time the program is loaded)");

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    static int run(String[] args) {
        if (args.length == 0 || args[0].equals("-h") || args[0].equals("--help") || args[0].equals("help")) {
            System.out.println(USAGE);
            return args.length == 0 ? 2 : 0;
        }
        String command = args[0];
        if (command.equals("run")) {
            return RunCommand.run(args);
        }
        List<String> defines = new ArrayList<>();
        List<Path> includes = new ArrayList<>();
        List<Sim.Input> inputs = new ArrayList<>();
        Path program = null;
        Path output = null;
        Path outDir = null;
        Path entries = null;
        String className = null;
        KernelProgram.Hook hook = null;
        int cpuPort = 255;
        long seed = 0;
        boolean p4runtime13 = false;
        try {
            for (int i = 1; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "-D": defines.add(value(args, ++i, a)); break;
                    case "-I": includes.add(Path.of(value(args, ++i, a))); break;
                    case "-o": output = Path.of(value(args, ++i, a)); break;
                    case "--output-dir":
                    case "--out-dir": outDir = Path.of(value(args, ++i, a)); break;
                    case "--entries": entries = Path.of(value(args, ++i, a)); break;
                    case "--class": className = value(args, ++i, a); break;
                    case "--input": inputs.add(Sim.Input.parse(value(args, ++i, a))); break;
                    case "--cpu-port": cpuPort = number(value(args, ++i, a), a); break;
                    case "--seed": seed = number(value(args, ++i, a), a); break;
                    case "--hook": hook = hook(value(args, ++i, a)); break;
                    case "--p4runtime-version": p4runtime13 = p4runtime13(value(args, ++i, a)); break;
                    default:
                        if (a.startsWith("-D") && a.length() > 2) {
                            defines.add(a.substring(2));
                        } else if (a.startsWith("-I") && a.length() > 2) {
                            includes.add(Path.of(a.substring(2)));
                        } else if (a.startsWith("-")) {
                            throw new IllegalArgumentException("unknown option " + a + " (see softswitch --help)");
                        } else if (program == null) {
                            program = Path.of(a);
                        } else {
                            throw new IllegalArgumentException("unexpected argument " + a + " (one program at a time)");
                        }
                }
            }
            if (program == null) {
                throw new IllegalArgumentException("no P4 program given (see softswitch --help)");
            }
            Frontend.Options options = new Frontend.Options(defines, includes, seed);
            switch (command) {
                case "check": {
                    Program p = compiled(program, options);
                    System.out.println(program + ": ok (" + p.tables.size() + " tables, " + p.actions.size() + " actions)");
                    return 0;
                }
                case "p4info": {
                    String text = P4InfoBuilder.text(p4info(compiled(program, options), p4runtime13));
                    if (output == null) {
                        System.out.print(text);
                    } else {
                        if (output.getParent() != null) {
                            Files.createDirectories(output.getParent());
                        }
                        Files.writeString(output, text, StandardCharsets.UTF_8);
                        System.err.println("wrote " + output);
                    }
                    return 0;
                }
                case "compile": {
                    if (outDir == null) {
                        throw new IllegalArgumentException("compile needs --out-dir DIR");
                    }
                    Preprocessor.Result pre = Preprocessor.run(program, defines, includes);
                    Program p = Frontend.compilePreprocessed(pre.preprocessed, program.toString(), seed);
                    p.warnings.forEach(System.err::println);
                    Files.createDirectories(outDir);
                    Files.writeString(outDir.resolve("p4info.txt"), P4InfoBuilder.text(p4info(p, p4runtime13)),
                            StandardCharsets.UTF_8);
                    Files.write(outDir.resolve("device_config.bin"), deviceConfig(program, pre, seed).toByteArray());
                    System.out.println("wrote " + outDir.resolve("p4info.txt") + " and " + outDir.resolve("device_config.bin"));
                    return 0;
                }
                case "constants": {
                    if (className == null || outDir == null) {
                        throw new IllegalArgumentException("constants needs --class PACKAGE.NAME and --out-dir DIR");
                    }
                    Path file = outDir.resolve(className.replace('.', '/') + ".java");
                    Files.createDirectories(file.getParent());
                    Files.writeString(file, ConstantsWriter.write(P4InfoBuilder.build(compiled(program, options)),
                            className, program.getFileName().toString()), StandardCharsets.UTF_8);
                    System.out.println("wrote " + file);
                    return 0;
                }
                case "fast-path-c": {
                    if (hook == null || outDir == null) {
                        throw new IllegalArgumentException("fast-path-c needs --hook tc|xdp and --out-dir DIR");
                    }
                    Files.createDirectories(outDir);
                    Path c = new KernelProgram(compiled(program, options), hook, false).writeTo(outDir);
                    Path script = outDir.resolve("compile.sh");
                    Files.writeString(script, "#!/bin/sh\n# Written by softswitch fast-path-c: compiles the fast path's C as softswitch run does.\n"
                            + "# Usage: sh compile.sh SOURCE.c OBJECT.o (a copy of fast_path.c beside softswitch_fast_path.h)\n"
                            + "exec " + String.join(" ", FastPath.clangCommand("\"$1\"", "\"$2\"")) + "\n", StandardCharsets.UTF_8);
                    System.out.println("wrote " + c + ", " + outDir.resolve("softswitch_fast_path.h") + " and " + script);
                    return 0;
                }
                case "sim": {
                    if (inputs.isEmpty() || outDir == null) {
                        throw new IllegalArgumentException("sim needs --input [PORT:]FILE.pcap and --output-dir DIR");
                    }
                    Program p = compiled(program, options);
                    Sim.Result r = Sim.run(p, P4InfoBuilder.build(p), entries, inputs, outDir, cpuPort);
                    Sim.printSummary(System.out, p, r, outDir, cpuPort);
                    return 0;
                }
                default:
                    throw new IllegalArgumentException("unknown command '" + command + "' (commands: check, p4info, compile, constants, fast-path-c, sim, run)");
            }
        } catch (P4CompileException e) {
            System.err.println(e.getMessage());
            return 1;
        } catch (EntityException e) {
            System.err.println("softswitch: " + e.code() + ": " + e.getMessage());
            return 1;
        } catch (NoSuchFileException e) {
            System.err.println("softswitch: no such file: " + e.getFile());
            return 2;
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("softswitch: " + e.getMessage());
            return 2;
        }
    }

    static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    /** A program compiled for a command; its warnings go to stderr, one per line. */
    private static Program compiled(Path program, Frontend.Options options) {
        Program p = Frontend.compile(program, options);
        p.warnings.forEach(System.err::println);
        return p;
    }

    private static boolean p4runtime13(String version) {
        switch (version) {
            case "1.3": return true;
            case "1.4": return false;
            default: throw new IllegalArgumentException("--p4runtime-version is 1.3 or 1.4, not '" + version + "'");
        }
    }

    private static p4.config.v1.P4InfoOuterClass.P4Info p4info(Program p, boolean p4runtime13) {
        p4.config.v1.P4InfoOuterClass.P4Info info = P4InfoBuilder.build(p);
        return p4runtime13 ? P4InfoBuilder.withoutP4Runtime14Fields(info) : info;
    }

    private static KernelProgram.Hook hook(String name) {
        switch (name) {
            case "tc": return KernelProgram.Hook.TC;
            case "xdp": return KernelProgram.Hook.XDP;
            default: throw new IllegalArgumentException("--hook is tc or xdp, not '" + name + "'");
        }
    }

    static int number(String text, String option) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " takes a number, not '" + text + "'");
        }
    }

    /** The p4_device_config softswitch reads (proto/softswitch/v1/device_config.proto). */
    static DeviceConfig deviceConfig(Path program, Preprocessor.Result pre, long seed) {
        return DeviceConfig.newBuilder().setFormatVersion(1).setProgramName(program.getFileName().toString())
                .setPreprocessedSource(pre.preprocessed).setSeed(seed).build();
    }
}
