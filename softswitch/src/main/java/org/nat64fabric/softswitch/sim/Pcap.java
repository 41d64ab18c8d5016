package org.nat64fabric.softswitch.sim;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Classic pcap files (libpcap format, Ethernet link type), read and written. */
public final class Pcap {
    private static final int MAGIC_MICROS = 0xa1b2c3d4;
    private static final int MAGIC_NANOS = 0xa1b23c4d;
    private static final int LINKTYPE_ETHERNET = 1;

    /** A captured packet with its timestamp in microseconds. */
    public static final class Packet {
        public final long timeMicros;
        public final byte[] data;

        public Packet(long timeMicros, byte[] data) {
            this.timeMicros = timeMicros;
            this.data = data;
        }
    }

    private Pcap() {
    }

    public static List<Packet> read(Path file) throws IOException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
            DataInputStream d = new DataInputStream(in);
            byte[] header = new byte[24];
            try {
                d.readFully(header);
            } catch (EOFException e) {
                throw new IOException(file + ": not a pcap file (shorter than its 24-byte header)");
            }
            ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
            int magic = h.getInt(0);
            if (magic != MAGIC_MICROS && magic != MAGIC_NANOS) {
                h.order(ByteOrder.BIG_ENDIAN);
                magic = h.getInt(0);
            }
            if (magic != MAGIC_MICROS && magic != MAGIC_NANOS) {
                throw new IOException(file + ": not a pcap file (pcapng is not supported; convert with: editcap -F pcap IN OUT)");
            }
            boolean nanos = magic == MAGIC_NANOS;
            ByteOrder order = h.order();
            List<Packet> out = new ArrayList<>();
            byte[] rec = new byte[16];
            while (true) {
                int first = d.read();
                if (first < 0) {
                    break;
                }
                rec[0] = (byte) first;
                d.readFully(rec, 1, 15);
                ByteBuffer r = ByteBuffer.wrap(rec).order(order);
                long sec = r.getInt(0) & 0xFFFFFFFFL;
                long frac = r.getInt(4) & 0xFFFFFFFFL;
                int caplen = r.getInt(8);
                if (caplen < 0 || caplen > 262144) {
                    throw new IOException(file + ": corrupt record (captured length " + caplen + ")");
                }
                byte[] data = new byte[caplen];
                d.readFully(data);
                out.add(new Packet(sec * 1_000_000 + (nanos ? frac / 1000 : frac), data));
            }
            return out;
        }
    }

    public static void write(Path file, List<Packet> packets) throws IOException {
        try (Writer w = new Writer(file)) {
            for (Packet p : packets) {
                w.write(p.timeMicros, p.data);
            }
        }
    }

    /** A pcap file written packet by packet (softswitch run --pcap). */
    public static final class Writer implements java.io.Closeable {
        private final OutputStream out;

        public Writer(Path file) throws IOException {
            out = new BufferedOutputStream(Files.newOutputStream(file));
            ByteBuffer h = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(MAGIC_MICROS).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(262144)
                    .putInt(LINKTYPE_ETHERNET);
            out.write(h.array());
        }

        public void write(long timeMicros, byte[] data) throws IOException {
            write(timeMicros, data, data.length);
        }

        /** Writes {@code data}'s first {@code length} bytes as one packet. */
        public synchronized void write(long timeMicros, byte[] data, int length) throws IOException {
            ByteBuffer r = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
            r.putInt((int) (timeMicros / 1_000_000)).putInt((int) (timeMicros % 1_000_000))
                    .putInt(length).putInt(length);
            out.write(r.array());
            out.write(data, 0, length);
        }

        @Override
        public synchronized void close() throws IOException {
            out.close();
        }
    }
}
