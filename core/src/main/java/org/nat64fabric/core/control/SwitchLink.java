package org.nat64fabric.core.control;

import java.util.List;
import org.nat64fabric.core.fabric.TableEntry;

/**
 * A connected switch as {@link Nat64Fabric} drives it: the embedded controller implements it
 * over its own P4Runtime client, the ONOS app over ONOS's P4Runtime services.
 */
public interface SwitchLink {
    /** One change of a batch. */
    final class Update {
        public enum Type { INSERT, MODIFY, DELETE }

        public final Type type;
        public final TableEntry entry;

        public Update(Type type, TableEntry entry) {
            this.type = type;
            this.entry = entry;
        }

        @Override
        public String toString() {
            return type + " " + entry;
        }
    }

    String deviceId();

    /** Applies the updates as one batch; throws {@link SwitchException} naming what failed. */
    void write(List<Update> updates);

    /** Every entry the switch holds, default entries excepted (P4Runtime does not list them). */
    List<TableEntry> read();

    /** Sends a frame through the switch's pipeline, as if it had just arrived. */
    void packetOut(byte[] frame);

    /** A write or read the switch refused or could not take. */
    class SwitchException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public SwitchException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
