package org.nat64fabric.app.cli;

import java.util.Optional;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.rest.Nat64Resource;

/** nat64-eamt-remove: the EAM of an IPv4 prefix. */
@Service
@Command(scope = "onos", name = "nat64-eamt-remove", description = "Removes the EAM of an IPv4 prefix")
public class EamtRemoveCommand extends Nat64Command {
    @Argument(index = 0, name = "ipv4Prefix", description = "the EAM's IPv4 prefix", required = true)
    @Completion(EamIpv4PrefixCompleter.class)
    String ipv4Prefix;

    @Override
    protected void run(Nat64Service nat64) {
        Ipv4Prefix prefix = Ipv4Prefix.parse(ipv4Prefix, "ipv4Prefix");
        Optional<Eam> removed = nat64.removeEam(prefix);
        if (removed.isEmpty()) {
            error("ipv4Prefix: no EAM maps %s", prefix);
            return;
        }
        done(Nat64Resource.eam(removed.get()), "removed " + removed.get());
    }
}
