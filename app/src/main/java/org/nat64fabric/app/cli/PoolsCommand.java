package org.nat64fabric.app.cli;

import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Collectors;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.config.Nat64Config;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.rest.Nat64Resource;

/** nat64-pools: pool6, pool4 and the port blocks handed out. */
@Service
@Command(scope = "onos", name = "nat64-pools", description = "Shows pool6, pool4 and the port blocks in use")
public class PoolsCommand extends Nat64Command {
    @Override
    protected void run(Nat64Service nat64) {
        if (!outputJson()) {
            Nat64Config c = nat64.config();
            print("pool6  %s", c.pool6.prefix());
            print("pool4  %s", c.pool4.addresses());
            for (Protocol p : Protocol.values()) {
                int[] r = c.pool4.portRange(p);
                print("  %-5s ports %d-%d", p.name().toLowerCase(Locale.ROOT), r[0], r[1]);
            }
            print("blocks of %d ports, %d per subscriber, %d s hold before reuse", c.pool4.blockSize(),
                    c.pool4.blocksPerSubscriber(), c.pool4.holdMillis() / 1000);
        }
        list("blocks", nat64.blocks().stream().sorted(Comparator.comparing(PortBlock::toString))
                .collect(Collectors.toList()), Nat64Resource::block);
    }
}
