package org.nat64fabric.controller;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Logger;
import org.nat64fabric.core.event.NatEvent;

/**
 * The NAT event log (one line per RFC 8158 event, nat-events.log), written by a thread of its
 * own: formatting a line per mapping costs the setup path a tenth of its time, so setups only
 * queue the events. The queue is bounded; a full one makes the setups wait rather than lose an
 * event. Lines reach the file at least every second and at a stop.
 */
final class EventLog implements Consumer<NatEvent>, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(EventLog.class.getName());
    private static final int QUEUE = 1 << 20;

    private final BlockingQueue<NatEvent> queue = new LinkedBlockingQueue<>(QUEUE);
    private final PrintWriter out;
    private final Thread writer = new Thread(this::run, "nat-event-log");
    private final StringBuilder line = new StringBuilder(512);   // the writer's, reused for every line
    private char[] chars = new char[512];
    private volatile boolean closing;

    EventLog(Path file) throws IOException {
        out = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND), false);
        writer.setDaemon(true);
        writer.start();
    }

    @Override
    public void accept(NatEvent event) {
        try {
            queue.put(event);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.println(event);   // shutting down: written here, not lost
        }
    }

    private void run() {
        long flushed = System.nanoTime();
        while (!closing || !queue.isEmpty()) {
            try {
                NatEvent e = queue.poll(100, TimeUnit.MILLISECONDS);
                if (e != null) {
                    write(e);
                }
                if (e == null || System.nanoTime() - flushed > TimeUnit.SECONDS.toNanos(1)) {
                    out.flush();
                    flushed = System.nanoTime();
                }
            } catch (InterruptedException ignored) {
                closing = true;   // finish what is queued, then stop
            }
        }
        out.flush();
    }

    /** One line, through the reused builder and array (a line per mapping: no garbage for each). */
    private void write(NatEvent e) {
        line.setLength(0);
        e.appendTo(line).append(System.lineSeparator());
        int n = line.length();
        if (chars.length < n) {
            chars = new char[2 * n];
        }
        line.getChars(0, n, chars, 0);
        out.write(chars, 0, n);
    }

    /** Writes what is queued, then closes the file. */
    @Override
    public void close() {
        closing = true;
        try {
            writer.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (writer.isAlive()) {
            LOG.warning("the NAT event log did not finish writing within 10 s");
        }
        out.close();
    }
}
