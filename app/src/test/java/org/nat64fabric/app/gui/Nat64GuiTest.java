package org.nat64fabric.app.gui;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.fabric.SwitchConfig;
import org.onosproject.net.DeviceId;
import org.onosproject.ui.UiExtension;
import org.onosproject.ui.UiExtensionServiceAdapter;
import org.onosproject.ui.UiTopoOverlay;
import org.onosproject.ui.UiView;
import org.onosproject.ui.topo.PropertyPanel;

/** The GUI extension: its registration, the pages it serves, and the topology overlay's panels. */
class Nat64GuiTest {
    private final FakeNat64Service service = new FakeNat64Service();

    private static String read(InputStream in) throws IOException {
        assertNotNull(in);
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void theComponentRegistersTheExtensionAndUnregistersIt() {
        List<String> calls = new ArrayList<>();
        Nat64Gui gui = new Nat64Gui();
        gui.nat64Service = service;
        gui.uiExtensionService = new UiExtensionServiceAdapter() {
            @Override
            public void register(UiExtension extension) {
                calls.add("register " + extension.views().stream().map(UiView::id).collect(Collectors.joining(",")));
            }

            @Override
            public void unregister(UiExtension extension) {
                calls.add("unregister " + extension.views().size());
            }
        };
        gui.activate();
        gui.deactivate();
        assertEquals(List.of("register nat64,nat64Topov", "unregister 2"), calls);
    }

    @Test
    void everyPageTheGuiLoadsIsInTheBundle() throws IOException {
        UiExtension extension = Nat64Gui.extension(service);
        assertEquals(UiView.Category.NETWORK, extension.views().get(0).category());
        String js = read(extension.js());
        String css = read(extension.css());
        Matcher m = Pattern.compile("(?:src|href)=\"app/view/([^/]+)/([^\"]+)\"").matcher(js + css);
        List<String> loaded = new ArrayList<>();
        while (m.find()) {
            read(extension.resource(m.group(1), m.group(2)));
            loaded.add(m.group(1) + "/" + m.group(2));
        }
        assertEquals(List.of("nat64/nat64.js", "nat64Topov/nat64Topov.js", "nat64/nat64.css"), loaded);
        String html = read(extension.resource(Nat64Gui.VIEW, "nat64.html"));
        for (String controller : List.of("OvNat64SessionCtrl", "OvNat64BibCtrl", "OvNat64EamCtrl")) {
            assertTrue(html.contains("ng-controller=\"" + controller + "\""), controller);
            assertTrue(read(extension.resource(Nat64Gui.VIEW, "nat64.js")).contains("'" + controller + "'"), controller);
        }
        // Each table asks for its rows by the tag the message handler answers (TAG + "DataRequest").
        for (String tag : List.of(Nat64ViewMessageHandler.SESSIONS, Nat64ViewMessageHandler.BIB,
                Nat64ViewMessageHandler.EAMT)) {
            assertTrue(read(extension.resource(Nat64Gui.VIEW, "nat64.js")).contains("tableController('" + tag + "')"),
                    tag);
        }
        // The legacy GUI loads a view's module by name: "ov" and the view's ID, capitalised.
        assertTrue(read(extension.resource(Nat64Gui.VIEW, "nat64.js")).contains("angular.module('ovNat64'"));
        assertTrue(read(extension.resource(Nat64Gui.OVERLAY_VIEW, "nat64Topov.js"))
                .contains("overlayId: '" + Nat64TopoOverlay.ID + "'"));
        List<UiTopoOverlay> overlays = new ArrayList<>(extension.topoOverlayFactory().newOverlays());
        assertEquals(Nat64TopoOverlay.ID, overlays.get(0).id());
        assertEquals(1, extension.messageHandlerFactory().newHandlers().size());
    }

    private static Map<String, String> props(PropertyPanel pp) {
        return pp.properties().stream().collect(Collectors.toMap(PropertyPanel.Prop::label, PropertyPanel.Prop::value,
                (a, b) -> a, java.util.LinkedHashMap::new));
    }

    @Test
    void aSwitchsDetailsShowItsRoleAndCounters() {
        service.devices.add(new Nat64Service.DeviceStatus("device:border1", SwitchConfig.Role.BORDER, true, 16));
        service.stats.putAll(Map.of("dataplane.device:border1.drops.no_route", 5L,
                "dataplane.device:border1.drops.no_route.perSecond", 2L,
                "dataplane.device:border1.translations.6to4_stateful", 7L,
                "dataplane.device:border1.translations.6to4_stateful.bytes", 700L,
                "dataplane.device:border1.tableHits.Nat64Ingress.ipv6_routes", 3L,
                "dataplane.device:leaf1.drops.no_route", 9L,
                "dataplane.fabric.drops.no_route", 14L));
        PropertyPanel pp = new PropertyPanel("border1", "switch");
        new Nat64TopoOverlay(service).modifyDeviceDetails(pp, DeviceId.deviceId("device:border1"));
        Map<String, String> p = props(pp);
        assertEquals("BORDER", p.get("NAT64 role"));
        assertEquals("yes", p.get("NAT64 programmed"));
        assertEquals("16", p.get("NAT64 entries held"));
        assertEquals("5 (2/s)", p.get("drops no_route"));
        assertEquals("7 (0/s)", p.get("translations 6to4_stateful"));
        assertEquals("3 (0/s)", p.get("tableHits Nat64Ingress.ipv6_routes"));
        assertFalse(p.values().stream().anyMatch(v -> v.startsWith("9 ") || v.startsWith("14 ")),
                "another switch's and the fabric's counters stay out: " + p);
    }

    @Test
    void aSwitchOutsideTheNat64AndTheSummary() {
        service.stats.putAll(Map.of("sessions", 4L, "bib", 3L, "eamt", 1L));
        service.devices.add(new Nat64Service.DeviceStatus("device:leaf1", SwitchConfig.Role.EDGE, false, 0));
        PropertyPanel pp = new PropertyPanel("s9", "switch");
        new Nat64TopoOverlay(service).modifyDeviceDetails(pp, DeviceId.deviceId("device:s9"));
        assertEquals("none (not in the NAT64 netcfg)", props(pp).get("NAT64 role"));
        PropertyPanel summary = new PropertyPanel("ONOS", "summary");
        new Nat64TopoOverlay(service).modifySummary(summary);
        Map<String, String> s = props(summary);
        assertEquals("0 / 1", s.get("NAT64 switches programmed"));
        assertEquals("4", s.get("NAT64 sessions"));
        service.configured = false;
        PropertyPanel unconfigured = new PropertyPanel("ONOS", "summary");
        new Nat64TopoOverlay(service).modifySummary(unconfigured);
        assertEquals("not configured (push the netcfg)", props(unconfigured).get("NAT64"));
    }
}
