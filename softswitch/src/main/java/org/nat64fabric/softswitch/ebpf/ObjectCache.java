package org.nat64fabric.softswitch.ebpf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * clang's objects kept on disk by what made them (the C, its header, the clang command and
 * clang's version), so a switch that restarts, or a second one with the same program, loads its
 * fast path in milliseconds instead of compiling for seconds. A file is its object followed by
 * the object's SHA-256: one that does not check out (a disk full, a hand edit) is removed and the
 * program compiled again. Files are written whole and renamed into place, so switches starting
 * together never read half of one. The least recently used go beyond {@link #MAX_OBJECTS}; other
 * files in the directory are not touched. What is loaded goes into the kernel, so a file, or a
 * directory on its path, that another user owns (root aside) or that group or others may write
 * (a sticky directory such as /tmp aside) is not used: the digest tells a damaged file, not a
 * planted one.
 */
final class ObjectCache {
    private static final Logger LOG = Logger.getLogger("softswitch");
    /** Objects kept (p4/nat64.p4's is about 1 MB). */
    static final int MAX_OBJECTS = 32;
    private static final int DIGEST = 32;
    private static final String SUFFIX = ".o";
    /** The cache's own files: a key (64 hex digits) and SUFFIX. */
    private static final Pattern OBJECT = Pattern.compile("[0-9a-f]{64}\\.o");
    /** A temporary file older than this was left by a switch killed while writing it. */
    private static final long STALE_TMP_MS = 3_600_000;

    private final Path dir;

    ObjectCache(Path dir) {
        this.dir = dir;
    }

    /**
     * {@code $SOFTSWITCH_CACHE_DIR}, else {@code $XDG_CACHE_HOME/softswitch/fast-path}, else
     * {@code ~/.cache/softswitch/fast-path}; empty when {@code SOFTSWITCH_CACHE_DIR} is {@code off}.
     */
    static Optional<ObjectCache> standard() {
        String own = System.getenv("SOFTSWITCH_CACHE_DIR");
        if ("off".equals(own)) {
            return Optional.empty();
        }
        if (own != null && !own.isEmpty()) {
            return Optional.of(new ObjectCache(Path.of(own)));
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isEmpty() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return Optional.of(new ObjectCache(base.resolve("softswitch").resolve("fast-path")));
    }

    /** The key of an object: the SHA-256 of every part that goes into making it, each length-prefixed. */
    static String key(List<String> parts) {
        MessageDigest sha = sha256();
        for (String part : parts) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            sha.update(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII));
            sha.update((byte) ':');
            sha.update(bytes);
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** The object made by {@code key}, when kept, whole and only ours to write; marked as used. */
    Optional<byte[]> get(String key) {
        Path file = dir.resolve(key + SUFFIX);
        byte[] stored;
        try {
            if (!Files.exists(file)) {
                return Optional.empty();
            }
            if (!trusted(file)) {
                return Optional.empty();
            }
            stored = Files.readAllBytes(file);
        } catch (IOException e) {
            return Optional.empty();   // not kept (or unreadable: compiled again)
        }
        byte[] object = Arrays.copyOf(stored, Math.max(0, stored.length - DIGEST));
        if (stored.length <= DIGEST
                || !Arrays.equals(sha256().digest(object), Arrays.copyOfRange(stored, object.length, stored.length))) {
            LOG.warning("fast path: removing " + file + ", which does not check out (compiling again)");
            delete(file);
            return Optional.empty();
        }
        try {
            Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis()));
        } catch (IOException e) {
            // read-only: it is still used, merely not marked
        }
        return Optional.of(object);
    }

    /** Keeps {@code object} under {@code key}; a cache that cannot be written is only slower, so it says why and goes on. */
    void put(String key, byte[] object) {
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            if (!trusted(dir)) {
                return;
            }
            Path tmp = Files.createTempFile(dir, key, ".tmp");
            try {
                Files.write(tmp, concat(object, sha256().digest(object)));
                try {
                    Files.move(tmp, dir.resolve(key + SUFFIX), StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, dir.resolve(key + SUFFIX), StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
            evict();
        } catch (IOException e) {
            LOG.warning("fast path: cannot keep the compiled program in " + dir + " (" + e
                    + "); each start compiles it (set SOFTSWITCH_CACHE_DIR to a writable directory, or off)");
        }
    }

    /** Removes the least recently used objects beyond MAX_OBJECTS, and temporary files a killed switch left. */
    private void evict() throws IOException {
        List<Path> objects;
        long now = System.currentTimeMillis();
        try (Stream<Path> files = Files.list(dir)) {
            objects = files.filter(f -> OBJECT.matcher(f.getFileName().toString()).matches()
                            || f.getFileName().toString().endsWith(".tmp") && now - modified(f).toMillis() > STALE_TMP_MS)
                    .sorted(Comparator.comparing(ObjectCache::modified).reversed()).collect(Collectors.toList());
        }
        objects.stream().filter(f -> f.getFileName().toString().endsWith(".tmp")).forEach(ObjectCache::delete);
        objects.stream().filter(f -> f.getFileName().toString().endsWith(SUFFIX)).skip(MAX_OBJECTS)
                .forEach(ObjectCache::delete);
    }

    /** Whether {@code p} and every directory above it are safe to load from; logs why not. */
    private static boolean trusted(Path p) throws IOException {
        for (Path at = p.toAbsolutePath(); at != null; at = at.getParent()) {
            PosixFileAttributes a = Files.readAttributes(at, PosixFileAttributes.class);
            String owner = a.owner().getName();
            boolean othersWrite = a.permissions().contains(PosixFilePermission.GROUP_WRITE)
                    || a.permissions().contains(PosixFilePermission.OTHERS_WRITE);
            boolean sticky = a.isDirectory() && at != p && isSticky(at);
            if (!owner.equals(System.getProperty("user.name")) && !owner.equals("root") || othersWrite && !sticky) {
                LOG.warning("fast path: not using the cache at " + p + ": " + at + " is " + owner + "'s"
                        + (othersWrite ? " and writable by group or others" : "")
                        + " (compiling; point SOFTSWITCH_CACHE_DIR to a directory of your own, or off)");
                return false;
            }
        }
        return true;
    }

    /** The sticky bit: only an entry's owner may remove or rename it (so /tmp's others cannot swap ours). */
    private static boolean isSticky(Path directory) throws IOException {
        return ((Integer) Files.getAttribute(directory, "unix:mode") & 01000) != 0;
    }

    private static FileTime modified(Path f) {
        try {
            return Files.getLastModifiedTime(f);
        } catch (IOException e) {
            return FileTime.fromMillis(0);   // gone meanwhile: first to go
        }
    }

    private static void delete(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException e) {
            LOG.warning("fast path: cannot remove " + f + ": " + e.getMessage());
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
