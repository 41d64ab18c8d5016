package org.nat64fabric.softswitch.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.frontend.Preprocessor;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.ActionProfile;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.proto.DeviceConfig;
import p4.v1.P4RuntimeOuterClass.ForwardingPipelineConfig;

/** A SimpleSumeSwitch pipeline needs ports 0-3 for nf0-nf3: a CPU port among them is refused. */
class SumePipelineTest {
    @Test
    void aCpuPortAmongTheSumePortsIsRefusedWhenThePipelineIsSet() throws Exception {
        Path p4 = Path.of("examples/sume_forwarding.p4");
        Preprocessor.Result pre = Preprocessor.run(p4, List.of(), List.of());
        ForwardingPipelineConfig config = ForwardingPipelineConfig.newBuilder()
                .setP4Info(P4InfoBuilder.build(Frontend.compile(p4)))
                .setP4DeviceConfig(DeviceConfig.newBuilder()
                        .setFormatVersion(Pipeline.DEVICE_CONFIG_VERSION).setProgramName("sume_forwarding.p4")
                        .setPreprocessedSource(pre.preprocessed).build().toByteString()).build();
        StatusException e = assertThrows(StatusException.class, () -> Pipeline.verify(config, 3, ActionProfile.PortLiveness.ALL_UP));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("--cpu-port outside 0-3"), e.getStatus().getDescription());
        assertEquals(Program.Architecture.SUME, Pipeline.verify(config, 255, ActionProfile.PortLiveness.ALL_UP).sw.program.architecture);
    }
}
