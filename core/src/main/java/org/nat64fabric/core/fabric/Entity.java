package org.nat64fabric.core.fabric;

/**
 * Something a switch holds that the controller decides: a table entry, a clone session, a
 * meter's configuration. {@link DesiredState} lists them, a runtime writes and reads them, and
 * reconciliation compares them by {@link #key} and {@code equals}.
 */
public interface Entity {
    /**
     * What identifies it on the switch (everything else may be modified): a value compared with
     * {@code equals}, whose {@code toString} names it.
     */
    Object key();

    /**
     * True when it exists on the switch whatever the controller did (a table's default entry,
     * a meter's cells): it is written with MODIFY only, never inserted or deleted.
     */
    boolean alwaysPresent();

    /** False when a read never returns it (a table's default entry): reconciliation writes it every time. */
    boolean readable();
}
