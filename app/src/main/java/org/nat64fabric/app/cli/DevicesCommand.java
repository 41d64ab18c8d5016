package org.nat64fabric.app.cli;

import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.control.Nat64Service;

/** nat64-devices: the configured switches as the NAT64 sees them. */
@Service
@Command(scope = "onos", name = "nat64-devices", description = "Lists the configured switches: role, connected, entries")
public class DevicesCommand extends Nat64Command {
    @Override
    protected void run(Nat64Service nat64) {
        for (Nat64Service.DeviceStatus d : nat64.devices()) {
            print("%s  %s  %s  %d entries", d.deviceId, d.role, d.connected ? "connected" : "not connected", d.entries);
        }
    }
}
