package org.nat64fabric.app.rest;

import java.util.Set;
import org.nat64fabric.core.rest.Nat64RestFeature;
import org.onlab.rest.AbstractWebApplication;

/** The app's JAX-RS application, named in WEB-INF/web.xml: core's resource with its limits and error answers. */
public class Nat64WebApplication extends AbstractWebApplication {
    @Override
    public Set<Class<?>> getClasses() {
        return getClasses(Nat64WebResource.class, Nat64RestFeature.class);
    }
}
