package org.nat64fabric.softswitch.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every program in src/test/resources/broken/ is rejected with the message its first line
 * announces: {@code // expect: LINE:COL: message}.
 */
class TypeErrorCorpusTest {
    private static final Pattern EXPECT = Pattern.compile("^// expect: (\\d+):(\\d+): (.*)$");

    @TestFactory
    Stream<DynamicTest> brokenProgramsAreRejectedWithLocatedMessages() throws IOException {
        Path dir = Path.of("src/test/resources/broken");
        List<Path> files = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(p -> p.toString().endsWith(".p4")).sorted().forEach(files::add);
        }
        if (files.size() < 15) {
            throw new AssertionError("the broken-program corpus shrank to " + files.size() + " files");
        }
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
            String first = Files.readAllLines(f).get(0);
            Matcher m = EXPECT.matcher(first);
            if (!m.matches()) {
                throw new AssertionError(f + " lacks its '// expect: LINE:COL: message' first line");
            }
            P4CompileException e = assertThrows(P4CompileException.class, () -> Frontend.compile(f));
            assertEquals(f.toString(), e.file());
            assertEquals(m.group(3), e.detail());
            assertEquals(Integer.parseInt(m.group(1)), e.line(), "line of: " + e.getMessage());
            assertEquals(Integer.parseInt(m.group(2)), e.column(), "column of: " + e.getMessage());
        }));
    }
}
