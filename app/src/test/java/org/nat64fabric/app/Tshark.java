package org.nat64fabric.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Wireshark's IPFIX dissector (Debian's tshark, which {@code make deps} installs): a decoder of
 * the app's export written by others. The datagrams become a capture with text2pcap (it adds
 * the UDP, IPv4 and Ethernet headers), which tshark reads as IPFIX on port 4739.
 */
final class Tshark {
    private Tshark() {
    }

    /** Every value tshark shows of each field, over all the datagrams, in order. */
    static Map<String, List<String>> decode(List<byte[]> datagrams, Path dir, String... fields) throws Exception {
        StringBuilder hex = new StringBuilder();
        for (byte[] d : datagrams) {
            for (int i = 0; i < d.length; i++) {
                hex.append(i % 16 == 0 ? String.format("%n%06x", i) : "").append(String.format(" %02x", d[i]));
            }
            hex.append(String.format("%n"));
        }
        Path text = dir.resolve("ipfix.txt");
        Path pcap = dir.resolve("ipfix.pcap");
        Files.writeString(text, hex);
        run(List.of("text2pcap", "-q", "-u", "4739,4739", text.toString(), pcap.toString()));
        List<String> command = new ArrayList<>(List.of("tshark", "-r", pcap.toString(), "-d", "udp.port==4739,cflow",
                "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"));
        for (String f : fields) {
            command.addAll(List.of("-e", f));
        }
        Map<String, List<String>> values = new LinkedHashMap<>();
        for (String f : fields) {
            values.put(f, new ArrayList<>());
        }
        String out = run(command);
        for (String line : out.split("\n")) {
            String[] columns = line.split("\t", -1);
            assertEquals(fields.length, columns.length, "tshark's line: " + line);
            for (int i = 0; i < fields.length; i++) {
                if (!columns[i].isEmpty()) {
                    values.get(fields[i]).addAll(Arrays.asList(columns[i].split(",")));
                }
            }
        }
        return values;
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        return Programs.run(command, "", "`make deps` installs Debian's tshark");
    }
}
