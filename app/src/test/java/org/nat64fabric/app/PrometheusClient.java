package org.nat64fabric.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Metrics in the Prometheus text format as the Prometheus project's Python client reads them
 * ({@code prometheus_client}, from tests/requirements.txt, in the venv that {@code make deps} creates
 * before {@code make test} runs the JUnit suites): tests/prometheus_families.py hands its families
 * over as JSON. No maintained Java library parses the text format; Prometheus's Java client writes it only.
 */
final class PrometheusClient {
    /** Maven runs a module's tests in the module's directory. */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();   // Python writes +Inf as Infinity

    private PrometheusClient() {
    }

    /** One family: its type (counter, gauge, histogram...), help and samples. */
    static final class Family {
        final String type;
        final String help;
        final List<Sample> samples = new ArrayList<>();

        Family(String type, String help) {
            this.type = type;
            this.help = help;
        }

        /** The value of the family's only sample of this name with these labels (name, value, ...) among others. */
        double value(String sample, String... labels) {
            List<Sample> found = samples.stream().filter(s -> s.name.equals(sample) && s.has(labels))
                    .collect(Collectors.toList());
            assertEquals(1, found.size(), sample + " " + List.of(labels) + " in " + samples);
            return found.get(0).value;
        }
    }

    static final class Sample {
        final String name;
        final Map<String, String> labels = new LinkedHashMap<>();
        final double value;

        Sample(String name, double value) {
            this.name = name;
            this.value = value;
        }

        boolean has(String... nameValues) {
            for (int i = 0; i + 1 < nameValues.length; i += 2) {
                if (!nameValues[i + 1].equals(labels.get(nameValues[i]))) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString() {
            return name + labels + " " + value;
        }
    }

    /** The families by the name the client gives them (a counter's without its _total). */
    static Map<String, Family> parse(String text) throws Exception {
        String out = Programs.run(List.of(ROOT.resolve(".venv/bin/python").toString(),
                ROOT.resolve("tests/prometheus_families.py").toString()), text, "`make deps` creates the venv .venv");
        Map<String, Family> families = new LinkedHashMap<>();
        for (JsonNode f : JSON.readTree(out)) {
            Family family = new Family(f.path("type").asText(), f.path("help").asText());
            for (JsonNode s : f.path("samples")) {
                Sample sample = new Sample(s.path("name").asText(), s.path("value").asDouble());
                s.path("labels").fields().forEachRemaining(l -> sample.labels.put(l.getKey(), l.getValue().asText()));
                family.samples.add(sample);
            }
            families.put(f.path("name").asText(), family);
        }
        return families;
    }
}
