package org.nat64fabric.sume.agent.layout;

import java.math.BigInteger;
import java.util.Arrays;

/**
 * How one table's entries are laid out in the card's words, the layout of SDNet's generated table
 * API (the P4-NetFPGA CLI's {@code hexify_key}, {@code hexify_mask}, {@code hexify_value}):
 * <ul>
 *   <li><b>key</b> (and a TCAM's <b>mask</b>): the match fields in the table's key order, the first
 *       one in the most significant bits, each exactly its width;</li>
 *   <li><b>value</b>: the action id, then the parameters of <em>every</em> action of the table in the
 *       table's action order (SDNet's response tuple has a field for each parameter of each action;
 *       this is why the CLI fails unless every action's parameters are given); the parameters of the
 *       actions not chosen are 0.</li>
 * </ul>
 * Decided here (the SDNet outputs that fix them, {@code .sdnet_switch_info.dat}, are not available
 * without SDNet): an action's id is its position in the table's action list counted from 1 (0 means
 * no action), in the fewest bits that hold the last id.
 */
public final class TableLayout {
    /** SDNet's lookup engines: exact → CAM ("EM"), ternary → TCAM, lpm → LPM; a keyless table holds only its default. */
    public enum Kind { CAM, TCAM, LPM, KEYLESS }

    /** A decoded value: the action's position in the table's action list (from 0) and its parameters. */
    public static final class Action {
        public final int index;
        public final BigInteger[] params;

        public Action(int index, BigInteger[] params) {
            this.index = index;
            this.params = params;
        }
    }

    public final String name;
    public final Kind kind;
    private final int[] keyWidths;
    private final int[][] paramWidths;
    private final int actionIdWidth;
    private final int[] valueWidths;

    /** {@code paramWidths[i]}: the widths of the parameters of the table's i-th action. */
    public TableLayout(String name, Kind kind, int[] keyWidths, int[][] paramWidths) {
        this.name = name;
        this.kind = kind;
        this.keyWidths = keyWidths.clone();
        this.paramWidths = paramWidths.clone();
        this.actionIdWidth = BitVector.widthFor(paramWidths.length);
        int n = 1;
        for (int[] p : paramWidths) {
            n += p.length;
        }
        this.valueWidths = new int[n];
        valueWidths[0] = actionIdWidth;
        int i = 1;
        for (int[] p : paramWidths) {
            for (int w : p) {
                valueWidths[i++] = w;
            }
        }
    }

    /** The lookup engine for a table whose key has these kinds ("exact", "ternary", "lpm"). */
    public static Kind kindOf(String... matchKinds) {
        if (matchKinds.length == 0) {
            return Kind.KEYLESS;
        }
        boolean lpm = false;
        for (String k : matchKinds) {
            switch (k) {
                case "exact":
                    break;
                case "ternary":
                    return Kind.TCAM;
                case "lpm":
                    lpm = true;
                    break;
                default:
                    throw new IllegalArgumentException("SDNet has no " + k + " match (exact, ternary and lpm only)");
            }
        }
        if (lpm && matchKinds.length > 1) {
            throw new IllegalArgumentException("an SDNet LPM table has one key field");
        }
        return lpm ? Kind.LPM : Kind.CAM;
    }

    public int keyBits() {
        return BitVector.sum(keyWidths);
    }

    public int valueBits() {
        return BitVector.sum(valueWidths);
    }

    public int keyWidth(int field) {
        return keyWidths[field];
    }

    public int actions() {
        return paramWidths.length;
    }

    /** The key (or a TCAM mask) of these field values, in key order. */
    public BigInteger key(BigInteger... fields) {
        return BitVector.concat(fields, keyWidths);
    }

    public BigInteger[] keyFields(BigInteger key) {
        return BitVector.split(key, keyWidths);
    }

    /** The value that runs the table's {@code actionIndex}-th action (from 0) with {@code params}. */
    public BigInteger value(int actionIndex, BigInteger... params) {
        if (actionIndex < 0 || actionIndex >= paramWidths.length) {
            throw new IllegalArgumentException(name + " has no action #" + actionIndex);
        }
        if (params.length != paramWidths[actionIndex].length) {
            throw new IllegalArgumentException(name + ": action #" + actionIndex + " takes "
                    + paramWidths[actionIndex].length + " parameters, not " + params.length);
        }
        BigInteger[] fields = new BigInteger[valueWidths.length];
        Arrays.fill(fields, BigInteger.ZERO);
        fields[0] = BigInteger.valueOf(actionIndex + 1);
        System.arraycopy(params, 0, fields, 1 + firstParam(actionIndex), params.length);
        return BitVector.concat(fields, valueWidths);
    }

    /** The action a value runs; IllegalArgumentException if its id names none. */
    public Action action(BigInteger value) {
        BigInteger[] fields = BitVector.split(value, valueWidths);
        int id = fields[0].intValue();
        if (id < 1 || id > paramWidths.length || value.bitLength() > valueBits()) {
            throw new IllegalArgumentException(name + ": value 0x" + value.toString(16) + " names no action (id " + id + ")");
        }
        int index = id - 1;
        int first = 1 + firstParam(index);
        return new Action(index, Arrays.copyOfRange(fields, first, first + paramWidths[index].length));
    }

    private int firstParam(int actionIndex) {
        int n = 0;
        for (int i = 0; i < actionIndex; i++) {
            n += paramWidths[i].length;
        }
        return n;
    }
}
