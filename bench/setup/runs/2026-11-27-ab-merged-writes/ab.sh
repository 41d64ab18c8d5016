#!/usr/bin/env bash
# The A/B of this directory: controller builds in turns on the 2x2 fabric (as root, after make build p4).
# Usage: ab.sh DIR_A DIR_B [ROUNDS]   each DIR holds a build's controller.jar and lib/ (copies of
# controller/target/controller.jar and controller/target/lib after `mvn -pl core,controller package`:
# the build before the merged writes, 55f73ba, and a later one). Results go to $OUT (default ./ab-out).
set -euo pipefail
a=$1 b=$2 rounds=${3:-2} out=${OUT:-ab-out}
cd "$(dirname "$0")/../../../.."
mkdir -p "$out"
keep=$(mktemp -d) && cp -r controller/target/controller.jar controller/target/lib "$keep"/
i=0
for r in $(seq "$rounds"); do
  for v in "$a" "$b"; do
    i=$((i + 1))
    rm -rf controller/target/lib && cp -r "$v"/lib controller/target/ && cp "$v"/controller.jar controller/target/
    dir="$out/$i-$(basename "$v")" && mkdir -p "$dir"
    NAT64FABRIC_BENCH_TOPOLOGIES=${TOPOLOGIES:-fabric2x2} NAT64FABRIC_BENCH_OUT="$dir" bash bench/setup/run.sh > "$dir/run.log" 2>&1
    echo "$i $(basename "$v") done"
  done
done
rm -rf controller/target/lib && cp -r "$keep"/lib controller/target/ && cp "$keep"/controller.jar controller/target/ && rm -rf "$keep"
