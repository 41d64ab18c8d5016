#!/usr/bin/env bash
# softswitch at session scale: P4Runtime write rate, heap per session entry, lookup rate with 1 and
# 1 000 000 sessions. Builds nothing itself (make bench builds first); compiles p4/nat64.p4 into
# p4/build, writes results.csv and results.svg next to this script.
# Usage: bench/softswitch/run.sh [SECONDS_PER_LOOKUP_RUN]
set -euo pipefail
cd "$(dirname "$0")/../.."
here=bench/softswitch
jar=softswitch/target/softswitch.jar
[ -f "$jar" ] || { echo "bench: $jar is missing; run make build first" >&2; exit 1; }
java -jar "$jar" compile p4/nat64.p4 --out-dir p4/build >/dev/null
echo "bench: 2 x 1 000 000 P4Runtime inserts, then 3 lookup cases x (1 warm-up + 5 runs) of ${1:-2} s, then 4 x 6 runs of the 1-entry case; about 5 min"
# 6 GiB: two switches with a million entries each are alive at once during the write runs' GC.
java -Xms2g -Xmx6g -cp "$jar:softswitch/target/lib/*" "$here/SoftswitchBench.java" "${1:-2}" 2>/dev/null \
  | tee "$here/results.csv"
echo "bench: the 1-entry lookup, blocks compiled to JVM bytecode and as the tree interpreter, in turns (2 rounds)"
for round in 1 2; do
  for jit in false true; do
    JIT_ONLY=1 java -Dsoftswitch.jit=$jit -Xms1g -Xmx2g -cp "$jar:softswitch/target/lib/*" "$here/SoftswitchBench.java" "${1:-2}" \
      2>/dev/null | tee -a "$here/results.csv"
  done
done
python3 "$here/plot.py" "$here/results.csv" "$here/results.svg"
echo "bench: wrote $here/results.csv and $here/results.svg"
