package org.nat64fabric.app.gui;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv4Prefix;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.config.Nat64Config;
import org.nat64fabric.core.control.LinkStatus;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.pool4.PortBlock;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.nat64fabric.core.session.TcpState;

/** The NAT64 as the GUI reads it: lists and counters the test fills; unconfigured until told. */
final class FakeNat64Service implements Nat64Service {
    final List<Session> sessions = new ArrayList<>();
    final List<BibEntry> bib = new ArrayList<>();
    final List<Eam> eamt = new ArrayList<>();
    final Map<String, Long> stats = new TreeMap<>();
    final List<DeviceStatus> devices = new ArrayList<>();
    boolean configured = true;

    /** A dynamic BIB entry for 2001:db8:1::N port 1000+N, mapped to 192.0.2.1 port 2000+N, and its session. */
    Session addSession(Protocol protocol, int n, TcpState state) {
        BibEntry b = new BibEntry(protocol, Ipv6Address.parse("2001:db8:1::" + Integer.toHexString(n), "test"),
                1000 + n, new TransportAddress(Ipv4Address.parse("192.0.2.1", "test"), 2000 + n), false);
        Session s = new Session(b, new TransportAddress(Ipv4Address.parse("198.51.100.10", "test"), 53),
                Ipv6Address.parse("2001:db8:64::c633:640a", "test"), state, 300, 0);
        bib.add(b);
        sessions.add(s);
        return s;
    }

    private void check() {
        if (!configured) {
            throw new NotConfigured("apps.org.nat64fabric.app.nat64", "no valid NAT64 configuration: push it");
        }
    }

    @Override
    public Nat64Config config() {
        throw new UnsupportedOperationException("the GUI does not read the configuration");
    }

    @Override
    public List<Eam> eamt() {
        check();
        return List.copyOf(eamt);
    }

    @Override
    public void addEam(Eam eam) {
        throw new UnsupportedOperationException("the GUI only reads");
    }

    @Override
    public Optional<Eam> removeEam(Ipv4Prefix ipv4) {
        throw new UnsupportedOperationException("the GUI only reads");
    }

    @Override
    public List<BibEntry> bib() {
        check();
        return List.copyOf(bib);
    }

    @Override
    public List<BibEntry> staticBib() {
        check();
        return bib.stream().filter(BibEntry::isStatic).collect(java.util.stream.Collectors.toList());
    }

    @Override
    public BibEntry addStaticBib(Protocol protocol, Ipv6Address address6, int port6, TransportAddress v4) {
        throw new UnsupportedOperationException("the GUI only reads");
    }

    @Override
    public Optional<BibEntry> removeBib(Protocol protocol, Ipv6Address address6, int port6) {
        throw new UnsupportedOperationException("the GUI only reads");
    }

    @Override
    public List<Session> sessions() {
        check();
        return List.copyOf(sessions);
    }

    @Override
    public List<PortBlock> blocks() {
        check();
        return List.of();
    }

    @Override
    public Map<String, Long> stats() {
        check();
        return Map.copyOf(stats);
    }

    @Override
    public String metrics() {
        check();
        return "";
    }

    @Override
    public List<DeviceStatus> devices() {
        check();
        return List.copyOf(devices);
    }

    @Override
    public List<LinkStatus> links() {
        return List.of();     // the GUI shows none
    }
}
