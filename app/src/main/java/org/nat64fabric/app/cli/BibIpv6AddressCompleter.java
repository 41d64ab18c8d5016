package org.nat64fabric.app.cli;

import java.util.List;
import java.util.stream.Collectors;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.control.Nat64Service;
import org.onlab.osgi.DefaultServiceDirectory;
import org.onosproject.cli.AbstractChoicesCompleter;

/** The IPv6 addresses that have BIB entries. */
@Service
public class BibIpv6AddressCompleter extends AbstractChoicesCompleter {
    @Override
    protected List<String> choices() {
        try {
            return DefaultServiceDirectory.getService(Nat64Service.class).bib().stream()
                    .map(b -> b.address6().toString()).distinct().sorted().collect(Collectors.toList());
        } catch (Nat64Service.NotConfigured e) {
            return List.of();
        }
    }
}
