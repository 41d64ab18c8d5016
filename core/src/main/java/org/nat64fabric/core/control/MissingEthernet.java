package org.nat64fabric.core.control;

import java.nio.ByteBuffer;
import java.util.Optional;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.fabric.Route;
import org.nat64fabric.core.fabric.SwitchConfig;
import org.nat64fabric.core.p4.SumeHeaders;

/**
 * The Ethernet header a NetFPGA SUME leaves out of a full-size packet it hands over
 * (FINISH_NO_ETHERNET: 10 bytes of packet_in and a 1500-byte IP packet fill SUME's 1514-byte DMA
 * frame), written back as what is done with the packet needs it:
 * <ul>
 * <li>an ICMP error about it goes back to its source ({@link #fromSource}): written as the packet
 *     would have come from the next hop of the switch's route to that source (source MAC the next
 *     hop's, destination MAC the switch's own on that route); {@link IcmpErrors} swaps them, so
 *     the error leaves with the MACs the pipe writes routing a packet to the source, the ones the
 *     packet came with when the path back is the path in;</li>
 * <li>its fragments leave by the route to its destination ({@link #towardsDestination}): that
 *     route's MACs, which the pipe had written;</li>
 * <li>it goes back through the pipe, which routes it and writes its MACs ({@link #blank}).</li>
 * </ul>
 */
final class MissingEthernet {
    private MissingEthernet() {
    }

    /** The frame of {@code packet} (an IP packet) as from its source; empty when it is neither IPv4 nor IPv6 or no next hop leads to its source. */
    static Optional<byte[]> fromSource(byte[] packet, SwitchConfig sw) {
        return address(packet, true).flatMap(sw::nextHop).map(r -> SumeHeaders.withEthernet(packet, r.srcMac, r.dstMac));
    }

    /** The frame of {@code packet} as routed to its destination; empty as {@link #fromSource}. */
    static Optional<byte[]> towardsDestination(byte[] packet, SwitchConfig sw) {
        return routeToDestination(packet, sw).map(r -> SumeHeaders.withEthernet(packet, r.dstMac, r.srcMac));
    }

    /** The switch's next hop towards the destination of {@code packet} (an IP packet); empty as {@link #fromSource}. */
    static Optional<Route> routeToDestination(byte[] packet, SwitchConfig sw) {
        return address(packet, false).flatMap(sw::nextHop);
    }

    /** The frame of {@code packet} with no MACs; empty when it is neither IPv4 nor IPv6. */
    static Optional<byte[]> blank(byte[] packet) {
        return version(packet) == 0 ? Optional.empty() : Optional.of(SumeHeaders.withEthernet(packet, 0, 0));
    }

    private static Optional<String> address(byte[] packet, boolean source) {
        int version = version(packet);
        ByteBuffer in = ByteBuffer.wrap(packet);
        if (version == 4) {
            return Optional.of(Ipv4Address.of(in.getInt(source ? 12 : 16)).toString());
        }
        if (version == 6) {
            return Optional.of(Ipv6Address.of(in.getLong(source ? 8 : 24), in.getLong(source ? 16 : 32)).toString());
        }
        return Optional.empty();
    }

    /** 4 or 6 for an IP packet at least as long as its fixed header, else 0. */
    private static int version(byte[] packet) {
        int version = packet.length > 0 ? (packet[0] & 0xf0) >>> 4 : 0;
        return version == 4 && packet.length >= 20 || version == 6 && packet.length >= 40 ? version : 0;
    }
}
