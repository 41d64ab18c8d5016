package org.nat64fabric.sume.agent.model;

import java.util.ArrayList;
import java.util.List;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;

/**
 * Runs frames through the model card, one at a time, and writes what became of each: the
 * expected results of the SUME simulations (hw/netfpga/testdata/gen_testdata.py reads them).
 * A case is {@code NAME PORT HEX}: the frame (hexadecimal) arriving on PORT, nf0..nf3 or dma
 * (a packet-out, its header first). Its result is two lines, {@code in NAME PORT HEX} and
 * {@code out NAME PORT HEX} (a punt to dma with its packet_in header first) or
 * {@code out NAME drop}. SimpleSumeSwitch has no replication: a frame leaves once or not at all.
 */
public final class Recorder {
    private final ModelCard card;

    public Recorder(ModelCard card) {
        this.card = card;
        card.sw.setCpuPort(ModelCardPorts.DMA_PORT);
    }

    /** The result lines of every case; IllegalArgumentException naming {@code source}:line for a bad one. */
    public List<String> record(String source, List<String> cases) {
        List<String> out = new ArrayList<>();
        for (int n = 0; n < cases.size(); n++) {
            String line = cases.get(n).trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = source + ":" + (n + 1) + ": ";
            String[] words = line.split("\\s+");
            if (words.length != 3) {
                throw new IllegalArgumentException(where + "expected NAME PORT HEX");
            }
            int port = port(where, words[1]);
            if (!words[2].matches("([0-9a-fA-F]{2})+")) {
                throw new IllegalArgumentException(where + "the frame is not bytes in hexadecimal");
            }
            byte[] frame = new byte[words[2].length() / 2];
            for (int i = 0; i < frame.length; i++) {
                frame[i] = (byte) Integer.parseInt(words[2].substring(2 * i, 2 * i + 2), 16);
            }
            List<V1ModelSwitch.Output> left = card.sw.process(port, frame);
            if (left.size() > 1) {
                throw new IllegalArgumentException(where + words[0] + " left " + left.size()
                        + " times: SimpleSumeSwitch sends a frame once");
            }
            out.add(String.join(" ", "in", words[0], words[1], words[2]));
            out.add(left.isEmpty() ? "out " + words[0] + " drop"
                    : String.join(" ", "out", words[0], name(left.get(0).port), hex(left.get(0).data)));
        }
        return out;
    }

    private static int port(String where, String name) {
        if (name.equals("dma")) {
            return ModelCardPorts.DMA_PORT;
        }
        if (name.matches("nf[0-3]")) {
            return name.charAt(2) - '0';
        }
        throw new IllegalArgumentException(where + "the port is nf0..nf3 or dma, not " + name);
    }

    private static String hex(byte[] data) {
        StringBuilder b = new StringBuilder();
        for (byte x : data) {
            b.append(String.format("%02x", x & 0xff));
        }
        return b.toString();
    }

    private static String name(int port) {
        return port == ModelCardPorts.DMA_PORT ? "dma" : "nf" + port;
    }
}
