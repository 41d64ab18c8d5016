package org.nat64fabric.core.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nat64fabric.core.addr.Ipv4Address;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.control.SwitchLink.Update;
import org.nat64fabric.core.eamt.Eam;
import org.nat64fabric.core.fabric.DesiredState;
import org.nat64fabric.core.fabric.Entity;
import org.nat64fabric.core.fabric.SessionEntries;
import org.nat64fabric.core.fabric.TableEntry;
import org.nat64fabric.core.pool4.Protocol;
import org.nat64fabric.core.pool4.TransportAddress;
import org.nat64fabric.core.session.BibEntry;
import org.nat64fabric.core.session.BibSide;

class HeldEntitiesTest {
    private static BibEntry bib(Protocol p, int host, int port6, int port4) {
        return new BibEntry(p, Ipv6Address.parse("2001:db8:1::" + Integer.toHexString(host), "test"), port6,
                new TransportAddress(Ipv4Address.parse("192.0.2." + (host % 250 + 1), "test"), port4), false);
    }

    /**
     * Applies updates as a switch does (P4Runtime: INSERT of a held key, MODIFY or DELETE of one
     * not held are refused), so that what the updates do is checked, not how they are listed.
     */
    private static void apply(Map<Object, Entity> sw, List<Update> updates) {
        for (Update u : updates) {
            boolean held = sw.containsKey(u.entity.key());
            assertEquals(u.type != Update.Type.INSERT, held, u + " against what the switch holds");
            if (u.type == Update.Type.DELETE) {
                sw.remove(u.entity.key());
            } else {
                sw.put(u.entity.key(), u.entity);
            }
        }
    }

    @Test
    void aBibEntrysSessionEntriesAreWrittenOnceRewrittenWhenTheirLifetimeChangesAndFollowItsIpv4Side() {
        HeldEntities held = new HeldEntities(16);
        Map<Object, Entity> sw = new HashMap<>();
        BibEntry b = bib(Protocol.TCP, 1, 40000, 2000);
        List<Update> updates = new ArrayList<>();
        assertTrue(held.put(new SessionEntries(b, 7440, false, false), SessionEntries::entries, updates));
        assertEquals(List.of(Update.Type.INSERT, Update.Type.INSERT), types(updates));
        apply(sw, updates);

        updates.clear();
        assertFalse(held.put(new SessionEntries(b, 7440, false, false), SessionEntries::entries, updates), "held already");
        assertTrue(updates.isEmpty());

        assertTrue(held.put(new SessionEntries(b, 240, false, false), SessionEntries::entries, updates));
        assertEquals(List.of(Update.Type.MODIFY, Update.Type.MODIFY), types(updates));
        apply(sw, updates);
        assertEquals(DesiredState.bibEntries(b, 240, false, false), sortedByTable(sw));

        updates.clear();
        TableEntry oldV4 = DesiredState.bibEntries(b, 240, false, false).get(1);
        BibEntry moved = bib(Protocol.TCP, 1, 40000, 2001);
        assertTrue(held.put(new SessionEntries(moved, 240, false, false), SessionEntries::entries, updates));
        assertEquals(List.of(Update.Type.MODIFY, Update.Type.INSERT), types(updates),
                "session_v6 rewritten, a session_v4 entry for the new IPv4 side");
        apply(sw, updates);
        assertEquals(2, held.size());
        // The one before stays on the switch until it is reported idle; nothing holds it then.
        assertFalse(held.removeEntry(oldV4), "the BIB entry maps another IPv4 side now");
        assertEquals(2, held.size());
        apply(sw, List.of(new Update(Update.Type.DELETE, oldV4)));
        assertEquals(DesiredState.bibEntries(moved, 240, false, false), sortedByTable(sw));

        updates.clear();
        held.removeSessions(BibSide.of(moved)).forEach(e -> updates.add(new Update(Update.Type.DELETE, e)));
        apply(sw, updates);
        assertTrue(sw.isEmpty());
        assertEquals(0, held.size());
        assertTrue(held.removeSessions(BibSide.of(moved)).isEmpty(), "nothing left to delete");
    }

    private static TableEntry eamEntry() {
        return DesiredState.eamEntries(Eam.parse("2001:db8:aaaa::/120", "198.51.100.0/24", "test")).get(0);
    }

    private static List<Update.Type> types(List<Update> updates) {
        List<Update.Type> out = new ArrayList<>();
        updates.forEach(u -> out.add(u.type));
        return out;
    }

    private static List<TableEntry> sortedByTable(Map<Object, Entity> sw) {
        List<TableEntry> out = new ArrayList<>();
        sw.values().forEach(e -> out.add((TableEntry) e));
        out.sort((x, y) -> y.table().compareTo(x.table()));   // session_v6 before session_v4
        return out;
    }

    @Test
    void aWriteNeverMadeIsForgottenUnlessALaterOneTookItsPlace() {
        HeldEntities held = new HeldEntities(16);
        BibEntry b = bib(Protocol.UDP, 2, 5000, 6000);
        SessionEntries first = new SessionEntries(b, 300, false, false);
        SessionEntries later = new SessionEntries(b, 120, false, false);
        held.put(first, SessionEntries::entries, new ArrayList<>());
        held.put(later, SessionEntries::entries, new ArrayList<>());
        held.forget(first);
        assertEquals(2, held.size(), "the later write's entries are still held");
        held.forget(later);
        assertEquals(0, held.size());

        TableEntry eam = eamEntry();
        assertEquals(Update.Type.INSERT, held.put(eam).type);
        assertNull(held.put(eam), "held already: nothing to write");
        held.forget(eam);
        assertFalse(held.remove(eam), "forgotten");
    }

    @Test
    void anEntryReportedIdleIsNoLongerHeldButItsBibEntrysOtherEntryIs() {
        Random random = new Random(7);
        for (int i = 0; i < 200; i++) {
            Protocol p = Protocol.values()[random.nextInt(Protocol.values().length)];
            BibEntry b = bib(p, random.nextInt(0xffff) + 1, random.nextInt(65536), 1024 + random.nextInt(64512));
            boolean filtered = random.nextBoolean();
            boolean transitory = random.nextBoolean();
            long lifetime = random.nextInt(8000);
            List<TableEntry> entries = DesiredState.bibEntries(b, lifetime, filtered, transitory);
            for (int reported = 0; reported < 2; reported++) {
                TableEntry e = entries.get(reported);
                assertEquals(Optional.of(BibSide.of(b)), SessionEntries.sideOf(e), e.toString());
                HeldEntities held = new HeldEntities(16);
                held.hold(new SessionEntries(b, lifetime, filtered, transitory));
                assertTrue(held.removeEntry(e), e + " was held");
                assertEquals(1, held.size(), "the other entry is still on the switch");
                assertTrue(held.remove(entries.get(1 - reported)), "and is held as itself");
                assertFalse(held.removeEntry(e), "reported again: held no more");
            }
        }
        TableEntry other = eamEntry();
        assertEquals(Optional.empty(), SessionEntries.sideOf(other));
    }

    @Test
    void aSessionV4EntryReportedWithoutItsActionNamesNoBibEntryAndDropsNothing() {
        BibEntry b = bib(Protocol.UDP, 3, 5000, 6000);
        TableEntry v4 = DesiredState.bibEntries(b, 300, false, false).get(1);
        TableEntry.Builder reported = TableEntry.in(v4.table());   // as BMv2 reports an idle entry: table and match
        v4.matches().forEach(m -> reported.exact(m.field, m.value()));
        TableEntry matchOnly = reported.idleTimeout(300).build();
        assertEquals(Optional.empty(), SessionEntries.sideOf(matchOnly));
        HeldEntities held = new HeldEntities(16);
        held.hold(new SessionEntries(b, 300, false, false));
        assertFalse(held.removeEntry(matchOnly));
        assertEquals(2, held.size());
    }
}
