package org.nat64fabric.core.eamt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

class EamtTest {
    private static Ipv4Address v4(String a) {
        return Ipv4Address.parse(a, "v4");
    }

    private static Ipv6Address v6(String a) {
        return Ipv6Address.parse(a, "v6");
    }

    @Test
    void suffixBitsAreCopiedBothWaysAndTheLongestPrefixWins() {
        Eamt eamt = new Eamt();
        eamt.add(Eam.parse("2001:db8:aaaa::/120", "192.0.2.0/24", "eamt[0]"), "eamt[0]");
        eamt.add(Eam.parse("2001:db8:bbbb::1/128", "192.0.2.1/32", "eamt[1]"), "eamt[1]");   // refines one address
        assertEquals(Optional.of(v4("192.0.2.66")), eamt.toIpv4(v6("2001:db8:aaaa::42")));
        assertEquals(Optional.of(v6("2001:db8:aaaa::42")), eamt.toIpv6(v4("192.0.2.66")));
        assertEquals(Optional.of(v6("2001:db8:bbbb::1")), eamt.toIpv6(v4("192.0.2.1")));
        assertEquals(Optional.of(v4("192.0.2.1")), eamt.toIpv4(v6("2001:db8:bbbb::1")));
        assertEquals(Optional.empty(), eamt.toIpv4(v6("2001:db8:cccc::1")));
        assertEquals(0xff, eamt.entries().get(0).suffixMask());
    }

    @Test
    void refusesUnequalSuffixesAndAmbiguousEntriesNamingTheField() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> Eam.parse("2001:db8::/96", "192.0.2.0/24", "eamt[3]"));
        assertEquals("eamt[3]", e.field());
        assertTrue(e.getMessage().contains("32 suffix bits but 192.0.2.0/24 leaves 8"), e.getMessage());
        e = assertThrows(ConfigException.class, () -> Eam.parse("2001:db8::/120", "192.0.2.1/24", "eamt[4]"));
        assertEquals("eamt[4].ipv4", e.field());
        Eamt eamt = new Eamt();
        eamt.add(Eam.parse("2001:db8:aaaa::/120", "192.0.2.0/24", "x"), "x");
        e = assertThrows(ConfigException.class, () -> eamt.add(Eam.parse("2001:db8:cccc::/120", "192.0.2.0/24", "x"), "x"));
        assertEquals("x.ipv4Prefix", e.field());
        assertTrue(e.getMessage().contains("192.0.2.0/24 is already mapped by 2001:db8:aaaa::/120 <-> 192.0.2.0/24"),
                e.getMessage());
        assertEquals(1, eamt.entries().size(), "nothing changed");
        assertTrue(eamt.remove(eamt.entries().get(0)));
        assertEquals(0, eamt.entries().size());
    }
}
