package org.nat64fabric.softswitch.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Program;

/**
 * No input makes the frontend fail with anything but a located error {@code file:line:col: message}.
 * <ul>
 *   <li>src/test/resources/frontend-corpus/: broken and unusual programs, each with the outcome
 *       EXPECTED lists for it ({@code accepted}, or the exact error);</li>
 *   <li>generated inputs: deep nesting, long expressions, random bytes;</li>
 *   <li>mutants of the project's real programs (tokens deleted, duplicated, swapped, replaced,
 *       the text truncated), drawn from fixed seeds. {@code -Dfrontend.fuzz.mutants=N} sets the
 *       number per program (default 60, a few seconds in all).</li>
 * </ul>
 * An accepted program must also give a P4Info. A frontend failure it did not foresee is reported as
 * a located "internal error"; the test counts that as a failure too: each cause is fixed by name.
 */
class FrontendRobustnessTest {
    private static final Path CORPUS = Path.of("src/test/resources/frontend-corpus");
    private static final Pattern LOCATED = Pattern.compile("^(.+):(\\d+):(\\d+): (.+)$", Pattern.DOTALL);
    private static final String INTERNAL = "internal error";
    private static final List<Path> REAL_PROGRAMS = List.of(Path.of("../p4/nat64.p4"), Path.of("examples/l3_forwarding.p4"),
            Path.of("examples/policer.p4"), Path.of("examples/sume_forwarding.p4"), Path.of("../hw/netfpga/nat64_sume.p4"));

    @TempDir
    Path dir;

    /** What compiling gave: "accepted" or the located message. */
    private static String outcome(Supplier<Program> compile) {
        try {
            Program p = compile.get();
            P4InfoBuilder.build(p);
            return "accepted";
        } catch (P4CompileException e) {
            Matcher m = LOCATED.matcher(e.getMessage());
            assertTrue(m.matches(), "not file:line:col: message: " + e.getMessage());
            assertTrue(Integer.parseInt(m.group(2)) >= 1 && Integer.parseInt(m.group(3)) >= 1, e.getMessage());
            assertTrue(!e.detail().contains(INTERNAL), "an unforeseen failure: " + e.getMessage());
            return e.getMessage();
        } catch (RuntimeException | Error e) {
            throw new AssertionError("the frontend failed with " + e + " instead of a located error", e);
        }
    }

    private static Map<String, String> expected() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(CORPUS.resolve("EXPECTED"))) {
            if (!line.isBlank() && !line.startsWith("#")) {
                int colon = line.indexOf(": ");
                out.put(line.substring(0, colon), line.substring(colon + 2));
            }
        }
        return out;
    }

    @TestFactory
    Stream<DynamicTest> everyCorpusProgramHasItsExpectedOutcome() throws IOException {
        Map<String, String> expected = expected();
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(CORPUS)) {
            s.filter(p -> p.toString().endsWith(".p4")).sorted().forEach(files::add);
        }
        assertTrue(files.size() >= 150, "the corpus shrank to " + files.size() + " programs");
        assertEquals(files.size(), expected.size(), "EXPECTED must list every corpus program, and only those");
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
            String name = f.getFileName().toString();
            String want = expected.get(name);
            if (want == null) {
                fail(name + " has no line in EXPECTED");
            }
            String got = outcome(() -> Frontend.compile(f)).replace(CORPUS + "/", "");
            assertEquals(want, got);
        }));
    }

    @Test
    void deepNestingIsALocatedError() {
        for (String program : List.of(
                "const bit<8> K = " + "(".repeat(20000) + "1" + ")".repeat(20000) + ";\n",
                "const bit<8> K = " + "-".repeat(50000) + "1;\n",
                "const int K = 1" + " + 1".repeat(60000) + ";\n",
                "control C() { apply { " + "if (true) { ".repeat(20000) + "}".repeat(20000) + " } }\n",
                "const bool K = " + "!".repeat(50000) + "true;\n")) {
            // compilePreprocessed takes what cpp gives: an #include here would be refused before any nesting
            String got = outcome(() -> Frontend.compilePreprocessed(program, "deep.p4", 0));
            assertTrue(got.contains("nests"), got);
        }
    }

    @Test
    void bracketsNestedPastTheLimitAreRefusedBeforeTheParserRecursesIntoThem() {
        // 40 000 nested blocks once took the parser a minute to give up on
        String program = "control C() { apply { " + "{ ".repeat(40000) + "}".repeat(40000) + " } }\n";
        String got = outcome(() -> Frontend.compilePreprocessed(program, "deep.p4", 0));
        assertTrue(got.contains(":1:2019: the program nests more than 1000 brackets deep"), got);   // the 1001st bracket
    }

    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)   // a blocked read ignores interrupts
    void thePreprocessorsDiagnosticsBeyondAPipeBufferDoNotHangTheFrontend() throws IOException {
        // cpp echoes a #warning to stderr: 70 000 bytes filled the pipe while stdout was read, and
        // softswitch check hung (found by fuzzing: a mutant with a 100 kB #include name).
        Path f = Files.writeString(dir.resolve("long_warning.p4"), "#warning " + "w".repeat(70_000) + "\n");
        assertTrue(outcome(() -> Frontend.compile(f)).contains("no package instance named 'main'"));
    }

    @Test
    void randomBytesAreLocatedErrors() throws IOException {
        Random r = new Random(20);
        for (int i = 0; i < 8; i++) {
            byte[] junk = new byte[1 + r.nextInt(600)];
            r.nextBytes(junk);
            Path f = Files.write(dir.resolve("junk" + i + ".p4"), junk);
            assertTrue(!outcome(() -> Frontend.compile(f)).equals("accepted"));
            // and without the preprocessor, as a switch receives a device config
            String text = new String(junk, StandardCharsets.ISO_8859_1);
            assertTrue(!outcome(() -> Frontend.compilePreprocessed(text, "junk.p4", 0)).equals("accepted"));
        }
    }

    @TestFactory
    Stream<DynamicTest> mutantsOfRealProgramsAreAcceptedOrLocatedErrors() {
        int perProgram = Integer.getInteger("frontend.fuzz.mutants", 60);
        return REAL_PROGRAMS.stream().map(program -> DynamicTest.dynamicTest(program.toString(), () -> {
            Preprocessor.Result pre = Preprocessor.run(program, List.of(), List.of());
            List<List<String>> lines = tokenLines(pre.preprocessed);
            List<String> vocabulary = new ArrayList<>();
            lines.forEach(vocabulary::addAll);
            Random r = new Random(program.toString().hashCode());
            for (int i = 0; i < perProgram; i++) {
                String mutant = mutate(lines, vocabulary, r);
                try {
                    outcome(() -> Frontend.compilePreprocessed(mutant, program.getFileName().toString(), 0));
                } catch (AssertionError e) {
                    Path kept = Files.writeString(Path.of("target", "frontend-mutant-" + program.getFileName() + "-" + i + ".txt"),
                            mutant);
                    throw new AssertionError("mutant " + i + " of " + program + " (kept in " + kept + "): " + e.getMessage(), e);
                }
            }
        }));
    }

    private static final Pattern TOKEN = Pattern.compile("\\s+|[A-Za-z_][A-Za-z0-9_]*|[0-9][0-9A-Za-z_]*|\"(?:[^\"\\\\]|\\\\.)*\""
            + "|&&&|\\|\\+\\||\\|-\\||\\+\\+|&&|\\|\\||==|!=|<=|>=|<<|\\.\\.|.");

    /** The preprocessed text as lines of tokens (whitespace kept as tokens); line markers stay whole. */
    private static List<List<String>> tokenLines(String text) {
        List<List<String>> out = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            List<String> tokens = new ArrayList<>();
            if (line.startsWith("#")) {
                tokens.add(line);
            } else {
                Matcher m = TOKEN.matcher(line);
                while (m.find()) {
                    tokens.add(m.group());
                }
            }
            out.add(tokens);
        }
        return out;
    }

    /** One to three token edits, or a truncation, away from the program; the line structure is kept. */
    private static String mutate(List<List<String>> lines, List<String> vocabulary, Random r) {
        List<List<String>> copy = new ArrayList<>();
        for (List<String> l : lines) {
            copy.add(new ArrayList<>(l));
        }
        int edits = 1 + r.nextInt(3);
        for (int e = 0; e < edits; e++) {
            int at = r.nextInt(copy.size());
            List<String> line = copy.get(at);
            if (line.isEmpty() || line.get(0).startsWith("#")) {
                continue;
            }
            int i = r.nextInt(line.size());
            switch (r.nextInt(5)) {
                case 0: line.remove(i); break;
                case 1: line.add(i, line.get(i)); break;
                case 2:
                    if (i + 1 < line.size()) {
                        line.add(i + 1, line.remove(i));
                    }
                    break;
                case 3: line.set(i, vocabulary.get(r.nextInt(vocabulary.size()))); break;
                default: {
                    line.subList(i, line.size()).clear();
                    copy.subList(at + 1, copy.size()).clear();
                    e = edits;
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        for (List<String> l : copy) {
            l.forEach(sb::append);
            sb.append('\n');
        }
        return sb.toString();
    }
}
