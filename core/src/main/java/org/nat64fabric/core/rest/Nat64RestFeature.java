package org.nat64fabric.core.rest;

import javax.ws.rs.core.Feature;
import javax.ws.rs.core.FeatureContext;

/**
 * What a runtime registers beside {@link Nat64Resource}: the body limit and the JSON error
 * answers. The embedded controller adds it to its Jersey configuration, the ONOS app to its web
 * application, so both answer bad requests the same way.
 */
public final class Nat64RestFeature implements Feature {
    @Override
    public boolean configure(FeatureContext context) {
        context.register(RequestLimits.class);
        context.register(ErrorMappers.Refused.class);
        context.register(ErrorMappers.Unexpected.class);
        return true;
    }
}
