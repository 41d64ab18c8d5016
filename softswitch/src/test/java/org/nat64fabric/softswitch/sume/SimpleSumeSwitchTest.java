package org.nat64fabric.softswitch.sume;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.nat64fabric.softswitch.testutil.P4Programs.bytes;
import static org.nat64fabric.softswitch.testutil.P4Programs.hex;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.ebpf.FastPath;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.frontend.P4CompileException;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.runtime.Entities;
import org.nat64fabric.softswitch.runtime.EntityException;
import org.nat64fabric.softswitch.testutil.P4Programs;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch.Output;
import p4.v1.P4RuntimeOuterClass.CloneSessionEntry;
import p4.v1.P4RuntimeOuterClass.Entity;
import p4.v1.P4RuntimeOuterClass.PacketReplicationEngineEntry;
import p4.v1.P4RuntimeOuterClass.Update;

/** The SimpleSumeSwitch architecture: one-hot ports, DMA as the controller, SUME's limits. */
class SimpleSumeSwitchTest {
    private static final int CPU = 255;
    private static final int NF0 = 0b1;
    private static final int NF2 = 0b10000;
    private static final int NF3 = 0b1000000;
    private static final String ETH = "000000000a02" + "000000000001" + "0800";
    /** IPv4 UDP from 10.0.1.1 to 10.0.2.7 (the checksum is not looked at). */
    private static final String IPV4 = "45000020 0001 0000 4011 0000 0a000101 0a000207";
    private static final String PAYLOAD = "1234 0035 000c 0000 cafe";

    @TempDir
    Path dir;
    private Program program;
    private V1ModelSwitch sw;

    @BeforeEach
    void setUp() {
        program = Frontend.compile(Path.of("examples/sume_forwarding.p4"));
        sw = new V1ModelSwitch(program);
        sw.setCpuPort(CPU);
    }

    private void route(long prefix, int length, int ports) {
        program.table("SumePipe.routes").insert(new Table.Entry(
                new Table.FieldMatch[] {Table.FieldMatch.lpm(BigInteger.valueOf(prefix), length, 32)}, 0,
                P4Programs.call(program, "SumePipe.route", ports, 0xcc02, 0xaa00), 0));
    }

    private static byte[] ipv4Frame() {
        return bytes(ETH + IPV4 + PAYLOAD);
    }

    @Test
    void theProgramIsOfTheSumeArchitecture() {
        assertEquals(Program.Architecture.SUME, program.architecture);
        var info = P4InfoBuilder.build(program);
        assertEquals("sume", info.getPkgInfo().getArch());
        assertEquals(2, info.getControllerPacketMetadataCount());
    }

    @Test
    void aRoutedPacketLeavesOnTheOneHotPortItsEntryNames() {
        route(0x0a000200L, 24, NF2);
        List<Output> out = sw.process(0, ipv4Frame());
        assertEquals(1, out.size());
        assertEquals(2, out.get(0).port);
        assertEquals("00000000cc02" + "00000000aa00" + "0800" + (IPV4 + PAYLOAD).replace(" ", ""), hex(out.get(0).data));
    }

    @Test
    void severalBitsOfDstPortCopyThePacketToEachPort() {
        route(0x0a000200L, 24, NF0 | NF2 | NF3);
        List<Output> out = sw.process(1, ipv4Frame());
        assertEquals(List.of(0, 2, 3), out.stream().map(o -> o.port).collect(java.util.stream.Collectors.toList()));
    }

    @Test
    void aMissGoesToTheControllerOverDmaWithTheOneHotPortItCameFrom() {
        List<Output> out = sw.process(1, ipv4Frame());
        assertEquals(1, out.size());
        assertEquals(CPU, out.get(0).port);
        // packet_in.src_port: nf1 is bit 2
        assertEquals("04" + ETH + (IPV4 + PAYLOAD).replace(" ", ""), hex(out.get(0).data));
    }

    @Test
    void aPacketFromTheControllerEntersOnDma0AndLeavesWhereItsHeaderSays() {
        List<Output> out = sw.process(CPU, bytes("40" + ETH + IPV4 + PAYLOAD));
        assertEquals(1, out.size());
        assertEquals(3, out.get(0).port);
        assertEquals(ETH + (IPV4 + PAYLOAD).replace(" ", ""), hex(out.get(0).data));
    }

    @Test
    void anAclDropClearsDstPortAndIsCounted() {
        route(0x0a000200L, 24, NF2);
        program.table("SumePipe.acl").insert(new Table.Entry(new Table.FieldMatch[] {
            Table.FieldMatch.ternary(BigInteger.valueOf(0x0a000101L), BigInteger.valueOf(0xffffffffL)),
            Table.FieldMatch.wildcard()}, 10, P4Programs.call(program, "SumePipe.drop"), 0));
        assertEquals(List.of(), sw.process(0, ipv4Frame()));
        assertEquals(1L, sw.stats().get("drop: pipe"));
    }

    @Test
    void framesOverSumes1514BytesAreDroppedAndCounted() {
        route(0x0a000200L, 24, NF2);
        byte[] big = new byte[1515];
        System.arraycopy(ipv4Frame(), 0, big, 0, ipv4Frame().length);
        assertEquals(List.of(), sw.process(0, big));
        assertEquals(1L, sw.stats().get("drop: frame over SUME's 1514 bytes (in)"));
        byte[] largest = new byte[1514];
        System.arraycopy(ipv4Frame(), 0, largest, 0, ipv4Frame().length);
        assertEquals(1, sw.process(0, largest).size());
    }

    @Test
    void aPortThatIsNotASumePortIsRefused() {
        assertEquals(List.of(), sw.process(4, ipv4Frame()));
        assertTrue(sw.stats().keySet().stream().anyMatch(k -> k.startsWith("drop: no SUME port 4")), sw.stats().toString());
    }

    @Test
    void theSwitchHasNoPacketReplicationEngine() {
        Entities entities = new Entities(sw, P4InfoBuilder.build(program));
        Entity clone = Entity.newBuilder().setPacketReplicationEngineEntry(PacketReplicationEngineEntry.newBuilder()
                .setCloneSessionEntry(CloneSessionEntry.newBuilder().setSessionId(5))).build();
        EntityException e = assertThrows(EntityException.class, () -> entities.apply(Update.Type.INSERT, clone));
        assertEquals(EntityException.Code.UNIMPLEMENTED, e.code());
    }

    @Test
    void theKernelFastPathSaysItRunsV1modelProgramsOnly() {
        FastPath.Unavailable e = assertThrows(FastPath.Unavailable.class, () -> FastPath.compile(program, FastPath.Mode.TC, false));
        assertTrue(e.getMessage().contains("v1model"), e.getMessage());
    }

    /** The SUME program with its routes table's key, properties replaced. */
    private Path withRoutes(String key, String properties) {
        String source;
        try {
            source = java.nio.file.Files.readString(Path.of("examples/sume_forwarding.p4"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        String routes = "        key = { hdr.ipv4.dst_addr: lpm; }\n        actions = { route; to_controller; drop; }\n"
                + "        size = 1024;\n";
        assertTrue(source.contains(routes));
        return P4Programs.write(dir, "sume.p4", source.replace(routes, "        key = { " + key + " }\n"
                + "        actions = { route; to_controller; drop; }\n" + properties));
    }

    private String compileError(Path p) {
        P4CompileException e = assertThrows(P4CompileException.class, () -> Frontend.compile(p));
        assertEquals(p.toString(), e.file());
        assertTrue(e.line() > 0, e.getMessage());
        return e.detail();
    }

    @Test
    void aTableWithoutASizeIsAnError() {
        assertTrue(compileError(withRoutes("hdr.ipv4.dst_addr: lpm;", "")).contains("needs a size"));
    }

    @Test
    void idleTimeoutsAreAnError() {
        assertTrue(compileError(withRoutes("hdr.ipv4.dst_addr: lpm;", "        size = 64;\n        support_timeout = true;\n"))
                .contains("no idle timeouts"));
    }

    @Test
    void anLpmFieldWithAnotherKeyFieldIsAnError() {
        assertTrue(compileError(withRoutes("hdr.ipv4.dst_addr: lpm; hdr.ipv4.protocol: exact;", "        size = 64;\n"))
                .contains("exactly one key field"));
    }

    @Test
    void rangeMatchesAndV1modelExternsAreNotPartOfTheArchitecture() {
        assertTrue(compileError(withRoutes("hdr.ipv4.dst_addr: range;", "        size = 64;\n"))
                .contains("'range' is not a match_kind"));
        String source = "#include <core.p4>\n#include <sume_switch.p4>\n"
                + "struct h_t { } struct m_t { } struct d_t { bit<8> x; }\n"
                + "parser P(packet_in b, out h_t h, out m_t m, out d_t d, inout sume_metadata_t s) { state start { transition accept; } }\n"
                + "control C(inout h_t h, inout m_t m, inout d_t d, inout sume_metadata_t s) { apply { mark_to_drop(s); } }\n"
                + "control D(packet_out b, in h_t h, in m_t m, inout d_t d, inout sume_metadata_t s) { apply { } }\n"
                + "SimpleSumeSwitch(P(), C(), D()) main;\n";
        assertTrue(compileError(P4Programs.write(dir, "drop.p4", source)).contains("mark_to_drop"));
        // Declared by the program itself, a v1model extern's name does not make it one.
        String declared = source.replace("struct h_t", "extern void mark_to_drop(inout sume_metadata_t s);\nstruct h_t");
        assertEquals("'mark_to_drop' is a v1model extern: a SimpleSumeSwitch program cannot use it",
                compileError(P4Programs.write(dir, "declared.p4", declared)));
    }
}
