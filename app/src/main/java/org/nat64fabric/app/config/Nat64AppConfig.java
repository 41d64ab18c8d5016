package org.nat64fabric.app.config;

import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.config.FabricConfig;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.config.Config;
import org.onosproject.net.config.InvalidFieldException;

/**
 * {@code apps."org.nat64fabric.app".nat64}: pools, timers, limits, EAMT and static BIB entries,
 * read by core's {@link FabricConfig} (docs/netcfg.md). Invalid input is refused when pushed, with
 * the JSON path of the field at fault.
 */
public final class Nat64AppConfig extends Config<ApplicationId> {
    public static final String KEY = "nat64";

    @Override
    public boolean isValid() {
        String at = "apps." + FabricConfig.APP + "." + KEY;
        try {
            FabricConfig.nat64(node, at);
            for (int i = 0; i < node.path("eamt").size(); i++) {
                FabricConfig.eam(node.path("eamt").get(i), at + ".eamt[" + i + "]");
            }
            for (int i = 0; i < node.path("staticBib").size(); i++) {
                FabricConfig.staticBib(node.path("staticBib").get(i), at + ".staticBib[" + i + "]");
            }
            return true;
        } catch (ConfigException e) {
            throw new InvalidFieldException(e.field(), e.problem());
        }
    }
}
