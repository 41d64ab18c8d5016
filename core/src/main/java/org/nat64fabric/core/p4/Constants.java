package org.nat64fabric.core.p4;

/**
 * The facts about p4/nat64.p4 that its P4Info does not carry, in one place next to the generated
 * {@link P4InfoConstants} (as fabric-tna keeps its Constants beside its P4InfoConstants): the CPU
 * port and clone session are preprocessor macros of the program, which no P4Info lists (the punt
 * meters are in P4Info, hence in P4InfoConstants). {@code ConstantsTest} compares every
 * value here with the P4 source, so a change there fails the build until this class follows.
 */
public final class Constants {
    /** p4/include/v1model_arch.p4 {@code CPU_PORT}: packet-ins leave, packet-outs enter, through it. */
    public static final int CPU_PORT = 255;
    /** p4/include/control.p4 {@code CPU_CLONE_SESSION}: the I2E clone of translated TCP SYN/FIN/RST. */
    public static final int CPU_CLONE_SESSION = 99;
    private Constants() {
    }
}
