package org.nat64fabric.sume.agent.server;

import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.nat64fabric.softswitch.server.UnparsableRequests;
import org.nat64fabric.sume.agent.card.CardTables;
import org.nat64fabric.sume.agent.io.RawSocket;
import p4.config.v1.P4InfoOuterClass.P4Info;

/** The agent's gRPC server and its DMA reader. */
public final class AgentServer implements AutoCloseable {
    private static final int MAX_MESSAGE_BYTES = 256 << 20;

    private final Server server;
    private final Thread dmaReader;
    private final ScheduledExecutorService idlePoller;
    private volatile boolean running = true;

    private AgentServer(Server server, AgentService service, long idlePollMs) {
        this.server = server;
        this.dmaReader = new Thread(() -> service.receivePacketIns(() -> running), "dma");
        dmaReader.setDaemon(true);
        dmaReader.start();
        this.idlePoller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "idle-timeouts");
            t.setDaemon(true);
            return t;
        });
        idlePoller.scheduleWithFixedDelay(service::pollIdleEntries, idlePollMs, idlePollMs, TimeUnit.MILLISECONDS);
    }

    /** {@code idlePollMs}: how often the card's hit counts are read for idle timeouts. */
    public static AgentServer start(long deviceId, CardTables card, P4Info built, RawSocket dma, InetSocketAddress address,
                                    long idlePollMs) throws IOException {
        AgentService service = new AgentService(deviceId, card, built, dma);
        Server server = NettyServerBuilder.forAddress(address, InsecureServerCredentials.create())
                .addService(UnparsableRequests.answered(service.bindService()))
                .maxInboundMessageSize(MAX_MESSAGE_BYTES).build();
        try {
            server.start();
        } catch (IOException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IOException("cannot listen on " + address.getHostString() + ":" + address.getPort()
                    + " (" + cause.getMessage() + ")");
        }
        return new AgentServer(server, service, idlePollMs);
    }

    public int port() {
        return server.getPort();
    }

    public void awaitTermination() {
        try {
            server.awaitTermination();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        idlePoller.shutdownNow();
        server.shutdown();
        try {
            if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
                server.shutdownNow();
            }
            dmaReader.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
