package org.nat64fabric.softswitch.ebpf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fast path's compiled objects on disk: found by what made them, checked, bounded. */
class ObjectCacheTest {
    @TempDir
    Path dir;

    @Test
    void anObjectKeptIsFoundByTheSameParts() {
        ObjectCache cache = new ObjectCache(dir);
        String key = ObjectCache.key(List.of("int x;", "header", "clang -O2", "clang 14"));
        assertTrue(cache.get(key).isEmpty());
        byte[] object = {0x7f, 'E', 'L', 'F', 1, 2, 3};
        cache.put(key, object);
        assertArrayEquals(object, cache.get(key).orElseThrow());
        assertArrayEquals(object, new ObjectCache(dir).get(key).orElseThrow(), "another switch finds it too");
    }

    @Test
    void anyPartChangedIsAnotherKeyAndPartsDoNotRunIntoEachOther() {
        String key = ObjectCache.key(List.of("int x;", "header", "clang -O2", "clang 14"));
        assertNotEquals(key, ObjectCache.key(List.of("int y;", "header", "clang -O2", "clang 14")));
        assertNotEquals(key, ObjectCache.key(List.of("int x;", "header", "clang -O2", "clang 15")));
        assertNotEquals(ObjectCache.key(List.of("ab", "c")), ObjectCache.key(List.of("a", "bc")));
        assertEquals(key, ObjectCache.key(List.of("int x;", "header", "clang -O2", "clang 14")));
    }

    /** A four-byte object put under {@code key}; its file. */
    private Path kept(ObjectCache cache, String key) {
        cache.put(key, new byte[] {1, 2, 3, 4});
        return dir.resolve(key + ".o");
    }

    @Test
    void anObjectThatDoesNotCheckOutIsRemovedNotUsed() throws IOException {
        ObjectCache cache = new ObjectCache(dir);
        String key = ObjectCache.key(List.of("a"));
        Path file = kept(cache, key);
        byte[] stored = Files.readAllBytes(file);
        stored[1] ^= 1;
        Files.write(file, stored);
        assertTrue(cache.get(key).isEmpty());
        assertFalse(Files.exists(file));
        Files.write(file, new byte[] {9});   // shorter than its digest
        assertTrue(cache.get(key).isEmpty());
    }

    @Test
    void anObjectOthersMayWriteIsNotLoaded() throws IOException {
        ObjectCache cache = new ObjectCache(dir);
        String key = ObjectCache.key(List.of("b"));
        Path file = kept(cache, key);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertTrue(cache.get(key).isEmpty(), "anyone could have planted it");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        assertTrue(cache.get(key).isPresent());
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertTrue(cache.get(key).isEmpty(), "anyone could have replaced it");
    }

    @Test
    void theLeastRecentlyUsedGoBeyondTheLimit() throws IOException {
        ObjectCache cache = new ObjectCache(dir);
        for (int i = 0; i < ObjectCache.MAX_OBJECTS; i++) {
            String key = ObjectCache.key(List.of("program " + i));
            cache.put(key, new byte[] {(byte) i});
            Files.setLastModifiedTime(dir.resolve(key + ".o"), FileTime.fromMillis(1_000_000L * (i + 1)));
        }
        Path notOurs = Files.write(dir.resolve("build.o"), new byte[] {7});
        Files.setLastModifiedTime(notOurs, FileTime.fromMillis(1));
        String oldest = ObjectCache.key(List.of("program 0"));
        String second = ObjectCache.key(List.of("program 1"));
        assertTrue(cache.get(oldest).isPresent(), "used now: the most recent");
        cache.put(ObjectCache.key(List.of("one more")), new byte[] {42});
        try (var files = Files.list(dir)) {
            assertEquals(ObjectCache.MAX_OBJECTS + 1, files.count());
        }
        assertTrue(Files.exists(notOurs), "a file the cache did not write is left alone");
        assertTrue(cache.get(oldest).isPresent());
        assertTrue(cache.get(second).isEmpty(), "the least recently used went");
    }

    @Test
    void aCacheThatCannotBeWrittenOnlyMissesEveryTime() throws IOException {
        Path notADirectory = dir.resolve("file");
        Files.write(notADirectory, new byte[] {1});
        ObjectCache cache = new ObjectCache(notADirectory.resolve("cache"));
        cache.put("k", new byte[] {1});
        assertTrue(cache.get("k").isEmpty());
    }
}
