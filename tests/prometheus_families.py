"""Reads metrics in the Prometheus text format on stdin and prints them, as the Prometheus project's
Python client parses them, as JSON: a list of families, each with its name, type, help and samples
(name, labels, value). The app's JUnit tests (app/.../PrometheusClient.java) run it with the venv's
Python, so that a maintained Prometheus client, not the test's own reading, judges the app's /metrics."""
import json
import sys

try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    sys.exit(f"{sys.executable}: the Python package prometheus_client is missing: `make deps` installs "
             "tests/requirements.txt into .venv")


def main():
    try:
        families = [{"name": f.name, "type": f.type, "help": f.documentation,
                     "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
                    for f in text_string_to_metric_families(sys.stdin.read())]
    except ValueError as e:
        sys.exit(f"prometheus_client refused the text: {e}")
    json.dump(families, sys.stdout)      # a +Inf or NaN value comes out as Infinity or NaN


if __name__ == "__main__":
    main()
