package org.nat64fabric.core.control;

import static org.nat64fabric.core.p4.SumeHeaders.FINISH_ICMP_CHECKSUM;
import static org.nat64fabric.core.p4.SumeHeaders.FINISH_TRUNCATE;
import static org.nat64fabric.core.p4.SumeHeaders.FINISH_UDP_CHECKSUM;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Optional;

/**
 * Finishes a packet that a NetFPGA SUME translated and routed but could not complete, because
 * SDNet can neither read nor sum the payload (PUNT_FINISH, hw/netfpga/include/sume_arch.p4): it
 * cuts an ICMP error to the length the card asked for, and computes the ICMP or UDP checksum over
 * the message. The headers, MACs and hop limit are the card's; the frame then leaves as it is.
 * It also mends a v1model switch's UDP checksum sum of 0 in what it punts to be fragmented.
 */
final class Finisher {
    private static final int ETHERNET = 14;
    private static final int IPV6_HEADER = 40;
    private static final int NEXT_HEADER_FRAGMENT = 44;
    private static final int PROTO_ICMP = 1;
    private static final int PROTO_UDP = 17;
    private static final int PROTO_ICMPV6 = 58;

    private Finisher() {
    }

    /**
     * The finished frame; empty when {@code finish} asks for something else (TCP control, hairpin)
     * or the frame does not hold what it asks for (not IP, lengths past the frame, another
     * transport).
     */
    static Optional<byte[]> finish(byte[] frame, int finish, int truncateTo) {
        if ((finish & ~(FINISH_ICMP_CHECKSUM | FINISH_UDP_CHECKSUM | FINISH_TRUNCATE)) != 0
                || (finish & FINISH_ICMP_CHECKSUM) != 0 && (finish & FINISH_UDP_CHECKSUM) != 0) {
            return Optional.empty();
        }
        boolean cut = (finish & FINISH_TRUNCATE) != 0;
        if (cut && (truncateTo < ETHERNET + 20 || truncateTo > frame.length)) {
            return Optional.empty();
        }
        byte[] f = cut ? Arrays.copyOf(frame, truncateTo) : frame.clone();
        if (f.length < ETHERNET + 20) {
            return Optional.empty();
        }
        ByteBuffer b = ByteBuffer.wrap(f);
        int etherType = b.getShort(12) & 0xffff;
        int l4;
        int end;
        int protocol;
        long pseudo;
        if (etherType == 0x0800 && (f[ETHERNET] & 0xf0) == 0x40) {
            l4 = ETHERNET + (f[ETHERNET] & 0x0f) * 4;
            end = ETHERNET + (b.getShort(ETHERNET + 2) & 0xffff);
            protocol = f[ETHERNET + 9] & 0xff;
            pseudo = 0;                                       // ICMPv4 has no pseudo-header
            if (protocol != PROTO_ICMP) {
                return Optional.empty();                      // UDP from the card leaves in IPv6
            }
        } else if (etherType == 0x86dd && f.length >= ETHERNET + IPV6_HEADER) {
            l4 = ETHERNET + IPV6_HEADER;
            end = l4 + (b.getShort(ETHERNET + 4) & 0xffff);
            protocol = f[ETHERNET + 6] & 0xff;
            if (protocol == NEXT_HEADER_FRAGMENT && f.length >= l4 + 8) {
                protocol = f[l4] & 0xff;                      // the only header the card writes before it
                l4 += 8;
            }
            pseudo = end < l4 ? 0 : InternetChecksum.ipv6PseudoHeader(f, ETHERNET, end - l4, protocol);
        } else {
            return Optional.empty();
        }
        boolean icmp = (finish & FINISH_ICMP_CHECKSUM) != 0;
        if (end > f.length || end < l4 + 8 || (icmp ? protocol != PROTO_ICMP && protocol != PROTO_ICMPV6
                                                     : (finish & FINISH_UDP_CHECKSUM) != 0 && protocol != PROTO_UDP)) {
            return Optional.empty();
        }
        if ((finish & (FINISH_ICMP_CHECKSUM | FINISH_UDP_CHECKSUM)) != 0) {
            int at = l4 + (icmp ? 2 : 6);
            b.putShort(at, (short) 0);
            int sum = InternetChecksum.of(InternetChecksum.add(pseudo, f, l4, end - l4));
            b.putShort(at, (short) (sum == 0 && !icmp ? 0xffff : sum));   // RFC 768: 0 means none
        }
        return Optional.of(f);
    }

    /**
     * A v1model switch sums the checksum of IPv4 UDP without one as it translates it, and writes a
     * sum that comes to 0 as 0 (RFC 768 sends 0xFFFF); a datagram it punts to be fragmented comes
     * without the pass that mends that. So a whole IPv6 UDP datagram (no Fragment header, or one of
     * offset 0 without more fragments) whose checksum is 0 is summed again; any other frame is
     * returned as it is.
     */
    static byte[] withUdpSumMended(byte[] frame) {
        int l4 = ETHERNET + IPV6_HEADER;
        ByteBuffer b = ByteBuffer.wrap(frame);
        if (frame.length < l4 + 8 || (b.getShort(12) & 0xffff) != 0x86dd) {
            return frame;
        }
        int next = frame[ETHERNET + 6] & 0xff;
        if (next == NEXT_HEADER_FRAGMENT) {
            if (frame.length < l4 + 16 || (b.getShort(l4 + 2) & 0xfff9) != 0) {   // an offset, or more fragments
                return frame;
            }
            next = frame[l4] & 0xff;
            l4 += 8;
        }
        if (next != PROTO_UDP || b.getShort(l4 + 6) != 0) {
            return frame;
        }
        return finish(frame, FINISH_UDP_CHECKSUM, 0).orElse(frame);
    }
}
