package org.nat64fabric.core.p4;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
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

    /** The program's {@code const bit<WIDTH> PREFIX_NAME = V;} as V → name in lower case, without the prefix. */
    private static Map<Integer, String> consts(String prefix, int width) throws Exception {
        String text = new String(Files.readAllBytes(P4.resolve("defines.p4")), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("(?m)^const bit<" + width + ">\\s+" + prefix + "(\\w+)\\s*=\\s*(\\d+);").matcher(text);
        Map<Integer, String> out = new TreeMap<>();
        while (m.find()) {
            out.put(Integer.parseInt(m.group(2)), m.group(1).toLowerCase(Locale.ROOT));
        }
        return out;
    }

    private static void sameCells(String prefix, int width, List<String> names) throws Exception {
        Map<Integer, String> program = consts(prefix, width);
        program.values().remove("reasons");   // DROP_REASONS: the counter's size, not a cell
        for (Map.Entry<Integer, String> c : program.entrySet()) {
            assertTrue(c.getKey() < names.size(), prefix + c.getValue().toUpperCase(Locale.ROOT) + " = " + c.getKey()
                    + " is not named in Constants");
            assertEquals(c.getValue(), names.get(c.getKey()), prefix + " cell " + c.getKey());
        }
        assertEquals(program.size(), names.size() - (prefix.equals("PUNT_") ? 1 : 0), prefix + ": cells named");
    }

    @Test
    void counterCellsAreNamedAsTheProgramNamesThem() throws Exception {
        sameCells("DROP_", 32, Constants.DROP_REASONS);
        sameCells("PUNT_", 8, Constants.PUNT_REASONS);
        sameCells("SENT_", 32, Constants.ICMP_ERRORS_SENT);
        sameCells("TRANSLATED_", 32, Constants.TRANSLATIONS);
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
