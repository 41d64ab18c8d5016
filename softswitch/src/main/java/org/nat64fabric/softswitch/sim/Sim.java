package org.nat64fabric.softswitch.sim;

import com.google.protobuf.TextFormat;
import java.io.IOException;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.nat64fabric.softswitch.frontend.Type;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.State;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.runtime.Entities;
import org.nat64fabric.softswitch.runtime.EntityException;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.ReadResponse;
import p4.v1.P4RuntimeOuterClass.Update;

/**
 * The offline runner: a program, its entries, and input pcaps in; one pcap per egress port, the
 * packets sent to the CPU with their packet_in metadata, and a summary out.
 */
public final class Sim {
    /** An input file and the port its packets enter on. */
    public static final class Input {
        public final int port;
        public final Path file;

        public Input(int port, Path file) {
            this.port = port;
            this.file = file;
        }

        /** Parses "[PORT:]FILE". */
        public static Input parse(String spec) {
            int colon = spec.indexOf(':');
            if (colon > 0 && spec.substring(0, colon).chars().allMatch(Character::isDigit)) {
                return new Input(Integer.parseInt(spec.substring(0, colon)), Path.of(spec.substring(colon + 1)));
            }
            return new Input(0, Path.of(spec));
        }
    }

    /** What a run produced, for the summary and for tests. */
    public static final class Result {
        public final Map<Integer, List<Pcap.Packet>> byPort = new TreeMap<>();
        public final List<String> cpuMetadata = new ArrayList<>();
        public int received;
        public Map<String, Long> stats;
    }

    private Sim() {
    }

    /** Loads entries given as the text format of P4Runtime ReadResponse: repeated "entities { ... }". */
    public static void loadEntries(Entities entities, Path file) throws IOException, EntityException {
        ReadResponse.Builder r = ReadResponse.newBuilder();
        String text = Files.readString(file, StandardCharsets.UTF_8);
        try {
            TextFormat.merge(text, r);
        } catch (TextFormat.ParseException e) {
            throw new IOException(file + ":" + e.getMessage().replaceFirst("^(\\d+):(\\d+): ", "$1:$2: "));
        }
        int n = 0;
        for (Entity e : r.getEntitiesList()) {
            n++;
            try {
                entities.apply(existsAlready(e) ? Update.Type.MODIFY : Update.Type.INSERT, e);
            } catch (EntityException ex) {
                throw new EntityException(ex.code(), file + ": entity " + n + ": " + ex.getMessage());
            }
        }
    }

    /**
     * Default entries, the cells of meters, counters and registers, and value sets exist from the
     * start: they are modified.
     */
    private static boolean existsAlready(Entity e) {
        switch (e.getEntityCase()) {
            case TABLE_ENTRY:
                return e.getTableEntry().getIsDefaultAction();
            case METER_ENTRY:
            case DIRECT_METER_ENTRY:
            case COUNTER_ENTRY:
            case DIRECT_COUNTER_ENTRY:
            case REGISTER_ENTRY:
            case VALUE_SET_ENTRY:
                return true;
            default:
                return false;
        }
    }

    public static Result run(Program program, P4Info info, Path entries, List<Input> inputs, Path outDir, int cpuPort)
            throws IOException, EntityException {
        V1ModelSwitch sw = new V1ModelSwitch(program);
        sw.setCpuPort(cpuPort);
        Entities entities = new Entities(sw, info);
        if (entries != null) {
            loadEntries(entities, entries);
        }
        List<long[]> order = new ArrayList<>();   // {time, input index, packet index}
        List<List<Pcap.Packet>> packets = new ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            List<Pcap.Packet> ps = Pcap.read(inputs.get(i).file);
            packets.add(ps);
            for (int k = 0; k < ps.size(); k++) {
                order.add(new long[] {ps.get(k).timeMicros, i, k});
            }
        }
        order.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0])
                : a[1] != b[1] ? Long.compare(a[1], b[1]) : Long.compare(a[2], b[2]));
        Result result = new Result();
        Type.Aggregate packetIn = program.controllerHeaders.get("packet_in");
        for (long[] o : order) {
            Pcap.Packet p = packets.get((int) o[1]).get((int) o[2]);
            result.received++;
            for (V1ModelSwitch.Output out : sw.process(inputs.get((int) o[1]).port, p.data)) {
                result.byPort.computeIfAbsent(out.port, k -> new ArrayList<>()).add(new Pcap.Packet(p.timeMicros, out.data));
                if (out.port == cpuPort) {
                    result.cpuMetadata.add(describePacketIn(packetIn, out.data));
                }
            }
        }
        result.stats = sw.stats();
        Files.createDirectories(outDir);
        for (Map.Entry<Integer, List<Pcap.Packet>> e : result.byPort.entrySet()) {
            String name = e.getKey() == cpuPort ? "cpu.pcap" : "port" + e.getKey() + ".pcap";
            Pcap.write(outDir.resolve(name), e.getValue());
        }
        if (!result.cpuMetadata.isEmpty()) {
            Files.write(outDir.resolve("cpu.txt"), result.cpuMetadata, StandardCharsets.UTF_8);
        }
        return result;
    }

    /** The packet_in header's fields of a packet sent to the CPU, as "name=value ...". */
    static String describePacketIn(Type.Aggregate header, byte[] data) {
        if (header == null) {
            return "(the program declares no @controller_header(\"packet_in\") header)";
        }
        StringBuilder sb = new StringBuilder();
        int bit = 0;
        for (Type.Field f : header.wireFields()) {
            int w = f.wireWidth();
            if (bit + w > data.length * 8) {
                return sb.append("(truncated)").toString().trim();
            }
            BigInteger v = State.readWide(data, bit, w);
            sb.append(f.name).append('=').append(v).append(' ');
            bit += w;
        }
        return sb.toString().trim();
    }

    public static void printSummary(PrintStream out, Program program, Result r, Path outDir, int cpuPort) {
        out.println("packets in: " + r.received);
        for (Map.Entry<Integer, List<Pcap.Packet>> e : r.byPort.entrySet()) {
            String name = e.getKey() == cpuPort ? "cpu.pcap" : "port" + e.getKey() + ".pcap";
            out.printf("  port %-4d %6d packets -> %s%n", e.getKey(), e.getValue().size(), outDir.resolve(name));
        }
        r.stats.forEach((k, v) -> {
            if (!k.equals("rx") && !k.equals("tx")) {
                out.printf("  %-40s %6d%n", k, v);
            }
        });
        for (Table t : program.tables) {
            long hits = 0;
            for (Table.Entry e : t.entries()) {
                hits += e.packets;
            }
            out.printf("  table %-34s %d entries, %d misses%s%n", t.name, t.entryCount(), t.missPackets(),
                    t.directCounter != null ? ", " + hits + " hits" : "");
        }
        if (!r.cpuMetadata.isEmpty()) {
            out.println("  packet_in metadata: " + outDir.resolve("cpu.txt"));
        }
    }
}
