package org.nat64fabric.app.cli;

import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.rest.Nat64Resource;

/** nat64-bib: the binding information base, static and dynamic entries. */
@Service
@Command(scope = "onos", name = "nat64-bib", description = "Lists BIB entries (RFC 6146)")
public class BibCommand extends Nat64Command {
    @Option(name = "-p", aliases = "--protocol", description = "TCP, UDP or ICMP")
    @Completion(ProtocolCompleter.class)
    String protocol;

    @Option(name = "-s", aliases = "--static", description = "static entries only")
    boolean staticOnly;

    @Override
    protected void run(Nat64Service nat64) {
        Protocol p = protocol == null ? null : FabricConfig.protocol(protocol, "protocol");
        list("bib", nat64.bib(p, staticOnly ? Boolean.TRUE : null), Nat64Resource::bib);
    }
}
