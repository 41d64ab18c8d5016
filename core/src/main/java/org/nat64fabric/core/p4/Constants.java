package org.nat64fabric.core.p4;

import java.util.List;

/**
 * The facts about p4/nat64.p4 that its P4Info does not carry, in one place next to the generated
 * {@link P4InfoConstants} (as fabric-tna keeps its Constants beside its P4InfoConstants): the CPU
 * port and clone session are preprocessor macros of the program, and what each counter cell counts
 * is a {@code const} of it, which no P4Info lists (the punt meters are in P4Info, hence in
 * P4InfoConstants). {@code ConstantsTest} compares every
 * value here with the P4 source, so a change there fails the build until this class follows.
 */
public final class Constants {
    /** p4/include/v1model_arch.p4 {@code CPU_PORT}: packet-ins leave, packet-outs enter, through it. */
    public static final int CPU_PORT = 255;
    /** p4/include/control.p4 {@code CPU_CLONE_SESSION}: the I2E clone of translated TCP SYN/FIN/RST. */
    public static final int CPU_CLONE_SESSION = 99;

    /**
     * p4/include/defines.p4's {@code DROP_*}, {@code PUNT_*}, {@code SENT_*} and {@code TRANSLATED_*}:
     * what each cell of a counter counts, by index, named as the constant without its prefix, in
     * lower case. Cells not listed (an index a newer program added) are named by their number.
     */
    public static final List<String> DROP_REASONS = List.of("parser_error", "bad_checksum", "no_route",
            "pool4_no_bib", "not_translatable", "ttl_expired", "filtered", "icmp_error", "too_big", "not_global",
            "bad_length", "local_fragment", "punt_policed", "udp_zero_checksum", "icmp_error_rate", "source_route",
            "link_group", "for_switch");
    /** Index 0 is no punt. */
    public static final List<String> PUNT_REASONS = List.of("none", "session_miss", "tcp_control",
            "needs_fragmentation", "no_route", "finish", "too_long", "fragment", "first_fragment", "inbound_syn",
            "icmp_extension");
    public static final List<String> ICMP_ERRORS_SENT = List.of("time_exceeded", "unreachable", "too_big",
            "param_problem");
    public static final List<String> TRANSLATIONS = List.of("6to4_stateful", "6to4_stateless", "4to6_stateful",
            "4to6_stateless");

    private Constants() {
    }
}
