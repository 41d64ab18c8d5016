package org.nat64fabric.core.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;

/** Runs work on several threads at once, for the tests of what many threads change together. */
public final class Concurrently {
    private Concurrently() {
    }

    /** Runs {@code work.accept(t)} on {@code threads} threads (t from 0), and waits for all; rethrows the first failure. */
    public static void run(int threads, IntConsumer work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> work.accept(thread)));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }
}
