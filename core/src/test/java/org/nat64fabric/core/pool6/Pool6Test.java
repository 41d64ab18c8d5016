package org.nat64fabric.core.pool6;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

class Pool6Test {
    /** RFC 6052 2.4, Table 1: 192.0.2.33 under each prefix length. */
    @ParameterizedTest
    @CsvSource({
        "2001:db8::/32, 2001:db8:c000:221::",
        "2001:db8:100::/40, 2001:db8:1c0:2:21::",
        "2001:db8:122::/48, 2001:db8:122:c000:2:2100::",
        "2001:db8:122:300::/56, 2001:db8:122:3c0:0:221::",
        "2001:db8:122:344::/64, 2001:db8:122:344:c0:2:2100:0",
        "2001:db8:122:344::/96, 2001:db8:122:344::192.0.2.33",
        "64:ff9b::/96, 64:ff9b::192.0.2.33",
    })
    void rfc6052ExamplesBothWays(String prefix, String embedded) {
        Pool6 pool6 = Pool6.parse(prefix, "pool6");
        Ipv4Address v4 = Ipv4Address.parse("192.0.2.33", "v4");
        Ipv6Address v6 = Ipv6Address.parse(embedded, "v6");
        assertEquals(v6, pool6.embed(v4));
        assertEquals(v4, pool6.extract(v6));
    }

    @Provide
    Arbitrary<Integer> lengths() {
        return Arbitraries.of(32, 40, 48, 56, 64, 96);
    }

    @Property
    void everyLengthRoundTripsAndKeepsTheUOctetZero(@ForAll("lengths") int length, @ForAll int v4bits) {
        Pool6 pool6 = Pool6.parse("2001:db8::/" + length, "pool6");
        Ipv4Address v4 = Ipv4Address.of(v4bits);
        Ipv6Address v6 = pool6.embed(v4);
        assertEquals(v4, pool6.extract(v6));
        assertEquals(0, (v6.low() >>> 56) & 0xff, "bits 64-71 are zero");
        assertTrue(pool6.prefix().contains(v6));
    }

    @Test
    void refusesLengthsAndPrefixesRfc6052DoesNotAllow() {
        ConfigException e = assertThrows(ConfigException.class, () -> Pool6.parse("2001:db8::/80", "pool6.prefix"));
        assertEquals("pool6.prefix", e.field());
        assertTrue(e.getMessage().contains("32, 40, 48, 56, 64 or 96"), e.getMessage());
        e = assertThrows(ConfigException.class, () -> Pool6.parse("2001:db8:0:0:ff00::/96", "pool6.prefix"));
        assertTrue(e.getMessage().contains("bits 64-71"), e.getMessage());
        e = assertThrows(ConfigException.class, () -> Pool6.parse("2001:db8::1/96", "pool6.prefix"));
        assertTrue(e.getMessage().contains("did you mean 2001:db8::/96"), e.getMessage());
        e = assertThrows(ConfigException.class, () -> Pool6.parse("not-an-address/96", "pool6.prefix"));
        assertTrue(e.getMessage().startsWith("pool6.prefix: 'not-an-address' is not an IP address"), e.getMessage());
    }

    @Test
    void wellKnownPrefixRepresentsOnlyGlobalIpv4() {
        Pool6 wkp = Pool6.parse("64:ff9b::/96", "pool6");
        assertTrue(wkp.isWellKnown());
        for (String a : new String[] {"10.1.2.3", "192.168.0.1", "172.31.255.255", "100.64.0.1", "127.0.0.1",
                "169.254.1.1", "203.0.113.9", "224.0.0.1"}) {
            assertFalse(wkp.mayRepresent(Ipv4Address.parse(a, "a")), a);
        }
        for (String a : new String[] {"8.8.8.8", "172.32.0.1", "192.0.3.1", "1.1.1.1"}) {
            assertTrue(wkp.mayRepresent(Ipv4Address.parse(a, "a")), a);
        }
        Pool6 nsp = Pool6.parse("2001:db8:64::/96", "pool6");
        assertTrue(nsp.mayRepresent(Ipv4Address.parse("10.1.2.3", "a")), "network-specific prefixes carry any IPv4");
    }
}
