package org.nat64fabric.core.p4;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The hand-written {@link Constants} agree with the P4 program they describe. */
class ConstantsTest {
    private static final Path P4 = Path.of("..", "p4", "include");

    private static int define(String file, String name) throws Exception {
        String text = new String(Files.readAllBytes(P4.resolve(file)), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("(?m)^\\s*#define\\s+" + name + "\\s+(\\d+)\\s*$").matcher(text);
        assertTrue(m.find(), file + " defines no " + name);
        return Integer.parseInt(m.group(1));
    }

    @Test
    void theCpuPortAndCloneSessionAreTheProgramsOwn() throws Exception {
        assertEquals(define("v1model_arch.p4", "CPU_PORT"), Constants.CPU_PORT);
        assertEquals(define("control.p4", "CPU_CLONE_SESSION"), Constants.CPU_CLONE_SESSION);
        String control = new String(Files.readAllBytes(P4.resolve("control.p4")), StandardCharsets.UTF_8);
        assertTrue(control.contains("clone_preserving_field_list(CloneType.I2E, CPU_CLONE_SESSION"),
                "the program clones TCP control segments to that session");
    }
}
