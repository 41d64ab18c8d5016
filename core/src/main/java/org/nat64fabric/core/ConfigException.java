package org.nat64fabric.core;

/**
 * A configuration value that cannot be used. It names the field, so that a REST API or a config
 * file loader can answer "pool6.prefix: ..." instead of a stack trace.
 */
public final class ConfigException extends IllegalArgumentException {
    private final String field;
    private final String problem;

    public ConfigException(String field, String problem) {
        super(field + ": " + problem);
        this.field = field;
        this.problem = problem;
    }

    /** What is wrong with the field, without its name. */
    public String problem() {
        return problem;
    }

    /** The offending field, as a dotted path (for example {@code eamt[2].ipv4}). */
    public String field() {
        return field;
    }
}
