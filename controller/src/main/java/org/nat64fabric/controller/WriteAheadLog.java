package org.nat64fabric.controller;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * Reads SQLite's write-ahead log as SQLite's file format describes it (sqlite.org/fileformat2.html,
 * "The WAL File Format") to find commits that SQLite would drop without a word. Opening a log, SQLite
 * replays its frames up to the first one whose salts or cumulative checksum do not hold, and keeps
 * the transactions committed before it; whatever the log holds after that frame is skipped, though
 * acknowledged. Damage in the last transaction is what a crash during its write leaves (it was not
 * yet synced, so not acknowledged); damage before the last two commits is not: with
 * {@code synchronous=FULL} each commit is synced before the next begins, so the transaction
 * holding the damage was on disk whole when the next one was written.
 */
final class WriteAheadLog {
    private static final int HEADER = 32;
    private static final int FRAME_HEADER = 24;
    /** The magic number; its lowest bit says whether checksum words are big-endian (1) or little-endian (0). */
    private static final int MAGIC = 0x377f0682;

    private WriteAheadLog() {
    }

    /**
     * Why the log at {@code path} would lose acknowledged commits, or empty: a damaged frame (or
     * header) followed by two commits or more that SQLite would skip.
     */
    static Optional<String> lostCommits(Path path) throws IOException {
        try (InputStream in = Files.newInputStream(path)) {
            byte[] header = in.readNBytes(HEADER);
            if (header.length < HEADER) {
                return Optional.empty();        // no frame was ever written
            }
            ByteBuffer h = ByteBuffer.wrap(header);   // the header's fields are big-endian
            int magic = h.getInt(0);
            if ((magic & ~1) != MAGIC) {
                return Optional.empty();        // not a log SQLite would read; its commits are the file's concern
            }
            ByteOrder words = (magic & 1) == 1 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
            int pageSize = h.getInt(8) == 1 ? 65536 : h.getInt(8);
            if (pageSize < 512 || pageSize > 65536 || Integer.bitCount(pageSize) != 1) {
                return Optional.empty();
            }
            long[] expected = checksum(new long[] {0, 0}, header, 0, 24, words);
            long[] seed = {h.getInt(24) & 0xffffffffL, h.getInt(28) & 0xffffffffL};
            int salt1 = h.getInt(16);
            int salt2 = h.getInt(20);
            // where SQLite's replay stops: the header itself, a frame, or nowhere (-1)
            long firstBad = Arrays.equals(expected, seed) ? -1 : 0;
            int commitsAfter = 0;
            byte[] frame = new byte[FRAME_HEADER + pageSize];
            for (long i = 0; in.readNBytes(frame, 0, frame.length) == frame.length; i++) {
                ByteBuffer f = ByteBuffer.wrap(frame);
                long[] stored = {f.getInt(16) & 0xffffffffL, f.getInt(20) & 0xffffffffL};
                boolean holds = f.getInt(8) == salt1 && f.getInt(12) == salt2
                        && Arrays.equals(checksum(checksum(seed, frame, 0, 8, words), frame, FRAME_HEADER, pageSize, words),
                                         stored);
                boolean commit = f.getInt(4) != 0;   // the database's size in pages after a commit, else 0
                seed = stored;   // each frame's own sum is checked from the one before, so one bad frame is one
                if (!holds && firstBad < 0) {
                    firstBad = i + 1;
                } else if (holds && commit && firstBad >= 0 && ++commitsAfter == 2) {
                    return Optional.of("its write-ahead log " + path + " is damaged " + (firstBad == 0 ? "in its header"
                            : "at frame " + firstBad) + ", before commits that SQLite would skip, so changes acknowledged"
                            + " since then would be lost");
                }
            }
            return Optional.empty();
        }
    }

    /** SQLite's log checksum: {@code s} carried over {@code length} bytes (a multiple of 8) read as 32-bit words. */
    private static long[] checksum(long[] s, byte[] data, int offset, int length, ByteOrder order) {
        ByteBuffer b = ByteBuffer.wrap(data, offset, length).order(order);
        long s0 = s[0];
        long s1 = s[1];
        for (int i = offset; i < offset + length; i += 8) {
            s0 = (s0 + (b.getInt(i) & 0xffffffffL) + s1) & 0xffffffffL;
            s1 = (s1 + (b.getInt(i + 4) & 0xffffffffL) + s0) & 0xffffffffL;
        }
        return new long[] {s0, s1};
    }
}
