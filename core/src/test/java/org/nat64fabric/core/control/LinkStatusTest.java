package org.nat64fabric.core.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.config.FabricConfig;
import org.nat64fabric.core.store.InMemoryNatStore;

/** The fabric's links as the API lists them: each once, with its state. */
class LinkStatusTest {
    private static String shown(List<LinkStatus> links) {
        return links.stream().map(l -> l.srcDevice + "/" + l.srcPort + "-" + l.dstDevice + "/" + l.dstPort + " "
                + l.type + (l.bidirectional ? " both" : " one") + (l.up ? " up" : " down"))
                .collect(Collectors.joining(", "));
    }

    @Test
    void oppositeDirectionsOfOneTypeAreOneLinkUpWhenBothAre() {
        List<LinkStatus> directed = List.of(
                LinkStatus.directed("b", 1, "a", 2, "DIRECT", true),
                LinkStatus.directed("a", 2, "b", 1, "DIRECT", true),
                LinkStatus.directed("a", 3, "c", 1, "DIRECT", true),
                LinkStatus.directed("c", 1, "a", 3, "DIRECT", false),
                LinkStatus.directed("c", 2, "b", 2, "DIRECT", false),
                LinkStatus.directed("c", 2, "b", 2, "DIRECT", false),
                LinkStatus.directed("b", 2, "c", 2, "OPTICAL", true));
        assertEquals("a/2-b/1 DIRECT both up, a/3-c/1 DIRECT both down, b/2-c/2 OPTICAL one up,"
                + " c/2-b/2 DIRECT one down", shown(LinkStatus.paired(directed)));
        assertEquals("", shown(LinkStatus.paired(List.of())));
    }

    private static FabricConfig config() throws Exception {
        String sw = "\"routerMac\": \"00:00:00:00:b1:0%d\", \"routes\": []";
        return FabricConfig.parse(new ObjectMapper().readTree("{\"apps\": {\"org.nat64fabric.app\": {\"nat64\": {"
                + "\"pool6\": \"2001:db8:64::/96\", \"pool4\": {\"addresses\": [\"192.0.2.0/30\"]}}}},"
                + " \"devices\": {"
                + "\"edge\": {\"nat64fabric\": {\"role\": \"EDGE\", " + String.format(sw, 1) + "}},"
                + "\"border1\": {\"nat64fabric\": {\"role\": \"BORDER\", " + String.format(sw, 2) + "}},"
                + "\"border2\": {\"nat64fabric\": {\"role\": \"BORDER\", " + String.format(sw, 3) + "}}},"
                + " \"links\": {\"edge/2-border1/1\": {\"basic\": {}},"
                + " \"border2/4-border1/4\": {\"basic\": {\"bidirectional\": false, \"type\": \"indirect\"}},"
                + " \"edge/3-border2/1\": {\"basic\": {\"allowed\": false}}}}"));
    }

    /** The embedded controller knows no link state: a configured link is up when both its switches are connected. */
    @Test
    void theEmbeddedControllerListsTheConfiguredLinksUpWhenBothSwitchesAreConnected() throws Exception {
        Nat64Fabric fabric = new Nat64Fabric(config(), new InMemoryNatStore(), e -> { }, () -> 0L);
        assertEquals("border1/1-edge/2 DIRECT both down, border2/4-border1/4 INDIRECT one down", shown(fabric.links()));
        fabric.connected(new Nat64FabricTest.FakeSwitch("edge"));
        fabric.connected(new Nat64FabricTest.FakeSwitch("border1"));
        assertEquals("border1/1-edge/2 DIRECT both up, border2/4-border1/4 INDIRECT one down", shown(fabric.links()));
        fabric.connected(new Nat64FabricTest.FakeSwitch("border2"));
        assertEquals("border1/1-edge/2 DIRECT both up, border2/4-border1/4 INDIRECT one up", shown(fabric.links()));
        fabric.disconnected("edge");
        assertEquals("border1/1-edge/2 DIRECT both down, border2/4-border1/4 INDIRECT one up", shown(fabric.links()));
    }
}
