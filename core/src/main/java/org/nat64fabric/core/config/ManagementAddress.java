package org.nat64fabric.core.config;

import java.net.URI;
import org.nat64fabric.core.ConfigException;

/**
 * A switch's P4Runtime address as ONOS netcfg writes it: {@code grpc://HOST:PORT?device_id=N},
 * or {@code grpcs://...} for a switch that speaks TLS.
 */
public final class ManagementAddress {
    /** HOST:PORT, the host in lower case (a host name's case names no other host). */
    public final String target;
    public final long deviceId;
    public final boolean tls;

    /** One switch, however its address is written (device_id 1 given or not, the host's case). */
    public String switchKey() {
        return target + "#" + Long.toUnsignedString(deviceId);
    }

    private ManagementAddress(String target, long deviceId, boolean tls) {
        this.target = target;
        this.deviceId = deviceId;
        this.tls = tls;
    }

    public static ManagementAddress parse(String text, String field) {
        if (text == null) {
            throw new ConfigException(field, "missing: the switch's P4Runtime address, grpc://HOST:PORT?device_id=N");
        }
        URI u;
        try {
            u = URI.create(text);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(field, "'" + text + "' is not a URI: " + e.getMessage());
        }
        boolean tls = "grpcs".equals(u.getScheme());
        if (!(tls || "grpc".equals(u.getScheme())) || u.getHost() == null || u.getPort() <= 0) {
            throw new ConfigException(field, "'" + text + "' must be grpc://HOST:PORT?device_id=N (grpcs:// for TLS)");
        }
        long id = 1;
        if (u.getQuery() != null) {
            for (String kv : u.getQuery().split("&")) {
                if (kv.startsWith("device_id=")) {
                    try {
                        id = Long.parseUnsignedLong(kv.substring("device_id=".length()));   // P4Runtime's uint64
                    } catch (NumberFormatException e) {
                        throw new ConfigException(field, "device_id in '" + text + "' is not a number from 0 to 2^64 - 1");
                    }
                }
            }
        }
        return new ManagementAddress(u.getHost().toLowerCase(java.util.Locale.ROOT) + ":" + u.getPort(), id, tls);
    }
}
