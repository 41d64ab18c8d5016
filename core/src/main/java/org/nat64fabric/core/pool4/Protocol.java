package org.nat64fabric.core.pool4;

import java.util.Optional;

/** The transports a NAT64 maps, with the number the data plane's session tables use. */
public enum Protocol {
    TCP(6), UDP(17), ICMP(1);

    /** By IP protocol number: the state file reads one per row it decodes. */
    private static final Protocol[] BY_NUMBER = new Protocol[256];

    static {
        for (Protocol p : values()) {
            BY_NUMBER[p.number] = p;
        }
    }

    public final int number;

    Protocol(int number) {
        this.number = number;
    }

    /** The transport whose number (an IP protocol number) a table entry matches, if it is one of these. */
    public static Optional<Protocol> byNumber(int number) {
        return Optional.ofNullable(number >= 0 && number < BY_NUMBER.length ? BY_NUMBER[number] : null);
    }
}
