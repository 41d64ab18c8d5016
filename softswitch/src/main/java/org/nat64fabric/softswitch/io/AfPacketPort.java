package org.nat64fabric.softswitch.io;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.nat64fabric.softswitch.ebpf.FastPath;
import org.nat64fabric.softswitch.server.Device;

/**
 * A switch port on a Linux interface: AF_PACKET sockets with PACKET_MMAP rings (TPACKET_V2), so
 * that frames move without a system call each: the kernel fills receive frames in shared memory,
 * and one send() flushes every transmit frame queued since the last one. Transmit has a socket of
 * its own, so that it can be opened afresh without losing received frames (see {@link #flush()}).
 *
 * <p>Queueing ({@link #send}) and flushing ({@link #flush}) hold different locks, so that one thread
 * can queue frames while another is in the kernel sending earlier ones ({@link Transmitter}): a
 * send() on a veth also runs the peer's receive path (its IP and TCP), a third of the data-plane
 * thread's time when it did both. Only flush() opens and closes the transmit socket after the
 * constructor, under both locks.
 */
public final class AfPacketPort implements Device.Port, AutoCloseable {
    private static final int FRAME_SIZE = 4096;          // one page: frames up to FRAME_SIZE - 32 bytes
    private static final int BLOCK_SIZE = 1 << 16;
    private static final int BLOCKS = 64;                // 1024 frames, 4 MiB per ring
    private static final int FRAMES = BLOCK_SIZE / FRAME_SIZE * BLOCKS;
    private static final long RING_BYTES = (long) BLOCK_SIZE * BLOCKS;
    private static final int TX_DATA_OFFSET = 32;        // TPACKET2_HDRLEN - sizeof(struct sockaddr_ll)
    private static final int TP_STATUS_USER = 1;
    private static final int TP_STATUS_AVAILABLE = 0;
    private static final int TP_STATUS_SEND_REQUEST = 1;
    private static final int TP_STATUS_WRONG_FORMAT = 4;
    private static final int TP_STATUS_VLAN_VALID = 1 << 4;
    private static final int TP_STATUS_VLAN_TPID_VALID = 1 << 6;
    private static final int ETH_P_8021Q = 0x8100;
    private static final int VLAN_TAG = 4;
    private static final int MAC_ADDRESSES = 12;
    /** Where a classic BPF filter loads the skb's mark from (linux/filter.h). */
    private static final int SKF_AD_OFF = -0x1000;
    private static final int SKF_AD_MARK = 20;
    private static final int ETH_HEADER = 14;
    private static final long MTU_REFRESH_NS = 1_000_000_000L;
    /** A ring frame's status word, read and written with the ordering a concurrent flush() needs. */
    private static final VarHandle STATUS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    public final String name;
    public final int number;
    /** The receive socket, the one PacketLoop polls. */
    final int fd;
    private final int ifindex;
    private final Pointer rxRing;
    // The rings as direct buffers: plain memory reads and writes, no native call per access.
    private final ByteBuffer rx;
    /** The frame being handed up, reused frame after frame (receive() runs on the data-plane thread only). */
    private final byte[] rxFrame = new byte[FRAME_SIZE + VLAN_TAG];
    private final Device device;
    private final TxDrops drops;
    private int rxIndex;
    /** Held by flush(), which alone calls send() and replaces the transmit socket (then under this too). */
    private final Object flushLock = new Object();
    private volatile int txFd = -1;
    private Pointer txRing;
    private volatile ByteBuffer tx;
    private int txIndex;
    /** Frames were queued since flush() last took this flag. */
    private final AtomicBoolean txPending = new AtomicBoolean();
    private int mtu;
    private long mtuReadNanos;
    /** errno of the last send() that failed, 0 after one that succeeded. */
    private volatile int lastSendError;
    /**
     * A send() of a full ring's (in send(), not flush()) failed: the kernel may have refused a frame
     * and then stops at it, answering later send()s with success; flush() looks for it.
     */
    private volatile boolean kickFailed;
    /** Set by close(): flush() no longer opens a transmit socket. */
    private boolean closed;

    /** Opens the interface, puts it in promiscuous mode and maps its rings; IOException says why not. */
    public AfPacketPort(String name, int number, Device device) throws IOException {
        this.name = name;
        this.number = number;
        this.device = device;
        this.drops = new TxDrops(device, number, name, System::nanoTime);
        this.ifindex = LibC.if_nametoindex(name);
        if (ifindex == 0) {
            throw new IOException("interface " + name + " does not exist (see 'ip link')");
        }
        try {
            // Protocol 0 until bind(): opened for ETH_P_ALL, the socket would take every interface's
            // frames into its ring until it is bound to this one.
            fd = LibC.socket(LibC.AF_PACKET, LibC.SOCK_RAW, 0);
        } catch (LastErrorException e) {
            throw new IOException("cannot open a packet socket for " + name + ": " + LibC.strerror(e.getErrorCode())
                    + " (softswitch run needs root or CAP_NET_RAW)");
        }
        Pointer ring = null;
        try {
            setInt(fd, LibC.PACKET_VERSION, LibC.TPACKET_V2);
            setRing(fd, LibC.PACKET_RX_RING);
            setInt(fd, LibC.PACKET_IGNORE_OUTGOING, 1);
            ring = LibC.mmap(null, RING_BYTES, LibC.PROT_READ_WRITE, LibC.MAP_SHARED, fd, 0);
            byte[] mreq = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder())
                    .putInt(ifindex).putShort((short) LibC.PACKET_MR_PROMISC).array();
            LibC.setsockopt(fd, LibC.SOL_PACKET, LibC.PACKET_ADD_MEMBERSHIP, mreq, mreq.length);
            bind(fd, LibC.ETH_P_ALL_BE);
            mtu = readMtu();
            mtuReadNanos = System.nanoTime();
            openTx();
        } catch (LastErrorException e) {
            if (ring != null) {
                LibC.munmap(ring, RING_BYTES);
            }
            LibC.close(fd);
            throw new IOException("cannot set up " + name + ": " + LibC.strerror(e.getErrorCode()));
        }
        rxRing = ring;
        rx = ring.getByteBuffer(0, RING_BYTES).order(ByteOrder.nativeOrder());
    }

    /** A transmit socket with an empty ring; bound with protocol 0, so that it receives nothing. */
    private void openTx() {
        int s = LibC.socket(LibC.AF_PACKET, LibC.SOCK_RAW, 0);
        try {
            setInt(s, LibC.PACKET_VERSION, LibC.TPACKET_V2);
            setRing(s, LibC.PACKET_TX_RING);
            setInt(s, LibC.PACKET_QDISC_BYPASS, 1);
            Pointer ring = LibC.mmap(null, RING_BYTES, LibC.PROT_READ_WRITE, LibC.MAP_SHARED, s, 0);
            bind(s, 0);
            txFd = s;
            txRing = ring;
            tx = ring.getByteBuffer(0, RING_BYTES).order(ByteOrder.nativeOrder());
            txIndex = 0;
        } catch (LastErrorException e) {
            LibC.close(s);
            throw e;
        }
    }

    private void closeTx() {
        if (txRing != null) {
            LibC.munmap(txRing, RING_BYTES);
            LibC.close(txFd);
        }
        txRing = null;
        tx = null;
        txFd = -1;
    }

    private void bind(int socket, int protocolBigEndian) {
        byte[] sll = ByteBuffer.allocate(20).order(ByteOrder.nativeOrder())
                .putShort((short) LibC.AF_PACKET).putShort((short) protocolBigEndian).putInt(ifindex).array();
        LibC.bind(socket, sll, sll.length);
    }

    private static void setRing(int socket, int option) {
        byte[] req = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder())
                .putInt(BLOCK_SIZE).putInt(BLOCKS).putInt(FRAME_SIZE).putInt(FRAMES).array();
        LibC.setsockopt(socket, LibC.SOL_PACKET, option, req, req.length);
    }

    private static void setInt(int socket, int option, int value) {
        byte[] v = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(value).array();
        LibC.setsockopt(socket, LibC.SOL_PACKET, option, v, v.length);
    }

    /** Takes a received frame: {@code frame}'s first {@code length} bytes, in a buffer reused for the next one. */
    interface Receiver {
        void frame(byte[] frame, int length, int port);
    }

    /** Hands up to {@code max} received frames to {@code sink}; returns how many there were. */
    int receive(int max, Receiver sink) {
        int n = 0;
        while (n < max) {
            int off = rxIndex * FRAME_SIZE;
            if ((rx.getInt(off) & TP_STATUS_USER) == 0) {
                break;
            }
            int status = rx.getInt(off);
            int len = rx.getInt(off + 4);
            int snap = rx.getInt(off + 8);
            int mac = rx.getShort(off + 12) & 0xffff;   // tp_mac
            int length = (status & TP_STATUS_VLAN_VALID) == 0 ? copy(off + mac, snap) : copyWithVlanTag(off, mac, snap);
            rx.putInt(off, 0);   // back to the kernel
            rxIndex = (rxIndex + 1) % FRAMES;
            n++;
            if (snap < len) {
                device.count("drop: frame larger than " + (FRAME_SIZE - mac) + " bytes on port " + number);
                continue;
            }
            sink.frame(rxFrame, length, number);
        }
        return n;
    }

    /** Copies a frame out of the ring into {@link #rxFrame}; returns its length. */
    private int copy(int from, int length) {
        rx.get(from, rxFrame, 0, length);
        return length;
    }

    /**
     * The frame as it was on the wire: the kernel takes an 802.1Q/802.1ad tag out of the frame and
     * hands it beside it (tp_vlan_tci, tp_vlan_tpid), so a program that parses VLANs would never see one.
     */
    private int copyWithVlanTag(int off, int mac, int snap) {
        int status = rx.getInt(off);
        int tci = rx.getShort(off + 24) & 0xffff;
        int tpid = (status & TP_STATUS_VLAN_TPID_VALID) != 0 ? rx.getShort(off + 26) & 0xffff : ETH_P_8021Q;
        if (snap < MAC_ADDRESSES) {
            return copy(off + mac, snap);
        }
        rx.get(off + mac, rxFrame, 0, MAC_ADDRESSES);
        ByteBuffer.wrap(rxFrame, MAC_ADDRESSES, VLAN_TAG).putShort((short) tpid).putShort((short) tci);
        rx.get(off + mac + MAC_ADDRESSES, rxFrame, MAC_ADDRESSES + VLAN_TAG, snap - MAC_ADDRESSES);
        return snap + VLAN_TAG;
    }

    /**
     * Queues a frame in the transmit ring; {@link #flush()} sends what is queued. A frame the link
     * cannot carry (larger than its MTU plus the Ethernet header) is dropped and counted here, so
     * that the kernel never sees it.
     */
    @Override
    public synchronized void send(byte[] frame, int length) {
        int mtu = mtu();
        if (length > maxFrameLength(frame, length, mtu)) {
            drops.drop("oversize", () -> length + "-byte frame, MTU " + mtu);
            return;
        }
        if (length > FRAME_SIZE - TX_DATA_OFFSET) {
            drops.drop("larger than a ring frame", () -> length + " bytes, at most " + (FRAME_SIZE - TX_DATA_OFFSET));
            return;
        }
        if (tx == null) {
            txPending.set(true);   // the next flush() opens one again
            drops.drop("no transmit socket", () -> LibC.strerror(lastSendError));
            return;
        }
        enqueue(frame, length);
    }

    /** Queues a frame's first {@code length} bytes; the caller holds this port's lock. */
    private void enqueue(byte[] frame, int length) {
        ByteBuffer tx = this.tx;
        int off = txIndex * FRAME_SIZE;
        if ((int) STATUS.getAcquire(tx, off) != TP_STATUS_AVAILABLE) {
            // The ring is full: let the kernel drain it, then look once more. A send() of its own,
            // not flush(): this thread holds the port's lock, which flush() may wait for. The kernel
            // serialises send()s on one socket; the socket stays open while this lock is held.
            try {
                LibC.send(txFd, null, 0, LibC.MSG_DONTWAIT);
            } catch (LastErrorException e) {
                lastSendError = e.getErrorCode();
                kickFailed = true;   // flush() finds a refused frame and steps over it
            }
            if ((int) STATUS.getAcquire(tx, off) != TP_STATUS_AVAILABLE) {
                txPending.set(true);
                drops.drop("ring full", () -> lastSendError == 0 ? "the link is slower than the traffic"
                        : "last send error: " + LibC.strerror(lastSendError));
                return;
            }
        }
        tx.put(off + TX_DATA_OFFSET, frame, 0, length);
        tx.putInt(off + 4, length);
        STATUS.setRelease(tx, off, TP_STATUS_SEND_REQUEST);   // the frame is whole before the kernel may take it
        txIndex = (txIndex + 1) % FRAMES;
        txPending.set(true);
    }

    /** Whether frames were queued since the last flush(). */
    boolean hasPending() {
        return txPending.get();
    }

    /** For the kernel fast path: this interface, and this socket's filter for a fast path at TC. */
    @Override public FastPath.Port kernelPort(int portNumber) {
        return new FastPath.Port(portNumber, name, ifindex, this::receiveOnlyMarked);
    }

    /**
     * From now on the socket takes only frames whose skb mark is {@code mark}; with 0, every
     * frame again. A classic BPF socket filter: load the mark, compare, accept the frame whole or
     * nothing.
     */
    private void receiveOnlyMarked(int mark) {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (mark == 0) {
                LibC.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_DETACH_FILTER, new byte[4], 4);
                return;
            }
            Memory filter = new Memory(4 * 8);
            filterLine(filter, 0, 0x20, 0, 0, SKF_AD_OFF + SKF_AD_MARK);   // ld mark
            filterLine(filter, 1, 0x15, 0, 1, mark);                       // jeq #mark, 0, 1
            filterLine(filter, 2, 0x06, 0, 0, 0xFFFFFFFF);                 // ret #whole frame
            filterLine(filter, 3, 0x06, 0, 0, 0);                          // ret #0: not for this socket
            Memory program = new Memory(16);   // struct sock_fprog: its length, then a pointer to the lines
            program.clear();
            program.setShort(0, (short) 4);
            program.setPointer(8, filter);
            LibC.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_ATTACH_FILTER, program, 16);
        }
    }

    private static void filterLine(Memory filter, int line, int code, int jumpTrue, int jumpFalse, int k) {
        filter.setShort(line * 8L, (short) code);
        filter.setByte(line * 8L + 2, (byte) jumpTrue);
        filter.setByte(line * 8L + 3, (byte) jumpFalse);
        filter.setInt(line * 8L + 4, k);
    }

    /** The longest frame the link carries: MTU + Ethernet header, + 4 for an 802.1Q tag (as the kernel allows). */
    static int maxFrameLength(byte[] frame, int length, int mtu) {
        boolean tagged = length >= ETH_HEADER + 4 && (frame[12] & 0xff) == 0x81 && frame[13] == 0;
        return mtu + ETH_HEADER + (tagged ? 4 : 0);
    }

    /** The interface's MTU, read again at most once per MTU_REFRESH_NS so that a change is seen soon. */
    int mtu() {
        long now = System.nanoTime();
        if (now - mtuReadNanos >= MTU_REFRESH_NS) {
            mtuReadNanos = now;
            try {
                mtu = readMtu();
            } catch (LastErrorException e) {
                // Keep the last value: the kernel still refuses what the link cannot carry, and that is counted too.
            }
        }
        return mtu;
    }

    private int readMtu() {
        byte[] ifreq = new byte[LibC.IFREQ_SIZE];
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(n, 0, ifreq, 0, Math.min(n.length, LibC.IFNAMSIZ - 1));
        LibC.ioctl(fd, LibC.SIOCGIFMTU, ifreq);
        return ByteBuffer.wrap(ifreq, LibC.IFNAMSIZ, 4).order(ByteOrder.nativeOrder()).getInt();
    }

    /**
     * Asks the kernel to send every queued frame. A frame it refuses, it marks
     * TP_STATUS_WRONG_FORMAT and stops there for good: no later send() passes it (only PACKET_LOSS,
     * which cannot be set once the ring exists, would skip refused frames, and silently). So the
     * refused frame is counted with the kernel's reason, and the frames behind it move to a fresh
     * transmit socket. Frames may be queued meanwhile: the send() runs without the port's lock.
     */
    @Override
    public void flush() {
        transmit();
    }

    /** {@link #flush()}; false when frames stay queued after an error (the caller tries again later). */
    boolean transmit() {
        synchronized (flushLock) {
            if (!txPending.getAndSet(false) || closed) {
                return true;
            }
            if (tx == null) {
                synchronized (this) {
                    return reopenTx();   // frames were dropped without a socket; the next ones get one if it opens
                }
            }
            while (true) {
                boolean failedBefore = kickFailed;
                kickFailed = false;
                try {
                    LibC.send(txFd, null, 0, LibC.MSG_DONTWAIT);
                    if (!failedBefore) {
                        lastSendError = 0;
                        return true;
                    }
                } catch (LastErrorException e) {
                    lastSendError = e.getErrorCode();
                }
                synchronized (this) {
                    if (!stepOverRefusedFrame()) {
                        return false;
                    }
                }
            }
        }
    }

    /** After a failed send(): moves the frames behind a refused one to a fresh socket; false when there is nothing to send. */
    private boolean stepOverRefusedFrame() {
        int slot = refusedSlot();
        if (slot < 0) {
            txPending.set(true);   // nothing refused (e.g. ENOBUFS): the frames stay queued, the next flush sends them
            return false;
        }
        drops.drop("refused by the kernel", () -> LibC.strerror(lastSendError) + " (errno " + lastSendError + ")");
        List<byte[]> behind = queuedAfter(slot);
        closeTx();
        if (!reopenTx()) {
            for (int i = 0; i < behind.size(); i++) {
                drops.drop("no transmit socket", () -> LibC.strerror(lastSendError));
            }
            return false;
        }
        behind.forEach(f -> enqueue(f, f.length));
        return true;
    }

    private boolean reopenTx() {
        try {
            openTx();
            return true;
        } catch (LastErrorException e) {
            lastSendError = e.getErrorCode();
            return false;
        }
    }

    private int refusedSlot() {
        for (int i = 0; i < FRAMES; i++) {
            if (tx.getInt(i * FRAME_SIZE) == TP_STATUS_WRONG_FORMAT) {
                return i;
            }
        }
        return -1;
    }

    /** Copies of the frames queued behind {@code slot} that the kernel has not taken yet, in order. */
    private List<byte[]> queuedAfter(int slot) {
        List<byte[]> frames = new ArrayList<>();
        for (int i = (slot + 1) % FRAMES; i != txIndex; i = (i + 1) % FRAMES) {
            int off = i * FRAME_SIZE;
            if (tx.getInt(off) == TP_STATUS_SEND_REQUEST) {
                byte[] frame = new byte[tx.getInt(off + 4)];
                tx.position(off + TX_DATA_OFFSET);
                tx.get(frame);
                frames.add(frame);
            }
        }
        return frames;
    }

    @Override
    public void close() {
        synchronized (flushLock) {
            synchronized (this) {
                closed = true;
                closeTx();
                LibC.munmap(rxRing, RING_BYTES);
                LibC.close(fd);
            }
        }
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
