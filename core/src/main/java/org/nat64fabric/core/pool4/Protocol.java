package org.nat64fabric.core.pool4;

import java.util.Arrays;
import java.util.Optional;

/** The transports a NAT64 maps, with the number the data plane's session tables use. */
public enum Protocol {
    TCP(6), UDP(17), ICMP(1);

    public final int number;

    Protocol(int number) {
        this.number = number;
    }

    /** The transport whose number (an IP protocol number) a table entry matches, if it is one of these. */
    public static Optional<Protocol> byNumber(int number) {
        return Arrays.stream(values()).filter(p -> p.number == number).findFirst();
    }
}
