package org.nat64fabric.core.pool4;

import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Prefix;

/**
 * What pool4 hands out: addresses, a port range per protocol, blocks of ports per subscriber
 * (RFC 6888 REQ-14: one log record per block), a limit of blocks per subscriber (REQ-4), the
 * length of the IPv6 prefix that is one subscriber, and how long a freed port rests before reuse
 * (REQ-8: at least 120 s). With {@code deterministic} set, the subscribers are the
 * subscriber-length prefixes inside it and each one's blocks follow from its index (RFC 7422).
 */
public final class Pool4Config {
    public static final long MIN_HOLD_MILLIS = 120_000;

    final List<Ipv4Prefix> addresses;
    final Map<Protocol, int[]> portRanges;
    final int blockSize;
    final int blocksPerSubscriber;
    final int subscriberPrefixLength;
    final long holdMillis;
    final Ipv6Prefix deterministic;

    private Pool4Config(Builder b) {
        this.addresses = List.copyOf(b.addresses);
        this.portRanges = Map.copyOf(b.portRanges);
        this.blockSize = b.blockSize;
        this.blocksPerSubscriber = b.blocksPerSubscriber;
        this.subscriberPrefixLength = b.subscriberPrefixLength;
        this.holdMillis = b.holdMillis;
        this.deterministic = b.deterministic;
    }

    public List<Ipv4Prefix> addresses() {
        return addresses;
    }

    public int blocksPerSubscriber() {
        return blocksPerSubscriber;
    }

    /** The first and last port (ICMP: identifier) a protocol's mappings may use. */
    public int[] portRange(Protocol protocol) {
        return portRanges.get(protocol).clone();
    }

    public int blockSize() {
        return blockSize;
    }

    /** The IPv6 prefix length that identifies a subscriber. */
    public int subscriberPrefixLength() {
        return subscriberPrefixLength;
    }

    public long holdMillis() {
        return holdMillis;
    }

    public Optional<Ipv6Prefix> deterministic() {
        return Optional.ofNullable(deterministic);
    }

    public static Builder builder() {
        return new Builder();
    }

    public static final class Builder {
        private List<Ipv4Prefix> addresses = List.of();
        private final Map<Protocol, int[]> portRanges = new EnumMap<>(Map.of(
                Protocol.TCP, new int[] {1024, 65535}, Protocol.UDP, new int[] {1024, 65535},
                Protocol.ICMP, new int[] {0, 65535}));
        private int blockSize = 128;
        private int blocksPerSubscriber = 8;
        private int subscriberPrefixLength = 128;
        private long holdMillis = MIN_HOLD_MILLIS;
        private Ipv6Prefix deterministic;

        public Builder addresses(List<Ipv4Prefix> prefixes) {
            this.addresses = prefixes;
            return this;
        }

        public Builder ports(Protocol p, int first, int last) {
            portRanges.put(p, new int[] {first, last});
            return this;
        }

        public Builder blockSize(int ports) {
            this.blockSize = ports;
            return this;
        }

        public Builder blocksPerSubscriber(int blocks) {
            this.blocksPerSubscriber = blocks;
            return this;
        }

        public Builder subscriberPrefixLength(int length) {
            this.subscriberPrefixLength = length;
            return this;
        }

        public Builder holdMillis(long millis) {
            this.holdMillis = millis;
            return this;
        }

        /** RFC 7422 deterministic mapping for the subscribers inside {@code subscribers}; null turns it off. */
        public Builder deterministic(Ipv6Prefix subscribers) {
            this.deterministic = subscribers;
            return this;
        }

        public Pool4Config build() {
            if (addresses.isEmpty()) {
                throw new ConfigException("pool4.addresses", "at least one IPv4 prefix is needed");
            }
            for (int i = 0; i < addresses.size(); i++) {
                for (int j = 0; j < i; j++) {
                    if (addresses.get(i).overlaps(addresses.get(j))) {
                        throw new ConfigException("pool4.addresses[" + i + "]", addresses.get(i) + " overlaps "
                                + addresses.get(j));
                    }
                }
            }
            for (Map.Entry<Protocol, int[]> r : portRanges.entrySet()) {
                int[] range = r.getValue();
                if (range[0] < 0 || range[1] > 65535 || range[0] > range[1]) {
                    throw new ConfigException("pool4." + r.getKey().name().toLowerCase(Locale.ROOT) + "Ports",
                            range[0] + "-" + range[1] + " is not a range of ports within 0-65535");
                }
            }
            if (blockSize < 1 || blockSize > 1024 || Integer.bitCount(blockSize) != 1) {
                throw new ConfigException("pool4.blockSize", blockSize + " is not a power of two from 1 to 1024"
                        + " (blocks must not straddle the well-known/registered/dynamic boundaries)");
            }
            if (blocksPerSubscriber < 1) {
                throw new ConfigException("pool4.blocksPerSubscriber", "must be at least 1");
            }
            if (subscriberPrefixLength < 0 || subscriberPrefixLength > 128) {
                throw new ConfigException("pool4.subscriberPrefixLength", "must be between 0 and 128");
            }
            if (holdMillis < MIN_HOLD_MILLIS) {
                throw new ConfigException("pool4.holdSeconds", holdMillis / 1000
                        + " s is shorter than the 120 s RFC 6888 REQ-8 asks before a port is reused");
            }
            if (deterministic != null) {
                checkDeterministic();
            }
            return new Pool4Config(this);
        }

        /** Every subscriber inside the prefix must get its blocks, all on one address (paired pooling). */
        private void checkDeterministic() {
            int bits = subscriberPrefixLength - deterministic.length();
            if (bits < 0 || bits > 30) {
                throw new ConfigException("pool4.deterministic", deterministic + " must be 0 to 30 bits shorter"
                        + " than the subscriber prefix length /" + subscriberPrefixLength);
            }
            long addressCount = addresses.stream().mapToLong(Ipv4Prefix::size).sum();
            for (Map.Entry<Protocol, int[]> r : portRanges.entrySet()) {
                long perAddress = r.getValue()[1] / blockSize - r.getValue()[0] / blockSize + 1;
                if (perAddress % blocksPerSubscriber != 0) {
                    throw new ConfigException("pool4.blocksPerSubscriber", blocksPerSubscriber + " does not divide the "
                            + perAddress + " " + r.getKey() + " blocks of an address: a subscriber's blocks would"
                            + " straddle two addresses");
                }
                long needed = (1L << bits) * blocksPerSubscriber;
                if (needed > perAddress * addressCount) {
                    throw new ConfigException("pool4.deterministic", (1L << bits) + " subscribers × "
                            + blocksPerSubscriber + " blocks need " + needed + " " + r.getKey() + " blocks; the pool has "
                            + perAddress * addressCount + " (add addresses or shrink blocks)");
                }
            }
        }
    }
}
