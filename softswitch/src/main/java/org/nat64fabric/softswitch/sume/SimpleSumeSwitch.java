package org.nat64fabric.softswitch.sume;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.nat64fabric.softswitch.pipeline.Expr;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.State;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch.Output;

/**
 * The NetFPGA SUME's SimpleSumeSwitch architecture around a compiled program: parser, pipe,
 * deparser, then the packet goes to every port whose bit is set in sume_metadata.dst_port.
 *
 * <p>Ports are one-hot, {DMA3, NF3, DMA2, NF2, DMA1, NF1, DMA0, NF0}: the physical port nfK is
 * softswitch port K (0 to 3), and every DMA bit is the CPU port (the controller). As on the card,
 * frames are at most {@value #MAX_FRAME} bytes (1500-byte MTU, no FCS) in and out, and a packet the
 * parser rejects is dropped. Each drop is counted by reason.
 */
public final class SimpleSumeSwitch {
    public static final int MAX_FRAME = 1514;
    /** The DMA bit a packet from the controller arrives on. */
    static final int DMA0 = 0b10;
    private static final int PHYSICAL_PORTS = 4;
    private static final int DMA_BITS = 0b10101010;

    private final Program program;
    private final State state;
    private final Consumer<String> count;
    private final Expr.LValue srcPort;
    private final Expr.LValue dstPort;
    private final Expr.LValue pktLen;
    private final Expr.LValue drop;
    private final Expr.LValue sendDigest;
    private volatile int cpuPort = 255;

    public SimpleSumeSwitch(Program program, State state, Consumer<String> count) {
        this.program = program;
        this.state = state;
        this.count = count;
        this.srcPort = program.standardField("src_port");
        this.dstPort = program.standardField("dst_port");
        this.pktLen = program.standardField("pkt_len");
        this.drop = program.standardField("drop");
        this.sendDigest = program.standardField("send_dig_to_cpu");
    }

    /** The softswitch port the DMA bits stand for. */
    public void setCpuPort(int port) {
        cpuPort = port;
    }

    /** The packets one frame arriving on softswitch port {@code port} produces. */
    public List<Output> process(int port, byte[] data) {
        List<Output> out = new ArrayList<>(1);
        int src = port == cpuPort ? DMA0 : port >= 0 && port < PHYSICAL_PORTS ? 1 << (2 * port) : 0;
        if (src == 0) {
            count.accept("drop: no SUME port " + port + " (nf0-nf3 are ports 0-3, DMA the CPU port)");
            return out;
        }
        if (data.length > MAX_FRAME) {
            count.accept("drop: frame over SUME's " + MAX_FRAME + " bytes (in)");
            return out;
        }
        State s = state;
        s.reset();
        s.setPacket(data, data.length);
        srcPort.set(s, src);
        pktLen.set(s, data.length);
        if (!program.parser.run(s)) {
            count.accept("drop: parser rejected (" + errorName(s.parserError) + ")");
            return out;
        }
        s.exiting = false;
        program.ingressCode.exec(s);
        if ((sendDigest.eval(s) & 1) != 0) {
            count.accept("digest: not delivered (softswitch sends no SUME digests)");
        }
        long dst = dstPort.eval(s);
        if ((drop.eval(s) & 1) != 0 || dst == 0) {
            count.accept("drop: pipe");
            return out;
        }
        s.exiting = false;
        s.outLength = 0;
        program.deparserCode.exec(s);
        int length = s.frameLength();
        if (length > MAX_FRAME) {
            count.accept("drop: frame over SUME's " + MAX_FRAME + " bytes (out)");
            return out;
        }
        byte[] bytes = s.frame(length);
        for (int k = 0; k < PHYSICAL_PORTS; k++) {
            if ((dst & (1L << (2 * k))) != 0) {
                out.add(new Output(k, bytes));
            }
        }
        if ((dst & DMA_BITS) != 0) {
            out.add(new Output(cpuPort, bytes));
        }
        return out;
    }

    private String errorName(int code) {
        return code >= 0 && code < program.errors.size() ? program.errors.get(code) : String.valueOf(code);
    }
}
