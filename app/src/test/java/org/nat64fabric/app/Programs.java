package org.nat64fabric.app;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the programs written by others that the tests have judge the app's output (Debian's tshark,
 * the Prometheus client in the venv's Python). A missing program fails the test saying what installs
 * it, never a skip; a failing one fails it with the program's own message.
 */
final class Programs {
    private Programs() {
    }

    /** The program's standard output, {@code input} given on its standard input. */
    static String run(List<String> command, String input, String installedBy) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).start();
        } catch (IOException e) {
            return fail(command.get(0) + " is missing: " + installedBy + " (" + e.getMessage() + ")");
        }
        try (OutputStream in = p.getOutputStream()) {
            in.write(input.getBytes(StandardCharsets.UTF_8));   // each program reads all of it before it writes
        }
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            fail(String.join(" ", command) + " failed: " + err);
        }
        return new String(out, StandardCharsets.UTF_8);
    }
}
