package org.nat64fabric.controller;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The REST API's credentials: {@code USER:PASSWORD} on one line in {@value #FILE} in the state
 * directory, created with a random password at first start, readable by its owner only (0600).
 * {@code nat64ctl} reads the same file; an operator may replace the line with their own.
 */
final class Credentials {
    static final String FILE = "rest-credentials";
    static final String DEFAULT_USER = "nat64";

    private final Path file;
    private final byte[] expected;   // base64(USER:PASSWORD) after "Basic ", compared in constant time

    private Credentials(Path file, String userPassword) {
        this.file = file;
        this.expected = Base64.getEncoder().encodeToString(userPassword.getBytes(StandardCharsets.UTF_8))
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** Reads the file, creating it first if absent; a malformed file is an error naming it. */
    static Credentials loadOrCreate(Path stateDir) throws IOException {
        Path file = stateDir.resolve(FILE);
        if (!Files.exists(file)) {
            byte[] secret = new byte[18];
            new SecureRandom().nextBytes(secret);
            String line = DEFAULT_USER + ":" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret) + "\n";
            // Written aside, then renamed: a crash meanwhile leaves no empty file to refuse at the next start.
            Path tmp = stateDir.resolve(FILE + ".tmp");
            Files.deleteIfExists(tmp);
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.writeString(tmp, line, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.SYNC);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        }
        String line = Files.readString(file).trim();
        int colon = line.indexOf(':');
        if (line.contains("\n") || colon < 1 || colon == line.length() - 1) {
            throw new IOException(file + " must hold one line USER:PASSWORD");
        }
        return new Credentials(file, line);
    }

    Path file() {
        return file;
    }

    /** Whether an Authorization header carries these credentials. */
    /** Whether the header holds the credentials; the scheme's name in any case (RFC 7235 2.1). */
    boolean accepts(String authorization) {
        String[] parts = authorization == null ? new String[0] : authorization.trim().split(" +", 2);
        return parts.length == 2 && parts[0].equalsIgnoreCase("Basic")
                && MessageDigest.isEqual(expected, parts[1].getBytes(StandardCharsets.US_ASCII));
    }
}
