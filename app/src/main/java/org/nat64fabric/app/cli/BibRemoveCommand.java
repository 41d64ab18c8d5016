package org.nat64fabric.app.cli;

import java.util.Optional;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.rest.Nat64Resource;
import org.nat64fabric.core.session.BibEntry;

/** nat64-bib-remove: a BIB entry and its sessions, from every switch. */
@Service
@Command(scope = "onos", name = "nat64-bib-remove", description = "Removes a BIB entry and its sessions")
public class BibRemoveCommand extends Nat64Command {
    @Argument(index = 0, name = "protocol", description = "TCP, UDP or ICMP", required = true)
    @Completion(ProtocolCompleter.class)
    String protocol;

    @Argument(index = 1, name = "ipv6Address", required = true)
    @Completion(BibIpv6AddressCompleter.class)
    String ipv6Address;

    @Argument(index = 2, name = "ipv6Port", required = true)
    int ipv6Port;

    @Override
    protected void run(Nat64Service nat64) {
        Protocol p = FabricConfig.protocol(protocol, "protocol");
        Ipv6Address a = Ipv6Address.parse(ipv6Address, "ipv6Address");
        Optional<BibEntry> removed = nat64.removeBib(p, a, ipv6Port);
        if (removed.isEmpty()) {
            error("ipv6Address: no BIB entry for %s [%s]:%d", p, a, ipv6Port);
            return;
        }
        done(Nat64Resource.bib(removed.get()), "removed " + removed.get());
    }
}
