#!/usr/bin/env bash
# Interpreter benchmark: builds nothing itself (make bench builds first), runs the harness,
# writes results.csv and results.svg next to this script. Usage: bench/interpreter/run.sh [SECONDS_PER_RUN]
set -euo pipefail
cd "$(dirname "$0")/../.."
here=bench/interpreter
jar=softswitch/target/softswitch.jar
[ -f "$jar" ] || { echo "bench: $jar is missing; run make build first" >&2; exit 1; }
echo "bench: 8 configurations x (1 warm-up + 3 runs) of ${1:-2} s each; takes about $(( 8 * 4 * ${1:-2} / 60 + 1 )) min"
java -Xms1g -Xmx2g -cp "$jar:softswitch/target/lib/*" "$here/InterpreterBench.java" "${1:-2}" | tee "$here/results.csv"
.venv/bin/python "$here/plot.py" "$here/results.csv" "$here/results.svg"
echo "bench: wrote $here/results.csv and $here/results.svg"
