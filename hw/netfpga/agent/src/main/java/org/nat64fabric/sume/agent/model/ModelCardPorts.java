package org.nat64fabric.sume.agent.model;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;
import org.nat64fabric.sume.agent.io.RawSocket;

/**
 * The model card's ports: nfK on a Linux interface each, and its DMA port on another one (a veth
 * whose peer stands in for the host's DMA netdev, where the agent listens). A frame arriving on
 * any of them goes through the program; what it sends to a DMA bit leaves on the DMA interface.
 */
public final class ModelCardPorts implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger("sume-agent");
    /** The softswitch port number the SimpleSumeSwitch's DMA bits stand for. */
    static final int DMA_PORT = 255;

    private final ModelCard card;
    private final Map<Integer, RawSocket> sockets = new TreeMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running = true;

    public ModelCardPorts(ModelCard card, Map<Integer, String> ports, String dma) throws IOException {
        this.card = card;
        card.sw.setCpuPort(DMA_PORT);
        try {
            for (Map.Entry<Integer, String> p : ports.entrySet()) {
                sockets.put(p.getKey(), RawSocket.open(p.getValue(), 200));
            }
            sockets.put(DMA_PORT, RawSocket.open(dma, 200));
        } catch (IOException e) {
            close();
            throw e;
        }
        for (Map.Entry<Integer, RawSocket> s : sockets.entrySet()) {
            Thread t = new Thread(() -> receive(s.getKey(), s.getValue()), "model-card " + s.getValue().name);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    private void receive(int port, RawSocket socket) {
        while (running) {
            try {
                byte[] frame = socket.receive();
                if (frame == null) {
                    continue;
                }
                for (V1ModelSwitch.Output out : card.sw.process(port, frame)) {
                    RawSocket to = sockets.get(out.port);
                    if (to != null) {
                        to.send(out.data);
                    }
                }
            } catch (IOException | RuntimeException e) {
                if (running) {
                    LOG.log(Level.WARNING, "model card, port " + socket.name + ": " + e.getMessage());
                }
            }
        }
    }

    @Override
    public void close() {
        running = false;
        for (Thread t : threads) {
            try {
                t.join(1000);   // each wakes within its socket's receive timeout
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (RawSocket s : sockets.values()) {
            s.close();
        }
    }
}
