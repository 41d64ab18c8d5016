package org.nat64fabric.softswitch.server;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
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
    /** Each field's width in the data plane, in P4Info's order. */
    private final int[] widths;
    private final int bytes;

    /** A header whose fields are as wide in the data plane as P4Info says. */
    public ControllerHeader(ControllerPacketMetadata info) {
        this(info, info.getMetadataList().stream().mapToInt(ControllerPacketMetadata.Metadata::getBitwidth).toArray());
    }

    /**
     * A header whose fields are {@code widths} bits wide in the data plane. A field of a translated
     * type (P4Runtime 8.5.6) may be wider in P4Info; softswitch translates its values as themselves,
     * so a value the data-plane field cannot hold is refused.
     */
    public ControllerHeader(ControllerPacketMetadata info, int[] widths) {
        this.info = info;
        this.widths = widths.clone();
        int bits = 0;
        for (int w : widths) {
            bits += w;
        }
        this.bytes = (bits + 7) / 8;
    }

    /** The metadata at the front of a packet the pipeline sent to the CPU port; null if it is too short. */
    public List<PacketMetadata> decode(byte[] data) {
        if (data.length < bytes) {
            return null;
        }
        List<PacketMetadata> out = new ArrayList<>(info.getMetadataCount());
        int bit = 0;
        for (int f = 0; f < widths.length; f++) {
            ControllerPacketMetadata.Metadata m = info.getMetadata(f);
            int width = widths[f];
            ByteString value = width <= Long.SIZE ? canonical(State.readBits(data, bit, width))
                    : Entities.bytes(State.readWide(data, bit, width));
            out.add(PacketMetadata.newBuilder().setMetadataId(m.getId()).setValue(value).build());
            bit += width;
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
        List<ControllerPacketMetadata.Metadata> fields = info.getMetadataList();
        PacketMetadata[] byField = new PacketMetadata[fields.size()];
        for (PacketMetadata pm : metadata) {
            int f = indexOf(fields, pm.getMetadataId());
            if (f < 0) {
                throw new IllegalArgumentException("packet_out has no metadata with ID " + pm.getMetadataId());
            }
            if (byField[f] != null) {
                throw new IllegalArgumentException("packet_out metadata ID " + pm.getMetadataId() + " appears twice");
            }
            byField[f] = pm;
        }
        byte[] out = new byte[bytes + payload.size()];
        int bit = 0;
        for (int f = 0; f < byField.length; f++) {
            ControllerPacketMetadata.Metadata field = fields.get(f);
            if (byField[f] == null) {
                throw new IllegalArgumentException("packet_out metadata '" + field.getName() + "' (ID " + field.getId()
                        + ") is missing: a packet-out carries every field of the packet_out header");
            }
            ByteString value = byField[f].getValue();
            if (value.isEmpty()) {
                throw new IllegalArgumentException("packet_out metadata '" + field.getName() + "' is an empty bytestring");
            }
            int width = widths[f];
            if (significantBits(value) > width) {
                throw new IllegalArgumentException("packet_out metadata '" + field.getName() + "' does not fit in "
                        + width + " bits" + (width != field.getBitwidth() ? " (its width in the data plane, where softswitch"
                        + " translates it as itself)" : ""));
            }
            if (width <= Long.SIZE) {
                long v = 0;
                for (int i = 0; i < value.size(); i++) {
                    v = v << 8 | value.byteAt(i) & 0xff;
                }
                State.writeBits(out, bit, width, v);
            } else {
                State.writeWide(out, bit, width, new BigInteger(1, value.toByteArray()));
            }
            bit += width;
        }
        payload.copyTo(out, bytes);
        return out;
    }

    private static int indexOf(List<ControllerPacketMetadata.Metadata> fields, int id) {
        for (int f = 0; f < fields.size(); f++) {
            if (fields.get(f).getId() == id) {
                return f;
            }
        }
        return -1;
    }

    /** The bits of the unsigned big-endian value, leading zeros left out. */
    private static int significantBits(ByteString value) {
        for (int i = 0; i < value.size(); i++) {
            int b = value.byteAt(i) & 0xff;
            if (b != 0) {
                return (value.size() - i - 1) * 8 + 32 - Integer.numberOfLeadingZeros(b);
            }
        }
        return 0;
    }

    /** P4Runtime's canonical bytestring of an unsigned value: no leading zero bytes, at least one byte. */
    private static ByteString canonical(long v) {
        int n = Math.max(1, (Long.SIZE - Long.numberOfLeadingZeros(v) + 7) / 8);
        byte[] b = new byte[n];
        for (int i = n - 1; i >= 0; i--, v >>>= 8) {
            b[i] = (byte) v;
        }
        return UnsafeByteOperations.unsafeWrap(b);
    }
}
