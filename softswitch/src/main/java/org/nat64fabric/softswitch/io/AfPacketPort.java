package org.nat64fabric.softswitch.io;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.ObjIntConsumer;
import org.nat64fabric.softswitch.server.Device;

/**
 * A switch port on a Linux interface: an AF_PACKET socket with PACKET_MMAP receive and transmit
 * rings (TPACKET_V2), so that frames move without a system call each: the kernel fills receive
 * frames in shared memory, and one send() flushes every transmit frame queued since the last one.
 */
public final class AfPacketPort implements Device.Port, AutoCloseable {
    private static final int FRAME_SIZE = 4096;          // one page: frames up to FRAME_SIZE - 32 bytes
    private static final int BLOCK_SIZE = 1 << 16;
    private static final int BLOCKS = 64;                // 1024 frames, 4 MiB per ring
    private static final int FRAMES = BLOCK_SIZE / FRAME_SIZE * BLOCKS;
    private static final long RING_BYTES = (long) BLOCK_SIZE * BLOCKS;
    private static final int TX_DATA_OFFSET = 32;        // TPACKET2_HDRLEN - sizeof(struct sockaddr_ll)
    private static final int TP_STATUS_USER = 1;
    private static final int TP_STATUS_SEND_REQUEST = 1;
    private static final int TP_STATUS_WRONG_FORMAT = 4;

    public final String name;
    public final int number;
    final int fd;
    private final Pointer rings;
    // The rings as direct buffers: plain memory reads and writes, no native call per access.
    private final ByteBuffer rx;
    private final ByteBuffer tx;
    private final Device device;
    private int rxIndex;
    private int txIndex;
    private boolean txPending;

    /** Opens the interface, puts it in promiscuous mode and maps its rings; IOException says why not. */
    public AfPacketPort(String name, int number, Device device) throws IOException {
        this.name = name;
        this.number = number;
        this.device = device;
        int ifindex = LibC.if_nametoindex(name);
        if (ifindex == 0) {
            throw new IOException("interface " + name + " does not exist (see 'ip link')");
        }
        int s;
        try {
            // Protocol 0 until bind(): opened for ETH_P_ALL, the socket would take every interface's
            // frames into its ring until it is bound to this one.
            s = LibC.socket(LibC.AF_PACKET, LibC.SOCK_RAW, 0);
        } catch (LastErrorException e) {
            throw new IOException("cannot open a packet socket for " + name + ": " + LibC.strerror(e.getErrorCode())
                    + " (softswitch run needs root or CAP_NET_RAW)");
        }
        this.fd = s;
        try {
            setInt(LibC.PACKET_VERSION, LibC.TPACKET_V2);
            byte[] req = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder())
                    .putInt(BLOCK_SIZE).putInt(BLOCKS).putInt(FRAME_SIZE).putInt(FRAMES).array();
            LibC.setsockopt(fd, LibC.SOL_PACKET, LibC.PACKET_RX_RING, req, req.length);
            LibC.setsockopt(fd, LibC.SOL_PACKET, LibC.PACKET_TX_RING, req, req.length);
            setInt(LibC.PACKET_QDISC_BYPASS, 1);
            setInt(LibC.PACKET_IGNORE_OUTGOING, 1);
            rings = LibC.mmap(null, 2 * RING_BYTES, LibC.PROT_READ_WRITE, LibC.MAP_SHARED, fd, 0);
            rx = rings.getByteBuffer(0, RING_BYTES).order(ByteOrder.nativeOrder());
            tx = rings.getByteBuffer(RING_BYTES, RING_BYTES).order(ByteOrder.nativeOrder());
            byte[] mreq = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder())
                    .putInt(ifindex).putShort((short) LibC.PACKET_MR_PROMISC).array();
            LibC.setsockopt(fd, LibC.SOL_PACKET, LibC.PACKET_ADD_MEMBERSHIP, mreq, mreq.length);
            byte[] sll = ByteBuffer.allocate(20).order(ByteOrder.nativeOrder())
                    .putShort((short) LibC.AF_PACKET).putShort((short) LibC.ETH_P_ALL_BE).putInt(ifindex).array();
            LibC.bind(fd, sll, sll.length);
        } catch (LastErrorException e) {
            LibC.close(fd);
            throw new IOException("cannot set up " + name + ": " + LibC.strerror(e.getErrorCode()));
        }
    }

    private void setInt(int option, int value) {
        byte[] v = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(value).array();
        LibC.setsockopt(fd, LibC.SOL_PACKET, option, v, v.length);
    }

    /** Hands up to {@code max} received frames to {@code sink}; returns how many there were. */
    int receive(int max, ObjIntConsumer<byte[]> sink) {
        int n = 0;
        while (n < max) {
            int off = rxIndex * FRAME_SIZE;
            if ((rx.getInt(off) & TP_STATUS_USER) == 0) {
                break;
            }
            int len = rx.getInt(off + 4);
            int snap = rx.getInt(off + 8);
            int mac = rx.getShort(off + 12) & 0xffff;   // tp_mac
            byte[] frame = new byte[snap];
            rx.position(off + mac);
            rx.get(frame);   // receive() runs on the data-plane thread only
            rx.putInt(off, 0);   // back to the kernel
            rxIndex = (rxIndex + 1) % FRAMES;
            n++;
            if (snap < len) {
                device.count("drop: frame larger than " + (FRAME_SIZE - mac) + " bytes on port " + number);
                continue;
            }
            sink.accept(frame, number);
        }
        return n;
    }

    /** Queues a frame in the transmit ring; {@link #flush()} sends what is queued. */
    @Override
    public synchronized void send(byte[] frame) {
        if (frame.length > FRAME_SIZE - TX_DATA_OFFSET) {
            device.count("drop: frame too large to send on port " + number);
            return;
        }
        int off = txIndex * FRAME_SIZE;
        int status = tx.getInt(off);
        if (status == TP_STATUS_WRONG_FORMAT) {
            device.count("tx: frame refused by the kernel on port " + number);
        } else if (status != 0) {
            flush();   // the ring is full: let the kernel drain it, then look once more
            if (tx.getInt(off) != 0) {
                device.count("drop: transmit ring full on port " + number);
                return;
            }
        }
        tx.position(off + TX_DATA_OFFSET);
        tx.put(frame);
        tx.putInt(off + 4, frame.length);
        tx.putInt(off, TP_STATUS_SEND_REQUEST);
        txIndex = (txIndex + 1) % FRAMES;
        txPending = true;
    }

    /** Asks the kernel to send every queued frame. */
    @Override
    public synchronized void flush() {
        if (txPending) {
            txPending = false;
            LibC.send(fd, null, 0, LibC.MSG_DONTWAIT);
        }
    }

    @Override
    public void close() {
        LibC.munmap(rings, 2 * RING_BYTES);
        LibC.close(fd);
    }

    static Memory pollFds(AfPacketPort[] ports) {
        Memory m = new Memory(8L * Math.max(1, ports.length));   // poll() with no ports just waits
        for (int i = 0; i < ports.length; i++) {
            m.setInt(8L * i, ports[i].fd);
            m.setShort(8L * i + 4, LibC.POLLIN);
            m.setShort(8L * i + 6, (short) 0);
        }
        return m;
    }
}
