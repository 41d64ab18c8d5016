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
    private transient String text;

    private Ipv6Address(long high, long low) {
        this.high = high;
        this.low = low;
    }

    public static Ipv6Address of(long high, long low) {
        return new Ipv6Address(high, low);
    }

    public static Ipv6Address parse(String text, String field) {
        InetAddress a = text == null ? null : InetAddresses.forString(Ipv4Address.checkLiteral(text, field));
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

    /** RFC 5952 text, made once: keys of the BIB and sessions are built from it at every setup. */
    @Override
    public String toString() {
        String t = text;
        if (t == null) {
            try {
                t = InetAddresses.toAddrString(InetAddress.getByAddress(toBytes()));
            } catch (java.net.UnknownHostException e) {
                throw new AssertionError(e);   // 16 bytes are always an address
            }
            text = t;
        }
        return t;
    }
}
