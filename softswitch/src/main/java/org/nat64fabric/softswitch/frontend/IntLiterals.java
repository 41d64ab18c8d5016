package org.nat64fabric.softswitch.frontend;

import java.math.BigInteger;

/**
 * Integer literals (P4_16 6.4.3.3) and the arithmetic of {@code int}, the arbitrary-precision
 * integers of compile-time expressions (P4_16 8.8). Values are bounded so that a program cannot
 * make the compiler build numbers of millions of bits.
 */
final class IntLiterals {
    /** Largest width a literal may name, as in {@code 4096w1}. */
    static final int MAX_LITERAL_WIDTH = 4096;
    /** Largest magnitude, in bits, of an {@code int} value; wider types do not exist either. */
    static final int MAX_BITS = 65536;

    private IntLiterals() {
    }

    /** Why a literal or an operation on literals has no value; the caller adds the location. */
    static final class Problem extends Exception {
        Problem(String message) {
            super(message, null, false, false);
        }
    }

    /** A literal: its value, and its width and signedness when it names them ({@code 8w5}, {@code 8s5}). */
    static final class Literal {
        final BigInteger value;
        /** -1 for an int literal without a width. */
        final int width;
        final boolean signed;

        Literal(BigInteger value, int width, boolean signed) {
            this.value = value;
            this.width = width;
            this.signed = signed;
        }
    }

    static Literal parse(String text) throws Problem {
        String s = text.replace("_", "");
        int width = -1;
        boolean signed = false;
        int sep = widthSeparator(s);
        if (sep > 0) {
            BigInteger w = new BigInteger(s.substring(0, sep));
            if (w.signum() == 0 || w.compareTo(BigInteger.valueOf(MAX_LITERAL_WIDTH)) > 0) {
                throw new Problem("a literal's width must be between 1 and " + MAX_LITERAL_WIDTH + ", not " + w);
            }
            width = w.intValue();
            signed = s.charAt(sep) == 's';
            s = s.substring(sep + 1);
        }
        int radix = 10;
        if (s.length() >= 2 && s.charAt(0) == '0') {
            switch (Character.toLowerCase(s.charAt(1))) {
                case 'x': radix = 16; break;
                case 'b': radix = 2; break;
                case 'o': radix = 8; break;
                case 'd': radix = 10; break;
                default: radix = 0; break;
            }
            if (radix != 0) {
                s = s.substring(2);
            } else {
                radix = 10;
            }
        }
        if (s.isEmpty()) {
            throw new Problem("the literal '" + text + "' has no digits");
        }
        BigInteger v = new BigInteger(s, radix);
        if (v.bitLength() > MAX_BITS) {
            throw new Problem("the literal is wider than " + MAX_BITS + " bits");
        }
        if (width > 0 && v.bitLength() > width) {
            throw new Problem("the value " + v + " does not fit in " + width + " bits");
        }
        return new Literal(v, width, signed);
    }

    /** The index of the 'w' or 's' after a decimal width prefix, or -1. */
    private static int widthSeparator(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 'w' || c == 's') {
                return i;
            }
            if (!Character.isDigit(c)) {
                return -1;
            }
        }
        return -1;
    }

    /** {@code x op y} on int values; comparisons give 1 or 0. */
    static BigInteger apply(String op, BigInteger x, BigInteger y) throws Problem {
        BigInteger v;
        switch (op) {
            case "+": v = x.add(y); break;
            case "-": v = x.subtract(y); break;
            case "*": v = x.multiply(y); break;
            case "/":
            case "%":
                if (y.signum() == 0) {
                    throw new Problem("division by zero");
                }
                if (x.signum() < 0 || y.signum() < 0) {
                    throw new Problem("'" + op + "' on integers without a width needs operands that are not negative, not "
                            + x + " and " + y + " (P4_16 8.8)");
                }
                v = op.equals("/") ? x.divide(y) : x.mod(y);
                break;
            case "<<":
            case ">>":
                if (y.signum() < 0) {
                    throw new Problem("a shift amount must not be negative, not " + y);
                }
                if (op.equals(">>")) {
                    v = y.bitLength() > 31 ? BigInteger.valueOf(x.signum() < 0 ? -1 : 0) : x.shiftRight(y.intValue());
                } else if (x.signum() == 0) {
                    v = x;
                } else if (y.compareTo(BigInteger.valueOf(MAX_BITS)) > 0) {
                    throw new Problem("the shift amount " + y + " makes a value wider than " + MAX_BITS + " bits");
                } else {
                    v = x.shiftLeft(y.intValue());
                }
                break;
            case "&":
            case "|":
            case "^":
                throw new Problem("'" + op + "' is not defined on integers without a width (P4_16 8.8); give one a width,"
                        + " as in 32w" + x + " " + op + " " + y);
            case "<": return bool(x.compareTo(y) < 0);
            case "<=": return bool(x.compareTo(y) <= 0);
            case ">": return bool(x.compareTo(y) > 0);
            case ">=": return bool(x.compareTo(y) >= 0);
            default: throw new Problem("'" + op + "' needs operands with a width");
        }
        if (v.bitLength() > MAX_BITS) {
            throw new Problem("the result of '" + op + "' is wider than " + MAX_BITS + " bits");
        }
        return v;
    }

    private static BigInteger bool(boolean b) {
        return b ? BigInteger.ONE : BigInteger.ZERO;
    }
}
