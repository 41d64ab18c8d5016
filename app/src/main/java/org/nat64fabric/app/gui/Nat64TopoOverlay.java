package org.nat64fabric.app.gui;

import java.util.Map;
import java.util.TreeMap;
import org.nat64fabric.core.control.Nat64Service;
import org.onosproject.net.DeviceId;
import org.onosproject.ui.UiTopoOverlay;
import org.onosproject.ui.topo.PropertyPanel;

/**
 * The topology view's NAT64 overlay: the summary panel gets the fabric's NAT64 state, a switch's
 * details panel its NAT64 role and its data-plane counters as last polled (the
 * {@code dataplane.DEVICE.FAMILY.LABEL} counters of {@link Nat64Service#stats()}).
 */
final class Nat64TopoOverlay extends UiTopoOverlay {
    static final String ID = "nat64-overlay";
    private static final String DATAPLANE = "dataplane.";
    private static final String PER_SECOND = ".perSecond";
    private static final String BYTES = ".bytes";

    private final Nat64Service service;

    Nat64TopoOverlay(Nat64Service service) {
        super(ID);
        this.service = service;
    }

    @Override
    public void modifySummary(PropertyPanel pp) {
        pp.addSeparator();
        try {
            Map<String, Long> stats = service.stats();
            long programmed = service.devices().stream().filter(d -> d.connected).count();
            pp.addProp("nat64Switches", "NAT64 switches programmed", programmed + " / " + service.devices().size())
                    .addProp("nat64Sessions", "NAT64 sessions", stats.getOrDefault("sessions", 0L))
                    .addProp("nat64Bib", "NAT64 BIB entries", stats.getOrDefault("bib", 0L))
                    .addProp("nat64Eamt", "NAT64 EAMT entries", stats.getOrDefault("eamt", 0L));
        } catch (Nat64Service.NotConfigured e) {
            pp.addProp("nat64", "NAT64", "not configured (push the netcfg)");
        }
    }

    @Override
    public void modifyDeviceDetails(PropertyPanel pp, DeviceId deviceId) {
        String device = deviceId.toString();
        Nat64Service.DeviceStatus status;
        Map<String, Long> stats;
        try {
            status = service.devices().stream().filter(d -> d.deviceId.equals(device)).findFirst().orElse(null);
            stats = service.stats();
        } catch (Nat64Service.NotConfigured e) {
            return;
        }
        pp.addSeparator();
        if (status == null) {
            pp.addProp("nat64Role", "NAT64 role", "none (not in the NAT64 netcfg)");
            return;
        }
        pp.addProp("nat64Role", "NAT64 role", status.role.name())
                .addProp("nat64Programmed", "NAT64 programmed", status.connected ? "yes" : "no")
                .addProp("nat64Entries", "NAT64 entries held", status.entries);
        counters(stats, device).forEach((cell, value) -> pp.addProp("nat64." + cell, cell, value));
    }

    /**
     * The device's counter cells that counted something, "family label" → "packets (rate/s)",
     * in family then label order.
     */
    static Map<String, String> counters(Map<String, Long> stats, String device) {
        String prefix = DATAPLANE + device + ".";
        Map<String, String> out = new TreeMap<>();
        stats.forEach((key, packets) -> {
            if (!key.startsWith(prefix) || key.endsWith(PER_SECOND) || key.endsWith(BYTES)) {
                return;
            }
            String cell = key.substring(prefix.length());
            int dot = cell.indexOf('.');
            if (dot > 0) {
                long rate = stats.getOrDefault(key + PER_SECOND, 0L);
                out.put(cell.substring(0, dot) + " " + cell.substring(dot + 1), packets + " (" + rate + "/s)");
            }
        });
        return out;
    }
}
