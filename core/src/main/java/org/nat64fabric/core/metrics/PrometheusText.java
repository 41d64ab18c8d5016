package org.nat64fabric.core.metrics;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes metrics in the Prometheus text exposition format (version 0.0.4): per family one HELP and
 * one TYPE line, then all its samples together, whatever order they were given in. Written here
 * rather than taken from the Prometheus Java client: core is embedded in the ONOS bundle, and the
 * format is a few lines.
 */
public final class PrometheusText {
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
    private static final String[] HISTOGRAM_SUFFIXES = {"_bucket", "_sum", "_count"};

    /** By family name: its HELP and TYPE lines, then its samples. */
    private final Map<String, StringBuilder> families = new LinkedHashMap<>();

    /** Declares a family (once; again is a no-op): {@code type} counter, gauge or histogram. */
    public PrometheusText family(String name, String type, String help) {
        families.computeIfAbsent(name, n -> new StringBuilder()
                .append("# HELP ").append(n).append(' ').append(help.replace("\\", "\\\\").replace("\n", "\\n"))
                .append('\n').append("# TYPE ").append(n).append(' ').append(type).append('\n'));
        return this;
    }

    /** One sample of a declared family (a histogram's by its suffixed names); {@code labels} as name, value, ... */
    public PrometheusText sample(String name, double value, String... labels) {
        StringBuilder out = familyOf(name);
        out.append(name);
        if (labels.length > 0) {
            out.append('{');
            for (int i = 0; i + 1 < labels.length; i += 2) {
                out.append(i == 0 ? "" : ",").append(labels[i]).append("=\"").append(escape(labels[i + 1])).append('"');
            }
            out.append('}');
        }
        out.append(' ').append(format(value)).append('\n');
        return this;
    }

    /** A histogram's samples: cumulative buckets by upper bound in seconds, +Inf, sum and count. */
    public PrometheusText histogram(String name, LatencyHistogram h, String... labels) {
        long[] counts = h.bucketCounts();
        long[] bounds = LatencyHistogram.boundsMicros();
        long cumulative = 0;
        for (int i = 0; i < bounds.length; i++) {
            cumulative += counts[i];
            sample(name + "_bucket", cumulative, with(labels, "le", format(bounds[i] / 1e6)));
        }
        cumulative += counts[bounds.length];
        sample(name + "_bucket", cumulative, with(labels, "le", "+Inf"));
        sample(name + "_sum", h.sumMicros() / 1e6, labels);
        return sample(name + "_count", cumulative, labels);
    }

    @Override
    public String toString() {
        StringBuilder all = new StringBuilder();
        families.values().forEach(all::append);
        return all.toString();
    }

    private StringBuilder familyOf(String sample) {
        StringBuilder f = families.get(sample);
        for (int i = 0; f == null && i < HISTOGRAM_SUFFIXES.length; i++) {
            if (sample.endsWith(HISTOGRAM_SUFFIXES[i])) {
                f = families.get(sample.substring(0, sample.length() - HISTOGRAM_SUFFIXES[i].length()));
            }
        }
        if (f == null) {
            throw new IllegalArgumentException(sample + ": no family declared for it");
        }
        return f;
    }

    private static String[] with(String[] labels, String name, String value) {
        String[] all = Arrays.copyOf(labels, labels.length + 2);
        all[labels.length] = name;
        all[labels.length + 1] = value;
        return all;
    }

    private static String escape(String v) {
        return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    private static String format(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }
}
