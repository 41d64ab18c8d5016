package org.nat64fabric.core;

/**
 * A configuration value that cannot be used. It names the field, so that a REST API or a config
 * file loader can answer "pool6.prefix: ..." instead of a stack trace.
 */
public final class ConfigException extends IllegalArgumentException {
    /** How much of a bad value an error quotes: enough to recognise it, never a whole request body. */
    public static final int QUOTE_LIMIT = 40;

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

    /** The same problem with the field's path below {@code parent} (a section of the user's file). */
    public ConfigException under(String parent) {
        return new ConfigException(parent + "." + field, problem);
    }

    /**
     * A value as an error shows it: in quotes, its first {@value #QUOTE_LIMIT} characters with
     * control and non-ASCII characters escaped, so that errors stay short and printable.
     */
    public static String quote(String value) {
        if (value == null) {
            return "null";
        }
        StringBuilder s = new StringBuilder("'");
        int n = Math.min(value.length(), QUOTE_LIMIT);
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                s.append(String.format("\\u%04x", (int) c));
            } else {
                s.append(c);
            }
        }
        s.append('\'');
        if (value.length() > n) {
            s.append("… (").append(value.length()).append(" characters)");
        }
        return s.toString();
    }
}
