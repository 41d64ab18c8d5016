package org.nat64fabric.sume.agent.io;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Whole Ethernet frames in and out of one Linux interface (an AF_PACKET socket): the agent's DMA
 * netdev, and the model card's ports. Frames this host sent on the interface are not received.
 */
public final class RawSocket implements AutoCloseable {
    private static final int AF_PACKET = 17;
    private static final int SOCK_RAW = 3;
    private static final int ETH_P_ALL = 0x0003;
    private static final int SOL_SOCKET = 1;
    private static final int SO_RCVTIMEO = 20;
    private static final int PACKET_OUTGOING = 4;
    private static final int EAGAIN = 11;
    private static final int EINTR = 4;
    private static final int MAX_FRAME = 65536;

    private static final class LibC {
        static {
            Native.register("c");
        }

        static native int socket(int domain, int type, int protocol) throws LastErrorException;

        static native int bind(int fd, byte[] addr, int len) throws LastErrorException;

        static native int setsockopt(int fd, int level, int name, byte[] value, int len) throws LastErrorException;

        static native long recvfrom(int fd, byte[] buf, long len, int flags, byte[] addr, int[] addrLen) throws LastErrorException;

        static native long send(int fd, byte[] buf, long len, int flags) throws LastErrorException;

        static native int if_nametoindex(String name);

        static native int close(int fd);
    }

    public final String name;
    private final int fd;
    private final byte[] buffer = new byte[MAX_FRAME];
    private final byte[] from = new byte[20];
    private volatile boolean closed;

    private RawSocket(String name, int fd) {
        this.name = name;
        this.fd = fd;
    }

    /** Opens the interface; {@code receive} waits at most {@code timeoutMs} for a frame. */
    public static RawSocket open(String name, int timeoutMs) throws IOException {
        int ifindex = LibC.if_nametoindex(name);
        if (ifindex == 0) {
            throw new IOException("no network interface " + name);
        }
        int fd;
        try {
            fd = LibC.socket(AF_PACKET, SOCK_RAW, 0);   // receives nothing until bound to the interface
        } catch (LastErrorException e) {
            throw new IOException("cannot open a packet socket on " + name + " (errno " + e.getErrorCode()
                    + "; the agent needs root or CAP_NET_RAW)");
        }
        try {
            ByteBuffer ll = ByteBuffer.allocate(20).order(ByteOrder.nativeOrder());
            ll.putShort((short) AF_PACKET).order(ByteOrder.BIG_ENDIAN).putShort((short) ETH_P_ALL)
                    .order(ByteOrder.nativeOrder()).putInt(ifindex);
            LibC.bind(fd, ll.array(), 20);
            ByteBuffer tv = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
            tv.putLong(timeoutMs / 1000).putLong((timeoutMs % 1000) * 1000L);
            LibC.setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, tv.array(), 16);
        } catch (LastErrorException e) {
            LibC.close(fd);
            throw new IOException("cannot bind a packet socket to " + name + " (errno " + e.getErrorCode() + ")");
        }
        return new RawSocket(name, fd);
    }

    /** The next frame that arrived on the interface, or null after the timeout (or once closed). */
    public byte[] receive() throws IOException {
        while (!closed) {
            int[] len = {from.length};
            long n;
            try {
                n = LibC.recvfrom(fd, buffer, buffer.length, 0, from, len);
            } catch (LastErrorException e) {
                if (e.getErrorCode() == EAGAIN || e.getErrorCode() == EINTR) {
                    return null;
                }
                if (closed) {
                    return null;
                }
                throw new IOException("receiving on " + name + " failed (errno " + e.getErrorCode() + ")");
            }
            if ((from[10] & 0xff) == PACKET_OUTGOING) {
                continue;
            }
            return Arrays.copyOf(buffer, (int) n);
        }
        return null;
    }

    public void send(byte[] frame) throws IOException {
        try {
            LibC.send(fd, frame, frame.length, 0);
        } catch (LastErrorException e) {
            throw new IOException("sending " + frame.length + " bytes on " + name + " failed (errno " + e.getErrorCode() + ")");
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            LibC.close(fd);
        }
    }
}
