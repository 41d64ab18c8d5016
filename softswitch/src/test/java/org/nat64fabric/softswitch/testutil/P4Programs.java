package org.nat64fabric.softswitch.testutil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.pipeline.Action;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.Table;

/** Test helpers: compile P4 text, build entries and packets by name. */
public final class P4Programs {
    private P4Programs() {
    }

    public static Path write(Path dir, String name, String source) {
        try {
            Path p = dir.resolve(name);
            Files.writeString(p, source);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Program compile(Path dir, String source) {
        return Frontend.compile(write(dir, "prog.p4", source));
    }

    /** A v1model program around the given declarations and ingress apply body. */
    public static String v1(String headers, String parserStates, String ingressDecls, String ingressApply,
                            String egressApply, String deparserApply) {
        return "#include <core.p4>\n#include <v1model.p4>\n" + headers + "\n"
                + "parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {\n"
                + parserStates + "\n}\n"
                + "control VC(inout headers_t hdr, inout meta_t meta) { apply { } }\n"
                + "control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {\n"
                + ingressDecls + "\n apply {\n" + ingressApply + "\n }\n}\n"
                + "control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply {\n"
                + egressApply + "\n} }\n"
                + "control CC(inout headers_t hdr, inout meta_t meta) { apply { } }\n"
                + "control D(packet_out pkt, in headers_t hdr) { apply {\n" + deparserApply + "\n} }\n"
                + "V1Switch(P(), VC(), I(), E(), CC(), D()) main;\n";
    }

    public static byte[] bytes(String hex) {
        String h = hex.replaceAll("\\s", "");
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    public static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(String.format("%02x", x));
        }
        return sb.toString();
    }

    public static Table.ActionCall call(Program p, String action, long... args) {
        Action a = p.action(action);
        BigInteger[] v = new BigInteger[args.length];
        for (int i = 0; i < args.length; i++) {
            v[i] = BigInteger.valueOf(args[i]);
        }
        return new Table.ActionCall(a, v);
    }
}
