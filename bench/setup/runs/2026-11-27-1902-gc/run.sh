#!/bin/bash
# What made this run (as root, from any directory): edge-border, G1 / Parallel / Serial in turns, two
# rounds, GC logs; results and logs under OUT (default /tmp/gc). summary.txt was written from them.
cd "$(dirname "$0")/../../../.." || exit 1
out=${OUT:-/tmp/gc}
mkdir -p "$out"
for round in 1 2; do
for gc in g1 parallel serial; do
  case $gc in g1) f="";; parallel) f="-XX:+UseParallelGC";; serial) f="-XX:+UseSerialGC";; esac
  echo "=== $round $gc $(date +%T)"
  NAT64FABRIC_BENCH_TOPOLOGIES=edge-border NAT64FABRIC_BENCH_OUT=$out/$gc-$round \
  NAT64FABRIC_BENCH_CONTROLLER_JVM="$f -Xlog:gc:file=$out/$gc-$round-ctl-%p.log" NAT64FABRIC_BENCH_SWITCH_JVM="$f -Xlog:gc:file=$out/$gc-$round-sw-%p.log" \
  bash bench/setup/run.sh > "$out/$gc-$round.log" 2>&1
  grep "^edge-border" "$out/$gc-$round/results.csv" | cut -d, -f2-10
done; done
