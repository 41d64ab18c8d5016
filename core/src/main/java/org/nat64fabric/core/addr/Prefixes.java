package org.nat64fabric.core.addr;

import org.nat64fabric.core.ConfigException;

/** What the two prefix parsers share. */
final class Prefixes {
    private Prefixes() {
    }

    static int length(String text, String field) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new ConfigException(field, "'" + text + "' is not a prefix length");
        }
    }
}
