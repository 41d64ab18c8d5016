package org.nat64fabric.app.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.rest.Nat64Resource;
import org.nat64fabric.core.session.BibEntry;

/** nat64-bib-add: a static BIB entry, so an IPv6 server is reachable from IPv4 (RFC 6146 3.5.1). */
@Service
@Command(scope = "onos", name = "nat64-bib-add", description = "Adds a static BIB entry")
public class BibAddCommand extends Nat64Command {
    @Argument(index = 0, name = "protocol", description = "TCP, UDP or ICMP", required = true)
    @Completion(ProtocolCompleter.class)
    String protocol;

    @Argument(index = 1, name = "ipv6Address", required = true)
    String ipv6Address;

    @Argument(index = 2, name = "ipv6Port", description = "port, or ICMP identifier", required = true)
    int ipv6Port;

    @Argument(index = 3, name = "ipv4Address", description = "a pool4 address", required = true)
    String ipv4Address;

    @Argument(index = 4, name = "ipv4Port", required = true)
    int ipv4Port;

    @Override
    protected void run(Nat64Service nat64) {
        BibEntry added = nat64.addStaticBib(FabricConfig.protocol(protocol, "protocol"),
                Ipv6Address.parse(ipv6Address, "ipv6Address"), ipv6Port,
                new TransportAddress(Ipv4Address.parse(ipv4Address, "ipv4Address"), ipv4Port));
        done(Nat64Resource.bib(added), "added " + added);
    }
}
