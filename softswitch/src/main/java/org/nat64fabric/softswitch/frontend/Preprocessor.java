package org.nat64fabric.softswitch.frontend;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs the C preprocessor over a P4 file, as p4c does, and keeps where each output line came from.
 * {@code #include <core.p4>}, {@code <v1model.p4>} and {@code <sume_switch.p4>} resolve to
 * softswitch's own declarations of those libraries, shipped as resources and unpacked to a private folder.
 */
public final class Preprocessor {
    private static final String[] LIBRARIES = {"core.p4", "v1model.p4", "sume_switch.p4"};
    private static final Pattern LINE_MARKER = Pattern.compile("^#\\s*(?:line\\s+)?(\\d+)\\s+\"((?:[^\"\\\\]|\\\\.)*)\".*$");
    private static final Pattern CPP_DIAGNOSTIC = Pattern.compile("^(.+?):(\\d+):(?:(\\d+):)? (?:fatal )?error: (.*)$");
    private static Path libraryDir;
    /** The address space cpp may take (1 GiB; a large program takes tens of MiB). */
    private static final long CPP_MEMORY_KIB = 1L << 20;
    /** The most it may write (64 MiB; nat64.p4 and its includes make 110 KiB). */
    private static final long CPP_OUTPUT_KIB = 1L << 16;
    /** bash's exit status for a command killed by SIGXFSZ, the signal of a file past its limit. */
    private static final int KILLED_BY_SIGXFSZ = 128 + 25;

    /** Preprocessed text whose line i (from 1) came from {@code files[i]}, line {@code lines[i]}. */
    public static final class Result {
        /** The preprocessor's output with its line markers, libraries named {@code <core.p4>}. */
        public final String preprocessed;
        /** The same text with line markers blanked, as the lexer reads it. */
        public final String text;
        private final List<String> files;
        private final int[] lines;

        Result(String preprocessed, String text, List<String> files, int[] lines) {
            this.preprocessed = preprocessed;
            this.text = text;
            this.files = files;
            this.lines = lines;
        }

        /** The file of an output line; past the end (where the lexer puts end of file), the last line's. */
        public String fileOf(int outputLine) {
            return files.get(Math.max(1, Math.min(outputLine, files.size())) - 1);
        }

        /** The source line of an output line; at least 1 (cpp numbers its own <built-in> lines from 0). */
        public int lineOf(int outputLine) {
            return Math.max(1, lines[Math.max(1, Math.min(outputLine, files.size())) - 1]);
        }
    }

    private Preprocessor() {
    }

    public static Result run(Path source, List<String> defines, List<Path> includeDirs) {
        if (!Files.isReadable(source)) {
            throw new P4CompileException(source.toString(), "cannot read the file (does it exist?)");
        }
        // cpp within limits: an #include of /dev/zero would take all the memory the machine has, a file
        // that includes itself twice would write without end
        List<String> cmd = new ArrayList<>(List.of("bash", "-c",
                "ulimit -v " + CPP_MEMORY_KIB + " -f " + CPP_OUTPUT_KIB + " && exec \"$@\"", "cpp",
                "cpp", "-undef", "-nostdinc", "-x", "c", "-std=c99"));
        for (String d : defines) {
            cmd.add("-D" + d);
        }
        for (Path dir : includeDirs) {
            cmd.add("-I" + dir);
        }
        cmd.add("-I" + libraryDir());
        cmd.add(source.toString());
        String out;
        String err;
        int rc;
        Path outFile = null;
        Path errFile = null;
        try {
            // Both streams to files, not pipes: cpp blocks on a full pipe (a #warning of 70 000
            // characters filled stderr while stdout was being read), and then no timeout would end it.
            outFile = Files.createTempFile("softswitch-cpp", ".out");
            errFile = Files.createTempFile("softswitch-cpp", ".err");
            Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(outFile.toFile()).redirectError(errFile.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new P4CompileException(source.toString(), "the C preprocessor did not finish in 60 s");
            }
            rc = p.exitValue();
            out = new String(Files.readAllBytes(outFile), StandardCharsets.UTF_8);   // bad bytes become U+FFFD, which the lexer locates
            // cpp names a library by its unpacked path in some errors (a name too long): as the program does
            err = new String(Files.readAllBytes(errFile), StandardCharsets.UTF_8).replace(libraryDir() + File.separator, "");
        } catch (IOException e) {
            throw new P4CompileException(source.toString(), "cannot run the C preprocessor (" + e.getMessage() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new P4CompileException(source.toString(), "interrupted while preprocessing");
        } finally {
            deleteQuietly(outFile);
            deleteQuietly(errFile);
        }
        if (rc == KILLED_BY_SIGXFSZ) {
            throw new P4CompileException(source.toString(), "the preprocessed program passed "
                    + (CPP_OUTPUT_KIB >> 10) + " MiB: does a file include itself, or include without end?");
        }
        if (rc == 127) {   // bash found no cpp to exec
            throw new P4CompileException(source.toString(),
                    "cannot run the C preprocessor 'cpp' (not found); install it with: apt-get install cpp");
        }
        if (rc != 0) {
            for (String line : err.split("\n")) {
                Matcher m = CPP_DIAGNOSTIC.matcher(line);
                if (m.matches()) {
                    throw new P4CompileException(m.group(1), upToIntMax(m.group(2)),
                            m.group(3) == null ? 1 : upToIntMax(m.group(3)), m.group(4));
                }
                if (line.startsWith("cc1: out of memory")) {
                    throw new P4CompileException(source.toString(), "the C preprocessor needed more than the "
                            + (CPP_MEMORY_KIB >> 20) + " GiB it may use: does an #include name a device or an endless file?");
                }
            }
            throw new P4CompileException(source.toString(), "preprocessing failed: " + err.strip());
        }
        // Library paths are those of a temporary folder; name them as the program names them, so that
        // the preprocessed text is the same on every machine (it is shipped to switches).
        for (String lib : LIBRARIES) {
            out = out.replace("\"" + libraryDir().resolve(lib) + "\"", "\"<" + lib + ">\"");
        }
        return mapLines(out);
    }

    /** Replaces line markers by empty lines and records the origin of every line. */
    public static Result mapLines(String cppOutput) {
        String[] raw = cppOutput.split("\n", -1);
        List<String> files = new ArrayList<>(raw.length);
        int[] lines = new int[raw.length];
        StringBuilder text = new StringBuilder(cppOutput.length());
        String file = "<unknown>";
        int next = 1;
        for (int i = 0; i < raw.length; i++) {
            Matcher m = LINE_MARKER.matcher(raw[i]);
            files.add(file);
            lines[i] = next;
            if (m.matches()) {
                long line = m.group(1).length() > 10 ? Long.MAX_VALUE : Long.parseLong(m.group(1));
                if (line > Integer.MAX_VALUE) {
                    throw new P4CompileException(file, next, 1, "#line " + m.group(1)
                            + " is past the largest line number softswitch counts, " + Integer.MAX_VALUE);
                }
                next = (int) line;
                file = m.group(2).replace("\\\\", "\\");
            } else {
                text.append(raw[i]);
                if (next == Integer.MAX_VALUE && i + 1 < raw.length) {
                    throw new P4CompileException(file, next, 1, "the next line would be past the largest line "
                            + "number softswitch counts, " + Integer.MAX_VALUE + " (a #line set it too high)");
                }
                next++;
            }
            text.append('\n');
        }
        return new Result(cppOutput, text.toString(), files, lines);
    }

    /** A line or column cpp printed (a #line may set any number), the largest int past that. */
    private static int upToIntMax(String digits) {
        return digits.length() > 10 ? Integer.MAX_VALUE : (int) Math.min(Long.parseLong(digits), Integer.MAX_VALUE);
    }

    private static void deleteQuietly(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // a temporary file left in /tmp harms nothing
            }
        }
    }

    private static synchronized Path libraryDir() {
        if (libraryDir == null) {
            try {
                Path dir = Files.createTempDirectory("softswitch-p4include");
                for (String lib : LIBRARIES) {
                    try (InputStream in = Preprocessor.class.getResourceAsStream("/p4include/" + lib)) {
                        Files.copy(in, dir.resolve(lib));
                    }
                }
                dir.toFile().deleteOnExit();
                for (String lib : LIBRARIES) {
                    dir.resolve(lib).toFile().deleteOnExit();
                }
                libraryDir = dir;
            } catch (IOException e) {
                throw new IllegalStateException("cannot unpack softswitch's P4 libraries: " + e.getMessage(), e);
            }
        }
        return libraryDir;
    }
}
