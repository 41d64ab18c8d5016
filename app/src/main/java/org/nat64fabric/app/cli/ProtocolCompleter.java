package org.nat64fabric.app.cli;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.nat64fabric.core.pool4.Protocol;
import org.onosproject.cli.AbstractChoicesCompleter;

/** TCP, UDP, ICMP. */
@Service
public class ProtocolCompleter extends AbstractChoicesCompleter {
    @Override
    protected List<String> choices() {
        return Arrays.stream(Protocol.values()).map(Protocol::name).collect(Collectors.toList());
    }
}
