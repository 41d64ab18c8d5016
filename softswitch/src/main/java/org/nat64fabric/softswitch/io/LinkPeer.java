package org.nat64fabric.softswitch.io;

import com.sun.jna.LastErrorException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Whether an interface is one end of a veth pair whose other end is in another network namespace
 * (a host's, a container's), asked of the kernel over rtnetlink. At TC ingress the kernel fast
 * path can then hand a frame for that port straight to the other end's receive path
 * ({@code bpf_redirect_peer}), which the kernel allows for such ports only.
 */
final class LinkPeer {
    private static final int AF_NETLINK = 16;
    private static final int NETLINK_ROUTE = 0;
    private static final short RTM_NEWLINK = 16;
    private static final short RTM_GETLINK = 18;
    private static final short NLM_F_REQUEST = 1;
    private static final int NLMSG_HEADER = 16;
    private static final int IFINFOMSG = 16;
    private static final int IFLA_LINKINFO = 18;
    private static final int IFLA_LINK_NETNSID = 37;
    private static final int IFLA_INFO_KIND = 1;
    private static final int NLA_TYPE_MASK = 0x3fff;   // without NLA_F_NESTED and NLA_F_NET_BYTEORDER

    private LinkPeer() {
    }

    /** True for a veth whose peer is in another namespace; false for anything else or when the kernel cannot say. */
    static boolean vethPeerInAnotherNamespace(int ifindex) {
        int fd;
        try {
            fd = LibC.socket(AF_NETLINK, LibC.SOCK_RAW, NETLINK_ROUTE);
        } catch (LastErrorException e) {
            return false;
        }
        try {
            ByteBuffer request = ByteBuffer.allocate(NLMSG_HEADER + IFINFOMSG).order(ByteOrder.nativeOrder());
            request.putInt(NLMSG_HEADER + IFINFOMSG).putShort(RTM_GETLINK).putShort(NLM_F_REQUEST).putInt(1).putInt(0);
            request.put((byte) 0).put((byte) 0).putShort((short) 0).putInt(ifindex).putInt(0).putInt(0);
            LibC.send(fd, request.array(), request.capacity(), 0);
            byte[] reply = new byte[65536];
            int length = (int) LibC.recv(fd, reply, reply.length, 0);
            return isVethWithForeignPeer(ByteBuffer.wrap(reply, 0, length).order(ByteOrder.nativeOrder()));
        } catch (LastErrorException e) {
            return false;
        } finally {
            LibC.close(fd);
        }
    }

    /** Reads one RTM_NEWLINK reply: its link kind must be veth and it must name the peer's namespace. */
    static boolean isVethWithForeignPeer(ByteBuffer m) {
        if (m.remaining() < NLMSG_HEADER + IFINFOMSG || m.getShort(4) != RTM_NEWLINK) {
            return false;
        }
        int end = Math.min(m.limit(), m.getInt(0));
        boolean[] vethAndForeign = new boolean[2];
        attributes(m, NLMSG_HEADER + IFINFOMSG, end, (type, from, to) -> {
            if (type == IFLA_LINK_NETNSID) {
                vethAndForeign[1] = true;
            } else if (type == IFLA_LINKINFO) {
                attributes(m, from, to, (innerType, kindFrom, kindTo) -> {
                    if (innerType == IFLA_INFO_KIND) {
                        byte[] kind = new byte[kindTo - kindFrom];
                        m.get(kindFrom, kind);
                        vethAndForeign[0] = new String(kind, StandardCharsets.US_ASCII).replace("\0", "").equals("veth");
                    }
                });
            }
        });
        return vethAndForeign[0] && vethAndForeign[1];
    }

    private interface Attribute {
        void at(int type, int from, int to);
    }

    /** Each netlink attribute between {@code from} and {@code end}: its type and where its value lies. */
    private static void attributes(ByteBuffer m, int from, int end, Attribute visit) {
        for (int at = from; at + 4 <= end; ) {
            int len = m.getShort(at) & 0xffff;
            if (len < 4 || at + len > end) {
                return;
            }
            visit.at(m.getShort(at + 2) & NLA_TYPE_MASK, at + 4, at + len);
            at += (len + 3) & ~3;
        }
    }
}
