package org.nat64fabric.softswitch.pipeline;

import java.math.BigInteger;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** An action instance: its fully qualified name, control-plane parameters and compiled body. */
public final class Action {
    public final String name;
    public final Map<String, List<String>> annotations;
    public final List<Param> params;
    private Stmt body = Stmt.EMPTY;
    /** The body as it runs: compiled to JVM bytecode ({@link Jit}). */
    private Stmt code = Stmt.EMPTY;

    /** A parameter: its name, width and the slot its value is copied into before the body runs. */
    public static final class Param {
        public final String name;
        public final int width;
        public final Expr.LValue slot;
        public final Map<String, List<String>> annotations;

        public Param(String name, int width, Expr.LValue slot, Map<String, List<String>> annotations) {
            this.name = name;
            this.width = width;
            this.slot = slot;
            this.annotations = annotations;
        }
    }

    /**
     * The annotation of a SimpleSumeSwitch action's last parameter that the target fills, not the
     * controller: the entry's slot in a register of hits, {@code @sume_idle_slot("REGISTER")},
     * through which the SUME agent emulates idle timeouts (hw/netfpga/README.md, "Idle timeouts").
     */
    public static final String IDLE_SLOT = "sume_idle_slot";

    /**
     * When every parameter is a narrow slot of its own (as the compiler places them): their
     * indices and masks, so that an entry's arguments go in without a call per parameter; else null.
     */
    private final int[] paramSlots;
    private final long[] paramMasks;
    /**
     * The direct meters the body reads (itself or through an action it calls), by name: a table
     * entry may configure its table's direct meter only when its action does (P4Runtime 9.1.9).
     */
    public final Set<String> directMetersRead = new HashSet<>();

    public Action(String name, Map<String, List<String>> annotations, List<Param> params) {
        this.name = name;
        this.annotations = annotations;
        this.params = params;
        int[] slots = new int[params.size()];
        long[] masks = new long[params.size()];
        for (int i = 0; i < slots.length; i++) {
            Param p = params.get(i);
            if (!(p.slot instanceof Expr.Slot)) {
                slots = null;
                masks = null;
                break;
            }
            slots[i] = ((Expr.Slot) p.slot).index;
            masks[i] = ((Expr.Slot) p.slot).mask;
        }
        this.paramSlots = slots;
        this.paramMasks = masks;
    }

    /** The parameter the target fills ({@link #IDLE_SLOT}, always the last), or null. */
    public Param idleSlot() {
        Param last = params.isEmpty() ? null : params.get(params.size() - 1);
        return last != null && last.annotations.containsKey(IDLE_SLOT) ? last : null;
    }

    /** The parameters a controller gives: all but {@link #idleSlot()}. */
    public int controlParamCount() {
        return params.size() - (idleSlot() == null ? 0 : 1);
    }

    /** Set by the compiler once the body is compiled (the action exists before, for recursion checks and names). */
    public void compiledBody(Stmt compiled) {
        this.body = new Stmt.Callable(compiled);
        this.code = Jit.compile(body);
    }

    /**
     * Puts an entry's (or default action's) arguments in the parameters' slots: the call's wide
     * value where it has one (a parameter wider than 64 bits, or a 64-bit value with its top bit
     * set), else its long.
     */
    public void setParams(State s, Table.ActionCall call) {
        int[] slots = paramSlots;
        if (slots != null && !call.hasWide()) {
            long[] n = s.n;
            long[] masks = paramMasks;
            for (int i = 0; i < call.argCount(); i++) {
                n[slots[i]] = call.narrow(i) & masks[i];
            }
            return;
        }
        for (int i = 0; i < call.argCount(); i++) {
            Param p = params.get(i);
            BigInteger wide = call.wide(i);
            if (p.width > 64) {
                p.slot.setWide(s, wide);
            } else {
                p.slot.set(s, wide != null ? wide.longValue() : call.narrow(i));
            }
        }
    }

    /** The body in C, parameters already in place (see {@link CodeWriter}). */
    public void cBody(CodeWriter w) {
        body.c(w);
    }

    /** Runs the body with parameters already in place (a direct call from P4 code). */
    public int runBody(State s) {
        return code.exec(s);
    }

    @Override public String toString() {
        return name;
    }
}
