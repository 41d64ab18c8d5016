package org.nat64fabric.sume.agent.runtime;

import io.grpc.Status;

/** A P4Runtime request the agent refuses, with the gRPC status code P4Runtime specifies for it. */
public final class EntityError extends Exception {
    public final Status.Code code;

    public EntityError(Status.Code code, String message) {
        super(message);
        this.code = code;
    }
}
