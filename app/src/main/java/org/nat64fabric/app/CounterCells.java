package org.nat64fabric.app;

import java.util.Collection;
import org.nat64fabric.core.control.SwitchLink;
import org.onosproject.net.DeviceId;
import org.onosproject.net.pi.model.PiCounterId;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.runtime.PiCounterCell;

/**
 * Reads a device's indirect counters whole. ONOS 2.7 has no service or driver behaviour for
 * indirect counters (its flow subsystem reads only the direct ones), so the app reads them with
 * the device's P4Runtime client ({@link P4RuntimeCounterCells}).
 */
interface CounterCells {
    /** Every cell of these counters; throws {@link SwitchLink.SwitchException} when the read fails. */
    Collection<PiCounterCell> read(DeviceId device, PiPipeconf pipeconf, Collection<PiCounterId> counters);
}
