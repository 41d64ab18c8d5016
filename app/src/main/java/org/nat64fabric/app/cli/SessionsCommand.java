package org.nat64fabric.app.cli;

import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.rest.Nat64Resource;

/** nat64-sessions: the session table, with the REST API's filters. */
@Service
@Command(scope = "onos", name = "nat64-sessions", description = "Lists NAT64 sessions")
public class SessionsCommand extends Nat64Command {
    @Option(name = "-p", aliases = "--protocol", description = "TCP, UDP or ICMP")
    @Completion(ProtocolCompleter.class)
    String protocol;

    @Option(name = "-6", aliases = "--ipv6", description = "the IPv6 host's address")
    @Completion(BibIpv6AddressCompleter.class)
    String ipv6Address;

    @Option(name = "-4", aliases = "--ipv4", description = "the pool4 address")
    String ipv4Address;

    @Option(name = "-r", aliases = "--remote", description = "the IPv4 remote's address")
    String remote;

    @Override
    protected void run(Nat64Service nat64) {
        Protocol p = protocol == null ? null : FabricConfig.protocol(protocol, "protocol");
        Ipv6Address a6 = ipv6Address == null ? null : Ipv6Address.parse(ipv6Address, "ipv6Address");
        Ipv4Address a4 = ipv4Address == null ? null : Ipv4Address.parse(ipv4Address, "ipv4Address");
        Ipv4Address r4 = remote == null ? null : Ipv4Address.parse(remote, "remote");
        list("sessions", nat64.sessions(p, a6, a4, r4), Nat64Resource::session);
    }
}
