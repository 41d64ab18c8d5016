package org.nat64fabric.softswitch.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.nat64fabric.softswitch.frontend.Type;
import org.nat64fabric.softswitch.v1model.Externs;

/**
 * A P4 program compiled for its architecture: its blocks in executable form, the objects the
 * control plane manages, and where the architecture's metadata lives in the slots.
 */
public final class Program {
    /** The architectures softswitch runs, with the name P4Info's pkg_info.arch gives each. */
    public enum Architecture {
        /** BMv2's simple_switch: V1Switch(parser, verify, ingress, egress, compute, deparser). */
        V1MODEL("v1model"),
        /**
         * The NetFPGA SUME's SimpleSumeSwitch(parser, pipe, deparser): verifyChecksum, egress and
         * computeChecksum are empty, ingress is the pipe, standardMetadata is sume_metadata.
         */
        SUME("sume");

        public final String p4infoName;

        Architecture(String p4infoName) {
            this.p4infoName = p4infoName;
        }
    }

    public final Architecture architecture;
    public final String source;
    public final int narrowSlots;
    public final int wideSlots;
    /** The width of each wide slot. */
    public final int[] wideWidths;

    public final Parser parser;
    public final Stmt verifyChecksum;
    public final Stmt ingress;
    public final Stmt egress;
    public final Stmt computeChecksum;
    public final Stmt deparser;
    /** The blocks as the switches run them: compiled to JVM bytecode ({@link Jit}). */
    public final Stmt verifyChecksumCode;
    public final Stmt ingressCode;
    public final Stmt egressCode;
    public final Stmt computeChecksumCode;
    public final Stmt deparserCode;

    public final List<Table> tables;
    public final List<Action> actions;
    public final List<Externs.Counter> counters;
    public final List<Externs.Register> registers;
    public final List<Externs.Meter> meters;
    public final List<ValueSet> valueSets;
    public final List<Externs.Digest> digests;
    /** Headers annotated @controller_header, by the annotation's name (packet_in, packet_out). */
    public final Map<String, Type.Aggregate> controllerHeaders;
    public final List<String> errors;
    /** The frontend's warnings, each {@code file:line:col: warning: message}. */
    public final List<String> warnings = new ArrayList<>();

    public final Expr.Agg headers;
    public final Expr.Agg metadata;
    public final Expr.Agg standardMetadata;
    /** For each @field_list index, the slot ranges of user metadata it preserves. */
    public final Map<Integer, List<Expr>> fieldLists;
    /** The annotations of each control-plane object, by its kind and name ("counter I.c"): its P4Info @id and documentation. */
    public final Map<String, Map<String, List<String>>> objectAnnotations;

    public Program(Architecture architecture, String source, int narrowSlots, int[] wideWidths, Parser parser, Stmt verifyChecksum, Stmt ingress,
                   Stmt egress, Stmt computeChecksum, Stmt deparser, List<Table> tables, List<Action> actions,
                   List<Externs.Counter> counters, List<Externs.Register> registers,
                   List<Externs.Meter> meters, List<ValueSet> valueSets, List<Externs.Digest> digests, Map<String, Type.Aggregate> controllerHeaders, List<String> errors, Expr.Agg headers,
                   Expr.Agg metadata, Expr.Agg standardMetadata, Map<Integer, List<Expr>> fieldLists,
                   Map<String, Map<String, List<String>>> objectAnnotations) {
        this.architecture = architecture;
        this.source = source;
        this.narrowSlots = narrowSlots;
        this.wideSlots = wideWidths.length;
        this.wideWidths = wideWidths;
        this.parser = parser;
        this.verifyChecksum = verifyChecksum;
        this.ingress = ingress;
        this.egress = egress;
        this.computeChecksum = computeChecksum;
        this.deparser = deparser;
        this.verifyChecksumCode = Jit.compile(verifyChecksum);
        this.ingressCode = Jit.compile(ingress);
        this.egressCode = Jit.compile(egress);
        this.computeChecksumCode = Jit.compile(computeChecksum);
        this.deparserCode = Jit.compile(deparser);
        this.tables = tables;
        this.actions = actions;
        this.counters = counters;
        this.registers = registers;
        this.meters = meters;
        this.valueSets = valueSets;
        this.digests = digests;
        this.controllerHeaders = controllerHeaders;
        this.errors = errors;
        this.headers = headers;
        this.metadata = metadata;
        this.standardMetadata = standardMetadata;
        this.fieldLists = fieldLists;
        this.objectAnnotations = objectAnnotations;
    }

    /** The action profiles and selectors the tables use, each once, in the order of the tables. */
    public List<ActionProfile> actionProfiles() {
        java.util.LinkedHashSet<ActionProfile> out = new java.util.LinkedHashSet<>();
        for (Table t : tables) {
            if (t.profile() != null) {
                out.add(t.profile());
            }
        }
        return new java.util.ArrayList<>(out);
    }

    public Table table(String name) {
        for (Table t : tables) {
            if (t.name.equals(name)) {
                return t;
            }
        }
        return null;
    }

    public Action action(String name) {
        for (Action a : actions) {
            if (a.name.equals(name)) {
                return a;
            }
        }
        return null;
    }

    /** A field of the architecture's metadata (standard_metadata, sume_metadata) as an l-value. */
    public Expr.LValue standardField(String field) {
        Type.Field f = ((Type.Aggregate) standardMetadata.type).fields.get(field);
        return new Expr.Slot(f.type, standardMetadata.fixedBase()[0] + f.narrowOffset, widthOf(f.type));
    }

    static int widthOf(Type t) {
        return t instanceof Type.Bits ? ((Type.Bits) t).width : 0;
    }

    public State newState() {
        return new State(narrowSlots, wideSlots);
    }
}
