package org.nat64fabric.softswitch.runtime;

/** A control-plane request that cannot be applied, with the gRPC status code P4Runtime specifies. */
public final class EntityException extends Exception {
    /** The gRPC canonical codes P4Runtime uses for write errors. */
    public enum Code { INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, OUT_OF_RANGE, RESOURCE_EXHAUSTED, PERMISSION_DENIED, UNIMPLEMENTED,
        FAILED_PRECONDITION }

    private final Code code;

    public EntityException(Code code, String message) {
        super(message);
        this.code = code;
    }

    public Code code() {
        return code;
    }
}
