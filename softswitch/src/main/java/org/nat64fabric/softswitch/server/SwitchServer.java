package org.nat64fabric.softswitch.server;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCredentials;
import io.grpc.StatusException;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.proto.DeviceConfig;
import p4.v1.P4RuntimeGrpc;
import p4.v1.P4RuntimeOuterClass.ForwardingPipelineConfig;

/** A device served over P4Runtime on a TCP address. */
public final class SwitchServer implements AutoCloseable {
    private static final int MAX_MESSAGE_BYTES = 256 << 20;   // pipelines and large reads

    public final Device device;
    private final Server server;

    private SwitchServer(Device device, Server server) {
        this.device = device;
        this.server = server;
    }

    /**
     * Starts serving with {@code credentials} (InsecureServerCredentials, or TLS from {@link #tls});
     * IOException says plainly when the address is taken.
     */
    public static SwitchServer start(Device device, InetSocketAddress address, ServerCredentials credentials)
            throws IOException {
        P4RuntimeService service = new P4RuntimeService(device);
        Server server;
        try {
            server = NettyServerBuilder.forAddress(address, credentials)
                    .addService(UnparsableRequests.answered(service.bindService()))
                    .callExecutor(SwitchServer::executorFor).maxInboundMessageSize(MAX_MESSAGE_BYTES).build();
            server.start();
        } catch (IllegalArgumentException e) {
            // Netty reads the TLS files' contents only here: a key or certificate it cannot parse
            throw new IOException("cannot use the TLS files (--grpc-server-cert, --grpc-server-key, --grpc-server-cacert): "
                    + e.getMessage() + "; give a PEM certificate chain and its PKCS#8 key (BEGIN PRIVATE KEY)");
        } catch (IOException e) {
            // Netty's epoll transport reports a taken port as a plain IOException with the errno text.
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IOException("cannot listen on " + address.getHostString() + ":" + address.getPort()
                    + " (" + cause.getMessage() + "): is another switch using that gRPC port?");
        }
        return new SwitchServer(device, server);
    }

    /**
     * TLS with the server's certificate chain and PKCS#8 key (PEM files); with {@code clientCa}, only
     * clients whose certificate that CA signed may connect.
     */
    public static ServerCredentials tls(Path cert, Path key, Path clientCa) throws IOException {
        TlsServerCredentials.Builder b = TlsServerCredentials.newBuilder();
        try {
            b.keyManager(cert.toFile(), key.toFile());
            if (clientCa != null) {
                b.trustManager(clientCa.toFile()).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException("cannot use TLS certificate " + cert + " / key " + key
                    + (clientCa != null ? " / client CA " + clientCa : "") + ": " + e.getMessage());
        }
        return b.build();
    }

    /**
     * Packet-outs and Writes run on the connection's I/O thread: each is short, and a hand-off to
     * another thread per message cost more than the message (a wake-up each, on a busy machine).
     * The rest (pipeline pushes that compile for the kernel, large Reads) keep gRPC's own pool.
     */
    private static <ReqT, RespT> Executor executorFor(ServerCall<ReqT, RespT> call, Metadata headers) {
        String m = call.getMethodDescriptor().getFullMethodName();   // by name: the methods take their requests as bytes
        return m.equals(P4RuntimeGrpc.getStreamChannelMethod().getFullMethodName())
                || m.equals(P4RuntimeGrpc.getWriteMethod().getFullMethodName()) ? Runnable::run : null;
    }

    public int port() {
        return server.getPort();
    }

    /** Runs {@code program} from the start, as if a controller had pushed it (softswitch run --p4). */
    public static void preload(Device device, Program program, DeviceConfig config) throws StatusException {
        ForwardingPipelineConfig fpc = ForwardingPipelineConfig.newBuilder()
                .setP4Info(P4InfoBuilder.build(program)).setP4DeviceConfig(config.toByteString()).build();
        device.setPipeline(Pipeline.verify(fpc, device.cpuPort, device));
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdown();
        if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
            server.shutdownNow();
        }
        device.close();
    }
}
