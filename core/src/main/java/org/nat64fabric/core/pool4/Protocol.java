package org.nat64fabric.core.pool4;

/** The transports a NAT64 maps, with the number the data plane's session tables use. */
public enum Protocol {
    TCP(6), UDP(17), ICMP(1);

    public final int number;

    Protocol(int number) {
        this.number = number;
    }
}
