package org.nat64fabric.app.gui;

import java.util.List;
import org.nat64fabric.core.control.Nat64Service;
import org.onosproject.ui.UiExtension;
import org.onosproject.ui.UiExtensionService;
import org.onosproject.ui.UiView;
import org.onosproject.ui.UiViewHidden;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;

/**
 * The app's part of ONOS's legacy web GUI: the "NAT64" view (Network menu) with the sessions, BIB
 * and EAMT tables, and the topology view's NAT64 overlay. A component of its own, so the NAT64
 * runs whether or not ONOS's GUI app (which provides {@link UiExtensionService}) is active.
 * The pages are the bundle's resources: css.html and js.html, and app/view/VIEW/ for each view.
 */
@Component(immediate = true)
public final class Nat64Gui {
    static final String VIEW = "nat64";
    /** Hidden: only loads the overlay's client code into the topology view. */
    static final String OVERLAY_VIEW = "nat64Topov";

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected UiExtensionService uiExtensionService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected Nat64Service nat64Service;

    private UiExtension extension;

    @Activate
    protected void activate() {
        extension = extension(nat64Service);
        uiExtensionService.register(extension);
    }

    @Deactivate
    protected void deactivate() {
        uiExtensionService.unregister(extension);
        extension = null;
    }

    static UiExtension extension(Nat64Service service) {
        List<UiView> views = List.of(new UiView(UiView.Category.NETWORK, VIEW, "NAT64"),
                new UiViewHidden(OVERLAY_VIEW));
        return new UiExtension.Builder(Nat64Gui.class.getClassLoader(), views)
                .messageHandlerFactory(() -> List.of(new Nat64ViewMessageHandler(service)))
                .topoOverlayFactory(() -> List.of(new Nat64TopoOverlay(service)))
                .build();
    }
}
