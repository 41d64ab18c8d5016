package org.nat64fabric.core.control;

import java.nio.ByteBuffer;
import java.util.Optional;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.fabric.Route;
import org.nat64fabric.core.fabric.SwitchConfig;

/**
 * The Ethernet header a NetFPGA SUME leaves out of a full-size packet it hands over for an ICMP
 * error (FINISH_NO_ETHERNET: 10 bytes of packet_in and a 1500-byte IP packet fill SUME's 1514-byte
 * DMA frame). The error goes back to the packet's source, so the header is written as the packet
 * would have come from the next hop of the switch's route to that source: source MAC the next
 * hop's, destination MAC the switch's own on that route. {@link IcmpErrors} swaps them, so the
 * error leaves with the MACs the pipe writes routing a packet to the source, which are the ones
 * the packet came with when the path back is the path in.
 */
final class MissingEthernet {
    private static final int ETHERNET = 14;

    private MissingEthernet() {
    }

    /** The frame of {@code packet} (an IP packet); empty when it is neither IPv4 nor IPv6 or no next hop leads to its source. */
    static Optional<byte[]> restored(byte[] packet, SwitchConfig sw) {
        int version = packet.length > 0 ? (packet[0] & 0xf0) >>> 4 : 0;
        if (version == 4 && packet.length < 20 || version == 6 && packet.length < 40 || version != 4 && version != 6) {
            return Optional.empty();
        }
        ByteBuffer in = ByteBuffer.wrap(packet);
        String source = version == 4 ? Ipv4Address.of(in.getInt(12)).toString()
                : Ipv6Address.of(in.getLong(8), in.getLong(16)).toString();
        Optional<Route> back = sw.nextHop(source);
        if (back.isEmpty()) {
            return Optional.empty();
        }
        ByteBuffer frame = ByteBuffer.allocate(ETHERNET + packet.length);
        putMac(frame, back.get().srcMac);
        putMac(frame, back.get().dstMac);
        frame.putShort((short) (version == 4 ? 0x0800 : 0x86dd)).put(packet);
        return Optional.of(frame.array());
    }

    private static void putMac(ByteBuffer b, long mac) {
        b.putShort((short) (mac >>> 32)).putInt((int) mac);
    }
}
