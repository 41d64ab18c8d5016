package org.nat64fabric.softswitch.server;

import com.google.protobuf.ByteString;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.nat64fabric.softswitch.pipeline.State;
import org.nat64fabric.softswitch.runtime.Entities;
import p4.config.v1.P4InfoOuterClass.ControllerPacketMetadata;
import p4.v1.P4RuntimeOuterClass.PacketMetadata;

/**
 * A {@code @controller_header} as P4Info describes it: the fields that travel in front of a packet
 * between the pipeline and the CPU port (a NetFPGA SUME's DMA port), turned into P4Runtime packet
 * metadata and back.
 */
public final class ControllerHeader {
    private final ControllerPacketMetadata info;
    private final int bytes;

    public ControllerHeader(ControllerPacketMetadata info) {
        this.info = info;
        int bits = 0;
        for (ControllerPacketMetadata.Metadata m : info.getMetadataList()) {
            bits += m.getBitwidth();
        }
        this.bytes = (bits + 7) / 8;
    }

    /** The metadata at the front of a packet the pipeline sent to the CPU port; null if it is too short. */
    public List<PacketMetadata> decode(byte[] data) {
        if (data.length < bytes) {
            return null;
        }
        List<PacketMetadata> out = new ArrayList<>();
        int bit = 0;
        for (ControllerPacketMetadata.Metadata m : info.getMetadataList()) {
            BigInteger v = State.readWide(data, bit, m.getBitwidth());
            out.add(PacketMetadata.newBuilder().setMetadataId(m.getId()).setValue(Entities.bytes(v)).build());
            bit += m.getBitwidth();
        }
        return out;
    }

    public ByteString payload(byte[] data) {
        return ByteString.copyFrom(data, bytes, data.length - bytes);
    }

    /**
     * The header a packet-out carries into the pipeline, followed by the payload. P4Runtime 16.1: a
     * packet-out carries precisely one value for each field of the header, each a valid bytestring
     * of the field's width; anything else is refused (IllegalArgumentException) and the packet dropped.
     */
    public byte[] encode(List<PacketMetadata> metadata, ByteString payload) {
        Map<Integer, PacketMetadata> byId = new HashMap<>();
        for (PacketMetadata pm : metadata) {
            if (byId.put(pm.getMetadataId(), pm) != null) {
                throw new IllegalArgumentException("packet_out metadata ID " + pm.getMetadataId() + " appears twice");
            }
        }
        byte[] out = new byte[bytes + payload.size()];
        int bit = 0;
        for (ControllerPacketMetadata.Metadata field : info.getMetadataList()) {
            PacketMetadata pm = byId.remove(field.getId());
            if (pm == null) {
                throw new IllegalArgumentException("packet_out metadata '" + field.getName() + "' (ID " + field.getId()
                        + ") is missing: a packet-out carries every field of the packet_out header");
            }
            if (pm.getValue().isEmpty()) {
                throw new IllegalArgumentException("packet_out metadata '" + field.getName() + "' is an empty bytestring");
            }
            BigInteger v = new BigInteger(1, pm.getValue().toByteArray());
            if (v.bitLength() > field.getBitwidth()) {
                throw new IllegalArgumentException("packet_out metadata '" + field.getName() + "' does not fit in "
                        + field.getBitwidth() + " bits");
            }
            State.writeWide(out, bit, field.getBitwidth(), v);
            bit += field.getBitwidth();
        }
        if (!byId.isEmpty()) {
            throw new IllegalArgumentException("packet_out has no metadata with ID " + byId.keySet().iterator().next());
        }
        payload.copyTo(out, bytes);
        return out;
    }
}
