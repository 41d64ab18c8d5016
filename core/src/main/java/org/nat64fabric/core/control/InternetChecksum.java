package org.nat64fabric.core.control;

/**
 * The Internet checksum (RFC 1071): the ones' complement of the ones' complement sum of 16-bit
 * words. Sums are kept in a long and folded once at the end.
 */
final class InternetChecksum {
    private InternetChecksum() {
    }

    /** {@code sum} plus {@code length} bytes from {@code from} as big-endian words (an odd last byte padded with 0). */
    static long add(long sum, byte[] data, int from, int length) {
        int end = from + length;
        for (int i = from; i < end; i += 2) {
            sum += (data[i] & 0xff) << 8 | (i + 1 < end ? data[i + 1] & 0xff : 0);
        }
        return sum;
    }

    /** RFC 8200 8.1: the IPv6 pseudo-header of an upper-layer packet, summed. */
    static long ipv6PseudoHeader(byte[] frame, int ipv6At, int upperLength, int nextHeader) {
        return add(0, frame, ipv6At + 8, 32) + (upperLength >>> 16) + (upperLength & 0xffff) + nextHeader;
    }

    /** The checksum field's value for words summing to {@code sum}. */
    static int of(long sum) {
        while (sum >> 16 != 0) {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        return (int) ~sum & 0xffff;
    }
}
