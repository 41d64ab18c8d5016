package org.nat64fabric.softswitch.frontend;

/** A problem in a P4 program, located as {@code file:line:col: message} (columns count from 1). */
public final class P4CompileException extends RuntimeException {
    private final String file;
    private final int line;
    private final int column;
    private final String detail;

    public P4CompileException(String file, int line, int column, String detail) {
        super(file + ":" + line + ":" + column + ": " + detail);
        this.file = file;
        this.line = line;
        this.column = column;
        this.detail = detail;
    }

    /** An error that has no place in a source file (the whole program is wrong). */
    public P4CompileException(String file, String detail) {
        this(file, 1, 1, detail);
    }

    public String file() { return file; }
    public int line() { return line; }
    public int column() { return column; }
    public String detail() { return detail; }
}
