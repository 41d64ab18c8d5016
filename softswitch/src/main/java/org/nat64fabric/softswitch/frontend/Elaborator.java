package org.nat64fabric.softswitch.frontend;

import static org.objectweb.asm.Opcodes.*;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.security.SecureRandom;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.antlr.v4.runtime.ParserRuleContext;
import org.antlr.v4.runtime.Token;
import org.antlr.v4.runtime.misc.Interval;
import org.antlr.v4.runtime.tree.ParseTree;
import org.antlr.v4.runtime.tree.TerminalNode;
import org.nat64fabric.softswitch.frontend.P4Parser.*;
import org.nat64fabric.softswitch.p4info.P4InfoBuilder;
import org.nat64fabric.softswitch.pipeline.Action;
import org.nat64fabric.softswitch.pipeline.ActionProfile;
import org.nat64fabric.softswitch.pipeline.AggRef;
import org.nat64fabric.softswitch.pipeline.CodeWriter;
import org.nat64fabric.softswitch.pipeline.Loop;
import org.nat64fabric.softswitch.pipeline.Expr;
import org.nat64fabric.softswitch.pipeline.Jit;
import org.nat64fabric.softswitch.pipeline.OffsetAgg;
import org.nat64fabric.softswitch.pipeline.Ops;
import org.nat64fabric.softswitch.pipeline.PacketIo;
import org.nat64fabric.softswitch.pipeline.Parser;
import org.nat64fabric.softswitch.pipeline.Program;
import org.nat64fabric.softswitch.pipeline.StackElement;
import org.nat64fabric.softswitch.pipeline.State;
import org.nat64fabric.softswitch.pipeline.Stmt;
import org.nat64fabric.softswitch.pipeline.Table;
import org.nat64fabric.softswitch.pipeline.ValueSet;
import org.nat64fabric.softswitch.pipeline.VarbitIo;
import org.nat64fabric.softswitch.sume.RegisterRaw;
import org.nat64fabric.softswitch.v1model.Externs;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;

/**
 * Type-checks a parsed program and compiles it, in one walk, into the executable form of
 * {@link Program}. Controls and parsers are instantiated as the v1model package names them;
 * each instance gets its own slots, tables and extern objects. Every error is located.
 */
final class Elaborator {
    private static final String DIRECT_COUNTER = "direct_counter";
    /** The externs a parser may instantiate: those with no table to attach to. */
    private static final Set<String> PARSER_EXTERNS = Set.of("register", "counter", "meter");
    private static final String ACTION_PROFILE = "action_profile";
    private static final String ACTION_SELECTOR = "action_selector";
    private static final String SUM_OF_WEIGHTS = "sum_of_weights";
    private static final String SUM_OF_MEMBERS = "sum_of_members";
    private static final String DIRECT_METER = "direct_meter";
    private final Preprocessor.Result source;
    private final String mainFile;
    private final Random random;
    private final Scope global = new Scope(null);
    private int narrowSlots;
    private int wideSlots;
    /** The width of every wide slot, for targets that lay them out by size. */
    private final List<Integer> wideWidths = new ArrayList<>();

    private final Type.Named errorType = new Type.Named("error", true);
    private final Type.Named matchKindType = new Type.Named("match_kind", false);
    private final List<Table> tables = new ArrayList<>();
    private final List<Action> actions = new ArrayList<>();
    /** Tables some apply block applies: the others are no part of the program (p4c's front end removes them too). */
    private final Set<Table> appliedTables = new HashSet<>();
    /** Actions called from an apply block, in the order first called: P4Info lists them too, as p4c does. */
    private final List<Action> calledActions = new ArrayList<>();
    private final List<Externs.Counter> counters = new ArrayList<>();
    private final List<Externs.Register> registers = new ArrayList<>();
    private final List<Externs.Meter> meters = new ArrayList<>();
    /** The digests the program sends, by struct name, in the order of their first digest() call. */
    private final Map<String, Externs.Digest> digests = new LinkedHashMap<>();
    private final List<ValueSet> valueSets = new ArrayList<>();
    /** How many for loops enclose the statement being compiled: break and continue need one. */
    private int loopDepth;
    private final java.util.Deque<Integer> outerLoopDepths = new java.util.ArrayDeque<>();
    private final Map<String, Type.Aggregate> controllerHeaders = new LinkedHashMap<>();
    private Expr.Agg standardMetadata;
    /** The top-level parsers and controls instantiated, by name: the others are checked alone. */
    private final Set<String> instantiated = new HashSet<>();
    private final long seed;
    /** The package main instantiates, known before any block is compiled. */
    private Program.Architecture architecture;
    /** The last construct the walk entered: where an unexpected internal failure is reported. */
    private Token nearest;
    /** The kind of block whose body is being compiled: what its statements may do depends on it. */
    private Where where = Where.TOP;
    /** Controls being instantiated and functions and actions being compiled: a reference back is recursion. */
    private final java.util.Set<Object> inProgress = new java.util.HashSet<>();

    private enum Where { TOP, PARSER, CONTROL, ACTION, FUNCTION }

    /**
     * While an l-value is compiled: statements that fix its place (the value of each stack index in
     * it) before anything else of its statement runs, as P4_16 evaluates a left-hand side before
     * the right-hand side, and an inout argument once for its copy-in and copy-out. Null otherwise.
     */
    private List<Stmt> lvaluePrelude;
    /** Tables applied in expressions so far, and their number when the statement being compiled began (see exitAware). */
    private int tableApplyExpressions;
    private int appliesAtStatementStart;
    /** The expression of the switch statement being compiled: the one place t.apply().action_run may stand. */
    private ExpressionContext switchExpression;

    /** Where each control-plane name and @id was declared, by kind: P4Runtime needs each to name one object. */
    private final Map<String, Token> claimed = new HashMap<>();
    /** Where each action was declared, for the check of the names of those tables use. */
    private final Map<Action, Token> actionDeclarations = new HashMap<>();
    /** The table each direct counter or meter is attached to. */
    private final Map<DirectDecl, String> attached = new HashMap<>();
    /**
     * Types invoked directly (Callee.apply(...)), by the qualified name of their instances: whether
     * an instance declared control-plane objects, which a second one would declare again.
     */
    private final Map<String, Boolean> directlyInvoked = new HashMap<>();
    /** The action whose body is being compiled, or null. */
    private Action compilingAction;

    // ---- symbols ----

    private static final class Scope {
        final Scope parent;
        final Map<String, Object> symbols = new HashMap<>();

        Scope(Scope parent) {
            this.parent = parent;
        }

        Object lookup(String name) {
            for (Scope s = this; s != null; s = s.parent) {
                Object o = s.symbols.get(name);
                if (o != null) {
                    return o;
                }
            }
            return null;
        }
    }

    /** A variable, parameter or constant. */
    private static final class Var {
        final String name;
        final Expr value;
        final boolean readOnly;

        Var(String name, Expr value, boolean readOnly) {
            this.name = name;
            this.value = value;
            this.readOnly = readOnly;
        }
    }

    private static final class PacketParam {
        final boolean input;

        PacketParam(boolean input) {
            this.input = input;
        }
    }

    /** A parameter of an extern method or function: direction and (possibly generic) type. */
    private static final class Param {
        final String name;
        final String direction;
        final Type type;
        /** Its default value ({@code in bit<8> y = 5}), a compile-time constant; null when it has none. */
        final ExpressionContext defaultValue;

        Param(String name, String direction, Type type) {
            this(name, direction, type, null);
        }

        Param(String name, String direction, Type type, ExpressionContext defaultValue) {
            this.name = name;
            this.direction = direction;
            this.type = type;
            this.defaultValue = defaultValue;
        }

        boolean writable() {
            return "out".equals(direction) || "inout".equals(direction);
        }
    }

    private static final class ExternType extends Type.Declared {
        final List<String> typeParams = new ArrayList<>();
        final Map<String, FunctionPrototypeContext> methods = new HashMap<>();

        ExternType(String name) {
            super("extern", name);
        }
    }

    /** An extern function: its declarations, one per number of parameters (P4 overloads by arity). */
    private static final class ExternFunction {
        final List<FunctionPrototypeContext> protos = new ArrayList<>();

        /** The declaration taking {@code argc} arguments, else the first (whose arity error then names the call). */
        FunctionPrototypeContext forArgs(int argc) {
            for (FunctionPrototypeContext p : protos) {
                if (p.parameterList().parameter().size() == argc) {
                    return p;
                }
            }
            return protos.get(0);
        }
    }

    /** A typedef of an extern type: the type and the type arguments it gives. */
    private static final class ExternAlias {
        final ExternType type;
        final List<Type> typeArgs;

        ExternAlias(ExternType type, List<Type> typeArgs) {
            this.type = type;
            this.typeArgs = typeArgs;
        }
    }

    /** The extern type a typedef names, else the symbol itself. */
    private static Object unalias(Object symbol) {
        return symbol instanceof ExternAlias ? ((ExternAlias) symbol).type : symbol;
    }

    /** The type arguments a reference to an extern type gives, written or through a typedef. */
    private List<Type> externTypeArgs(TypeRefContext tr, Scope sc) {
        if (!(tr instanceof NamedTypeRefContext)) {
            return List.of();
        }
        NamedTypeRefContext n = (NamedTypeRefContext) tr;
        List<Type> written = typeArgs(n.typeArgumentList(), sc);
        Object named = sc.lookup(n.typeName().TYPE_IDENT().getText());
        if (named instanceof ExternAlias) {
            if (!written.isEmpty()) {
                throw error(n.typeArgumentList(), "'" + n.typeName().getText() + "' gives its type arguments already");
            }
            return ((ExternAlias) named).typeArgs;
        }
        return written;
    }

    /** An extern object instance and its run-time object. */
    private static final class ExternInstance {
        final String name;
        final ExternType type;
        final List<Type> typeArgs;
        final Object runtime;

        ExternInstance(String name, ExternType type, List<Type> typeArgs, Object runtime) {
            this.name = name;
            this.type = type;
            this.typeArgs = typeArgs;
            this.runtime = runtime;
        }
    }

    private static final class ActionSym {
        final Action action;
        final List<Param> directional;   // parameters passed by P4 callers, before the data ones
        final List<Expr> directionalSlots;
        /** Whether its body, or an action it calls, names a header, struct or stack of its control. */
        final boolean namesOuterAggregate;

        ActionSym(Action action, List<Param> directional, List<Expr> directionalSlots, boolean namesOuterAggregate) {
            this.action = action;
            this.directional = directional;
            this.directionalSlots = directionalSlots;
            this.namesOuterAggregate = namesOuterAggregate;
        }
    }

    /**
     * Functions of one name (P4_16 allows overloading functions), told apart by the number of arguments a
     * call gives or, where that is not enough, by the names of its named arguments.
     */
    private static final class Overloads {
        final List<FunctionSym> functions = new ArrayList<>();
    }

    private static final class FunctionSym {
        final FunctionDeclarationContext ctx;
        final List<Param> params = new ArrayList<>();
        final List<Expr> slots = new ArrayList<>();
        Expr result;
        Stmt body;
        /** A generic function's scope and type parameters; it is compiled once per binding of them, where called. */
        final Scope declaredIn;
        final List<String> typeParams = new ArrayList<>();
        final Map<String, FunctionSym> instances = new HashMap<>();

        FunctionSym(FunctionDeclarationContext ctx, Scope declaredIn) {
            this.ctx = ctx;
            this.declaredIn = declaredIn;
            if (ctx.functionPrototype().typeParameters() != null) {
                ctx.functionPrototype().typeParameters().name().forEach(n -> typeParams.add(n.getText()));
            }
        }
    }

    private static final class BlockType extends Type.Declared {
        final ParserRuleContext decl;   // ParserDeclarationContext or ControlDeclarationContext
        final ParameterListContext params;
        /** A parser, control or package type's type parameters (H, M of v1model's Ingress<H, M>). */
        final List<String> typeParams;
        /** A generic parser's or control's type parameters bound by an instantiation (Sub<bit<8>>() sub;). */
        final Map<String, Type> bindings;
        /** The declared block this one specialises, or itself: one block however its instances bind its types. */
        final BlockType declared;

        BlockType(String kind, String name, ParserRuleContext decl, ParameterListContext params,
                  TypeParametersContext typeParams) {
            super(kind, name);
            this.decl = decl;
            this.params = params;
            this.typeParams = new ArrayList<>();
            if (typeParams != null) {
                typeParams.name().forEach(n -> this.typeParams.add(n.getText()));
            }
            this.bindings = Map.of();
            this.declared = this;
        }

        private BlockType(BlockType generic, Map<String, Type> bindings) {
            super(generic.kind, generic.name);
            this.decl = generic.decl;
            this.params = generic.params;
            this.typeParams = generic.typeParams;
            this.bindings = bindings;
            this.declared = generic;
        }

        /** A generic parser or control (one with a body and type parameters) as an instance binds it. */
        boolean generic() {
            return decl != null && !typeParams.isEmpty();
        }

        BlockType specialised(List<Type> args) {
            Map<String, Type> b = new HashMap<>();
            for (int i = 0; i < typeParams.size(); i++) {
                b.put(typeParams.get(i), args.get(i));
            }
            return new BlockType(this, b);
        }
    }

    /** A control instantiated inside another: its parameters are slots, copied in and out. */
    private static final class ControlInstance {
        final String name;
        final List<Param> params;
        final List<Expr> slots;
        Stmt body;

        ControlInstance(String name, List<Param> params, List<Expr> slots) {
            this.name = name;
            this.params = params;
            this.slots = slots;
        }
    }

    /** A parser instantiated inside another (a sub-parser): its parameters are slots, copied in and out. */
    private static final class ParserInstance {
        final String name;
        final List<Param> params;
        final List<Expr> slots;
        Parser parser;

        ParserInstance(String name, List<Param> params, List<Expr> slots) {
            this.name = name;
            this.params = params;
            this.slots = slots;
        }
    }

    /** A control or parser that takes extern instances when applied, elaborated at its first apply (applyPending). */
    private static final class PendingInstance {
        final BlockType type;
        final String name;
        final Map<String, Object> ctor;
        final ParserRuleContext at;
        Object instance;
        Map<String, ExternInstance> externs;

        PendingInstance(BlockType type, String name, Map<String, Object> ctor, ParserRuleContext at) {
            this.type = type;
            this.name = name;
            this.ctor = ctor;
            this.at = at;
        }
    }

    private static final class TableSym {
        final Table table;

        TableSym(Table table) {
            this.table = table;
        }
    }

    /** The result of t.apply() in an expression, before .hit/.miss/.action_run picks a part. */
    private static final class ApplyResult {
        final Table table;

        ApplyResult(Table table) {
            this.table = table;
        }
    }

    /** What a statement compiles in: the enclosing block's name prefix and function result. */
    private static final class Context {
        final String prefix;
        final boolean inParser;
        final Expr result;

        Context(String prefix, boolean inParser, Expr result) {
            this.prefix = prefix;
            this.inParser = inParser;
            this.result = result;
        }
    }

    Elaborator(Preprocessor.Result source, String mainFile, long seed) {
        this.source = source;
        this.mainFile = mainFile;
        this.seed = seed;
        // Seed 0, the default, is none: a fresh one at each load, so that values drawn (an IPv4
        // identification) differ between switches and restarts; --seed N reproduces a run.
        this.random = new Random(seed != 0 ? seed : new SecureRandom().nextLong());
    }

    // ---- errors ----

    /** What is legal but may not mean what it says (P4_16: "the compiler should emit a warning"), located, each once. */
    private final Set<String> warnings = new LinkedHashSet<>();

    private void warn(ParserRuleContext at, String message) {
        warnings.add(error(at, "warning: " + message).getMessage());
    }

    private P4CompileException error(ParserRuleContext at, String message) {
        return error(at.getStart(), message);
    }

    private P4CompileException error(Token t, String message) {
        return new P4CompileException(source.fileOf(t.getLine()), source.lineOf(t.getLine()),
                t.getCharPositionInLine() + 1, message);
    }

    /** An internal failure turned into a located error at the construct the walk was in. */
    P4CompileException internalError(Throwable e) {
        String what = e instanceof StackOverflowError
                ? "the program nests too deeply for softswitch (simplify the expression or statement here)"
                : "internal error of softswitch's frontend here (" + e + "); please report it with this program";
        P4CompileException located = nearest == null ? new P4CompileException(mainFile, what) : error(nearest, what);
        located.initCause(e);
        return located;
    }

    /** The annotations of the objects claimed, by kind and name ("counter I.c"), for their P4Info preambles. */
    private final Map<String, Map<String, List<String>>> objectAnnotations = new HashMap<>();

    /**
     * Claims a control-plane name of a kind for the object declared at {@code at}, and its @id: an
     * @id below 2^24 takes the kind's prefix, a larger one must carry it (P4Runtime), and no two
     * objects get one ID, however it is written.
     */
    private void claim(String kind, String name, Map<String, List<String>> annotations, Token at) {
        claimOnce(kind + " " + name, kind + " name '" + name + "'", at);
        objectAnnotations.put(kind + " " + name, annotations);
        List<String> id = annotations.get("id");
        Integer prefix = P4InfoBuilder.ID_PREFIXES.get(kind);
        if (id != null && prefix != null) {
            long v = Long.parseLong(id.get(0));
            if (v >= 1L << 24 && v >>> 24 != prefix) {
                throw error(at, "@id(0x" + Long.toHexString(v) + ") of a " + kind + " must have P4Runtime's prefix 0x"
                        + String.format("%02x", prefix) + " in its top byte, or be below 2^24 (the prefix is then added)");
            }
            long full = v < 1L << 24 ? (long) prefix << 24 | v : v;
            claimOnce("@id " + full, kind + " @id(" + id.get(0) + ") (P4Runtime ID 0x" + Long.toHexString(full) + ")", at);
        }
    }

    private void claimOnce(String key, String what, Token at) {
        Token first = claimed.putIfAbsent(key, at);
        if (first == at) {
            throw error(at, "the " + what + " is used twice: the control declaring it is instantiated twice under one "
                    + "name (instantiate it under two names, or give the object an absolute @name)");
        }
        if (first != null) {
            throw error(at, "the " + what + " is already used by the declaration at " + source.fileOf(first.getLine()) + ":"
                    + source.lineOf(first.getLine()) + ":" + (first.getCharPositionInLine() + 1)
                    + (key.startsWith("@id ") ? " (P4Runtime IDs must be unique: give one another @id)"
                            : " (control-plane names must be unique: rename one, or give it another @name)"));
        }
    }

    private void at(ParserRuleContext c) {
        if (c != null && c.getStart() != null) {
            nearest = c.getStart();
        }
    }

    /** The expression of an argument that must be a value: '_' and missing arguments are located errors. */
    private ExpressionContext argExpr(List<ArgumentContext> args, int i, String what, ParserRuleContext call) {
        if (i >= args.size()) {
            throw error(call, what + " needs " + (i + 1) + " argument" + (i == 0 ? "" : "s") + ", " + args.size() + " given");
        }
        if (args.get(i).DONTCARE() != null) {
            throw error(args.get(i), "'_' cannot be passed to " + what + ": it needs a value");
        }
        return args.get(i).expression();
    }

    /** Storage for a declared variable, parameter or result; types without a value (externs, int, string) are refused. */
    private Expr storageFor(Type t, ParserRuleContext at, String what) {
        requireStorable(t, at, what);
        return storage(t);
    }

    /**
     * A varbit variable: its bits and its length, the slots of a struct of one varbit field that
     * nothing else sees (a value as a header's varbit field is, so = and == treat both alike).
     */
    private VarbitIo.Field varbitVariable(Type.Varbit t) {
        Type.Aggregate holder = new Type.Aggregate(t + " variable", false, Map.of());
        holder.addField("bits", t, Map.of());
        Expr.Agg slots = (Expr.Agg) storage(holder);
        return new VarbitIo.Field(slots, holder.fields.get("bits"));
    }

    private void requireStorable(Type t, ParserRuleContext at, String what) {
        if (!(t.isScalar() || t instanceof Type.Aggregate || t instanceof Type.Stack)) {
            String why = t instanceof ExternType ? " (an extern instance is passed to a control or parser only, without a"
                    + " direction)" : "";
            throw error(at, what + " cannot have type " + t + why);
        }
    }

    // ---- storage ----

    private Expr storage(Type t) {
        t.wideWidths(wideWidths);
        if (t instanceof Type.Bits && ((Type.Bits) t).wide()) {
            return new Expr.WideSlot(t, wideSlots++, ((Type.Bits) t).width);
        }
        if (t.isScalar()) {
            return new Expr.Slot(t, narrowSlots++, widthOf(t));
        }
        if (t instanceof Type.Aggregate || t instanceof Type.Stack) {
            Expr.FixedAgg a = new Expr.FixedAgg(t, narrowSlots, wideSlots);
            narrowSlots += t.narrowSlots();
            wideSlots += t.wideSlots();
            return a;
        }
        throw new IllegalStateException("no storage for " + t);
    }

    private static int widthOf(Type t) {
        if (t instanceof Type.Bits) {
            return ((Type.Bits) t).width;
        }
        if (t instanceof Type.Enum && ((Type.Enum) t).underlying != null) {
            return ((Type.Enum) t).underlying.width;
        }
        return t == Type.BOOL ? 1 : 0;
    }

    // ---- the program ----

    Program compile(ProgramContext program) {
        checkElements(program);
        InstantiationContext main = declareAll(program);
        if (main == null) {
            throw new P4CompileException(mainFile, "the program has no package instance named 'main' "
                    + "(add: V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(), "
                    + "MyComputeChecksum(), MyDeparser()) main;)");
        }
        Program compiled = instantiateMain(main);
        checkUninstantiated(program);
        return compiled;
    }

    /**
     * What every element must be whether or not anything uses it, read off the syntax: distinct type
     * parameter names (one scope, P4_16 6.3), and annotations as 18.2 and 18.3.3 allow them.
     */
    private void checkElements(ProgramContext program) {
        java.util.ArrayDeque<ParseTree> todo = new java.util.ArrayDeque<>(List.of(program));   // no recursion: trees may be deep
        while (!todo.isEmpty()) {
            ParseTree t = todo.pop();
            if (t instanceof AnnotationsContext) {
                checkAnnotations((AnnotationsContext) t);
            }
            if (t instanceof TypeParametersContext) {
                Set<String> seen = new HashSet<>();
                for (NameContext n : ((TypeParametersContext) t).name()) {
                    if (!seen.add(n.getText())) {
                        throw error(n, "type parameter '" + n.getText() + "' is declared twice");
                    }
                }
            }
            for (int i = 0; i < t.getChildCount(); i++) {
                todo.push(t.getChild(i));
            }
        }
    }

    /**
     * Type-checks the parsers and controls that nothing instantiates, as p4c checks every
     * declaration: each alone, in an elaborator of its own, so that its tables and actions stay
     * out of the program. Blocks with type or constructor parameters, or extern parameters, which
     * softswitch elaborates only where they are instantiated or applied, are left out.
     */
    private void checkUninstantiated(ProgramContext program) {
        for (DeclarationContext d : program.declaration()) {
            boolean parser = d.parserDeclaration() != null;
            if (!parser && d.controlDeclaration() == null) {
                continue;
            }
            String name = parser ? d.parserDeclaration().parserTypeDeclaration().name().getText()
                    : d.controlDeclaration().controlTypeDeclaration().name().getText();
            boolean generic = parser ? d.parserDeclaration().parserTypeDeclaration().typeParameters() != null
                    : d.controlDeclaration().controlTypeDeclaration().typeParameters() != null;
            ParameterListContext constructor = parser ? d.parserDeclaration().parameterList() : d.controlDeclaration().parameterList();
            if (instantiated.contains(name) || generic || constructor != null && !constructor.parameter().isEmpty()) {
                continue;
            }
            Elaborator alone = new Elaborator(source, mainFile, seed);
            try {
                alone.declareAll(program);
                BlockType bt = (BlockType) alone.global.lookup(name);
                if (alone.takesExterns(bt)) {
                    continue;
                }
                if (parser) {
                    alone.instantiateParser(bt, name, null, bt.decl);
                } else {
                    alone.instantiateControl(bt, name, null, bt.decl);
                }
            } catch (P4CompileException e) {
                throw e;
            } catch (RuntimeException | StackOverflowError e) {
                throw alone.internalError(e);
            }
        }
    }

    /** Declares every top-level declaration but main; returns main's instantiation (null without one). */
    private InstantiationContext declareAll(ProgramContext program) {
        declareBuiltins();
        InstantiationContext main = null;
        for (DeclarationContext d : program.declaration()) {
            if (d.instantiation() != null && d.instantiation().name().getText().equals("main")) {
                if (main != null) {
                    throw error(d.instantiation().name(), "'main' is declared twice");
                }
                main = d.instantiation();
            }
        }
        if (main != null) {
            String pkg = main.typeRef().getText().replaceAll("<.*", "");
            architecture = pkg.equals("SimpleSumeSwitch") ? Program.Architecture.SUME : Program.Architecture.V1MODEL;
        }
        for (DeclarationContext d : program.declaration()) {
            if (d.instantiation() == null || d.instantiation() != main) {
                declare(d, global);
            }
        }
        return main;
    }

    private void declareBuiltins() {
        global.symbols.put("error", errorType);
        global.symbols.put("match_kind", matchKindType);
    }

    private void declare(DeclarationContext d, Scope sc) {
        at(d);
        if (d.constantDeclaration() != null) {
            constant(d.constantDeclaration(), sc);
        } else if (d.externDeclaration() != null) {
            externDeclaration(d.externDeclaration());
        } else if (d.actionDeclaration() != null) {
            action(d.actionDeclaration(), sc, "");
        } else if (d.parserDeclaration() != null) {
            ParserTypeDeclarationContext t = d.parserDeclaration().parserTypeDeclaration();
            checkTypeParams(t.parameterList(), d.parserDeclaration().parameterList());
            define(sc, t.name(), new BlockType("parser", t.name().getText(), d.parserDeclaration(), t.parameterList(),
                    t.typeParameters()));
        } else if (d.controlDeclaration() != null) {
            ControlTypeDeclarationContext t = d.controlDeclaration().controlTypeDeclaration();
            checkTypeParams(t.parameterList(), d.controlDeclaration().parameterList());
            define(sc, t.name(), new BlockType("control", t.name().getText(), d.controlDeclaration(), t.parameterList(),
                    t.typeParameters()));
        } else if (d.typeDeclaration() != null) {
            typeDeclaration(d.typeDeclaration(), sc);
        } else if (d.instantiation() != null) {
            instantiation(d.instantiation(), sc, "");
        } else if (d.valueSetDeclaration() != null) {
            valueSet(d.valueSetDeclaration(), sc, "");
        } else if (d.errorDeclaration() != null) {
            for (NameContext n : d.errorDeclaration().name()) {
                if (errorType.members.contains(n.getText())) {
                    throw error(n, "error." + n.getText() + " is already declared");
                }
                errorType.members.add(n.getText());
            }
        } else if (d.matchKindDeclaration() != null) {
            for (NameContext n : d.matchKindDeclaration().name()) {
                if (matchKindType.members.contains(n.getText())) {
                    throw error(n, "match_kind " + n.getText() + " is already declared");
                }
                matchKindType.members.add(n.getText());
            }
        } else if (d.functionDeclaration() != null) {
            FunctionDeclarationContext f = d.functionDeclaration();
            FunctionSym fs = new FunctionSym(f, sc);
            Object known = sc.symbols.get(f.functionPrototype().name().getText());
            if (known instanceof FunctionSym || known instanceof Overloads) {
                overload(known, fs, sc);
            } else {
                define(sc, f.functionPrototype().name(), fs);
            }
            if (fs.typeParams.isEmpty()) {
                compileFunction(fs, sc);
            }
        } else if (d.parserTypeDeclaration() != null) {
            ParserTypeDeclarationContext t = d.parserTypeDeclaration();
            checkTypeParams(t.parameterList(), null);
            define(sc, t.name(), new BlockType("parser type", t.name().getText(), null, t.parameterList(), t.typeParameters()));
        } else if (d.controlTypeDeclaration() != null) {
            ControlTypeDeclarationContext t = d.controlTypeDeclaration();
            checkTypeParams(t.parameterList(), null);
            define(sc, t.name(), new BlockType("control type", t.name().getText(), null, t.parameterList(), t.typeParameters()));
        } else if (d.packageTypeDeclaration() != null) {
            PackageTypeDeclarationContext t = d.packageTypeDeclaration();
            checkTypeParams(t.parameterList(), null);
            define(sc, t.name(), new BlockType("package", t.name().getText(), null, t.parameterList(), t.typeParameters()));
        }
    }

    private static boolean isHeaderOrUnion(Type t) {
        return t instanceof Type.Aggregate && (((Type.Aggregate) t).header || ((Type.Aggregate) t).union);
    }

    /** bit<W>, int<W>, bool or a serializable enum: the fixed-width types of a header's fields. */
    private static boolean isWireScalar(Type t) {
        return t instanceof Type.Bits || t == Type.BOOL || t instanceof Type.Enum && ((Type.Enum) t).underlying != null;
    }

    private static boolean isPlainStruct(Type t) {
        return t instanceof Type.Aggregate && !((Type.Aggregate) t).header && !((Type.Aggregate) t).union;
    }

    /**
     * The first field, nested structs included, that a struct cannot hold inside a header (P4_16
     * 7.2.2: fixed-width fields only), as "'a.b' is T"; null when it has none.
     */
    private static String notInHeaderStruct(Type.Aggregate struct, String prefix) {
        for (Type.Field f : struct.fields.values()) {
            String bad = isPlainStruct(f.type) ? notInHeaderStruct((Type.Aggregate) f.type, prefix + f.name + ".")
                    : isWireScalar(f.type) ? null : "'" + prefix + f.name + "' is " + f.type;
            if (bad != null) {
                return bad;
            }
        }
        return null;
    }

    /** fs beside the function or functions of its name: with a parameter count or names of its own. */
    private void overload(Object known, FunctionSym fs, Scope sc) {
        Overloads all = known instanceof Overloads ? (Overloads) known : new Overloads();
        if (known instanceof FunctionSym) {
            all.functions.add((FunctionSym) known);
        }
        NameContext name = fs.ctx.functionPrototype().name();
        for (FunctionSym other : all.functions) {
            if (parameterNames(other).equals(parameterNames(fs))) {
                throw error(name, "function '" + name.getText() + "' is already declared with these parameters ("
                        + String.join(", ", parameterNames(fs)) + "): overloads differ in their number or names (P4_16, overloading)");
            }
        }
        all.functions.add(fs);
        sc.symbols.put(name.getText(), all);
    }

    private static List<String> parameterNames(FunctionSym f) {
        List<String> names = new ArrayList<>();
        f.ctx.functionPrototype().parameterList().parameter().forEach(p -> names.add(p.name().getText()));
        return names;
    }

    /** The overload a call's arguments fit: as many as its parameters (those with defaults may be left out), named as they are. */
    private FunctionSym overloadFor(Overloads all, ArgumentListContext args, ParserRuleContext at) {
        List<ArgumentContext> given = args == null ? List.of() : args.argument();
        List<FunctionSym> fits = new ArrayList<>();
        for (FunctionSym f : all.functions) {
            List<ParameterContext> params = f.ctx.functionPrototype().parameterList().parameter();
            long required = params.stream().filter(p -> p.expression() == null && annotation(p.annotations(), "optional") == null).count();
            List<String> names = parameterNames(f);
            if (given.size() >= required && given.size() <= params.size()
                    && given.stream().allMatch(a -> a.name() == null || names.contains(a.name().getText()))) {
                fits.add(f);
            }
        }
        if (fits.size() != 1) {
            String name = all.functions.get(0).ctx.functionPrototype().name().getText();
            throw error(at, fits.isEmpty() ? "no function '" + name + "' takes these " + given.size() + " arguments"
                    : "the call fits " + fits.size() + " functions named '" + name + "': name its arguments");
        }
        return fits.get(0);
    }

    private void define(Scope sc, NameContext name, Object symbol) {
        define(sc, name, name.getText(), symbol);
    }

    private void define(Scope sc, ParserRuleContext at, String name, Object symbol) {
        if (sc.symbols.containsKey(name)) {
            throw error(at, "'" + name + "' is already declared in this scope");
        }
        sc.symbols.put(name, symbol);
    }

    // ---- types ----

    private void typeDeclaration(TypeDeclarationContext d, Scope sc) {
        if (d instanceof HeaderUnionDeclarationContext) {
            headerUnion((HeaderUnionDeclarationContext) d, sc);
        } else if (d instanceof HeaderDeclarationContext || d instanceof StructDeclarationContext) {
            boolean header = d instanceof HeaderDeclarationContext;
            NameContext name = header ? ((HeaderDeclarationContext) d).name() : ((StructDeclarationContext) d).name();
            AnnotationsContext an = header ? ((HeaderDeclarationContext) d).annotations()
                    : ((StructDeclarationContext) d).annotations();
            List<StructFieldContext> fields = header ? ((HeaderDeclarationContext) d).structField()
                    : ((StructDeclarationContext) d).structField();
            refuseGeneric(header ? ((HeaderDeclarationContext) d).typeParameters()
                    : ((StructDeclarationContext) d).typeParameters(), header ? "header" : "struct");
            Type.Aggregate t = new Type.Aggregate(name.getText(), header, annotations(an));
            define(sc, name, t);
            for (StructFieldContext f : fields) {
                Type ft = type(f.typeRef(), sc);
                if (ft == t) {
                    throw error(f.typeRef(), t + " cannot contain itself");
                }
                if (header && isPlainStruct(ft)) {
                    String bad = notInHeaderStruct((Type.Aggregate) ft, "");
                    if (bad != null) {
                        throw error(f.typeRef(), "header field '" + f.name().getText() + "' has type " + ft + ", whose field "
                                + bad + ": a struct in a header holds bit<W>, int<W>, bool, serializable enums and such structs");
                    }
                } else if (header && !(isWireScalar(ft) || ft instanceof Type.Varbit)) {
                    throw error(f.typeRef(), "header field '" + f.name().getText() + "' must be bit<W>, int<W>, bool,"
                            + " a serializable enum, varbit<W> or a struct of such fields (without varbit), not " + ft);
                }
                if (ft instanceof Type.Varbit && t.hasVarbit()) {
                    throw error(f.typeRef(), "a header has at most one varbit field");
                }
                if (ft instanceof Type.Varbit && f.annotations() != null && f.annotations().annotation().stream()
                        .anyMatch(a -> a.name().getText().equals("field_list"))) {
                    throw error(f.typeRef(), "a varbit field is not kept by resubmit, recirculate or clone: leave '"
                            + f.name().getText() + "' out of the @field_list");
                }
                if (!header && ft instanceof Type.Tuple) {
                    ft = tupleStruct((Type.Tuple) ft, f.typeRef());   // held as a tuple variable is
                }
                if (!header && !(ft.isScalar() || ft instanceof Type.Aggregate || ft instanceof Type.Stack
                        || ft instanceof Type.Varbit)) {
                    throw error(f.typeRef(), "struct field '" + f.name().getText() + "' cannot have type " + ft);
                }
                if (t.fields.containsKey(f.name().getText())) {
                    throw error(f.name(), "field '" + f.name().getText() + "' is declared twice in " + t);
                }
                t.addField(f.name().getText(), ft, annotations(f.annotations()));
            }
            List<String> ch = t.annotations.get("controller_header");
            if (header && t.bitWidth() % 8 != 0) {
                if (t.hasVarbit()) {
                    throw error(name, "header '" + t.name + "' has " + t.bitWidth() + " bits besides its varbit field,"
                            + " not a whole number of bytes");
                }
                if (ch != null) {
                    throw error(name, "header '" + t.name + "' is " + t.bitWidth() + " bits long: a @controller_header"
                            + " header travels in front of the packet and must be a whole number of bytes");
                }
                t.padToWholeBytes();
            }
            if (ch != null && !ch.isEmpty()) {
                for (StructFieldContext f : fields) {
                    Type ft = t.fields.get(f.name().getText()).type;
                    if (!(ft instanceof Type.Bits) || isZeroWidth(ft)) {
                        throw error(f.typeRef(), "the fields of a @controller_header header are P4Runtime metadata:"
                                + " they must be bit<W> or int<W> with W > 0");
                    }
                }
                controllerHeaders.put(ch.get(0), t);
            }
        } else if (d instanceof EnumDeclarationContext) {
            EnumDeclarationContext e = (EnumDeclarationContext) d;
            Type.Enum t = new Type.Enum(e.name(0).getText(), null);
            for (int i = 1; i < e.name().size(); i++) {
                if (t.members.put(e.name(i).getText(), (long) (i - 1)) != null) {
                    throw error(e.name(i), "'" + e.name(i).getText() + "' is declared twice in " + t);
                }
            }
            define(sc, e.name(0), t);
        } else if (d instanceof SerEnumDeclarationContext) {
            SerEnumDeclarationContext e = (SerEnumDeclarationContext) d;
            Type base = type(e.typeRef(), sc);
            if (!(base instanceof Type.Bits) || isZeroWidth(base) || newType(base) != null) {
                throw error(e.typeRef(), "an enum's underlying type must be bit<W> or int<W> of at least one bit, not " + base
                        + (newType(base) != null ? ", a type introduced by 'type' (P4_16 8.3)" : ""));
            }
            if (((Type.Bits) base).wide()) {
                throw error(e.typeRef(), "softswitch's serializable enums are up to 64 bits wide, not " + base);
            }
            Type.Enum t = new Type.Enum(e.name().getText(), (Type.Bits) base);
            Type.Bits bits = (Type.Bits) base;
            BigInteger lowest = bits.signed ? BigInteger.ONE.shiftLeft(bits.width - 1).negate() : BigInteger.ZERO;
            BigInteger highest = (bits.signed ? BigInteger.ONE.shiftLeft(bits.width - 1) : BigInteger.ONE.shiftLeft(bits.width))
                    .subtract(BigInteger.ONE);
            for (EnumMemberContext m : e.enumMember()) {
                Expr raw = expr(m.expression(), sc, null);
                if (raw instanceof Expr.Const && raw.type == Type.INT_LITERAL && (((Expr.Const) raw).value.compareTo(lowest) < 0
                        || ((Expr.Const) raw).value.compareTo(highest) > 0)) {
                    // P4_16 7.2.1: "expected to raise an error", where another constant would only be cut
                    throw error(m.expression(), "the value " + ((Expr.Const) raw).value + " of '" + m.name().getText()
                            + "' does not fit in " + base + " (" + lowest + " to " + highest + ")");
                }
                Expr v = coerce(raw, base, m.expression());
                if (!(v instanceof Expr.Const)) {
                    throw error(m.expression(), "'" + m.expression().getText() + "' must be a compile-time constant");
                }
                if (t.members.put(m.name().getText(), ((Expr.Const) v).value.longValue()) != null) {
                    throw error(m.name(), "'" + m.name().getText() + "' is declared twice in " + t);
                }
            }
            define(sc, e.name(), t);
        } else if (d instanceof TypedefDeclarationContext) {
            TypedefDeclarationContext t = (TypedefDeclarationContext) d;
            Object named = t.typeRef() instanceof NamedTypeRefContext
                    ? sc.lookup(((NamedTypeRefContext) t.typeRef()).typeName().TYPE_IDENT().getText()) : null;
            if (named instanceof ExternType || named instanceof ExternAlias) {
                // typedef register<bit<32>> Reg; an extern type with its type arguments, under a new name
                define(sc, t.name(), new ExternAlias((ExternType) unalias(named), externTypeArgs(t.typeRef(), sc)));
            } else {
                define(sc, t.name(), type(t.typeRef(), sc));
            }
        } else if (d instanceof TypedefOfDeclarationContext) {
            // typedef struct P { ... } Pt; (P4_16 7.5): the declaration, then its type under a second name
            TypedefOfDeclarationContext t = (TypedefOfDeclarationContext) d;
            NameContext declared = derivedName(t.typeDeclaration());
            if (declared == null) {
                throw error(t.typeDeclaration(), "a typedef declares a header, header_union, struct or enum in place"
                        + " (P4_16 7.5), not this");
            }
            typeDeclaration(t.typeDeclaration(), sc);
            define(sc, t.name(), sc.lookup(declared.getText()));
        } else if (d instanceof NewTypeDeclarationContext) {
            // 'type' introduces a new type; softswitch types it as its underlying type, and keeps the
            // name of one over bit<W> or int<W> for P4Info (P4Runtime 8.5.6).
            NewTypeDeclarationContext t = (NewTypeDeclarationContext) d;
            Type of = type(t.typeRef(), sc);
            if (!(of instanceof Type.Bits || of == Type.BOOL || of == Type.INT_LITERAL)) {
                throw error(t.typeRef(), "'type' introduces a new type for bit<W>, int<W>, bool or another such type"
                        + " (P4_16 7.6), not " + of + " (a typedef names any type)");
            }
            AnnotationContext translation = annotation(t.annotations(), "p4runtime_translation");
            if (of instanceof Type.Bits) {
                Type.Bits bits = (Type.Bits) of;
                if (translation != null && bits.signed) {
                    throw error(translation, "@p4runtime_translation applies to a type over bit<W> (P4Runtime 8.5.6), not " + of);
                }
                of = new Type.Bits(bits.width, bits.signed, translation == null
                        ? new Type.NewType(t.name().getText(), null, 0) : translated(t.name().getText(), translation));
            }
            define(sc, t.name(), of);
        }
    }

    /** The name a header, header_union, struct or enum declaration declares; null for other declarations. */
    private static NameContext derivedName(TypeDeclarationContext d) {
        return d instanceof HeaderDeclarationContext ? ((HeaderDeclarationContext) d).name()
                : d instanceof HeaderUnionDeclarationContext ? ((HeaderUnionDeclarationContext) d).name()
                : d instanceof StructDeclarationContext ? ((StructDeclarationContext) d).name()
                : d instanceof EnumDeclarationContext ? ((EnumDeclarationContext) d).name(0)
                : d instanceof SerEnumDeclarationContext ? ((SerEnumDeclarationContext) d).name() : null;
    }

    private Type type(TypeRefContext t, Scope sc) {
        if (t instanceof BaseTypeRefContext) {
            BaseTypeContext b = ((BaseTypeRefContext) t).baseType();
            if (b.BOOL() != null) {
                return Type.BOOL;
            }
            if (b.ERROR() != null) {
                return errorType;
            }
            if (b.STRING_KW() != null) {
                return Type.STRING;
            }
            if (b.VOID() != null) {
                return Type.VOID;
            }
            if (b.INT() != null && b.widthExpr() == null) {
                return Type.INT_LITERAL;
            }
            int width = 1;
            if (b.widthExpr() != null) {
                WidthExprContext w = b.widthExpr();
                BigInteger v = w.INTEGER() != null ? literal(w.INTEGER().getSymbol()).value
                        : constantValue(w.expression(), sc, null);
                // P4_16 7.1.6.2: bit<0> and varbit<0> hold nothing (only 0); an int<W> needs its sign bit
                if (v.signum() < 0 || v.bitLength() > 16 || v.signum() == 0 && b.INT() != null) {
                    throw error(w, (b.INT() != null ? "an int<W>'s width must be from 1 (its sign takes a bit) to 65535"
                            : "a width must be a constant from 0 to 65535") + ", not " + v);
                }
                width = v.intValue();
            }
            if (b.VARBIT() != null) {
                return new Type.Varbit(width);
            }
            return new Type.Bits(width, b.INT() != null);
        }
        if (t instanceof StackTypeRefContext) {
            StackTypeRefContext s = (StackTypeRefContext) t;
            Type elem = type(s.typeRef(), sc);
            if (!isHeaderOrUnion(elem)) {
                throw error(s, "a stack's elements must be headers or header unions, not " + elem);
            }
            BigInteger size = constantValue(s.expression(), sc, null);
            if (size.signum() <= 0) {
                throw error(s.expression(), "a stack size must be a positive constant");
            }
            if (size.bitLength() > 16) {
                throw error(s.expression(), "softswitch holds stacks of at most 65535 elements, not " + size);
            }
            return new Type.Stack((Type.Aggregate) elem, size.intValue());
        }
        if (t instanceof TupleTypeRefContext) {
            List<Type> elems = new ArrayList<>();
            TypeArgumentListContext args = ((TupleTypeRefContext) t).typeArgumentList();
            for (TypeArgContext a : args == null ? List.<TypeArgContext>of() : args.typeArg()) {   // tuple<> is empty
                Type elem = type(a.typeRef(), sc);
                if (elem == Type.STRING || elem == Type.INT_LITERAL || elem == Type.VOID) {
                    // P4_16 7.2.8's nesting rules: a tuple holds values that exist at run time
                    throw error(a, "a tuple cannot hold a " + elem + " (P4_16, type nesting rules)");
                }
                elems.add(elem);
            }
            return new Type.Tuple(elems);
        }
        NamedTypeRefContext n = (NamedTypeRefContext) t;
        String name = n.typeName().TYPE_IDENT().getText();
        Object o = unalias(sc.lookup(name));
        if (o instanceof Type && n.typeArgumentList() != null && !(o instanceof Type.Var) && !(o instanceof Type.Declared)) {
            throw error(n.typeArgumentList(), "'" + name + "' is not generic: it takes no type arguments (P4_16, type specialization)");
        }
        if (o instanceof Type) {
            return (Type) o;
        }
        throw error(n, "'" + name + "' is not a type");
    }

    private List<Type> typeArgs(TypeArgumentListContext list, Scope sc) {
        List<Type> out = new ArrayList<>();
        if (list != null) {
            for (TypeArgContext a : list.typeArg()) {
                if (a.DONTCARE() != null) {
                    throw error(a, "'_' as a type argument is not supported: name the type");
                }
                out.add(type(a.typeRef(), sc));
            }
        }
        return out;
    }

    // ---- annotations ----

    private Map<String, List<String>> annotations(AnnotationsContext an) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (an == null) {
            return out;
        }
        for (AnnotationContext a : an.annotation()) {
            List<String> values = new ArrayList<>();
            for (ExpressionContext e : annotationExpressions(a)) {
                values.add(e instanceof StringLiteralContext ? unquote(e.getText()) : e.getText());
            }
            if (a.annotationBody() != null) {
                values.add(a.annotationBody().getText());   // tokens, not expressions: kept as written (without spaces)
            }
            String name = a.name().getText();
            // numbers are kept in decimal, however written, for those who read them later
            switch (name) {
                case "id":
                    values = List.of(String.valueOf(annotationNumber(a, 1, 0xFFFFFFFFL, "a P4Runtime ID")));
                    break;
                case "field_list":
                    values = annotationNumbers(a, 255, "a field list index");
                    break;
                case "priority":
                    values = List.of(String.valueOf(annotationNumber(a, 1, Integer.MAX_VALUE, "an entry priority")));
                    break;
                case "max_group_size":
                case "max_member_weight":
                    values = List.of(String.valueOf(annotationNumber(a, 1, Integer.MAX_VALUE, "a positive size")));
                    break;
                case "selector_size_semantics":
                    annotationString(a);
                    if (!List.of(SUM_OF_WEIGHTS, SUM_OF_MEMBERS).contains(values.get(0))) {
                        throw error(a, "@selector_size_semantics takes \"" + SUM_OF_WEIGHTS + "\" or \"" + SUM_OF_MEMBERS
                                + "\", not \"" + values.get(0) + "\"");
                    }
                    break;
                case "name":
                case "controller_header":
                case "brief":
                case "description":
                    annotationString(a);
                    break;
                default:
                    break;
            }
            out.put(name, values);
        }
        return out;
    }

    /** One element's annotations: at most one @name or @hidden (P4_16 18.3.3), and checkAnnotationUse. */
    private void checkAnnotations(AnnotationsContext an) {
        Set<String> plain = new HashSet<>();
        Set<String> structured = new HashSet<>();
        boolean named = false;
        for (AnnotationContext a : an.annotation()) {
            checkAnnotationUse(a, plain, structured);
            if (a.name().getText().equals("name") || a.name().getText().equals("hidden")) {
                if (named) {
                    throw error(a, "an element takes at most one @name or @hidden annotation");
                }
                named = true;
            }
        }
    }

    /**
     * P4_16 18.2: a structured annotation ({@code @A[...]}) at most once on an element, with
     * distinct keys, and a name used either structured or not on one element, never both.
     */
    private void checkAnnotationUse(AnnotationContext a, Set<String> plain, Set<String> structured) {
        String name = a.name().getText();
        boolean isStructured = a.getChildCount() > 2 && a.getChild(2).getText().equals("[");
        if (isStructured ? plain.contains(name) : structured.contains(name)) {
            throw error(a, "@" + name + " is used both as a structured and as an unstructured annotation on one element");
        }
        if (isStructured && !structured.add(name)) {
            throw error(a, "the structured annotation @" + name + " is given twice on one element");
        }
        if (!isStructured) {
            plain.add(name);
            return;
        }
        Set<String> keys = new HashSet<>();
        AnnotationArgsContext args = a.structuredAnnotationBody() == null ? null : a.structuredAnnotationBody().annotationArgs();
        for (KvPairContext kv : args == null ? List.<KvPairContext>of() : args.kvPair()) {
            if (!keys.add(kv.name().getText())) {
                throw error(kv.name(), "key '" + kv.name().getText() + "' is given twice in @" + name);
            }
        }
    }

    private static AnnotationContext annotation(AnnotationsContext an, String name) {
        if (an != null) {
            for (AnnotationContext a : an.annotation()) {
                if (a.name().getText().equals(name)) {
                    return a;
                }
            }
        }
        return null;
    }

    private static final java.util.regex.Pattern TRANSLATION =
            java.util.regex.Pattern.compile("(\"(?:[^\"\\\\]|\\\\.)*\"),(?:(\\d+)|bit<(\\d+)>|(string))");

    /**
     * {@code @p4runtime_translation("URI", W)}, {@code ("URI", bit<W>)} or {@code ("URI", string)}
     * on the type {@code name} (P4Runtime 8.5.6).
     */
    private Type.NewType translated(String name, AnnotationContext a) {
        String text = a.annotationBody() != null ? a.annotationBody().getText()
                : a.annotationArgs() != null ? a.annotationArgs().getText() : "";
        java.util.regex.Matcher m = TRANSLATION.matcher(text);
        if (!m.matches()) {
            throw error(a, "@p4runtime_translation takes a URI and the controller's type: (\"URI\", bit<W>),"
                    + " (\"URI\", W) or (\"URI\", string)");
        }
        String uri = unquote(m.group(1));
        if (m.group(4) != null) {
            return new Type.NewType(name, uri, 0);
        }
        String digits = m.group(2) != null ? m.group(2) : m.group(3);
        BigInteger width = new BigInteger(digits);
        if (width.signum() <= 0 || width.bitLength() > 16) {
            throw error(a, "@p4runtime_translation's controller width must be from 1 to 65535, not " + digits);
        }
        return new Type.NewType(name, uri, width.intValue());
    }

    /** The expressions of {@code @name(e, ...)} or {@code @name[e, ...]}; none for a body of other tokens. */
    private static List<ExpressionContext> annotationExpressions(AnnotationContext a) {
        AnnotationArgsContext args = a.annotationArgs() != null ? a.annotationArgs()
                : a.structuredAnnotationBody() != null ? a.structuredAnnotationBody().annotationArgs() : null;
        return args == null ? List.of() : args.expression();
    }

    /** The single argument of {@code @name("x")}: a string literal. */
    private void annotationString(AnnotationContext a) {
        List<ExpressionContext> args = annotationExpressions(a);
        if (args.size() != 1 || !(args.get(0) instanceof StringLiteralContext)) {
            throw error(a, "@" + a.name().getText() + " takes one string, as in @" + a.name().getText() + "(\"x\")");
        }
    }

    /** The single argument of {@code @name(N)}: an integer literal without a width in [min, max]. */
    private long annotationNumber(AnnotationContext a, long min, long max, String what) {
        List<ExpressionContext> args = annotationExpressions(a);
        if (args.size() != 1) {
            throw error(a, "@" + a.name().getText() + " takes one number (" + what + ")");
        }
        return annotationValue(args.get(0), min, max, a.name().getText(), what);
    }

    private List<String> annotationNumbers(AnnotationContext a, long max, String what) {
        List<ExpressionContext> args = annotationExpressions(a);
        if (args.isEmpty()) {
            throw error(a, "@" + a.name().getText() + " takes one or more numbers (" + what + ")");
        }
        List<String> out = new ArrayList<>();
        for (ExpressionContext e : args) {
            out.add(String.valueOf(annotationValue(e, 0, max, a.name().getText(), what)));
        }
        return out;
    }

    private long annotationValue(ExpressionContext e, long min, long max, String annotation, String what) {
        BigInteger v = null;
        if (e instanceof IntLiteralContext) {
            Expr.Const c = literal(((IntLiteralContext) e).INTEGER().getSymbol());
            v = c.type == Type.INT_LITERAL ? c.value : null;
        } else {
            // a constant declared before, or a serializable enum's member (@field_list(FieldLists.Learn))
            try {
                Expr c = expr(e, global, null);
                boolean number = c.type == Type.INT_LITERAL || c.type instanceof Type.Bits
                        || c.type instanceof Type.Enum && ((Type.Enum) c.type).underlying != null;
                v = c instanceof Expr.Const && number ? ((Expr.Const) c).value : null;
            } catch (P4CompileException notAConstant) {
                v = null;   // said below, with what the annotation wants
            }
        }
        if (v == null || v.compareTo(BigInteger.valueOf(min)) < 0 || v.compareTo(BigInteger.valueOf(max)) > 0) {
            throw error(e, "the argument of @" + annotation + " must be " + what + ": an integer from " + min + " to " + max
                    + ", not '" + e.getText() + "'");
        }
        return v.longValue();
    }

    private static String unquote(String s) {
        return s.substring(1, s.length() - 1).replace("\\\"", "\"").replace("\\\\", "\\");
    }

    /** The control-plane name: @name("x") when given (a leading dot makes it absolute). */
    private static String qualified(String prefix, String name, Map<String, List<String>> an) {
        List<String> n = an.get("name");
        if (n != null && !n.isEmpty()) {
            name = n.get(0);
            if (name.startsWith(".")) {
                return name.substring(1);
            }
        }
        return prefix.isEmpty() ? name : prefix + "." + name;
    }

    // ---- constants ----

    private void constant(ConstantDeclarationContext c, Scope sc) {
        Type t = type(c.typeRef(), sc);
        Expr given = expr(c.expression(), sc, t);
        if (given instanceof ListValue || given instanceof StructValue) {
            aggregateConstant(c, t, given, sc);
            return;
        }
        Expr value = coerce(given, t, c.expression());
        if (!(value instanceof Expr.Const)) {
            throw error(c.expression(), "the value of constant '" + c.name().getText() + "' is not known at compile time");
        }
        define(sc, c.name(), new Var(c.name().getText(), value, true));
    }

    /**
     * const S x = { 10, 20 } (or { a = 10, b = 20 }, or (S) { ... }): a struct or header whose
     * fields are compile-time known (P4_16 8.12, 8.13); it stands for that list of values where it
     * is used, and x.a for its field's value.
     */
    private void aggregateConstant(ConstantDeclarationContext c, Type t, Expr given, Scope sc) {
        if (!(t instanceof Type.Aggregate) || ((Type.Aggregate) t).union) {
            throw error(c.expression(), t instanceof Type.Tuple ? "softswitch has no tuple constants: declare a variable"
                    + " of " + t + " instead" : "a list or structure-valued expression is a value of a struct or header,"
                    + " not of " + t);
        }
        Type.Aggregate agg = (Type.Aggregate) t;
        ListValue list = given instanceof StructValue ? ((StructValue) given).inOrderOf(agg, c.expression())
                : (ListValue) given;
        ListValue value = asStruct(list, agg, c.expression()).of(agg);
        if (!value.isConstant()) {
            throw error(c.expression(), "the value of constant '" + c.name().getText() + "' is not known at compile time");
        }
        define(sc, c.name(), new Var(c.name().getText(), value, true));
    }

    private BigInteger constantValue(ExpressionContext e, Scope sc, Type expected) {
        Expr v = expr(e, sc, expected);
        if (expected != null && v instanceof Expr.Const) {
            v = coerce(v, expected, e);
        }
        if (!(v instanceof Expr.Const)) {
            throw error(e, "'" + e.getText() + "' must be a compile-time constant");
        }
        return ((Expr.Const) v).value;
    }

    // ---- externs ----

    private void externDeclaration(ExternDeclarationContext d) {
        if (d instanceof ExternFunctionContext) {
            FunctionPrototypeContext p = ((ExternFunctionContext) d).functionPrototype();
            Object known = global.lookup(p.name().getText());
            ExternFunction f = known instanceof ExternFunction ? (ExternFunction) known : new ExternFunction();
            int arity = p.parameterList().parameter().size();
            if (f.protos.isEmpty()) {
                define(global, p.name(), f);
            } else if (f.forArgs(arity).parameterList().parameter().size() == arity) {
                throw error(p.name(), "extern function '" + p.name().getText() + "' is already declared with " + arity + " parameters");
            }
            f.protos.add(p);
            checkDeclaredParams(params(p.parameterList(), global, typeVarsOf(p, null)), p.parameterList());
            return;
        }
        ExternObjectContext o = (ExternObjectContext) d;
        ExternType t = new ExternType(o.name().getText());
        if (o.typeParameters() != null) {
            for (NameContext n : o.typeParameters().name()) {
                t.typeParams.add(n.getText());
            }
        }
        Set<String> declared = new HashSet<>();
        for (MethodPrototypeContext m : o.methodPrototype()) {
            if (m.functionPrototype() != null) {
                FunctionPrototypeContext f = m.functionPrototype();
                String name = f.name().getText();
                if (name.equals(t.name)) {
                    throw error(f.name(), "the constructor of extern '" + t.name + "' has no return type");
                }
                // P4_16 7.2.10: methods of one name differ in their number of parameters
                if (!declared.add(name + "/" + f.parameterList().parameter().size())) {
                    throw error(f.name(), "extern '" + t.name + "' declares method '" + name + "' twice with "
                            + f.parameterList().parameter().size() + " parameters");
                }
                t.methods.put(name, f);
            } else if (!m.name().getText().equals(t.name)) {
                throw error(m.name(), "'" + m.name().getText() + "' has no return type: a method needs one; only a constructor,"
                        + " named after the extern '" + t.name + "', has none");
            }
        }
        define(global, o.name(), t);
        for (MethodPrototypeContext m : o.methodPrototype()) {
            ParameterListContext list = m.functionPrototype() != null ? m.functionPrototype().parameterList() : m.parameterList();
            checkDeclaredParams(params(list, global, m.functionPrototype() != null ? typeVarsOf(m.functionPrototype(), t)
                    : t.typeParams), list);
        }
    }

    /**
     * Where a prototype is declared (an extern function, method or constructor): P4_16 6.8's rules for
     * default values (in or directionless parameters only, known at compile time, of the parameter's
     * type; none on an @optional parameter, 6.8.1). Calls check their arguments against it.
     */
    private void checkDeclaredParams(List<Param> params, ParameterListContext list) {
        for (int i = 0; i < params.size(); i++) {
            Param prm = params.get(i);
            ParameterContext p = list.parameter(i);
            if (prm.defaultValue == null) {
                continue;
            }
            if (prm.type.isScalar()) {   // a header or struct default is a list or structure-valued expression
                Expr v = coerce(expr(prm.defaultValue, global, prm.type), prm.type, prm.defaultValue);
                if (!(v instanceof Expr.Const)) {
                    throw error(prm.defaultValue, "the default value of parameter '" + prm.name + "' must be known at compile time");
                }
            }
        }
    }

    /** Parameters of a prototype, with its own and the extern's type parameters as variables. */
    private List<Param> params(ParameterListContext list, Scope sc, List<String> typeVars) {
        Scope withVars = new Scope(sc);
        for (String v : typeVars) {
            withVars.symbols.put(v, new Type.Var(v));
        }
        requireDistinctNames(list);
        List<Param> out = new ArrayList<>();
        for (ParameterContext p : list.parameter()) {
            String dir = p.direction() == null ? "" : p.direction().getText();
            Type t = p.typeRef() instanceof NamedTypeRefContext && withVars.lookup(p.typeRef().getText()) instanceof Type.Var
                    ? (Type) withVars.lookup(p.typeRef().getText()) : paramType(p.typeRef(), withVars);
            out.add(new Param(p.name().getText(), dir, t, defaultOf(p, dir)));
        }
        return out;
    }

    /** A parameter's default value (P4_16 6.8: optional arguments); only in and directionless ones may have one. */
    private ExpressionContext defaultOf(ParameterContext p, String direction) {
        if (p.expression() != null && ("out".equals(direction) || "inout".equals(direction))) {
            throw error(p.expression(), "an " + direction + " parameter cannot have a default value");
        }
        if (p.expression() != null && p.annotations() != null && annotations(p.annotations()).containsKey("optional")) {
            throw error(p.expression(), "an @optional parameter cannot have a default value (P4_16 6.8.1)");
        }
        return p.expression();
    }

    /**
     * The parameters of a list, or of a parser's or control's two lists (its parameters and its
     * constructor's; null when it has none), have distinct names (p4c: a duplicate declaration).
     */
    private void requireDistinctNames(ParameterListContext list, ParameterListContext constructorList) {
        Map<String, ParameterContext> seen = new HashMap<>();
        for (ParameterListContext l : constructorList == null ? List.of(list) : List.of(list, constructorList)) {
            for (ParameterContext p : l.parameter()) {
                ParameterContext earlier = seen.putIfAbsent(p.name().getText(), p);
                if (earlier != null) {
                    throw error(p.name(), "parameter '" + p.name().getText() + "' is declared twice"
                            + (earlier.getParent() == p.getParent() ? " in this list" : ": as a parameter and a constructor parameter"));
                }
            }
        }
    }

    private void requireDistinctNames(ParameterListContext list) {
        requireDistinctNames(list, null);
    }

    /** A header, struct or header union declared with type parameters: softswitch has none such. */
    private void refuseGeneric(TypeParametersContext typeParameters, String kind) {
        if (typeParameters != null) {
            throw error(typeParameters, "generic " + kind + "s are not supported by softswitch: declare one " + kind
                    + " per type");
        }
    }

    /** A parser, control or package type's parameters where it is declared: distinct names, defaults where allowed. */
    private void checkTypeParams(ParameterListContext list, ParameterListContext constructorList) {
        requireDistinctNames(list, constructorList);
        for (ParameterContext p : list.parameter()) {
            defaultOf(p, p.direction() == null ? "" : p.direction().getText());
        }
    }

    private Type paramType(TypeRefContext t, Scope sc) {
        if (t instanceof NamedTypeRefContext) {
            Object o = sc.lookup(((NamedTypeRefContext) t).typeName().TYPE_IDENT().getText());
            if (o instanceof ExternType) {
                return (Type) o;
            }
        }
        return type(t, sc);
    }

    private static List<String> typeVarsOf(FunctionPrototypeContext p, ExternType owner) {
        List<String> vars = new ArrayList<>();
        if (owner != null) {
            vars.addAll(owner.typeParams);
        }
        if (p.typeParameters() != null) {
            for (NameContext n : p.typeParameters().name()) {
                vars.add(n.getText());
            }
        }
        return vars;
    }

    /**
     * Checks call arguments against parameters: count, writability of out/inout, types with
     * generic type variables bound from the arguments. Returns the compiled arguments in order.
     */
    private List<Expr> arguments(String what, List<Param> params, ArgumentListContext args, Scope sc,
                                 Map<String, Type> bindings, ParserRuleContext at) {
        return arguments(what, params, args, sc, bindings, at, null);
    }

    /** As above; with a prelude, the places of out and inout arguments are fixed by statements added to it. */
    private List<Expr> arguments(String what, List<Param> params, ArgumentListContext args, Scope sc,
                                 Map<String, Type> bindings, ParserRuleContext at, List<Stmt> prelude) {
        List<ArgumentContext> given = args == null ? List.of() : args.argument();
        long required = params.stream().filter(p -> p.defaultValue == null).count();
        if (given.size() > params.size() || given.size() < required) {
            throw error(at, what + " takes " + (required == params.size() ? "" : required + " to ") + params.size()
                    + " argument" + (params.size() == 1 ? "" : "s") + ", " + given.size() + " given");
        }
        Expr[] out = new Expr[params.size()];
        boolean[] passed = new boolean[params.size()];
        boolean someNamed = given.stream().anyMatch(a -> a.name() != null);
        for (int i = 0; i < given.size(); i++) {
            ArgumentContext a = given.get(i);
            if (someNamed && a.name() == null) {
                throw error(a, "name every argument of " + what + " or none (P4_16: names only for some arguments are illegal)");
            }
            int index = i;
            if (a.name() != null) {
                index = -1;
                for (int k = 0; k < params.size(); k++) {
                    if (params.get(k).name.equals(a.name().getText())) {
                        index = k;
                    }
                }
                if (index < 0) {
                    throw error(a, what + " has no parameter named '" + a.name().getText() + "'");
                }
                if (passed[index]) {
                    throw error(a, "parameter '" + a.name().getText() + "' of " + what + " is given twice");
                }
            }
            passed[index] = true;
            Param p = params.get(index);
            if (p.type instanceof Type.Declared && ((Type.Declared) p.type).name.startsWith("packet_")) {
                // softswitch has one packet: the argument names it, nothing is copied
                Object v = a.expression() == null ? null : resolve(a.expression(), sc, null);
                if (!(v instanceof PacketParam) || ((PacketParam) v).input != p.type.toString().endsWith("packet_in")) {
                    throw error(a, "argument '" + p.name + "' of " + what + " must be the " + ((Type.Declared) p.type).name);
                }
                continue;
            }
            if (p.type instanceof ExternType) {
                continue;   // an instance, passed by reference: bound where the block was elaborated (applyPending)
            }
            if (a.DONTCARE() != null) {
                if (!p.writable()) {
                    throw error(a, "'_' can only be passed to an out parameter");
                }
                Type t = resolveVar(p.type, bindings);
                if (t instanceof Type.Var) {
                    throw error(a, "the type of '_' for parameter '" + p.name + "' of " + what + " is unknown");
                }
                out[index] = storageFor(t, a, "'_' for parameter '" + p.name + "'");
                continue;
            }
            Type expected = resolveVar(p.type, bindings);
            Expr e = p.writable() && prelude != null ? lvalue(a.expression(), sc, expected instanceof Type.Var ? null : expected, prelude)
                    : expr(a.expression(), sc, expected instanceof Type.Var ? null : expected);
            if (p.writable()) {
                requireWritable(a.expression(), sc, e, "argument '" + p.name + "' of " + what);
            }
            if (expected instanceof Type.Var) {
                if (e.type != Type.INT_LITERAL) {   // a constant struct binds its struct, not a tuple
                    bindings.put(((Type.Var) expected).name,
                            e instanceof ListValue && ((ListValue) e).of != null ? ((ListValue) e).of : e.type);
                }
            } else if (!p.writable() && prelude != null && expected instanceof Type.Aggregate
                    && (e instanceof ListValue || e instanceof StructValue || e instanceof DefaultValue
                        || e instanceof InvalidHeader)) {
                // a list, structure-valued expression, '...' or {#} for an in header or struct: built in a temporary first
                Expr.Agg temporary = (Expr.Agg) storage(expected);
                prelude.add(assignAggregate(temporary, e, a.expression()));
                e = temporary;
            } else if (prelude == null && e instanceof ListValue && isPlainStruct(expected)) {
                // an extern's data given as a list where its type argument names a struct,
                // hash<bit<16>, bit<16>, S, bit<32>>(r, alg, 0, {a, b}, 64): the fields' values
                e = asStruct((ListValue) e, (Type.Aggregate) expected, a.expression());
            } else {
                e = coerce(e, expected, a.expression());
            }
            out[index] = e;
        }
        for (int k = 0; k < out.length; k++) {
            Param p = params.get(k);
            if (passed[k]) {
                continue;
            }
            if (p.defaultValue == null) {
                throw error(at, what + " needs a value for its parameter '" + p.name + "'");
            }
            Type t = resolveVar(p.type, bindings);
            Expr v = coerce(expr(p.defaultValue, global, t instanceof Type.Var ? null : t), t, p.defaultValue);
            if (!(v instanceof Expr.Const)) {
                throw error(p.defaultValue, "the default value of parameter '" + p.name + "' must be known at compile time");
            }
            out[k] = v;
        }
        return java.util.Arrays.asList(out);
    }

    private static Type resolveVar(Type t, Map<String, Type> bindings) {
        if (t instanceof Type.Var && bindings.containsKey(((Type.Var) t).name)) {
            return bindings.get(((Type.Var) t).name);
        }
        return t;
    }

    private void requireWritable(ExpressionContext at, Scope sc, Expr e, String what) {
        if (!(e instanceof Expr.LValue || e instanceof Expr.Agg || e instanceof VarbitIo.Field) || e instanceof Expr.Const) {
            throw error(at, what + " must be a writable location, not '" + at.getText() + "'");
        }
        requireLValueForm(at, at, sc, what);
        requireNotReadOnly(at, sc, "write to");
    }

    /**
     * P4_16 6.7: an l-value is a name, a field, an element or a slice of an l-value, in parentheses
     * or not (so not a slice of a sum or of a cast), and a stack's {@code last} is none (8.18).
     */
    private void requireLValueForm(ExpressionContext whole, ExpressionContext at, Scope sc, String what) {
        ExpressionContext e = at;
        while (e instanceof ParenExpressionContext) {
            e = ((ParenExpressionContext) e).expression();
        }
        if (e instanceof IndexExpressionContext && namesOnly(((IndexExpressionContext) e).expression(0))
                && tupleStructs.containsValue(expr(((IndexExpressionContext) e).expression(0), sc, null).type)) {
            throw error(whole, "a tuple's fields are not l-values (P4_16 8.12): assign the whole tuple, as in "
                    + ((IndexExpressionContext) e).expression(0).getText() + " = { ... }");
        }
        if (e instanceof SliceExpressionContext || e instanceof IndexedSliceExpressionContext
                || e instanceof IndexExpressionContext) {
            requireLValueForm(whole, ((ParserRuleContext) e).getRuleContext(ExpressionContext.class, 0), sc, what);
        } else if (e instanceof MemberExpressionContext) {
            MemberExpressionContext m = (MemberExpressionContext) e;
            if (m.name().getText().equals("last") && namesOnly(m.expression())
                    && expr(m.expression(), sc, null).type instanceof Type.Stack) {
                throw error(m.name(), "a stack's last is never an l-value (P4_16 8.18): write to "
                        + m.expression().getText() + "[i] with the index read from lastIndex");
            }
            requireLValueForm(whole, m.expression(), sc, what);
        } else if (!(e instanceof NameExpressionContext || e instanceof TopNameExpressionContext)) {
            throw error(whole, what + " must be a writable location, not '" + whole.getText() + "' ('"
                    + e.getText() + "' is a value, not a place to write)");
        }
    }

    private static boolean numeric(Type t) {
        return t instanceof Type.Bits || t instanceof Type.Enum && ((Type.Enum) t).underlying != null;
    }

    /** A name or names joined by dots: compiling it again has no effects. */
    private static boolean namesOnly(ExpressionContext e) {
        return e instanceof NameExpressionContext || e instanceof TopNameExpressionContext
                || e instanceof MemberExpressionContext && namesOnly(((MemberExpressionContext) e).expression());
    }

    /** {@code at} does not lie within an in (or directionless) parameter or a constant. */
    private void requireNotReadOnly(ExpressionContext at, Scope sc, String verb) {
        String root = rootName(at);
        Object o = root == null ? null : sc.lookup(root);
        if (o instanceof Var && ((Var) o).readOnly) {
            throw error(at, "cannot " + verb + " '" + at.getText() + "': '" + root + "' is read-only (an 'in' "
                    + "or directionless parameter, or a constant)");
        }
    }

    private static String rootName(ExpressionContext e) {
        while (true) {
            if (e instanceof NameExpressionContext) {
                return e.getText();
            }
            if (e instanceof MemberExpressionContext) {
                e = ((MemberExpressionContext) e).expression();
            } else if (e instanceof IndexExpressionContext) {
                e = ((IndexExpressionContext) e).expression(0);
            } else if (e instanceof SliceExpressionContext) {
                e = ((SliceExpressionContext) e).expression(0);
            } else if (e instanceof IndexedSliceExpressionContext) {
                e = ((IndexedSliceExpressionContext) e).expression(0);
            } else if (e instanceof ParenExpressionContext) {
                e = ((ParenExpressionContext) e).expression();
            } else {
                return null;
            }
        }
    }

    private void instantiation(InstantiationContext d, Scope sc, String prefix) {
        String name = d.name().getText();
        TypeRefContext tr = d.typeRef();
        String typeName = tr instanceof NamedTypeRefContext ? ((NamedTypeRefContext) tr).typeName().TYPE_IDENT().getText() : tr.getText();
        Object t = unalias(sc.lookup(typeName));
        Map<String, List<String>> an = annotations(d.annotations());
        String qname = qualified(prefix, name, an);
        List<ArgumentContext> args = d.argumentList().argument();
        if (t instanceof BlockType && "control".equals(((BlockType) t).kind)) {
            if (sc == global) {
                throw error(d, "a control cannot be instantiated at the top level: instantiate it inside the control "
                        + "that applies it, or pass it to main's package");
            }
            BlockType bt = boundBlock((BlockType) t, tr, sc);
            Map<String, Object> ctor = constructorArguments(bt, ((ControlDeclarationContext) bt.decl).parameterList(), args, sc, d);
            ParserRuleContext at = args.isEmpty() ? d : args.get(0);
            define(sc, d.name(), takesExterns(bt) ? new PendingInstance(bt, qname, ctor, at)
                    : instantiateControl(bt, qname, null, at, ctor, Map.of()));
            return;
        }
        if (!(t instanceof ExternType)) {
            throw error(tr, "'" + typeName + "' cannot be instantiated here");
        }
        ExternType et = (ExternType) t;
        List<Type> targs = externTypeArgs(tr, sc);
        switch (et.name) {
            case "register": {
                Type.Enum values = targs.isEmpty() ? null : serializableEnum(targs.get(0));
                if (targs.isEmpty() || targs.size() > 2 || !(targs.get(0) instanceof Type.Bits || values != null)
                        || isZeroWidth(targs.get(0)) || targs.size() == 2 && !(targs.get(1) instanceof Type.Bits)) {
                    throw error(tr, "register needs a bit<W> (W > 0) or serializable enum type argument, and may have a bit<W> index"
                            + " type, as in register<bit<32>>(1024) or register<bit<32>, bit<10>>(1024)");
                }
                int size = sizeArg(args, 0, "register", d, sc);
                Externs.Register r = values != null ? new Externs.Register(qname, size, values.underlying.width, false, values)
                        : new Externs.Register(qname, size, ((Type.Bits) targs.get(0)).width, ((Type.Bits) targs.get(0)).signed, null);
                claim("register", qname, an, d.name().getStart());
                registers.add(r);
                define(sc, d.name(), new ExternInstance(qname, et, targs, r));
                return;
            }
            case "counter": {
                int size = sizeArg(args, 0, "counter", d, sc);
                int unit = args.size() > 1 ? enumMemberIndex(args.get(1), sc, "CounterType") : 0;
                Externs.Counter c = new Externs.Counter(qname, size, unit);
                claim("counter", qname, an, d.name().getStart());
                counters.add(c);
                define(sc, d.name(), new ExternInstance(qname, et, targs, c));
                return;
            }
            case DIRECT_COUNTER: {
                if (args.size() != 1) {
                    throw error(d, "direct_counter takes 1 argument (its CounterType), " + args.size() + " given");
                }
                int unit = enumMemberIndex(args.get(0), sc, "CounterType");
                claim(DIRECT_COUNTER, qname, an, d.name().getStart());
                define(sc, d.name(), new ExternInstance(qname, et, targs, new DirectDecl(qname, unit, DIRECT_COUNTER)));
                return;
            }
            case "meter": {
                if (args.size() != 2) {
                    throw error(d, "meter takes 2 arguments (its size and MeterType), " + args.size() + " given");
                }
                int size = sizeArg(args, 0, "meter", d, sc);
                Externs.Meter mt = new Externs.Meter(qname, size, enumMemberIndex(args.get(1), sc, "MeterType"));
                claim("meter", qname, an, d.name().getStart());
                meters.add(mt);
                define(sc, d.name(), new ExternInstance(qname, et, targs, mt));
                return;
            }
            case DIRECT_METER: {
                if (args.size() != 1) {
                    throw error(d, "direct_meter takes 1 argument (its MeterType), " + args.size() + " given");
                }
                int unit = enumMemberIndex(args.get(0), sc, "MeterType");
                claim(DIRECT_METER, qname, an, d.name().getStart());
                define(sc, d.name(), new ExternInstance(qname, et, targs, new DirectDecl(qname, unit, DIRECT_METER)));
                return;
            }
            case ACTION_PROFILE:
            case ACTION_SELECTOR: {
                ProfileDecl pd = profileDecl(et.name, qname, an, args, d, sc);
                claim(ACTION_PROFILE, qname, an, d.name().getStart());
                define(sc, d.name(), new ExternInstance(qname, et, targs, pd));
                return;
            }
            default:
                throw error(tr, "extern '" + et.name + "' cannot be instantiated by softswitch");
        }
    }

    /**
     * An action_profile(size) or action_selector(algorithm, size, outputWidth), declared or
     * constructed in a table's implementation property. A selector's annotations, as p4c reads
     * them: @max_group_size(N) bounds its groups; @selector_size_semantics("sum_of_members") counts
     * a group's members instead of their weights, each weight then at most @max_member_weight(W).
     */
    private ProfileDecl profileDecl(String kind, String qname, Map<String, List<String>> an, List<ArgumentContext> args,
                                    ParserRuleContext at, Scope sc) {
        boolean selector = kind.equals(ACTION_SELECTOR);
        if (args.size() != (selector ? 3 : 1)) {
            throw error(at, selector ? "action_selector takes 3 arguments (HashAlgorithm, size, output width), " + args.size()
                    + " given" : "action_profile takes 1 argument (its size), " + args.size() + " given");
        }
        int size = sizeArg(args, selector ? 1 : 0, kind, at, sc);
        int maxGroupSize = an.containsKey("max_group_size") ? Integer.parseInt(an.get("max_group_size").get(0)) : 0;
        boolean sumOfMembers = an.containsKey("selector_size_semantics")
                && an.get("selector_size_semantics").get(0).equals(SUM_OF_MEMBERS);
        int maxMemberWeight = an.containsKey("max_member_weight") ? Integer.parseInt(an.get("max_member_weight").get(0)) : 0;
        if (maxMemberWeight > 0 && !sumOfMembers) {
            throw error(at, "@max_member_weight needs @selector_size_semantics(\"" + SUM_OF_MEMBERS + "\")");
        }
        ActionProfile profile = new ActionProfile(qname, an, size, selector, maxGroupSize,
                sumOfMembers ? new ActionProfile.SumOfMembers(maxMemberWeight) : null);
        if (!selector) {
            return new ProfileDecl(profile, null, 0);
        }
        Externs.Algorithm algo = Externs.Algorithm.values()[enumMemberIndex(args.get(0), sc, "HashAlgorithm")];
        BigInteger width = constantValue(argExpr(args, 2, kind, at), sc, new Type.Bits(32, false));
        if (width.signum() <= 0 || width.compareTo(BigInteger.valueOf(64)) > 0) {
            throw error(args.get(2), "the output width of an action_selector must be 1..64 bits, not " + width);
        }
        return new ProfileDecl(profile, algo, width.intValue());
    }

    /** An action profile or selector as the frontend knows it: the runtime object and the selector's hash. */
    static final class ProfileDecl {
        final ActionProfile profile;
        /** The selector's algorithm; null for an action_profile. */
        final Externs.Algorithm algorithm;
        final int outputWidth;

        ProfileDecl(ActionProfile profile, Externs.Algorithm algorithm, int outputWidth) {
            this.profile = profile;
            this.algorithm = algorithm;
            this.outputWidth = outputWidth;
        }
    }

    /**
     * A table's implementation property: a declared action_profile or action_selector instance, or
     * one constructed there, named by the property's @name as written (not qualified by the control:
     * p4c's P4Info names it so; p4c refuses a property without one, softswitch names the profile after
     * the table then) and annotated by
     * the property's annotations (@max_group_size, @id).
     */
    private ProfileDecl implementation(ExpressionContext e, Scope sc, String prefix, String table,
                                       Map<String, List<String>> an) {
        if (e instanceof CallExpressionContext && ((CallExpressionContext) e).expression() instanceof NameExpressionContext) {
            CallExpressionContext c = (CallExpressionContext) e;
            Object t = unalias(sc.lookup(c.expression().getText()));
            if (t instanceof ExternType && (((ExternType) t).name.equals(ACTION_PROFILE)
                    || ((ExternType) t).name.equals(ACTION_SELECTOR))) {
                String name = an.containsKey("name") ? qualified("", "", an) : table;
                ProfileDecl pd = profileDecl(((ExternType) t).name, name, an, c.argumentList().argument(), e, sc);
                claim(ACTION_PROFILE, name, an, e.getStart());
                return pd;
            }
        }
        Object o = sc.lookup(e.getText());
        if (!(o instanceof ExternInstance) || !(((ExternInstance) o).runtime instanceof ProfileDecl)) {
            throw error(e, "'" + e.getText() + "' is not an action_profile or action_selector (a table's implementation "
                    + "names an instance, or constructs one: implementation = action_profile(32w128))");
        }
        return (ProfileDecl) ((ExternInstance) o).runtime;
    }

    /**
     * A direct counter's or direct meter's declaration; its values live in the entries of the
     * table it is attached to (the table's {@code counters} or {@code meters} property).
     */
    static final class DirectDecl {
        final String name;
        final int unit;
        /** "direct_counter" or "direct_meter", as the program names the extern. */
        final String kind;

        DirectDecl(String name, int unit, String kind) {
            this.name = name;
            this.unit = unit;
            this.kind = kind;
        }
    }

    /** A direct counter or meter belongs to one table (its cells are that table's entries). */
    private void attach(DirectDecl d, String table, ParserRuleContext at) {
        String other = attached.putIfAbsent(d, table);
        if (other != null) {
            throw error(at, d.kind + " '" + d.name + "' is already attached to table '" + other + "'");
        }
    }

    /**
     * {@code counters = direct_counter(CounterType.packets)}: a direct counter constructed in the
     * table property, named after the table (as an action profile constructed in its implementation
     * is); null when the property names an instance.
     */
    private DirectDecl inlineDirectCounter(ExpressionContext e, Scope sc, String table) {
        if (!(e instanceof CallExpressionContext) || !(((CallExpressionContext) e).expression() instanceof NameExpressionContext)) {
            return null;
        }
        CallExpressionContext c = (CallExpressionContext) e;
        Object t = unalias(sc.lookup(c.expression().getText()));
        if (!(t instanceof ExternType) || !((ExternType) t).name.equals(DIRECT_COUNTER)) {
            return null;
        }
        List<ArgumentContext> args = c.argumentList().argument();
        if (args.size() != 1) {
            throw error(e, "direct_counter takes 1 argument (its CounterType), " + args.size() + " given");
        }
        int unit = enumMemberIndex(args.get(0), sc, "CounterType");
        claim(DIRECT_COUNTER, table, Map.of(), e.getStart());
        return new DirectDecl(table, unit, DIRECT_COUNTER);
    }

    /** The table property's value: the named extern instance, which must be a {@code kind}. */
    private DirectDecl directProperty(ExpressionContext e, String kind, Scope sc) {
        Object o = sc.lookup(e.getText());
        if (!(o instanceof ExternInstance) || !(((ExternInstance) o).runtime instanceof DirectDecl)
                || !((DirectDecl) ((ExternInstance) o).runtime).kind.equals(kind)) {
            throw error(e, "'" + e.getText() + "' is not a " + kind);
        }
        return (DirectDecl) ((ExternInstance) o).runtime;
    }

    private int sizeArg(List<ArgumentContext> args, int i, String what, ParserRuleContext at, Scope sc) {
        if (args.size() <= i) {
            throw error(at, what + " needs its size as the first argument");
        }
        BigInteger v = constantValue(argExpr(args, i, what, at), sc, new Type.Bits(32, false));
        if (v.signum() <= 0 || v.bitLength() > 31) {
            throw error(args.get(i), what + " size must be a positive constant");
        }
        return v.intValue();
    }

    private int enumMemberIndex(ArgumentContext a, Scope sc, String enumName) {
        if (a.DONTCARE() != null) {
            throw error(a, "'_' cannot stand for a member of " + enumName);
        }
        Expr e = expr(a.expression(), sc, null);
        if (!(e instanceof Expr.Const) || !(e.type instanceof Type.Enum) || !((Type.Enum) e.type).name.equals(enumName)) {
            throw error(a, "expected a member of " + enumName + ", got '" + a.getText() + "'");
        }
        return ((Expr.Const) e).value.intValue();
    }

    // ---- functions and actions ----

    private void compileFunction(FunctionSym fs, Scope sc) {
        FunctionPrototypeContext p = fs.ctx.functionPrototype();
        Scope body = new Scope(sc);
        List<Param> declared = params(p.parameterList(), sc, List.of());
        for (int i = 0; i < declared.size(); i++) {
            Param prm = declared.get(i);
            requireStorable(prm.type, p.parameterList().parameter(i), "parameter '" + prm.name + "'");
            Expr slot = parameterStorage(prm.direction, prm.type);
            fs.params.add(prm);
            fs.slots.add(slot);
            body.symbols.put(prm.name, new Var(prm.name, slot, "in".equals(prm.direction)));
        }
        Type rt = type(p.typeRef(), sc);
        if (rt != Type.VOID && !rt.isScalar() && !(rt instanceof Type.Aggregate)) {
            throw error(p.typeRef(), "softswitch's functions return bit<W>, int<W>, bool, enum, error, header or struct"
                    + " values, not " + rt + " (return it through an out parameter)");
        }
        fs.result = rt == Type.VOID ? null : storage(rt);
        Where outer = enter(Where.FUNCTION, fs);
        fs.body = new Stmt.Callable(block(fs.ctx.blockStatement(), body, new Context("", false, fs.result)));
        if (rt != Type.VOID && !returns(fs.ctx.blockStatement())) {
            throw error(p.name(), "function '" + p.name().getText() + "' returns " + rt
                    + " but can reach its end without a return statement");
        }
        leave(outer, fs);
    }

    /** Whether every path through a statement ends in return or exit: a function with a result returns it on every path. */
    private static boolean returns(ParserRuleContext st) {
        if (st instanceof BlockStatementContext) {
            return ((BlockStatementContext) st).statement().stream().anyMatch(Elaborator::returns);
        }
        if (!(st instanceof StatementContext)) {
            return false;
        }
        StatementContext s = (StatementContext) st;
        if (s.RETURN() != null || s.EXIT() != null) {
            return true;
        }
        if (s.blockStatement() != null) {
            return returns(s.blockStatement());
        }
        if (s.ifStatement() != null) {
            IfStatementContext i = s.ifStatement();
            return i.statement().size() == 2 && returns(i.statement(0)) && returns(i.statement(1));
        }
        if (s.switchStatement() != null) {   // with a default, each body returns (a last label without one does not)
            List<SwitchCaseContext> cases = s.switchStatement().switchCase();
            return !cases.isEmpty() && cases.get(cases.size() - 1).switchLabel().DEFAULT() != null
                    && cases.stream().allMatch(c -> c.blockStatement() == null ? c != cases.get(cases.size() - 1)
                            : returns(c.blockStatement()));
        }
        return false;   // a loop may run no time
    }

    /** An action parameter the SUME target fills (Action.IDLE_SLOT): a SimpleSumeSwitch action's last, a bit<W>, naming its register. */
    private void idleSlotParam(ActionDeclarationContext d, ParameterContext p, Type t, List<String> args) {
        String what = "@" + Action.IDLE_SLOT + " parameter '" + p.name().getText() + "'";
        if (architecture != Program.Architecture.SUME) {
            throw error(p, what + ": only a SimpleSumeSwitch program's actions have slots the target fills");
        }
        List<ParameterContext> all = d.parameterList().parameter();
        if (all.get(all.size() - 1) != p) {
            throw error(p, what + " must be the last parameter of action '" + d.name().getText() + "'");
        }
        if (!(t instanceof Type.Bits) || args.size() != 1 || args.get(0).isEmpty()) {
            throw error(p, what + " must be a bit<W> annotated with the register of hits it indexes, "
                    + "as in @" + Action.IDLE_SLOT + "(\"session_hit\") bit<13> slot");
        }
    }

    private ActionSym action(ActionDeclarationContext d, Scope sc, String prefix) {
        Map<String, List<String>> an = annotations(d.annotations());
        String qname = qualified(prefix, d.name().getText(), an);
        Scope body = new Scope(sc);
        List<Param> directional = new ArrayList<>();
        List<Expr> directionalSlots = new ArrayList<>();
        List<Action.Param> data = new ArrayList<>();
        requireDistinctNames(d.parameterList());
        boolean copyAggregates = namesOuterAggregate(d.blockStatement(), sc);
        for (ParameterContext p : d.parameterList().parameter()) {
            Type t = type(p.typeRef(), sc);
            String name = p.name().getText();
            if (p.direction() != null) {
                requireStorable(t, p, "parameter '" + name + "'");
            } else if (!(t instanceof Type.Bits || t == Type.BOOL || underlying(t) != null)) {
                throw error(p.typeRef(), "control-plane parameter '" + name + "' must be bit<W>, int<W>, bool or a serializable"
                        + " enum, not " + t);
            }
            Expr slot = p.direction() != null && !copyAggregates ? parameterStorage(p.direction().getText(), t) : storage(t);
            if (p.direction() != null) {
                if (!data.isEmpty()) {
                    throw error(p, "directional parameters of action '" + d.name().getText() + "' must come before its control-plane parameters");
                }
                directional.add(new Param(name, p.direction().getText(), t, defaultOf(p, p.direction().getText())));
                directionalSlots.add(slot);
            } else {
                Map<String, List<String>> pan = annotations(p.annotations());
                if (pan.containsKey(Action.IDLE_SLOT)) {
                    idleSlotParam(d, p, t, pan.get(Action.IDLE_SLOT));
                }
                if (isZeroWidth(t)) {
                    throw error(p, "control-plane parameter '" + name + "' is a bit<0>, which holds only 0: use 0 in the action instead");
                }
                data.add(new Action.Param(name, Math.max(widthOf(t), 1), (Expr.LValue) slot, pan));
            }
            // P4_16 14.1: a directionless parameter behaves as an in one (read-only)
            body.symbols.put(name, new Var(name, slot, p.direction() == null || "in".equals(p.direction().getText())));
        }
        Action a = new Action(qname, an, data);
        actionDeclarations.put(a, d.name().getStart());
        ActionSym sym = new ActionSym(a, directional, directionalSlots, copyAggregates);
        define(sc, d.name(), sym);
        Where outer = enter(Where.ACTION, sym);
        Action enclosing = compilingAction;
        compilingAction = a;
        a.compiledBody(block(d.blockStatement(), body, new Context(prefix, false, null)));
        compilingAction = enclosing;
        leave(outer, sym);
        actions.add(a);
        return sym;
    }

    /**
     * Whether an action's body names a header, struct or stack of its control by name (a name the
     * enclosing scope gives such a variable, whatever the body declares itself), itself or through
     * an action it calls: then an inout argument may be that variable or part of it, and the body
     * must see it as it was before the call while the parameter changes (P4_16 6.8), so its inout
     * aggregates are copied in and out rather than passed by reference (AggRef).
     */
    private boolean namesOuterAggregate(ParseTree t, Scope outer) {
        if (t instanceof NameContext) {
            Object o = outer.lookup(t.getText());
            return o instanceof Var && ((Var) o).value instanceof Expr.Agg
                    || o instanceof ActionSym && ((ActionSym) o).namesOuterAggregate;
        }
        for (int i = 0; i < t.getChildCount(); i++) {
            if (namesOuterAggregate(t.getChild(i), outer)) {
                return true;
            }
        }
        return false;
    }

    /** Starts compiling the body of {@code what}, a block of kind {@code kind}; returns the kind to restore. */
    /**
     * Where the parsers and controls being elaborated are declared (their first tokens): softswitch
     * elaborates them where main instantiates them, after every declaration, so a function they call
     * is checked against this to be declared before them, as P4 declares a name before its use.
     */
    private final java.util.ArrayDeque<Integer> declaredAt = new java.util.ArrayDeque<>();

    private Where enter(Where kind, Object what) {
        Where outer = where;
        where = kind;
        inProgress.add(what);
        outerLoopDepths.push(loopDepth);   // a block compiled inside a loop body is not in the loop
        loopDepth = 0;
        return outer;
    }

    private void leave(Where outer, Object what) {
        where = outer;
        inProgress.remove(what);
        loopDepth = outerLoopDepths.pop();
    }

    // ---- the package: V1Switch or SimpleSumeSwitch ----

    private Program instantiateMain(InstantiationContext main) {
        TypeRefContext tr = main.typeRef();
        Object pkg = global.lookup(tr.getText().replaceAll("<.*", "").replaceFirst("^\\.", ""));   // .V1Switch: the top-level one
        String name = pkg instanceof BlockType ? ((BlockType) pkg).name : "";
        switch (name) {
            case "V1Switch":
                architecture = Program.Architecture.V1MODEL;
                return instantiateV1Switch(main);
            case "SimpleSumeSwitch":
                architecture = Program.Architecture.SUME;
                return instantiateSimpleSumeSwitch(main);
            default:
                throw error(tr, "softswitch runs the v1model and SimpleSumeSwitch architectures: 'main' must be a "
                        + "V1Switch or a SimpleSumeSwitch, not '" + tr.getText() + "'");
        }
    }

    /**
     * main's arguments in the order of the package's parameters: as written, or by name when they
     * are named ({@code V1Switch(p = P(), ig = I(), ...)}: in any order, all of them named).
     */
    private List<ArgumentContext> packageArguments(InstantiationContext main, String pkg) {
        List<ArgumentContext> args = main.argumentList().argument();
        if (args.stream().noneMatch(a -> a.name() != null)) {
            return args;
        }
        List<ParameterContext> params = ((BlockType) global.lookup(pkg)).params.parameter();
        Map<String, ArgumentContext> byName = new HashMap<>();
        for (ArgumentContext a : args) {
            if (a.name() == null) {
                throw error(a, "name every argument of " + pkg + " or none");
            }
            String n = a.name().getText();
            if (params.stream().noneMatch(p -> p.name().getText().equals(n))) {
                throw error(a.name(), pkg + " has no parameter '" + n + "'");
            }
            if (byName.put(n, a) != null) {
                throw error(a.name(), "argument '" + n + "' of " + pkg + " is given twice");
            }
        }
        List<ArgumentContext> ordered = new ArrayList<>();
        for (ParameterContext p : params) {
            ArgumentContext a = byName.get(p.name().getText());
            if (a == null) {
                throw error(main, pkg + " needs its argument '" + p.name().getText() + "'");
            }
            ordered.add(a);
        }
        return ordered;
    }

    /** The blocks main instantiates, checked against the package's roles (parser first, then controls). */
    private BlockType[] packageBlocks(InstantiationContext main, String pkg, String[] roles) {
        List<ArgumentContext> args = packageArguments(main, pkg);
        ParameterListContext declared = ((BlockType) global.lookup(pkg)).params;
        if (declared.parameter().size() != roles.length) {
            // not the architecture's declaration: a package of the program's own under its name
            throw error(main, pkg + " is declared at " + source.fileOf(declared.getStart().getLine()) + ":"
                    + source.lineOf(declared.getStart().getLine()) + " with " + declared.parameter().size()
                    + " parameters; softswitch runs the architecture's " + pkg + " (" + roles.length + " blocks: "
                    + String.join(", ", roles) + ") as " + (pkg.equals("V1Switch") ? "<v1model.p4>" : "<sume_switch.p4>")
                    + " declares it: include that instead");
        }
        if (args.size() != roles.length) {
            throw error(main, pkg + " takes " + roles.length + " arguments (" + String.join(", ", roles) + "), "
                    + args.size() + " given");
        }
        BlockType[] blocks = new BlockType[roles.length];
        for (int i = 0; i < roles.length; i++) {
            ExpressionContext e = argExpr(args, i, pkg, main);
            String name = e instanceof CallExpressionContext ? ((CallExpressionContext) e).expression().getText() : e.getText();
            Object o = global.lookup(name);
            boolean wantParser = i == 0;
            if (!(o instanceof BlockType) || ((BlockType) o).decl == null
                    || !((BlockType) o).kind.equals(wantParser ? "parser" : "control")) {
                throw error(e, "argument " + (i + 1) + " of " + pkg + " must instantiate a " + roles[i] + ", not '" + e.getText() + "'");
            }
            if (((BlockType) o).generic()) {
                throw error(e, "argument " + (i + 1) + " of " + pkg + " is a generic " + ((BlockType) o).kind
                        + ": softswitch binds type arguments only where a parser or control instantiates one");
            }
            blocks[i] = (BlockType) o;
        }
        checkSignatures((BlockType) global.lookup(pkg), blocks, roles);
        return blocks;
    }

    /** A rule's text as written, spaces included (getText() drops them). */
    private static String sourceText(ParserRuleContext r) {
        return r.getStart().getInputStream().getText(Interval.of(r.getStart().getStartIndex(), r.getStop().getStopIndex()));
    }

    /**
     * Each block's parameters against the package's parser or control type for its place (a block
     * passed to a package must have the type the package declares, as p4c's type unification
     * requires): the same number, in the same order, with the same directions and types, the package's type
     * variables (H, M) bound to one type each, by the parser, for every block.
     */
    private void checkSignatures(BlockType pkg, BlockType[] blocks, String[] roles) {
        Map<String, Type> bound = new HashMap<>();
        List<ParameterContext> slots = pkg.params.parameter();
        for (int i = 0; i < blocks.length && i < slots.size(); i++) {
            TypeRefContext slot = slots.get(i).typeRef();
            if (!(slot instanceof NamedTypeRefContext)
                    || !(global.lookup(((NamedTypeRefContext) slot).typeName().getText()) instanceof BlockType)) {
                continue;
            }
            NamedTypeRefContext named = (NamedTypeRefContext) slot;
            BlockType proto = (BlockType) global.lookup(named.typeName().getText());
            // The prototype's type variables, as the package's (Ingress<H, M> in V1Switch<H, M>)
            Map<String, String> asPackages = new HashMap<>();
            List<TypeArgContext> typeArgs = named.typeArgumentList() == null ? List.of() : named.typeArgumentList().typeArg();
            for (int k = 0; k < proto.typeParams.size() && k < typeArgs.size(); k++) {
                asPackages.put(proto.typeParams.get(k), typeArgs.get(k).getText());
            }
            BlockType block = blocks[i];
            String what = roles[i] + " '" + block.name + "'";
            List<ParameterContext> want = proto.params.parameter();
            List<ParameterContext> have = block.params.parameter();
            if (have.size() != want.size()) {
                throw error(block.params, what + " has " + have.size() + " parameter" + (have.size() == 1 ? "" : "s")
                        + "; as argument " + (i + 1) + " of " + pkg.name + " it must have " + want.size()
                        + " (" + sourceText(proto.params) + ")");
            }
            for (int j = 0; j < want.size(); j++) {
                ParameterContext w = want.get(j);
                ParameterContext h = have.get(j);
                String wantDir = w.direction() == null ? "" : w.direction().getText();
                String haveDir = h.direction() == null ? "" : h.direction().getText();
                String param = "parameter " + (j + 1) + " '" + h.name().getText() + "' of " + what;
                String wantText = w.typeRef().getText();
                String haveText = h.typeRef().getText();
                String var = asPackages.get(wantText);
                boolean packet = wantText.equals("packet_in") || wantText.equals("packet_out");
                if (packet || haveText.equals("packet_in") || haveText.equals("packet_out")) {
                    if (!wantText.equals(haveText)) {
                        throw error(h.typeRef(), param + " is a " + haveText + "; " + pkg.name
                                + " wants " + (var != null ? "its " + var + " type" : "a " + wantText) + " there");
                    }
                }
                // A block may take as in what the architecture passes inout: it only reads it (p4c's own
                // samples declare verify-checksum controls so, and p4c accepts them).
                if (!wantDir.equals(haveDir) && !(wantDir.equals("inout") && haveDir.equals("in"))) {
                    throw error(h, param + (haveDir.isEmpty() ? " has no direction" : " is " + haveDir)
                            + "; " + pkg.name + " wants " + (wantDir.isEmpty() ? "no direction" : wantDir) + " there");
                }
                if (packet) {
                    continue;
                }
                Type t = type(h.typeRef(), global);
                if (var != null) {
                    Type earlier = bound.putIfAbsent(var, t);
                    if (earlier != null && !earlier.equals(t)) {
                        throw error(h.typeRef(), param + " has type " + t + "; " + pkg.name + "'s " + var
                                + " is " + earlier + " (from the parser)");
                    }
                } else {
                    Type wanted = type(w.typeRef(), global);
                    if (!wanted.equals(t)) {
                        throw error(h.typeRef(), param + " has type " + t + "; " + pkg.name + " wants " + wanted + " there");
                    }
                }
            }
        }
    }

    /**
     * Slots for the parser's struct parameters after packet_in, named by {@code what} (headers,
     * metadata, ...), then for the architecture's metadata struct, which becomes
     * {@link #standardMetadata}; each by its type in {@code byType}, where the blocks find them.
     */
    private Expr.Agg[] packageStorage(List<ParameterContext> pp, Map<Type, Expr> byType, String metadataType,
                                      String... what) {
        Expr.Agg[] parts = new Expr.Agg[what.length];
        for (int i = 0; i < what.length; i++) {
            Type t = parserStruct(pp, i + 1, what[i]);
            parts[i] = (Expr.Agg) storage(t);
            byType.put(t, parts[i]);
        }
        Object metadata = global.lookup(metadataType);
        if (!(metadata instanceof Type.Aggregate)) {
            throw error(pp.get(0), "the architecture's " + metadataType + " is not declared (include its .p4 file)");
        }
        if (standardMetadata == null || !standardMetadata.type.equals(metadata)) {
            standardMetadata = (Expr.Agg) storage((Type) metadata);
        }
        byType.put((Type) metadata, standardMetadata);
        return parts;
    }

    /** The struct type of parameter {@code i} of the parser (headers, metadata, digest). */
    private Type parserStruct(List<ParameterContext> pp, int i, String what) {
        Type t = type(pp.get(i).typeRef(), global);
        if (!(t instanceof Type.Aggregate) || ((Type.Aggregate) t).header) {
            throw error(pp.get(i), "the parser's " + what + " parameter must be a struct, not " + t);
        }
        return t;
    }

    private Program instantiateV1Switch(InstantiationContext main) {
        BlockType[] blocks = packageBlocks(main, "V1Switch", new String[] {"parser", "verify-checksum control",
            "ingress control", "egress control", "compute-checksum control", "deparser control"});
        // H and M come from the parser; every other block must agree.
        List<ParameterContext> pp = blocks[0].params.parameter();
        if (pp.size() != 4) {
            throw error(blocks[0].params, "a v1model parser has 4 parameters (packet_in, out H, inout M, inout standard_metadata_t), not " + pp.size());
        }
        Map<Type, Expr> byType = new HashMap<>();
        Expr.Agg[] parts = packageStorage(pp, byType, "standard_metadata_t", "headers", "metadata");
        Expr.Agg hdr = parts[0];
        Expr.Agg meta = parts[1];

        List<ArgumentContext> args = packageArguments(main, "V1Switch");
        Parser parser = compileParser(blocks[0], byType, args.get(0));
        Stmt[] controls = new Stmt[5];
        for (int i = 1; i < 6; i++) {
            ControlInstance ci = instantiateControl(blocks[i], blocks[i].name, byType, args.get(i),
                    mainArguments(blocks[i], args.get(i)), Map.of());
            controls[i - 1] = ci.body;
        }
        return program(parser, controls[0], controls[1], controls[2], controls[3], controls[4], hdr, meta,
                fieldLists((Type.Aggregate) meta.type, meta));
    }

    /**
     * SimpleSumeSwitch(parser, pipe, deparser): the pipe runs as the ingress, with no checksum
     * blocks and no egress; sume_metadata takes standard_metadata's place.
     */
    private Program instantiateSimpleSumeSwitch(InstantiationContext main) {
        BlockType[] blocks = packageBlocks(main, "SimpleSumeSwitch", new String[] {"parser", "pipe control",
            "deparser control"});
        List<ParameterContext> pp = blocks[0].params.parameter();
        if (pp.size() != 5) {
            throw error(blocks[0].params, "a SimpleSumeSwitch parser has 5 parameters (packet_in, out H, out M, out D, "
                    + "inout sume_metadata_t), not " + pp.size());
        }
        Map<Type, Expr> byType = new HashMap<>();
        Expr.Agg[] parts = packageStorage(pp, byType, "sume_metadata_t", "headers", "metadata", "digest");
        Expr.Agg hdr = parts[0];
        Expr.Agg meta = parts[1];

        List<ArgumentContext> args = packageArguments(main, "SimpleSumeSwitch");
        Parser parser = compileParser(blocks[0], byType, args.get(0));
        Stmt pipe = instantiateControl(blocks[1], blocks[1].name, byType, args.get(1), mainArguments(blocks[1], args.get(1)),
                Map.of()).body;
        Stmt deparser = instantiateControl(blocks[2], blocks[2].name, byType, args.get(2),
                mainArguments(blocks[2], args.get(2)), Map.of()).body;
        return program(parser, Stmt.EMPTY, pipe, Stmt.EMPTY, Stmt.EMPTY, deparser, hdr, meta, Map.of());
    }

    private Program program(Parser parser, Stmt verify, Stmt ingress, Stmt egress, Stmt compute, Stmt deparser,
                            Expr.Agg hdr, Expr.Agg meta, Map<Integer, List<Expr>> fieldLists) {
        tables.removeIf(t -> !appliedTables.contains(t));
        List<Action> used = new ArrayList<>();
        List<Action> listed = new ArrayList<>();
        // @hidden (P4_16 18.3): no control-plane name, so not in P4Info
        tables.stream().filter(t -> !t.annotations.containsKey("hidden")).forEach(t -> t.actions.forEach(r -> listed.add(r.action)));
        calledActions.stream().filter(a -> !a.annotations.containsKey("hidden")).forEach(listed::add);
        for (Action a : listed) {
            if (!used.contains(a)) {
                used.add(a);
                claim("action", a.name, a.annotations, actionDeclarations.get(a));
            }
        }
        if (wideWidths.size() != wideSlots) {
            throw new IllegalStateException("wide slots " + wideSlots + " but " + wideWidths.size() + " widths");
        }
        Program program = new Program(architecture, mainFile, narrowSlots, wideWidths.stream().mapToInt(Integer::intValue).toArray(),
                parser, verify, ingress, egress, compute, deparser, tables, used, counters, registers, meters, valueSets,
                new ArrayList<>(digests.values()), controllerHeaders, errorType.members, hdr, meta, standardMetadata, fieldLists,
                objectAnnotations);
        program.warnings.addAll(warnings);
        return program;
    }

    private Map<Integer, List<Expr>> fieldLists(Type.Aggregate meta, Expr.Agg at) {
        Map<Integer, List<Expr>> out = new HashMap<>();
        int[] base = at.fixedBase();
        for (Type.Field f : meta.fields.values()) {
            List<String> lists = f.annotations.get("field_list");
            if (lists == null) {
                continue;
            }
            for (String l : lists) {
                out.computeIfAbsent(Integer.parseInt(l), k -> new ArrayList<>()).add(field(at, base, f));
            }
        }
        return out;
    }

    /** header_union U { h1_t a; h2_t b; }: its fields are headers, of distinct names. */
    private void headerUnion(HeaderUnionDeclarationContext d, Scope sc) {
        refuseGeneric(d.typeParameters(), "header union");
        Type.Aggregate t = new Type.Aggregate(d.name().getText(), false, true, annotations(d.annotations()));
        define(sc, d.name(), t);
        for (StructFieldContext f : d.structField()) {
            Type ft = type(f.typeRef(), sc);
            if (!(ft instanceof Type.Aggregate) || !((Type.Aggregate) ft).header) {
                throw error(f.typeRef(), "header_union field '" + f.name().getText() + "' must be a header, not " + ft);
            }
            if (t.fields.containsKey(f.name().getText())) {
                throw error(f.name(), "field '" + f.name().getText() + "' is declared twice in " + t);
            }
            t.addField(f.name().getText(), ft, annotations(f.annotations()));
        }
    }

    /**
     * extract(u.next.m), with or without a varbit length, into a member of a stack of header
     * unions: the element at nextIndex takes the member, nextIndex moves on, and the element's
     * other members become invalid, named through u.last, which is that element once nextIndex
     * has moved. Null for any other argument.
     */
    private Stmt extractIntoUnionStackNext(ExpressionContext arg, Function<PacketIo.Stack, Stmt> extract,
                                           Scope sc) {
        if (!(arg instanceof MemberExpressionContext)
                || !(((MemberExpressionContext) arg).expression() instanceof MemberExpressionContext)) {
            return null;
        }
        MemberExpressionContext m = (MemberExpressionContext) arg;
        MemberExpressionContext next = (MemberExpressionContext) m.expression();
        if (!next.name().getText().equals("next")) {
            return null;
        }
        Expr stackExpr = expr(next.expression(), sc, null);
        if (!(stackExpr.type instanceof Type.Stack) || !((Type.Stack) stackExpr.type).element.union) {
            return null;
        }
        Expr.Agg stack = (Expr.Agg) stackExpr;
        Type.Aggregate union = ((Type.Stack) stack.type).element;
        StackElement last = new StackElement(stack, null, StackElement.Mode.LAST, (Expr.Agg) storage(union));
        Type.Field written = union.fields.get(m.name().getText());
        List<Expr.Agg> others = new ArrayList<>();
        for (Type.Field f : union.fields.values()) {
            if (f != written) {
                others.add((Expr.Agg) field(last, null, f));
            }
        }
        return new Stmt.Block(List.of(extract.apply(new PacketIo.Stack(stack)), new UnionMemberWritten(others)));
    }

    /** Lookaheads elaborated so far: a select whose keys hold one must reject when it fails. */
    private int lookaheads;

    /** The other members of the header union a member was reached from (u.a gives [u.b, ...]); null otherwise. */
    private final Map<Expr, List<Expr.Agg>> unionSiblings = new java.util.IdentityHashMap<>();

    /** After st writes header h: when h is a union member and now valid, the other members become invalid. */
    private Stmt unionWrite(Expr h, Stmt st) {
        List<Expr.Agg> siblings = unionSiblings.get(h);
        return siblings == null ? st : new Stmt.Block(List.of(st, new UnionMemberWritten(siblings)));
    }

    /**
     * P4_16 8.20: a member of a header union made valid (setValid, extract, an assignment of a
     * valid header) makes the others invalid; one made invalid (setInvalid, an assignment of an
     * invalid header) makes the whole union invalid. Either way the others end invalid.
     */
    private static final class UnionMemberWritten extends Stmt {
        private final Expr.Agg[] others;

        UnionMemberWritten(List<Expr.Agg> others) {
            this.others = others.toArray(new Expr.Agg[0]);
        }

        @Override public int exec(State s) {
            for (Expr.Agg o : others) {
                s.n[o.narrowBase(s)] = 0;
            }
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            for (Expr.Agg o : others) {
                w.line(w.nAt(o.cNarrowBase(w)) + " = 0;");
            }
        }
    }

    /** u.isValid(): whether any member of the union is valid. */
    private static final class UnionIsValid extends Expr {
        private final Expr.Agg[] members;

        UnionIsValid(List<Expr.Agg> members) {
            super(Type.BOOL);
            this.members = members.toArray(new Expr.Agg[0]);
        }

        @Override public long eval(State s) {
            for (Expr.Agg m : members) {
                if (s.n[m.narrowBase(s)] != 0) {
                    return 1;
                }
            }
            return 0;
        }

        @Override public String c(CodeWriter w) {
            StringBuilder sb = new StringBuilder("(0");
            for (Expr.Agg m : members) {
                sb.append(" || ").append(w.nAt(m.cNarrowBase(w)));
            }
            return sb.append(")").toString();
        }
    }

    private List<Expr.Agg> unionMembers(Expr.Agg union) {
        List<Expr.Agg> out = new ArrayList<>();
        for (Type.Field f : ((Type.Aggregate) union.type).fields.values()) {
            out.add((Expr.Agg) field(union, union.fixedBase(), f));
        }
        return out;
    }

    private Expr field(Expr.Agg agg, int[] base, Type.Field f) {
        if (base != null) {
            if (f.type instanceof Type.Aggregate || f.type instanceof Type.Stack) {
                return new Expr.FixedAgg(f.type, base[0] + f.narrowOffset, base[1] + f.wideOffset);
            }
            if (f.type instanceof Type.Bits && ((Type.Bits) f.type).wide()) {
                return new Expr.WideSlot(f.type, base[1] + f.wideOffset, widthOf(f.type));
            }
            return new Expr.Slot(f.type, base[0] + f.narrowOffset, widthOf(f.type));
        }
        if (f.type instanceof Type.Aggregate || f.type instanceof Type.Stack) {
            return new OffsetAgg(f.type, agg, f.narrowOffset, f.wideOffset);
        }
        boolean wide = f.type instanceof Type.Bits && ((Type.Bits) f.type).wide();
        return new Expr.DynField(f.type, agg, wide ? f.wideOffset : f.narrowOffset, wide, widthOf(f.type));
    }

    /**
     * Where a parameter of a control, function or action lives while it runs: an inout header,
     * struct or stack is the argument itself (see AggRef); anything else has slots of its own,
     * copied in and out.
     */
    private Expr parameterStorage(String direction, Type t) {
        if ("inout".equals(direction) && (t instanceof Type.Aggregate || t instanceof Type.Stack)) {
            return new AggRef(t, narrowSlots++, narrowSlots++);
        }
        return storage(t);
    }

    /** Binds a block's parameters: to the architecture's storage (top level), or as parameterStorage says. */
    private List<Expr> bindParams(BlockType bt, Scope sc, Map<Type, Expr> byType, List<Param> params,
                                  Map<String, ExternInstance> externs) {
        List<Expr> slots = new ArrayList<>();
        for (ParameterContext p : bt.params.parameter()) {
            String pname = p.name().getText();
            String dir = p.direction() == null ? "" : p.direction().getText();
            String tname = p.typeRef().getText();
            if (tname.equals("packet_in") || tname.equals("packet_out")) {
                sc.symbols.put(pname, new PacketParam(tname.equals("packet_in")));
                slots.add(null);
                params.add(new Param(pname, dir, new Type.Declared("extern", tname)));
                continue;
            }
            Type t = type(p.typeRef(), sc);
            if (p.direction() == null && t instanceof ExternType) {
                // passed by reference (P4_16 6.8): the body names the instance its applies give
                ExternInstance given = externs.get(pname);
                if (given == null) {
                    throw error(p, bt.name + "'s parameter '" + pname + "' takes a " + ((ExternType) t).name
                            + " instance, which only a control or parser that applies " + bt.name + " can give");
                }
                sc.symbols.put(pname, given);
                slots.add(null);
                params.add(new Param(pname, dir, t));
                continue;
            }
            requireStorable(t, p, bt.name + "'s parameter '" + pname + "'");
            Expr slot = byType != null ? byType.get(t)
                    : bt.decl instanceof ControlDeclarationContext ? parameterStorage(dir, t) : storage(t);
            if (slot == null) {
                throw error(p, bt.name + "'s parameter '" + pname + "' has type " + t
                        + ", which does not match the parser's headers or metadata struct");
            }
            slots.add(slot);
            params.add(new Param(pname, dir, t, defaultOf(p, dir)));
            sc.symbols.put(pname, new Var(pname, slot, "in".equals(dir)));
        }
        return slots;
    }

    private ControlInstance instantiateControl(BlockType bt, String name, Map<Type, Expr> byType, ParserRuleContext at) {
        return instantiateControl(bt, name, byType, at, Map.of(), Map.of());
    }

    /**
     * The values an instantiation gives a control's or parser's constructor parameters (P4_16 14.1):
     * compile-time bit<W>, int<W>, bool, enum or error values, by position or by name, a parameter's
     * default where none is given. They are constants in the instance. A control's parameter of a
     * control type takes an instance declared before it ({@code C1() c1; C2(c1) c2;}), which every
     * control it is given to applies: one instance, one set of tables and counters.
     */
    private Map<String, Object> constructorArguments(BlockType bt, ParameterListContext declared, List<ArgumentContext> args,
                                                   Scope sc, ParserRuleContext at) {
        List<ParameterContext> params = declared == null ? List.of() : declared.parameter();
        if (args.size() > params.size()) {
            throw error(at, bt.kind + " '" + bt.name + "' takes " + params.size() + " constructor argument"
                    + (params.size() == 1 ? "" : "s") + ", " + args.size() + " given");
        }
        Map<String, ExpressionContext> given = new HashMap<>();
        for (int i = 0; i < args.size(); i++) {
            ArgumentContext a = args.get(i);
            if (a.DONTCARE() != null) {
                throw error(a, "'_' cannot be a constructor argument: it needs a value");
            }
            String n = a.name() != null ? a.name().getText() : params.get(i).name().getText();
            if (params.stream().noneMatch(p -> p.name().getText().equals(n))) {
                throw error(a, bt.kind + " '" + bt.name + "' has no constructor parameter '" + n + "'");
            }
            if (given.put(n, a.expression()) != null) {
                throw error(a, "constructor parameter '" + n + "' is given twice");
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        Scope types = typeScope(bt);
        for (ParameterContext p : params) {
            String n = p.name().getText();
            Type t = type(p.typeRef(), types);
            if (p.direction() == null && t instanceof BlockType && "control type".equals(((BlockType) t).kind)
                    && "control".equals(bt.kind)) {
                out.put(n, controlArgument((BlockType) t, n, given.get(n), sc, at));
                continue;
            }
            if (p.direction() == null && t instanceof ExternType) {
                out.put(n, externArgument((ExternType) t, p.typeRef(), "constructor parameter '" + n + "'", given.get(n), sc, at));
                continue;
            }
            if (p.direction() != null || !t.isScalar()) {
                throw error(p, "softswitch's constructor parameters are compile-time values without a direction"
                        + " (bit<W>, int<W>, bool, an enum or error), extern instances or, for a control, control instances, not "
                        + (p.direction() != null ? p.direction().getText() + " " : "") + t);
            }
            ExpressionContext e = given.containsKey(n) ? given.get(n) : p.expression();
            if (e == null) {
                throw error(at, bt.kind + " '" + bt.name + "' needs a value for its constructor parameter '" + n + "'");
            }
            Expr v = coerce(expr(e, given.containsKey(n) ? sc : types, t), t, e);
            if (!(v instanceof Expr.Const)) {
                throw error(e, "constructor argument '" + n + "' must be known at compile time, not '" + e.getText() + "'");
            }
            out.put(n, v);
        }
        return out;
    }

    /** The control instance given for a constructor parameter of control type {@code type}: its apply must take the same parameters. */
    private Object controlArgument(BlockType type, String param, ExpressionContext given, Scope sc, ParserRuleContext at) {
        if (given == null) {
            throw error(at, "constructor parameter '" + param + "' needs a control instance of type " + type.name);
        }
        Object o = given instanceof NameExpressionContext ? sc.lookup(given.getText()) : null;
        boolean pending = o instanceof PendingInstance && "control".equals(((PendingInstance) o).type.kind);
        if (!(o instanceof ControlInstance) && !pending) {
            throw error(given, "constructor parameter '" + param + "' takes a control instance declared before it"
                    + " (as in C() c; ... (c)), not '" + given.getText() + "'");
        }
        List<Param> have = pending ? params(((PendingInstance) o).type.params, typeScope(((PendingInstance) o).type), List.of())
                : ((ControlInstance) o).params;
        List<Param> wanted = params(type.params, global, List.of());
        boolean same = wanted.size() == have.size();
        for (int i = 0; same && i < wanted.size(); i++) {
            Param a = wanted.get(i);
            Param b = have.get(i);
            same = java.util.Objects.equals(a.direction, b.direction) && a.type.equals(b.type);
        }
        if (!same) {
            throw error(given, "'" + given.getText() + "' is not a " + type.name + ": its apply takes other parameters");
        }
        return o;
    }

    /**
     * The extern instance given for a control's constructor parameter of extern type (P4_16 8.24:
     * passed by reference): one declared before it, of that type and the type arguments the
     * parameter names; every control it is given to uses that one instance.
     */
    private ExternInstance externArgument(ExternType type, TypeRefContext declared, String param, ExpressionContext given,
                                          Scope sc, ParserRuleContext at) {
        if (given == null) {
            throw error(at, param + " needs a " + type.name + " instance");
        }
        Object o = given instanceof NameExpressionContext ? sc.lookup(given.getText()) : null;
        if (!(o instanceof ExternInstance) || ((ExternInstance) o).type != type) {
            throw error(given, param + " takes a " + type.name + " instance declared before it"
                    + " (as in " + type.name + "<...>(...) x; ... (x)), not '" + given.getText() + "'");
        }
        ExternInstance instance = (ExternInstance) o;
        List<Type> wanted = externTypeArgs(declared, global);
        if (!wanted.isEmpty() && !wanted.equals(instance.typeArgs)) {
            throw error(given, param + " takes a " + declared.getText() + ", not '"
                    + given.getText() + "', a " + type.name + "<" + instance.typeArgs.stream().map(Type::toString)
                    .collect(java.util.stream.Collectors.joining(", ")) + ">");
        }
        return instance;
    }

    /** A control or parser instantiated without arguments (main's blocks, direct invocation) has no constructor parameters. */
    private void requireConstructorArguments(BlockType bt, ParameterListContext declared, Map<String, Object> ctor,
                                             ParserRuleContext at) {
        int wanted = declared == null ? 0 : declared.parameter().size();
        if (wanted != ctor.size()) {
            throw error(at, bt.kind + " '" + bt.name + "' has constructor parameters: instantiate it with their values, as in "
                    + bt.name + "(...) name; or in main's package, as in " + bt.name + "(...) (a direct apply gives none)");
        }
    }

    /** {@code ctor}: the values of the control's constructor parameters, by name (see constructorArguments). */
    private ControlInstance instantiateControl(BlockType bt, String name, Map<Type, Expr> byType, ParserRuleContext at,
                                               Map<String, Object> ctor, Map<String, ExternInstance> externs) {
        if (bt.decl == null || !(bt.decl instanceof ControlDeclarationContext)) {
            throw error(at, "'" + bt.name + "' is not a control");
        }
        ControlDeclarationContext d = (ControlDeclarationContext) bt.decl;
        if (inProgress.contains(bt.declared)) {
            throw error(at, "control '" + bt.name + "' instantiates itself: P4 has no recursion");
        }
        requireConstructorArguments(bt, d.parameterList(), ctor, at);
        instantiated.add(bt.name);
        Scope sc = typeScope(bt);
        ctor.forEach((n, v) -> sc.symbols.put(n, v instanceof Expr ? new Var(n, (Expr) v, true) : v));
        List<Param> params = new ArrayList<>();
        List<Expr> slots = bindParams(bt, sc, byType, params, externs);
        ControlInstance ci = new ControlInstance(name, params, slots);
        Where outer = enter(Where.CONTROL, bt.declared);
        declaredAt.push(bt.decl.getStart().getTokenIndex());
        List<Stmt> initialisers = new ArrayList<>();
        for (ControlLocalDeclarationContext l : d.controlLocalDeclaration()) {
            at(l);
            if (l.constantDeclaration() != null) {
                constant(l.constantDeclaration(), sc);
            } else if (l.actionDeclaration() != null) {
                action(l.actionDeclaration(), sc, name);
            } else if (l.tableDeclaration() != null) {
                table(l.tableDeclaration(), sc, name);
            } else if (l.instantiation() != null) {
                instantiation(l.instantiation(), sc, name);
            } else if (l.variableDeclaration() != null) {
                // an initialiser runs each time the control is applied; without one the value is
                // unspecified (the packet's state starts zeroed)
                int applies = tableApplyExpressions;
                Stmt init = variable(l.variableDeclaration(), sc);
                if (l.variableDeclaration().expression() != null) {
                    initialisers.add(new ExitAware(init, tableApplyExpressions != applies));
                }
            }
        }
        initialisers.add(block(d.blockStatement(), sc, new Context(name, false, null)));
        ci.body = new Stmt.Callable(initialisers.size() == 1 ? initialisers.get(0) : new Stmt.Block(initialisers));
        declaredAt.pop();
        leave(outer, bt.declared);
        return ci;
    }

    // ---- tables ----

    private void table(TableDeclarationContext d, Scope sc, String prefix) {
        Map<String, List<String>> an = annotations(d.annotations());
        String qname = qualified(prefix, d.name().getText(), an);
        List<Table.KeyField> keys = new ArrayList<>();
        List<Table.ActionRef> refs = new ArrayList<>();
        Map<Action, List<String>> bindings = new HashMap<>();
        Table.ActionCall defaultAction = null;
        boolean constDefault = false;
        boolean constEntries = false;
        EntriesPropertyContext entries = null;
        int size = 1024;
        boolean sizeGiven = false;
        boolean timeout = false;
        String directCounter = null;
        int directCounterUnit = 0;
        String directMeter = null;
        int directMeterUnit = 0;
        long priorityDelta = 1;
        boolean largestPriorityWins = true;
        ProfileDecl implementation = null;
        ParserRuleContext implementationAt = null;
        List<Expr> selectorFields = new ArrayList<>();
        Map<String, TablePropertyContext> given = new HashMap<>();
        if (d.tableProperty().stream().noneMatch(p -> p instanceof ActionsPropertyContext)) {
            throw error(d.name(), "table '" + d.name().getText() + "' has no actions property: every table lists the"
                    + " actions it may run (P4_16 14.2.1.2)");
        }
        for (TablePropertyContext p : d.tableProperty()) {
            String propName = p instanceof KeyPropertyContext ? "key" : p instanceof ActionsPropertyContext ? "actions"
                    : p instanceof EntriesPropertyContext ? "entries" : ((SimplePropertyContext) p).name().getText();
            TablePropertyContext earlier = given.putIfAbsent(propName, p);
            if (earlier != null) {
                throw error(p, "table '" + d.name().getText() + "' has a second '" + propName + "' property (the first on line "
                        + source.lineOf(earlier.getStart().getLine()) + ")");
            }
            if (p instanceof KeyPropertyContext) {
                for (KeyElementContext k : ((KeyPropertyContext) p).keyElement()) {
                    if (k.name().getText().equals("selector") && matchKindType.members.contains("selector")) {
                        selectorFields.add(selectorField(k, sc));
                    } else {
                        Table.KeyField f = keyField(k, sc, keys.size() + selectorFields.size() + 1);
                        if (keys.stream().anyMatch(x -> x.name.equals(f.name))) {
                            throw error(k, "table '" + d.name().getText() + "' has two key fields named '" + f.name
                                    + "': P4Runtime names each match field (give one a @name)");
                        }
                        keys.add(f);
                    }
                }
            } else if (p instanceof ActionsPropertyContext) {
                for (ActionRefContext r : ((ActionsPropertyContext) p).actionRef()) {
                    ActionSym a = actionSym(r.name(), sc);
                    if (refs.stream().anyMatch(x -> x.action == a.action)) {
                        throw error(r.name(), "action '" + r.name().getText() + "' is listed twice in the actions of table '"
                                + d.name().getText() + "'");
                    }
                    Map<String, List<String>> ran = annotations(r.annotations());
                    int applies = tableApplyExpressions;
                    Stmt bound = boundArguments(a, r, sc, bindings);
                    if (tableApplyExpressions != applies) {
                        // P4_16 Appendix F: a table is applied from a control's apply block only
                        throw error(r, "a table is applied in a control's apply block, not in another table's actions");
                    }
                    refs.add(new Table.ActionRef(a.action, ran.containsKey("tableonly"), ran.containsKey("defaultonly"), ran, bound));
                }
            } else if (p instanceof EntriesPropertyContext) {
                entries = (EntriesPropertyContext) p;
                constEntries = entries.CONST() != null;
            } else {
                SimplePropertyContext s = (SimplePropertyContext) p;
                String prop = s.name().getText();
                switch (prop) {
                    case "default_action":
                        if (d.tableProperty().subList(d.tableProperty().indexOf(p), d.tableProperty().size()).stream()
                                .anyMatch(x -> x instanceof ActionsPropertyContext)) {
                            throw error(s.name(), "default_action comes before the actions property of table '"
                                    + d.name().getText() + "': write the actions first");
                        }
                        defaultAction = actionCall(s.expression(), sc, refs, bindings, qname);
                        constDefault = s.CONST() != null;
                        for (Table.ActionRef r : refs) {
                            if (r.action == defaultAction.action && r.tableOnly) {
                                throw error(s.expression(), "action '" + r.action.name + "' is @tableonly in table '"
                                        + d.name().getText() + "': it cannot be its default action");
                            }
                        }
                        break;
                    case "size":
                        sizeGiven = true;
                        Type sizeType = expr(s.expression(), sc, null).type;
                        if (sizeType != Type.INT_LITERAL && !(sizeType instanceof Type.Bits)) {
                            throw error(s.expression(), "table size must be an integer, not " + sizeType + " (P4_16 14.2.1.5)");
                        }
                        BigInteger v = constantValue(s.expression(), sc, null);
                        if (v.signum() <= 0 || v.bitLength() > 31) {
                            throw error(s.expression(), "table size must be a positive constant");
                        }
                        size = v.intValue();
                        break;
                    case "support_timeout":
                        timeout = constantValue(s.expression(), sc, Type.BOOL).signum() != 0;
                        break;
                    case "largest_priority_wins":
                        largestPriorityWins = constantValue(s.expression(), sc, Type.BOOL).signum() != 0;
                        break;
                    case "priority_delta": {
                        BigInteger delta = constantValue(s.expression(), sc, null);
                        if (delta.signum() <= 0 || delta.bitLength() > 31) {
                            throw error(s.expression(), "priority_delta must be a positive integer that fits 31 bits");
                        }
                        priorityDelta = delta.longValue();
                        break;
                    }
                    case "counters": {
                        DirectDecl dc = inlineDirectCounter(s.expression(), sc, qname);
                        if (dc == null) {
                            dc = directProperty(s.expression(), DIRECT_COUNTER, sc);
                        }
                        attach(dc, qname, s.expression());
                        directCounter = dc.name;
                        directCounterUnit = dc.unit;
                        break;
                    }
                    case "meters": {
                        DirectDecl dm = directProperty(s.expression(), DIRECT_METER, sc);
                        attach(dm, qname, s.expression());
                        directMeter = dm.name;
                        directMeterUnit = dm.unit;
                        break;
                    }
                    case "implementation":
                        implementation = implementation(s.expression(), sc, prefix, qname, annotations(s.annotations()));
                        implementationAt = s.expression();
                        break;
                    default:
                        throw error(s.name(), "table property '" + prop + "' is not supported by softswitch "
                                + "(supported: key, actions, default_action, entries, size, support_timeout, counters, meters, "
                                + "implementation, largest_priority_wins, priority_delta)");
                }
            }
        }
        numberMatchFields(keys, d);
        if (architecture == Program.Architecture.SUME) {
            sumeTableLimits(d, keys, sizeGiven, timeout);
            timeout = agedBySlots(d, refs);
        }
        if (defaultAction == null) {
            Object na = global.lookup("NoAction");
            if (!(na instanceof ActionSym)) {
                throw error(d.name(), "table '" + d.name().getText() + "' needs a default_action (NoAction is not declared)");
            }
            defaultAction = new Table.ActionCall(((ActionSym) na).action, new BigInteger[0]);
            boolean listed = false;
            for (Table.ActionRef r : refs) {
                listed |= r.action == defaultAction.action;
            }
            if (!listed) {
                refs.add(new Table.ActionRef(defaultAction.action, false, true, Map.of("defaultonly", List.of())));
            }
        }
        Table t = new Table(qname, an, keys, refs, size, timeout, constEntries, entries != null && !entries.entry().isEmpty(), constDefault, directCounter,
                directCounterUnit, directMeter, directMeterUnit, defaultAction);
        indirect(t, d, implementation, implementationAt, selectorFields, entries);
        if (entries != null) {
            for (EntryContext e : constEntries ? entries.entry() : List.<EntryContext>of()) {
                if (entryPriority(e, sc) != null) {
                    throw error(e, "the entries of 'const entries' take no priorities (P4_16 14.2.1.4: their order is their"
                            + " priority); give priorities in 'entries', whose entries may each be const");
                }
            }
            int[] priorities = EntryPriorities.of(entries.entry(), priorityDelta, largestPriorityWins, e -> entryPriority(e, sc),
                    this::error);
            for (int i = 0; i < priorities.length; i++) {
                EntryContext e = entries.entry(i);
                Table.ActionCall call = actionCallFromRef(e.actionRef(), sc, refs, bindings, qname);
                for (Table.ActionRef r : refs) {
                    if (r.action == call.action && r.defaultOnly) {
                        throw error(e.actionRef(), "action '" + r.action.name + "' is @defaultonly in table '"
                                + d.name().getText() + "': no entry may use it");
                    }
                }
                Table.Entry entry = new Table.Entry(entryMatch(e.keysetExpression(), keys, sc),
                        t.needsPriority() ? priorities[i] : 0, call, 0);
                if (t.find(entry) != null) {
                    throw error(e, "this entry has the match" + (t.needsPriority() ? " and priority" : "") + " of an earlier entry");
                }
                entry.constant = e.CONST() != null;   // redundant under 'const entries' (P4_16 14.2.1.4)
                t.insert(entry);
            }
        }
        claim("table", qname, an, d.name().getStart());
        tables.add(t);
        define(sc, d.name(), new TableSym(t));
    }

    /**
     * Makes a table with an implementation property indirect. Selector key fields are the hash's
     * input, not part of the match (P4Runtime leaves them out of the table's match fields).
     */
    private void indirect(Table t, TableDeclarationContext d, ProfileDecl impl, ParserRuleContext at, List<Expr> selectorFields,
                          EntriesPropertyContext entries) {
        String name = "table '" + d.name().getText() + "'";
        if (impl == null) {
            if (!selectorFields.isEmpty()) {
                throw error(d.name(), name + " has selector key fields but no action_selector implementation");
            }
            return;
        }
        if (impl.algorithm == null && !selectorFields.isEmpty()) {
            throw error(at, name + " has selector key fields: its implementation must be an action_selector, not an action_profile");
        }
        if (impl.algorithm != null && selectorFields.isEmpty()) {
            throw error(at, name + " uses an action_selector: it needs at least one key field with match_kind selector "
                    + "(the fields the selector hashes)");
        }
        if (entries != null) {
            throw error(entries, name + " has an action profile: its entries come from the control plane (no 'entries' property)");
        }
        t.implementation(impl.profile, impl.algorithm == null ? null
                : new Externs.SelectorHash(impl.algorithm, new Externs.Data(selectorFields), impl.outputWidth, random));
    }

    /** A key field of match_kind selector: a value the action selector hashes. */
    private Expr selectorField(KeyElementContext k, Scope sc) {
        Expr e = expr(k.expression(), sc, null);
        if (!(e.type instanceof Type.Bits || e.type == Type.BOOL
                || (e.type instanceof Type.Enum && ((Type.Enum) e.type).underlying != null))) {
            throw error(k.expression(), "a selector key field must be a bit string, bool or serializable enum, not " + e.type);
        }
        return e;
    }

    /** The priority an entry states, by 'priority = N:' or by @priority(N) after its action; null when it states none. */
    private Long entryPriority(EntryContext e, Scope sc) {
        if (e.PRIORITY() != null) {
            if (e.annotations() != null && annotations(e.annotations()).containsKey("priority")) {
                throw error(e.annotations(), "the entry states its priority twice ('priority =' and @priority)");
            }
            BigInteger v = constantValue(e.expression(), sc, null);
            if (v.signum() <= 0 || v.bitLength() > 31) {
                throw error(e.expression(), "an entry priority must be a positive integer that fits 31 bits, not " + v);
            }
            return v.longValue();
        }
        List<String> p = annotations(e.annotations()).get("priority");
        return p == null ? null : Long.parseLong(p.get(0));
    }

    /**
     * What SDNet builds a SimpleSumeSwitch table from: a CAM of a declared depth (so `size` is
     * required), exact keys (a binary CAM), ternary and exact keys (a ternary CAM), or one lpm key
     * with no other field; no idle timeouts (the controller ages what it installed).
     */
    private void sumeTableLimits(TableDeclarationContext d, List<Table.KeyField> keys, boolean sizeGiven, boolean timeout) {
        String name = "table '" + d.name().getText() + "'";
        if (!sizeGiven) {
            throw error(d.name(), name + " needs a size: SDNet builds each SimpleSumeSwitch table as a CAM of a fixed depth");
        }
        if (timeout) {
            throw error(d.name(), name + " has support_timeout: SimpleSumeSwitch tables have no idle timeouts "
                    + "(remove it; the controller ages the entries it installs)");
        }
        long lpm = keys.stream().filter(k -> k.kind == Table.MatchKind.LPM).count();
        if (lpm > 0 && keys.size() > 1) {
            throw error(d.name(), name + " mixes an lpm field with " + (keys.size() - 1) + " other key field(s): "
                    + "a SimpleSumeSwitch lpm table has exactly one key field (use ternary fields for the others)");
        }
    }

    /**
     * Whether a SimpleSumeSwitch table's entries age through slots the target fills: every action
     * an entry can take has an @sume_idle_slot parameter, or none has (the P4Info then gives the
     * table idle timeouts, which the SUME agent emulates).
     */
    private boolean agedBySlots(TableDeclarationContext d, List<Table.ActionRef> refs) {
        long withSlot = refs.stream().filter(r -> !r.defaultOnly && r.action.idleSlot() != null).count();
        long entryActions = refs.stream().filter(r -> !r.defaultOnly).count();
        if (withSlot > 0 && withSlot < entryActions) {
            throw error(d.name(), "table '" + d.name().getText() + "': " + withSlot + " of its " + entryActions
                    + " entry actions have an @" + Action.IDLE_SLOT + " parameter: all or none must (an entry ages by its slot)");
        }
        if (refs.stream().anyMatch(r -> r.defaultOnly && r.action.idleSlot() != null)) {
            throw error(d.name(), "table '" + d.name().getText() + "': a default-only action has an @" + Action.IDLE_SLOT
                    + " parameter, but a default entry does not age");
        }
        return withSlot > 0;
    }

    /**
     * Match field IDs as p4c gives them: a key element's @id first; each other element its
     * position, or the next number after it that no element has. Two equal @ids are an error.
     */
    private void numberMatchFields(List<Table.KeyField> keys, TableDeclarationContext d) {
        Set<Integer> taken = new HashSet<>();
        for (Table.KeyField k : keys) {
            if (k.annotations.containsKey("id") && !taken.add(k.id)) {
                throw error(d.name(), "two key elements of table '" + d.name().getText() + "' have @id(" + k.id + ")");
            }
        }
        for (int i = 0; i < keys.size(); i++) {
            Table.KeyField k = keys.get(i);
            if (k.annotations.containsKey("id")) {
                continue;
            }
            int id = k.id;
            while (!taken.add(id)) {
                id++;
            }
            if (id != k.id) {
                keys.set(i, new Table.KeyField(id, k.name, k.kind, k.width, k.expr, k.annotations));
            }
        }
    }

    private Table.KeyField keyField(KeyElementContext k, Scope sc, int id) {
        int applies = tableApplyExpressions;
        Expr e = expr(k.expression(), sc, null);
        if (tableApplyExpressions != applies) {
            throw error(k.expression(), "softswitch applies no table in another table's key (apply it before, into a variable)");
        }
        if (!(e.type instanceof Type.Bits || e.type == Type.BOOL
                || (e.type instanceof Type.Enum && ((Type.Enum) e.type).underlying != null) || e.type == errorType)) {
            throw error(k.expression(), "a table key must be a bit string, bool or serializable enum, not " + e.type);
        }
        String kind = k.name().getText();
        if (!matchKindType.members.contains(kind)) {
            throw error(k.name(), "'" + kind + "' is not a match_kind (declared: " + String.join(", ", matchKindType.members) + ")");
        }
        Table.MatchKind mk;
        switch (kind) {
            case "exact": mk = Table.MatchKind.EXACT; break;
            case "lpm": mk = Table.MatchKind.LPM; break;
            case "ternary": mk = Table.MatchKind.TERNARY; break;
            case "range": mk = Table.MatchKind.RANGE; break;
            case "optional": mk = Table.MatchKind.OPTIONAL; break;
            default: throw error(k.name(), "match_kind '" + kind + "' is not supported by softswitch");
        }
        Map<String, List<String>> an = annotations(k.annotations());
        // p4c names a validity key h.$valid$ (a name P4Runtime clients written for it look up)
        String name = an.containsKey("name") ? an.get("name").get(0) : k.expression().getText().replaceAll("\\.isValid\\(\\)$", ".\\$valid\\$");
        if (an.containsKey("id")) {   // P4Info: a key element's @id is its match field ID (else its position)
            String given = an.get("id").isEmpty() ? "" : an.get("id").get(0);
            try {
                long v = Long.decode(given);
                if (v < 1 || v > 0xFFFFFFFFL) {
                    throw new NumberFormatException();
                }
                id = (int) v;
            } catch (NumberFormatException notAnId) {
                throw error(k, "@id of a key element must be a number from 1 to 2^32 - 1, not '" + given + "'");
            }
        }
        if (isZeroWidth(e.type)) {
            throw error(k, "key field '" + name + "' is a bit<0>, which holds only 0: leave it out of the key");
        }
        return new Table.KeyField(id, name, mk, Math.max(widthOf(e.type), e.type == errorType ? 8 : 1), e, an);
    }

    private ActionSym actionSym(NameContext n, Scope sc) {
        boolean top = n.getParent() instanceof ActionRefContext && ((ActionRefContext) n.getParent()).top != null
                || n.getParent() instanceof TopNameExpressionContext;   // .a: the top-level a (P4_16 6.9)
        Object o = (top ? global : sc).lookup(n.getText());
        if (!(o instanceof ActionSym)) {
            throw error(n, "'" + n.getText() + "' is not an action" + (o == null ? " (it is not declared)" : ""));
        }
        return (ActionSym) o;
    }

    /**
     * The directional arguments an actions list gives an action (P4_16 14.2.1.2: all of them, and
     * only them; the control plane gives the others): their copy-in, the body and their copy-out, or
     * null for an action without directional parameters. Their text goes into bindings.
     */
    private Stmt boundArguments(ActionSym a, ActionRefContext r, Scope sc, Map<Action, List<String>> bindings) {
        List<ArgumentContext> args = r.argumentList() == null ? List.of() : r.argumentList().argument();
        String name = r.name().getText();
        if (a.directional.isEmpty()) {
            if (!args.isEmpty()) {
                throw error(r.argumentList(), "action '" + name + "' has no directional parameters to bind here: its "
                        + "parameters come from the control plane (list it as '" + name + ";')");
            }
            return null;
        }
        if (args.size() != a.directional.size()) {
            throw error(r.argumentList() == null ? r : r.argumentList(), "action '" + name + "' has " + a.directional.size()
                    + " directional parameter(s): the actions list binds them all, and only them, as in " + name + "("
                    + a.directional.get(0).name + (a.directional.size() > 1 ? ", ..." : "") + ")");
        }
        List<String> texts = new ArrayList<>();
        for (ArgumentContext arg : args) {
            texts.add(arg.getText());
        }
        bindings.put(a.action, texts);
        List<Stmt> prelude = new ArrayList<>();
        List<Expr> values = arguments("action '" + name + "'", a.directional, r.argumentList(), sc, new HashMap<>(), r, prelude);
        return copyInOut(prelude, a.directional, a.directionalSlots, values, aliased(a.directional, r.argumentList()),
                new ActionBody(a.action));
    }

    private Table.ActionCall actionCall(ExpressionContext e, Scope sc, List<Table.ActionRef> refs,
                                        Map<Action, List<String>> bindings, String table) {
        ExpressionContext callee = e;
        ArgumentListContext args = null;
        if (e instanceof CallExpressionContext) {
            callee = ((CallExpressionContext) e).expression();
            args = ((CallExpressionContext) e).argumentList();
        }
        NameContext name = callee instanceof NameExpressionContext ? ((NameExpressionContext) callee).name()
                : callee instanceof TopNameExpressionContext ? ((TopNameExpressionContext) callee).name() : null;
        if (name == null) {
            throw error(e, "default_action must be an action call, as in default_action = drop();");
        }
        return boundCall(name, args, sc, refs, bindings, table, e);
    }

    private Table.ActionCall actionCallFromRef(ActionRefContext r, Scope sc, List<Table.ActionRef> refs,
                                               Map<Action, List<String>> bindings, String table) {
        return boundCall(r.name(), r.argumentList(), sc, refs, bindings, table, r);
    }

    /**
     * A default action or entry: its control-plane arguments as constants, after the directional
     * ones, which must be written as in the actions list (P4_16 14.2.1.3).
     */
    private Table.ActionCall boundCall(NameContext name, ArgumentListContext args, Scope sc, List<Table.ActionRef> refs,
                                       Map<Action, List<String>> bindings, String table, ParserRuleContext at) {
        ActionSym a = actionSym(name, sc);
        boolean listed = false;
        for (Table.ActionRef r : refs) {
            listed |= r.action == a.action;
        }
        if (!listed) {
            throw error(name, "action '" + name.getText() + "' is not in the actions of table '" + table + "'");
        }
        List<String> bound = bindings.getOrDefault(a.action, List.of());
        List<Param> params = new ArrayList<>();
        for (int i = 0; i < bound.size(); i++) {
            params.add(new Param(a.directional.get(i).name, "", a.directional.get(i).type));
        }
        for (Action.Param p : a.action.params) {
            params.add(new Param(p.name, "", p.slot.type));
        }
        List<Expr> values = arguments("action '" + name.getText() + "'", params, args, sc, new HashMap<>(), at);
        for (int i = 0; i < bound.size(); i++) {
            if (!args.argument(i).getText().equals(bound.get(i))) {
                throw error(args.argument(i), "action '" + name.getText() + "' takes its directional arguments here as "
                        + "in the actions list: " + name.getText() + "(" + String.join(", ", bound) + ", ...)");
            }
        }
        BigInteger[] data = new BigInteger[values.size() - bound.size()];
        for (int i = 0; i < data.length; i++) {
            Expr v = values.get(bound.size() + i);
            if (!(v instanceof Expr.Const)) {
                throw error(args.argument(bound.size() + i), "the arguments of a table's action must be constants");
            }
            data[i] = ((Expr.Const) v).value;
        }
        return new Table.ActionCall(a.action, data);
    }

    /**
     * A mask's or a range's operand in an entry: of the key's type, or for a key of serializable
     * enum type also of its underlying type (a mask is bits, not a member; p4c allows both).
     */
    private BigInteger keyOperand(ExpressionContext e, Scope sc, Type kt) {
        if (kt instanceof Type.Enum && ((Type.Enum) kt).underlying != null && !kt.equals(expr(e, sc, null).type)) {
            return constantValue(e, sc, ((Type.Enum) kt).underlying);
        }
        return constantValue(e, sc, kt);
    }

    private Table.FieldMatch[] entryMatch(KeysetExpressionContext ks, List<Table.KeyField> keys, Scope sc) {
        List<? extends ParserRuleContext> parts = ks instanceof TupleKeysetContext ? ((TupleKeysetContext) ks).simpleKeyset()
                : List.of(((SingleKeysetContext) ks).simpleKeyset());
        ExpressionContext whole = ks instanceof SingleKeysetContext && parts.get(0) instanceof ValueKeysetContext ? unparenthesised(((ValueKeysetContext) parts.get(0))
                .expression()) : null;
        if (whole instanceof ListExpressionContext && ((ListExpressionContext) whole).expressionList().expression().size() == keys.size()) {
            parts = ((ListExpressionContext) whole).expressionList().expression();   // { v1, v2 }: a value per key field, as p4c takes it
        }
        if (parts.size() != keys.size()) {
            throw error(ks, "the entry has " + parts.size() + " key value(s); the table has " + keys.size() + " key field(s)");
        }
        Table.FieldMatch[] out = new Table.FieldMatch[parts.size()];
        for (int i = 0; i < parts.size(); i++) {
            Table.KeyField k = keys.get(i);
            ParserRuleContext p = parts.get(i);
            Type kt = k.expr.type;
            if (p instanceof DefaultKeysetContext || p instanceof DontCareKeysetContext) {
                if (k.kind == Table.MatchKind.EXACT) {
                    throw error(p, "an exact key field cannot be a wildcard");
                }
                out[i] = k.kind == Table.MatchKind.RANGE
                        ? Table.FieldMatch.range(BigInteger.ZERO, org.nat64fabric.softswitch.pipeline.Bits.wideMask(k.width))
                        : Table.FieldMatch.wildcard();
            } else if (p instanceof MaskKeysetContext) {
                BigInteger v = keyOperand(((MaskKeysetContext) p).expression(0), sc, kt);
                BigInteger m = keyOperand(((MaskKeysetContext) p).expression(1), sc, kt);
                if (k.kind == Table.MatchKind.LPM) {
                    int len = m.bitCount();
                    if (!m.equals(org.nat64fabric.softswitch.pipeline.Bits.wideMask(len).shiftLeft(k.width - len))) {
                        throw error(p, "an lpm mask must be a prefix of ones");
                    }
                    out[i] = Table.FieldMatch.lpm(v, len, k.width);
                } else if (k.kind == Table.MatchKind.TERNARY) {
                    out[i] = Table.FieldMatch.ternary(v, m);
                } else {
                    throw error(p, "a mask is allowed only for ternary and lpm fields");
                }
            } else if (p instanceof RangeKeysetContext) {
                if (k.kind != Table.MatchKind.RANGE) {
                    throw error(p, "a range is allowed only for range fields");
                }
                out[i] = Table.FieldMatch.range(keyOperand(((RangeKeysetContext) p).expression(0), sc, kt),
                        keyOperand(((RangeKeysetContext) p).expression(1), sc, kt));
            } else {
                BigInteger v = constantValue(p instanceof ValueKeysetContext ? ((ValueKeysetContext) p).expression()
                        : (ExpressionContext) p, sc, kt);
                out[i] = k.kind == Table.MatchKind.RANGE ? Table.FieldMatch.range(v, v)
                        : k.kind == Table.MatchKind.LPM ? Table.FieldMatch.lpm(v, k.width, k.width)
                        : Table.FieldMatch.exact(v, k.width);
            }
        }
        return out;
    }

    private static ExpressionContext unparenthesised(ExpressionContext e) {
        return e instanceof ParenExpressionContext ? unparenthesised(((ParenExpressionContext) e).expression()) : e;
    }

    // ---- parsers ----

    /** The architecture's parser: its parameters are the package's storage. */
    private Parser compileParser(BlockType bt, Map<Type, Expr> byType, ArgumentContext given) {
        return instantiateParser(bt, bt.name, byType, bt.decl, mainArguments(bt, given), Map.of()).parser;
    }

    /**
     * The constructor arguments main's package gives a block, {@code I(9w3)} (P4_16 17.2): compile-time
     * values, or extern instances declared at the top level.
     */
    private Map<String, Object> mainArguments(BlockType bt, ArgumentContext given) {
        ExpressionContext e = given.expression();
        List<ArgumentContext> args = e instanceof CallExpressionContext
                ? ((CallExpressionContext) e).argumentList().argument() : List.of();
        ParameterListContext declared = bt.decl instanceof ControlDeclarationContext
                ? ((ControlDeclarationContext) bt.decl).parameterList() : ((ParserDeclarationContext) bt.decl).parameterList();
        return constructorArguments(bt, declared, args, global, e);
    }

    private ParserInstance instantiateParser(BlockType bt, String name, Map<Type, Expr> byType, ParserRuleContext at) {
        return instantiateParser(bt, name, byType, at, Map.of(), Map.of());
    }

    private ParserInstance instantiateParser(BlockType bt, String name, Map<Type, Expr> byType, ParserRuleContext at,
                                             Map<String, Object> ctor, Map<String, ExternInstance> externs) {
        if (!(bt.decl instanceof ParserDeclarationContext)) {
            throw error(at, "'" + bt.name + "' is not a parser");
        }
        ParserDeclarationContext d = (ParserDeclarationContext) bt.decl;
        if (inProgress.contains(bt.declared)) {
            throw error(at, "parser '" + bt.name + "' instantiates itself: P4 has no recursion");
        }
        requireConstructorArguments(bt, d.parameterList(), ctor, at);
        instantiated.add(bt.name);
        Scope sc = typeScope(bt);
        ctor.forEach((n, v) -> sc.symbols.put(n, v instanceof Expr ? new Var(n, (Expr) v, true) : v));
        List<Param> params = new ArrayList<>();
        ParserInstance pi = new ParserInstance(name, params, bindParams(bt, sc, byType, params, externs));
        Where outer = enter(Where.PARSER, bt.declared);
        declaredAt.push(bt.decl.getStart().getTokenIndex());
        Context cx = new Context(name, true, null);
        List<Stmt> init = new ArrayList<>();
        for (ParserLocalElementContext l : d.parserLocalElement()) {
            if (l.constantDeclaration() != null) {
                constant(l.constantDeclaration(), sc);
            } else if (l.variableDeclaration() != null) {
                init.add(guarded(variable(l.variableDeclaration(), sc)));
            } else if (l.valueSetDeclaration() != null) {
                valueSet(l.valueSetDeclaration(), sc, name);
            } else {
                subParser(l.instantiation(), sc, name);
            }
        }
        List<ParserStateContext> states = d.parserState();
        Map<String, Integer> index = new LinkedHashMap<>();
        int start = -1;
        for (ParserStateContext s : states) {
            String n = s.name().getText();
            if (n.equals("accept") || n.equals("reject")) {
                throw error(s.name(), "state '" + n + "' is built in and cannot be declared");
            }
            if (index.containsKey(n)) {
                throw error(s.name(), "state '" + n + "' is declared twice");
            }
            if (sc.symbols.containsKey(n)) {   // P4_16 13.2: states and the parser's locals share one namespace
                throw error(s.name(), "state '" + n + "' has the name of a local declaration of parser '" + bt.name + "'");
            }
            index.put(n, index.size());
            if (n.equals("start")) {
                start = index.get(n);
            }
        }
        if (start < 0) {
            throw error(d.parserTypeDeclaration().name(), "parser '" + bt.name + "' has no 'start' state");
        }
        // Order states so that start is index 0.
        List<ParserStateContext> ordered = new ArrayList<>(states);
        ParserStateContext first = ordered.remove(start);
        ordered.add(0, first);
        index.clear();
        for (ParserStateContext s : ordered) {
            index.put(s.name().getText(), index.size());
        }
        Stmt[] bodies = new Stmt[ordered.size()];
        Parser.Transition[] transitions = new Parser.Transition[ordered.size()];
        for (int i = 0; i < ordered.size(); i++) {
            ParserStateContext s = ordered.get(i);
            Scope ss = new Scope(sc);
            List<Stmt> body = new ArrayList<>(i == 0 ? init : List.of());
            for (ParserStatementContext ps : s.parserStatement()) {
                body.add(parserStatement(ps, ss, cx));
            }
            transitions[i] = transition(s, ss, index);
            if (!stackGuards.isEmpty()) {
                body.add(guarded(Stmt.EMPTY));   // what the select's keys read, checked after the statements
            }
            bodies[i] = new Stmt.Block(body);
        }
        declaredAt.pop();
        leave(outer, bt.declared);
        pi.parser = new Parser(name, bodies, transitions);
        return pi;
    }

    /** A value_set and the types of its fields, for the select cases that name it. */
    private static final class ValueSetSym {
        final ValueSet set;
        final List<Type> types;

        ValueSetSym(ValueSet set, List<Type> types) {
            this.set = set;
            this.types = types;
        }
    }

    /**
     * value_set<T>(size) name; T is bit<W> (one match field) or a struct of bit<W> fields, each
     * exact or, with @match(ternary), ternary (P4Runtime 1.4, 8.4 ValueSet).
     */
    private void valueSet(ValueSetDeclarationContext d, Scope sc, String prefix) {
        Map<String, List<String>> an = annotations(d.annotations());
        String qname = qualified(prefix, d.name().getText(), an);
        if (d.typeArg().DONTCARE() != null) {
            throw error(d.typeArg(), "a value_set needs its element type, as in value_set<bit<16>>(4)");
        }
        Type t = type(d.typeArg().typeRef(), sc);
        List<ValueSet.Field> fields = new ArrayList<>();
        List<Type> types = new ArrayList<>();
        if (isZeroWidth(t) || t instanceof Type.Aggregate && ((Type.Aggregate) t).fields.values().stream()
                .anyMatch(f -> isZeroWidth(f.type))) {
            throw error(d.typeArg(), "a value_set of bit<0> holds nothing the control plane could match: leave it out");
        }
        if (t instanceof Type.Bits) {
            fields.add(new ValueSet.Field("", ((Type.Bits) t).width, false));
            types.add(t);
        } else if (t instanceof Type.Aggregate && !((Type.Aggregate) t).header && !((Type.Aggregate) t).union) {
            for (Type.Field f : ((Type.Aggregate) t).fields.values()) {
                if (!(f.type instanceof Type.Bits)) {
                    throw error(d.typeArg(), "value_set field '" + f.name + "' must be bit<W> or int<W>, not " + f.type);
                }
                List<String> match = f.annotations.getOrDefault("match", List.of("exact"));
                if (!match.equals(List.of("exact")) && !match.equals(List.of("ternary"))) {
                    throw error(d.typeArg(), "value_set field '" + f.name + "': softswitch matches value sets exactly or "
                            + "with @match(ternary), not @match(" + String.join(", ", match) + ")");
                }
                fields.add(new ValueSet.Field(f.name, ((Type.Bits) f.type).width, match.equals(List.of("ternary"))));
                types.add(f.type);
            }
            if (fields.isEmpty()) {
                throw error(d.typeArg(), "a value_set's struct needs at least one field");
            }
        } else {
            throw error(d.typeArg(), "a value_set's elements must be bit<W> or a struct of bit<W> fields, not " + t);
        }
        BigInteger size = constantValue(d.expression(), sc, null);
        if (size.signum() <= 0 || size.bitLength() > 31) {
            throw error(d.expression(), "a value_set's size must be a positive constant");
        }
        claim("value_set", qname, an, d.name().getStart());
        ValueSet vs = new ValueSet(qname, an, size.intValue(), fields);
        valueSets.add(vs);
        define(sc, d.name(), new ValueSetSym(vs, types));
    }

    /** SubParser() sp; among a parser's declarations: the only instantiation a parser takes here. */
    private void subParser(InstantiationContext d, Scope sc, String prefix) {
        TypeRefContext tr = d.typeRef();
        Object t = tr instanceof NamedTypeRefContext ? sc.lookup(((NamedTypeRefContext) tr).typeName().TYPE_IDENT().getText()) : null;
        Object extern = unalias(t);
        if (extern instanceof ExternType && PARSER_EXTERNS.contains(((ExternType) extern).name)) {
            instantiation(d, sc, prefix);
            return;
        }
        if (!(t instanceof BlockType) || !"parser".equals(((BlockType) t).kind)) {
            throw error(d, "a parser can instantiate parsers, registers, counters and meters, not '" + tr.getText() + "'");
        }
        BlockType bt = boundBlock((BlockType) t, tr, sc);
        Map<String, Object> ctor = constructorArguments(bt, ((ParserDeclarationContext) bt.decl).parameterList(),
                d.argumentList().argument(), sc, d);
        String qname = qualified(prefix, d.name().getText(), annotations(d.annotations()));
        define(sc, d.name(), takesExterns(bt) ? new PendingInstance(bt, qname, ctor, d)
                : instantiateParser(bt, qname, null, d, ctor, Map.of()));
    }

    /** sp.apply(packet, ...) in a parser state: the sub-parser runs to accept, or the caller rejects too. */
    private Stmt applyParser(ParserInstance pi, MethodRef m, ArgumentListContext args, Scope sc, ParserRuleContext at) {
        if (!m.method.equals("apply")) {
            throw error(m.at.name(), "a parser instance has only apply(), not '" + m.method + "'");
        }
        if (where != Where.PARSER) {
            throw error(m.at, "a parser can be applied only in a parser state, not in " + whereName());
        }
        List<Stmt> prelude = new ArrayList<>();
        List<Expr> values = arguments("'" + pi.name + ".apply'", pi.params, args, sc, new HashMap<>(), at, prelude);
        return copyInOut(prelude, pi.params, pi.slots, values, aliased(pi.params, args), new SubParserRun(pi.parser));
    }

    /**
     * The arguments an inout header, struct or stack parameter may not take by reference (P4_16 6.8:
     * each argument is a copy, never aliased to another, copied back left to right): those another
     * out or inout argument may overlap (the same place, or one inside the other, as written, any
     * index standing for every one), and those a later argument's call could change first.
     */
    private static boolean[] aliased(List<Param> params, ArgumentListContext args) {
        List<ArgumentContext> given = args == null ? List.of() : args.argument();
        boolean[] copied = new boolean[params.size()];
        String[] places = new String[params.size()];
        boolean[] callAfter = new boolean[params.size()];
        for (int i = 0; i < given.size(); i++) {
            ArgumentContext a = given.get(i);
            int index = i;
            for (int k = 0; a.name() != null && k < params.size(); k++) {
                index = params.get(k).name.equals(a.name().getText()) ? k : index;
            }
            if (a.expression() != null && index < params.size()) {
                places[index] = params.get(index).writable() ? place(a.expression().getText()) : null;
                if (containsCall(a.expression())) {
                    for (int k = 0; k < index; k++) {   // copied in before it, in the parameters' order
                        callAfter[k] = true;
                    }
                }
            }
        }
        for (int i = 0; i < params.size(); i++) {
            if (!"inout".equals(params.get(i).direction) || places[i] == null) {
                continue;
            }
            copied[i] = callAfter[i];
            for (int k = 0; k < params.size(); k++) {
                copied[i] |= k != i && places[k] != null && (inside(places[i], places[k]) || inside(places[k], places[i]));
            }
        }
        return copied;
    }

    private static final Set<String> READING_METHODS = Set.of("isValid", "minSizeInBits", "minSizeInBytes", "maxSizeInBits",
            "maxSizeInBytes");

    /** A place as written, each index (a stack's next and last too) standing for any, without parentheses. */
    private static String place(String written) {
        StringBuilder out = new StringBuilder();
        int depth = 0;
        for (char c : written.toCharArray()) {
            if (c == '[') {
                if (depth++ == 0) {
                    out.append("[]");
                }
            } else if (c == ']') {
                depth--;
            } else if (depth == 0 && c != '(' && c != ')') {
                out.append(c);
            }
        }
        return out.toString().replace(".next", "[]").replace(".last", "[]");
    }

    /** Whether the place written {@code inner} is {@code outer} or a part of it (a field, an element). */
    private static boolean inside(String inner, String outer) {
        return inner.equals(outer) || inner.startsWith(outer) && ".[".indexOf(inner.charAt(outer.length())) >= 0;
    }

    /** Whether an expression calls anything but the methods that only read (isValid, the sizes). */
    private static boolean containsCall(ParseTree t) {
        if (t instanceof GenericCallExpressionContext) {
            return true;
        }
        if (t instanceof CallExpressionContext) {
            ExpressionContext callee = ((CallExpressionContext) t).expression();
            if (!(callee instanceof MemberExpressionContext)
                    || !READING_METHODS.contains(((MemberExpressionContext) callee).name().getText())) {
                return true;
            }
        }
        for (int i = 0; i < t.getChildCount(); i++) {
            if (containsCall(t.getChild(i))) {
                return true;
            }
        }
        return false;
    }

    /** Runs a sub-parser from its start state: NEXT on accept, REJECT (with its error) otherwise. */
    private static final class SubParserRun extends Stmt {
        private final Parser parser;

        SubParserRun(Parser parser) {
            this.parser = parser;
        }

        @Override public int exec(State s) {
            return parser.run(s) ? NEXT : Parser.REJECT;
        }

        @Override public void c(CodeWriter w) {
            throw new CodeWriter.Unsupported("a sub-parser");
        }
    }

    /** A statement of a parser state; one holding a lookahead rejects at once when it finds too few bits. */
    private Stmt parserStatement(ParserStatementContext ps, Scope sc, Context cx) {
        int lookaheadsBefore = lookaheads;
        Stmt st = parserStatementOf(ps, sc, cx);
        st = guarded(st);
        return lookaheads > lookaheadsBefore ? new PacketIo.RejectIfPeekFailed(st) : st;
    }

    /** Checks that a parser statement or select reading a stack's last needs first (see lastNeedsAnElement). */
    private final List<Stmt> stackGuards = new ArrayList<>();

    /** st after the checks its elaboration asked for, which run first. */
    private Stmt guarded(Stmt st) {
        if (stackGuards.isEmpty()) {
            return st;
        }
        List<Stmt> body = new ArrayList<>(stackGuards);
        stackGuards.clear();
        body.add(st);
        return new Stmt.Block(body);
    }

    /** P4_16 8.18: in a parser, hs.last with nextIndex 0 rejects the packet with error.StackOutOfBounds. */
    private static Stmt lastNeedsAnElement(Expr.Agg stack) {
        Expr none = new Expr.Const(new Type.Bits(32, false), 0xFFFFFFFFL);
        return new PacketIo.Verify(new Ops.Binary(Ops.Op.NE, Type.BOOL, new LastIndex(new PacketIo.Stack(stack)), none),
                new Expr.Const(new Type.Bits(32, false), PacketIo.STACK_OUT_OF_BOUNDS));
    }

    private Stmt parserStatementOf(ParserStatementContext ps, Scope sc, Context cx) {
        at(ps);
        if (ps.assignmentOrCall() != null) {
            return assignmentOrCall(ps.assignmentOrCall(), sc, cx);
        }
        if (ps.variableDeclaration() != null) {
            return variable(ps.variableDeclaration(), sc);
        }
        if (ps.constantDeclaration() != null) {
            constant(ps.constantDeclaration(), sc);
            return Stmt.EMPTY;
        }
        if (ps.conditionalParserStatement() != null) {
            ConditionalParserStatementContext c = ps.conditionalParserStatement();
            Expr cond = condition(c.expression(), sc);
            List<Stmt> condGuards = new ArrayList<>(stackGuards);   // before the condition, not in a branch
            stackGuards.clear();
            Stmt then = parserStatement(c.parserStatement(0), new Scope(sc), cx);
            Stmt other = c.parserStatement().size() > 1 ? parserStatement(c.parserStatement(1), new Scope(sc), cx) : Stmt.EMPTY;
            stackGuards.addAll(condGuards);
            return new Stmt.If(cond, then, other);
        }
        if (!ps.parserStatement().isEmpty()) {
            Scope inner = new Scope(sc);
            List<Stmt> body = new ArrayList<>();
            for (ParserStatementContext p : ps.parserStatement()) {
                body.add(parserStatement(p, inner, cx));
            }
            return new Stmt.Block(body);
        }
        return Stmt.EMPTY;
    }

    private Parser.Transition transition(ParserStateContext s, Scope sc, Map<String, Integer> index) {
        TransitionStatementContext t = s.transitionStatement();
        if (t == null) {
            return new Parser.Direct(Parser.REJECT_STATE);
        }
        StateExpressionContext se = t.stateExpression();
        if (se.name() != null) {
            return new Parser.Direct(stateIndex(se.name(), index));
        }
        SelectExpressionContext sel = se.selectExpression();
        List<ExpressionContext> keyCtx = sel.expressionList().expression();
        Expr[] keys = new Expr[keyCtx.size()];
        int lookaheadsBefore = lookaheads;
        for (int i = 0; i < keys.length; i++) {
            keys[i] = expr(keyCtx.get(i), sc, null);
            if (!keys[i].type.isScalar()) {
                throw error(keyCtx.get(i), "a select key must be a bit string, bool or enum, not " + keys[i].type);
            }
        }
        List<SelectCaseContext> cases = sel.selectCase();
        Parser.Keyset[][] sets = new Parser.Keyset[cases.size()][];
        ValueSet[] valueSetCases = new ValueSet[cases.size()];
        boolean defaultSeen = false;
        int[] targets = new int[cases.size()];
        for (int c = 0; c < cases.size(); c++) {
            SelectCaseContext sc2 = cases.get(c);
            KeysetExpressionContext ks = sc2.keysetExpression();
            List<SimpleKeysetContext> parts = ks instanceof TupleKeysetContext ? ((TupleKeysetContext) ks).simpleKeyset()
                    : List.of(((SingleKeysetContext) ks).simpleKeyset());
            boolean isDefault = parts.size() == 1 && (parts.get(0) instanceof DefaultKeysetContext
                    || parts.get(0) instanceof DontCareKeysetContext);
            if (isDefault && defaultSeen) {
                throw error(ks, "this select already has a default case");
            }
            defaultSeen |= isDefault;
            ValueSetSym named = valueSetCase(parts, sc);
            if (named != null) {
                if (!named.types.equals(typesOf(keys))) {
                    throw error(ks, "value set '" + parts.get(0).getText() + "' holds " + named.types
                            + ": the select's keys must be of these types, not " + typesOf(keys));
                }
                valueSetCases[c] = named.set;
                targets[c] = stateIndex(sc2.name(), index);
                continue;
            }
            if (!isDefault && parts.size() != keys.length) {
                throw error(ks, "the case has " + parts.size() + " value(s); select has " + keys.length + " key(s)");
            }
            sets[c] = new Parser.Keyset[keys.length];
            for (int i = 0; i < keys.length; i++) {
                SimpleKeysetContext p = isDefault ? parts.get(0) : parts.get(i);
                Type kt = keys[i].type;
                if (p instanceof DefaultKeysetContext || p instanceof DontCareKeysetContext) {
                    sets[c][i] = Parser.Keyset.any();
                } else if ((p instanceof MaskKeysetContext || p instanceof RangeKeysetContext) && !numeric(kt)) {
                    // P4_16 8.15.3-8.15.4: masks and ranges take numbers
                    throw error(p, "'" + p.getText() + "': " + (p instanceof MaskKeysetContext ? "&&&" : "..")
                            + " takes numbers (bit<W>, int<W>, a serializable enum), not " + kt + "; list the values");
                } else if (p instanceof MaskKeysetContext) {
                    sets[c][i] = Parser.Keyset.mask(constantValue(((MaskKeysetContext) p).expression(0), sc, kt),
                            constantValue(((MaskKeysetContext) p).expression(1), sc, kt));
                } else if (p instanceof RangeKeysetContext) {
                    sets[c][i] = Parser.Keyset.range(constantValue(((RangeKeysetContext) p).expression(0), sc, kt),
                            constantValue(((RangeKeysetContext) p).expression(1), sc, kt),
                            signedWidth(kt));
                } else {
                    sets[c][i] = Parser.Keyset.value(constantValue(((ValueKeysetContext) p).expression(), sc, kt),
                            Math.max(widthOf(kt), 64));
                }
            }
            targets[c] = stateIndex(sc2.name(), index);
        }
        return new Parser.Select(keys, sets, valueSetCases, targets, lookaheads > lookaheadsBefore);
    }

    /** The value set a select case names (a single name that is a value_set), or null. */
    private ValueSetSym valueSetCase(List<SimpleKeysetContext> parts, Scope sc) {
        if (parts.size() != 1 || !(parts.get(0) instanceof ValueKeysetContext)) {
            return null;
        }
        ExpressionContext e = ((ValueKeysetContext) parts.get(0)).expression();
        Object o = e instanceof NameExpressionContext ? sc.lookup(e.getText()) : null;
        return o instanceof ValueSetSym ? (ValueSetSym) o : null;
    }

    private static List<Type> typesOf(Expr[] keys) {
        List<Type> out = new ArrayList<>();
        for (Expr k : keys) {
            out.add(k.type);
        }
        return out;
    }

    private int stateIndex(NameContext n, Map<String, Integer> index) {
        String s = n.getText();
        if (s.equals("accept")) {
            return Parser.ACCEPT_STATE;
        }
        if (s.equals("reject")) {
            return Parser.REJECT_STATE;
        }
        Integer i = index.get(s);
        if (i == null) {
            throw error(n, "transition to undeclared state '" + s + "'");
        }
        return i;
    }

    // ---- statements ----

    private Stmt block(BlockStatementContext b, Scope sc, Context cx) {
        Scope inner = new Scope(sc);
        List<Stmt> body = new ArrayList<>();
        for (StatementContext s : b.statement()) {
            body.add(statement(s, inner, cx));
        }
        return body.size() == 1 ? body.get(0) : new Stmt.Block(body);
    }

    private Stmt statement(StatementContext s, Scope sc, Context cx) {
        int outer = appliesAtStatementStart;
        appliesAtStatementStart = tableApplyExpressions;
        try {
            return statementOf(s, sc, cx);
        } finally {
            appliesAtStatementStart = outer;
        }
    }

    private Stmt statementOf(StatementContext s, Scope sc, Context cx) {
        at(s);
        if (s.assignmentOrCall() != null) {
            return assignmentOrCall(s.assignmentOrCall(), sc, cx);
        }
        if (s.ifStatement() != null) {
            IfStatementContext i = s.ifStatement();
            Expr cond = condition(i.expression(), sc);
            Stmt then = statement(i.statement(0), new Scope(sc), cx);
            Stmt other = i.statement().size() > 1 ? statement(i.statement(1), new Scope(sc), cx) : Stmt.EMPTY;
            Stmt st = new Stmt.If(cond, then, other);
            return exitAware(st);
        }
        if (s.blockStatement() != null) {
            return block(s.blockStatement(), sc, cx);
        }
        if (s.switchStatement() != null) {
            return switchStatement(s.switchStatement(), sc, cx);
        }
        if (s.forStatement() != null) {
            return forStatement(s.forStatement(), sc, cx);
        }
        if (s.BREAK() != null || s.CONTINUE() != null) {
            if (loopDepth == 0) {
                throw error(s, "'" + s.getStart().getText() + "' is allowed only in a for loop");
            }
            return s.BREAK() != null ? Loop.BREAK : Loop.CONTINUE;
        }
        if (s.EXIT() != null) {
            if (cx.inParser) {
                throw error(s, "exit is not allowed in a parser");
            }
            if (where == Where.FUNCTION) {
                throw error(s, "exit is not allowed in a function (P4_16: only in controls and actions)");
            }
            return new Stmt.Exit();
        }
        if (s.RETURN() != null) {
            if (s.expression() == null) {
                if (cx.result != null) {
                    throw error(s, "this function must return a value");
                }
                return new Stmt.Return(null);
            }
            if (cx.result == null) {
                throw error(s.expression(), "return with a value outside a function that returns one");
            }
            return new Stmt.Return(assign(cx.result, expr(s.expression(), sc, cx.result.type), s.expression()));
        }
        if (s.variableDeclaration() != null) {
            return exitAware(variable(s.variableDeclaration(), sc));
        }
        if (s.constantDeclaration() != null) {
            constant(s.constantDeclaration(), sc);
        }
        return Stmt.EMPTY;
    }

    /** for loops (P4_16 working draft after 1.2.5): three clauses, or a variable over lo .. hi or a list of values. */
    private Stmt forStatement(ForStatementContext f, Scope sc, Context cx) {
        Scope ls = new Scope(sc);
        if (f instanceof ThreeClauseForContext) {
            ThreeClauseForContext t = (ThreeClauseForContext) f;
            List<Stmt> init = new ArrayList<>();
            if (t.forInit() != null) {
                for (ForInitItemContext item : t.forInit().forInitItem()) {
                    if (item.typeRef() != null) {
                        Type type = type(item.typeRef(), ls);
                        Expr slot = storageFor(type, item.typeRef(), "a loop variable");
                        init.add(assign(slot, expr(item.expression(), ls, type), item.expression()));
                        define(ls, item.name(), new Var(item.name().getText(), slot, false));
                    } else {
                        init.add(simpleStatement(item.forUpdateItem().expression(), item.forUpdateItem().assignOp(),
                                item, ls, cx));
                    }
                }
            }
            Expr cond = t.expression() == null ? null : condition(t.expression(), ls);
            List<Stmt> update = new ArrayList<>();
            if (t.forUpdate() != null) {
                for (ForUpdateItemContext item : t.forUpdate().forUpdateItem()) {
                    update.add(simpleStatement(item.expression(), item.assignOp(), item, ls, cx));
                }
            }
            init.add(new Loop.ThreeClause(cond, loopBody(t.statement(), ls, cx), new Stmt.Block(update)));
            return exitAware(new Stmt.Block(init));
        }
        ForInLoopContext in = (ForInLoopContext) f;
        Type type = type(in.typeRef(), ls);
        if (in.expression().size() == 2) {
            if (!(type instanceof Type.Bits) || ((Type.Bits) type).wide()) {
                throw error(in.typeRef(), "a range lo .. hi needs a bit<W> or int<W> variable of up to 64 bits, not " + type);
            }
            Expr.LValue var = (Expr.LValue) storageFor(type, in.typeRef(), "a loop variable");
            Expr lo = coerce(expr(in.expression(0), ls, type), type, in.expression(0));
            Expr hi = coerce(expr(in.expression(1), ls, type), type, in.expression(1));
            define(ls, in.name(), new Var(in.name().getText(), var, false));
            return exitAware(new Loop.Range(var, lo, hi, ((Type.Bits) type).width, ((Type.Bits) type).signed,
                    loopBody(in.statement(), ls, cx)));
        }
        // P4_16 12.8: the collection is evaluated once, before the first turn; the variable holds a
        // copy of each element in turn (the body changing it changes no element, nor the turns to come).
        Expr var = storageFor(type, in.typeRef(), "a loop variable");
        List<Stmt> before = new ArrayList<>();
        List<Stmt> binds = new ArrayList<>();
        Object collection = resolve(in.expression(0), ls, cx);
        if (collection instanceof Expr && ((Expr) collection).type instanceof Type.Stack) {
            Type.Stack st = (Type.Stack) ((Expr) collection).type;
            if (!st.element.equals(type)) {
                throw error(in.typeRef(), "a for loop over " + st + " takes a " + st.element + " variable, not " + type);
            }
            Expr.Agg snapshot = (Expr.Agg) storage(st);
            before.add(assign(snapshot, (Expr) collection, in.expression(0)));
            for (int i = 0; i < st.size; i++) {
                binds.add(assign(var, element(snapshot, i), in.expression(0)));
            }
        } else if (collection instanceof ListValue) {
            for (Expr item : ((ListValue) collection).items) {
                Expr value = item;
                if (!(item instanceof Expr.Const)) {
                    value = storage(type);
                    before.add(assign(value, item, in.expression(0)));
                }
                binds.add(assign(var, value, in.expression(0)));
            }
        } else {
            throw error(in.expression(0), "a for loop goes over a range lo .. hi, a list {a, b, ...} or a header stack");
        }
        define(ls, in.name(), new Var(in.name().getText(), var, false));
        before.add(new Loop.Each(binds.toArray(new Stmt[0]), loopBody(in.statement(), ls, cx)));
        return exitAware(new Stmt.Block(before));
    }

    private Stmt loopBody(StatementContext body, Scope sc, Context cx) {
        loopDepth++;
        try {
            return statement(body, new Scope(sc), cx);
        } finally {
            loopDepth--;
        }
    }

    /**
     * A statement that may run a table whose action exits; when one of its expressions applies a
     * table, the exit ends that expression (Stmt.ExitSignal), caught here.
     */
    private Stmt exitAware(Stmt st) {
        return new ExitAware(st, tableApplyExpressions != appliesAtStatementStart);
    }

    private static final class ExitAware extends Stmt {
        private final Stmt st;
        private final boolean appliesInExpressions;

        ExitAware(Stmt st, boolean appliesInExpressions) {
            this.st = st;
            this.appliesInExpressions = appliesInExpressions;
        }

        @Override public int exec(State s) {
            try {
                int r = st.exec(s);
                return s.exiting ? EXIT : r;
            } catch (Stmt.ExitSignal e) {
                return EXIT;
            }
        }

        /** Only where a table applies: a function's statements may run in an expression, on a stack a handler would clear. */
        @Override public boolean jvm(Jit j) {
            if (appliesInExpressions) {
                j.stmtPushingCatchingExit(st);
            } else {
                j.stmtPushing(st);
            }
            j.exitIfExiting();
            return true;
        }

        @Override public void c(CodeWriter w) {
            st.c(w);
            w.exitCheck();
        }
    }

    private Expr condition(ExpressionContext e, Scope sc) {
        Expr c = expr(e, sc, Type.BOOL);
        if (c.type != Type.BOOL) {
            throw error(e, "a condition must be bool, not " + c.type);
        }
        return c;
    }

    private Stmt variable(VariableDeclarationContext v, Scope sc) {
        Type t = type(v.typeRef(), sc);
        if (t instanceof Type.Varbit) {
            VarbitIo.Field slot = varbitVariable((Type.Varbit) t);   // zero bits until assigned
            Stmt init = v.expression() != null ? assign(slot, expr(v.expression(), sc, t), v.expression()) : Stmt.EMPTY;
            define(sc, v.name(), new Var(v.name().getText(), slot, false));
            return init;
        }
        if (t instanceof Type.Tuple) {
            t = tupleStruct((Type.Tuple) t, v.typeRef());
        }
        Expr slot = storageFor(t, v.typeRef(), "a variable");
        Stmt init = v.expression() != null ? assign(slot, expr(v.expression(), sc, t), v.expression())
                : slot instanceof Expr.Agg ? new ClearAgg((Expr.Agg) slot) : new Stmt.Assign((Expr.LValue) slot, new Expr.Const(t, 0));
        define(sc, v.name(), new Var(v.name().getText(), slot, false));
        return init;
    }

    /** The struct a tuple variable is held in, one per tuple type: its elements are fields "0", "1", ... */
    private final Map<Type.Tuple, Type.Aggregate> tupleStructs = new HashMap<>();

    /**
     * A tuple variable (P4_16 7.2.8, 8.11): a struct whose fields are the elements in order, so
     * that a list assigns it, = copies it, == compares it, it goes where hash or checksum data
     * goes, and t[i] with a constant i names element i.
     */
    private Type.Aggregate tupleStruct(Type.Tuple t, ParserRuleContext at) {
        Type.Aggregate held = tupleStructs.get(t);
        if (held == null) {
            held = new Type.Aggregate(t.toString(), false, Map.of());
            for (int i = 0; i < t.elements.size(); i++) {
                Type e = t.elements.get(i);
                if (!(e.isScalar() || e instanceof Type.Aggregate)) {
                    throw error(at, "a tuple variable's elements are bit<W>, int<W>, bool, enums, headers or structs, not " + e);
                }
                held.addField(String.valueOf(i), e, Map.of());
            }
            tupleStructs.put(t, held);
        }
        return held;
    }

    private static final class ClearAgg extends Stmt {
        private final Expr.Agg agg;

        ClearAgg(Expr.Agg agg) {
            this.agg = agg;
        }

        @Override public int exec(State s) {
            agg.clear(s);
            return NEXT;
        }

        @Override public void c(CodeWriter w) {
            agg.cClear(w);
        }
    }

    private Stmt assignmentOrCall(AssignmentOrCallContext a, Scope sc, Context cx) {
        return simpleStatement(a.expression(), a.assignOp(), a, sc, cx);
    }

    /** An assignment (e = e, e op= e) or a call: a statement, or an item of a for loop's clauses. */
    private Stmt simpleStatement(List<ExpressionContext> e, AssignOpContext assignOp, ParserRuleContext a, Scope sc,
                                 Context cx) {
        if (e.size() == 2) {
            ExpressionContext lhs = e.get(0);
            String op = assignOp.getText();
            List<Stmt> prelude = new ArrayList<>();
            Expr target = lvalue(lhs, sc, null, prelude);
            requireWritable(lhs, sc, target, "the left side of '" + op + "'");
            Expr value;
            if (op.equals("=")) {
                value = expr(e.get(1), sc, target.type);
            } else {
                // a op= b is a = a op b with the place of a evaluated once (P4_16 compound assignment)
                String binary = op.substring(0, op.length() - 1);
                boolean shift = binary.equals("<<") || binary.equals(">>");
                value = operate(binary, target, expr(e.get(1), sc, shift ? null : target.type), a, lhs, e.get(1));
            }
            prelude.add(assign(target, value, e.get(1)));
            return exitAware(prelude.size() == 1 ? prelude.get(0) : new Stmt.Block(prelude));
        }
        ExpressionContext callee = e.get(0);
        if (!(callee instanceof CallExpressionContext || callee instanceof GenericCallExpressionContext)) {
            throw error(callee, "'" + callee.getText() + "' is not a statement (expected an assignment or a call)");
        }
        Object r = call(callee, sc, cx);
        if (r instanceof Stmt) {   // exit-aware where an argument applies a table (whose action may exit)
            return tableApplyExpressions != appliesAtStatementStart ? exitAware((Stmt) r) : (Stmt) r;
        }
        if (r instanceof ApplyResult) {
            return applyStmt(((ApplyResult) r).table);
        }
        if (r instanceof AggregateCall) {   // its result unused
            return ((AggregateCall) r).call;
        }
        if (r instanceof Expr.Agg) {   // lookahead<h_t>(); with its result unused: it reads, nothing more
            return new EvalAggregate((Expr.Agg) r);
        }
        return exitAware(new Stmt.Eval((Expr) r));
    }

    private Stmt assign(Expr target, Expr value, ParserRuleContext at) {
        if (target instanceof VarbitIo.Field) {
            if (value instanceof DefaultValue) {
                return new VarbitIo.Clear((VarbitIo.Field) target);
            }
            if (!(value instanceof VarbitIo.Field) || !value.type.equals(target.type)) {
                throw error(at, "a " + target.type + " takes a " + target.type + " value, not " + value.type);
            }
            return new VarbitIo.Assign((VarbitIo.Field) target, (VarbitIo.Field) value);
        }
        if (target instanceof Expr.Agg) {
            return unionWrite(target, assignAggregate((Expr.Agg) target, value, at));
        }
        return new Stmt.Assign((Expr.LValue) target, coerce(value, target.type, at));
    }

    private Stmt assignAggregate(Expr.Agg target, Expr value, ParserRuleContext at) {
        if (value instanceof InvalidHeader && (!isHeaderOrUnion(target.type) || !((InvalidHeader) value).fits(target.type))) {
            throw error(at, ((InvalidHeader) value).written() + " is an invalid header or header union, not a value of " + target.type);
        }
        if (value instanceof DefaultValue || value instanceof InvalidHeader) {
            return new ClearAgg(target);
        }
        if (target.type instanceof Type.Aggregate && ((Type.Aggregate) target.type).union
                && (value instanceof ListValue || value instanceof StructValue)) {
            throw error(at, "a " + target.type + " takes a union of its type, or one member at a time (u.member = ...)");
        }
        if (value instanceof StructValue && target.type instanceof Type.Aggregate) {
            value = ((StructValue) value).inOrderOf((Type.Aggregate) target.type, at);
        }
        if (value instanceof AggregateCall && value.type.equals(target.type)) {
            AggregateCall c = (AggregateCall) value;
            return new Stmt.Block(List.of(c.call, new Stmt.CopyAgg(target, c.result)));
        }
        if (value instanceof ListValue && target.type instanceof Type.Stack) {
            return stackAssign(target, (ListValue) value, at);
        }
        if (value instanceof ListValue) {
            if (!(target.type instanceof Type.Aggregate)) {
                throw error(at, "cannot assign a list to " + target.type + " (assign its elements one by one)");
            }
            Type.Aggregate of = ((ListValue) value).of;
            if (of != null && !of.equals(target.type)) {
                throw error(at, "cannot assign " + of + " to " + target.type);   // a constant of another type
            }
            return listAssign(target, (ListValue) value, at);
        }
        if (!(value instanceof Expr.Agg) || !value.type.equals(target.type)) {
            throw error(at, "cannot assign " + value.type + " to " + target.type);
        }
        return new Stmt.CopyAgg(target, (Expr.Agg) value);
    }

    /**
     * st = { h0, {#}, { 1, 2 } } (P4_16 8.18, a header stack expression): one value per element, a
     * header, {#} (invalid) or a list of a header's fields (valid), evaluated into a temporary
     * before the stack changes; its next index starts at 0.
     */
    private Stmt stackAssign(Expr.Agg target, ListValue value, ParserRuleContext at) {
        Type.Stack t = (Type.Stack) target.type;
        if (value.items.size() != t.size) {
            throw error(at, t + " has " + t.size + " elements; the list has " + value.items.size() + " values");
        }
        Expr.Agg temporary = (Expr.Agg) storage(t);
        List<Stmt> out = new ArrayList<>();
        for (int i = 0; i < t.size; i++) {
            out.add(assignAggregate(element(temporary, i), value.items.get(i), at));
        }
        out.add(new Stmt.CopyAgg(target, temporary));
        return new Stmt.Block(out);
    }

    /**
     * hdr = {f1, f2, ...}: assigns fields in order; a header also becomes valid. The whole right side
     * is evaluated before the target changes (h = {h.b, h.a} swaps), through a temporary when a value
     * is not a constant.
     */
    private Stmt listAssign(Expr.Agg target, ListValue value, ParserRuleContext at) {
        if (!allConstant(value)) {
            Expr.Agg temporary = (Expr.Agg) storage(target.type);
            return new Stmt.Block(List.of(fieldAssigns(temporary, value, at), new Stmt.CopyAgg(target, temporary)));
        }
        return fieldAssigns(target, value, at);
    }

    private static boolean allConstant(ListValue value) {
        for (Expr e : value.items) {
            if (!(e instanceof Expr.Const || e instanceof DefaultValue || e instanceof InvalidHeader
                    || e instanceof ListValue && allConstant((ListValue) e))) {
                return false;
            }
        }
        return true;
    }

    private Stmt fieldAssigns(Expr.Agg target, ListValue value, ParserRuleContext at) {
        Type.Aggregate t = (Type.Aggregate) target.type;
        if (value.items.size() > t.fields.size() || value.items.size() < t.fields.size() && !value.restDefault) {
            throw error(at, t + " has " + t.fields.size() + " fields; the list has " + value.items.size() + " values");
        }
        List<Stmt> out = new ArrayList<>();
        int i = 0;
        int[] base = target.fixedBase();
        for (Type.Field f : t.fields.values()) {
            Expr item = i < value.items.size() ? value.items.get(i) : new DefaultValue();
            i++;
            Expr place = f.type instanceof Type.Varbit ? new VarbitIo.Field(target, f) : field(target, base, f);
            out.add(assign(place, item, at));
        }
        if (t.header) {
            out.add(new SetValid(target, 1));
        }
        return new Stmt.Block(out);
    }

    /**
     * A list as a value of a struct (P4_16 8.13): one value per field, in order, each of its field's
     * type (a list for a nested struct; after '...', the other fields' defaults).
     */
    private ListValue asStruct(ListValue list, Type.Aggregate struct, ParserRuleContext at) {
        List<Type.Field> fields = new ArrayList<>(struct.fields.values());
        if (list.items.size() > fields.size() || list.items.size() < fields.size() && !list.restDefault) {
            throw error(at, struct + " has " + fields.size() + " fields; the list has " + list.items.size() + " values");
        }
        List<Expr> items = new ArrayList<>();
        for (int i = 0; i < fields.size(); i++) {
            Type t = fields.get(i).type;
            Expr item = i < list.items.size() ? list.items.get(i) : new DefaultValue();
            boolean structOrHeader = t instanceof Type.Aggregate && !((Type.Aggregate) t).union;
            if (item instanceof StructValue && structOrHeader) {
                item = ((StructValue) item).inOrderOf((Type.Aggregate) t, at);
            }
            items.add(item instanceof ListValue && structOrHeader ? asStruct((ListValue) item, (Type.Aggregate) t, at)
                    : coerce(item, t, at));
        }
        return new ListValue(items);
    }

    private static final class ListValue extends Expr {
        final List<Expr> items;
        /** Ends in '...' (P4_16 8.26): the fields after the items take their default values. */
        final boolean restDefault;
        /** The struct or header whose fields the items are, in order (a constant's value); null for a bare list. */
        final Type.Aggregate of;

        ListValue(List<Expr> items) {
            this(items, false);
        }

        ListValue(List<Expr> items, boolean restDefault) {
            this(items, restDefault, null);
        }

        private ListValue(List<Expr> items, boolean restDefault, Type.Aggregate of) {
            super(new Type.Tuple(typesOf(items)));
            this.items = items;
            this.restDefault = restDefault;
            this.of = of;
        }

        /** The same items as the fields of {@code t}, in its field order. */
        ListValue of(Type.Aggregate t) {
            return new ListValue(items, false, t);
        }

        /** Every item known at compile time, nested lists too. */
        boolean isConstant() {
            return items.stream().allMatch(i -> i instanceof Expr.Const || i instanceof ListValue && ((ListValue) i).isConstant());
        }

        static List<Type> typesOf(List<Expr> items) {
            List<Type> t = new ArrayList<>();
            for (Expr e : items) {
                t.add(e.type);
            }
            return t;
        }
    }

    /** A structure-valued expression { f = e, ... } (P4_16 8.13): the fields in the order written. */
    private final class StructValue extends Expr {
        final Map<String, Expr> fields;
        /** Where each field is named, for errors. */
        final Map<String, ParserRuleContext> names;

        /** Ends in '...' (P4_16 8.26): the fields not named take their default values. */
        final boolean restDefault;

        StructValue(Map<String, Expr> fields, Map<String, ParserRuleContext> names, boolean restDefault) {
            super(new Type.Declared("structure-valued expression", "{ " + String.join(", ", fields.keySet()) + " }"));
            this.fields = fields;
            this.names = names;
            this.restDefault = restDefault;
        }

        /** The values as a list in the field order of t, which must have exactly these fields. */
        ListValue inOrderOf(Type.Aggregate t, ParserRuleContext at) {
            for (String name : fields.keySet()) {
                if (!t.fields.containsKey(name)) {
                    throw error(names.get(name), t + " has no field '" + name + "'");
                }
            }
            List<Expr> items = new ArrayList<>();
            for (String name : t.fields.keySet()) {
                Expr v = fields.get(name);
                if (v == null && !restDefault) {
                    throw error(at, "field '" + name + "' of " + t + " is not given a value (end the list with '...' for"
                            + " default values)");
                }
                items.add(v == null ? new DefaultValue() : v);
            }
            return new ListValue(items);
        }
    }

    /**
     * '...' (P4_16 8.26, 7.3): the default value of the type it is assigned to: 0, false, error.NoError,
     * an enum's first member (0 for a serializable enum), an invalid header, union or stack, a struct
     * or tuple of defaults. The state's slots hold exactly that when zeroed.
     */
    private static final class DefaultValue extends Expr {
        DefaultValue() {
            super(new Type.Declared("the default value", "'...'"));
        }
    }

    /** {#} (P4_16 8.17): an invalid header or header union of the type it is assigned or compared to, or cast to. */
    private static final class InvalidHeader extends Expr {
        /** (H){#}: H; null for {#}, whose type is its context's. */
        final Type cast;

        InvalidHeader(Type cast) {
            super(new Type.Declared("the invalid header", cast == null ? "{#}" : "(" + cast + "){#}"));
            this.cast = cast;
        }

        /** As the program writes it. */
        String written() {
            return ((Type.Declared) type).name;
        }

        boolean fits(Type t) {
            return cast == null || cast.equals(t);
        }
    }

    private String whereName() {
        switch (where) {
            case PARSER: return "a parser";
            case ACTION: return "an action";
            case FUNCTION: return "a function";
            case CONTROL: return "a control";
            default: return "a declaration";
        }
    }

    private Stmt switchStatement(SwitchStatementContext s, Scope sc, Context cx) {
        if (where != Where.CONTROL && where != Where.ACTION && where != Where.FUNCTION) {
            throw error(s, "a switch statement can be used only in a control's apply block, an action or a function, not in "
                    + whereName());
        }
        ExpressionContext sel = s.expression();
        ExpressionContext outerSwitch = switchExpression;
        switchExpression = sel;
        Object r;
        try {
            r = sel instanceof MemberExpressionContext ? resolve(sel, sc, cx) : null;
        } finally {
            switchExpression = outerSwitch;
        }
        Expr selector;
        Table table = null;
        if (r instanceof ActionRun) {
            table = ((ActionRun) r).table;
            selector = (Expr) r;
        } else {
            selector = expr(sel, sc, null);
            if (!(selector.type instanceof Type.Bits || selector.type instanceof Type.Enum || selector.type == errorType)
                    || selector.isWide()) {
                throw error(sel, "switch needs t.apply().action_run or a bit<W>, int<W>, enum or error value up to 64 bits, not "
                        + selector.type);
            }
        }
        List<Long> values = new ArrayList<>();
        List<Integer> branchOf = new ArrayList<>();
        List<Stmt> branches = new ArrayList<>();
        int defaultBranch = -1;
        List<SwitchLabelContext> pending = new ArrayList<>();
        List<SwitchCaseContext> cases = s.switchCase();
        for (SwitchCaseContext c : cases) {
            pending.add(c.switchLabel());
            boolean last = c == cases.get(cases.size() - 1);
            if (c.blockStatement() == null && !last) {
                continue;   // falls through to the next case with a body
            }
            int branch = branches.size();
            // P4_16 12.7: a last label without a body has an empty one
            branches.add(c.blockStatement() == null ? Stmt.EMPTY : block(c.blockStatement(), sc, cx));
            for (SwitchLabelContext l : pending) {
                if (defaultBranch >= 0) {
                    throw error(l, "a switch's default label must be its last label");
                }
                if (l.DEFAULT() != null) {
                    defaultBranch = branch;
                    continue;
                }
                long v;
                if (table != null) {
                    NameContext n = l.name();
                    if (n == null) {
                        throw error(l, "a case of a switch on action_run must name an action");
                    }
                    ActionSym a = actionSym(n, sc);
                    int idx = -1;
                    for (int i = 0; i < table.actions.size(); i++) {
                        if (table.actions.get(i).action == a.action) {
                            idx = i;
                        }
                    }
                    if (idx < 0) {
                        throw error(n, "action '" + n.getText() + "' is not an action of table '" + table.name + "'");
                    }
                    v = idx;
                } else if (l.expression() != null) {
                    v = constantValue(l.expression(), sc, selector.type).longValue();
                } else {
                    Object o = sc.lookup(l.name().getText());
                    if (!(o instanceof Var) || !(((Var) o).value instanceof Expr.Const)) {
                        throw error(l, "case '" + l.getText() + "' must be a constant of the switch's type");
                    }
                    v = ((Expr.Const) ((Var) o).value).value.longValue();
                }
                if (values.contains(v)) {
                    throw error(l, "case '" + l.getText() + "' appears twice");
                }
                values.add(v);
                branchOf.add(branch);
            }
            pending.clear();
        }
        long[] vs = new long[values.size()];
        int[] bs = new int[values.size()];
        for (int i = 0; i < vs.length; i++) {
            vs[i] = values.get(i);
            bs[i] = branchOf.get(i);
        }
        return exitAware(new Stmt.Switch(selector, vs, bs, branches.toArray(new Stmt[0]), defaultBranch));
    }

    // ---- expressions ----

    /** Compiles an l-value; the statements that fix its place go to {@code prelude} (see lvaluePrelude). */
    private Expr lvalue(ExpressionContext e, Scope sc, Type expected, List<Stmt> prelude) {
        List<Stmt> outer = lvaluePrelude;
        lvaluePrelude = prelude;
        try {
            return expr(e, sc, expected);
        } finally {
            lvaluePrelude = outer;
        }
    }

    /** Compiles an expression that must produce a value. */
    private Expr expr(ExpressionContext e, Scope sc, Type expected) {
        Object r = resolve(e, sc, new Context("", false, null), expected);
        if (r instanceof Expr) {
            return (Expr) r;
        }
        if (r instanceof ApplyResult) {
            throw error(e, "use t.apply().hit, .miss or .action_run, not the apply result itself");
        }
        throw error(e, "'" + e.getText() + "' is not a value");
    }

    private Object resolve(ExpressionContext e, Scope sc, Context cx) {
        return resolve(e, sc, cx, null);
    }

    private Object resolve(ExpressionContext e, Scope sc, Context cx, Type expected) {
        at(e);
        if (e instanceof IntLiteralContext) {
            return literal(((IntLiteralContext) e).INTEGER().getSymbol());
        }
        if (e instanceof BoolLiteralContext) {
            return new Expr.Const(Type.BOOL, e.getText().equals("true") ? 1 : 0);
        }
        if (e instanceof StringLiteralContext) {
            return new StringValue(unquote(e.getText()));
        }
        if (e instanceof ErrorMemberContext) {
            String m = ((ErrorMemberContext) e).name().getText();
            int i = errorType.members.indexOf(m);
            if (i < 0) {
                throw error(e, "error." + m + " is not declared");
            }
            return new Expr.Const(errorType, i);
        }
        if (e instanceof ParenExpressionContext) {
            return resolve(((ParenExpressionContext) e).expression(), sc, cx, expected);
        }
        if (e instanceof ListExpressionContext) {
            List<ExpressionContext> given = ((ListExpressionContext) e).expressionList().expression();
            List<Expr> items = new ArrayList<>();
            boolean restDefault = false;
            for (int i = 0; i < given.size(); i++) {
                if (given.get(i) instanceof DefaultExpressionContext) {
                    if (i != given.size() - 1) {
                        throw error(given.get(i), "'...' must be the last element of a list (P4_16 8.26)");
                    }
                    restDefault = true;
                } else {
                    items.add(expr(given.get(i), sc, null));
                }
            }
            return new ListValue(items, restDefault);
        }
        if (e instanceof StructExpressionContext) {
            Map<String, Expr> fields = new LinkedHashMap<>();
            Map<String, ParserRuleContext> names = new HashMap<>();
            for (KvPairContext kv : ((StructExpressionContext) e).kvPair()) {
                if (fields.put(kv.name().getText(), expr(kv.expression(), sc, null)) != null) {
                    throw error(kv.name(), "field '" + kv.name().getText() + "' is given twice");
                }
                names.put(kv.name().getText(), kv.name());
            }
            return new StructValue(fields, names, ((StructExpressionContext) e).DOTS() != null);
        }
        if (e instanceof DefaultExpressionContext) {
            return new DefaultValue();
        }
        if (e instanceof InvalidHeaderExpressionContext) {
            return new InvalidHeader(null);
        }
        if (e instanceof NameExpressionContext || e instanceof TopNameExpressionContext) {
            String n = e instanceof NameExpressionContext ? e.getText() : ((TopNameExpressionContext) e).name().getText();
            Object o = e instanceof NameExpressionContext ? sc.lookup(n) : global.lookup(n);
            if (o == null) {
                throw error(e, "'" + n + "' is not declared");
            }
            return o instanceof Var ? ((Var) o).value : o;
        }
        if (e instanceof MemberExpressionContext) {
            return member((MemberExpressionContext) e, sc, cx);
        }
        if (e instanceof IndexExpressionContext) {
            IndexExpressionContext ix = (IndexExpressionContext) e;
            Expr base = expr(ix.expression(0), sc, null);
            if (base.type instanceof Type.Aggregate && tupleStructs.containsValue(base.type)) {
                Type.Aggregate tuple = (Type.Aggregate) base.type;
                BigInteger i = constantValue(ix.expression(1), sc, null);
                Type.Field element = tuple.fields.get(i.toString());
                if (element == null) {
                    throw error(ix.expression(1), "index " + i + " is out of range for " + tuple.name);
                }
                return field((Expr.Agg) base, ((Expr.Agg) base).fixedBase(), element);
            }
            if (!(base.type instanceof Type.Stack)) {
                throw error(ix, "only header stacks can be indexed; '" + ix.expression(0).getText() + "' is " + base.type);
            }
            Type.Stack st = (Type.Stack) base.type;
            List<Stmt> prelude = lvaluePrelude;
            lvaluePrelude = null;   // the index is a value, not a place
            Expr index = numeric(asUnderlying(expr(ix.expression(1), sc, new Type.Bits(32, false)), ix.expression(1)), "[]",
                    ix.expression(1));
            lvaluePrelude = prelude;
            if (!(index.type instanceof Type.Bits || index.type == Type.INT_LITERAL)) {
                throw error(ix.expression(1), "a header stack's index is a number, not " + index.type + " (P4_16 8.18)");
            }
            if (prelude != null && !(index instanceof Expr.Const) && index.type instanceof Type.Bits && !index.isWide()) {
                Expr.Slot fixed = (Expr.Slot) storage(index.type);
                prelude.add(new Stmt.Assign(fixed, index));
                index = fixed;
            }
            int[] fixed = ((Expr.Agg) base).fixedBase();
            if (index instanceof Expr.Const && fixed != null) {
                BigInteger value = ((Expr.Const) index).value;
                if (value.signum() < 0 || value.compareTo(BigInteger.valueOf(st.size)) >= 0) {
                    throw error(ix.expression(1), "index " + value + " is out of range for " + st);
                }
                return element((Expr.Agg) base, value.intValue());
            }
            return new StackElement((Expr.Agg) base, index, StackElement.Mode.INDEX, (Expr.Agg) storage(st.element));
        }
        if (e instanceof IndexedSliceExpressionContext) {
            // e[L+:W] (P4_16 8.5): W bits from bit L; W compile-time known, L too where it is written to
            IndexedSliceExpressionContext s = (IndexedSliceExpressionContext) e;
            Expr base = expr(s.expression(0), sc, null);
            BigInteger width = constantValue(s.expression(2), sc, null);
            if (width.signum() <= 0 || base.type instanceof Type.Bits
                    && width.compareTo(BigInteger.valueOf(((Type.Bits) base.type).width)) > 0) {
                throw error(s, "slice [L+:" + width + "] is out of range for " + base.type);
            }
            List<Stmt> prelude = lvaluePrelude;
            lvaluePrelude = null;   // L is a value, not a place
            Expr low = expr(s.expression(1), sc, null);
            lvaluePrelude = prelude;
            if (low instanceof Expr.Const) {
                BigInteger l = ((Expr.Const) low).value;
                return slice(base, l.add(width).subtract(BigInteger.ONE), l, s);
            }
            if (!(base.type instanceof Type.Bits)) {
                throw error(s, "only bit strings can be sliced with an L not known at compile time, not " + base.type);
            }
            if (prelude != null) {
                throw error(s.expression(1), "softswitch assigns to a slice [L+:W] only with L known at compile time");
            }
            if (!(low.type instanceof Type.Bits) || ((Type.Bits) low.type).signed) {
                throw error(s.expression(1), "a slice's L that is not known at compile time must be a bit<W>, not " + low.type);
            }
            // as a shift by L: bits past the width read as 0
            Type.Bits from = (Type.Bits) base.type;
            Type.Bits unsigned = new Type.Bits(from.width, false);
            Expr bits = from.signed ? fold(new Ops.Cast(unsigned, base)) : base;
            return fold(new Ops.Cast(new Type.Bits(width.intValue(), false), fold(new Ops.Binary(Ops.Op.SHR, unsigned, bits, low))));
        }
        if (e instanceof SliceExpressionContext) {
            SliceExpressionContext s = (SliceExpressionContext) e;
            Expr base = expr(s.expression(0), sc, null);
            return slice(base, constantValue(s.expression(1), sc, null), constantValue(s.expression(2), sc, null), s);
        }
        Type castTo = parenthesizedTypeCalled(e, sc);
        if (castTo != null) {
            return castExpression(castTo, ((CallExpressionContext) e).argumentList().argument(0).expression(), e, sc);
        }
        if (e instanceof CallExpressionContext || e instanceof GenericCallExpressionContext) {
            Object r = call(e, sc, cx);
            if (r instanceof Stmt) {
                throw error(e, "'" + e.getText() + "' returns no value");
            }
            return r;
        }
        if (e instanceof CastExpressionContext) {
            CastExpressionContext c = (CastExpressionContext) e;
            return castExpression(type(c.typeRef(), sc), c.expression(), c, sc);
        }
        if (e instanceof UnaryExpressionContext) {
            UnaryExpressionContext u = (UnaryExpressionContext) e;
            String op = u.op.getText();
            Expr a = asUnderlying(expr(u.expression(), sc, op.equals("!") ? Type.BOOL : expected), u);
            if (op.equals("!")) {
                if (a.type != Type.BOOL) {
                    throw error(u, "'!' needs a bool, not " + a.type);
                }
                return fold(new Ops.Unary('!', Type.BOOL, a));
            }
            if (a.type == Type.INT_LITERAL) {
                BigInteger v = ((Expr.Const) a).value;
                if (op.equals("~")) {
                    throw error(u, "'~' needs a value with a width; write it as, for example, ~8w" + v);
                }
                return new Expr.Const(Type.INT_LITERAL, op.equals("-") ? v.negate() : v);
            }
            if (!(a.type instanceof Type.Bits)) {
                throw error(u, "'" + op + "' needs a bit<W> or int<W>, not " + a.type);
            }
            return fold(new Ops.Unary(op.charAt(0), a.type, numeric(a, op, u)));
        }
        if (e instanceof CondExpressionContext) {
            CondExpressionContext c = (CondExpressionContext) e;
            Expr cond = condition(c.expression(0), sc);
            Expr x = expr(c.expression(1), sc, expected);
            Expr y = expr(c.expression(2), sc, x.type == Type.INT_LITERAL ? expected : x.type);
            if (isAggregateValue(x) || isAggregateValue(y)
                    || expected instanceof Type.Aggregate || expected instanceof Type.Stack) {
                return aggregateChoice(cond, x, y, expected, c);
            }
            Type t = unify(x, y, c, "?:");
            Expr chosen = fold(new Ops.Conditional(t, cond, coerce(x, t, c), coerce(y, t, c)));
            if (t == Type.INT_LITERAL && !(chosen instanceof Expr.Const)) {
                throw error(c, "both values of '?:' are int literals (no width), which a condition known only at run time"
                        + " cannot choose between (P4_16, conditional operator); give one a width, as in 8w" + c.expression(1).getText());
            }
            return chosen;
        }
        return binary(e, sc, expected);
    }

    /** Where a function's or a '?:''s header, struct or stack stands that softswitch takes only whole. */
    private P4CompileException aggregateResultOnly(ParserRuleContext at) {
        return error(at, "a header, struct or stack that a function or '?:' gives is taken by =, an initialiser, an in"
                + " argument, return or emit: assign it to a variable first");
    }

    /** The width of an int<W>, or of a serializable enum over one; 0 for any other type. */
    private static int signedWidth(Type t) {
        Type bits = serializableEnum(t) != null ? serializableEnum(t).underlying : t;
        return bits instanceof Type.Bits && ((Type.Bits) bits).signed ? ((Type.Bits) bits).width : 0;
    }

    private static boolean isZeroWidth(Type t) {
        return t instanceof Type.Bits && ((Type.Bits) t).width == 0;
    }

    private static boolean isAggregateValue(Expr e) {
        return e instanceof Expr.Agg || e instanceof AggregateCall
                || e.type instanceof Type.Aggregate || e.type instanceof Type.Stack;
    }

    /**
     * cond ? x : y between headers, structs, unions, stacks or tuples (P4_16 8.5.1: both of one
     * type): the chosen one, alone evaluated, is copied into a temporary, which stands where the
     * value goes as a function's aggregate result does.
     */
    private Expr aggregateChoice(Expr cond, Expr x, Expr y, Type expected, ParserRuleContext at) {
        if (cond instanceof Expr.Const) {
            return ((Expr.Const) cond).value.signum() != 0 ? x : y;
        }
        Type t = x instanceof Expr.Agg || x instanceof AggregateCall ? x.type
                : y instanceof Expr.Agg || y instanceof AggregateCall ? y.type : expected;
        if (!(t instanceof Type.Aggregate || t instanceof Type.Stack)) {
            throw error(at, "'?:' chooses between two values of one type, not " + x.type + " and " + y.type
                    + (t == null ? " (give the lists a type, as in (S){...})" : ""));
        }
        for (Expr branch : List.of(x, y)) {
            boolean typed = branch instanceof Expr.Agg || branch instanceof AggregateCall || branch.type.isScalar();
            if (typed && !branch.type.equals(t)) {
                throw error(at, "'?:' chooses between two values of one type, not " + x.type + " and " + y.type);
            }
        }
        Expr.Agg chosen = (Expr.Agg) storage(t);
        return new AggregateCall(new Stmt.If(cond, assign(chosen, x, at), assign(chosen, y, at)), chosen);
    }

    private static final class StringValue extends Expr {
        final String value;

        StringValue(String value) {
            super(Type.STRING);
            this.value = value;
        }
    }

    private Expr binary(ExpressionContext e, Scope sc, Type expected) {
        ExpressionContext l;
        ExpressionContext r;
        String op;
        if (e instanceof MulExpressionContext) {
            l = ((MulExpressionContext) e).expression(0);
            r = ((MulExpressionContext) e).expression(1);
            op = ((MulExpressionContext) e).op.getText();
        } else if (e instanceof AddExpressionContext) {
            l = ((AddExpressionContext) e).expression(0);
            r = ((AddExpressionContext) e).expression(1);
            op = ((AddExpressionContext) e).op.getText();
        } else if (e instanceof ShiftExpressionContext) {
            l = ((ShiftExpressionContext) e).expression(0);
            r = ((ShiftExpressionContext) e).expression(1);
            op = e.getChild(1).getText().equals("<<") ? "<<" : ">>";
            if (op.equals(">>")) {
                Token first = ((TerminalNode) e.getChild(1)).getSymbol();
                Token second = ((TerminalNode) e.getChild(2)).getSymbol();
                if (second.getStartIndex() != first.getStopIndex() + 1) {
                    // the grammar's '>' '>' (so that generic types may close with >>); a shift is one token
                    throw error(second, "'> >' is not a shift: write '>>' with nothing between");
                }
            }
        } else if (e instanceof BitAndExpressionContext) {
            l = ((BitAndExpressionContext) e).expression(0);
            r = ((BitAndExpressionContext) e).expression(1);
            op = "&";
        } else if (e instanceof BitXorExpressionContext) {
            l = ((BitXorExpressionContext) e).expression(0);
            r = ((BitXorExpressionContext) e).expression(1);
            op = "^";
        } else if (e instanceof BitOrExpressionContext) {
            l = ((BitOrExpressionContext) e).expression(0);
            r = ((BitOrExpressionContext) e).expression(1);
            op = "|";
        } else if (e instanceof RelExpressionContext) {
            l = ((RelExpressionContext) e).expression(0);
            r = ((RelExpressionContext) e).expression(1);
            op = ((RelExpressionContext) e).op.getText();
        } else if (e instanceof EqExpressionContext) {
            l = ((EqExpressionContext) e).expression(0);
            r = ((EqExpressionContext) e).expression(1);
            op = ((EqExpressionContext) e).op.getText();
        } else if (e instanceof AndExpressionContext) {
            l = ((AndExpressionContext) e).expression(0);
            r = ((AndExpressionContext) e).expression(1);
            op = "&&";
        } else if (e instanceof OrExpressionContext) {
            l = ((OrExpressionContext) e).expression(0);
            r = ((OrExpressionContext) e).expression(1);
            op = "||";
        } else {
            throw error(e, "unsupported expression '" + e.getText() + "'");
        }
        if (op.equals("&&") || op.equals("||")) {
            Expr a = condition(l, sc);
            Expr b = condition(r, sc);
            return fold(new Ops.Binary(op.equals("&&") ? Ops.Op.LAND : Ops.Op.LOR, Type.BOOL, a, b));
        }
        boolean comparison = op.equals("==") || op.equals("!=") || op.equals("<") || op.equals(">")
                || op.equals("<=") || op.equals(">=");
        boolean shift = op.equals("<<") || op.equals(">>");
        Expr a = expr(l, sc, comparison || op.equals("++") ? null : expected);
        Expr b = expr(r, sc, shift || op.equals("++") ? null : a.type == Type.INT_LITERAL ? (comparison ? null : expected) : a.type);
        return operate(op, a, b, e, l, r);
    }

    private static final Expr FALSE = new Expr.Const(Type.BOOL, 0);

    /** Two header stacks of one type (P4_16 8.18): equal when their elements are, one by one. */
    private Expr stacksEqual(Expr.Agg a, Expr.Agg b, ParserRuleContext e) {
        Type.Stack t = (Type.Stack) a.type;
        Expr all = new Expr.Const(Type.BOOL, 1);
        for (int i = 0; i < t.size; i++) {
            all = fold(new Ops.Binary(Ops.Op.LAND, Type.BOOL, all, aggregatesEqual(element(a, i), element(b, i), e)));
        }
        return all;
    }

    /** Element i (a constant) of a stack, at its place when the stack has one. */
    private Expr.Agg element(Expr.Agg stack, int i) {
        Type.Stack t = (Type.Stack) stack.type;
        int[] base = stack.fixedBase();
        if (base != null) {
            return new Expr.FixedAgg(t.element, base[0] + i * t.element.narrowSlots(), base[1] + i * t.element.wideSlots());
        }
        return new StackElement(stack, new Expr.Const(new Type.Bits(32, false), i), StackElement.Mode.INDEX,
                (Expr.Agg) storage(t.element));
    }

    /**
     * {@code a == b} of two headers or structs of one type (P4_16 8.17, 8.12): every field equal,
     * field by field as {@code ==} compares them; two headers are also equal when both are invalid,
     * and not when one is.
     */
    private Expr aggregatesEqual(Expr.Agg a, Expr.Agg b, ParserRuleContext e) {
        Type.Aggregate t = (Type.Aggregate) a.type;
        Expr all = fieldsEqual(fieldsOf(a), fieldsOf(b), e);
        if (!t.header) {
            return all;
        }
        Expr validA = new IsValid(a);
        Expr validB = new IsValid(b);
        Expr bothInvalid = new Ops.Binary(Ops.Op.LAND, Type.BOOL, new Ops.Binary(Ops.Op.EQ, Type.BOOL, validA, FALSE),
                new Ops.Binary(Ops.Op.EQ, Type.BOOL, validB, FALSE));
        Expr bothValidAndEqual = new Ops.Binary(Ops.Op.LAND, Type.BOOL,
                new Ops.Binary(Ops.Op.LAND, Type.BOOL, validA, validB), all);
        return new Ops.Binary(Ops.Op.LOR, Type.BOOL, bothInvalid, bothValidAndEqual);
    }

    /**
     * {@code s == (S) { a = 1, b = 2 }}, {@code s == x} for a constant struct x (P4_16 8.13): a
     * struct or header against a list of its fields' values, or two such lists, field by field; a
     * header so compared must be valid (a list makes a valid header).
     */
    private Expr equalsList(Expr a, Expr b, ParserRuleContext e) {
        Type.Aggregate t = a instanceof Expr.Agg && a.type instanceof Type.Aggregate ? (Type.Aggregate) a.type
                : b instanceof Expr.Agg && b.type instanceof Type.Aggregate ? (Type.Aggregate) b.type
                : a instanceof ListValue && ((ListValue) a).of != null ? ((ListValue) a).of
                : b instanceof ListValue && ((ListValue) b).of != null ? ((ListValue) b).of : null;
        if (t == null || t.union) {
            throw error(e, "softswitch compares a list or structure-valued expression with a struct or header (or a"
                    + " constant one) of the fields it gives, not " + a.type + " with " + b.type);
        }
        Expr all = fieldsEqual(fieldValues(a, t, e), fieldValues(b, t, e), e);
        for (Expr side : List.of(a, b)) {
            if (t.header && side instanceof Expr.Agg) {
                all = fold(new Ops.Binary(Ops.Op.LAND, Type.BOOL, new IsValid((Expr.Agg) side), all));
            }
        }
        return all;
    }

    /** A header's or struct's fields, in order, as values. */
    private List<Expr> fieldsOf(Expr.Agg a) {
        List<Expr> out = new ArrayList<>();
        for (Type.Field f : ((Type.Aggregate) a.type).fields.values()) {
            out.add(f.type instanceof Type.Varbit ? new VarbitIo.Field(a, f) : field(a, a.fixedBase(), f));
        }
        return out;
    }

    /** Every value of x equal to the one at its place in y, as {@code ==} compares them. */
    private Expr fieldsEqual(List<Expr> x, List<Expr> y, ParserRuleContext e) {
        Expr all = new Expr.Const(Type.BOOL, 1);
        for (int i = 0; i < x.size(); i++) {
            all = fold(new Ops.Binary(Ops.Op.LAND, Type.BOOL, all, operate("==", x.get(i), y.get(i), e, e, e)));
        }
        return all;
    }

    /** The values of t's fields, in order, that v gives: a struct or header of type t, or a list of them. */
    private List<Expr> fieldValues(Expr v, Type.Aggregate t, ParserRuleContext e) {
        if (v instanceof Expr.Agg && v.type.equals(t)) {
            return fieldsOf((Expr.Agg) v);
        }
        if (v instanceof ListValue && (((ListValue) v).of == null || ((ListValue) v).of.equals(t))) {
            return asStruct((ListValue) v, t, e).items;
        }
        if (v instanceof StructValue) {
            return asStruct(((StructValue) v).inOrderOf(t, e), t, e).items;
        }
        throw error(e, "cannot compare " + v.type + " with " + t);
    }

    /** {@code h == {#}} (P4_16 8.17, 8.20): a header or header union is equal to an invalid one when it is invalid. */
    private Expr equalsInvalid(Expr h, InvalidHeader invalid, boolean equal, ParserRuleContext e) {
        if (!(h instanceof Expr.Agg) || !isHeaderOrUnion(h.type) || !invalid.fits(h.type)) {
            throw error(e, invalid.written() + " is an invalid header or header union; it compares with one of its type, not with "
                    + h.type);
        }
        Expr valid = ((Type.Aggregate) h.type).union ? new UnionIsValid(unionMembers((Expr.Agg) h)) : new IsValid((Expr.Agg) h);
        return equal ? new Ops.Binary(Ops.Op.EQ, Type.BOOL, valid, FALSE) : valid;
    }

    /** {@code a op b} for an operator other than && and ||, with its type rules; l and r locate the operands. */
    private Expr operate(String op, Expr a, Expr b, ParserRuleContext e, ParserRuleContext l, ParserRuleContext r) {
        boolean shift = op.equals("<<") || op.equals(">>");
        boolean comparison = op.equals("==") || op.equals("!=") || op.equals("<") || op.equals("<=")
                || op.equals(">") || op.equals(">=");
        if (a.type == Type.INT_LITERAL && b.type != Type.INT_LITERAL && comparison) {
            a = coerce(a, b.type, l);
        }
        if (op.equals("==") || op.equals("!=")) {
            if (a instanceof InvalidHeader || b instanceof InvalidHeader) {
                return a instanceof InvalidHeader ? equalsInvalid(b, (InvalidHeader) a, op.equals("=="), e)
                        : equalsInvalid(a, (InvalidHeader) b, op.equals("=="), e);
            }
            if (a instanceof VarbitIo.Field && b instanceof VarbitIo.Field && a.type.equals(b.type)) {
                return new VarbitIo.Equal((VarbitIo.Field) a, (VarbitIo.Field) b, op.equals("=="));
            }
            if (a instanceof AggregateCall || b instanceof AggregateCall) {
                throw aggregateResultOnly(e);
            }
            if (a instanceof ListValue || a instanceof StructValue || b instanceof ListValue || b instanceof StructValue) {
                Expr equal = equalsList(a, b, e);
                return op.equals("==") ? equal : fold(new Ops.Binary(Ops.Op.EQ, Type.BOOL, equal, FALSE));
            }
            // two header unions are equal when each member is (P4_16 8.20: the same valid member, equal, or none)
            boolean stacks = a.type instanceof Type.Stack && a.type.equals(b.type);
            if (a instanceof Expr.Agg && b instanceof Expr.Agg && (stacks || a.type == b.type && a.type instanceof Type.Aggregate)) {
                Expr equal = stacks ? stacksEqual((Expr.Agg) a, (Expr.Agg) b, e) : aggregatesEqual((Expr.Agg) a, (Expr.Agg) b, e);
                return op.equals("==") ? equal : fold(new Ops.Binary(Ops.Op.EQ, Type.BOOL, equal, FALSE));
            }
            if (a instanceof Expr.Agg || b instanceof Expr.Agg) {
                throw error(e, "softswitch compares with '" + op + "' two headers, two structs, two header unions or two"
                        + " header stacks of one type (not a list); compare fields");
            }
            Type t = unify(a, b, e, op);
            if (t == Type.INT_LITERAL) {
                return new Expr.Const(Type.BOOL, ((Expr.Const) a).value.equals(((Expr.Const) b).value) == op.equals("==") ? 1 : 0);
            }
            return fold(new Ops.Binary(op.equals("==") ? Ops.Op.EQ : Ops.Op.NE, Type.BOOL, coerce(a, t, l), coerce(b, t, r)));
        }
        // P4_16 8.3: elsewhere a serializable enum's value is its underlying type's
        a = numeric(asUnderlying(a, l), op, l);
        b = numeric(asUnderlying(b, r), op, r);
        if (a.type == Type.INT_LITERAL && b.type == Type.INT_LITERAL) {
            return literalArithmetic(op, ((Expr.Const) a).value, ((Expr.Const) b).value, (ParserRuleContext) e);
        }
        if (op.equals("++")) {
            if (!(a.type instanceof Type.Bits) || !(b.type instanceof Type.Bits)) {
                throw error(e, "'++' needs two bit strings with widths, not " + a.type + " and " + b.type);
            }
            int w = ((Type.Bits) a.type).width + ((Type.Bits) b.type).width;
            return fold(new Ops.Binary(Ops.Op.CONCAT, new Type.Bits(w, ((Type.Bits) a.type).signed), a, b));
        }
        if (shift && a.type == Type.INT_LITERAL && b instanceof Expr.Const && b.type instanceof Type.Bits
                && !((Type.Bits) b.type).signed) {
            // P4_16 8.8: an int shifted by a compile-time bit<S> amount is an int
            return literalArithmetic(op, ((Expr.Const) a).value, ((Expr.Const) b).value, (ParserRuleContext) e);
        }
        if (shift) {
            if (!(a.type instanceof Type.Bits)) {
                throw error(l, "'" + op + "' needs a bit<W> or int<W> on its left, not " + a.type
                        + (a.type == Type.INT_LITERAL ? " shifted by a run-time amount (an int shifts by a compile-time one)" : ""));
            }
            if (b.type == Type.INT_LITERAL) {
                BigInteger amount = ((Expr.Const) b).value;
                if (amount.signum() < 0) {
                    throw error(r, "a shift amount must not be negative, not " + amount);
                }
                // any amount of at least the width shifts every bit out
                b = new Expr.Const(new Type.Bits(32, false), amount.min(BigInteger.valueOf(IntLiterals.MAX_BITS)));
            } else if (!(b.type instanceof Type.Bits) || ((Type.Bits) b.type).signed) {
                throw error(r, "a shift amount must be unsigned, not " + b.type);
            }
            return fold(new Ops.Binary(op.equals("<<") ? Ops.Op.SHL : Ops.Op.SHR, a.type, a, b));
        }
        Type t = unify(a, b, e, op);
        if (!(t instanceof Type.Bits)) {
            throw error(e, "'" + op + "' needs bit<W> or int<W> operands, not " + t);
        }
        boolean nonZeroLiteral = b.type == Type.INT_LITERAL && ((Expr.Const) b).value.signum() != 0;
        a = comparison ? coerce(a, t, l) : operandOf(a, t, l);
        b = comparison ? coerce(b, t, r) : operandOf(b, t, r);
        Ops.Op o;
        switch (op) {
            case "+": o = Ops.Op.ADD; break;
            case "-": o = Ops.Op.SUB; break;
            case "*": o = Ops.Op.MUL; break;
            case "/": o = Ops.Op.DIV; break;
            case "%": o = Ops.Op.MOD; break;
            case "|+|": o = Ops.Op.SAT_ADD; break;
            case "|-|": o = Ops.Op.SAT_SUB; break;
            case "&": o = Ops.Op.AND; break;
            case "|": o = Ops.Op.OR; break;
            case "^": o = Ops.Op.XOR; break;
            case "<": o = Ops.Op.LT; break;
            case "<=": o = Ops.Op.LE; break;
            case ">": o = Ops.Op.GT; break;
            case ">=": o = Ops.Op.GE; break;
            default: throw error(e, "unsupported operator '" + op + "'");
        }
        if ((o == Ops.Op.DIV || o == Ops.Op.MOD) && ((Type.Bits) t).signed) {
            throw error(e, "'" + op + "' is not defined on signed values (P4_16: int<W> has no division or modulo);"
                    + " cast to bit<W> first, or shift");
        }
        if ((o == Ops.Op.DIV || o == Ops.Op.MOD) && !(b instanceof Expr.Const)) {
            // P4_16 8.6 gives bit<W> no division; p4c takes one by a compile-time divisor, and so does softswitch
            throw error(r, "'" + op + "' needs a divisor known at compile time (P4_16 8.6 gives bit<W> no division; p4c"
                    + " divides only by a constant), and " + r.getText() + " is known only at run time");
        }
        if ((o == Ops.Op.DIV || o == Ops.Op.MOD) && b instanceof Expr.Const && ((Expr.Const) b).value.signum() == 0) {
            throw error(e, "division by zero" + (nonZeroLiteral ? " (the divisor, cut to " + t + ", is 0)" : ""));
        }
        boolean cmp = o == Ops.Op.LT || o == Ops.Op.LE || o == Ops.Op.GT || o == Ops.Op.GE;
        return fold(new Ops.Binary(o, cmp ? Type.BOOL : t, a, b));
    }

    /**
     * An operand of arithmetic or bitwise operators: an int literal is cast to the other operand's
     * type, the value cut to its width (P4_16's implicit cast: x | 0xFFF on bit<8> is x | 8w0xFF);
     * anything else as coerce() checks it.
     */
    private Expr operandOf(Expr e, Type t, ParserRuleContext at) {
        return coerce(e, t, at);
    }

    private Expr literalArithmetic(String op, BigInteger x, BigInteger y, ParserRuleContext at) {
        try {
            BigInteger v = IntLiterals.apply(op, x, y);
            boolean comparison = op.equals("<") || op.equals("<=") || op.equals(">") || op.equals(">=");
            return new Expr.Const(comparison ? Type.BOOL : Type.INT_LITERAL, v);
        } catch (IntLiterals.Problem p) {
            throw error(at, p.getMessage());
        }
    }

    /** The common type of two operands; a literal takes the other's type. */
    private Type unify(Expr a, Expr b, ParserRuleContext at, String op) {
        if (a.type == Type.INT_LITERAL) {
            return b.type;
        }
        if (b.type == Type.INT_LITERAL || a.type.equals(b.type)) {
            return a.type;
        }
        // a serializable enum and its underlying type meet in the underlying type (P4_16 8.11.2)
        if (a.type.equals(underlying(b.type))) {
            return a.type;
        }
        if (b.type.equals(underlying(a.type))) {
            return b.type;
        }
        throw error(at, "the operands of '" + op + "' have different types: " + a.type + " and " + b.type
                + (a.type instanceof Type.Bits && b.type instanceof Type.Bits ? " (cast one of them)" : ""));
    }

    /** Constant-folds an operator whose operands are all constants. */
    private static Expr fold(Expr e) {
        try {
            return new Expr.Const(e.type, e.evalWide(null));
        } catch (NullPointerException notConstant) {
            return e;
        }
    }

    /** t when it is a type introduced by `type` (P4_16 7.6), else null. */
    private static Type.Bits newType(Type t) {
        return t instanceof Type.Bits && ((Type.Bits) t).declared != null ? (Type.Bits) t : null;
    }

    /** x, an operand of op, which a value of a type introduced by `type` is not: it takes only =, == and != (P4_16 7.6). */
    private Expr numeric(Expr x, String op, ParserRuleContext at) {
        if (newType(x.type) != null) {
            throw error(at, "'" + op + "' cannot be applied to " + x.type + ", a type introduced by 'type' (P4_16 7.6: it"
                    + " takes no arithmetic, bitwise or ordering operator); cast it: (" + newType(x.type).plain() + ") ...");
        }
        return x;
    }

    /** A serializable enum's value as its underlying type's (P4_16 8.3); any other value as it is. */
    private Expr asUnderlying(Expr x, ParserRuleContext at) {
        return serializableEnum(x.type) != null ? cast(x, underlying(x.type), at) : x;
    }

    /** t when it is a serializable enum, else null. */
    private static Type.Enum serializableEnum(Type t) {
        return t instanceof Type.Enum && ((Type.Enum) t).underlying != null ? (Type.Enum) t : null;
    }

    /** A serializable enum's underlying bit<W> type; null for any other type. */
    private static Type underlying(Type t) {
        return t instanceof Type.Enum ? ((Type.Enum) t).underlying : null;
    }

    /**
     * Converts a literal to the expected type; checks other values for assignability. A serializable
     * enum's value goes where its underlying type is expected (P4_16 8.11.2: an implicit cast).
     */
    private Expr coerce(Expr e, Type to, ParserRuleContext at) {
        if (e instanceof DefaultValue && to != null && !(to instanceof Type.Var) && (to.isScalar() || to == Type.INT_LITERAL)) {
            return new Expr.Const(to, 0);   // every scalar's default is the value its slot holds when zeroed
        }
        if (e instanceof InvalidHeader && to != null && !(to instanceof Type.Var)) {
            String written = ((InvalidHeader) e).written();
            throw error(at, isHeaderOrUnion(to) ? written + " goes where a header or header union is assigned, passed in or"
                    + " compared, not here" : written + " is an invalid header or header union, not a value of " + to);
        }
        if (e instanceof DefaultValue && to instanceof Type.Varbit) {
            throw error(at, "softswitch has no default value ('...') for a " + to + " (a varbit field or variable starts empty)");
        }
        if (e instanceof DefaultValue || e instanceof InvalidHeader) {
            throw error(at, (e instanceof InvalidHeader ? "'{#}'" : "'...'") + " takes its type from where it goes: initialise or"
                    + " assign a variable, a field or an in argument with it" + (e instanceof InvalidHeader
                    ? " (a header or header union), or compare a header with it" : ""));
        }
        if (to == null || e.type.equals(to) || to instanceof Type.Var) {
            return e;
        }
        if (to.equals(underlying(e.type))) {
            return cast(e, to, at);
        }
        if (e.type == Type.INT_LITERAL && to instanceof Type.Bits && ((Type.Bits) to).declared == null) {
            // P4_16 8.11.2: an implicit cast, which cuts the value to the width; a warning on overflow
            Type.Bits b = (Type.Bits) to;
            BigInteger v = ((Expr.Const) e).value;
            BigInteger limit = BigInteger.ONE.shiftLeft(b.width);
            BigInteger highest = b.signed ? limit.shiftRight(1).subtract(BigInteger.ONE) : limit.subtract(BigInteger.ONE);
            BigInteger lowest = b.signed ? limit.shiftRight(1).negate() : limit.negate();
            BigInteger cut = v.mod(limit);
            if (v.compareTo(highest) > 0 || v.compareTo(lowest) < 0) {
                BigInteger shown = b.signed && cut.compareTo(highest) > 0 ? cut.subtract(limit) : cut;
                warn(at, "the value " + v + " does not fit in " + to + ": it is cut to " + shown + " (P4_16 8.11.2)");
            }
            return new Expr.Const(to, cut);
        }
        throw error(at, "expected " + to + ", got " + e.type + (newType(to) != null || newType(e.type) != null
                ? " (a type introduced by 'type' mixes with no other without a cast, P4_16 7.6: (" + to + ") ...)"
                : e.type instanceof Type.Bits && to instanceof Type.Bits
                ? " (cast it: (" + to + ") ...)" : e.type == Type.INT_LITERAL && to instanceof Type.Enum && ((Type.Enum) to).underlying != null
                ? " (an int becomes a serializable enum only by a cast, P4_16 8.11.2: (" + ((Type.Enum) to).name + ") ...)" : ""));
    }

    /** {@code (t) operand}, written at {@code at}. */
    private Expr castExpression(Type t, ExpressionContext operand, ParserRuleContext at, Scope sc) {
        Expr value = expr(operand, sc, t);
        if (value instanceof InvalidHeader && isHeaderOrUnion(t)) {
            return new InvalidHeader(t);   // (H){#}: checked against where it goes
        }
        if (value instanceof StructValue && t instanceof Type.Aggregate && !((Type.Aggregate) t).union) {
            // (S){ f = e, ... } (P4_16 8.13): checked against S here, laid out where it is assigned
            ((StructValue) value).inOrderOf((Type.Aggregate) t, at);
            return value;
        }
        if (value instanceof ListValue && t instanceof Type.Stack) {
            return value;   // (H[n]) { ... } (P4_16 8.18): checked where it is assigned
        }
        if (value instanceof ListValue && t instanceof Type.Aggregate && !((Type.Aggregate) t).union) {
            // (S) { 1, 2 } (P4_16 8.11.1, 8.12): the values of S's fields in order, a valid header for a header
            return asStruct((ListValue) value, (Type.Aggregate) t, at).of((Type.Aggregate) t);
        }
        if (value.type instanceof Type.Bits && t instanceof Type.Bits) {
            Type.Bits from = (Type.Bits) value.type;
            Type.Bits to = (Type.Bits) t;
            if (from.signed != to.signed && from.width != to.width) {
                throw error(at, "a cast changes the sign or the width of a value, not both (P4_16, explicit casts:"
                        + " from " + from + " to " + to + "); cast in two steps, as in (" + to + ") ("
                        + new Type.Bits(from.width, to.signed) + ") " + operand.getText());
            }
        }
        return cast(value, t, at);
    }

    /**
     * T of {@code (T)(operand)} where T names a type: parsed as a call of the parenthesized name,
     * it is a cast (P4_16 8.11); null for anything else.
     */
    private Type parenthesizedTypeCalled(ExpressionContext e, Scope sc) {
        if (!(e instanceof CallExpressionContext)
                || !(((CallExpressionContext) e).expression() instanceof ParenExpressionContext)) {
            return null;
        }
        ExpressionContext callee = ((ParenExpressionContext) ((CallExpressionContext) e).expression()).expression();
        List<ArgumentContext> args = ((CallExpressionContext) e).argumentList().argument();
        if (!(callee instanceof NameExpressionContext) || ((NameExpressionContext) callee).name().TYPE_IDENT() == null
                || args.size() != 1 || args.get(0).expression() == null || args.get(0).name() != null) {
            return null;
        }
        Object named = unalias(sc.lookup(callee.getText()));
        return named instanceof Type ? (Type) named : null;
    }

    private Expr cast(Expr e, Type to, ParserRuleContext at) {
        if (e.type.equals(to)) {
            return e;
        }
        if (e.type == Type.INT_LITERAL) {
            if (to instanceof Type.Bits) {
                Type.Bits b = (Type.Bits) to;
                return new Expr.Const(to, ((Expr.Const) e).value.mod(BigInteger.ONE.shiftLeft(b.width)));
            }
            BigInteger v = ((Expr.Const) e).value;
            if (to == Type.BOOL && (v.equals(BigInteger.ZERO) || v.equals(BigInteger.ONE))) {
                return new Expr.Const(to, v);
            }
            if (to instanceof Type.Enum && ((Type.Enum) to).underlying != null) {
                return cast(cast(e, ((Type.Enum) to).underlying, at), to, at);
            }
            throw error(at, "cannot cast the integer " + v + " to " + to + (to == Type.BOOL ? " (only 0 and 1 can be)" : ""));
        }
        if (newType(to) != null || newType(e.type) != null) {
            if (!(e.type instanceof Type.Bits && to instanceof Type.Bits && ((Type.Bits) e.type).plain().equals(((Type.Bits) to).plain()))) {
                Type.Bits declared = newType(to) != null ? (Type.Bits) to : (Type.Bits) e.type;
                throw error(at, "cannot cast " + e.type + " to " + to + ": " + declared + ", a type introduced by 'type', casts"
                        + " only to and from its " + declared.plain() + " (P4_16 7.6)");
            }
            return fold(new Ops.Cast(to, e));
        }
        boolean fromBits = e.type instanceof Type.Bits;
        boolean fromBool = e.type == Type.BOOL;
        boolean fromSerEnum = e.type instanceof Type.Enum && ((Type.Enum) e.type).underlying != null;
        // P4_16 8.11.1: bool converts to and from bit<1> only, not int<1>
        if (to instanceof Type.Bits && (fromBits || fromSerEnum || (fromBool && to.equals(new Type.Bits(1, false))))) {
            return fold(new Ops.Cast(to, e));
        }
        if (to == Type.BOOL && e.type.equals(new Type.Bits(1, false))) {
            return fold(new Ops.Cast(to, e));
        }
        if (to instanceof Type.Enum && ((Type.Enum) to).underlying != null && fromBits) {
            return fold(new Ops.Cast(to, e));
        }
        if (to == Type.INT_LITERAL && fromBits) {
            // P4_16 8.11.1: bit<W> and int<W> to int keep the value (an int<W> may be negative); an int
            // lives only at compile time
            if (!(e instanceof Expr.Const)) {
                throw error(at, "cannot cast " + e.type + " to int here: only a compile-time known value can be an int");
            }
            Type.Bits b = (Type.Bits) e.type;
            BigInteger v = ((Expr.Const) e).value;
            return new Expr.Const(Type.INT_LITERAL, b.signed && v.testBit(b.width - 1) ? v.subtract(BigInteger.ONE.shiftLeft(b.width)) : v);
        }
        throw error(at, "cannot cast " + e.type + " to " + to);
    }

    private Expr.Const literal(Token t) {
        try {
            IntLiterals.Literal l = IntLiterals.parse(t.getText());
            return new Expr.Const(l.width < 0 ? Type.INT_LITERAL : new Type.Bits(l.width, l.signed), l.value);
        } catch (IntLiterals.Problem p) {
            throw error(t, p.getMessage());
        }
    }

    // ---- members ----

    /** t.apply().action_run: the index of the action that ran, in the table's action list. */
    private static final class ActionRun extends Expr {
        final Table table;
        private final Expr apply;

        ActionRun(Table table, Expr apply) {
            super(new Type.Bits(32, false));
            this.table = table;
            this.apply = apply;
        }

        @Override public long eval(State s) {
            apply.eval(s);
            return s.lastActionIndex;
        }

        @Override public void jvmLong(Jit j) {
            j.narrow(apply);
            j.code().visitInsn(POP2);
            j.stateField("lastActionIndex", "I");
            j.code().visitInsn(I2L);
        }

        @Override public String c(CodeWriter w) {
            apply.c(w);
            return "s->action_run";
        }
    }

    private Object member(MemberExpressionContext m, Scope sc, Context cx) {
        String name = m.name().getText();
        ExpressionContext baseCtx = m.expression();
        Object base = resolve(baseCtx, sc, cx);
        if (base instanceof ApplyResult) {
            Table t = ((ApplyResult) base).table;
            Expr apply = new TableApplyExpr(t);
            tableApplyExpressions++;
            switch (name) {
                case "hit": return apply;
                case "miss": return new Ops.Unary('!', Type.BOOL, apply);
                case "action_run":
                    if (m != switchExpression) {
                        throw error(m, "t.apply().action_run can only be the whole expression of a switch statement");
                    }
                    if (where != Where.CONTROL) {
                        throw error(m, "a switch on t.apply().action_run can be used only in a control's apply block");
                    }
                    return new ActionRun(t, apply);
                default: throw error(m.name(), "a table's apply() result has hit, miss and action_run, not '" + name + "'");
            }
        }
        if (base instanceof ListValue && ((ListValue) base).of != null) {
            ListValue v = (ListValue) base;
            int i = new ArrayList<>(v.of.fields.keySet()).indexOf(name);
            if (i < 0) {
                throw error(m.name(), v.of + " has no field '" + name + "'");
            }
            Expr field = v.items.get(i);
            Type ft = v.of.fields.get(name).type;
            return field instanceof ListValue && ft instanceof Type.Aggregate ? ((ListValue) field).of((Type.Aggregate) ft) : field;
        }
        if (base instanceof StructValue) {
            Expr field = ((StructValue) base).fields.get(name);
            if (field == null) {
                throw error(m.name(), "the structure-valued expression " + baseCtx.getText() + " has no field '" + name + "'");
            }
            return field;
        }
        if (base instanceof Type.Enum) {
            Type.Enum en = (Type.Enum) base;
            Long v = en.members.get(name);
            if (v == null) {
                throw error(m.name(), "'" + name + "' is not a member of " + en);
            }
            return new Expr.Const(en, v);
        }
        if (base instanceof Type.Named) {
            Type.Named n = (Type.Named) base;
            int i = n.members.indexOf(name);
            if (i < 0) {
                throw error(m.name(), "'" + name + "' is not a member of " + n.name);
            }
            return new Expr.Const(n, i);
        }
        if (base instanceof Expr.Agg) {
            Expr.Agg agg = (Expr.Agg) base;
            if (agg.type instanceof Type.Stack) {
                Type.Stack st = (Type.Stack) agg.type;
                // P4_16 8.18: next, last and lastIndex "may only be used in a parser"
                if ((name.equals("next") || name.equals("last") || name.equals("lastIndex"))
                        && (where == Where.CONTROL || where == Where.ACTION)) {
                    throw error(m.name(), "a stack's " + name + " can be used only in a parser, not in " + whereName()
                            + (name.equals("lastIndex") ? " (read it there into metadata)"
                            : " (index it there: " + m.expression().getText() + "[i])"));
                }
                switch (name) {
                    case "next":
                        return new StackElement(agg, null, StackElement.Mode.NEXT, (Expr.Agg) storage(st.element));
                    case "last":
                        if (where == Where.PARSER) {
                            stackGuards.add(lastNeedsAnElement(agg));
                        }
                        return new StackElement(agg, null, StackElement.Mode.LAST, (Expr.Agg) storage(st.element));
                    case "size":
                        return new Expr.Const(new Type.Bits(32, false), st.size);
                    case "lastIndex":
                        return new LastIndex(new PacketIo.Stack(agg));
                    default:
                        throw error(m.name(), st + " has no member '" + name + "' (it has next, last, size, lastIndex)");
                }
            }
            Type.Aggregate at = (Type.Aggregate) agg.type;
            Type.Field f = at.fields.get(name);
            if (f == null) {
                throw error(m.name(), at + " has no field '" + name + "'");
            }
            if (f.type instanceof Type.Varbit) {
                return new VarbitIo.Field(agg, f);   // operate and data say where it may stand
            }
            Expr member = field(agg, agg.fixedBase(), f);
            if (at.union) {
                List<Expr.Agg> siblings = new ArrayList<>();
                for (Type.Field other : at.fields.values()) {
                    if (other != f) {
                        siblings.add((Expr.Agg) field(agg, agg.fixedBase(), other));
                    }
                }
                unionSiblings.put(member, siblings);
            }
            return member;
        }
        if (base instanceof AggregateCall && ((AggregateCall) base).result.type instanceof Type.Aggregate
                && !((Type.Aggregate) ((AggregateCall) base).result.type).union) {
            // f().x (P4_16 8.12): the call runs, then its result's field is read
            AggregateCall call = (AggregateCall) base;
            Type.Field f = ((Type.Aggregate) call.result.type).fields.get(name);
            if (f == null) {
                throw error(m.name(), call.result.type + " has no field '" + name + "'");
            }
            if (f.type instanceof Type.Varbit) {
                throw aggregateResultOnly(m);
            }
            Expr field = field(call.result, call.result.fixedBase(), f);
            return field instanceof Expr.Agg ? new AggregateCall(call.call, (Expr.Agg) field)
                    : new FunctionCall(call.call, field);
        }
        if (base instanceof AggregateCall) {
            throw aggregateResultOnly(m);
        }
        if (base instanceof Expr) {
            throw error(m.name(), "'" + baseCtx.getText() + "' has type " + ((Expr) base).type + ", which has no member '" + name + "'");
        }
        // Methods are resolved by the call; keep the pair.
        return new MethodRef(base, name, m);
    }

    private static final class LastIndex extends Expr {
        private final PacketIo.Stack stack;

        LastIndex(PacketIo.Stack stack) {
            super(new Type.Bits(32, false));
            this.stack = stack;
        }

        @Override public long eval(State s) {
            return (stack.nextIndex(s) - 1) & 0xFFFFFFFFL;
        }

        @Override public String c(CodeWriter w) {
            return "((" + stack.cNextIndex(w) + " - 1) & 0xffffffffULL)";
        }
    }

    private static final class MethodRef {
        final Object target;
        final String method;
        final MemberExpressionContext at;

        MethodRef(Object target, String method, MemberExpressionContext at) {
            this.target = target;
            this.method = method;
            this.at = at;
        }
    }

    /** t.apply() inside an expression: applies the table, yields whether it hit. */
    private static final class TableApplyExpr extends Expr {
        private final Table table;

        TableApplyExpr(Table table) {
            super(Type.BOOL);
            this.table = table;
        }

        @Override public long eval(State s) {
            boolean hit = table.apply(s, s.packetLength) != null;
            if (s.exiting) {
                throw Stmt.ExitSignal.INSTANCE;   // the statement holding this expression ends here
            }
            return hit ? 1 : 0;
        }

        @Override public void jvmLong(Jit j) {
            j.applyTable(table);
            j.throwIfExiting();
            j.booleanOf(IFNULL);
        }

        @Override public String c(CodeWriter w) {
            w.applyTable(table);   // an action that exits leaves from there (CodeWriter.callable)
            return "s->hit";
        }
    }

    private Stmt applyStmt(Table t) {
        return new ApplyStmt(t);
    }

    private static final class ApplyStmt extends Stmt {
        private final Table table;

        ApplyStmt(Table table) {
            this.table = table;
        }

        @Override public int exec(State s) {
            table.apply(s, s.packetLength);
            return s.exiting ? EXIT : NEXT;
        }

        @Override public boolean jvm(Jit j) {
            j.applyTable(table);
            j.code().visitInsn(POP);
            j.pushInt(NEXT);
            j.exitIfExiting();
            return true;
        }

        @Override public void c(CodeWriter w) {
            w.applyTable(table);
            w.exitCheck();
        }
    }

    // ---- calls ----

    private Object call(ExpressionContext e, Scope sc, Context cx) {
        ExpressionContext calleeCtx;
        ArgumentListContext args;
        List<Type> targs = List.of();
        if (e instanceof GenericCallExpressionContext) {
            GenericCallExpressionContext g = (GenericCallExpressionContext) e;
            calleeCtx = g.expression();
            args = g.argumentList();
            targs = typeArgs(g.typeArgumentList(), sc);
        } else {
            calleeCtx = ((CallExpressionContext) e).expression();
            args = ((CallExpressionContext) e).argumentList();
        }
        if (calleeCtx instanceof MemberExpressionContext) {
            MemberExpressionContext mc = (MemberExpressionContext) calleeCtx;
            Object base = resolve(mc.expression(), sc, cx);
            String name = mc.name().getText();
            if (base instanceof BlockType && ((BlockType) base).decl != null) {
                return directInvocation((BlockType) base, new MethodRef(base, name, mc), args, sc, cx, e);
            }
            if (base instanceof Type && SIZE_METHODS.contains(name) && (args == null || args.argument().isEmpty())) {
                return size((Type) base, name, mc.name());   // U.minSizeInBits(), of a type by its name
            }
            if (base instanceof Expr && !(base instanceof Expr.Agg) && SIZE_METHODS.contains(name)
                    && (args == null || args.argument().isEmpty())) {
                return size(((Expr) base).type, name, mc.name());   // x.minSizeInBits() of a bit<W>, bool, ... (P4_16 8.22)
            }
            if (base instanceof Expr.Agg) {
                if (CHANGING_METHODS.contains(name)) {
                    requireNotReadOnly(mc.expression(), sc, "call " + name + "() on");
                }
                return headerMethod((Expr.Agg) base, name, args == null ? 0 : args.argument().size(), args, sc, mc.name());
            }
            if (!(base instanceof Expr) && !(base instanceof Type) && !(base instanceof ApplyResult)) {
                return method(new MethodRef(base, name, mc), args, targs, sc, cx, e);
            }
        }
        Object callee = resolve(calleeCtx, sc, cx);
        if (callee instanceof MethodRef) {
            return method((MethodRef) callee, args, targs, sc, cx, e);
        }
        if (callee instanceof ActionSym) {
            if (where == Where.PARSER || where == Where.FUNCTION) {
                // P4_16 Appendix F: actions are called from control apply blocks and other actions only
                throw error(calleeCtx, "a " + (where == Where.PARSER ? "parser" : "function") + " cannot call an action ('"
                        + calleeCtx.getText() + "'): move the code into a function");
            }
            if (inProgress.contains(callee)) {
                throw error(calleeCtx, "action '" + calleeCtx.getText() + "' calls itself: P4 has no recursion");
            }
            return actionDirectCall((ActionSym) callee, args, sc, e);
        }
        if (callee instanceof Overloads) {
            callee = overloadFor((Overloads) callee, args, calleeCtx);
        }
        if (callee instanceof FunctionSym && !declaredAt.isEmpty()
                && ((FunctionSym) callee).ctx.getStart().getTokenIndex() > declaredAt.peek()) {
            throw error(calleeCtx, "function '" + calleeCtx.getText() + "' is declared after the parser or control that"
                    + " calls it: declare it before (P4 names are declared before their use)");
        }
        if (callee instanceof FunctionSym) {
            if (inProgress.contains(callee)) {
                throw error(calleeCtx, "function '" + calleeCtx.getText() + "' calls itself: P4 has no recursion");
            }
            return functionCall((FunctionSym) callee, args, targs, sc, e);
        }
        if (callee instanceof ExternFunction) {
            int argc = args == null ? 0 : args.argument().size();
            return externFunction(calleeCtx.getText(), ((ExternFunction) callee).forArgs(argc), args, targs, sc, e);
        }
        if (callee instanceof Expr.Agg) {
            throw error(calleeCtx, "'" + calleeCtx.getText() + "' is not callable");
        }
        throw error(calleeCtx, "'" + calleeCtx.getText() + "' is not a function, action or method");
    }

    private Object method(MethodRef m, ArgumentListContext args, List<Type> targs, Scope sc, Context cx, ParserRuleContext at) {
        Object t = m.target;
        int argc = args == null ? 0 : args.argument().size();
        if (t instanceof TableSym) {
            if (!m.method.equals("apply")) {
                throw error(m.at.name(), "a table has only apply(), not '" + m.method + "'");
            }
            if (argc != 0) {
                throw error(at, "a table's apply() takes no arguments");
            }
            if (where != Where.CONTROL) {
                throw error(m.at, "a table can be applied only in a control's apply block, not in " + whereName());
            }
            appliedTables.add(((TableSym) t).table);
            return new ApplyResult(((TableSym) t).table);
        }
        if (t instanceof ControlInstance) {
            return applyControl((ControlInstance) t, m, args, sc, at);
        }
        if (t instanceof ParserInstance) {
            return applyParser((ParserInstance) t, m, args, sc, at);
        }
        if (t instanceof PendingInstance) {
            return applyPending((PendingInstance) t, m, args, sc, at);
        }
        if (t instanceof PacketParam) {
            return packetMethod((PacketParam) t, m, args, targs, sc, at);
        }
        if (t instanceof ExternInstance) {
            return externMethod((ExternInstance) t, m, args, sc, at);
        }
        if (t instanceof Expr.Agg) {
            throw error(m.at.name(), "'" + m.method + "' is not a method of " + ((Expr) t).type);
        }
        throw error(m.at, "'" + m.at.getText() + "' is not a method");
    }

    private Stmt applyControl(ControlInstance ci, MethodRef m, ArgumentListContext args, Scope sc, ParserRuleContext at) {
        if (!m.method.equals("apply")) {
            throw error(m.at.name(), "a control instance has only apply(), not '" + m.method + "'");
        }
        if (where != Where.CONTROL) {
            throw error(m.at, "a control can be applied only in a control's apply block, not in " + whereName());
        }
        List<Stmt> prelude = new ArrayList<>();
        List<Expr> values = arguments("'" + ci.name + ".apply'", ci.params, args, sc, new HashMap<>(), at, prelude);
        return copyInOut(prelude, ci.params, ci.slots, values, aliased(ci.params, args), ci.body);
    }

    /**
     * Applies a control or parser that takes extern instances (P4_16 8.24, Appendix F: by reference,
     * directionless). Its body must name one instance per parameter, so it is elaborated at its first
     * apply, with the instances that apply gives; every later apply must give the same ones.
     */
    private Stmt applyPending(PendingInstance pending, MethodRef m, ArgumentListContext args, Scope sc, ParserRuleContext at) {
        BlockType bt = pending.type;
        boolean control = "control".equals(bt.kind);
        Map<String, ExternInstance> given = new HashMap<>();
        List<ParameterContext> params = bt.params.parameter();
        List<ArgumentContext> list = args == null ? List.of() : args.argument();
        for (int i = 0; i < params.size(); i++) {
            ParameterContext p = params.get(i);
            if (!isExternParam(bt, p)) {
                continue;
            }
            String n = p.name().getText();
            ExpressionContext arg = null;
            for (int k = 0; k < list.size(); k++) {
                ArgumentContext a = list.get(k);
                if (a.name() != null ? a.name().getText().equals(n) : k == i) {
                    arg = a.expression();
                }
            }
            given.put(n, externArgument((ExternType) type(p.typeRef(), typeScope(bt)), p.typeRef(), "parameter '" + n + "' of '" + pending.name + ".apply'",
                    arg, sc, at));
        }
        if (pending.instance == null) {
            pending.externs = given;
            pending.instance = control ? instantiateControl(bt, pending.name, null, pending.at, pending.ctor, given)
                    : instantiateParser(bt, pending.name, null, pending.at, pending.ctor, given);
        } else if (!given.equals(pending.externs)) {
            throw error(at, "'" + pending.name + "' is applied here with other extern instances than before: softswitch"
                    + " elaborates an instance once, for one set of them (declare another instance for these)");
        }
        return control ? applyControl((ControlInstance) pending.instance, m, args, sc, at)
                : applyParser((ParserInstance) pending.instance, m, args, sc, at);
    }

    /** Whether a control or parser takes extern instances when applied (see applyPending). */
    private boolean takesExterns(BlockType bt) {
        return bt.params.parameter().stream().anyMatch(p -> isExternParam(bt, p));
    }

    /** A directionless parameter of an extern type other than the packet's. */
    private boolean isExternParam(BlockType bt, ParameterContext p) {
        String t = p.typeRef().getText();
        return p.direction() == null && !t.equals("packet_in") && !t.equals("packet_out")
                && type(p.typeRef(), typeScope(bt)) instanceof ExternType;
    }

    /** The scope a block's parameter types are read in: the program's, with its bound type parameters. */
    private Scope typeScope(BlockType bt) {
        Scope sc = new Scope(global);
        sc.symbols.putAll(bt.bindings);
        return sc;
    }

    /**
     * The block an instantiation names ({@code tr}): a generic parser or control bound to the type
     * arguments written after its name, which softswitch does not infer; any other as declared.
     */
    private BlockType boundBlock(BlockType bt, TypeRefContext tr, Scope sc) {
        List<Type> args = tr instanceof NamedTypeRefContext ? typeArgs(((NamedTypeRefContext) tr).typeArgumentList(), sc)
                : List.of();
        if (!bt.generic()) {
            if (!args.isEmpty()) {
                throw error(tr, bt.kind + " '" + bt.name + "' has no type parameters");
            }
            return bt;
        }
        if (args.size() != bt.typeParams.size()) {
            throw error(tr, bt.kind + " '" + bt.name + "' is generic: give its type argument"
                    + (bt.typeParams.size() == 1 ? "" : "s") + " for " + String.join(", ", bt.typeParams) + " (softswitch"
                    + " does not infer them), as in " + bt.name + "<" + String.join(", ",
                    java.util.Collections.nCopies(bt.typeParams.size(), "bit<8>")) + ">()");
        }
        return bt.specialised(args);
    }

    /**
     * Callee.apply(...) on a control or parser type (P4_16 15.1, direct type invocation): applies a
     * local instance named after the type, as if the enclosing block declared @name("Callee")
     * Callee() Callee. Each invocation is an instance of its own, all of one name, so a second
     * invocation in one block is an error when the type declares tables or extern instances (their
     * control-plane names would be taken twice).
     */
    private Stmt directInvocation(BlockType bt, MethodRef m, ArgumentListContext args, Scope sc, Context cx,
                                  ParserRuleContext at) {
        boolean control = "control".equals(bt.kind);
        if (!control && !"parser".equals(bt.kind)) {
            throw error(m.at, "'" + bt.name + "' is a " + bt.kind + ": only controls and parsers can be applied");
        }
        if (control ? where != Where.CONTROL : where != Where.PARSER) {
            throw error(m.at, control ? "a control can be applied only in a control's apply block, not in " + whereName()
                    : "a parser can be applied only in a parser state, not in " + whereName());
        }
        if (bt.generic()) {
            throw error(m.at, bt.kind + " '" + bt.name + "' is generic: apply an instance that gives its type arguments ("
                    + bt.name + "<...>() name;)");
        }
        String qname = cx.prefix + "." + bt.name;
        if (Boolean.TRUE.equals(directlyInvoked.get(qname))) {
            throw error(m.at, bt.name + " is invoked directly a second time in this " + (where == Where.CONTROL ? "control"
                    : "parser") + ": a second instance would declare its tables or extern instances again under"
                    + " the same names (P4_16 15.1); instantiate it twice under two names instead");
        }
        int claimedBefore = claimed.size();
        Object instance = takesExterns(bt) ? new PendingInstance(bt, qname, Map.of(), m.at)
                : control ? instantiateControl(bt, qname, null, m.at) : instantiateParser(bt, qname, null, m.at);
        Stmt applied = instance instanceof PendingInstance ? applyPending((PendingInstance) instance, m, args, sc, at)
                : control ? applyControl((ControlInstance) instance, m, args, sc, at)
                : applyParser((ParserInstance) instance, m, args, sc, at);
        directlyInvoked.put(qname, claimed.size() > claimedBefore);
        return applied;
    }

    private static final Set<String> SIZE_METHODS = Set.of("minSizeInBits", "minSizeInBytes", "maxSizeInBits", "maxSizeInBytes");

    /** base[high:low], of a bit<W> or int<W> (unsigned), or of a compile-time int. */
    private Expr slice(Expr base, BigInteger high, BigInteger low, ParserRuleContext s) {
        numeric(base, "[:]", s);
        if (!(base.type instanceof Type.Bits) && base.type != Type.INT_LITERAL) {
            throw error(s, "only bit strings and int values can be sliced, not " + base.type);
        }
        // an int (compile-time known) is sliced from its two's complement, as wide as the slice asks (P4_16 8.9)
        int w = base.type == Type.INT_LITERAL ? Math.max(high.min(BigInteger.valueOf(IntLiterals.MAX_BITS)).intValue() + 1, 1)
                : ((Type.Bits) base.type).width;
        if (low.signum() < 0 || high.compareTo(low) < 0 || high.compareTo(BigInteger.valueOf(w)) >= 0) {
            throw error(s, "slice [" + high + ":" + low + "] is out of range for " + base.type);
        }
        int hi = high.intValue();
        int lo = low.intValue();
        Type t = new Type.Bits(hi - lo + 1, false);
        if (base instanceof Expr.Const) {
            return new Expr.Const(t, ((Expr.Const) base).value.shiftRight(lo).and(
                    org.nat64fabric.softswitch.pipeline.Bits.wideMask(hi - lo + 1)));
        }
        return new Ops.Slice(t, base, hi, lo);
    }

    /** t.minSizeInBits() and the other size methods, of a value's type or of a type by its name: an int. */
    private Expr size(Type t, String method, ParserRuleContext at) {
        long bits = sizeInBits(t, method.startsWith("max"), at);
        return new Expr.Const(Type.INT_LITERAL, BigInteger.valueOf(method.endsWith("Bytes") ? (bits + 7) / 8 : bits));
    }

    /**
     * The bits a value of type t takes on the wire (P4_16 minSizeInBits / maxSizeInBits): a varbit
     * field none (min) or its maximum (max); a header union its largest member for both (P4_16's
     * table of sizes: max over its fields).
     */
    private long sizeInBits(Type t, boolean largest, ParserRuleContext at) {
        if (t instanceof Type.Bits) {
            return ((Type.Bits) t).width;
        }
        if (t == Type.BOOL) {
            return 1;
        }
        if (t instanceof Type.Varbit) {
            return largest ? ((Type.Varbit) t).max : 0;
        }
        if (t instanceof Type.Enum && ((Type.Enum) t).underlying != null) {
            return ((Type.Enum) t).underlying.width;
        }
        if (t instanceof Type.Stack) {
            return ((Type.Stack) t).size * sizeInBits(((Type.Stack) t).element, largest, at);
        }
        if (t instanceof Type.Aggregate) {
            Type.Aggregate a = (Type.Aggregate) t;
            long sum = 0;
            long biggest = 0;
            for (Type.Field f : a.fields.values()) {
                long n = sizeInBits(f.type, largest, at);
                sum += n;
                biggest = Math.max(biggest, n);
            }
            return a.union ? biggest : sum;
        }
        throw error(at, "a value of type " + t + " has no size on the wire");
    }

    /**
     * Header and stack methods are reached here: member() turned hdr.x into an Agg, and
     * hdr.x.isValid into a MethodRef on it.
     */
    /** Header and stack methods that change what they are called on. */
    private static final Set<String> CHANGING_METHODS = Set.of("setValid", "setInvalid", "push_front", "pop_front");

    private Object headerMethod(Expr.Agg h, String method, int argc, ArgumentListContext args, Scope sc, ParserRuleContext at) {
        if (SIZE_METHODS.contains(method) && argc == 0) {
            return size(h.type, method, at);
        }
        if (h.type instanceof Type.Stack) {
            if ((method.equals("push_front") || method.equals("pop_front")) && argc == 1) {
                BigInteger count = constantValue(argExpr(args.argument(), 0, method, at), sc, null);
                if (count.signum() <= 0 || count.bitLength() > 31) {
                    throw error(args.argument(0), method + " needs a positive count, not " + count);
                }
                int n = count.min(BigInteger.valueOf(((Type.Stack) h.type).size)).intValue();
                return new StackShift(h, method.equals("push_front") ? n : -n);
            }
            throw error(at, "header stacks have push_front(n) and pop_front(n), not '" + method + "'");
        }
        Type.Aggregate t = (Type.Aggregate) h.type;
        if (t.union && method.equals("isValid") && argc == 0) {
            return new UnionIsValid(unionMembers(h));
        }
        if (!t.header) {
            throw error(at, "'" + method + "' is not a method of " + t + (t.union ? " (it has isValid)" : ""));
        }
        if (argc != 0) {
            throw error(at, method + "() takes no arguments");
        }
        switch (method) {
            case "isValid": return new IsValid(h);
            case "setValid": return unionWrite(h, new SetValid(h, 1));
            case "setInvalid": return unionWrite(h, new SetValid(h, 0));
            default: throw error(at, "'" + method + "' is not a method of " + t + " (it has isValid, setValid, setInvalid)");
        }
    }

    private static final class IsValid extends Expr {
        private final Expr.Agg h;

        IsValid(Expr.Agg h) {
            super(Type.BOOL);
            this.h = h;
        }

        @Override public long eval(State s) {
            return s.n[h.narrowBase(s)];
        }

        @Override public void jvmLong(Jit j) {
            j.narrowSlots();
            j.narrowBase(h);
            j.code().visitInsn(LALOAD);
        }

        @Override public String c(CodeWriter w) {
            return w.nAt(h.cNarrowBase(w));
        }
    }

    private static final class SetValid extends Stmt {
        private final Expr.Agg h;
        private final long valid;

        SetValid(Expr.Agg h, long valid) {
            this.h = h;
            this.valid = valid;
        }

        @Override public int exec(State s) {
            s.n[h.narrowBase(s)] = valid;
            return NEXT;
        }

        @Override public boolean jvm(Jit j) {
            j.narrowSlots();
            j.narrowBase(h);
            j.pushLong(valid);
            j.code().visitInsn(LASTORE);
            return false;
        }

        @Override public void c(CodeWriter w) {
            w.line(w.nAt(h.cNarrowBase(w)) + " = " + valid + ";");
        }
    }

    /** push_front(n) (n > 0) and pop_front(n) (as -n): shift elements, invalidate the vacated. */
    private static final class StackShift extends Stmt {
        private final Expr.Agg stack;
        private final int by;

        StackShift(Expr.Agg stack, int by) {
            this.stack = stack;
            this.by = by;
        }

        @Override public int exec(State s) {
            Type.Stack t = (Type.Stack) stack.type;
            int en = t.element.narrowSlots();
            int ew = t.element.wideSlots();
            int nb = stack.narrowBase(s);
            int wb = stack.wideBase(s);
            int size = t.size;
            // Element i takes element i - by; arraycopy moves overlapping ranges as if through a copy.
            // A shift by the stack's size or more keeps nothing (and must not index past it).
            int shift = Math.max(-size, Math.min(size, by));
            int kept = size - Math.abs(shift);
            int from = Math.max(0, -shift);
            int to = Math.max(0, shift);
            System.arraycopy(s.n, nb + from * en, s.n, nb + to * en, kept * en);
            System.arraycopy(s.w, wb + from * ew, s.w, wb + to * ew, kept * ew);
            // The elements shifted in (invalid, their other fields unspecified) get zeroed narrow slots.
            int fresh = shift > 0 ? 0 : kept;
            java.util.Arrays.fill(s.n, nb + fresh * en, nb + (fresh + size - kept) * en, 0L);
            int next = nb + en * size;
            s.n[next] = Math.max(0, Math.min(size, s.n[next] + by));
            return NEXT;
        }

        /** As exec, element by element in the order that reads each before it is overwritten. */
        @Override public void c(CodeWriter w) {
            Type.Stack t = (Type.Stack) stack.type;
            int en = t.element.narrowSlots();
            int ew = t.element.wideSlots();
            int eu = w.unitOffset(t.element, ew);
            String nb = w.tempNarrow();
            String ub = w.tempNarrow();
            w.line(nb + " = " + stack.cNarrowBase(w) + ";");
            w.line(ub + " = " + (ew == 0 ? "0" : stack.cUnitBase(w)) + ";");
            for (int k = 0; k < t.size; k++) {
                int i = by > 0 ? t.size - 1 - k : k;
                int from = i - by;
                if (from >= 0 && from < t.size) {
                    w.line("copy_n(s, " + nb + " + " + i * en + ", " + nb + " + " + from * en + ", " + en + ");");
                    if (ew > 0) {
                        w.line("copy_w(s, " + ub + " + " + i * eu + ", " + ub + " + " + from * eu + ", " + eu + ");");
                    }
                } else {
                    w.line("zero_n(s, " + nb + " + " + i * en + ", " + en + ");");
                }
            }
            String next = w.nAt(nb + " + " + en * t.size);
            w.line(next + " = sat_shift(" + next + ", " + by + ", " + t.size + ");");
        }
    }

    /**
     * A call: the prelude (the places of out and inout arguments), copy-in, the body, copy-out. An
     * inout header, struct or stack is passed by reference (AggRef), unless {@code copied} marks it
     * (see aliased): then it is bound to a copy, copied back in its turn.
     */
    private Stmt copyInOut(List<Stmt> prelude, List<Param> params, List<Expr> slots, List<Expr> values, boolean[] copied,
                           Stmt body) {
        List<Stmt> before = new ArrayList<>(prelude);
        List<Stmt> after = new ArrayList<>();
        for (int i = 0; i < params.size(); i++) {
            Param p = params.get(i);
            Expr slot = slots.get(i);
            if (slot == null) {
                continue;   // packet_in / packet_out
            }
            if (slot instanceof AggRef) {
                Expr.Agg argument = (Expr.Agg) values.get(i);
                if (copied != null && copied[i]) {
                    Expr.Agg copy = (Expr.Agg) storage(argument.type);
                    before.add(new Stmt.CopyAgg(copy, argument));
                    before.add(((AggRef) slot).bind(copy));
                    after.add(new Stmt.CopyAgg(argument, copy));
                } else {
                    before.add(((AggRef) slot).bind(argument));
                }
                continue;
            }
            if (!"out".equals(p.direction)) {
                before.add(assign(slot, values.get(i), null));
            } else if (slot instanceof Expr.Agg) {
                before.add(new ClearAgg((Expr.Agg) slot));
            }
            if (p.writable()) {
                after.add(assign(values.get(i), slot, null));
            }
        }
        return new CopyInOut(before.toArray(new Stmt[0]), body, after.toArray(new Stmt[0]));
    }

    /** A call: arguments copied in, the body, results copied out (also when the body exits). */
    private static final class CopyInOut extends Stmt {
        private final Stmt[] before;
        private final Stmt body;
        private final Stmt[] after;

        CopyInOut(Stmt[] before, Stmt body, Stmt[] after) {
            this.before = before;
            this.body = body;
            this.after = after;
        }

        @Override public int exec(State s) {
            for (Stmt st : before) {
                st.exec(s);
            }
            int r = body.exec(s);
            for (Stmt st : after) {
                st.exec(s);
            }
            return r == EXIT || r == Parser.REJECT ? r : NEXT;   // a sub-parser's reject rejects its caller
        }

        @Override public boolean jvm(Jit j) {
            MethodVisitor m = j.code();
            for (Stmt st : before) {
                j.stmtDiscarding(st);
            }
            j.stmtPushing(body);
            int r = j.newLocal(1);
            m.visitVarInsn(ISTORE, r);
            for (Stmt st : after) {
                j.stmtDiscarding(st);
            }
            Label keep = new Label();
            Label done = new Label();
            m.visitVarInsn(ILOAD, r);
            j.pushInt(EXIT);
            m.visitJumpInsn(IF_ICMPEQ, keep);
            m.visitVarInsn(ILOAD, r);
            j.pushInt(Parser.REJECT);
            m.visitJumpInsn(IF_ICMPEQ, keep);
            j.pushInt(NEXT);
            m.visitJumpInsn(GOTO, done);
            m.visitLabel(keep);
            m.visitVarInsn(ILOAD, r);
            m.visitLabel(done);
            return true;
        }

        @Override public void c(CodeWriter w) {
            for (Stmt st : before) {
                w.statement(st);
            }
            w.callable(() -> w.statement(body), () -> {
                for (Stmt st : after) {
                    w.statement(st);
                }
            });
        }
    }

    /** The body of an action called directly, its parameters already copied in. */
    private static final class ActionBody extends Stmt {
        private final Action action;

        ActionBody(Action action) {
            this.action = action;
        }

        @Override public int exec(State s) {
            return action.runBody(s);
        }

        @Override public void c(CodeWriter w) {
            action.cBody(w);
        }
    }

    /** A call of a function with a result, as an expression. */
    private static final class FunctionCall extends Expr {
        private final Stmt call;
        private final Expr result;

        FunctionCall(Stmt call, Expr result) {
            super(result.type);
            this.call = call;
            this.result = result;
        }

        @Override public long eval(State s) {
            call.exec(s);
            return result.eval(s);
        }

        @Override public void jvmLong(Jit j) {
            j.stmtDiscarding(call);
            j.narrow(result);
        }

        @Override public void jvmWide(Jit j) {
            j.stmtDiscarding(call);
            j.wide(result);
        }

        @Override public BigInteger evalWide(State s) {
            call.exec(s);
            return result.evalWide(s);
        }

        @Override public String c(CodeWriter w) {
            w.statement(call);
            return result.c(w);
        }
    }

    /** packet_in.length(): the whole packet's length in bytes. */
    private static final class PacketLength extends Expr {
        PacketLength() {
            super(new Type.Bits(32, false));
        }

        @Override public long eval(State s) {
            return s.packetLength;
        }

        @Override public String c(CodeWriter w) {
            return "s->pkt_len";
        }
    }

    private Stmt actionDirectCall(ActionSym a, ArgumentListContext args, Scope sc, ParserRuleContext at) {
        if (where == Where.CONTROL && !calledActions.contains(a.action)) {   // one called by an action is part of it
            calledActions.add(a.action);
        }
        if (compilingAction != null) {
            compilingAction.directMetersRead.addAll(a.action.directMetersRead);
        }
        List<Param> params = new ArrayList<>(a.directional);
        List<Expr> slots = new ArrayList<>(a.directionalSlots);
        for (Action.Param p : a.action.params) {
            params.add(new Param(p.name, "in", p.slot.type));
            slots.add(p.slot);
        }
        List<Stmt> prelude = new ArrayList<>();
        List<Expr> values = arguments("action '" + a.action.name + "'", params, args, sc, new HashMap<>(), at, prelude);
        return copyInOut(prelude, params, slots, values, aliased(params, args), new ActionBody(a.action));
    }

    private Object functionCall(FunctionSym f, ArgumentListContext args, List<Type> targs, Scope sc, ParserRuleContext at) {
        String what = "function '" + f.ctx.functionPrototype().name().getText() + "'";
        List<Stmt> prelude = new ArrayList<>();
        List<Expr> values;
        if (f.typeParams.isEmpty()) {
            if (!targs.isEmpty()) {
                throw error(at, what + " has no type parameters");
            }
            values = arguments(what, f.params, args, sc, new HashMap<>(), at, prelude);
        } else {
            Map<String, Type> bindings = typeBindings(f, targs, at);
            values = arguments(what, params(f.ctx.functionPrototype().parameterList(), f.declaredIn, f.typeParams), args, sc,
                    bindings, at, prelude);
            f = instance(f, bindings, at);
            for (int i = 0; i < values.size(); i++) {
                values.set(i, values.get(i) instanceof Expr.Agg ? values.get(i) : coerce(values.get(i), f.params.get(i).type, at));
            }
        }
        Stmt call = copyInOut(prelude, f.params, f.slots, values, aliased(f.params, args), f.body);
        if (f.result == null) {
            return call;
        }
        return f.result instanceof Expr.Agg ? new AggregateCall(call, (Expr.Agg) f.result) : new FunctionCall(call, f.result);
    }

    /** A generic function's type arguments as given at the call (f<bit<8>>(x)); the others are inferred from the arguments. */
    private Map<String, Type> typeBindings(FunctionSym f, List<Type> targs, ParserRuleContext at) {
        if (!targs.isEmpty() && targs.size() != f.typeParams.size()) {
            throw error(at, "function '" + f.ctx.functionPrototype().name().getText() + "' has " + f.typeParams.size()
                    + " type parameter(s), " + targs.size() + " given");
        }
        Map<String, Type> bindings = new HashMap<>();
        for (int i = 0; i < targs.size(); i++) {
            bindings.put(f.typeParams.get(i), targs.get(i));
        }
        return bindings;
    }

    /**
     * A generic function compiled for one binding of its type parameters (P4_16 10: specialized at each
     * use), once per binding: its body is checked with the types bound.
     */
    private FunctionSym instance(FunctionSym f, Map<String, Type> bindings, ParserRuleContext at) {
        Scope withTypes = new Scope(f.declaredIn);
        StringBuilder key = new StringBuilder();
        for (String v : f.typeParams) {
            Type t = bindings.get(v);
            if (t == null || t == Type.INT_LITERAL) {
                throw error(at, "the type " + v + " of function '" + f.ctx.functionPrototype().name().getText()
                        + "' cannot be inferred from the arguments: give it, as in " + f.ctx.functionPrototype().name().getText()
                        + "<bit<8>>(...)");
            }
            withTypes.symbols.put(v, t);
            key.append(t).append(';');
        }
        FunctionSym known = f.instances.get(key.toString());
        if (known != null) {
            return known;
        }
        FunctionSym inst = new FunctionSym(f.ctx, f.declaredIn);
        List<Stmt> outerPrelude = lvaluePrelude;
        lvaluePrelude = null;   // the body is compiled on its own, not as part of the call's statement
        inProgress.add(f);   // a call of f in its own body is recursion, which the call's check refuses
        try {
            compileFunction(inst, withTypes);
        } finally {
            inProgress.remove(f);
            lvaluePrelude = outerPrelude;
        }
        f.instances.put(key.toString(), inst);
        return inst;
    }

    /** A header or struct value computed for its effects only: its place is worked out, which reads it. */
    private static final class EvalAggregate extends Stmt {
        private final Expr.Agg value;

        EvalAggregate(Expr.Agg value) {
            this.value = value;
        }

        @Override public int exec(State s) {
            value.narrowBase(s);
            return NEXT;
        }
    }

    /**
     * A call of a function returning a header or struct, or a '?:' choosing between such values:
     * the right side of an assignment or an initialiser only (assignAggregate runs the call, then
     * copies its result), so that the call runs once, where the statement stands.
     */
    private static final class AggregateCall extends Expr {
        private final Stmt call;
        private final Expr.Agg result;

        AggregateCall(Stmt call, Expr.Agg result) {
            super(result.type);
            this.call = call;
            this.result = result;
        }

        @Override public long eval(State s) {
            throw new IllegalStateException("a function's " + type + " result used as a value");
        }
    }

    private Object packetMethod(PacketParam p, MethodRef m, ArgumentListContext args, List<Type> targs, Scope sc,
                                ParserRuleContext at) {
        List<ArgumentContext> a = args == null ? List.of() : args.argument();
        String method = m.method;
        if (p.input) {
            switch (method) {
                case "extract": {
                    if (where == Where.CONTROL || where == Where.ACTION) {
                        throw error(at, "extract can be called only in a parser (P4_16 12.8: packet_in's extract is"
                                + " executed within parsers), not in " + whereName());
                    }
                    if (a.size() != 1 && a.size() != 2) {
                        throw error(at, "extract takes a header, and for a header with a varbit field its length in bits; "
                                + a.size() + " arguments given");
                    }
                    if (a.size() == 1 && a.get(0).DONTCARE() != null && targs.size() == 1
                            && targs.get(0) instanceof Type.Aggregate && ((Type.Aggregate) targs.get(0)).header
                            && !((Type.Aggregate) targs.get(0)).hasVarbit()) {
                        // extract<H>(_): the header is read (and checked) into a temporary nothing else sees
                        return new PacketIo.Extract((Expr.Agg) storage(targs.get(0)), null);
                    }
                    Expr h = expr(argExpr(a, 0, "extract", at), sc, null);
                    if (!(h instanceof Expr.Agg) || !(h.type instanceof Type.Aggregate) || !((Type.Aggregate) h.type).header) {
                        throw error(a.get(0), "extract needs a header, not " + h.type);
                    }
                    if (((Type.Aggregate) h.type).hasVarbit() != (a.size() == 2)) {
                        throw error(at, a.size() == 2 ? h.type + " has no varbit field: extract it with extract(hdr)"
                                : h.type + " has a varbit field: extract it with extract(hdr, lengthInBits)");
                    }
                    requireWritable(a.get(0).expression(), sc, h, "the argument of extract");
                    if (targs.size() > 1 || (targs.size() == 1 && !targs.get(0).equals(h.type))) {
                        throw error(at, "extract<...> names the type of its argument, which is " + h.type);
                    }
                    PacketIo.Stack stack = null;
                    if (h instanceof StackElement && a.get(0).expression().getText().endsWith(".next")) {
                        ExpressionContext stackCtx = ((MemberExpressionContext) a.get(0).expression()).expression();
                        stack = new PacketIo.Stack((Expr.Agg) expr(stackCtx, sc, null));
                    }
                    Function<PacketIo.Stack, Stmt> extract;
                    if (a.size() == 2) {
                        requireWritable(a.get(0).expression(), sc, h, "the argument of extract");
                        Type bits32 = new Type.Bits(32, false);
                        Expr length = coerce(expr(argExpr(a, 1, "extract", at), sc, bits32), bits32, a.get(1));
                        extract = into -> new VarbitIo.Extract((Expr.Agg) h, length, into);
                    } else {
                        extract = into -> new PacketIo.Extract((Expr.Agg) h, into);
                    }
                    Stmt intoUnionStack = extractIntoUnionStackNext(a.get(0).expression(), extract, sc);
                    if (intoUnionStack != null) {
                        return intoUnionStack;
                    }
                    return unionWrite(h, extract.apply(stack));
                }
                case "lookahead": {
                    if (targs.size() != 1 || !a.isEmpty()) {
                        throw error(at, "lookahead takes one type argument and no arguments, as in lookahead<bit<8>>()");
                    }
                    Type t = targs.get(0);
                    if (t instanceof Type.Bits) {
                        lookaheads++;
                        return new PacketIo.Lookahead(t, ((Type.Bits) t).width);
                    }
                    if (t instanceof Type.Aggregate && ((Type.Aggregate) t).header && !((Type.Aggregate) t).hasVarbit()
                            || isPlainStruct(t) && notInHeaderStruct((Type.Aggregate) t, "") == null) {
                        lookaheads++;
                        return new PacketIo.LookaheadHeader((Expr.Agg) storage(t));
                    }
                    throw error(at, "lookahead needs a bit<W>, a header (without a varbit field) or a struct of bit<W>,"
                            + " int<W>, bool and serializable enum fields, not " + t);
                }
                case "advance": {
                    if (a.size() != 1) {
                        throw error(at, "advance takes 1 argument (bits to skip)");
                    }
                    return new PacketIo.Advance(coerce(expr(argExpr(a, 0, "advance", at), sc, new Type.Bits(32, false)),
                            new Type.Bits(32, false), a.get(0)));
                }
                case "length":
                    return new PacketLength();
                default:
                    throw error(m.at.name(), "'" + method + "' is not a method of packet_in (it has extract, lookahead, advance, length)");
            }
        }
        if (!method.equals("emit")) {
            throw error(m.at.name(), "'" + method + "' is not a method of packet_out (it has emit)");
        }
        if (a.size() != 1) {
            throw error(at, "emit takes 1 argument, " + a.size() + " given");
        }
        Expr h = expr(argExpr(a, 0, "emit", at), sc, null);
        if (targs.size() > 1 || (targs.size() == 1 && !targs.get(0).equals(h.type))) {
            throw error(at, "emit<...> names the type of its argument, which is " + h.type);
        }
        List<Stmt> emits = new ArrayList<>();
        if (h instanceof AggregateCall) {
            emits.add(((AggregateCall) h).call);
            h = ((AggregateCall) h).result;
        }
        emitAll(h, emits, a.get(0));
        return emits.size() == 1 ? emits.get(0) : new Stmt.Block(emits);
    }

    private static Stmt emitHeader(Expr.Agg h) {
        return ((Type.Aggregate) h.type).hasVarbit() ? new VarbitIo.Emit(h) : new PacketIo.Emit(h);
    }

    private void emitAll(Expr h, List<Stmt> out, ParserRuleContext at) {
        if (!(h instanceof Expr.Agg)) {
            throw error(at, "emit needs a header, stack or struct of headers, not " + h.type);
        }
        Expr.Agg agg = (Expr.Agg) h;
        int[] base = agg.fixedBase();
        if (agg.type instanceof Type.Stack) {
            Type.Stack st = (Type.Stack) agg.type;
            for (int i = 0; i < st.size; i++) {
                emitAll(element(agg, i), out, at);   // a header, or a union's members
            }
            return;
        }
        Type.Aggregate t = (Type.Aggregate) agg.type;
        if (t.header) {
            out.add(emitHeader(agg));
            return;
        }
        for (Type.Field f : t.fields.values()) {
            if (!(f.type instanceof Type.Aggregate || f.type instanceof Type.Stack)) {
                throw error(at, "emit of " + t + ": field '" + f.name + "' is not a header");
            }
            emitAll(field(agg, base, f), out, at);
        }
    }

    private Object externMethod(ExternInstance inst, MethodRef m, ArgumentListContext args, Scope sc, ParserRuleContext at) {
        FunctionPrototypeContext proto = inst.type.methods.get(m.method);
        if (proto == null) {
            throw error(m.at.name(), "'" + m.method + "' is not a method of " + inst.type.name);
        }
        Map<String, Type> bindings = new HashMap<>();
        for (int i = 0; i < inst.type.typeParams.size() && i < inst.typeArgs.size(); i++) {
            bindings.put(inst.type.typeParams.get(i), inst.typeArgs.get(i));
        }
        List<Param> params = params(proto.parameterList(), global, typeVarsOf(proto, inst.type));
        List<Expr> a = arguments(inst.type.name + "." + m.method, params, args, sc, bindings, at);
        notInSume(inst.type.name, at);
        Object rt = inst.runtime;
        String method = inst.type.name + "." + m.method;
        Integer arity = V1MODEL_METHODS.get(method);
        if (arity == null || arity != a.size()) {
            throw error(at, "method '" + m.method + "' of " + inst.type.name + (arity == null ? " is not supported by softswitch"
                    : " is declared with " + a.size() + " parameters; softswitch implements v1model's, which has " + arity));
        }
        if (!method.startsWith("direct_")) {
            Expr index = a.get(method.equals("register.read") ? 1 : 0);
            if (!(index.type instanceof Type.Bits || index.type == Type.INT_LITERAL)) {
                throw error(at, "the index of " + method + " must be a bit<W>, not " + index.type);
            }
        }
        switch (method) {
            case "register.read":
                // a register<E> of a serializable enum: its result is an E (the arguments were checked against T = E)
                Expr.LValue result = ((Externs.Register) rt).values != null && a.get(0) instanceof Expr.LValue
                        ? (Expr.LValue) a.get(0) : bitLocation(a.get(0), args.argument(0), "register.read", true);
                return new Externs.RegisterRead((Externs.Register) rt, result, a.get(1));
            case "register.write":
                return new Externs.RegisterWrite((Externs.Register) rt, a.get(0), a.get(1));
            case "counter.count":
                return new Externs.Count((Externs.Counter) rt, a.get(0), stdField("packet_length", at));
            case "direct_counter.count":
                return Stmt.EMPTY;   // direct counters count every hit of their table (see v1model.p4)
            case "meter.execute_meter":
                return new Externs.ExecuteMeter((Externs.Meter) rt, a.get(0), bitLocation(a.get(1), args.argument(1), "execute_meter"),
                        stdField("packet_length", at));
            default:   // direct_meter.read: the colour of the entry's meter
                if (compilingAction != null) {
                    compilingAction.directMetersRead.add(((DirectDecl) rt).name);
                }
                return new Externs.DirectMeterRead(bitLocation(a.get(0), args.argument(0), "direct_meter.read"));
        }
    }

    /** The methods of v1model's extern objects softswitch runs, with their number of parameters. */
    private static final Map<String, Integer> V1MODEL_METHODS = Map.of("register.read", 2, "register.write", 2,
            "counter.count", 1, "direct_counter.count", 0, "meter.execute_meter", 2, "direct_meter.read", 1);

    /** The extern functions softswitch runs, with their number of parameters (core.p4's and v1model.p4's). */
    private static final Map<String, Integer> EXTERN_FUNCTIONS = Map.ofEntries(Map.entry("verify", 2),
            Map.entry("mark_to_drop", 1), Map.entry("clone", 2), Map.entry("clone_preserving_field_list", 3),
            Map.entry("resubmit_preserving_field_list", 1), Map.entry("recirculate_preserving_field_list", 1),
            Map.entry("truncate", 1), Map.entry("verify_checksum", 4), Map.entry("update_checksum", 4),
            Map.entry("verify_checksum_with_payload", 4), Map.entry("update_checksum_with_payload", 4),
            Map.entry("hash", 5), Map.entry("random", 3), Map.entry("log_msg", 1), Map.entry("assert", 1),
            Map.entry("assume", 1), Map.entry("digest", 2));

    /** An out argument an extern writes a number into: a bit<W> location of up to 64 bits. */
    private Expr.LValue bitLocation(Expr e, ParserRuleContext at, String what) {
        return bitLocation(e, at, what, false);
    }

    /** The same, of any width where {@code anyWidth} (a register's cells hold any, an IPv6 address too). */
    private Expr.LValue bitLocation(Expr e, ParserRuleContext at, String what, boolean anyWidth) {
        if (!(e instanceof Expr.LValue) || !(e.type instanceof Type.Bits) || !anyWidth && e.isWide()) {
            throw error(at, "the result of " + what + " must be a bit<W> or int<W> location" + (anyWidth ? "" : " of up to 64 bits")
                    + ", not " + e.type);
        }
        return (Expr.LValue) e;
    }

    /** softswitch's externs beyond core.p4's are v1model's: they act on standard_metadata, which a SUME program has not. */
    private void notInSume(String extern, ParserRuleContext at) {
        if (architecture == Program.Architecture.SUME) {
            throw error(at, "'" + extern + "' is a v1model extern: a SimpleSumeSwitch program cannot use it");
        }
    }

    /** A field of the architecture's standard_metadata_t, allocated at its first use (which may precede main's). */
    private Expr.LValue stdField(String name, ParserRuleContext at) {
        if (standardMetadata == null) {
            Object t = global.lookup("standard_metadata_t");
            if (!(t instanceof Type.Aggregate)) {
                throw error(at, "this extern needs v1model's standard_metadata_t (#include <v1model.p4>)");
            }
            standardMetadata = (Expr.Agg) storage((Type) t);
        }
        return metadataField(standardMetadata, name, at);
    }

    private Expr.LValue metadataField(Expr.Agg metadata, String name, ParserRuleContext at) {
        Type.Field f = ((Type.Aggregate) metadata.type).fields.get(name);
        if (f == null || !(f.type instanceof Type.Bits)) {
            throw error(at, metadata.type + " has no bit<W> field '" + name + "' (use <v1model.p4>'s declaration)");
        }
        return (Expr.LValue) field(metadata, metadata.fixedBase(), f);
    }

    /** static_assert(check[, message]): true, or a compile error at the call when check is false. */
    private Expr staticAssert(List<Expr> a, ArgumentListContext args, ParserRuleContext at) {
        if (!(a.get(0) instanceof Expr.Const)) {
            throw error(args.argument(0), "the condition of static_assert must be known at compile time");
        }
        if (((Expr.Const) a.get(0)).value.signum() == 0) {
            String message = a.size() > 1 && a.get(1) instanceof StringValue ? ": " + ((StringValue) a.get(1)).value : "";
            throw error(at, "static assertion failed" + message);
        }
        return new Expr.Const(Type.BOOL, 1);
    }

    private Object externFunction(String name, FunctionPrototypeContext proto, ArgumentListContext args, List<Type> targs,
                                  Scope sc, ParserRuleContext at) {
        List<String> typeVars = typeVarsOf(proto, null);
        List<Param> params = params(proto.parameterList(), global, typeVars);
        Map<String, Type> bindings = new HashMap<>();
        if (!targs.isEmpty()) {
            // explicit type arguments bind the type parameters before the arguments are checked
            if (targs.size() != typeVars.size()) {
                throw error(at, "'" + name + "' takes " + typeVars.size() + " type argument(s), " + targs.size() + " given");
            }
            // digest<T>(receiver, {a, b}): a list for a struct, checked field by field in digestCall
            for (int i = 0; i < targs.size() && !name.equals("digest"); i++) {
                bindings.put(typeVars.get(i), targs.get(i));
            }
        }
        if (name.equals("mark_to_drop") && (args == null || args.argument().isEmpty()) && targs.isEmpty()) {
            // The older form p4c's v1model.p4 still declares (deprecated): the architecture's standard_metadata.
            notInSume(name, at);
            return new Externs.MarkToDrop(stdField("egress_spec", at), stdField("mcast_grp", at));
        }
        List<Expr> a = arguments("'" + name + "'", params, args, sc, bindings, at);
        if (name.equals("static_assert")) {
            return staticAssert(a, args, at);
        }
        if (architecture == Program.Architecture.SUME && name.endsWith(RegisterRaw.SUFFIX)) {
            return registerRaw(name, params, a, args, at);
        }
        if (!name.equals("verify")) {
            notInSume(name, at);
        }
        Integer arity = EXTERN_FUNCTIONS.get(name);
        if (arity == null) {
            throw error(at, "extern function '" + name + "' is not supported by softswitch");
        }
        if (arity != a.size() && !(name.equals("log_msg") && a.size() == 2)) {
            throw error(at, "'" + name + "' is declared with " + a.size() + " parameters; softswitch implements the "
                    + "v1model extern, which has " + arity + " (use <v1model.p4>'s declaration)");
        }
        switch (name) {
            case "verify":
                if (where == Where.CONTROL || where == Where.ACTION) {
                    throw error(at, "verify can be called only in a parser, not in " + whereName());
                }
                return new PacketIo.Verify(a.get(0), a.get(1));
            case "mark_to_drop": {
                if (!(a.get(0) instanceof Expr.Agg) || !(a.get(0).type instanceof Type.Aggregate)) {
                    throw error(args.argument(0), "mark_to_drop needs the standard_metadata_t to mark");
                }
                Expr.Agg sm = (Expr.Agg) a.get(0);
                return new Externs.MarkToDrop(metadataField(sm, "egress_spec", at), metadataField(sm, "mcast_grp", at));
            }
            case "clone":
                return new Externs.Clone(a.get(0), a.get(1), 0);
            case "digest":
                return digestCall(targs.isEmpty() ? a.get(1).type : targs.get(0), a.get(1), args.argument(1));
            case "clone_preserving_field_list":
                return new Externs.Clone(a.get(0), a.get(1), constInt(a.get(2), args.argument(2)));
            case "resubmit_preserving_field_list":
                return new Externs.Reinject(true, constInt(a.get(0), args.argument(0)));
            case "recirculate_preserving_field_list":
                return new Externs.Reinject(false, constInt(a.get(0), args.argument(0)));
            case "truncate":
                return new Externs.Truncate(a.get(0));
            case "verify_checksum":
            case "update_checksum":
            case "verify_checksum_with_payload":
            case "update_checksum_with_payload": {
                Expr sum = a.get(2);
                if (!(sum instanceof Expr.LValue) || !(sum.type instanceof Type.Bits) || sum.isWide()) {
                    throw error(args.argument(2), "the checksum must be a bit<W> field of up to 64 bits");
                }
                return new Externs.Checksum(name.startsWith("update"), name.endsWith("with_payload"), a.get(0),
                        data(a.get(1), args.argument(1)), (Expr.LValue) sum, algorithm(a.get(3), args.argument(3)),
                        stdField("checksum_error", at));
            }
            case "hash": {
                Expr.LValue result = bitLocation(a.get(0), args.argument(0), "hash");
                return new Externs.Hash(result, algorithm(a.get(1), args.argument(1)),
                        narrow(a.get(2), result.type), data(a.get(3), args.argument(3)), narrow(a.get(4), new Type.Bits(64, false)),
                        random);
            }
            case "random": {
                Expr.LValue result = bitLocation(a.get(0), args.argument(0), "random");
                Type t = result.type;
                return new Externs.RandomValue(result, narrow(a.get(1), t), narrow(a.get(2), t), random);
            }
            case "log_msg": {
                if (!(a.get(0) instanceof StringValue)) {
                    throw error(args.argument(0), "log_msg needs a string literal");
                }
                // log_msg("x = {}, y = {}", {x, y}): the values of the data fill the {} in order
                List<Expr> values = new ArrayList<>();
                if (a.size() == 2) {
                    flatten(a.get(1), values, args.argument(1), true);
                }
                return new Externs.LogMsg(((StringValue) a.get(0)).value, values);
            }
            case "assert":
            case "assume":
                return new Externs.Assert(a.get(0), stdField("egress_spec", at));
            default:
                throw new IllegalStateException("extern function " + name + " has an arity but no binding");
        }
    }

    /**
     * P4-NetFPGA's RAW register extern, {@code <name>_reg_raw(in bit<I> index, in bit<W> newVal,
     * in bit<W> incVal, in bit<8> opCode, out bit<W> result)}: one register of 2^I cells of W bits
     * per extern name, made at its first call.
     */
    private Stmt registerRaw(String name, List<Param> params, List<Expr> a, ArgumentListContext args, ParserRuleContext at) {
        String[] roles = {"index", "newVal", "incVal", "opCode", "result"};
        if (params.size() != roles.length) {
            throw error(at, "'" + name + "' is a P4-NetFPGA RAW register extern: declare it with 5 parameters "
                    + "(in bit<I> index, in bit<W> newVal, in bit<W> incVal, in bit<8> opCode, out bit<W> result)");
        }
        for (int i = 0; i < roles.length; i++) {
            if (!(params.get(i).type instanceof Type.Bits)) {
                throw error(at, "'" + name + "': parameter " + roles[i] + " must be declared bit<W>, not " + params.get(i).type);
            }
        }
        int indexWidth = ((Type.Bits) params.get(0).type).width;
        int width = ((Type.Bits) params.get(1).type).width;
        if (indexWidth > 20 || width > 64 || ((Type.Bits) params.get(2).type).width != width
                || ((Type.Bits) params.get(4).type).width != width || ((Type.Bits) params.get(3).type).width != 8) {
            throw error(at, "'" + name + "': index up to bit<20>, newVal, incVal and result one bit<W> of up to 64 bits, "
                    + "opCode bit<8>");
        }
        String register = name.substring(0, name.length() - RegisterRaw.SUFFIX.length());
        Externs.Register r = registers.stream().filter(x -> x.name.equals(register)).findFirst().orElse(null);
        if (r == null) {
            r = new Externs.Register(register, 1 << indexWidth, width);
            registers.add(r);
        }
        return new RegisterRaw(r, a.get(0), a.get(1), a.get(2), a.get(3), bitLocation(a.get(4), args.argument(4), name));
    }

    private Expr narrow(Expr e, Type t) {
        if (e.type == Type.INT_LITERAL) {
            return new Expr.Const(t, ((Expr.Const) e).value);
        }
        return e;
    }

    /**
     * digest<T>(receiver, data): T a struct of bit<W> fields (P4Runtime sends its values as a
     * P4Data struct of bitstrings); data a value of T or a list of its fields.
     */
    private Stmt digestCall(Type t, Expr data, ParserRuleContext at) {
        if (!(t instanceof Type.Aggregate) || ((Type.Aggregate) t).header || ((Type.Aggregate) t).union) {
            throw error(at, "digest data must be a struct (P4Info describes a digest by its struct type), not " + t
                    + "; with a list, name the struct: digest<my_digest_t>(1, { ... })");
        }
        Type.Aggregate struct = (Type.Aggregate) t;
        List<String> names = new ArrayList<>();
        List<Type> types = new ArrayList<>();
        List<Integer> widths = new ArrayList<>();
        for (Type.Field f : struct.fields.values()) {
            boolean bits = f.type instanceof Type.Bits && !((Type.Bits) f.type).signed && !isZeroWidth(f.type);
            if (!bits && f.type != Type.BOOL && !(f.type instanceof Type.Enum) && f.type != errorType) {
                throw error(at, "digest struct " + struct.name + ": field '" + f.name + "' is " + f.type
                        + "; softswitch sends digest fields of bit<W>, bool, enum and error types (P4Runtime's P4Data)");
            }
            names.add(f.name);
            types.add(f.type);
            Type.Bits under = f.type instanceof Type.Enum ? ((Type.Enum) f.type).underlying : null;
            widths.add(bits ? widthOf(f.type) : f.type == Type.BOOL ? 1 : under != null ? under.width : 32);
        }
        List<Expr> values = new ArrayList<>();
        if (data instanceof ListValue && ((ListValue) data).restDefault) {   // { a, ... }: the other fields 0, their default
            List<Expr> items = new ArrayList<>(((ListValue) data).items);
            List<Type.Field> fields = new ArrayList<>(struct.fields.values());
            for (int i = items.size(); i < fields.size(); i++) {
                items.add(new Expr.Const(fields.get(i).type, 0));
            }
            data = new ListValue(items);
        }
        flatten(data, values, at, true);   // enum and error values go as they are, each checked against its field below
        if (values.size() != names.size()) {
            throw error(at, "the digest data has " + values.size() + " value(s); " + struct.name + " has " + names.size()
                    + " field(s)");
        }
        for (int i = 0; i < values.size(); i++) {
            if (!(types.get(i) instanceof Type.Bits) && !values.get(i).type.equals(types.get(i))) {
                throw error(at, "digest value " + (i + 1) + " is " + values.get(i).type + "; field '" + names.get(i)
                        + "' of " + struct.name + " is " + types.get(i));
            }
            if (types.get(i) instanceof Type.Bits && values.get(i).width() != widths.get(i)) {
                throw error(at, "digest value " + (i + 1) + " is " + values.get(i).width() + " bits wide; field '"
                        + names.get(i) + "' of " + struct.name + " is " + widths.get(i));
            }
        }
        Externs.Digest d = digests.computeIfAbsent(struct.name, n -> {
            claim("digest", n, struct.annotations, at.getStart());
            return new Externs.Digest(n, List.copyOf(names), List.copyOf(types), widths.stream().mapToInt(Integer::intValue).toArray());
        });
        return new Externs.DigestCall(d, values);
    }

    private int constInt(Expr e, ParserRuleContext at) {
        if (!(e instanceof Expr.Const)) {
            throw error(at, "this argument must be a compile-time constant");
        }
        return ((Expr.Const) e).value.intValue();
    }

    private Externs.Algorithm algorithm(Expr e, ParserRuleContext at) {
        if (!(e instanceof Expr.Const) || !(e.type instanceof Type.Enum) || !((Type.Enum) e.type).name.equals("HashAlgorithm")) {
            throw error(at, "expected a HashAlgorithm member such as HashAlgorithm.csum16");
        }
        return Externs.Algorithm.values()[((Expr.Const) e).value.intValue()];
    }

    /** The data of a checksum or hash: a list, a header or a struct, flattened to its fields. */
    private Externs.Data data(Expr e, ParserRuleContext at) {
        List<Expr> out = new ArrayList<>();
        flatten(e, out, at);
        return new Externs.Data(out);
    }

    private void flatten(Expr e, List<Expr> out, ParserRuleContext at) {
        flatten(e, out, at, false);
    }

    /**
     * {@code printed}: for log_msg, whose data is only printed, and digest, whose fields P4Data
     * names, so that an enum without an underlying type or an error may be in it too (log_msg
     * prints it as its number, as BMv2 prints it).
     */
    private void flatten(Expr e, List<Expr> out, ParserRuleContext at, boolean printed) {
        if (e instanceof ListValue && ((ListValue) e).restDefault) {
            throw error(at, "'...' needs the type of what it fills, and this data has none: give every value");
        }
        if (e instanceof ListValue) {
            for (Expr x : ((ListValue) e).items) {
                flatten(x, out, at, printed);
            }
        } else if (e instanceof Expr.Agg && e.type instanceof Type.Aggregate) {
            Expr.Agg agg = (Expr.Agg) e;
            for (Type.Field f : ((Type.Aggregate) e.type).fields.values()) {
                flatten(f.type instanceof Type.Varbit ? new VarbitIo.Field(agg, f) : field(agg, agg.fixedBase(), f), out, at,
                        printed);
            }
        } else if (e instanceof VarbitIo.Field || e.type instanceof Type.Bits || e.type == Type.BOOL
                || e.type instanceof Type.Enum && (((Type.Enum) e.type).underlying != null || printed)
                || printed && e.type == errorType) {
            out.add(e);
        } else {
            throw error(at, "cannot use " + e.type + " as checksum or hash data (use bit<W> values with widths)");
        }
    }
}
