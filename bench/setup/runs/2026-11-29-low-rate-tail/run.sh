#!/bin/bash
# fabric2x2 at low rates: the controller's state on the disk (ext4) and on tmpfs, in turns
cd /work/main
OUT=bench/setup/runs/2026-11-29-low-rate-tail
mkdir -p $OUT
for run in disk-1 shm-1 shm-2 disk-2; do
  if [[ $run == shm* ]]; then export TMPDIR=/dev/shm; else export TMPDIR=/tmp; fi
  echo "== $run (TMPDIR=$TMPDIR) $(date -u +%H:%M:%S)"
  NAT64FABRIC_BENCH_TOPOLOGIES=fabric2x2 NAT64FABRIC_BENCH_OUT=$OUT/$run bash bench/setup/run.sh 4 100 300 1000 3000 2>&1 | grep -v "^    "
done
