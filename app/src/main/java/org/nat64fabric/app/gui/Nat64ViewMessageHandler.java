package org.nat64fabric.app.gui;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.nat64fabric.core.control.Nat64Service;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.Session;
import org.onosproject.ui.RequestHandler;
import org.onosproject.ui.UiMessageHandler;

/** The NAT64 view's three tables: sessions, BIB and EAMT, as the REST API lists them. */
final class Nat64ViewMessageHandler extends UiMessageHandler {
    static final String SESSIONS = "nat64Session";
    static final String BIB = "nat64Bib";
    static final String EAMT = "nat64Eam";

    private final Nat64Service service;

    Nat64ViewMessageHandler(Nat64Service service) {
        this.service = service;
    }

    @Override
    protected Collection<RequestHandler> createRequestHandlers() {
        return List.of(new Sessions(), new Bib(), new Eamt());
    }

    private final class Sessions extends FilteredTableHandler<Session> {
        Sessions() {
            super(SESSIONS, () -> service.sessions(null, null, null, null), "id", "protocol", "ipv6", "ipv4",
                    "remote4", "remote6", "tcpState", "lifetime");
        }

        @Override
        Map<String, Object> cells(Session s) {
            BibEntry b = s.bib();
            return Map.of("id", s.key(), "protocol", b.protocol().name(), "ipv6", b.address6() + " " + b.port6(),
                    "ipv4", b.v4().address() + " " + b.v4().port(),
                    "remote4", s.remote4().address() + " " + s.remote4().port(), "remote6", s.remote6().toString(),
                    "tcpState", s.state().map(Enum::name).orElse(""), "lifetime", s.lifetime());
        }
    }

    private final class Bib extends FilteredTableHandler<BibEntry> {
        Bib() {
            super(BIB, () -> service.bib(null, null), "id", "protocol", "ipv6", "ipv4", "kind");
        }

        @Override
        Map<String, Object> cells(BibEntry b) {
            return Map.of("id", b.key6(), "protocol", b.protocol().name(), "ipv6", b.address6() + " " + b.port6(),
                    "ipv4", b.v4().address() + " " + b.v4().port(), "kind", b.isStatic() ? "static" : "dynamic");
        }
    }

    private final class Eamt extends FilteredTableHandler<Eam> {
        Eamt() {
            super(EAMT, service::eamt, "id", "ipv6Prefix", "ipv4Prefix");
        }

        @Override
        Map<String, Object> cells(Eam e) {
            return Map.of("id", e.ipv4().toString(), "ipv6Prefix", e.ipv6().toString(), "ipv4Prefix", e.ipv4().toString());
        }
    }
}
