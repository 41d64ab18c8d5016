package org.nat64fabric.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nat64fabric.core.addr.Ipv6Address;
import org.nat64fabric.core.event.NatEvents;

class EventLogTest {
    @Test
    void theLogIsRotatedPastItsSizeKeepingItsLastGenerations(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("nat-events.log");
        NatEvents events = new NatEvents(false);
        Ipv6Address host = Ipv6Address.parse("2001:db8::1", "host");
        String line = events.quotaExceeded(host, 8, 1L) + System.lineSeparator();
        int lines = 1000;
        try (EventLog log = new EventLog(file, 10L * line.length())) {   // ten lines a file
            for (int i = 0; i < lines; i++) {
                log.accept(events.quotaExceeded(host, 8, 1L));
            }
        }
        for (int generation = 1; generation <= EventLog.KEPT; generation++) {
            Path old = dir.resolve("nat-events.log." + generation);
            assertEquals(10L * line.length(), Files.size(old), old + " holds its ten lines");
        }
        assertFalse(Files.exists(dir.resolve("nat-events.log." + (EventLog.KEPT + 1))), "older ones deleted");
        assertTrue(Files.size(file) < 10L * line.length(), "the current file, after the last rotation");
        assertEquals(line, Files.readAllLines(dir.resolve("nat-events.log.1")).get(0) + System.lineSeparator());
    }
}
