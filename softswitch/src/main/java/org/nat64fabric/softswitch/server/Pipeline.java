package org.nat64fabric.softswitch.server;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.Status;
import io.grpc.StatusException;
import org.nat64fabric.softswitch.frontend.Frontend;
import org.nat64fabric.softswitch.frontend.P4CompileException;
import org.nat64fabric.softswitch.frontend.Type;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.ActionProfile;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.proto.DeviceConfig;
import org.nat64fabric.softswitch.runtime.Entities;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import p4.config.v1.P4InfoOuterClass.ControllerPacketMetadata;
import p4.config.v1.P4InfoOuterClass.P4Info;
import p4.v1.P4RuntimeOuterClass.ForwardingPipelineConfig;

/** A forwarding pipeline a controller sent: its config, the compiled program and the switch running it. */
final class Pipeline {
    static final int DEVICE_CONFIG_VERSION = 1;

    final ForwardingPipelineConfig config;
    final V1ModelSwitch sw;
    final Entities entities;
    final ControllerHeader packetIn;
    final ControllerHeader packetOut;

    private Pipeline(ForwardingPipelineConfig config, V1ModelSwitch sw, Entities entities) {
        this.config = config;
        this.sw = sw;
        this.entities = entities;
        ControllerHeader in = null;
        ControllerHeader out = null;
        for (ControllerPacketMetadata m : config.getP4Info().getControllerPacketMetadataList()) {
            String name = m.getPreamble().getName();
            if (name.equals("packet_in") || name.equals("packet_out")) {
                // laid out with the program's widths: a translated field's P4Info width is the controller's
                Type.Aggregate header = sw.program.controllerHeaders.get(name);
                int[] widths = m.getMetadataList().stream()
                        .mapToInt(f -> header.fields.get(f.getName()).wireWidth()).toArray();
                if (name.equals("packet_in")) {
                    in = new ControllerHeader(m, widths);
                } else {
                    out = new ControllerHeader(m, widths);
                }
            }
        }
        this.packetIn = in;
        this.packetOut = out;
    }

    /**
     * Compiles and checks a config (the VERIFY step) for a switch whose CPU port is {@code cpuPort}
     * and whose ports' liveness {@code ports} tells; INVALID_ARGUMENT says what is wrong.
     */
    static Pipeline verify(ForwardingPipelineConfig config, int cpuPort, ActionProfile.PortLiveness ports)
            throws StatusException {
        if (!config.hasP4Info()) {
            throw invalid("config.p4info is missing");
        }
        DeviceConfig dc;
        try {
            dc = DeviceConfig.parseFrom(config.getP4DeviceConfig());
        } catch (InvalidProtocolBufferException e) {
            throw invalid("config.p4_device_config is not a softswitch DeviceConfig; make it with "
                    + "'softswitch compile PROGRAM.p4 --out-dir DIR' (DIR/device_config.bin)");
        }
        if (dc.getFormatVersion() != DEVICE_CONFIG_VERSION) {
            throw invalid("config.p4_device_config has format version " + dc.getFormatVersion()
                    + "; this softswitch reads version " + DEVICE_CONFIG_VERSION + " (rebuild it with this softswitch)");
        }
        if (dc.getPreprocessedSource().isEmpty()) {
            throw invalid("config.p4_device_config carries no program");
        }
        Program program;
        try {
            program = Frontend.compilePreprocessed(dc.getPreprocessedSource(), dc.getProgramName(), dc.getSeed());
        } catch (P4CompileException e) {
            throw invalid("the program does not compile: " + e.getMessage());
        }
        String ids = P4InfoCheck.badIds(config.getP4Info());
        if (ids != null) {
            throw invalid("config.p4info: " + ids);
        }
        P4Info ours = P4InfoBuilder.build(program);
        String diff = P4InfoCheck.difference(ours, config.getP4Info());
        if (diff != null) {
            throw invalid("config.p4info does not describe the program: " + diff);
        }
        // A controller's value of a translated type is its data-plane value (8.5.6); a string is none.
        for (var t : ours.getTypeInfo().getNewTypesMap().entrySet()) {
            if (t.getValue().getTranslatedType().hasSdnString()) {
                throw invalid("type " + t.getKey() + " is translated to a string (@p4runtime_translation(\""
                        + t.getValue().getTranslatedType().getUri() + "\", string)): softswitch translates a controller's"
                        + " values as themselves, which a string cannot be; declare its controller type bit<W>");
            }
        }
        if (program.architecture == Program.Architecture.SUME && cpuPort >= 0 && cpuPort <= 3) {
            throw invalid("a SimpleSumeSwitch program takes ports 0-3 as nf0-nf3, and this switch's CPU port is "
                    + cpuPort + ": run softswitch with a --cpu-port outside 0-3");
        }
        V1ModelSwitch sw = new V1ModelSwitch(program);
        return new Pipeline(config, sw, new Entities(sw, config.getP4Info(), ports));
    }

    /**
     * This pipeline and its state under {@code other}, a config of the same program
     * (RECONCILE_AND_COMMIT, P4Runtime 14); null when {@code other} is another program: another
     * source (its line markers, which name the files it came from, aside) or seed, or a P4Info that
     * differs in more than annotations, documentation, pkg_info or the order of its objects.
     */
    Pipeline reconciledTo(ForwardingPipelineConfig other) {
        if (!sameProgram(config.getP4DeviceConfig(), other.getP4DeviceConfig())
                || !essential(config.getP4Info()).equals(essential(other.getP4Info()))) {
            return null;
        }
        return new Pipeline(other, sw, entities);
    }

    private static final java.util.regex.Pattern LINE_MARKER =
            java.util.regex.Pattern.compile("(?m)^[ \\t]*#[ \\t]*(line[ \\t]+)?\\d+[ \\t]+\"[^\\n]*$");

    private static boolean sameProgram(com.google.protobuf.ByteString a, com.google.protobuf.ByteString b) {
        try {
            DeviceConfig x = DeviceConfig.parseFrom(a);
            DeviceConfig y = DeviceConfig.parseFrom(b);
            return x.getFormatVersion() == y.getFormatVersion() && x.getSeed() == y.getSeed()
                    && LINE_MARKER.matcher(x.getPreprocessedSource()).replaceAll("")
                            .equals(LINE_MARKER.matcher(y.getPreprocessedSource()).replaceAll(""));
        } catch (InvalidProtocolBufferException e) {
            return false;
        }
    }

    /** A P4Info without what does not change the objects a controller addresses: annotations, docs, pkg_info, object order. */
    private static com.google.protobuf.Message essential(P4Info info) {
        P4Info.Builder b = info.toBuilder().clearPkgInfo();
        strip(b);
        for (com.google.protobuf.Descriptors.FieldDescriptor f : b.getDescriptorForType().getFields()) {
            if (f.isRepeated() && f.getJavaType() == com.google.protobuf.Descriptors.FieldDescriptor.JavaType.MESSAGE) {
                java.util.List<Object> items = new java.util.ArrayList<>((java.util.List<?>) b.getField(f));
                items.sort(java.util.Comparator.comparing(o -> ((com.google.protobuf.Message) o).toByteString().toStringUtf8()));
                b.setField(f, items);
            }
        }
        return b.build();
    }

    private static void strip(com.google.protobuf.Message.Builder b) {
        for (com.google.protobuf.Descriptors.FieldDescriptor f : b.getDescriptorForType().getFields()) {
            if (f.getName().equals("annotations") || f.getName().equals("structured_annotations")
                    || f.getName().equals("doc") || f.getName().equals("annotation_locations")) {
                b.clearField(f);
            } else if (f.getJavaType() == com.google.protobuf.Descriptors.FieldDescriptor.JavaType.MESSAGE && !f.isMapField()) {
                // (type_info's maps are compared as they are: protobuf builds no builder of a map's entry)
                if (f.isRepeated()) {
                    for (int i = 0; i < b.getRepeatedFieldCount(f); i++) {
                        strip(b.getRepeatedFieldBuilder(f, i));
                    }
                } else if (b.hasField(f)) {
                    strip(b.getFieldBuilder(f));
                }
            }
        }
    }

    /** Refused, saying why; a long reason cut (it travels in a trailer, which most clients take up to 8 KiB of). */
    private static StatusException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(Answers.bounded(message)).asException();
    }
}
