package org.nat64fabric.app.cli;

import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.rest.Nat64Resource;

/** nat64-eamt: the EAMT. */
@Service
@Command(scope = "onos", name = "nat64-eamt", description = "Lists the EAMT (RFC 7757)")
public class EamtCommand extends Nat64Command {
    @Override
    protected void run(Nat64Service nat64) {
        list("eamt", nat64.eamt(), Nat64Resource::eam);
    }
}
