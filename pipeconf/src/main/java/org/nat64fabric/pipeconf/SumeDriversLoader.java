package org.nat64fabric.pipeconf;

import org.onosproject.net.driver.AbstractDriverLoader;
import org.osgi.service.component.annotations.Component;

/** Registers the "sume" driver (sume-drivers.xml): a NetFPGA SUME card behind its P4Runtime agent. */
@Component(immediate = true)
public final class SumeDriversLoader extends AbstractDriverLoader {
    public SumeDriversLoader() {
        super("/sume-drivers.xml");
    }
}
