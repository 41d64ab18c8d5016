package org.nat64fabric.app.config;

import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.config.FabricConfig;
import org.onosproject.net.DeviceId;
import org.onosproject.net.config.Config;
import org.onosproject.net.config.InvalidFieldException;

/**
 * {@code devices.ID.nat64fabric}: the switch's role, router MAC, addresses, routes and port MTUs
 * (docs/netcfg.md). Invalid input is refused when pushed, with the JSON path of the field at fault.
 */
public final class Nat64DeviceConfig extends Config<DeviceId> {
    public static final String KEY = "nat64fabric";

    @Override
    public boolean isValid() {
        try {
            FabricConfig.switchConfig(subject.toString(), node, "devices." + subject + "." + KEY);
            return true;
        } catch (ConfigException e) {
            throw new InvalidFieldException(e.field(), e.problem());
        }
    }
}
