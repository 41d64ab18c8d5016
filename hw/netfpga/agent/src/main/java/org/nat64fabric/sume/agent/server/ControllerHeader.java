package org.nat64fabric.sume.agent.server;

import com.google.protobuf.ByteString;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.nat64fabric.sume.agent.layout.BitVector;
import p4.config.v1.P4InfoOuterClass.ControllerPacketMetadata;
import p4.v1.P4RuntimeOuterClass.PacketMetadata;

/**
 * The header the SUME program puts in front of a frame it sends over DMA (packet_in), or expects
 * in front of one from the host (packet_out), as its P4Info's controller_packet_metadata describes
 * it: the fields in order, most significant bit first, then the frame.
 */
final class ControllerHeader {
    private final ControllerPacketMetadata info;
    private final int[] widths;
    private final int bytes;

    ControllerHeader(ControllerPacketMetadata info) {
        this.info = info;
        this.widths = info.getMetadataList().stream().mapToInt(ControllerPacketMetadata.Metadata::getBitwidth).toArray();
        int bits = BitVector.sum(widths);
        if (bits % 8 != 0) {
            throw new IllegalArgumentException(info.getPreamble().getName() + " is " + bits + " bits, not whole bytes");
        }
        this.bytes = bits / 8;
    }

    /** The metadata at the front of a frame from the card; null when the frame is shorter than the header. */
    List<PacketMetadata> decode(byte[] frame) {
        if (frame.length < bytes) {
            return null;
        }
        BigInteger[] fields = BitVector.split(new BigInteger(1, java.util.Arrays.copyOf(frame, bytes)), widths);
        List<PacketMetadata> out = new ArrayList<>(fields.length);
        for (int i = 0; i < fields.length; i++) {
            out.add(PacketMetadata.newBuilder().setMetadataId(info.getMetadata(i).getId())
                    .setValue(ByteString.copyFrom(minimal(fields[i]))).build());
        }
        return out;
    }

    ByteString payload(byte[] frame) {
        return ByteString.copyFrom(frame, bytes, frame.length - bytes);
    }

    /** The header with these metadata (unset ones 0), then the payload; IllegalArgumentException on a bad field. */
    byte[] encode(List<PacketMetadata> metadata, ByteString payload) {
        Map<Integer, Integer> position = new HashMap<>();
        for (int i = 0; i < widths.length; i++) {
            position.put(info.getMetadata(i).getId(), i);
        }
        BigInteger[] fields = new BigInteger[widths.length];
        java.util.Arrays.fill(fields, BigInteger.ZERO);
        for (PacketMetadata m : metadata) {
            Integer i = position.get(m.getMetadataId());
            if (i == null) {
                throw new IllegalArgumentException(info.getPreamble().getName() + " has no metadata with ID " + m.getMetadataId());
            }
            BigInteger v = new BigInteger(1, m.getValue().toByteArray());
            if (v.bitLength() > widths[i]) {
                throw new IllegalArgumentException(info.getPreamble().getName() + " metadata '" + info.getMetadata(i).getName()
                        + "' does not fit in " + widths[i] + " bits");
            }
            fields[i] = v;
        }
        byte[] out = new byte[bytes + payload.size()];
        byte[] header = BitVector.concat(fields, widths).toByteArray();
        int n = Math.min(header.length, bytes);
        System.arraycopy(header, header.length - n, out, bytes - n, n);
        payload.copyTo(out, bytes);
        return out;
    }

    private static byte[] minimal(BigInteger v) {
        byte[] b = v.toByteArray();
        return b.length > 1 && b[0] == 0 ? java.util.Arrays.copyOfRange(b, 1, b.length) : b;
    }
}
