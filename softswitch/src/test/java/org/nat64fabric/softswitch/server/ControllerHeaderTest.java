package org.nat64fabric.softswitch.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import p4.config.v1.P4InfoOuterClass.ControllerPacketMetadata;
import p4.v1.P4RuntimeOuterClass.PacketMetadata;

/** A controller header's fields to and from the bits in front of a packet, narrow and wide alike. */
class ControllerHeaderTest {
    /** 9 + 1 + 6 + 72 + 16 bits: 13 bytes. */
    private static final ControllerHeader HEADER = new ControllerHeader(ControllerPacketMetadata.newBuilder()
            .addMetadata(field(1, "port", 9)).addMetadata(field(2, "flag", 1)).addMetadata(field(3, "_pad", 6))
            .addMetadata(field(4, "wide", 72)).addMetadata(field(5, "type", 16)).build());

    private static ControllerPacketMetadata.Metadata field(int id, String name, int bits) {
        return ControllerPacketMetadata.Metadata.newBuilder().setId(id).setName(name).setBitwidth(bits).build();
    }

    private static PacketMetadata value(int id, int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return PacketMetadata.newBuilder().setMetadataId(id).setValue(ByteString.copyFrom(b)).build();
    }

    private static List<PacketMetadata> all() {
        return List.of(value(1, 0x01, 0xff), value(2, 1), value(3, 0), value(4, 0xab, 0, 0, 0, 0, 0, 0, 0, 0x01),
                value(5, 0x86, 0xdd));
    }

    @Test
    void fieldsGoInTheirBitsAndComeBackAsCanonicalBytestrings() {
        byte[] frame = HEADER.encode(all(), ByteString.copyFrom(new byte[] {0x55}));
        assertArrayEquals(new byte[] {(byte) 0xff, (byte) 0xc0, (byte) 0xab, 0, 0, 0, 0, 0, 0, 0, 1, (byte) 0x86,
            (byte) 0xdd, 0x55}, frame);
        List<PacketMetadata> back = HEADER.decode(frame);
        assertEquals(all(), back, "no leading zero bytes, 0 as one byte");
        assertEquals(ByteString.copyFrom(new byte[] {0x55}), HEADER.payload(frame));
        List<PacketMetadata> padded = new ArrayList<>(all());
        padded.set(1, value(2, 0, 0, 1));
        assertArrayEquals(frame, HEADER.encode(padded, ByteString.copyFrom(new byte[] {0x55})),
                "leading zeros are not bits of the value");
    }

    @Test
    void aPacketOutWithoutPreciselyOneFittingValueForEachFieldIsRefused() {
        List<List<PacketMetadata>> bad = List.of(
                List.of(value(1, 1), value(2, 1), value(3, 0), value(4, 1)),
                List.of(value(1, 1), value(1, 1), value(2, 1), value(3, 0), value(4, 1), value(5, 1)),
                List.of(value(1, 2, 0), value(2, 1), value(3, 0), value(4, 1), value(5, 1)),
                List.of(value(1, 1), value(2, 1), value(3, 0), value(4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0), value(5, 1)),
                List.of(value(1, 1), value(2), value(3, 0), value(4, 1), value(5, 1)),
                List.of(value(1, 1), value(2, 1), value(3, 0), value(4, 1), value(5, 1), value(9, 1)));
        List<String> why = List.of("'type' (ID 5) is missing", "ID 1 appears twice", "'port' does not fit in 9 bits",
                "'wide' does not fit in 72 bits", "'flag' is an empty bytestring", "no metadata with ID 9");
        for (int i = 0; i < bad.size(); i++) {
            List<PacketMetadata> md = bad.get(i);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> HEADER.encode(md, ByteString.EMPTY));
            assertEquals(true, e.getMessage().contains(why.get(i)), e.getMessage());
        }
        assertEquals(null, HEADER.decode(new byte[12]), "shorter than the header");
    }
}
