package org.nat64fabric.app;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import org.nat64fabric.core.control.SwitchLink.SwitchException;
import org.onosproject.net.DeviceId;
import org.onosproject.net.config.NetworkConfigService;
import org.onosproject.net.config.basics.BasicDeviceConfig;
import org.onosproject.net.pi.model.PiCounterId;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.runtime.PiCounterCell;
import org.onosproject.p4runtime.api.P4RuntimeClient;
import org.onosproject.p4runtime.api.P4RuntimeController;
import org.onosproject.p4runtime.api.P4RuntimeReadClient;

/**
 * Indirect counters read through the P4Runtime client ONOS holds for the device: one Read of
 * every cell of the counters (a wildcard CounterEntry each). The P4Runtime device_id is the one
 * ONOS's drivers use, the {@code device_id} query parameter of the device's management address
 * in netcfg ({@code basic.managementAddress}, for example {@code grpc://10.0.0.1:50001?device_id=1}).
 */
final class P4RuntimeCounterCells implements CounterCells {
    private final P4RuntimeController controller;
    private final NetworkConfigService netcfg;

    P4RuntimeCounterCells(P4RuntimeController controller, NetworkConfigService netcfg) {
        this.controller = controller;
        this.netcfg = netcfg;
    }

    @Override
    public Collection<PiCounterCell> read(DeviceId device, PiPipeconf pipeconf, Collection<PiCounterId> counters) {
        P4RuntimeClient client = controller.get(device);
        if (client == null) {
            throw new SwitchException(device + ": ONOS holds no P4Runtime client for it", null);
        }
        BasicDeviceConfig basic = netcfg.getConfig(device, BasicDeviceConfig.class);
        long p4DeviceId = p4DeviceId(device, basic == null ? null : basic.managementAddress());
        P4RuntimeReadClient.ReadResponse response;
        try {
            response = client.read(p4DeviceId, pipeconf).counterCells(counters).submitSync();
        } catch (RuntimeException e) {
            throw new SwitchException(device + ": counter read failed: " + e, e);
        }
        if (!response.isSuccess()) {
            throw new SwitchException(device + ": counter read failed: " + response.explanation(),
                    response.throwable());
        }
        return response.all(PiCounterCell.class);
    }

    /** The device_id of a management address such as {@code grpc://host:port?device_id=1}. */
    static long p4DeviceId(DeviceId device, String managementAddress) {
        if (managementAddress == null) {
            throw new SwitchException(device + ": netcfg has no basic.managementAddress, so no P4Runtime device_id",
                    null);
        }
        String query;
        try {
            query = URI.create(managementAddress).getRawQuery();
        } catch (IllegalArgumentException e) {
            throw new SwitchException(device + ": basic.managementAddress " + managementAddress + " is not a URI", e);
        }
        for (String param : query == null ? new String[0] : query.split("&")) {
            if (param.startsWith("device_id=")) {
                String value = URLDecoder.decode(param.substring("device_id=".length()), StandardCharsets.UTF_8);
                try {
                    return Long.parseUnsignedLong(value);
                } catch (NumberFormatException e) {
                    throw new SwitchException(device + ": device_id " + value + " in " + managementAddress
                            + " is not an unsigned 64-bit number", e);
                }
            }
        }
        throw new SwitchException(device + ": basic.managementAddress " + managementAddress
                + " has no device_id parameter", null);
    }
}
