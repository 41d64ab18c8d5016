package org.nat64fabric.core.control;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ICMP errors a switch sends back out of one port, limited as v1model's
 * {@code icmp_error.error_meter} limits them (RFC 4443 2.4(f), RFC 1812 4.3.2.8): a token bucket
 * per switch and port, filled at {@code perSecond} up to {@code burst} (the meter's rate and burst,
 * nat64.icmpErrors.perPortPps and perPortBurst). For a switch whose errors the controller builds
 * (a SUME card), so that both targets send the same errors at the same rate.
 */
final class PortErrorLimit {
    private final long perSecond;
    private final long burst;
    /** Per "device|port": {tokens, millisecond of the last fill}. */
    private final Map<String, double[]> buckets = new ConcurrentHashMap<>();

    PortErrorLimit(long perSecond, long burst) {
        this.perSecond = perSecond;
        this.burst = burst;
    }

    /** Whether one more error may go out of this port at {@code nowMs}; it takes a token when it may. */
    boolean allow(String deviceId, int port, long nowMs) {
        double[] b = buckets.computeIfAbsent(deviceId + "|" + port, k -> new double[] {burst, nowMs});
        synchronized (b) {
            b[0] = Math.min(burst, b[0] + Math.max(0, nowMs - (long) b[1]) * perSecond / 1000.0);
            b[1] = nowMs;
            if (b[0] >= 1) {
                b[0]--;
                return true;
            }
            return false;
        }
    }
}
