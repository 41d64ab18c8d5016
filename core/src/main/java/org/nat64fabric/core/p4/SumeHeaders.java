package org.nat64fabric.core.p4;

import java.nio.ByteBuffer;

/**
 * The NetFPGA SUME variant's controller headers (hw/netfpga/include/sume_arch.p4) as the Java side
 * reads and writes them: packet_in's {@code finish} bits, and how ONOS carries what its packet
 * service has no field for. The embedded controller reads the P4Runtime metadata by name instead.
 *
 * <p>An ONOS {@code InboundPacket} has a port and a 64-bit cookie: the SUME pipeconf's interpreter
 * packs packet_in's other fields into the cookie ({@link #cookie}), the app reads them back. The
 * layout, from the least significant bit: punt_reason (8 bits), finish (8), out_port (8),
 * error_type (8), error_code (8), then one 16-bit word holding truncate_to for
 * {@link #FINISH_TRUNCATE} or error_param for {@link #FINISH_ICMP_ERROR}: 72 bits of fields in 56.
 * The two never come together (the pipe's {@code to_controller} zeroes each without its bit, and
 * sends FINISH_ICMP_ERROR alone), and {@link #cookie} refuses what would not read back. A cookie
 * of a v1model packet-in is its punt_reason alone, which reads back the same way.
 *
 * <p>An ONOS {@code OutboundPacket} has a treatment: packet_out.hairpinned = 1 is the
 * write-metadata instruction {@link #HAIRPINNED}, packet_out.probe = 1 is {@link #PROBE} (value and
 * mask), beside an output to {@code PortNumber.TABLE}.
 *
 * <p>A frame sent through the pipe that would not fit in a DMA frame beside packet_out (a
 * full-size packet the card handed over without its Ethernet header) goes without it, its
 * EtherType in packet_out.ether_type ({@link #etherTypeLeftOut}); both runtimes do so.
 */
public final class SumeHeaders {
    /** packet_in.finish bits. */
    public static final int FINISH_ICMP_CHECKSUM = 1;
    public static final int FINISH_UDP_CHECKSUM = 2;
    public static final int FINISH_TRUNCATE = 4;
    public static final int FINISH_TRACK = 8;
    public static final int FINISH_HAIRPIN = 16;
    public static final int FINISH_ICMP_ERROR = 32;
    /** The packet came without its Ethernet header (it would not fit SUME's DMA). */
    public static final int FINISH_NO_ETHERNET = 64;
    /** With PUNT_NEEDS_FRAGMENTATION: the translation of a probe ({@code packet_out.probe}). */
    public static final int FINISH_PROBED = 128;

    /** The write-metadata value (and mask) of a packet-out that sets packet_out.hairpinned. */
    public static final long HAIRPINNED = 1;
    /** The write-metadata value (and mask) of a packet-out that sets packet_out.probe. */
    public static final long PROBE = 2;

    /** The longest frame SUME's DMA carries, packet_in or packet_out included. */
    public static final int MAX_DMA_FRAME = 1514;
    /** packet_out's length on the card. */
    public static final int PACKET_OUT_BYTES = 4;
    /** What a frame sent without its Ethernet header leaves out at its start. */
    public static final int ETHERNET = 14;

    private static final int FINISH_AT = 8;
    private static final int OUT_PORT_AT = 16;
    private static final int ERROR_TYPE_AT = 24;
    private static final int ERROR_CODE_AT = 32;
    private static final int WORD_AT = 40;

    private SumeHeaders() {
    }

    /**
     * packet_in's fields as one cookie. Throws {@link IllegalArgumentException}, naming the field,
     * for a value wider than its field in the header, a cut length or error field without its
     * finish bit, or FINISH_TRUNCATE with FINISH_ICMP_ERROR.
     */
    public static long cookie(long puntReason, long finish, long outPort, long truncateTo, long errorType,
                              long errorCode, long errorParam) {
        boolean cut = (finish & FINISH_TRUNCATE) != 0;
        boolean error = (finish & FINISH_ICMP_ERROR) != 0;
        if (cut && error) {
            throw new IllegalArgumentException("finish " + finish + " has both FINISH_TRUNCATE and FINISH_ICMP_ERROR");
        }
        refuseWithout("truncate_to", truncateTo, cut, "FINISH_TRUNCATE");
        refuseWithout("error_type", errorType, error, "FINISH_ICMP_ERROR");
        refuseWithout("error_code", errorCode, error, "FINISH_ICMP_ERROR");
        refuseWithout("error_param", errorParam, error, "FINISH_ICMP_ERROR");
        return field("punt_reason", puntReason, 8) | field("finish", finish, 8) << FINISH_AT
                | field("out_port", outPort, 8) << OUT_PORT_AT | field("error_type", errorType, 8) << ERROR_TYPE_AT
                | field("error_code", errorCode, 8) << ERROR_CODE_AT
                | field(error ? "error_param" : "truncate_to", error ? errorParam : truncateTo, 16) << WORD_AT;
    }

    /**
     * The EtherType to put in packet_out.ether_type for a frame sent through the pipe: its own
     * when it would not fit in a DMA frame beside packet_out (it then goes without its first
     * {@link #ETHERNET} bytes), 0 when it fits whole. {@code frame}: from its position on.
     */
    public static int etherTypeLeftOut(ByteBuffer frame) {
        return frame.remaining() + PACKET_OUT_BYTES > MAX_DMA_FRAME ? frame.getShort(frame.position() + 12) & 0xffff : 0;
    }

    /** {@code packet} (IPv4 or IPv6) framed with these MACs and the EtherType of its version. */
    public static byte[] withEthernet(byte[] packet, long dstMac, long srcMac) {
        ByteBuffer frame = ByteBuffer.allocate(ETHERNET + packet.length);
        frame.putShort((short) (dstMac >>> 32)).putInt((int) dstMac).putShort((short) (srcMac >>> 32))
                .putInt((int) srcMac).putShort((short) ((packet[0] & 0xf0) == 0x40 ? 0x0800 : 0x86dd)).put(packet);
        return frame.array();
    }

    public static int puntReason(long cookie) {
        return (int) (cookie & 0xff);
    }

    public static int finish(long cookie) {
        return (int) (cookie >>> FINISH_AT & 0xff);
    }

    public static int outPort(long cookie) {
        return (int) (cookie >>> OUT_PORT_AT & 0xff);
    }

    /** The cut's length; 0 without FINISH_TRUNCATE. */
    public static int truncateTo(long cookie) {
        return (finish(cookie) & FINISH_TRUNCATE) != 0 ? word(cookie) : 0;
    }

    public static int errorType(long cookie) {
        return (int) (cookie >>> ERROR_TYPE_AT & 0xff);
    }

    public static int errorCode(long cookie) {
        return (int) (cookie >>> ERROR_CODE_AT & 0xff);
    }

    /** The error's MTU or pointer; 0 without FINISH_ICMP_ERROR. */
    public static int errorParam(long cookie) {
        return (finish(cookie) & FINISH_ICMP_ERROR) != 0 ? word(cookie) : 0;
    }

    private static int word(long cookie) {
        return (int) (cookie >>> WORD_AT & 0xffff);
    }

    private static long field(String name, long value, int bits) {
        if (value < 0 || value >>> bits != 0) {
            throw new IllegalArgumentException(name + " " + value + " does not fit in " + bits + " bits");
        }
        return value;
    }

    private static void refuseWithout(String name, long value, boolean allowed, String bit) {
        if (value != 0 && !allowed) {
            throw new IllegalArgumentException(name + " " + value + " without " + bit + " in finish");
        }
    }
}
