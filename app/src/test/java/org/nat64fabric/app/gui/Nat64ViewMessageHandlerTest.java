package org.nat64fabric.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.session.TcpState;
import org.onlab.osgi.TestServiceDirectory;
import org.onosproject.ui.UiConnection;
import org.onosproject.ui.model.topo.UiTopoLayout;

/** The NAT64 view's tables as ONOS's GUI receives them over its web socket. */
class Nat64ViewMessageHandlerTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final FakeNat64Service service = new FakeNat64Service();
    private final List<ObjectNode> sent = new ArrayList<>();
    private Nat64ViewMessageHandler handler;

    /** The browser's end of the web socket: what the handler sends, in order. */
    private final class Browser implements UiConnection {
        @Override
        public String userName() {
            return "onos";
        }

        @Override
        public UiTopoLayout currentLayout() {
            return null;
        }

        @Override
        public void setCurrentLayout(UiTopoLayout layout) {
        }

        @Override
        public String currentView() {
            return Nat64Gui.VIEW;
        }

        @Override
        public void setCurrentView(String view) {
        }

        @Override
        public void sendMessage(ObjectNode message) {
            sent.add(message);
        }

        @Override
        public void sendMessage(String type, ObjectNode payload) {
            sent.add(MAPPER.createObjectNode().put("event", type).set("payload", payload));
        }
    }

    @BeforeEach
    void setUp() {
        handler = new Nat64ViewMessageHandler(service);
        handler.init(new Browser(), new TestServiceDirectory());
    }

    /** Sends the table's data request as the view's table builder does; the answer's payload. */
    private JsonNode request(String tag, String payload) throws Exception {
        sent.clear();
        handler.process(MAPPER.createObjectNode().put("event", tag + "DataRequest")
                .set("payload", MAPPER.readTree(payload)));
        assertEquals(1, sent.size(), sent.toString());
        assertEquals(tag + "DataResponse", sent.get(0).path("event").asText());
        return sent.get(0).path("payload");
    }

    private static List<String> column(JsonNode response, String rows, String column) {
        return StreamSupport.stream(response.path(rows).spliterator(), false).map(r -> r.path(column).asText())
                .collect(Collectors.toList());
    }

    @Test
    void theHandlerAnswersTheThreeTablesRequests() {
        assertEquals(java.util.Set.of("nat64SessionDataRequest", "nat64BibDataRequest", "nat64EamDataRequest"),
                handler.messageTypes());
    }

    @Test
    void sessionRowsCarryBothSidesAndTheTcpState() throws Exception {
        service.addSession(Protocol.TCP, 1, TcpState.ESTABLISHED);
        service.addSession(Protocol.UDP, 2, null);
        JsonNode r = request("nat64Session", "{}");
        JsonNode rows = r.path("nat64Sessions");
        assertEquals(2, rows.size(), r.toString());
        JsonNode tcp = rows.get(0).path("protocol").asText().equals("TCP") ? rows.get(0) : rows.get(1);
        assertEquals("2001:db8:1::1 1001", tcp.path("ipv6").asText());
        assertEquals("192.0.2.1 2001", tcp.path("ipv4").asText());
        assertEquals("198.51.100.10 53", tcp.path("remote4").asText());
        assertEquals("2001:db8:64::c633:640a", tcp.path("remote6").asText());
        assertEquals("ESTABLISHED", tcp.path("tcpState").asText());
        assertEquals("300", tcp.path("lifetime").asText());
        assertEquals(service.sessions.get(0).key(), tcp.path("id").asText());
        assertEquals(2, r.path("annots").path("total").asInt());
    }

    @Test
    void theFilterMatchesAnyColumnIgnoringCase() throws Exception {
        service.addSession(Protocol.TCP, 1, TcpState.ESTABLISHED);
        service.addSession(Protocol.UDP, 2, null);
        service.addSession(Protocol.UDP, 3, null);
        assertEquals(List.of("UDP", "UDP"), column(request("nat64Session", "{\"filter\": \"udp\"}"),
                "nat64Sessions", "protocol"));
        assertEquals(List.of("2001:db8:1::3 1003"), column(request("nat64Session", "{\"filter\": \" ::3 \"}"),
                "nat64Sessions", "ipv6"));
        JsonNode none = request("nat64Session", "{\"filter\": \"established-not\"}");
        assertEquals(0, none.path("nat64Sessions").size());
        assertEquals("No row matches the filter", none.path("annots").path("no_rows_msg").asText());
    }

    @Test
    void aLargeTableSendsTheFirstRowsAndSaysHowManyMatched() throws Exception {
        for (int i = 1; i <= FilteredTableHandler.MAX_ROWS + 5; i++) {
            service.addSession(Protocol.UDP, i, null);
        }
        JsonNode r = request("nat64Session", "{}");
        assertEquals(FilteredTableHandler.MAX_ROWS, r.path("nat64Sessions").size());
        assertEquals(FilteredTableHandler.MAX_ROWS + 5, r.path("annots").path("total").asInt());
        assertEquals(FilteredTableHandler.MAX_ROWS, r.path("annots").path("shown").asInt());
    }

    @Test
    void theRowsSentAreTheFirstInTheOrderAsked() throws Exception {
        for (int i = 1; i <= FilteredTableHandler.MAX_ROWS + 5; i++) {
            service.addSession(Protocol.UDP, i, null);   // pool4 port 2000+i
        }
        // Descending: the last sessions added come first, the first five are left out.
        List<String> ipv4 = column(request("nat64Session", "{\"firstCol\": \"ipv4\", \"firstDir\": \"desc\"}"),
                "nat64Sessions", "ipv4");
        assertEquals(FilteredTableHandler.MAX_ROWS, ipv4.size());
        assertEquals("192.0.2.1 3005", ipv4.get(0));
        assertEquals("192.0.2.1 2006", ipv4.get(ipv4.size() - 1));
        assertFalse(ipv4.contains("192.0.2.1 2001"));
    }

    @Test
    void rowsAreSortedByTheColumnTheViewAsks() throws Exception {
        service.addSession(Protocol.UDP, 2, null);
        service.addSession(Protocol.TCP, 1, TcpState.ESTABLISHED);
        service.addSession(Protocol.ICMP, 3, null);
        assertEquals(List.of("UDP", "TCP", "ICMP"), column(request("nat64Session",
                "{\"firstCol\": \"protocol\", \"firstDir\": \"desc\"}"), "nat64Sessions", "protocol"));
    }

    @Test
    void bibAndEamtRows() throws Exception {
        service.addSession(Protocol.TCP, 1, TcpState.ESTABLISHED);
        service.eamt.add(Eam.parse("2001:db8:aa::/120", "198.51.100.0/24", "test"));
        JsonNode bib = request("nat64Bib", "{}").path("nat64Bibs");
        assertEquals(1, bib.size());
        assertEquals("dynamic", bib.get(0).path("kind").asText());
        assertEquals("192.0.2.1 2001", bib.get(0).path("ipv4").asText());
        JsonNode eamt = request("nat64Eam", "{}").path("nat64Eams");
        assertEquals("2001:db8:aa::/120", eamt.get(0).path("ipv6Prefix").asText());
        assertEquals("198.51.100.0/24", eamt.get(0).path("ipv4Prefix").asText());
    }

    @Test
    void withoutNetcfgTheTableSaysWhatIsMissing() throws Exception {
        service.configured = false;
        JsonNode r = request("nat64Bib", "{}");
        assertEquals(0, r.path("nat64Bibs").size());
        assertTrue(r.path("annots").path("no_rows_msg").asText().contains("no valid NAT64 configuration"), r.toString());
        service.configured = true;
        assertEquals("None", request("nat64Bib", "{}").path("annots").path("no_rows_msg").asText());
    }
}
