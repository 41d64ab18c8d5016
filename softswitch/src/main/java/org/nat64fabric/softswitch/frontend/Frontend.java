package org.nat64fabric.softswitch.frontend;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.antlr.v4.runtime.BaseErrorListener;
import org.antlr.v4.runtime.CharStreams;
import org.antlr.v4.runtime.CommonToken;
import org.antlr.v4.runtime.CommonTokenStream;
import org.antlr.v4.runtime.RecognitionException;
import org.antlr.v4.runtime.Recognizer;
import org.antlr.v4.runtime.Token;
import org.nat64fabric.softswitch.pipeline.Program;

/** The P4 frontend: preprocess, lex, parse, type-check and compile a P4_16 program. */
public final class Frontend {
    private Frontend() {
    }

    /** Options of a compilation: -D defines, -I include folders, the seed of random externs. */
    public static final class Options {
        public final List<String> defines;
        public final List<Path> includeDirs;
        public final long seed;

        public Options(List<String> defines, List<Path> includeDirs, long seed) {
            this.defines = defines;
            this.includeDirs = includeDirs;
            this.seed = seed;
        }

        public static Options defaults() {
            return new Options(List.of(), List.of(), 0);
        }
    }

    public static Program compile(Path file) {
        return compile(file, Options.defaults());
    }

    /** Compiles a program; every problem is a {@link P4CompileException} with its location. */
    public static Program compile(Path file, Options options) {
        Preprocessor.Result pre = Preprocessor.run(file, options.defines, options.includeDirs);
        return elaborate(pre, file.toString(), options.seed);
    }

    /** Compiles the output of {@link Preprocessor} (as shipped in a device config); no cpp runs. */
    public static Program compilePreprocessed(String preprocessed, String name, long seed) {
        return elaborate(Preprocessor.mapLines(preprocessed), name, seed);
    }

    /**
     * Parses and compiles; every failure is a located error. A failure the frontend did not
     * foresee is reported at the construct it was compiling, never as a stack trace.
     */
    private static Program elaborate(Preprocessor.Result pre, String name, long seed) {
        P4Parser.ProgramContext tree = parse(pre);
        Elaborator elaborator = new Elaborator(pre, name, seed);
        try {
            return elaborator.compile(tree);
        } catch (P4CompileException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError e) {
            throw elaborator.internalError(e);
        }
    }

    static P4Parser.ProgramContext parse(Preprocessor.Result pre) {
        BaseErrorListener listener = new BaseErrorListener() {
            @Override
            public void syntaxError(Recognizer<?, ?> recognizer, Object offending, int line, int col, String msg,
                                    RecognitionException e) {
                String detail = offending instanceof Token
                        ? "syntax error at '" + ((Token) offending).getText().replace("<EOF>", "end of file") + "'"
                        : "syntax error: " + msg;
                if (offending instanceof Token && msg != null && msg.startsWith("missing")) {
                    detail = "syntax error: " + msg;
                } else if (offending instanceof Token && ((Token) offending).getType() == P4Lexer.IDENT
                        && recognizer instanceof org.antlr.v4.runtime.Parser && expectsTypeOnly((org.antlr.v4.runtime.Parser) recognizer)) {
                    detail = "'" + ((Token) offending).getText() + "' is not a declared type (or there is a syntax error here)";
                } else if (offending instanceof Token && msg != null && msg.contains("expecting")) {
                    detail += " (" + msg.substring(msg.indexOf("expecting")) + ")";
                }
                throw new P4CompileException(pre.fileOf(line), pre.lineOf(line), col + 1, detail);
            }
        };
        P4Lexer lexer = new P4Lexer(CharStreams.fromString(pre.text));
        lexer.removeErrorListeners();
        lexer.addErrorListener(listener);
        CommonTokenStream tokens = new CommonTokenStream(lexer);
        tokens.fill();
        for (Token t : tokens.getTokens()) {
            if (t.getType() == P4Lexer.UNEXPECTED) {
                throw new P4CompileException(pre.fileOf(t.getLine()), pre.lineOf(t.getLine()),
                        t.getCharPositionInLine() + 1, unexpected(t, pre.text));
            }
        }
        refuseDeepNesting(tokens.getTokens(), pre);
        retagTypeNames(tokens.getTokens());
        P4Parser parser = new P4Parser(tokens);
        parser.removeErrorListeners();
        parser.addErrorListener(listener);
        try {
            return parser.program();
        } catch (StackOverflowError e) {
            Token t = parser.getCurrentToken();
            throw new P4CompileException(pre.fileOf(t.getLine()), pre.lineOf(t.getLine()), t.getCharPositionInLine() + 1,
                    "the program nests too deeply for softswitch's parser (simplify the expression or statement here)");
        }
    }

    /** Brackets deeper than any program needs; past it the parser's recursion costs time that grows faster than the depth. */
    static final int MAX_BRACKET_DEPTH = 1000;

    /** A located error at the first bracket nested deeper than MAX_BRACKET_DEPTH, before the parser recurses into it. */
    private static void refuseDeepNesting(List<Token> tokens, Preprocessor.Result pre) {
        int depth = 0;
        for (Token t : tokens) {
            String text = t.getText();
            if (text.equals("(") || text.equals("{") || text.equals("[")) {
                if (++depth > MAX_BRACKET_DEPTH) {
                    throw new P4CompileException(pre.fileOf(t.getLine()), pre.lineOf(t.getLine()), t.getCharPositionInLine() + 1,
                            "the program nests more than " + MAX_BRACKET_DEPTH + " brackets deep here, more than softswitch"
                            + " takes (simplify the expression or statement)");
                }
            } else if (text.equals(")") || text.equals("}") || text.equals("]")) {
                depth = Math.max(depth - 1, 0);
            }
        }
    }

    /** Whether the parser wanted a type name where an identifier that is not one stands. */
    private static boolean expectsTypeOnly(org.antlr.v4.runtime.Parser parser) {
        try {
            org.antlr.v4.runtime.misc.IntervalSet expected = parser.getExpectedTokens();
            return expected.contains(P4Parser.TYPE_IDENT) && !expected.contains(P4Parser.IDENT);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return false;   // no parser state to ask (the error came from the lexer)
        }
    }

    /** What is wrong with a character the lexer does not know; non-printable ones are named by code point. */
    private static String unexpected(Token t, String text) {
        String c = t.getText();
        int at = t.getStopIndex() + 1;
        if (c.equals("\\") && at < text.length() && (text.charAt(at) == 'u' || text.charAt(at) == 'U')) {
            // cpp writes a non-ASCII letter of an identifier as a universal character name
            return "a non-ASCII character in an identifier (P4 identifiers are ASCII letters, digits and '_')";
        }
        int cp = c.codePointAt(0);
        return Character.isISOControl(cp) || !Character.isDefined(cp) || cp == 0xFFFD
                ? String.format("unexpected character U+%04X", cp) : "unexpected character '" + c + "'";
    }

    /**
     * Marks identifiers that name types as TYPE_IDENT, as the P4_16 grammar expects from its
     * lexer: names declared by header, header_union, struct, enum, typedef, type, extern, parser,
     * control and package, and the type parameters written in angle brackets after a declared name.
     */
    /** The keywords of declarations a typedef may hold in place (P4_16 7.5). */
    private static final Set<Integer> DERIVED = Set.of(P4Lexer.HEADER, P4Lexer.HEADER_UNION, P4Lexer.STRUCT, P4Lexer.ENUM);

    static void retagTypeNames(List<Token> tokens) {
        Set<String> names = new HashSet<>();
        for (int i = 0; i < tokens.size(); i++) {
            int type = tokens.get(i).getType();
            switch (type) {
                case P4Lexer.HEADER:
                case P4Lexer.HEADER_UNION:
                case P4Lexer.STRUCT:
                case P4Lexer.PARSER:
                case P4Lexer.CONTROL:
                case P4Lexer.PACKAGE:
                    addIdent(tokens, i + 1, names);
                    addTypeParams(tokens, i + 2, names);
                    break;
                case P4Lexer.EXTERN:
                    if (i + 2 < tokens.size() && (tokens.get(i + 2).getText().equals("{")
                            || tokens.get(i + 2).getText().equals("<"))) {
                        addIdent(tokens, i + 1, names);
                        addTypeParams(tokens, i + 2, names);
                    } else {
                        // extern function: the type parameters follow its name
                        for (int k = i + 1; k < tokens.size() && !tokens.get(k).getText().equals("("); k++) {
                            if (tokens.get(k).getText().equals("<") && tokens.get(k - 1).getType() == P4Lexer.IDENT
                                    && k + 1 < tokens.size() && tokens.get(k + 1).getType() == P4Lexer.IDENT) {
                                addTypeParams(tokens, k, names);
                                break;
                            }
                        }
                    }
                    break;
                case P4Lexer.TYPEDEF:
                    if (i + 1 < tokens.size() && DERIVED.contains(tokens.get(i + 1).getType())) {
                        // typedef struct P { ... } Pt; the second name follows the declaration's closing brace
                        int k = i + 1;
                        while (k < tokens.size() && !tokens.get(k).getText().equals("{")) {
                            k++;
                        }
                        for (int depth = 0; k < tokens.size(); k++) {
                            String s = tokens.get(k).getText();
                            depth += s.equals("{") ? 1 : s.equals("}") ? -1 : 0;
                            if (depth == 0) {
                                addIdent(tokens, k + 1, names);
                                break;
                            }
                        }
                        break;
                    }
                    // fall through: typedef T name;
                case P4Lexer.ENUM:
                case P4Lexer.TYPE: {
                    // the declared name is the identifier before '{' (enum) or ';' (typedef, type)
                    int depth = 0;
                    for (int k = i + 1; k < tokens.size(); k++) {
                        String s = tokens.get(k).getText();
                        if (s.equals("<") || s.equals("(")) {
                            depth++;
                        } else if (s.equals(">") || s.equals(")")) {
                            depth--;
                        } else if (depth == 0 && (s.equals("{") || s.equals(";"))) {
                            addIdent(tokens, k - 1, names);
                            break;
                        }
                    }
                    break;
                }
                default:
                    break;
            }
        }
        // Method type parameters in extern bodies: "T lookahead<T>()" — an identifier, then <IDENT,...>(
        for (int i = 1; i + 3 < tokens.size(); i++) {
            if (tokens.get(i).getText().equals("<") && tokens.get(i - 1).getType() == P4Lexer.IDENT) {
                int k = i + 1;
                boolean ok = true;
                while (k < tokens.size() && !tokens.get(k).getText().equals(">")) {
                    String s = tokens.get(k).getText();
                    if (!(tokens.get(k).getType() == P4Lexer.IDENT || s.equals(","))) {
                        ok = false;
                        break;
                    }
                    k++;
                }
                if (ok && k + 1 < tokens.size() && tokens.get(k + 1).getText().equals("(") && isPrototype(tokens, i - 1)) {
                    addTypeParams(tokens, i, names);
                }
            }
        }
        for (Token t : tokens) {
            if (t.getType() == P4Lexer.IDENT && names.contains(t.getText())) {
                ((CommonToken) t).setType(P4Parser.TYPE_IDENT);
            }
        }
        retagTypeArguments(tokens);
    }

    /**
     * Marks the angle brackets of a call's type arguments, name&lt;TYPE, ...&gt;(, as TYPE_ARGS_OPEN
     * and TYPE_ARGS_CLOSE. The first argument must start as only a type can (a type name, bit, int,
     * bool, varbit, tuple, '_'), so a comparison a &lt; b keeps its meaning; a type is never a value,
     * so a &lt; T &gt; (x) can only be a call, as in the P4_16 grammar. Prototypes keep their brackets.
     */
    private static void retagTypeArguments(List<Token> tokens) {
        for (int i = 1; i + 1 < tokens.size(); i++) {
            Token callee = tokens.get(i - 1);
            if (!tokens.get(i).getText().equals("<") || !startsType(tokens.get(i + 1))
                    || callee.getType() != P4Lexer.IDENT && callee.getType() != P4Lexer.APPLY || isPrototype(tokens, i - 1)) {
                continue;
            }
            int close = closingAngle(tokens, i);
            if (close > 0 && close + 1 < tokens.size() && tokens.get(close + 1).getText().equals("(")) {
                ((CommonToken) tokens.get(i)).setType(P4Parser.TYPE_ARGS_OPEN);
                ((CommonToken) tokens.get(close)).setType(P4Parser.TYPE_ARGS_CLOSE);
            }
        }
    }

    private static boolean startsType(Token t) {
        switch (t.getType()) {
            case P4Lexer.BIT: case P4Lexer.INT: case P4Lexer.BOOL: case P4Lexer.VARBIT: case P4Lexer.TUPLE:
            case P4Lexer.STRING_KW: case P4Lexer.DONTCARE: case P4Parser.TYPE_IDENT:
                return true;
            default:
                return t.getText().equals(".");
        }
    }

    /**
     * The index of the '>' closing the '<' at open, when everything between can be type arguments
     * (types, widths, nested angle brackets, parenthesised width expressions); -1 otherwise.
     */
    private static int closingAngle(List<Token> tokens, int open) {
        int angles = 0;
        int parens = 0;
        for (int k = open; k < tokens.size(); k++) {
            Token t = tokens.get(k);
            String s = t.getText();
            if (parens > 0) {
                parens += s.equals("(") ? 1 : s.equals(")") ? -1 : 0;
                if (s.equals(";") || s.equals("{") || s.equals("}")) {
                    return -1;
                }
            } else if (s.equals("(")) {
                parens++;
            } else if (s.equals("<")) {
                angles++;
            } else if (s.equals(">")) {
                if (--angles == 0) {
                    return k;
                }
            } else if (!(startsType(t) || t.getType() == P4Lexer.INTEGER || s.equals(",") || s.equals("[")
                    || s.equals("]"))) {
                return -1;
            }
        }
        return -1;
    }

    /** Whether the identifier at i is declared (preceded by a type), not called. */
    private static boolean isPrototype(List<Token> tokens, int i) {
        if (i == 0) {
            return false;
        }
        Token prev = tokens.get(i - 1);
        return prev.getType() == P4Lexer.IDENT || prev.getType() == P4Parser.TYPE_IDENT || prev.getType() == P4Lexer.VOID || prev.getType() == P4Lexer.BOOL
                || prev.getText().equals(">");
    }

    private static void addIdent(List<Token> tokens, int i, Set<String> names) {
        if (i < tokens.size() && tokens.get(i).getType() == P4Lexer.IDENT) {
            names.add(tokens.get(i).getText());
        }
    }

    private static void addTypeParams(List<Token> tokens, int i, Set<String> names) {
        if (i >= tokens.size() || !tokens.get(i).getText().equals("<")) {
            return;
        }
        for (int k = i + 1; k < tokens.size() && !tokens.get(k).getText().equals(">"); k++) {
            addIdent(tokens, k, names);
        }
    }
}
