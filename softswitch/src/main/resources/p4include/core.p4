/* core.p4 for softswitch: the P4_16 core library as the P4_16 specification defines it,
 * declared for softswitch's frontend. */
/* The include guard p4c's core.p4 defines: programs and skeletons test it. */
#ifndef _CORE_P4_
#define _CORE_P4_

error {
    NoError,
    PacketTooShort,
    NoMatch,
    StackOutOfBounds,
    HeaderTooShort,
    ParserTimeout,
    ParserInvalidArgument
}

extern packet_in {
    /* Extracts a fixed-size header and advances the cursor. */
    void extract<T>(out T hdr);
    /* Reads the next bits without advancing. */
    T lookahead<T>();
    void advance(in bit<32> sizeInBits);
    /* Length of the whole packet in bytes. */
    bit<32> length();
}

extern packet_out {
    /* Appends a header (if valid), or every header of a struct or stack. */
    void emit<T>(in T hdr);
}

extern void verify(in bool check, in error toSignal);

/* Stops the compilation, with the message, when the check (known at compile time) is false (P4_16 1.2.3).
   It returns true, so that it can initialise a constant. */
extern bool static_assert(bool check, string message);
extern bool static_assert(bool check);

@noWarn("unused")
action NoAction() {}

match_kind {
    exact,
    ternary,
    lpm
}

#endif
