package org.nat64fabric.core.addr;

import org.nat64fabric.core.ConfigException;

/** What the two prefix parsers share. */
final class Prefixes {
    private Prefixes() {
    }

    static int length(String text, String field) {
        // ASCII digits only (Integer.parseInt also reads full-width and other Unicode digits), and no
        // leading zero, as the addresses' own numbers have none
        if (!text.matches("0|[1-9][0-9]{0,2}")) {
            throw new ConfigException(field, ConfigException.quote(text) + " is not a prefix length");
        }
        return Integer.parseInt(text);
    }
}
