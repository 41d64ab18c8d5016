package org.nat64fabric.app.cli;

import java.util.List;
import java.util.stream.Collectors;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.control.Nat64Service;
import org.onlab.osgi.DefaultServiceDirectory;
import org.onosproject.cli.AbstractChoicesCompleter;

/** The IPv4 prefixes of the EAMT. */
@Service
public class EamIpv4PrefixCompleter extends AbstractChoicesCompleter {
    @Override
    protected List<String> choices() {
        try {
            return DefaultServiceDirectory.getService(Nat64Service.class).eamt().stream().map(e -> e.ipv4().toString())
                    .collect(Collectors.toList());
        } catch (Nat64Service.NotConfigured e) {
            return List.of();
        }
    }
}
