package org.nat64fabric.app.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.rest.Nat64Resource;

/** nat64-eamt-add: one EAM, on every switch before the command returns. */
@Service
@Command(scope = "onos", name = "nat64-eamt-add", description = "Adds an EAM: an IPv6 prefix and the IPv4 prefix it maps to")
public class EamtAddCommand extends Nat64Command {
    @Argument(index = 0, name = "ipv6Prefix", description = "e.g. 2001:db8:2::20/128", required = true)
    String ipv6Prefix;

    @Argument(index = 1, name = "ipv4Prefix", description = "e.g. 198.18.0.20/32", required = true)
    String ipv4Prefix;

    @Override
    protected void run(Nat64Service nat64) {
        Eam eam = Eam.parse(ipv6Prefix, ipv4Prefix, "eam");
        nat64.addEam(eam);
        done(Nat64Resource.eam(eam), "added " + eam);
    }
}
