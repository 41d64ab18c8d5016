package org.nat64fabric.controller;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.logging.Logger;
import java.util.zip.CRC32;
import org.nat64fabric.controller.TrackedMap.Changes;
import org.nat64fabric.controller.TrackedMap.RowWrite;
import org.nat64fabric.controller.TrackedMap.Snapshot;
import org.nat64fabric.core.store.MapNatStore;
import org.sqlite.SQLiteConfig;

/**
 * The NAT state on disk: BIB, sessions, EAMT, port blocks and resting ports, in a SQLite file
 * ({@value #FILE}, write-ahead log, {@code synchronous=FULL}), one row per map entry in
 * {@link StateCodec}'s format with a CRC-32. The maps are held in memory, as those rows
 * ({@link TrackedMap}, {@link PackedRows}); a thread of its own
 * writes what changed, in one transaction per commit. {@link #changed()} waits for its changes'
 * commit, so a change is on disk before anyone is told it happened; a {@link #batchAsync} batch
 * does not wait, so the next batch runs while its commit is on its way, and its future completes
 * once the commit is durable. Commits that queue up meanwhile share one transaction (group commit).
 *
 * <p>Rows are numbered in the order their keys were added, and the table is ordered by that
 * number: the entries a batch of setups adds fill a few pages at the table's end. Ordered by map
 * and key, each of them landed on a page of its own, and a commit wrote a page per row.
 *
 * <p>Opening refuses a state file that is missing (when the directory was used before), empty,
 * not SQLite, failing SQLite's integrity check, or holding a row whose CRC or content is wrong:
 * {@link StateException} names the file, the fault and the two ways on. A run that did not stop
 * cleanly leaves its write-ahead log beside the file; a file marked open whose log is gone lost its
 * last commits and is refused too, as is a log damaged before its last two commits, whose replay
 * SQLite would stop at the damage ({@link WriteAheadLog}). A last-known-good copy, {@value #BACKUP}, is written after every
 * successful open, every hour and at a clean stop; starting empty keeps the previous one aside.
 *
 * <p>The log is copied into the file (checkpointed) by a thread of its own, not by the committer:
 * SQLite's automatic checkpoint ran in the commit that filled the log to 1000 pages and held it for
 * 15-130 ms at 7 000 setups/s, every 0.6 s, while the batches behind it waited for their commit.
 * SQLite writes the log from its start again only when a commit begins while all of it is in the
 * file and no reader uses it; so once it holds {@value #LOG_RESTART_FRAMES} pages, the committer
 * has the thread copy the pages it has not reached yet, right after a commit, and waits for
 * that before the next commit. Should the thread stop, SQLite's automatic checkpoint comes back.
 */
final class DurableNatStore extends MapNatStore implements AutoCloseable {
    static final String FILE = "nat64.db";
    static final String BACKUP = "nat64.db.bak";
    /** The H2 MVStore file of versions before the SQLite store. */
    static final String LEGACY_FILE = "nat64.mv";
    private static final String WAL = FILE + "-wal";
    /** Pages in the log (4 KiB each) from which the committer makes the next commit restart it. */
    static final int LOG_RESTART_FRAMES = 8192;
    /** The pause between two of the checkpoint thread's runs while commits come in. */
    private static final long CHECKPOINT_PAUSE_MILLIS = 50;
    private static final Logger LOG = Logger.getLogger(DurableNatStore.class.getName());
    private static final String FORMAT = "nat64fabric-state 2";
    /** Format 1 kept its rows ordered by map and key ({@code entries}); it is converted at open. */
    private static final String FORMAT_1 = "nat64fabric-state 1";
    private static final byte[] SQLITE_MAGIC = "SQLite format 3\0".getBytes(StandardCharsets.US_ASCII);

    /** What to do with a state file that cannot be used, chosen explicitly by the operator. */
    enum Recovery { NONE, START_EMPTY, RESTORE_BACKUP }

    /** The state cannot be opened; the message is one line for the operator. */
    static final class StateException extends Exception {
        StateException(String message) {
            super(message);
        }
    }

    /** The maps read from the file, handed to MapNatStore by name. */
    private static final class Loaded implements Maps {
        final Changes changes = new Changes();
        final Map<String, TrackedMap<Object>> maps = new HashMap<>();

        /**
         * The maps that grow with the sessions (port blocks too) are spread over segments; the
         * EAMT, read whole at every setup, is one. The maps not per session keep their values
         * decoded as well: the port blocks are read at every setup.
         */
        TrackedMap<Object> map(String name) {
            return maps.computeIfAbsent(name, n -> new TrackedMap<>(n, changes, !n.equals("eamt"),
                    !MapNatStore.PER_SESSION_MAPS.contains(n)));
        }

        @Override
        @SuppressWarnings("unchecked")
        public <V> Map<String, V> open(String name) {
            return (Map<String, V>) (Map<String, ?>) map(name);
        }
    }

    private final Path dir;
    private final Connection db;
    private final FileLock lock;
    private final Loaded loaded;
    /**
     * Rows per executeBatch of one transaction. The driver keeps a statement's batch in one array
     * that grows to the largest batch and is nulled whole after each execution: in one batch per
     * commit, a burst's large commit made every later one, of a few rows, null the burst's
     * five slots per row again.
     */
    static final int BATCH_ROWS = 64;
    /** Prepared once: a commit is a few pages, and compiling its statements would cost more than writing them. */
    private PreparedStatement upsert;
    private PreparedStatement delete;
    private final Object backupLock = new Object();
    /** Snapshots waiting for the committer, oldest first; the lock of everything about them. */
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    /** Completes once the newest snapshot queued is durable. */
    private CompletableFuture<Void> lastQueued = CompletableFuture.completedFuture(null);
    private boolean closed;
    /** The one thread that writes to the file once it is open. */
    private final Thread committer = new Thread(this::commitLoop, "nat-state-commit");
    /** Copies the log into the file on a connection of its own ({@link #checkpointLoop}). */
    private final Thread checkpointer = new Thread(this::checkpointLoop, "nat-state-checkpoint");
    /** Pages in the log from which the committer makes the next commit restart it. */
    private final int logRestartFrames;
    /** Commits since the checkpoint thread last ran; guarded by {@link #queue}, as the next three. */
    private long commitsSinceCheckpoint;
    /** The log holds {@link #logRestartFrames} pages or more, as the last checkpoint found it. */
    private boolean logFull;
    /** The committer waits for a checkpoint of the whole log, so that its next commit restarts it. */
    private boolean catchUpAsked;
    /** The checkpoint thread has stopped (the store closes, or it failed: SQLite checkpoints by itself again). */
    private boolean checkpointerGone;
    /** The committer has turned SQLite's automatic checkpoint back on; only the committer reads it. */
    private boolean autoCheckpointBack;

    /** Changes taken from the maps, and when they are durable. */
    private static final class Pending {
        final Snapshot snapshot;
        final CompletableFuture<Void> durable = new CompletableFuture<>();

        Pending(Snapshot snapshot) {
            this.snapshot = snapshot;
        }
    }

    private DurableNatStore(Path dir, Connection db, FileLock lock, Loaded loaded, int logRestartFrames) {
        super(loaded);
        this.logRestartFrames = logRestartFrames;
        this.dir = dir;
        this.db = db;
        this.lock = lock;
        this.loaded = loaded;
        committer.setDaemon(true);   // what it has not written was not acknowledged
        committer.start();
        checkpointer.setDaemon(true);
        checkpointer.start();
    }

    /**
     * Opens the state in {@code dir}. {@code firstUseMarker} is a file that exists once the
     * directory has been used (the REST credentials): the state file is then expected too.
     */
    static DurableNatStore open(Path dir, Path firstUseMarker, Recovery recovery) throws StateException {
        return open(dir, firstUseMarker, recovery, LOG_RESTART_FRAMES);
    }

    /** The same, with the log restarted from {@code logRestartFrames} pages on. */
    static DurableNatStore open(Path dir, Path firstUseMarker, Recovery recovery, int logRestartFrames)
            throws StateException {
        Path file = dir.resolve(FILE);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new StateException("cannot create the state directory " + dir + ": " + e.getMessage());
        }
        FileLock lock = lockDirectory(dir);
        try {
            if (Files.exists(dir.resolve(LEGACY_FILE))) {
                throw new StateException(dir.resolve(LEGACY_FILE) + ": state of an earlier version (H2 MVStore), "
                        + "which this version does not read. Start that version to export its BIB and EAMT "
                        + "(GET /bib?static=true, GET /eamt), move the file away, and add them here again.");
            }
            if (recovery != Recovery.NONE) {
                setAside(dir, recovery);
            }
            boolean walPresent = Files.exists(dir.resolve(WAL));
            boolean expected = recovery == Recovery.NONE
                    && (Files.exists(firstUseMarker) || Files.exists(dir.resolve(BACKUP)));
            String fault = fault(file, expected);
            if (fault == null && walPresent && recovery == Recovery.NONE) {
                fault = WriteAheadLog.lostCommits(dir.resolve(WAL)).orElse(null);
            }
            if (fault == null && Files.exists(file)) {
                fault = readOnlyFault(file, recovery == Recovery.NONE && !walPresent);
            }
            if (fault != null) {
                throw new StateException(file + ": " + fault + ". " + nextStep(dir, recovery));
            }
            Connection db = DriverManager.getConnection("jdbc:sqlite:" + file);
            Loaded loaded = new Loaded();
            try {
                prepare(db);
                String problem = load(db, loaded);
                if (problem == null) {
                    markOpen(db);
                }
                if (problem != null) {
                    db.close();
                    throw new StateException(file + ": " + problem + ". " + nextStep(dir, recovery));
                }
            } catch (SQLException e) {
                db.close();
                throw new StateException(file + ": not a usable state file (" + firstLine(e.getMessage())
                        + "). " + nextStep(dir, recovery));
            }
            DurableNatStore store = new DurableNatStore(dir, db, lock, loaded, logRestartFrames);
            store.backup();
            return store;
        } catch (IOException | SQLException e) {
            release(lock);
            throw new StateException(file + ": " + e.getMessage());
        } catch (StateException e) {
            release(lock);
            throw e;
        }
    }

    /** What the operator can do about a state file that cannot be used. */
    private static String nextStep(Path dir, Recovery recovery) throws IOException {
        Path backup = dir.resolve(BACKUP);
        String empty = " with --empty-state to start with no NAT state (the damaged files are kept aside).";
        if (recovery == Recovery.RESTORE_BACKUP) {
            return "It was copied from the backup " + backup + ", which is damaged too; restart" + empty;
        }
        return Files.isRegularFile(backup)
                ? "Restart with --restore-backup to use the last good copy (" + backup + ", "
                  + Files.getLastModifiedTime(backup).toInstant() + "), or" + empty
                : "No backup exists (" + backup + "); restart" + empty;
    }

    /** Two controllers on one state directory would hand out the same ports. */
    private static FileLock lockDirectory(Path dir) throws StateException {
        Path lockFile = dir.resolve("lock");
        try {
            FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                throw new StateException(dir + " is in use by another controller (it holds " + lockFile + ")");
            }
            return lock;
        } catch (IOException e) {
            throw new StateException("cannot lock " + lockFile + ": " + e.getMessage());
        }
    }

    private static void release(FileLock lock) {
        try {
            lock.channel().close();
        } catch (IOException ignored) {
            // closing the channel is all there is to do; the lock goes with the process anyway
        }
    }

    /** Why the file cannot be opened before SQLite sees it, or null. */
    private static String fault(Path file, boolean usedBefore) throws IOException {
        if (!Files.exists(file)) {
            return usedBefore ? "missing, although this state directory was used before" : null;
        }
        if (Files.size(file) == 0) {
            return "empty (0 bytes)";
        }
        byte[] head = new byte[SQLITE_MAGIC.length];
        try (InputStream in = Files.newInputStream(file)) {
            if (in.readNBytes(head, 0, head.length) < head.length || !java.util.Arrays.equals(head, SQLITE_MAGIC)) {
                return "not a state file (its header is not SQLite's)";
            }
        }
        return null;
    }

    /** Moves the damaged files aside, then copies the backup in for RESTORE_BACKUP. */
    private static void setAside(Path dir, Recovery recovery) throws IOException, StateException {
        Path backup = dir.resolve(BACKUP);
        if (recovery == Recovery.RESTORE_BACKUP && !Files.isRegularFile(backup)) {
            throw new StateException("--restore-backup: there is no backup " + backup);
        }
        String stamp = Instant.now().toString().replace(':', '-');
        for (String suffix : List.of("", "-wal", "-shm")) {
            Path f = dir.resolve(FILE + suffix);
            if (Files.exists(f)) {
                Files.move(f, dir.resolve(FILE + suffix + ".damaged-" + stamp));
            }
        }
        if (recovery == Recovery.RESTORE_BACKUP) {
            Files.copy(backup, dir.resolve(FILE));
        } else if (Files.exists(backup)) {
            // the empty start's own backups will replace it: keep the last good copy of the old state
            Files.copy(backup, dir.resolve(BACKUP + ".before-empty-" + stamp));
        }
    }

    /**
     * Why the file may not be used, as a read-only connection finds it (its pages' integrity; the
     * log missing after a run that did not stop cleanly, when {@code logMissing}), or null. Read
     * only, so that a file refused is left as it was for --restore-backup to set aside: a
     * read-write connection copies the log into the file and deletes it when it closes.
     */
    private static String readOnlyFault(Path file, boolean logMissing) {
        SQLiteConfig readOnly = new SQLiteConfig();
        readOnly.setReadOnly(true);
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + file, readOnly.toProperties());
             Statement s = db.createStatement()) {
            try (ResultSet r = s.executeQuery("PRAGMA integrity_check")) {
                String verdict = r.next() ? r.getString(1) : "no answer";
                if (!"ok".equals(verdict)) {
                    return "not a usable state file (integrity check: " + firstLine(verdict) + ")";
                }
            }
            boolean hasMeta;
            try (ResultSet r = s.executeQuery("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'")) {
                hasMeta = r.next();
            }
            if (logMissing && hasMeta && "open".equals(meta(db, "run"))) {
                return "its write-ahead log " + file.resolveSibling(WAL) + " is missing although the last run did not"
                        + " stop cleanly, so its last changes are lost";
            }
            return null;
        } catch (SQLException e) {
            return "not a usable state file (" + firstLine(e.getMessage()) + ")";
        }
    }

    private static void prepare(Connection db) throws SQLException {
        try (Statement s = db.createStatement()) {
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("PRAGMA synchronous=FULL");
            s.execute("PRAGMA wal_autocheckpoint=0");   // the checkpoint thread does it, off the commits' path
            // A log that grew past the restart size (while the backup read) is cut back when it restarts.
            s.execute("PRAGMA journal_size_limit=" + (long) LOG_RESTART_FRAMES * 4096);
        }
        db.setAutoCommit(false);
        try (Statement s = db.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value TEXT NOT NULL)");
            s.execute("CREATE TABLE IF NOT EXISTS rows(seq INTEGER PRIMARY KEY, map TEXT NOT NULL, key TEXT NOT NULL, "
                    + "value BLOB NOT NULL, crc INTEGER NOT NULL)");
            if (FORMAT_1.equals(meta(db, "format"))) {   // same rows, numbered in the old order
                s.execute("INSERT INTO rows(map, key, value, crc) SELECT map, key, value, crc FROM entries");
                s.execute("DROP TABLE entries");
                s.execute("UPDATE meta SET value = '" + FORMAT + "' WHERE name = 'format'");
            }
            s.execute("INSERT OR IGNORE INTO meta VALUES ('format', '" + FORMAT + "')");
        }
        db.commit();
    }

    /** Reads every row into memory; the first bad row's description, or null. */
    private static String load(Connection db, Loaded loaded) throws SQLException {
        try (Statement s = db.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT value FROM meta WHERE name = 'format'")) {
                if (!r.next() || !FORMAT.equals(r.getString(1))) {
                    return "not a nat64fabric state file of this version (format " + FORMAT + " expected)";
                }
            }
            try (ResultSet r = s.executeQuery("SELECT seq, map, key, value, crc FROM rows")) {
                while (r.next()) {
                    String map = r.getString(2);
                    String key = r.getString(3);
                    byte[] value = r.getBytes(4);
                    if (crc(value) != r.getLong(5)) {
                        return "the row " + map + "/" + key + " fails its CRC check";
                    }
                    try {
                        if (!loaded.map(map).load(r.getLong(1), key, value)) {
                            return "the key " + map + "/" + key + " has two rows";
                        }
                    } catch (IOException | RuntimeException e) {
                        return "the row " + map + "/" + key + " cannot be read (" + e.getMessage() + ")";
                    }
                }
            }
        }
        return null;
    }

    private static String meta(Connection db, String name) throws SQLException {
        try (PreparedStatement s = db.prepareStatement("SELECT value FROM meta WHERE name = ?")) {
            s.setString(1, name);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? r.getString(1) : null;
            }
        }
    }

    /**
     * Marks the file in use, in the file itself (a checkpoint): should the log be lost after a
     * crash, the file still says that a run did not stop cleanly.
     */
    private static void markOpen(Connection db) throws SQLException {
        setMeta(db, "run", "open");
        db.setAutoCommit(true);
        try (Statement s = db.createStatement()) {
            s.execute("PRAGMA wal_checkpoint(FULL)");
        }
        db.setAutoCommit(false);
    }

    /** Records a fact about the file (the run's state), committed at once. */
    private static void setMeta(Connection db, String name, String value) throws SQLException {
        try (PreparedStatement s = db.prepareStatement("INSERT OR REPLACE INTO meta VALUES (?, ?)")) {
            s.setString(1, name);
            s.setString(2, value);
            s.executeUpdate();
        }
        db.commit();
    }

    /** Waits for every change made so far to be durable; throws when it cannot be. */
    @Override
    protected void changed() {
        try {
            changedAsync().join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause() : e;
        }
    }

    /**
     * Hands every change made so far to the committer; the future completes once they are
     * durable. A caller whose changes another thread's snapshot took gets that commit's future.
     */
    @Override
    protected CompletableFuture<Void> changedAsync() {
        synchronized (queue) {
            if (closed) {
                throw new IllegalStateException("the NAT state " + dir.resolve(FILE) + " is closed");
            }
            Snapshot s = loaded.changes.snapshot();
            if (!s.isEmpty()) {
                Pending p = new Pending(s);
                queue.add(p);
                lastQueued = p.durable;
                queue.notifyAll();
            }
            return lastQueued;
        }
    }

    /**
     * The committer: writes what is queued in one transaction, so that commits that queue up while
     * one is on its way to the disk share the next one (group commit), in the order they were
     * taken. When a commit fails, the ones queued behind it fail too (they build on it) and all
     * their changes are marked again: the next snapshot holds them.
     */
    private void commitLoop() {
        while (true) {
            List<Pending> group;
            synchronized (queue) {
                while (queue.isEmpty() && !closed) {
                    try {
                        queue.wait();
                    } catch (InterruptedException e) {
                        closed = true;
                    }
                }
                if (queue.isEmpty()) {
                    return;
                }
                group = new ArrayList<>(queue);
                queue.clear();
            }
            try {
                write(group);
            } catch (RuntimeException | Error e) {   // whatever it is, the callers waiting hear of it
                synchronized (queue) {
                    group.addAll(queue);
                    queue.clear();
                    group.forEach(p -> loaded.changes.retry(p.snapshot));
                }
                group.forEach(p -> p.durable.completeExceptionally(e));
                continue;
            }
            group.forEach(p -> p.durable.complete(null));
            if (waitForCatchUpWhenLogFull() && !autoCheckpointBack) {
                autoCheckpointBack = true;
                try (Statement st = db.createStatement()) {
                    st.execute("PRAGMA wal_autocheckpoint=1000");   // SQLite's default
                } catch (SQLException e) {
                    LOG.warning("cannot turn SQLite's own checkpoints on: " + firstLine(e.getMessage())
                            + "; " + dir.resolve(WAL) + " grows until the controller stops cleanly");
                }
            }
        }
    }

    /** Writes the snapshots in one transaction; a row written and then deleted ends up deleted. */
    private void write(List<Pending> group) {
        try {
            if (upsert == null) {
                upsert = db.prepareStatement("INSERT OR REPLACE INTO rows VALUES (?, ?, ?, ?, ?)");
                delete = db.prepareStatement("DELETE FROM rows WHERE seq = ?");
            }
            int upserts = 0;
            for (Pending p : group) {
                for (RowWrite w : p.snapshot.writes) {
                    byte[] bytes = w.value;
                    upsert.setLong(1, w.seq);
                    upsert.setString(2, w.map);
                    upsert.setString(3, w.key);
                    upsert.setBytes(4, bytes);
                    upsert.setLong(5, crc(bytes));
                    addRow(upsert, ++upserts);
                }
            }
            upsert.executeBatch();
            int deletes = 0;
            for (Pending p : group) {   // a row number is never used again once deleted: deletes can go last
                for (long seq : p.snapshot.deletes) {
                    delete.setLong(1, seq);
                    addRow(delete, ++deletes);
                }
            }
            delete.executeBatch();
            db.commit();
        } catch (SQLException | RuntimeException e) {
            try {
                if (upsert != null) {
                    upsert.clearBatch();
                    delete.clearBatch();
                }
                db.rollback();
            } catch (SQLException ignored) {
                // the transaction is lost either way; the changes are marked again
            }
            // SQLite ends a transaction itself on some failures (a full disk), and the driver, which
            // still counts one open, would then run the next writes outside any and find no
            // transaction to commit, until a restart: end whatever is open without keeping it, then
            // begin a new one whatever happened.
            try (Statement st = db.createStatement()) {
                st.execute("ROLLBACK");
            } catch (SQLException ignored) {
                // none was open
            }
            try {
                db.setAutoCommit(true);
            } catch (SQLException ignored) {
                // nothing was open to end
            }
            try {
                db.setAutoCommit(false);
            } catch (SQLException ignored) {
                // the next write fails in turn and comes back here
            }
            throw new NotDurable("cannot write the NAT state to " + dir.resolve(FILE) + ": "
                    + firstLine(e.getMessage()), e);
        }
    }

    /** Adds the statement's parameters as the {@code n}th row of the commit; executes the batch every {@link #BATCH_ROWS} rows. */
    private static void addRow(PreparedStatement statement, int n) throws SQLException {
        statement.addBatch();
        if (n % BATCH_ROWS == 0) {
            statement.executeBatch();
        }
    }

    /**
     * After a commit: counts it for the checkpoint thread, and when the log is full, has the thread
     * copy the rest of it and waits, so that the next commit writes the log from its start. Returns
     * whether the checkpoint thread has stopped.
     */
    private boolean waitForCatchUpWhenLogFull() {
        synchronized (queue) {
            catchUpAsked = logFull && !checkpointerGone;
            if (++commitsSinceCheckpoint == 1 || catchUpAsked) {   // the thread waits for one of these, else it is pausing
                queue.notifyAll();
            }
            while (catchUpAsked && !checkpointerGone) {
                try {
                    queue.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            return checkpointerGone;
        }
    }

    /**
     * Checkpoints the log into the file, on a connection of its own: after commits, with a pause of
     * {@value #CHECKPOINT_PAUSE_MILLIS} ms between runs, and at once when the committer asks. A
     * PASSIVE checkpoint copies what was committed when it began and never holds up the committer,
     * which goes on appending; this is the only connection that checkpoints while the store is open.
     */
    private void checkpointLoop() {
        try (Connection conn = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(FILE));
             Statement s = conn.createStatement()) {
            s.execute("PRAGMA synchronous=FULL");
            long pauseUntil = 0;
            while (true) {
                boolean catchUp;
                synchronized (queue) {
                    while (!closed && !catchUpAsked) {
                        if (commitsSinceCheckpoint == 0) {
                            queue.wait();   // until a commit, a catch-up or the close
                            continue;
                        }
                        long pauseMillis = (pauseUntil - System.nanoTime()) / 1_000_000;
                        if (pauseMillis <= 0) {
                            break;
                        }
                        queue.wait(pauseMillis);
                    }
                    if (closed) {
                        return;
                    }
                    catchUp = catchUpAsked;
                    commitsSinceCheckpoint = 0;
                }
                int logPages;
                try (ResultSet r = s.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
                    logPages = r.next() ? r.getInt(2) : -1;   // (busy, pages in the log, pages copied)
                }
                synchronized (queue) {
                    // After a catch-up the next commit restarts the log (unless a reader holds it: the next run tells).
                    logFull = !catchUp && logPages >= logRestartFrames;
                    if (catchUp) {   // a catch-up asked during a run begun before is the next run
                        catchUpAsked = false;
                        queue.notifyAll();
                    }
                }
                pauseUntil = System.nanoTime() + CHECKPOINT_PAUSE_MILLIS * 1_000_000;
            }
        } catch (SQLException | RuntimeException | InterruptedException e) {
            // Nothing is lost: the log keeps every commit, and SQLite's own checkpoints come back.
            LOG.warning("the checkpoint thread stopped (" + firstLine(e.getMessage()) + "): commits copy the log into "
                    + dir.resolve(FILE) + " themselves from now on, holding up the commits behind them meanwhile");
        } finally {
            synchronized (queue) {   // a committer waiting for a catch-up goes on
                checkpointerGone = true;
                queue.notifyAll();
            }
        }
    }

    /**
     * Writes the last-known-good copy: a consistent snapshot, then an atomic rename. On a connection
     * of its own: in WAL mode a reader sees the last commit and does not hold up
     * the writer, so setups go on while a large state is copied.
     */
    void backup() throws SQLException, IOException {
        Path tmp = dir.resolve(BACKUP + ".tmp");
        synchronized (backupLock) {
            Files.deleteIfExists(tmp);
            try (Connection reader = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(FILE));
                 Statement s = reader.createStatement()) {
                s.execute("VACUUM INTO '" + tmp.toString().replace("'", "''") + "'");
            }
            Files.move(tmp, dir.resolve(BACKUP), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Override
    public void close() throws SQLException, IOException {
        changed();
        synchronized (queue) {
            closed = true;
            queue.notifyAll();
        }
        try {
            committer.join();
            checkpointer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        backup();
        if (upsert != null) {   // an open statement would keep the checkpoint from truncating the log
            upsert.close();
            delete.close();
        }
        setMeta(db, "run", "closed");
        db.setAutoCommit(true);   // no transaction open: a checkpoint cannot run inside one
        try (Statement s = db.createStatement()) {
            s.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        db.close();
        release(lock);
    }

    private static long crc(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    private static String firstLine(String message) {
        return message == null ? "unknown error" : message.lines().findFirst().orElse(message);
    }
}
