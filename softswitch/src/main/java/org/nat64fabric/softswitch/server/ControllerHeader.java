package org.nat64fabric.softswitch.server;

import com.google.protobuf.ByteString;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
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

    /** The header a packet-out carries into the pipeline, followed by the payload; unset fields are 0. */
    public byte[] encode(List<PacketMetadata> metadata, ByteString payload) {
        byte[] out = new byte[bytes + payload.size()];
        for (PacketMetadata pm : metadata) {
            int bit = 0;
            ControllerPacketMetadata.Metadata field = null;
            for (ControllerPacketMetadata.Metadata m : info.getMetadataList()) {
                if (m.getId() == pm.getMetadataId()) {
                    field = m;
                    break;
                }
                bit += m.getBitwidth();
            }
            if (field == null) {
                throw new IllegalArgumentException("packet_out has no metadata with ID " + pm.getMetadataId());
            }
            BigInteger v = new BigInteger(1, pm.getValue().toByteArray());
            if (v.bitLength() > field.getBitwidth()) {
                throw new IllegalArgumentException("packet_out metadata '" + field.getName() + "' does not fit in "
                        + field.getBitwidth() + " bits");
            }
            State.writeWide(out, bit, field.getBitwidth(), v);
        }
        payload.copyTo(out, bytes);
        return out;
    }
}
