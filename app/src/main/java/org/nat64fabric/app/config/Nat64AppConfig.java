package org.nat64fabric.app.config;

import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.config.FabricConfig;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.config.Config;
import org.onosproject.net.config.InvalidFieldException;

/**
 * {@code apps."org.nat64fabric.app".nat64}: pools, timers, limits, EAMT and static BIB entries,
 * read by core's {@link FabricConfig} (docs/netcfg.md), with the same checks as the embedded
 * controller's config file. Invalid input is refused when pushed, with the JSON path of the field
 * at fault. What needs the devices' sections too (an EAM holding a switch's address) is checked
 * when the fabric is built from both, and logged.
 */
public final class Nat64AppConfig extends Config<ApplicationId> {
    public static final String KEY = "nat64";

    @Override
    public boolean isValid() {
        try {
            FabricConfig.nat64Section(node, FabricConfig.NAT64);
            return true;
        } catch (ConfigException e) {
            throw new InvalidFieldException(e.field(), e.problem());
        }
    }
}
