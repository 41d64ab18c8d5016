package org.nat64fabric.app.gui;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.nat64fabric.core.control.Nat64Service;
import org.onosproject.ui.table.TableModel;
import org.onosproject.ui.table.TableRequestHandler;

/**
 * One table of the NAT64 view. ONOS's legacy tables show every row they are sent and sort them in
 * the server; a session table can hold millions, so this one sends the first {@link #MAX_ROWS}
 * rows that match the view's filter (a case-insensitive substring of any cell, the request's
 * {@code filter}), in the order the view asks for, and says how many matched ({@code total}
 * annotation).
 */
abstract class FilteredTableHandler<T> extends TableRequestHandler {
    static final int MAX_ROWS = 1000;
    static final String FILTER = "filter";
    static final String TOTAL = "total";
    static final String SHOWN = "shown";

    private final String[] columns;
    private final Supplier<List<T>> items;
    /** Why the last request has no rows, when the NAT64 is not configured. */
    private volatile String notConfigured;

    /** {@code tag} as the view's table builder names it: requests {@code tagDataRequest}, rows {@code tags}. */
    FilteredTableHandler(String tag, Supplier<List<T>> items, String... columns) {
        super(tag + "DataRequest", tag + "DataResponse", tag + "s");
        this.items = items;
        this.columns = columns.clone();
    }

    /** The row's cells by column, the row's {@code id} (unique in the table) included. */
    abstract Map<String, Object> cells(T item);

    /** The order of one of the request's sort columns: numbers by value, the rest as text; none when absent. */
    private Comparator<Map<String, Object>> order(ObjectNode payload, String column, String direction) {
        String c = string(payload, column, column.equals("firstCol") ? defaultColumnId() : null);
        if (c == null || !List.of(columns).contains(c)) {
            return (a, b) -> 0;
        }
        Comparator<Map<String, Object>> byColumn = (a, b) -> {
            Object x = a.get(c);
            Object y = b.get(c);
            return x instanceof Number && y instanceof Number
                    ? Long.compare(((Number) x).longValue(), ((Number) y).longValue())
                    : String.valueOf(x).compareTo(String.valueOf(y));
        };
        return "desc".equals(string(payload, direction, "asc")) ? byColumn.reversed() : byColumn;
    }

    @Override
    protected String[] getColumnIds() {
        return columns.clone();
    }

    @Override
    protected String defaultColumnId() {
        return columns[0];
    }

    @Override
    protected String noRowsMessage(ObjectNode payload) {
        String why = notConfigured;
        return why != null ? why : string(payload, FILTER, "").isBlank() ? "None" : "No row matches the filter";
    }

    @Override
    protected void populateTable(TableModel tm, ObjectNode payload) {
        List<T> all;
        try {
            all = items.get();
            notConfigured = null;
        } catch (Nat64Service.NotConfigured e) {
            all = List.of();
            notConfigured = e.getMessage();
        }
        String filter = string(payload, FILTER, "").trim().toLowerCase(Locale.ROOT);
        List<Map<String, Object>> matching = new ArrayList<>();
        for (T item : all) {
            Map<String, Object> cells = cells(item);
            if (filter.isEmpty() || cells.values().stream()
                    .anyMatch(v -> String.valueOf(v).toLowerCase(Locale.ROOT).contains(filter))) {
                matching.add(cells);
            }
        }
        // The rows sent are the first in the order the view asks for (ONOS then sorts only those).
        matching.sort(order(payload, "firstCol", "firstDir").thenComparing(order(payload, "secondCol", "secondDir")));
        int matched = matching.size();
        matching.stream().limit(MAX_ROWS).forEach(cells -> {
            TableModel.Row row = tm.addRow();
            cells.forEach(row::cell);
        });
        tm.addAnnotation(TOTAL, matched);
        tm.addAnnotation(SHOWN, Math.min(matched, MAX_ROWS));
    }
}
