package org.nat64fabric.core.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.control.SwitchLink.Update;
import org.nat64fabric.core.fabric.TableEntry;

class SwitchWritersTest {
    private static final CompletableFuture<Void> DURABLE = CompletableFuture.completedFuture(null);

    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    /** Each write as the switch got it: device and the entries' flow numbers, in order. */
    private final List<String> written = Collections.synchronizedList(new ArrayList<>());
    /** Holds the first write to a switch on the wire until released, so that the batches after it queue. */
    private final CountDownLatch onTheWire = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final SwitchWriters writers = new SwitchWriters(executor, (device, updates) -> {
        written.add(device + " " + updates.stream().map(u -> u.type + ":" + flowOf(u))
                .collect(Collectors.joining(",")));
        if (onTheWire.getCount() > 0) {
            onTheWire.countDown();
            await(release);
        }
        if (updates.stream().anyMatch(u -> flowOf(u).equals(String.valueOf(FAILING_FLOW)))) {
            throw new IllegalStateException("the link broke");
        }
    });
    /** A write carrying this flow throws, as a link failing in an unexpected way would. */
    private static final int FAILING_FLOW = 99;

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    private static Update insert(int flow) {
        return update(Update.Type.INSERT, flow);
    }

    private static Update update(Update.Type type, int flow) {
        return new Update(type, TableEntry.in("session_v6").exact("hdr.udp.src_port", flow).action("snat").build());
    }

    private static String flowOf(Update u) {
        return ((TableEntry) u.entity).matches().get(0).value().toString();
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS), "timed out");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static void done(CompletableFuture<Void> f) throws Exception {
        f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void batchesQueuedBehindAWriteOnTheWireGoOutTogetherInTheirOrder() throws Exception {
        CompletableFuture<Void> first = writers.write("b1", List.of(insert(1)), DURABLE, () -> { });
        await(onTheWire);
        List<CompletableFuture<Void>> queued = IntStream.rangeClosed(2, 5)
                .mapToObj(f -> writers.write("b1", List.of(insert(f)), DURABLE, () -> { }))
                .collect(Collectors.toList());
        assertFalse(queued.get(0).isDone(), "written before the write ahead of it came back");
        release.countDown();
        done(first);
        for (CompletableFuture<Void> f : queued) {
            done(f);
        }
        assertEquals(List.of("b1 INSERT:1", "b1 INSERT:2,INSERT:3,INSERT:4,INSERT:5"), written);
    }

    @Test
    void aBatchTouchingAnEntryOfTheMergedWriteStartsTheNextWrite() throws Exception {
        CompletableFuture<Void> first = writers.write("b1", List.of(insert(1)), DURABLE, () -> { });
        await(onTheWire);
        writers.write("b1", List.of(insert(2)), DURABLE, () -> { });
        writers.write("b1", List.of(update(Update.Type.MODIFY, 2)), DURABLE, () -> { });
        writers.write("b1", List.of(update(Update.Type.DELETE, 3)), DURABLE, () -> { });
        CompletableFuture<Void> last = writers.write("b1", List.of(insert(3)), DURABLE, () -> { });
        release.countDown();
        done(first);
        done(last);
        // a switch may apply one write's updates in any order: an entry's INSERT and MODIFY, or
        // DELETE and INSERT, never share one
        assertEquals(List.of("b1 INSERT:1", "b1 INSERT:2", "b1 MODIFY:2,DELETE:3", "b1 INSERT:3"), written);
    }

    @Test
    void aBatchNotYetDurableIsNeitherMergedNorOvertaken() throws Exception {
        CompletableFuture<Void> first = writers.write("b1", List.of(insert(1)), DURABLE, () -> { });
        await(onTheWire);
        CompletableFuture<Void> commit = new CompletableFuture<>();
        CompletableFuture<Void> waiting = writers.write("b1", List.of(insert(2)), commit, () -> { });
        CompletableFuture<Void> after = writers.write("b1", List.of(insert(3)), DURABLE, () -> { });
        release.countDown();
        done(first);
        assertFalse(after.isDone(), "a later batch overtook one waiting for its commit");
        commit.complete(null);
        done(waiting);
        done(after);
        assertEquals(List.of("b1 INSERT:1", "b1 INSERT:2,INSERT:3"), written);
    }

    @Test
    void aBatchNotYetDurableEndsTheMergeAndTheBatchesAfterItWaitForIt() throws Exception {
        CompletableFuture<Void> first = writers.write("b1", List.of(insert(1)), DURABLE, () -> { });
        await(onTheWire);
        CompletableFuture<Void> before = writers.write("b1", List.of(insert(2)), DURABLE, () -> { });
        CompletableFuture<Void> commit = new CompletableFuture<>();
        CompletableFuture<Void> waiting = writers.write("b1", List.of(insert(3)), commit, () -> { });
        CompletableFuture<Void> after = writers.write("b1", List.of(insert(4)), DURABLE, () -> { });
        release.countDown();
        done(first);
        done(before);
        assertFalse(waiting.isDone() || after.isDone(), "written before its commit, or overtook one waiting for it");
        commit.complete(null);
        done(after);
        assertTrue(waiting.isDone());
        assertEquals(List.of("b1 INSERT:1", "b1 INSERT:2", "b1 INSERT:3,INSERT:4"), written);
    }

    @Test
    void whatAMergedWriteThrowsFailsEveryBatchInItAndTheQueueGoesOn() throws Exception {
        CompletableFuture<Void> first = writers.write("b1", List.of(insert(1)), DURABLE, () -> { });
        await(onTheWire);
        CompletableFuture<Void> a = writers.write("b1", List.of(insert(2)), DURABLE, () -> { });
        CompletableFuture<Void> b = writers.write("b1", List.of(insert(FAILING_FLOW)), DURABLE, () -> { });
        writers.submit("b1", () -> { });
        CompletableFuture<Void> later = writers.write("b1", List.of(insert(3)), DURABLE, () -> { });
        release.countDown();
        done(first);
        for (CompletableFuture<Void> f : List.of(a, b)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
            assertEquals("the link broke", e.getCause().getMessage());
        }
        done(later);
        assertEquals(List.of("b1 INSERT:1", "b1 INSERT:2,INSERT:" + FAILING_FLOW, "b1 INSERT:3"), written);
    }

    @Test
    void aBatchWhoseCommitFailedIsNotWrittenAndTheOnesAfterItAre() throws Exception {
        CompletableFuture<Void> first = writers.write("b1", List.of(insert(1)), DURABLE, () -> { });
        await(onTheWire);
        AtomicBoolean notWritten = new AtomicBoolean();
        CompletableFuture<Void> failed = writers.write("b1", List.of(insert(2)),
                CompletableFuture.failedFuture(new IllegalStateException("disk full")), () -> notWritten.set(true));
        CompletableFuture<Void> after = writers.write("b1", List.of(insert(3)), DURABLE, () -> { });
        release.countDown();
        done(first);
        assertThrows(ExecutionException.class, () -> failed.get(10, TimeUnit.SECONDS));
        done(after);
        assertTrue(notWritten.get());
        assertEquals(List.of("b1 INSERT:1", "b1 INSERT:3"), written);
    }

    @Test
    void mergedWritesStopAtTheLimitAndAtOtherTasks() throws Exception {
        CompletableFuture<Void> first = writers.write("b1", List.of(insert(1)), DURABLE, () -> { });
        await(onTheWire);
        List<Update> big = IntStream.range(1000, 1000 + SwitchWriters.MAX_MERGED_UPDATES - 1)
                .mapToObj(SwitchWritersTest::insert).collect(Collectors.toList());
        writers.write("b1", big, DURABLE, () -> { });
        writers.write("b1", List.of(insert(2)), DURABLE, () -> { });   // the limit, with the big one
        writers.write("b1", List.of(insert(5)), DURABLE, () -> { });   // one over it
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        writers.submit("b1", () -> order.add("task after " + written.size() + " writes"));
        CompletableFuture<Void> last = writers.write("b1", List.of(insert(3)), DURABLE, () -> { });
        release.countDown();
        done(first);
        done(last);
        assertEquals(4, written.size(), written.stream().map(w -> w.length() > 40 ? w.substring(0, 40) : w)
                .collect(Collectors.toList()).toString());
        assertTrue(written.get(1).startsWith("b1 INSERT:1000,") && written.get(1).endsWith(",INSERT:2"));
        assertEquals(SwitchWriters.MAX_MERGED_UPDATES, written.get(1).split(",").length);
        assertEquals("b1 INSERT:5", written.get(2));
        assertEquals(List.of("task after 3 writes"), order);
        assertEquals("b1 INSERT:3", written.get(3));
    }

    @Test
    void otherSwitchesAreWrittenWhileOneIsOnTheWire() throws Exception {
        writers.write("b1", List.of(insert(1)), DURABLE, () -> { });
        await(onTheWire);
        done(writers.write("b2", List.of(insert(2)), DURABLE, () -> { }));
        assertEquals(List.of("b1 INSERT:1", "b2 INSERT:2"), written);
        release.countDown();
    }
}
