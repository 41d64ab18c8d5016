package org.nat64fabric.softswitch.io;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/** The few C library calls packet I/O needs (JNA direct mapping). */
final class LibC {
    static final int AF_PACKET = 17;
    static final int SOCK_RAW = 3;
    static final int ETH_P_ALL_BE = 0x0300;     // htons(ETH_P_ALL) on a little-endian host
    static final int SOL_PACKET = 263;
    static final int PACKET_ADD_MEMBERSHIP = 1;
    static final int PACKET_MR_PROMISC = 1;
    static final int PACKET_RX_RING = 5;
    static final int PACKET_STATISTICS = 6;
    static final int PACKET_VERSION = 10;
    static final int PACKET_QDISC_BYPASS = 20;
    static final int PACKET_IGNORE_OUTGOING = 23;
    static final int SOL_SOCKET = 1;
    static final int SO_SNDBUF = 7;
    static final int SO_SNDBUFFORCE = 32;
    static final long SIOCGIFMTU = 0x8921;
    static final long SIOCGIFFLAGS = 0x8913;
    static final int IFF_UP = 0x1;
    static final int IFF_RUNNING = 0x40;
    static final int IFNAMSIZ = 16;
    static final int IFREQ_SIZE = 40;
    static final int TPACKET_V2 = 1;
    static final int PROT_READ_WRITE = 3;
    static final int MAP_SHARED = 1;
    static final int MSG_DONTWAIT = 0x40;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int ENETDOWN = 100;
    static final int ENOBUFS = 105;
    static final short POLLIN = 1;

    static {
        Native.register("c");
    }

    private LibC() {
    }

    static native int socket(int domain, int type, int protocol) throws LastErrorException;

    static native int bind(int fd, byte[] addr, int len) throws LastErrorException;

    static native int setsockopt(int fd, int level, int name, byte[] value, int len) throws LastErrorException;

    static native int getsockopt(int fd, int level, int name, byte[] value, int[] len) throws LastErrorException;

    static native Pointer mmap(Pointer addr, long len, int prot, int flags, int fd, long offset) throws LastErrorException;

    static native int munmap(Pointer addr, long len);

    static native int sendmmsg(int fd, Pointer messages, int count, int flags) throws LastErrorException;

    static native int ioctl(int fd, long request, byte[] ifreq) throws LastErrorException;

    static native long send(int fd, byte[] buf, long len, int flags) throws LastErrorException;

    static native long recv(int fd, byte[] buf, long len, int flags) throws LastErrorException;

    static native int poll(Pointer fds, long nfds, int timeoutMs);

    static native int if_nametoindex(String name);

    static native int close(int fd);

    static native String strerror(int errno);
}
