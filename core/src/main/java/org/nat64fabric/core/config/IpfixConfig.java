package org.nat64fabric.core.config;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Objects;
import org.nat64fabric.core.ConfigException;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;

/**
 * Where NAT events go as IPFIX (RFC 7011 over UDP, RFC 8158 templates): the collector's address
 * (an IP literal, never a name to resolve on the way) and port, the Observation Domain ID the
 * messages carry, and how often the templates are sent again (RFC 7011 8.4).
 */
public final class IpfixConfig {
    /** IANA's port for IPFIX over UDP (RFC 7011 10.3.4). */
    public static final int DEFAULT_PORT = 4739;
    public static final long DEFAULT_OBSERVATION_DOMAIN_ID = 1;
    /** RFC 6728's default templateRefreshTimeout for UDP. */
    public static final long DEFAULT_TEMPLATE_REFRESH_SECONDS = 600;
    public static final long MAX_TEMPLATE_REFRESH_SECONDS = 86_400;
    public static final long MAX_OBSERVATION_DOMAIN_ID = 0xffff_ffffL;

    public final InetSocketAddress collector;
    public final long observationDomainId;
    public final long templateRefreshSeconds;

    private IpfixConfig(InetSocketAddress collector, long observationDomainId, long templateRefreshSeconds) {
        this.collector = collector;
        this.observationDomainId = observationDomainId;
        this.templateRefreshSeconds = templateRefreshSeconds;
    }

    /** Errors name the field by its name alone ({@code collector}); the reader puts them under its path. */
    public static IpfixConfig of(String collector, int port, long observationDomainId, long templateRefreshSeconds) {
        if (port < 1 || port > 65535) {
            throw new ConfigException("port", port + " is not a UDP port (1-65535)");
        }
        if (observationDomainId < 0 || observationDomainId > MAX_OBSERVATION_DOMAIN_ID) {
            throw new ConfigException("observationDomainId", observationDomainId + " is not from 0 to "
                    + MAX_OBSERVATION_DOMAIN_ID + " (32 bits, RFC 7011 3.1)");
        }
        if (templateRefreshSeconds < 1 || templateRefreshSeconds > MAX_TEMPLATE_REFRESH_SECONDS) {
            throw new ConfigException("templateRefreshSeconds", templateRefreshSeconds + " is not from 1 to "
                    + MAX_TEMPLATE_REFRESH_SECONDS);
        }
        return new IpfixConfig(new InetSocketAddress(literal(collector), port), observationDomainId,
                templateRefreshSeconds);
    }

    /** An IPv4 or IPv6 address literal, parsed without any name lookup. */
    private static InetAddress literal(String text) {
        byte[] bytes;
        if (text.contains(":")) {
            bytes = Ipv6Address.parse(text, "collector").toBytes();
        } else {
            int bits = Ipv4Address.parse(text, "collector").bits();
            bytes = new byte[] {(byte) (bits >>> 24), (byte) (bits >>> 16), (byte) (bits >>> 8), (byte) bits};
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException impossible) {   // only for a wrong length
            throw new IllegalStateException(impossible);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IpfixConfig && ((IpfixConfig) o).collector.equals(collector)
                && ((IpfixConfig) o).observationDomainId == observationDomainId
                && ((IpfixConfig) o).templateRefreshSeconds == templateRefreshSeconds;
    }

    @Override
    public int hashCode() {
        return Objects.hash(collector, observationDomainId, templateRefreshSeconds);
    }

    @Override
    public String toString() {
        return "IPFIX to " + collector.getAddress().getHostAddress() + " port " + collector.getPort()
                + ", observation domain " + observationDomainId + ", templates every " + templateRefreshSeconds + " s";
    }
}
