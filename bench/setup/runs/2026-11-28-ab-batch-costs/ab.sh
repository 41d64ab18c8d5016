#!/usr/bin/env bash
# A/B of the setup bench: old (/tmp/abold, 70f33bd) and new (/work/main, 4a96be6) in turns.
set -u
for run in old-1 new-1 new-2 old-2; do
  dir=/work/main; [ "${run%%-*}" = old ] && dir=/tmp/abold
  echo "== $run $(date +%T)" >> /tmp/ab/ab.log
  (cd $dir && NAT64FABRIC_BENCH_TOPOLOGIES=edge-border,fabric2x2 NAT64FABRIC_BENCH_OUT=/tmp/ab/$run \
     bash bench/setup/run.sh > /tmp/ab/$run.log 2>&1; echo "exit $?" >> /tmp/ab/ab.log)
done
echo "DONE $(date +%T)" >> /tmp/ab/ab.log
