package org.nat64fabric.core.fabric;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The configuration of every cell of an indirect meter (P4Runtime MeterEntry, MeterConfig):
 * a two-rate three-colour marker (RFC 2698) with committed and peak rates and bursts, in the
 * meter's unit (packets for nat64.p4's punt meters). One entity stands for the whole meter
 * array, since every cell gets the same limit: a runtime writes each index and reads them back
 * as one entity only when all agree, so a cell that differs makes the whole meter rewritten.
 */
public final class MeterConfig implements Entity {
    public final String meter;
    public final long cir;
    public final long cburst;
    public final long pir;
    public final long pburst;

    public MeterConfig(String meter, long cir, long cburst, long pir, long pburst) {
        this.meter = meter;
        this.cir = cir;
        this.cburst = cburst;
        this.pir = pir;
        this.pburst = pburst;
    }

    /**
     * The meter's configuration as read from its cells ({@code null}: a cell without one), when
     * all {@code size} cells were read and agree; otherwise none, so that the meter is written again.
     */
    public static Optional<MeterConfig> ofCells(long size, List<MeterConfig> cells) {
        if (cells.size() != size || cells.isEmpty() || cells.get(0) == null
                || cells.stream().anyMatch(c -> !cells.get(0).equals(c))) {
            return Optional.empty();
        }
        return Optional.of(cells.get(0));
    }

    @Override
    public String key() {
        return "meter " + meter;
    }

    /** Meter cells always exist: P4Runtime only modifies them. */
    @Override
    public boolean alwaysPresent() {
        return true;
    }

    @Override
    public boolean readable() {
        return true;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof MeterConfig)) {
            return false;
        }
        MeterConfig m = (MeterConfig) o;
        return m.meter.equals(meter) && m.cir == cir && m.cburst == cburst && m.pir == pir && m.pburst == pburst;
    }

    @Override
    public int hashCode() {
        return Objects.hash(meter, cir, cburst, pir, pburst);
    }

    @Override
    public String toString() {
        return key() + " cir " + cir + "/" + cburst + " pir " + pir + "/" + pburst;
    }
}
