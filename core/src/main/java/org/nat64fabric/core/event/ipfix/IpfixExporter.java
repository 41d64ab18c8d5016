package org.nat64fabric.core.event.ipfix;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Logger;
import org.nat64fabric.core.config.IpfixConfig;
import org.nat64fabric.core.event.NatEvent;

/**
 * Exports NAT events as IPFIX over UDP (RFC 7011, RFC 8158 templates) from a thread of its own.
 * {@link #accept} never waits: it offers the event to a bounded queue and counts it as dropped
 * when the queue is full, so a slow or absent collector never slows a session setup. The thread
 * sends every template at start and again every refresh interval (RFC 7011 8.4: over UDP a
 * collector may have missed them or restarted), and the events, gathered for at most 10 ms, in
 * messages that fit the IPv6 minimum MTU, so that none is fragmented on the way.
 *
 * <p>Written here rather than taken from a library: Maven Central has no maintained Java IPFIX
 * exporter, and what RFC 8158 export needs (fixed templates, a header, sets) is small.
 */
public final class IpfixExporter implements Consumer<NatEvent>, AutoCloseable {
    /** IPv6's minimum MTU (1280) less the IPv6 and UDP headers. */
    static final int MAX_MESSAGE_LENGTH = 1280 - 40 - 8;
    /** Events waiting for the exporter; about 100 bytes each, so at most a few MB. */
    static final int QUEUE_CAPACITY = 1 << 15;
    private static final Logger LOG = Logger.getLogger(IpfixExporter.class.getName());
    /** Events encoded at a time: about a dozen full messages. */
    private static final int BATCH = 256;
    /** How long the first event of a batch waits for others to share its message. */
    private static final long GATHER_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final IpfixConfig config;
    private final DatagramChannel channel;
    private final LongSupplier clock;
    private final BlockingQueue<NatEvent> queue = new LinkedBlockingQueue<>(QUEUE_CAPACITY);
    private final Thread sender = new Thread(this::run, "ipfix-export");
    private final AtomicLong exported = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong sendFailed = new AtomicLong();
    private final AtomicLong messages = new AtomicLong();
    private volatile boolean closing;
    /** Data Records sent so far in the Observation Domain (the next message's sequence number). */
    private long sequence;
    private boolean failing;

    /** Starts exporting to the configured collector; {@code clock}: milliseconds since the epoch. */
    public IpfixExporter(IpfixConfig config, LongSupplier clock) throws IOException {
        this.config = config;
        this.clock = clock;
        this.channel = DatagramChannel.open();
        sender.setDaemon(true);
        sender.start();
        LOG.info("NAT events exported as " + config);
    }

    public IpfixConfig config() {
        return config;
    }

    @Override
    public void accept(NatEvent event) {
        if (closing || !queue.offer(event)) {
            dropped.incrementAndGet();
        }
    }

    /**
     * Records {@code ipfix.exported}; {@code .dropped}: the queue was full (or the exporter closed);
     * {@code .sendFailed}: records of messages the socket refused; and {@code .messages} sent.
     */
    public Map<String, Long> counters() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("ipfix.exported", exported.get());
        out.put("ipfix.dropped", dropped.get());
        out.put("ipfix.sendFailed", sendFailed.get());
        out.put("ipfix.messages", messages.get());
        return out;
    }

    private void run() {
        long refreshNanos = TimeUnit.SECONDS.toNanos(config.templateRefreshSeconds);
        long nextRefresh = System.nanoTime();
        List<NatEvent> batch = new ArrayList<>(BATCH);
        while (!closing || !queue.isEmpty()) {
            if (System.nanoTime() - nextRefresh >= 0) {
                sendTemplates();
                nextRefresh = System.nanoTime() + refreshNanos;
            }
            try {
                long wait = Math.min(nextRefresh - System.nanoTime(), TimeUnit.MILLISECONDS.toNanos(100));
                NatEvent first = queue.poll(Math.max(wait, 0), TimeUnit.NANOSECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                long flushBy = System.nanoTime() + GATHER_NANOS;
                while (batch.size() < BATCH && !closing) {   // full messages, not one datagram per event
                    queue.drainTo(batch, BATCH - batch.size());
                    long left = flushBy - System.nanoTime();
                    NatEvent next = left > 0 && batch.size() < BATCH ? queue.poll(left, TimeUnit.NANOSECONDS) : null;
                    if (next == null) {
                        break;
                    }
                    batch.add(next);
                }
                sendEvents(batch);
                batch.clear();
            } catch (InterruptedException e) {
                closing = true;   // send what is queued, then stop
            }
        }
        sendEvents(batch);   // what an interrupt left gathered
    }

    private void sendTemplates() {
        MessageBuilder m = new MessageBuilder(MAX_MESSAGE_LENGTH);
        for (NatTemplate t : NatTemplate.ALL) {
            if (!m.addTemplate(t)) {
                send(m, 0);
                m = new MessageBuilder(MAX_MESSAGE_LENGTH);
                m.addTemplate(t);
            }
        }
        send(m, 0);
    }

    private void sendEvents(List<NatEvent> events) {
        MessageBuilder m = new MessageBuilder(MAX_MESSAGE_LENGTH);
        for (NatEvent e : events) {
            Optional<NatTemplate> t = NatTemplate.of(e);
            if (t.isEmpty()) {
                dropped.incrementAndGet();   // an event no template describes: a bug, not the collector's
                LOG.warning("no IPFIX template for the NAT event " + e);
                continue;
            }
            try {
                if (!m.addRecord(t.get(), e)) {
                    send(m, m.dataRecords());
                    m = new MessageBuilder(MAX_MESSAGE_LENGTH);
                    m.addRecord(t.get(), e);
                }
            } catch (RuntimeException badValue) {
                dropped.incrementAndGet();
                LOG.warning("the NAT event " + e + " does not fit its IPFIX template: " + badValue.getMessage());
            }
        }
        send(m, m.dataRecords());
    }

    /** Sends the message; its records count as sent either way (a gap in the sequence is what was lost). */
    private void send(MessageBuilder m, int records) {
        if (m.isEmpty()) {
            return;
        }
        byte[] message = m.finish(clock.getAsLong() / 1000, sequence & 0xffff_ffffL, config.observationDomainId);
        sequence += records;
        try {
            channel.send(ByteBuffer.wrap(message), config.collector);
            messages.incrementAndGet();
            exported.addAndGet(records);
            if (failing) {
                LOG.info("IPFIX messages reach " + config.collector + " again");
                failing = false;
            }
        } catch (IOException e) {
            sendFailed.addAndGet(records);
            if (!failing) {
                LOG.warning("IPFIX messages to " + config.collector + " fail: " + e + " (counted as ipfix.sendFailed)");
                failing = true;
            }
        }
    }

    /** Sends what is queued (for at most 5 s), then closes the socket; later events count as dropped. */
    @Override
    public void close() {
        closing = true;
        try {
            sender.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.fine(() -> "closing the IPFIX socket: " + e);
        }
    }
}
