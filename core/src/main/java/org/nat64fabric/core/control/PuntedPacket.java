package org.nat64fabric.core.control;

import java.nio.ByteBuffer;
import java.util.Optional;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.session.TcpStateMachine.Segment;

/**
 * What the controller reads from a frame a switch punted or copied: family, transport, addresses,
 * ports (an ICMP echo's identifier stands for both, RFC 6146 3.5.3) and the TCP control flag.
 * Only the first fragment or an unfragmented packet carries ports; anything else is not parsed.
 */
public final class PuntedPacket {
    private static final int ETHERTYPE_IPV4 = 0x0800;
    private static final int ETHERTYPE_IPV6 = 0x86dd;

    public final boolean ipv6;
    public final Protocol protocol;
    /** An {@link Ipv6Address} or an {@link Ipv4Address}, as {@link #ipv6} says: no text made, none parsed. */
    public final Object source;
    public final int sourcePort;
    public final Object destination;
    public final int destinationPort;
    public final Segment segment;

    private PuntedPacket(boolean ipv6, Protocol protocol, Object source, int sourcePort, Object destination,
                         int destinationPort, Segment segment) {
        this.ipv6 = ipv6;
        this.protocol = protocol;
        this.source = source;
        this.sourcePort = sourcePort;
        this.destination = destination;
        this.destinationPort = destinationPort;
        this.segment = segment;
    }

    public Ipv6Address source6() {
        return (Ipv6Address) source;
    }

    public Ipv6Address destination6() {
        return (Ipv6Address) destination;
    }

    public Ipv4Address source4() {
        return (Ipv4Address) source;
    }

    public Ipv4Address destination4() {
        return (Ipv4Address) destination;
    }

    /** A TCP segment's flow: addresses are {@link Ipv6Address}es when {@code ipv6}, else {@link Ipv4Address}es. */
    static PuntedPacket tcp(boolean ipv6, Object source, int sourcePort, Object destination, int destinationPort,
                            Segment segment) {
        return new PuntedPacket(ipv6, Protocol.TCP, source, sourcePort, destination, destinationPort, segment);
    }

    /** The packet's flow, or empty for a frame that is not TCP, UDP or an ICMP echo over IP. */
    public static Optional<PuntedPacket> parse(byte[] frame) {
        try {
            ByteBuffer b = ByteBuffer.wrap(frame);
            int etherType = b.getShort(12) & 0xffff;
            if (etherType == ETHERTYPE_IPV6) {
                int next = b.get(14 + 6) & 0xff;
                return transport(b, 54, next, true, Ipv6Address.of(b.getLong(22), b.getLong(30)),
                        Ipv6Address.of(b.getLong(38), b.getLong(46)));
            }
            if (etherType == ETHERTYPE_IPV4) {
                int ihl = (b.get(14) & 0x0f) * 4;
                int fragment = b.getShort(14 + 6) & 0x1fff;
                if (fragment != 0) {
                    return Optional.empty();
                }
                return transport(b, 14 + ihl, b.get(14 + 9) & 0xff, false, Ipv4Address.of(b.getInt(26)),
                        Ipv4Address.of(b.getInt(30)));
            }
        } catch (IndexOutOfBoundsException e) {
            // a truncated frame: not a flow
        }
        return Optional.empty();
    }

    /**
     * The IPv6 extension headers the pipeline walks past and translation leaves out (RFC 7915 5.1):
     * Hop-by-Hop, Routing and Destination Options, each (length + 1) * 8 bytes.
     */
    static boolean isSkippedExtension(int next) {
        return next == 0 || next == 43 || next == 60;
    }

    private static Optional<PuntedPacket> transport(ByteBuffer b, int at, int next, boolean ipv6, Object src,
                                                    Object dst) {
        if (ipv6) {
            for (int pass = 0; pass < 2; pass++) {         // extension headers before a Fragment header, then after it
                while (isSkippedExtension(next)) {
                    int length = ((b.get(at + 1) & 0xff) + 1) * 8;
                    next = b.get(at) & 0xff;
                    at += length;
                }
                if (pass == 0 && next == 44) {             // Fragment header: only the first carries ports
                    if ((b.getShort(at + 2) & 0xfff8) != 0) {
                        return Optional.empty();
                    }
                    next = b.get(at) & 0xff;
                    at += 8;
                }
            }
        }
        if (next == 6 || next == 17) {
            int sport = b.getShort(at) & 0xffff;
            int dport = b.getShort(at + 2) & 0xffff;
            Segment seg = Segment.OTHER;
            if (next == 6) {
                int flags = b.get(at + 13) & 0xff;
                seg = (flags & 0x04) != 0 ? Segment.RST : (flags & 0x02) != 0 ? Segment.SYN
                        : (flags & 0x01) != 0 ? Segment.FIN : Segment.OTHER;
            }
            return Optional.of(new PuntedPacket(ipv6, next == 6 ? Protocol.TCP : Protocol.UDP, src, sport, dst,
                    dport, seg));
        }
        int type = b.get(at) & 0xff;
        boolean echo = ipv6 ? next == 58 && (type == 128 || type == 129) : next == 1 && (type == 8 || type == 0);
        if (echo) {
            int id = b.getShort(at + 4) & 0xffff;
            return Optional.of(new PuntedPacket(ipv6, Protocol.ICMP, src, id, dst, id, Segment.OTHER));
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return protocol + " " + source + "#" + sourcePort + " -> " + destination + "#" + destinationPort
                + (protocol == Protocol.TCP ? " " + segment : "");
    }
}
