package org.nat64fabric.softswitch.io;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LinkPeerTest {
    private static final int IFLA_IFNAME = 3;
    private static final int IFLA_LINKINFO = 18;
    private static final int IFLA_LINK_NETNSID = 37;
    private static final int NLA_F_NESTED = 0x8000;

    /** An rtnetlink attribute, padded to 4 bytes. */
    private static byte[] attribute(int type, byte[] value) {
        ByteBuffer b = ByteBuffer.allocate((4 + value.length + 3) & ~3).order(ByteOrder.nativeOrder());
        b.putShort((short) (4 + value.length)).putShort((short) type).put(value);
        return b.array();
    }

    private static byte[] string(String s) {
        return (s + "\0").getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** An RTM_NEWLINK message (16-byte header, 16-byte ifinfomsg) carrying these attributes. */
    private static ByteBuffer newLink(byte[]... attributes) {
        byte[] body = concat(attributes);
        ByteBuffer m = ByteBuffer.allocate(32 + body.length).order(ByteOrder.nativeOrder());
        m.putInt(32 + body.length).putShort((short) 16).putShort((short) 0).putInt(1).putInt(0);
        m.put(new byte[16]).put(body);
        m.flip();
        return m;
    }

    private static byte[] linkInfo(String kind) {
        return attribute(IFLA_LINKINFO | NLA_F_NESTED, attribute(1, string(kind)));
    }

    private static byte[] netnsid() {
        return attribute(IFLA_LINK_NETNSID, new byte[] {2, 0, 0, 0});
    }

    @Test
    void aVethWhosePeerIsInAnotherNamespaceIsRecognised() {
        assertTrue(LinkPeer.isVethWithForeignPeer(newLink(attribute(IFLA_IFNAME, string("s1")), linkInfo("veth"), netnsid())));
    }

    @Test
    void aVethWithItsPeerBesideItOrAnotherKindOfLinkIsNot() {
        assertFalse(LinkPeer.isVethWithForeignPeer(newLink(attribute(IFLA_IFNAME, string("s1")), linkInfo("veth"))));
        assertFalse(LinkPeer.isVethWithForeignPeer(newLink(linkInfo("vxlan"), netnsid())));
        assertFalse(LinkPeer.isVethWithForeignPeer(newLink(netnsid())));
    }

    @Test
    void anErrorOrGarbageIsNeverTakenForAVethAndNeverThrows() {
        ByteBuffer error = ByteBuffer.allocate(36).order(ByteOrder.nativeOrder());
        error.putInt(36).putShort((short) 2);   // NLMSG_ERROR
        assertFalse(LinkPeer.isVethWithForeignPeer(error.rewind()));
        ByteBuffer whole = newLink(linkInfo("veth"), netnsid());
        for (int cut = 0; cut < whole.limit(); cut++) {   // cut short anywhere: the namespace id is gone
            assertFalse(LinkPeer.isVethWithForeignPeer(ByteBuffer.wrap(whole.array(), 0, cut).order(ByteOrder.nativeOrder())));
        }
        Random random = new Random(7);
        for (int i = 0; i < 10_000; i++) {
            byte[] junk = new byte[random.nextInt(80)];
            random.nextBytes(junk);
            LinkPeer.isVethWithForeignPeer(ByteBuffer.wrap(junk).order(ByteOrder.nativeOrder()));
        }
    }
}
