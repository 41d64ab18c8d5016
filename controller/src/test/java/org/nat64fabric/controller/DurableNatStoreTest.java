package org.nat64fabric.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.controller.DurableNatStore.Recovery;
import org.nat64fabric.controller.DurableNatStore.StateException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.session.TcpState;

class DurableNatStoreTest {
    private static final Ipv6Address HOST = Ipv6Address.parse("2001:db8:1::10", "host");
    private static final BibEntry BIB = new BibEntry(Protocol.TCP, HOST, 40000,
            new TransportAddress(Ipv4Address.parse("192.0.2.1", "v4"), 1024), false);
    private static final Session SESSION = new Session(BIB,
            new TransportAddress(Ipv4Address.parse("198.51.100.10", "r"), 80),
            Ipv6Address.parse("2001:db8:64::c633:640a", "r6"), TcpState.ESTABLISHED, 7440, 1_795_000_000_000L);

    @Test
    void everyValueKindReadsBackAsWritten() throws Exception {
        List<Object> values = List.of(Long.MAX_VALUE, 1234L,
                new PortBlock(Protocol.UDP, Ipv4Address.parse("192.0.2.3", "a"), 65408, 65535, HOST),
                BIB, new BibEntry(Protocol.ICMP, HOST, 0, BIB.v4(), true), SESSION,
                new Session(BIB, SESSION.remote4(), SESSION.remote6(), null, 300, 1),
                Eam.parse("2001:db8:2::/120", "198.18.0.0/24", "eam"));
        for (Object v : values) {
            assertEquals(v, StateCodec.decode(StateCodec.encode(v)), v.toString());
        }
        assertTrue(StateCodec.encode(SESSION).length < 80, "a session row is small");
    }

    @Test
    void aDamagedRowIsAnErrorNotAValue() throws Exception {
        byte[] row = StateCodec.encode(SESSION);
        assertThrows(java.io.IOException.class, () -> StateCodec.decode(java.util.Arrays.copyOf(row, row.length - 3)));
        byte[] longer = java.util.Arrays.copyOf(row, row.length + 1);
        assertThrows(java.io.IOException.class, () -> StateCodec.decode(longer));
        byte[] badTag = row.clone();
        badTag[0] = 99;
        assertThrows(java.io.IOException.class, () -> StateCodec.decode(badTag));
    }

    @Test
    void whatIsCommittedIsThereAfterReopeningAndABatchIsOneCommit(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve(Credentials.FILE);
        try (DurableNatStore store = DurableNatStore.open(dir, marker, Recovery.NONE)) {
            store.batch(() -> {
                assertEquals(Optional.empty(), store.addBib(BIB));
                store.putSession(SESSION);
                store.addEam(Eam.parse("2001:db8:2::/120", "198.18.0.0/24", "eam"));
            });
        }
        Files.writeString(marker, "nat64:x\n");
        try (DurableNatStore store = DurableNatStore.open(dir, marker, Recovery.NONE)) {
            assertEquals(List.of(BIB), store.bib());
            assertEquals(List.of(SESSION), store.sessionsOf(BIB));
            assertEquals(1, store.eams().size());
            assertTrue(store.removeSession(SESSION));
        }
        try (DurableNatStore store = DurableNatStore.open(dir, marker, Recovery.NONE)) {
            assertTrue(store.sessions().isEmpty());
            assertEquals(1, store.bib().size());
        }
    }

    @Test
    void theLogStartsAgainWhileCommitsGoOnAndLosesNothing(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve(Credentials.FILE);
        Path log = dir.resolve(DurableNatStore.FILE + "-wal");
        int restartFrames = 64;
        int commits = 3000;
        long pageBytes = 4096 + 24;   // a page in the log and its frame header
        Set<Session> written = new java.util.HashSet<>();
        try (DurableNatStore store = DurableNatStore.open(dir, marker, Recovery.NONE, restartFrames)) {
            store.addBib(BIB);
            for (int i = 0; i < commits; i++) {   // one commit each, as setups come one by one
                Session s = session(i);
                store.putSession(s);
                written.add(s);
            }
            // Every commit appends a page or more; were the log never started again, it would hold
            // them all. Started again from 64 pages on, it stays near that, whatever the commits'
            // pace while the checkpoint thread sleeps between its runs.
            assertTrue(Files.size(log) < commits * pageBytes / 2,
                    "the log is " + Files.size(log) + " bytes after " + commits + " commits");
        }
        Files.writeString(marker, "nat64:x\n");
        try (DurableNatStore store = DurableNatStore.open(dir, marker, Recovery.NONE)) {
            assertEquals(written, Set.copyOf(store.sessionsOf(BIB)));
        }
    }

    /** A session of BIB's to a remote address of its own (i below 65 536). */
    private static Session session(int i) {
        return new Session(BIB, new TransportAddress(Ipv4Address.parse("198.51." + (i / 256) + "." + (i % 256), "r"), 80),
                SESSION.remote6(), TcpState.ESTABLISHED, 7440, i);
    }

    @Test
    void aCommitOfMoreRowsThanOneExecutionTakesWritesAndDeletesThemAll(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve(Credentials.FILE);
        int rows = 3 * DurableNatStore.BATCH_ROWS + 1;
        int removed = 2 * DurableNatStore.BATCH_ROWS + 1;
        List<Session> all = java.util.stream.IntStream.range(0, rows).mapToObj(DurableNatStoreTest::session)
                .collect(java.util.stream.Collectors.toList());
        try (DurableNatStore store = DurableNatStore.open(dir, marker, Recovery.NONE)) {
            store.batch(() -> {
                store.addBib(BIB);
                all.forEach(store::putSession);
            });
            store.batch(() -> all.subList(0, removed).forEach(store::removeSession));
        }
        Files.writeString(marker, "nat64:x\n");
        try (DurableNatStore store = DurableNatStore.open(dir, marker, Recovery.NONE)) {
            assertEquals(Set.copyOf(all.subList(removed, rows)), Set.copyOf(store.sessionsOf(BIB)));
        }
    }

    @Test
    void aBatchInTheBackgroundIsDurableWhenItsFutureCompletesAndAKeyHasOneRow(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve(Credentials.FILE);
        Session other = new Session(BIB, new TransportAddress(Ipv4Address.parse("198.51.100.11", "r"), 80),
                Ipv6Address.parse("2001:db8:64::c633:640b", "r6"), TcpState.ESTABLISHED, 7440, 1_795_000_000_001L);
        try (DurableNatStore store = DurableNatStore.open(dir, marker, Recovery.NONE)) {
            CompletableFuture<Void> first = store.batchAsync(() -> {
                store.addBib(BIB);
                store.putSession(SESSION);
            });
            // removed and added again, maybe before the first commit is written: its first row goes
            CompletableFuture<Void> second = store.batchAsync(() -> {
                store.removeSession(SESSION);
                store.putSession(SESSION);
                store.putSession(other);
            });
            second.join();
            assertTrue(first.isDone() && !first.isCompletedExceptionally(), "commits complete in order");
            try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(DurableNatStore.FILE));
                 PreparedStatement rows = db.prepareStatement("SELECT count(*) FROM rows WHERE map = ? AND key = ?")) {
                rows.setString(1, "sessions");
                rows.setString(2, SESSION.key());
                try (ResultSet r = rows.executeQuery()) {
                    assertEquals(1, r.getInt(1), "durable once its future completed, in one row");
                }
            }
        }
        Files.writeString(marker, "nat64:x\n");
        try (DurableNatStore store = DurableNatStore.open(dir, marker, Recovery.NONE)) {
            assertEquals(Set.of(SESSION, other), Set.copyOf(store.sessionsOf(BIB)));
        }
    }

    @Test
    void aKeyWithTwoRowsIsRefused(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve(Credentials.FILE);
        try (DurableNatStore store = DurableNatStore.open(dir, marker, Recovery.NONE)) {
            store.addBib(BIB);
        }
        sql(dir, "INSERT INTO rows SELECT seq + 100, map, key, value, crc FROM rows WHERE map = 'bib6'");
        Files.writeString(marker, "nat64:x\n");
        StateException e = assertThrows(StateException.class, () -> DurableNatStore.open(dir, marker, Recovery.NONE));
        assertTrue(e.getMessage().contains("bib6/" + BIB.key6() + " has two rows"), e.getMessage());
    }

    @Test
    void aStateFileOfTheFirstFormatIsConvertedAtOpen(@TempDir Path dir) throws Exception {
        sql(dir, "CREATE TABLE meta(name TEXT PRIMARY KEY, value TEXT NOT NULL)",
                "INSERT INTO meta VALUES ('format', 'nat64fabric-state 1'), ('run', 'closed')",
                "CREATE TABLE entries(map TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, crc INTEGER NOT NULL, "
                        + "PRIMARY KEY (map, key)) WITHOUT ROWID");
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(DurableNatStore.FILE));
             PreparedStatement insert = db.prepareStatement("INSERT INTO entries VALUES (?, ?, ?, ?)")) {
            for (Object[] row : List.of(new Object[] {"bib6", BIB.key6(), BIB}, new Object[] {"bib4", BIB.key4(), BIB},
                    new Object[] {"sessions", SESSION.key(), SESSION})) {
                byte[] value = StateCodec.encode(row[2]);
                CRC32 crc = new CRC32();
                crc.update(value);
                insert.setString(1, (String) row[0]);
                insert.setString(2, (String) row[1]);
                insert.setBytes(3, value);
                insert.setLong(4, crc.getValue());
                insert.executeUpdate();
            }
        }
        Path marker = dir.resolve(Credentials.FILE);
        Files.writeString(marker, "nat64:x\n");
        try (DurableNatStore store = DurableNatStore.open(dir, marker, Recovery.NONE)) {
            assertEquals(List.of(BIB), store.bib());
            assertEquals(Optional.of(BIB), store.bibBy4(BIB.protocol(), BIB.v4()));
            assertEquals(List.of(SESSION), store.sessionsOf(BIB));
            assertTrue(store.removeSession(SESSION));
        }
        try (DurableNatStore store = DurableNatStore.open(dir, marker, Recovery.NONE)) {
            assertEquals(List.of(BIB), store.bib());
            assertTrue(store.sessions().isEmpty());
        }
    }

    private static void sql(Path dir, String... statements) throws Exception {
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(DurableNatStore.FILE));
             Statement s = db.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    @Test
    void aMissingFileInAUsedDirectoryIsRefused(@TempDir Path dir) throws Exception {
        Path marker = dir.resolve(Credentials.FILE);
        Files.writeString(marker, "nat64:x\n");
        StateException e = assertThrows(StateException.class, () -> DurableNatStore.open(dir, marker, Recovery.NONE));
        assertTrue(e.getMessage().contains("missing") && e.getMessage().contains("--empty-state"), e.getMessage());
        DurableNatStore.open(dir, marker, Recovery.START_EMPTY).close();
    }

    @Test
    void aLogDamagedBeforeItsLastCommitsIsRefusedAndDamageInItsLastCommitIsACrashsCut(@TempDir Path dir) throws Exception {
        Path live = dir.resolve("live");
        Path crashed = dir.resolve("crashed");
        String log = DurableNatStore.FILE + "-wal";
        int commits = 20;
        try (DurableNatStore store = DurableNatStore.open(live, live.resolve(Credentials.FILE), Recovery.NONE)) {
            store.addBib(BIB);
            for (int i = 0; i < commits; i++) {
                store.putSession(session(i));   // a commit each, durable when it returns
            }
            // what a crash leaves: the file and its log as they are now
            Files.createDirectories(crashed);
            Files.copy(live.resolve(DurableNatStore.FILE), crashed.resolve(DurableNatStore.FILE));
            Files.copy(live.resolve(log), crashed.resolve(log));
        }
        byte[] intact = Files.readAllBytes(crashed.resolve(log));
        List<Integer> commitFrames = commitFrameOffsets(intact);
        // (the log may have started again meanwhile: it holds the last commits, three at least)
        assertTrue(commitFrames.size() >= 3, "a log of " + commitFrames.size() + " commits");
        int pageSize = java.nio.ByteBuffer.wrap(intact).getInt(8);

        // A byte of the first commit's page changed: SQLite would replay the log up to it and drop
        // the 19 commits after it, though acknowledged; the state is refused, the files left as they are.
        byte[] damaged = intact.clone();
        damaged[commitFrames.get(0) + 24 + pageSize / 2] ^= 1;
        Files.write(crashed.resolve(log), damaged);
        StateException e = assertThrows(StateException.class,
                () -> DurableNatStore.open(crashed, crashed.resolve(Credentials.FILE), Recovery.NONE));
        assertTrue(e.getMessage().contains("write-ahead log") && e.getMessage().contains("damaged at frame")
                && e.getMessage().contains("--empty-state"), e.getMessage());
        assertTrue(java.util.Arrays.equals(damaged, Files.readAllBytes(crashed.resolve(log))), "the log is left as it was");

        // The same damage in the last commit's page is what a crash during that commit leaves: the
        // state opens without that commit (unless the checkpoint thread had copied it into the file).
        damaged = intact.clone();
        damaged[commitFrames.get(commitFrames.size() - 1) + 24 + pageSize / 2] ^= 1;
        Files.write(crashed.resolve(log), damaged);
        try (DurableNatStore store = DurableNatStore.open(crashed, crashed.resolve(Credentials.FILE), Recovery.NONE)) {
            int kept = store.sessionsOf(BIB).size();
            assertTrue(kept == commits - 1 || kept == commits, kept + " sessions");
        }

        // Intact, every commit is there.
        try (DurableNatStore store = DurableNatStore.open(live, live.resolve(Credentials.FILE), Recovery.NONE)) {
            assertEquals(commits, store.sessionsOf(BIB).size());
        }
    }

    /** Where each commit frame of the log's current salts starts (its frame header; SQLite's WAL format). */
    private static List<Integer> commitFrameOffsets(byte[] log) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(log);
        int frame = 24 + b.getInt(8);
        List<Integer> offsets = new java.util.ArrayList<>();
        for (int at = 32; at + frame <= log.length; at += frame) {
            if (b.getInt(at + 8) == b.getInt(16) && b.getInt(at + 12) == b.getInt(20) && b.getInt(at + 4) != 0) {
                offsets.add(at);
            }
        }
        return offsets;
    }
}
