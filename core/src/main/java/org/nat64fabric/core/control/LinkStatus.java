package org.nat64fabric.core.control;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A link between two switch ports as the operator's API lists it, with whether it is up as the
 * runtime can know it (ONOS: its link state; the embedded controller: both ends' switches
 * connected). Runtimes know links one direction at a time, as ONOS does: {@link #paired} lists a
 * link that runs both ways once.
 */
public final class LinkStatus {
    public final String srcDevice;
    public final long srcPort;
    public final String dstDevice;
    public final long dstPort;
    /** ONOS's link type: DIRECT, INDIRECT, EDGE, TUNNEL, OPTICAL or VIRTUAL. */
    public final String type;
    /** Both directions are known: the ends are then in order, the lower device and port first. */
    public final boolean bidirectional;
    /** Bidirectional: both directions are up. */
    public final boolean up;

    public LinkStatus(String srcDevice, long srcPort, String dstDevice, long dstPort, String type,
                      boolean bidirectional, boolean up) {
        this.srcDevice = srcDevice;
        this.srcPort = srcPort;
        this.dstDevice = dstDevice;
        this.dstPort = dstPort;
        this.type = type;
        this.bidirectional = bidirectional;
        this.up = up;
    }

    /** One direction of a link, from src to dst. */
    public static LinkStatus directed(String srcDevice, long srcPort, String dstDevice, long dstPort, String type,
                                      boolean up) {
        return new LinkStatus(srcDevice, srcPort, dstDevice, dstPort, type, false, up);
    }

    private static final Comparator<LinkStatus> ORDER = Comparator.<LinkStatus, String>comparing(l -> l.srcDevice)
            .thenComparingLong(l -> l.srcPort).thenComparing(l -> l.dstDevice).thenComparingLong(l -> l.dstPort);

    /**
     * The links of these directed ones, in order: two opposite directions of the same type become
     * one bidirectional link, up when both are; a direction given twice counts once.
     */
    public static List<LinkStatus> paired(Collection<LinkStatus> directed) {
        Map<List<Object>, LinkStatus> byEnds = new LinkedHashMap<>();
        directed.stream().sorted(ORDER).forEach(l -> byEnds.putIfAbsent(key(l.srcDevice, l.srcPort, l.dstDevice, l.dstPort), l));
        List<LinkStatus> out = new ArrayList<>();
        while (!byEnds.isEmpty()) {
            LinkStatus l = byEnds.remove(byEnds.keySet().iterator().next());
            LinkStatus back = byEnds.get(key(l.dstDevice, l.dstPort, l.srcDevice, l.srcPort));
            if (back != null && back.type.equals(l.type)) {
                byEnds.remove(key(l.dstDevice, l.dstPort, l.srcDevice, l.srcPort));
                out.add(new LinkStatus(l.srcDevice, l.srcPort, l.dstDevice, l.dstPort, l.type, true, l.up && back.up));
            } else {
                out.add(l);
            }
        }
        return out;
    }

    private static List<Object> key(String srcDevice, long srcPort, String dstDevice, long dstPort) {
        return List.of(srcDevice, srcPort, dstDevice, dstPort);
    }
}
