package org.nat64fabric.softswitch.frontend;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * P4 types after typedefs are resolved. Every value type knows its storage shape: how many
 * narrow (up to 64-bit, held in a {@code long}) and wide (held in a BigInteger) slots it takes.
 */
public abstract class Type {
    /** Narrow slots this type occupies (a header's first slot is its validity bit). */
    public int narrowSlots() { return 0; }
    public int wideSlots() { return 0; }
    /** The widths of its wide slots in slot order. */
    public void wideWidths(List<Integer> out) {
        if (this instanceof Bits && ((Bits) this).wide()) {
            out.add(((Bits) this).width);
        } else if (this instanceof Varbit) {
            out.add(((Varbit) this).max);
        } else if (this instanceof Aggregate) {
            for (Field f : ((Aggregate) this).fields.values()) {
                f.type.wideWidths(out);
            }
        } else if (this instanceof Stack) {
            for (int i = 0; i < ((Stack) this).size; i++) {
                ((Stack) this).element.wideWidths(out);
            }
        }
    }

    /** Scalars fit one slot: bits, bool, enums, error. */
    public boolean isScalar() { return false; }

    public static final class Bits extends Type {
        public final int width;
        public final boolean signed;
        /** The `type` declaration that named it (P4_16 7.6), null for bit<W> and int<W> themselves. */
        public final NewType declared;
        public Bits(int width, boolean signed) { this(width, signed, null); }
        Bits(int width, boolean signed, NewType declared) { this.width = width; this.signed = signed; this.declared = declared; }
        public boolean wide() { return width > 64; }
        @Override public int narrowSlots() { return wide() ? 0 : 1; }
        @Override public int wideSlots() { return wide() ? 1 : 0; }
        @Override public boolean isScalar() { return true; }
        /** The same bits without the `type` that named them: what a cast to and from it may see. */
        public Bits plain() { return declared == null ? this : new Bits(width, signed); }
        /** A type introduced by `type` is not its underlying type (P4_16 7.6): they are equal only when one declaration named both. */
        @Override public boolean equals(Object o) {
            return o instanceof Bits && ((Bits) o).width == width && ((Bits) o).signed == signed && ((Bits) o).declared == declared;
        }
        @Override public int hashCode() { return width * 2 + (signed ? 1 : 0); }
        @Override public String toString() {
            return declared != null ? declared.name : (signed ? "int<" : "bit<") + width + ">";
        }
    }

    /**
     * A `type` declaration over bit&lt;W&gt; or int&lt;W&gt;: its name, which P4Info gives controllers
     * (P4Runtime 8.5.6, "User-defined types"), and its {@code @p4runtime_translation}, if any: the
     * URI and the controller's bit width, or 0 when the controller's type is {@code string}.
     * A value of it mixes with no other type, its underlying one included, but through a cast.
     */
    public static final class NewType {
        public final String name;
        public final String translationUri;
        public final int controllerWidth;
        NewType(String name, String translationUri, int controllerWidth) {
            this.name = name;
            this.translationUri = translationUri;
            this.controllerWidth = controllerWidth;
        }
    }

    /**
     * varbit&lt;W&gt;, a header field of at most W bits whose length the packet gives: its value in a
     * wide slot, its length in bits in a narrow one.
     */
    public static final class Varbit extends Type {
        public final int max;
        public Varbit(int max) { this.max = max; }
        @Override public int narrowSlots() { return 1; }
        @Override public int wideSlots() { return 1; }
        @Override public boolean equals(Object o) { return o instanceof Varbit && ((Varbit) o).max == max; }
        @Override public int hashCode() { return max; }
        @Override public String toString() { return "varbit<" + max + ">"; }
    }

    /** The type of integer literals without a width; converts to any bit<W> or int<W>. */
    public static final Type INT_LITERAL = new Type() {
        @Override public String toString() { return "int"; }
    };
    public static final Type BOOL = new Type() {
        @Override public int narrowSlots() { return 1; }
        @Override public boolean isScalar() { return true; }
        @Override public String toString() { return "bool"; }
    };
    public static final Type STRING = new Type() {
        @Override public String toString() { return "string"; }
    };
    public static final Type VOID = new Type() {
        @Override public String toString() { return "void"; }
    };
    /** error and match_kind members: global, named, numbered in declaration order. */
    public static final class Named extends Type {
        public final String name;
        public final List<String> members = new ArrayList<>();
        final boolean storable;
        Named(String name, boolean storable) { this.name = name; this.storable = storable; }
        @Override public int narrowSlots() { return storable ? 1 : 0; }
        @Override public boolean isScalar() { return storable; }
        @Override public String toString() { return name; }
    }

    /** An enum; serializable when it has an underlying bit type. */
    public static final class Enum extends Type {
        public final String name;
        public final Bits underlying;
        public final Map<String, Long> members = new LinkedHashMap<>();
        Enum(String name, Bits underlying) { this.name = name; this.underlying = underlying; }
        @Override public int narrowSlots() { return 1; }
        @Override public boolean isScalar() { return true; }
        @Override public String toString() { return "enum " + name; }
    }

    /** A field of a header or struct with its offset inside the aggregate's slots. */
    public static final class Field {
        public final String name;
        public final Type type;
        public final Map<String, List<String>> annotations;
        public final int narrowOffset;
        public final int wideOffset;
        Field(String name, Type type, Map<String, List<String>> annotations, int narrowOffset, int wideOffset) {
            this.name = name;
            this.type = type;
            this.annotations = annotations;
            this.narrowOffset = narrowOffset;
            this.wideOffset = wideOffset;
        }
        /** Bits on the wire of a header field: bit<W>, int<W>, bool (1) or a serializable enum; 0 for a varbit. */
        public int wireWidth() {
            return type == BOOL ? 1 : type instanceof Enum ? ((Enum) type).underlying.width
                    : type instanceof Varbit ? 0 : ((Bits) type).width;
        }
        /** Whether the field's value is held in a wide slot (a bit string over 64 bits). */
        public boolean wide() {
            return type instanceof Bits && ((Bits) type).wide();
        }
    }

    /** Headers, structs and header unions (a union's fields are headers, at most one valid). */
    public static final class Aggregate extends Type {
        public final String name;
        public final boolean header;
        public final boolean union;
        public final Map<String, List<String>> annotations;
        public final Map<String, Field> fields = new LinkedHashMap<>();
        private int narrow;
        private int wide;
        Aggregate(String name, boolean header, Map<String, List<String>> annotations) {
            this(name, header, false, annotations);
        }
        Aggregate(String name, boolean header, boolean union, Map<String, List<String>> annotations) {
            this.name = name;
            this.header = header;
            this.union = union;
            this.annotations = annotations;
            this.narrow = header ? 1 : 0;
        }
        private Field[] wireFields;
        /** The bits that round a header up to whole bytes on the wire; null when its fields fill them. */
        private Field padding;

        void addField(String fieldName, Type type, Map<String, List<String>> fieldAnnotations) {
            fields.put(fieldName, new Field(fieldName, type, fieldAnnotations, narrow, wide));
            narrow += type.narrowSlots();
            wide += type.wideSlots();
            wireFields = null;
        }

        /**
         * The fields on the wire in order, a struct field's own fields in its place (P4_16 1.2.2, 7.2.2),
         * each with its offsets from the header's base and a dotted name such as "s.f": extract and
         * emit walk this array per packet without an iterator.
         */
        public Field[] wireFields() {
            Field[] f = wireFields;
            if (f == null) {
                List<Field> out = new ArrayList<>();
                addWireFields(out, "", 0, 0);
                if (padding != null) {
                    out.add(padding);
                }
                f = out.toArray(new Field[0]);
                wireFields = f;
            }
            return f;
        }

        /**
         * A header whose fields do not fill whole bytes takes the rest of its last byte on the wire:
         * P4_16 leaves a header's length free, and BMv2, whose packets are bytes, pads such a header
         * (p4c adds a padding field), so softswitch does the same. The padding is a field no program
         * names: extract reads it and emit writes it back (0 in a header made valid by setValid).
         */
        void padToWholeBytes() {
            int rest = bitWidth() % 8;
            if (rest != 0) {
                padding = new Field("$padding", new Bits(8 - rest, false), Map.of(), narrow, wide);
                narrow += padding.type.narrowSlots();
                wireFields = null;
            }
        }

        private void addWireFields(List<Field> out, String prefix, int narrowBase, int wideBase) {
            for (Field f : fields.values()) {
                if (f.type instanceof Aggregate) {
                    ((Aggregate) f.type).addWireFields(out, prefix + f.name + ".", narrowBase + f.narrowOffset,
                            wideBase + f.wideOffset);
                } else if (prefix.isEmpty()) {
                    out.add(f);
                } else {
                    out.add(new Field(prefix + f.name, f.type, f.annotations, narrowBase + f.narrowOffset,
                            wideBase + f.wideOffset));
                }
            }
        }
        /** Whether a field of this header is a varbit. */
        public boolean hasVarbit() {
            for (Field f : wireFields()) {
                if (f.type instanceof Varbit) {
                    return true;
                }
            }
            return false;
        }
        /** Bits on the wire, padding included (headers only; a varbit field counts 0). */
        public int bitWidth() {
            int w = 0;
            for (Field f : wireFields()) {
                w += f.wireWidth();
            }
            return w;
        }
        @Override public int narrowSlots() { return narrow; }
        @Override public int wideSlots() { return wide; }
        @Override public String toString() { return (header ? "header " : union ? "header_union " : "struct ") + name; }
    }

    /** A header stack; its last narrow slot holds nextIndex. */
    public static final class Stack extends Type {
        public final Aggregate element;
        public final int size;
        Stack(Aggregate element, int size) { this.element = element; this.size = size; }
        @Override public int narrowSlots() { return element.narrowSlots() * size + 1; }
        @Override public int wideSlots() { return element.wideSlots() * size; }
        @Override public String toString() { return element.name + "[" + size + "]"; }
        /** Stacks of one header type and size are one type: one may be assigned to another. */
        @Override public boolean equals(Object o) {
            return o instanceof Stack && ((Stack) o).element.equals(element) && ((Stack) o).size == size;
        }
        @Override public int hashCode() { return element.hashCode() * 31 + size; }
    }

    /** A list/tuple value such as the data argument of hash() and checksum externs. */
    public static final class Tuple extends Type {
        public final List<Type> elements;
        Tuple(List<Type> elements) { this.elements = elements; }
        @Override public boolean equals(Object o) { return o instanceof Tuple && ((Tuple) o).elements.equals(elements); }
        @Override public int hashCode() { return elements.hashCode(); }
        @Override public String toString() { return "tuple" + elements; }
    }

    /** A type parameter of an extern, parser, control or package. */
    public static final class Var extends Type {
        public final String name;
        Var(String name) { this.name = name; }
        @Override public String toString() { return name; }
    }

    /** Extern object types, parsers, controls and packages: things that are instantiated. */
    public static class Declared extends Type {
        public final String kind;
        public final String name;
        Declared(String kind, String name) { this.kind = kind; this.name = name; }
        @Override public String toString() { return kind + " " + name; }
    }
}
