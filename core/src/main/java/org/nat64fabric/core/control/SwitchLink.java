package org.nat64fabric.core.control;

import java.util.List;
import java.util.Optional;
import org.nat64fabric.core.fabric.Entity;

/**
 * A connected switch as {@link Nat64Fabric} drives it: the embedded controller implements it
 * over its own P4Runtime client, the ONOS app over ONOS's P4Runtime services.
 */
public interface SwitchLink {
    /** One change of a batch. */
    final class Update {
        public enum Type { INSERT, MODIFY, DELETE }

        public final Type type;
        public final Entity entity;

        public Update(Type type, Entity entity) {
            this.type = type;
            this.entity = entity;
        }

        @Override
        public String toString() {
            return type + " " + entity;
        }
    }

    String deviceId();

    /**
     * Applies the updates as one batch; throws {@link SwitchException} naming what failed. An
     * entity the switch's pipeline lacks (a meter of a newer program) is skipped, and logged once.
     */
    void write(List<Update> updates);

    /**
     * Everything the switch holds that the controller may have written: table entries (default
     * entries excepted: P4Runtime does not list them), clone sessions, meter configurations.
     */
    List<Entity> read();

    /**
     * The switch's data-plane counters now; empty where this runtime cannot read them. Throws
     * {@link SwitchException} when the read fails.
     */
    default Optional<CounterReading> readCounters() {
        return Optional.empty();
    }

    /**
     * Whether the switch reports an idle entry again each idle timeout while it stays idle (a
     * P4Runtime server's IdleTimeoutNotifications: softswitch, the SUME agent), so that a report
     * not renewed tells the entry was hit since. False where an idle entry is removed and reported
     * once (ONOS's temporary flow rules): a later hit is then a miss the controller sees.
     */
    default boolean renewsIdleReports() {
        return true;
    }

    /**
     * Sends a frame through the switch's pipeline, as if it had just arrived; to a NetFPGA SUME
     * without its Ethernet header when it would not fit in a DMA frame with it
     * ({@code SumeHeaders.etherTypeLeftOut}).
     */
    void packetOut(byte[] frame);

    /** Sends a frame out of one of the switch's ports as it is, past the pipeline. */
    void packetOut(byte[] frame, int port);

    /**
     * Sends a frame the switch translated for one of the NAT64's own IPv4 addresses back through
     * its pipeline, marked as the second pass of the hairpin (a target without recirculation, a
     * NetFPGA SUME). False where the pipeline or this runtime has no such mark.
     */
    default boolean hairpin(byte[] frame) {
        return false;
    }

    /**
     * Sends a probe through the switch's pipeline, marked so ({@code packet_out.probe}, a NetFPGA
     * SUME: {@link Probes}). False where the pipeline or this runtime has no such mark.
     */
    default boolean probe(byte[] frame) {
        return false;
    }

    /** A write or read the switch refused or could not take. */
    class SwitchException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public SwitchException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
