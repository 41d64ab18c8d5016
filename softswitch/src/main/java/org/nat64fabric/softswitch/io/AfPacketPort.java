package org.nat64fabric.softswitch.io;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.nat64fabric.softswitch.ebpf.FastPath;
import org.nat64fabric.softswitch.ebpf.KernelProgram;
import org.nat64fabric.softswitch.server.Device;

/**
 * A switch port on a Linux interface: AF_PACKET sockets, so that frames move without a system
 * call each. The kernel fills receive frames in a PACKET_MMAP ring (TPACKET_V2) in shared memory;
 * transmit frames are queued in native memory and sent by one sendmmsg() for all queued since the
 * last, on a socket of their own (bound with protocol 0, so it receives nothing). Not a transmit
 * ring: the kernel sends a ring's frames from the ring's pages, and a veth peer's receive path
 * (its IP and TCP, in the sending thread) then copies each one into a page it allocates
 * ({@code skb_copy_ubufs}); sendmmsg() copies each frame once, into the packet it makes.
 *
 * <p>Queueing ({@link #send}) and flushing ({@link #flush}) hold different locks, so that one thread
 * can queue frames while another is in the kernel sending earlier ones ({@link Transmitter}): a
 * send on a veth also runs the peer's receive path, a third of the data-plane thread's time when
 * it did both. A thread that holds both takes the port's lock first.
 */
public final class AfPacketPort implements Device.Port, AutoCloseable {
    private static final int FRAME_SIZE = 4096;          // a receive ring frame (one page) and a transmit slot
    private static final int BLOCK_SIZE = 1 << 16;
    private static final int BLOCKS = 64;                // 1024 frames, 4 MiB per ring
    private static final int FRAMES = BLOCK_SIZE / FRAME_SIZE * BLOCKS;
    private static final long RING_BYTES = (long) BLOCK_SIZE * BLOCKS;
    /** Transmit frames queued at most (sendmmsg() takes up to 1024 at a time), each in a slot of FRAME_SIZE bytes. */
    private static final int TX_SLOTS = 1024;
    /** struct mmsghdr (a struct msghdr, then msg_len) and struct iovec on a 64-bit Linux. */
    private static final int MMSGHDR_SIZE = 64;
    private static final int MSG_IOV = 16;
    private static final int MSG_IOVLEN = 24;
    private static final int IOVEC_SIZE = 16;
    /** ENOBUFS for one frame this many times in a row (flushes 1 ms apart): the device never takes it. */
    private static final int DEVICE_DROPS = 3;
    private static final int TP_STATUS_USER = 1;
    /** Set on a received frame when the kernel dropped frames for this socket since the statistics were last read. */
    private static final int TP_STATUS_LOSING = 1 << 2;
    private static final int TP_STATUS_VLAN_VALID = 1 << 4;
    private static final int TP_STATUS_VLAN_TPID_VALID = 1 << 6;
    private static final int ETH_P_8021Q = 0x8100;
    private static final int VLAN_TAG = 4;
    private static final int MAC_ADDRESSES = 12;
    private static final int ETH_HEADER = 14;
    private static final long MTU_REFRESH_NS = 1_000_000_000L;

    public final String name;
    public final int number;
    /** The receive socket, the one PacketLoop polls. */
    final int fd;
    private final int ifindex;
    private final Pointer rxRing;
    // The ring as a direct buffer: plain memory reads and writes, no native call per access.
    private final ByteBuffer rx;
    /** The frame being handed up, reused frame after frame (receive() runs on the data-plane thread only). */
    private final byte[] rxFrame = new byte[FRAME_SIZE + VLAN_TAG];
    private final Device device;
    private final PortDrops drops;
    private int rxIndex;
    /**
     * A fast path at TC has handed frames up on this port: receive() takes their header off
     * (KernelProgram.HANDED_UP_HEAD). It stays set when the program is detached, as frames handed
     * up before may still wait in the ring or in the kernel's backlog.
     */
    private volatile boolean handedUpHere;
    /** Held by flush(), which alone calls sendmmsg() and moves {@link #txHead}. */
    private final Object flushLock = new Object();
    /** Wakes the transmit thread that owns this port, so that frames a failed flush left queued are tried again soon. */
    private volatile Runnable retrySoon = () -> { };
    private final int txFd;
    /** The queued frames' bytes, slot after slot, and each slot's mmsghdr and iovec, filled in once. */
    private final Memory txFrames;
    private final Memory txMessages;
    private final Memory txVectors;
    private final ByteBuffer txBytes;
    private final ByteBuffer txLengths;
    /**
     * Frames queued so far and frames sent (or refused) so far: the frames in between wait in
     * their slots (frame n in slot n % TX_SLOTS). The port's lock moves the tail, flush() the head;
     * each is published after the slots it covers are written or read.
     */
    private volatile long txTail;
    private volatile long txHead;
    /** Frames were queued since flush() last took this flag. */
    private final AtomicBoolean txPending = new AtomicBoolean();
    private int mtu;
    private long mtuReadNanos;
    /** errno of the last sendmmsg() that failed, 0 after one that succeeded. */
    private volatile int lastSendError;
    /** The frame the last ENOBUFS came back for, and how many times in a row; only flush() uses them. */
    private long droppedHead = -1;
    private int droppedTimes;
    /** Set by close(), under both locks. */
    private boolean closed;

    /** Opens the interface, puts it in promiscuous mode and maps its receive ring; IOException says why not. */
    public AfPacketPort(String name, int number, Device device) throws IOException {
        this.name = name;
        this.number = number;
        this.device = device;
        this.drops = new PortDrops(device, number, name, System::nanoTime);
        this.ifindex = LibC.if_nametoindex(name);
        if (ifindex == 0) {
            throw new IOException("interface " + name + " does not exist (see 'ip link')");
        }
        txFrames = new Memory((long) TX_SLOTS * FRAME_SIZE);   // before the sockets: nothing to close if it fails
        txMessages = new Memory((long) TX_SLOTS * MMSGHDR_SIZE);
        txVectors = new Memory((long) TX_SLOTS * IOVEC_SIZE);
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
            setInt(fd, LibC.SOL_PACKET, LibC.PACKET_VERSION, LibC.TPACKET_V2);
            setRing(fd, LibC.PACKET_RX_RING);
            setInt(fd, LibC.SOL_PACKET, LibC.PACKET_IGNORE_OUTGOING, 1);
            ring = LibC.mmap(null, RING_BYTES, LibC.PROT_READ_WRITE, LibC.MAP_SHARED, fd, 0);
            byte[] mreq = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder())
                    .putInt(ifindex).putShort((short) LibC.PACKET_MR_PROMISC).array();
            LibC.setsockopt(fd, LibC.SOL_PACKET, LibC.PACKET_ADD_MEMBERSHIP, mreq, mreq.length);
            bind(fd, LibC.ETH_P_ALL_BE);
            mtu = readMtu();
            mtuReadNanos = System.nanoTime();
            txFd = openTx();
        } catch (LastErrorException e) {
            if (ring != null) {
                LibC.munmap(ring, RING_BYTES);
            }
            LibC.close(fd);
            throw new IOException("cannot set up " + name + ": " + LibC.strerror(e.getErrorCode()));
        }
        rxRing = ring;
        rx = ring.getByteBuffer(0, RING_BYTES).order(ByteOrder.nativeOrder());
        txMessages.clear();
        for (int i = 0; i < TX_SLOTS; i++) {
            txVectors.setPointer((long) i * IOVEC_SIZE, txFrames.share((long) i * FRAME_SIZE));
            txMessages.setPointer((long) i * MMSGHDR_SIZE + MSG_IOV, txVectors.share((long) i * IOVEC_SIZE));
            txMessages.setLong((long) i * MMSGHDR_SIZE + MSG_IOVLEN, 1);
        }
        txBytes = txFrames.getByteBuffer(0, (long) TX_SLOTS * FRAME_SIZE);
        txLengths = txVectors.getByteBuffer(0, (long) TX_SLOTS * IOVEC_SIZE).order(ByteOrder.nativeOrder());
    }

    /** The transmit socket: bound with protocol 0, so that it receives nothing. */
    private int openTx() {
        int s = LibC.socket(LibC.AF_PACKET, LibC.SOCK_RAW, 0);
        try {
            setInt(s, LibC.SOL_PACKET, LibC.PACKET_QDISC_BYPASS, 1);
            // Room for a whole queue in flight: a NIC holds the send buffer until its frames are on
            // the wire, and with the default (some 200 KiB) a full queue would wait on EAGAIN.
            try {
                setInt(s, LibC.SOL_SOCKET, LibC.SO_SNDBUFFORCE, TX_SLOTS * FRAME_SIZE);
            } catch (LastErrorException e) {
                setInt(s, LibC.SOL_SOCKET, LibC.SO_SNDBUF, TX_SLOTS * FRAME_SIZE);   // without CAP_NET_ADMIN: up to wmem_max
            }
            bind(s, 0);
            return s;
        } catch (LastErrorException e) {
            LibC.close(s);
            throw e;
        }
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

    private static void setInt(int socket, int level, int option, int value) {
        byte[] v = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(value).array();
        LibC.setsockopt(socket, level, option, v, v.length);
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
            if ((status & TP_STATUS_LOSING) != 0) {
                countReceiveDrops();
            }
            int len = rx.getInt(off + 4);
            int snap = rx.getInt(off + 8);
            int mac = rx.getShort(off + 12) & 0xffff;   // tp_mac
            int from = off + mac;
            int head = handedUpHere && isHandedUp(from, snap) ? KernelProgram.HANDED_UP_HEAD : 0;
            int length;
            if (head > 0 && rx.get(from + 1) != 0) {   // the tag, in the header of a frame handed up
                length = copyWithVlanTag(from + head, snap - head, bigEndianShort(from + 2), bigEndianShort(from + 4));
            } else if (head == 0 && (status & TP_STATUS_VLAN_VALID) != 0) {   // the tag, beside the frame in the ring
                int tpid = (status & TP_STATUS_VLAN_TPID_VALID) != 0 ? rx.getShort(off + 26) & 0xffff : ETH_P_8021Q;
                length = copyWithVlanTag(from, snap, tpid, rx.getShort(off + 24) & 0xffff);
            } else {
                length = copy(from + head, snap - head);
            }
            rx.putInt(off, 0);   // back to the kernel
            rxIndex = (rxIndex + 1) % FRAMES;
            n++;
            if (snap < len) {
                drops.drop("rx larger than a ring frame", () -> (len - head) + " bytes, at most " + (FRAME_SIZE - mac - head));
                continue;
            }
            sink.frame(rxFrame, length, number);
        }
        return n;
    }

    /**
     * Counts the frames the kernel could not put in the receive ring (it was full: the data-plane
     * thread fell behind) since the last call: reading PACKET_STATISTICS resets the kernel's count.
     */
    private void countReceiveDrops() {
        byte[] stats = new byte[8];   // struct tpacket_stats: tp_packets, tp_drops
        int[] len = {stats.length};
        LibC.getsockopt(fd, LibC.SOL_PACKET, LibC.PACKET_STATISTICS, stats, len);
        long dropped = ByteBuffer.wrap(stats).order(ByteOrder.nativeOrder()).getInt(4) & 0xffffffffL;
        if (dropped > 0) {
            drops.drop("rx ring full", dropped, () -> "the switch took frames in slower than they came, "
                    + FRAMES + " frames queued at most");
        }
    }

    /**
     * Whether the frame at {@code from} came with the header of a frame handed up at TC, whatever
     * the socket is bound to now: frames taken before a rebind may still wait in the ring. (So on a
     * port that has had a fast path at TC, that header's source address is softswitch's own.)
     */
    private boolean isHandedUp(int from, int snap) {
        int mark = KernelProgram.HANDED_UP_MARK;
        return snap >= KernelProgram.HANDED_UP_HEAD + MAC_ADDRESSES && bigEndianShort(from + 12) == KernelProgram.HANDED_UP_TYPE
                && rx.get(from + 6) == 0x02 && rx.get(from + 7) == (byte) (mark >>> 24) && rx.get(from + 8) == (byte) (mark >>> 16)
                && rx.get(from + 9) == (byte) (mark >>> 8) && rx.get(from + 10) == (byte) mark && rx.get(from + 11) == 0;
    }

    private int bigEndianShort(int at) {
        return (rx.get(at) & 0xff) << 8 | rx.get(at + 1) & 0xff;
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
    private int copyWithVlanTag(int from, int snap, int tpid, int tci) {
        if (snap < MAC_ADDRESSES) {
            return copy(from, snap);
        }
        rx.get(from, rxFrame, 0, MAC_ADDRESSES);
        ByteBuffer.wrap(rxFrame, MAC_ADDRESSES, VLAN_TAG).putShort((short) tpid).putShort((short) tci);
        rx.get(from + MAC_ADDRESSES, rxFrame, MAC_ADDRESSES + VLAN_TAG, snap - MAC_ADDRESSES);
        return snap + VLAN_TAG;
    }

    /**
     * Queues a frame; {@link #flush()} sends what is queued. A frame the link cannot carry (larger
     * than its MTU plus the Ethernet header) is dropped and counted here, so that the kernel never
     * sees it.
     */
    @Override
    public synchronized void send(byte[] frame, int length) {
        if (closed) {
            return;
        }
        int mtu = mtu();
        if (length > maxFrameLength(frame, length, mtu)) {
            drops.drop("tx oversize", () -> length + "-byte frame, MTU " + mtu);
            return;
        }
        if (length > FRAME_SIZE) {
            drops.drop("tx larger than a ring frame", () -> length + " bytes, at most " + FRAME_SIZE);
            return;
        }
        long tail = txTail;
        if (tail - txHead == TX_SLOTS) {
            transmit();   // every slot is queued: have the kernel take them now, on this thread
            if (tail - txHead == TX_SLOTS) {
                txPending.set(true);
                drops.drop("tx ring full", () -> lastSendError == 0 ? "the link is slower than the traffic"
                        : "last send error: " + LibC.strerror(lastSendError));
                return;
            }
        }
        int slot = (int) (tail % TX_SLOTS);
        txBytes.put(slot * FRAME_SIZE, frame, 0, length);
        txLengths.putLong(slot * IOVEC_SIZE + 8, length);   // iov_len
        txTail = tail + 1;   // volatile: the frame is whole before flush() may send it
        txPending.set(true);
    }

    /** Whether frames were queued since the last flush(). */
    boolean hasPending() {
        return txPending.get();
    }

    /** For the kernel fast path: this interface, and a way to bind this socket to the frames a fast path at TC hands up. */
    @Override public FastPath.Port kernelPort(int portNumber) {
        return new FastPath.Port(portNumber, name, ifindex, LinkPeer.vethPeerInAnotherNamespace(ifindex), this::takeOnlyHandedUp);
    }

    /**
     * With true, binds the receiving socket to KernelProgram.HANDED_UP_TYPE alone, which the kernel
     * serves after the TC hook: the socket takes only the frames a fast path at TC hands up. With
     * false, to every EtherType again. The ring keeps the frames taken before.
     */
    private void takeOnlyHandedUp(boolean only) {
        synchronized (this) {
            if (closed) {
                return;
            }
            handedUpHere |= only;
            bind(fd, only ? Short.reverseBytes((short) KernelProgram.HANDED_UP_TYPE) & 0xffff : LibC.ETH_P_ALL_BE);
        }
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
        byte[] ifreq = ifreq();
        LibC.ioctl(fd, LibC.SIOCGIFMTU, ifreq);
        return ByteBuffer.wrap(ifreq, LibC.IFNAMSIZ, 4).order(ByteOrder.nativeOrder()).getInt();
    }

    /** Up, and running: its link has a carrier (a veth whose peer is down has none). Gone: down. */
    @Override
    public boolean isUp() {
        byte[] ifreq = ifreq();
        try {
            LibC.ioctl(fd, LibC.SIOCGIFFLAGS, ifreq);
        } catch (LastErrorException e) {
            return false;
        }
        int flags = ByteBuffer.wrap(ifreq, LibC.IFNAMSIZ, 2).order(ByteOrder.nativeOrder()).getShort();
        int both = LibC.IFF_UP | LibC.IFF_RUNNING;
        return (flags & both) == both;
    }

    /** A struct ifreq naming this port's interface. */
    private byte[] ifreq() {
        byte[] ifreq = new byte[LibC.IFREQ_SIZE];
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(n, 0, ifreq, 0, Math.min(n.length, LibC.IFNAMSIZ - 1));
        return ifreq;
    }

    /**
     * Sends every queued frame. A frame the kernel refuses (the MTU shrank since it was last read,
     * or any other errno that is not about the moment) is counted with the kernel's reason and the
     * frames behind it go on; after an error of the moment (no buffer, the link down) the frames
     * stay queued for the next flush. A frame the device drops {@value #DEVICE_DROPS} times in a
     * row (ENOBUFS each time: a veth whose peer's MTU is smaller, say) is counted as refused too.
     */
    @Override
    public void flush() {
        if (!transmit()) {
            retrySoon.run();   // a packet-out's flush: its thread does not come back to try again
        }
    }

    /** {@code wake}: how {@link #flush()} has the transmit thread try failed sends again. */
    void retryFailedFlushesWith(Runnable wake) {
        retrySoon = wake;
    }

    /**
     * {@link #flush()}; false when frames stay queued after an error (the caller tries again later).
     * Sends what was queued when it began, so that a busy port does not keep the caller from the
     * others; frames queued meanwhile have set {@link #txPending} again.
     */
    boolean transmit() {
        synchronized (flushLock) {
            if (!txPending.getAndSet(false) || closed) {
                return true;
            }
            long end = txTail;
            while (true) {
                long head = txHead;
                if (head == end) {
                    return true;
                }
                int slot = (int) (head % TX_SLOTS);
                int count = (int) Math.min(end - head, TX_SLOTS - slot);   // the slots up to the end, then from the first
                try {
                    int sent = LibC.sendmmsg(txFd, txMessages.share((long) slot * MMSGHDR_SIZE), count, LibC.MSG_DONTWAIT);
                    txHead = head + sent;   // a failure after the first frame is answered by the next call
                    lastSendError = 0;
                } catch (LastErrorException e) {
                    int errno = e.getErrorCode();
                    lastSendError = errno;
                    if (ofTheMoment(errno, head)) {
                        txPending.set(true);
                        return false;
                    }
                    drops.drop("tx refused by the kernel", () -> LibC.strerror(errno) + " (errno " + errno + ")");
                    txHead = head + 1;
                }
            }
        }
    }

    /** Whether the error that frame {@code head} met may pass: the frame stays queued. */
    private boolean ofTheMoment(int errno, long head) {
        if (errno == LibC.ENOBUFS) {   // the device dropped the frame: its queue was full, or it never takes this one
            droppedTimes = head == droppedHead ? droppedTimes + 1 : 1;
            droppedHead = head;
            return droppedTimes < DEVICE_DROPS;
        }
        return errno == LibC.EAGAIN || errno == LibC.ENOMEM || errno == LibC.EINTR || errno == LibC.ENETDOWN;
    }

    @Override
    public void close() {
        synchronized (this) {
            synchronized (flushLock) {
                closed = true;
                countReceiveDrops();   // those no later frame was marked for
                LibC.close(txFd);
                LibC.munmap(rxRing, RING_BYTES);
                LibC.close(fd);
                txFrames.close();
                txMessages.close();
                txVectors.close();
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
