package org.nat64fabric.pipeconf;

import org.onosproject.net.driver.AbstractDriverLoader;
import org.osgi.service.component.annotations.Component;

/** Registers the "softswitch" driver (softswitch-drivers.xml): the p4runtime driver that pushes softswitch's device config. */
@Component(immediate = true)
public final class SoftswitchDriversLoader extends AbstractDriverLoader {
    public SoftswitchDriversLoader() {
        super("/softswitch-drivers.xml");
    }
}
