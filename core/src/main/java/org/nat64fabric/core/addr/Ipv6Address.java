package org.nat64fabric.core.addr;

import java.io.Serializable;
import com.google.common.net.InetAddresses;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import org.nat64fabric.core.ConfigException;

/** An IPv6 address as two 64-bit halves. */
public final class Ipv6Address implements Serializable {
    /** Kept in the embedded controller's durable store. */
    private static final long serialVersionUID = 1L;

    private final long high;
    private final long low;
    private Ipv6Address(long high, long low) {
        this.high = high;
        this.low = low;
    }

    /**
     * Addresses made lately, by a hash of their bits: a subscriber's flows and the servers many
     * flows go to share one object, so the sessions the controller holds do not each keep a copy
     * (fewer objects for every young collection to copy). Racing threads only miss a share.
     */
    private static final Ipv6Address[] RECENT = new Ipv6Address[4096];

    public static Ipv6Address of(long high, long low) {
        long h = (high ^ low) * 0x9E3779B97F4A7C15L;
        int slot = (int) (h >>> 52);
        Ipv6Address a = RECENT[slot];
        if (a == null || a.high != high || a.low != low) {
            a = new Ipv6Address(high, low);
            RECENT[slot] = a;
        }
        return a;
    }

    public static Ipv6Address parse(String text, String field) {
        InetAddress a = text == null ? null : InetAddresses.forString(Ipv4Address.checkLiteral(text, field));
        if (a instanceof java.net.Inet4Address && text.indexOf(':') >= 0) {
            // ::ffff:a.b.c.d, which Java reads as IPv4: an IPv6 address all the same (RFC 4291 2.5.5.2),
            // which the checks of each use then refuse by name ("IPv4-mapped")
            byte[] b = a.getAddress();
            return of(0, 0xffff00000000L | (b[0] & 0xffL) << 24 | (b[1] & 0xffL) << 16 | (b[2] & 0xffL) << 8 | (b[3] & 0xffL));
        }
        if (!(a instanceof Inet6Address)) {
            throw new ConfigException(field, ConfigException.quote(text) + " is not an IPv6 address");
        }
        ByteBuffer b = ByteBuffer.wrap(a.getAddress());
        return of(b.getLong(), b.getLong());
    }

    public long high() {
        return high;
    }

    public long low() {
        return low;
    }

    /** Bit {@code i}, counted from the most significant (bit 0) as RFC 6052 counts them. */
    public int bit(int i) {
        long half = i < 64 ? high : low;
        return (int) (half >>> (63 - (i & 63))) & 1;
    }

    /** This address with only its first {@code length} bits kept. */
    public Ipv6Address mask(int length) {
        if (length <= 0) {
            return of(0, 0);
        }
        if (length >= 128) {
            return this;
        }
        if (length <= 64) {
            return of(high & -1L << (64 - length), 0);
        }
        return of(high, low & -1L << (128 - length));
    }

    public byte[] toBytes() {
        return ByteBuffer.allocate(16).putLong(high).putLong(low).array();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ipv6Address && ((Ipv6Address) o).high == high && ((Ipv6Address) o).low == low;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(high) * 31 + Long.hashCode(low);
    }

    /**
     * RFC 5952 text: lowercase hextets without leading zeros, the first longest run of two or
     * more zero hextets as "::" (its 4.2, 4.3). Made straight from the halves (one string, not the
     * InetAddress, byte and int arrays of a library's formatter) and not kept: the keys that hold
     * it are made once per entry, and a kept copy per address cost each session 160 bytes.
     */
    @Override
    public String toString() {
        int runStart = -1;
        int runLength = 1;   // a run must be longer than this to be compressed (4.2.2: never one hextet)
        for (int i = 0, start = 0; i <= 8; i++) {
            if (i < 8 && hextet(i) == 0) {
                continue;
            }
            if (i - start > runLength) {
                runStart = start;
                runLength = i - start;
            }
            start = i + 1;
        }
        char[] out = new char[39];
        int n = 0;
        for (int i = 0; i < 8; i++) {
            if (i == runStart) {
                out[n++] = ':';
                out[n++] = ':';
                i += runLength - 1;
                continue;
            }
            if (n > 0 && out[n - 1] != ':') {
                out[n++] = ':';
            }
            int h = hextet(i);
            for (int shift = 12; shift >= 0; shift -= 4) {
                if (h >>> shift != 0 || shift == 0) {
                    out[n++] = Character.forDigit((h >>> shift) & 0xf, 16);
                }
            }
        }
        return new String(out, 0, n);
    }

    private int hextet(int i) {
        return (int) ((i < 4 ? high : low) >>> (48 - 16 * (i & 3))) & 0xffff;
    }
}
