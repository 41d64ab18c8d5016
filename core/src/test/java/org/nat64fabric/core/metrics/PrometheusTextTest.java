package org.nat64fabric.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PrometheusTextTest {
    @Test
    void aFamilysSamplesComeTogetherAfterItsHelpAndType() {
        PrometheusText t = new PrometheusText()
                .family("a_total", "counter", "A's help")
                .family("b", "gauge", "B")
                .sample("a_total", 1, "x", "1")
                .sample("b", 2.5)
                .sample("a_total", 3, "x", "q\"uo\\te\nd");
        assertEquals("# HELP a_total A's help\n# TYPE a_total counter\na_total{x=\"1\"} 1\n"
                + "a_total{x=\"q\\\"uo\\\\te\\nd\"} 3\n# HELP b B\n# TYPE b gauge\nb 2.5\n", t.toString());
    }

    @Test
    void aHistogramHasCumulativeBucketsThenInfSumAndCount() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(12_000);        // 12 µs: the 15 µs bucket
        h.record(2_000_000);     // 2 ms
        String text = new PrometheusText().family("lat_seconds", "histogram", "L")
                .histogram("lat_seconds", h, "stage", "total").toString();
        assertTrue(text.contains("lat_seconds_bucket{stage=\"total\",le=\"1.0E-5\"} 0\n"
                + "lat_seconds_bucket{stage=\"total\",le=\"1.5E-5\"} 1\n"), text);
        assertTrue(text.contains("lat_seconds_bucket{stage=\"total\",le=\"0.002\"} 2\n"));
        assertTrue(text.endsWith("lat_seconds_bucket{stage=\"total\",le=\"+Inf\"} 2\n"
                + "lat_seconds_sum{stage=\"total\"} 0.002012\nlat_seconds_count{stage=\"total\"} 2\n"), text);
    }

    @Test
    void aSampleOfNoDeclaredFamilyIsABug() {
        assertThrows(IllegalArgumentException.class, () -> new PrometheusText().sample("nobody", 1));
    }
}
