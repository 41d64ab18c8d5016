package org.nat64fabric.softswitch.frontend;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class QuickTest {
    @Test
    void compiles() {
        var p = Frontend.compile(Path.of("examples/l3_forwarding.p4"));
        System.out.println(p.tables.size() + " tables, " + p.actions.size() + " actions");
    }
}
