package org.nat64fabric.softswitch.pipeline;

import java.util.ArrayList;
import java.util.List;
import org.nat64fabric.softswitch.frontend.Type;

/**
 * A header's fields on the wire as plain arrays, worked out once: extract and emit walk them for
 * every packet, where asking each field for its width and kind took type tests per field.
 */
final class WireLayout {
    /** Each field's width in bits, in wire order. */
    final int[] widths;
    /** Whether each field is held in a wide slot (over 64 bits). */
    final boolean[] wide;
    /** Each field's offset from the header's narrow base, or from its wide base when wide. */
    final int[] offsets;
    /** A header (its validity in its first narrow slot), or a struct read by lookahead (none). */
    final boolean header;

    WireLayout(Type.Aggregate type) {
        Type.Field[] fields = type.wireFields();
        widths = new int[fields.length];
        wide = new boolean[fields.length];
        offsets = new int[fields.length];
        header = type.header;
        for (int i = 0; i < fields.length; i++) {
            widths[i] = fields[i].wireWidth();
            wide[i] = fields[i].wide();
            offsets[i] = wide[i] ? fields[i].wideOffset : fields[i].narrowOffset;
        }
    }

    /**
     * The fields in runs that each fill whole bytes, for compiled code to read or write a run as
     * one big-endian word: narrow fields up to 64 bits together, a wide field (whole bytes) alone.
     * Each run is {first field, end field, byte offset, bytes}; null when the fields do not fall
     * into such runs (a narrow run over 64 bits before a byte boundary, a wide field inside a byte).
     */
    List<int[]> byteRuns() {
        List<int[]> runs = new ArrayList<>();
        int bit = 0;
        int first = 0;
        int runBits = 0;
        for (int i = 0; i < widths.length; i++) {
            if (wide[i]) {
                if (runBits != 0 || widths[i] % 8 != 0) {
                    return null;
                }
                runs.add(new int[] {i, i + 1, bit / 8, widths[i] / 8});
                bit += widths[i];
                first = i + 1;
                continue;
            }
            runBits += widths[i];
            bit += widths[i];
            if (runBits > 64) {
                return null;
            }
            if (runBits % 8 == 0) {
                runs.add(new int[] {first, i + 1, (bit - runBits) / 8, runBits / 8});
                first = i + 1;
                runBits = 0;
            }
        }
        return runBits == 0 ? runs : null;
    }
}
