package org.nat64fabric.core.control;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * Runs each switch's writes one after another, in the order they were given, on a shared
 * executor: different switches are written at the same time, and a later write to a switch
 * never overtakes an earlier one (a batch's INSERT before the next batch's MODIFY of the entry).
 */
final class SwitchWriters {
    private final Executor executor;
    private final Map<String, Queue> queues = new ConcurrentHashMap<>();

    /** One switch's pending writes; at most one of them runs at a time. */
    private final class Queue {
        private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
        private boolean running;

        synchronized void add(Runnable task) {
            tasks.add(task);
            if (!running) {
                running = true;
                executor.execute(this::runAll);
            }
        }

        private void runAll() {
            while (true) {
                Runnable next;
                synchronized (this) {
                    next = tasks.poll();
                    if (next == null) {
                        running = false;
                        return;
                    }
                }
                next.run();   // never throws: submit's wrapper completes its future whatever happens
            }
        }
    }

    SwitchWriters(Executor executor) {
        this.executor = executor;
    }

    /** Runs {@code write} after every write given before for {@code deviceId}. */
    CompletableFuture<Void> submit(String deviceId, Runnable write) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        queues.computeIfAbsent(deviceId, d -> new Queue()).add(() -> {
            try {
                write.run();
                done.complete(null);
            } catch (Throwable e) {   // an Error too: a queue that stopped here would stop its switch for good
                done.completeExceptionally(e);
            }
        });
        return done;
    }
}
