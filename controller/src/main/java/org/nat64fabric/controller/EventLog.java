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
 * event. Lines reach the file at least every second and at a stop. The file is bounded: past
 * {@link #MAX_BYTES} it becomes nat-events.log.1 (the older ones .2 to .{@value #KEPT}, the
 * oldest deleted) and a new one begins, so a busy NAT64 does not fill its state's disk with them.
 */
final class EventLog implements Consumer<NatEvent>, AutoCloseable {
    private static final Logger LOG = Logger.getLogger(EventLog.class.getName());
    private static final int QUEUE = 1 << 20;
    static final long MAX_BYTES = 64L << 20;
    static final int KEPT = 4;

    private final BlockingQueue<NatEvent> queue = new LinkedBlockingQueue<>(QUEUE);
    private final Path file;
    private final long maxBytes;
    private PrintWriter out;
    /** What the current file holds (its lines are ASCII). */
    private long bytes;
    private final Thread writer = new Thread(this::run, "nat-event-log");
    private final StringBuilder line = new StringBuilder(512);   // the writer's, reused for every line
    private char[] chars = new char[512];
    private volatile boolean closing;

    EventLog(Path file) throws IOException {
        this(file, MAX_BYTES);
    }

    EventLog(Path file, long maxBytes) throws IOException {
        this.file = file;
        this.maxBytes = maxBytes;
        open();
        writer.setDaemon(true);
        writer.start();
    }

    private void open() throws IOException {
        out = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND), false);
        bytes = Files.size(file);
    }

    /**
     * nat-events.log becomes .1, .1 becomes .2 and so on; the oldest goes. The open file is moved,
     * then a new one opened: where a step fails, the log goes on in the file it has (one warning),
     * and the next rotation is tried once it has grown by the limit again.
     */
    private void rotate() {
        out.flush();
        bytes = 0;
        try {
            for (int i = KEPT - 1; i >= 1; i--) {
                Path older = rotated(i);
                if (Files.exists(older)) {
                    Files.move(older, rotated(i + 1), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
            Files.move(file, rotated(1), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            LOG.warning("the NAT event log could not be rotated (" + e + "): it grows on");
            return;
        }
        PrintWriter old = out;
        try {
            open();
            old.close();
        } catch (IOException e) {
            out = old;   // still writing, now to the .1 file
            LOG.warning("no new NAT event log could be opened (" + e + "): events go on into " + rotated(1));
        }
    }

    Path rotated(int generation) {
        return file.resolveSibling(file.getFileName() + "." + generation);
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
        bytes += n;
        if (bytes >= maxBytes) {
            rotate();
        }
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
