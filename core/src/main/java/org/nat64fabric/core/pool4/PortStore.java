package org.nat64fabric.core.pool4;

import java.util.List;

/**
 * Where pool4 keeps its state, so that every controller instance sharing the store hands out
 * unique transport addresses and a restart forgets none. Claims are atomic: of two instances
 * claiming the same block or port at once, exactly one succeeds.
 */
public interface PortStore {
    /** The key of a port in a store's map. */
    static String portKey(Protocol protocol, TransportAddress address) {
        return address.key(protocol);
    }

    /** The key of a block in a store's map: two blocks may not start at the same port. */
    static String blockKey(PortBlock block) {
        return block.protocol() + " " + block.address() + ":" + block.first();
    }

    /** Claims a block unless a block starting at the same address, protocol and port is held. */
    boolean claimBlock(PortBlock block);

    /** Gives a block and the rest marks of its ports back. */
    void releaseBlock(PortBlock block);

    /** Every block held. */
    List<PortBlock> blocks();

    /** Whether a block starting where {@code block} starts (its key) is held, by any subscriber. */
    boolean blockStartHeld(PortBlock block);

    /** Whether {@code block} is held now, by its subscriber. */
    boolean holds(PortBlock block);

    /**
     * The blocks one subscriber holds: asked at every allocation that its last block cannot serve,
     * so a store may index them.
     */
    default List<PortBlock> blocksOf(org.nat64fabric.core.addr.Ipv6Address subscriber) {
        List<PortBlock> out = new java.util.ArrayList<>();
        for (PortBlock b : blocks()) {
            if (b.subscriber().equals(subscriber)) {
                out.add(b);
            }
        }
        return out;
    }

    /** What {@link #claimPort} returns when it claimed the port. */
    long CLAIMED = Long.MIN_VALUE;

    /**
     * Claims a port that is neither in use nor resting at {@code now}: {@link #CLAIMED}, or else
     * when the port may be claimed again (the end of its rest; {@code Long.MAX_VALUE} while in use).
     */
    long claimPort(Protocol protocol, TransportAddress address, long now);

    /** The port's mapping ended: it rests until {@code until} (epoch ms). */
    void restPort(Protocol protocol, TransportAddress address, long until);

    /** Whether the port is in use, or resting at {@code now}. */
    boolean portBusy(Protocol protocol, TransportAddress address, long now);
}
