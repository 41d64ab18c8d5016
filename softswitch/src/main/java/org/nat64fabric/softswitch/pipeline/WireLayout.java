package org.nat64fabric.softswitch.pipeline;

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

    WireLayout(Type.Aggregate type) {
        Type.Field[] fields = type.wireFields();
        widths = new int[fields.length];
        wide = new boolean[fields.length];
        offsets = new int[fields.length];
        for (int i = 0; i < fields.length; i++) {
            widths[i] = fields[i].wireWidth();
            wide[i] = fields[i].wide();
            offsets[i] = wide[i] ? fields[i].wideOffset : fields[i].narrowOffset;
        }
    }
}
