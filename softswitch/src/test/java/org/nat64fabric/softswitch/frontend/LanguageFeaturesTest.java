package org.nat64fabric.softswitch.frontend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.nat64fabric.softswitch.testutil.P4Programs.bytes;
import static org.nat64fabric.softswitch.testutil.P4Programs.hex;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.nat64fabric.softswitch.v1model.V1ModelSwitch;

/**
 * P4_16 1.2.x constructs beyond the basics, each in a program of src/test/resources/language/
 * that runs packets through the interpreter; the test reads back what the program emits.
 */
class LanguageFeaturesTest {
    private static final Path PROGRAMS = Path.of("src/test/resources/language");

    /** The frames a program sends for one packet received on port 0, as hex. */
    private static List<String> run(String program, String input) {
        V1ModelSwitch sw = new V1ModelSwitch(Frontend.compile(PROGRAMS.resolve(program)));
        return sw.process(0, bytes(input)).stream().map(o -> hex(o.data)).collect(Collectors.toList());
    }

    @Test
    void explicitTypeArgumentsOnExtractEmitAndLookahead() {
        // lookahead<bit<16>> saw the tag before extract<h_t> took it; lookahead<bit<8>> then sees 0x22
        assertEquals(List.of("abcd" + "abcd11" + "22"), run("type_arguments.p4", "abcd 11 22"));
        // a 0xff after the header sends the parser to the state that overwrites what was peeked
        assertEquals(List.of("ffff" + "abcd11" + "ff"), run("type_arguments.p4", "abcd 11 ff"));
    }

    @Test
    void structureValuedExpressionsAssignByFieldName() {
        // p = {x = b + 1, y = a} = {0x03, 0x01}; n.p = {x = p.y, y = p.x} = {0x01, 0x03};
        // out_h = {a = n.z, b = n.p.y, c = 0x1234}, valid; in_h's a and b swapped
        assertEquals(List.of("020103ee" + "5a031234" + "99"),
                run("struct_initialisers.p4", "01 02 03ee 99"));
    }

    @Test
    void boolAndSerializableEnumHeaderFieldsTravelOnTheWire() {
        // urgent (first bit) and kind CONTROL: v + 1, kind becomes DATA, urgent cleared, extra parsed
        assertEquals(List.of("000111" + "02" + "55"), run("header_field_types.p4", "80 02 10 ee 55"));
        // neither urgent nor CONTROL, pad bits kept
        assertEquals(List.of("050110" + "55"), run("header_field_types.p4", "05 01 10 55"));
        // a kind no member has is kept as read
        assertEquals(List.of("810711" + "55"), run("header_field_types.p4", "81 07 10 55"));
    }
}
