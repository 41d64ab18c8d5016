package org.nat64fabric.pipeconf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.onosproject.drivers.p4runtime.AbstractP4RuntimePipelineProgrammable;
import org.onosproject.net.pi.model.PiPipeconf;

/**
 * Pushes a pipeline to softswitch, or to a SUME card through its agent: the P4Runtime device
 * config is the pipeconf's RAW_DEVICE_CONFIG (what `softswitch compile` writes as
 * device_config.bin; the SUME agent keeps it as the program the card was built from).
 */
public final class SoftswitchPipelineProgrammable extends AbstractP4RuntimePipelineProgrammable {
    @Override
    public ByteBuffer createDeviceDataBuffer(PiPipeconf pipeconf) {
        Optional<InputStream> config = pipeconf.extension(PiPipeconf.ExtensionType.RAW_DEVICE_CONFIG);
        if (config.isEmpty()) {
            log.warn("Pipeconf {} has no softswitch device config (RAW_DEVICE_CONFIG); bind {} (softswitch) or {} (SUME)",
                    pipeconf.id(), PipeconfLoader.SOFTSWITCH, PipeconfLoader.SUME);
            return null;
        }
        try (InputStream in = config.get()) {
            return ByteBuffer.wrap(in.readAllBytes());
        } catch (IOException e) {
            log.warn("Cannot read the device config of pipeconf {}: {}", pipeconf.id(), e.getMessage());
            return null;
        }
    }

    @Override
    public Optional<PiPipeconf> getDefaultPipeconf() {
        return Optional.empty();
    }
}
