import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;

/**
 * In-process packets per second of softswitch's interpreter on the L3 example program:
 * {IPv4, IPv6} x {64, 1500 bytes} x {1, 100 000 LPM entries}, one thread. Prints CSV.
 * Run by bench/interpreter/run.sh (java single-file launch against the built jar).
 */
public class InterpreterBench {
    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 2.0;
        Path program = Path.of("softswitch/examples/l3_forwarding.p4");
        System.out.println("family,frame_bytes,entries,mpps,run1,run2,run3");
        for (String family : new String[] {"ipv4", "ipv6"}) {
            for (int entries : new int[] {1, 100_000}) {
                Program p = Frontend.compile(program);
                V1ModelSwitch sw = new V1ModelSwitch(p);
                List<BigInteger> dsts = fill(p, family, entries, new Random(1));
                for (int frame : new int[] {64, 1500}) {
                    byte[][] packets = packets(family, frame, dsts, new Random(2));
                    run(sw, packets, seconds);   // warm-up
                    double[] mpps = new double[3];
                    for (int r = 0; r < 3; r++) {
                        mpps[r] = run(sw, packets, seconds);
                    }
                    double[] sorted = mpps.clone();
                    Arrays.sort(sorted);
                    System.out.printf("%s,%d,%d,%.3f,%.3f,%.3f,%.3f%n", family, frame, entries, sorted[1],
                            mpps[0], mpps[1], mpps[2]);
                    System.out.flush();
                }
            }
        }
    }

    /** Packets per second, in millions, over about the given time. */
    static double run(V1ModelSwitch sw, byte[][] packets, double seconds) {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        long n = 0;
        long start = System.nanoTime();
        long[] sent = new long[1];
        // As the data plane calls it: each frame made in the switch's buffer, handed to a sink.
        V1ModelSwitch.Frames count = (port, frame, length) -> sent[0]++;
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < 1024; i++) {
                byte[] packet = packets[(int) (n++ & (packets.length - 1))];
                sw.process(1, packet, packet.length, count);
            }
        }
        if (sent[0] < n / 2) {
            throw new IllegalStateException("most packets were dropped: the benchmark routes are wrong");
        }
        return n / ((System.nanoTime() - start) / 1e9) / 1e6;
    }

    /** Installs routes: random prefixes of /16../24 (IPv4) or /32../64 (IPv6); returns addresses inside them. */
    static List<BigInteger> fill(Program p, String family, int entries, Random rnd) {
        boolean v4 = family.equals("ipv4");
        Table t = p.table(v4 ? "L3Ingress.ipv4_lpm" : "L3Ingress.ipv6_lpm");
        int width = v4 ? 32 : 128;
        List<BigInteger> inside = new ArrayList<>();
        var action = new Table.ActionCall(p.action(v4 ? "L3Ingress.set_next_hop_v4" : "L3Ingress.set_next_hop_v6"),
                new BigInteger[] {BigInteger.TWO, BigInteger.valueOf(0xcc02), BigInteger.valueOf(0xdd02)});
        while (t.entryCount() < entries) {
            int len = v4 ? 16 + rnd.nextInt(9) : 32 + rnd.nextInt(33);
            BigInteger addr = new BigInteger(width, rnd);
            Table.FieldMatch m = Table.FieldMatch.lpm(addr, len, width);
            Table.Entry e = new Table.Entry(new Table.FieldMatch[] {m}, 0, action, 0);
            if (t.find(e) == null) {
                t.insert(e);
                inside.add(addr);
            }
        }
        return inside;
    }

    static byte[][] packets(String family, int frame, List<BigInteger> dsts, Random rnd) {
        byte[][] out = new byte[4096][];
        for (int i = 0; i < out.length; i++) {
            BigInteger dst = dsts.get(rnd.nextInt(dsts.size()));
            byte[] b = new byte[frame];
            b[12] = family.equals("ipv4") ? (byte) 0x08 : (byte) 0x86;
            b[13] = family.equals("ipv4") ? (byte) 0x00 : (byte) 0xdd;
            if (family.equals("ipv4")) {
                b[14] = 0x45;
                b[16] = (byte) ((frame - 14) >> 8);
                b[17] = (byte) (frame - 14);
                b[22] = 64;
                b[23] = 17;
                put(b, 26, BigInteger.valueOf(0xc0a80001L), 4);
                put(b, 30, dst, 4);
                int sum = 0;
                for (int k = 14; k < 34; k += 2) {
                    sum += ((b[k] & 0xff) << 8) | (b[k + 1] & 0xff);
                }
                sum = (sum & 0xffff) + (sum >> 16);
                sum = ~((sum & 0xffff) + (sum >> 16)) & 0xffff;
                b[24] = (byte) (sum >> 8);
                b[25] = (byte) sum;
            } else {
                b[14] = 0x60;
                b[18] = (byte) ((frame - 54) >> 8);
                b[19] = (byte) (frame - 54);
                b[20] = 17;
                b[21] = 64;
                b[22] = (byte) 0xfd;
                put(b, 38, dst, 16);
            }
            out[i] = b;
        }
        return out;
    }

    static void put(byte[] b, int at, BigInteger v, int len) {
        for (int i = len - 1; i >= 0; i--) {
            b[at + i] = v.byteValue();
            v = v.shiftRight(8);
        }
    }
}
