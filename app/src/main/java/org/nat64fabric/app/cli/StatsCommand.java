package org.nat64fabric.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.control.Nat64Service;

/** nat64-stats: the counters. */
@Service
@Command(scope = "onos", name = "nat64-stats",
        description = "Shows counters: packet-ins by punt reason, setups, refusals, NAT events, table sizes")
public class StatsCommand extends Nat64Command {
    @Override
    protected void run(Nat64Service nat64) {
        if (outputJson()) {
            ObjectNode root = mapper().createObjectNode();
            nat64.stats().forEach(root::put);
            print("%s", root);
        } else {
            nat64.stats().forEach((name, value) -> print("%-32s %d", name, value));
        }
    }
}
