package org.nat64fabric.app.rest;

import javax.ws.rs.Path;
import javax.ws.rs.Produces;
import javax.ws.rs.core.MediaType;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.rest.Nat64Resource;
import org.onlab.rest.BaseResource;

/**
 * Core's REST API in ONOS's web context, {@code /onos/nat64fabric}: the service is
 * {@link org.nat64fabric.app.Nat64Manager}, looked up in ONOS's service directory.
 */
@Path("")
@Produces(MediaType.APPLICATION_JSON)
public class Nat64WebResource extends Nat64Resource {
    /** ONOS's service directory (OSGi in ONOS, replaceable in tests through ResourceTest). */
    private static final class Services extends BaseResource {
    }

    private static final Services SERVICES = new Services();

    public Nat64WebResource() {
        super(() -> SERVICES.get(Nat64Service.class));
    }
}
