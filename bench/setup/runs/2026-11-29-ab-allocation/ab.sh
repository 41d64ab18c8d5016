#!/usr/bin/env bash
# A/B of the setup bench: old (/tmp/abold, 2b1d368) and new (/work/main, the allocation change) in turns, GC logs of every JVM (copied here gzipped).
set -u
for run in old-1 new-1 new-2 old-2; do
  dir=/work/main; [ "${run%%-*}" = old ] && dir=/tmp/abold
  mkdir -p /tmp/ab/$run
  echo "== $run $(date +%T)" >> /tmp/ab/ab.log
  (cd $dir && NAT64FABRIC_BENCH_TOPOLOGIES=edge-border,fabric2x2 NAT64FABRIC_BENCH_OUT=/tmp/ab/$run \
     NAT64FABRIC_BENCH_CONTROLLER_JVM="-Xlog:gc:file=/tmp/ab/$run/ctl-%p.log" \
     NAT64FABRIC_BENCH_SWITCH_JVM="-Xlog:gc:file=/tmp/ab/$run/sw-%p.log" \
     bash bench/setup/run.sh > /tmp/ab/$run.log 2>&1; echo "exit $?" >> /tmp/ab/ab.log)
done
echo "DONE $(date +%T)" >> /tmp/ab/ab.log
