package org.nat64fabric.controller;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.addr.Ipv6Prefix;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.session.TcpState;

/**
 * The state file's row format: a tag byte, then the value's fields in a fixed order, big-endian.
 * Explicit rather than Java serialization, so that a row reads the same after core's classes
 * change (a new format gets new tags), and small (a session is about 60 bytes), so that a batch
 * of setups is a small write.
 */
final class StateCodec {
    private static final int LONG = 1;
    private static final int PORT_BLOCK = 2;
    private static final int BIB_ENTRY = 3;
    private static final int SESSION = 4;
    private static final int EAM = 5;

    /** Every value fits: a session, the longest, is 66 bytes. */
    private static final int MAX_ROW = 128;

    /**
     * Each thread's scratch row, big-endian as DataInputStream reads it: a setup encodes several
     * rows, and a new buffer for each was a tenth of what the setup thread allocated.
     */
    private static final ThreadLocal<ByteBuffer> SCRATCH = ThreadLocal.withInitial(() -> ByteBuffer.allocate(MAX_ROW));

    private StateCodec() {
    }

    static byte[] encode(Object value) throws IOException {
        ByteBuffer out = SCRATCH.get().clear();
        if (value instanceof Long) {
            out.put((byte) LONG);
            out.putLong((Long) value);
        } else if (value instanceof PortBlock) {
            PortBlock b = (PortBlock) value;
            out.put((byte) PORT_BLOCK);
            out.put((byte) b.protocol().number);
            out.putInt(b.address().bits());
            out.putShort((short) b.first());
            out.putShort((short) b.last());
            write(out, b.subscriber());
        } else if (value instanceof BibEntry) {
            out.put((byte) BIB_ENTRY);
            write(out, (BibEntry) value);
        } else if (value instanceof Session) {
            Session s = (Session) value;
            out.put((byte) SESSION);
            write(out, s.bib());
            write(out, s.remote4());
            write(out, s.remote6());
            out.put((byte) (int) s.state().map(TcpState::ordinal).orElse(-1));   // RFC 6146's order, which is fixed
            out.putLong(s.lifetime());
            out.putLong(s.createdMillis());
        } else if (value instanceof Eam) {
            Eam e = (Eam) value;
            out.put((byte) EAM);
            write(out, e.ipv6().address());
            out.put((byte) e.ipv6().length());
            out.putInt(e.ipv4().address().bits());
            out.put((byte) e.ipv4().length());
        } else {
            throw new IOException("no row format for " + value.getClass().getName());
        }
        return Arrays.copyOf(out.array(), out.position());
    }

    static Object decode(byte[] row) throws IOException {
        return decode(ByteBuffer.wrap(row));
    }

    /** The value in {@code row}'s remaining bytes, which it must use up. */
    static Object decode(ByteBuffer row) throws IOException {
        try {
            Object value = read(row);
            if (row.hasRemaining()) {
                throw new IOException(row.remaining() + " bytes after the value");
            }
            return value;
        } catch (BufferUnderflowException e) {
            throw new IOException("the row ends inside its value");
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage());   // a field out of its range (a prefix's length, say)
        }
    }

    private static Object read(ByteBuffer in) throws IOException {
        int tag = Byte.toUnsignedInt(in.get());
        switch (tag) {
            case LONG:
                return in.getLong();
            case PORT_BLOCK:
                return new PortBlock(protocol(in), Ipv4Address.of(in.getInt()), Short.toUnsignedInt(in.getShort()),
                        Short.toUnsignedInt(in.getShort()), ipv6(in));
            case BIB_ENTRY:
                return bibEntry(in);
            case SESSION:
                BibEntry bib = bibEntry(in);
                TransportAddress remote4 = transport(in);
                Ipv6Address remote6 = ipv6(in);
                int state = in.get();
                if (state >= TcpState.values().length) {
                    throw new IOException("TCP state " + state + " does not exist");
                }
                return new Session(bib, remote4, remote6, state < 0 ? null : TcpState.values()[state], in.getLong(),
                        in.getLong());
            case EAM:
                Ipv6Prefix v6 = Ipv6Prefix.of(ipv6(in), Byte.toUnsignedInt(in.get()), "eam.ipv6Prefix");
                Ipv4Prefix v4 = Ipv4Prefix.of(Ipv4Address.of(in.getInt()), Byte.toUnsignedInt(in.get()), "eam.ipv4Prefix");
                return Eam.of(v6, v4, "eam");
            default:
                throw new IOException("unknown row tag " + tag);
        }
    }

    private static void write(ByteBuffer out, Ipv6Address a) {
        out.putLong(a.high());
        out.putLong(a.low());
    }

    private static void write(ByteBuffer out, TransportAddress t) {
        out.putInt(t.address().bits());
        out.putShort((short) t.port());
    }

    private static void write(ByteBuffer out, BibEntry b) {
        out.put((byte) b.protocol().number);
        write(out, b.address6());
        out.putShort((short) b.port6());
        write(out, b.v4());
        out.put((byte) (b.isStatic() ? 1 : 0));
    }

    private static Ipv6Address ipv6(ByteBuffer in) {
        return Ipv6Address.of(in.getLong(), in.getLong());
    }

    private static TransportAddress transport(ByteBuffer in) {
        return new TransportAddress(Ipv4Address.of(in.getInt()), Short.toUnsignedInt(in.getShort()));
    }

    private static Protocol protocol(ByteBuffer in) throws IOException {
        int number = Byte.toUnsignedInt(in.get());
        Protocol p = Protocol.byNumber(number).orElse(null);
        if (p == null) {
            throw new IOException("protocol " + number + " is not TCP, UDP or ICMP");
        }
        return p;
    }

    private static BibEntry bibEntry(ByteBuffer in) throws IOException {
        return new BibEntry(protocol(in), ipv6(in), Short.toUnsignedInt(in.getShort()), transport(in), in.get() != 0);
    }
}
