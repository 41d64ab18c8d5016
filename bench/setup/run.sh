#!/usr/bin/env bash
# Session-setup benchmark (as root): new sessions/s and first-packet delay through softswitches and
# the embedded controller (topologies border, edge-border, fabric2x2; border-unpoliced: flood rows with the
# punt meters opened). make bench builds first.
# The bench copies softswitch/target/softswitch.jar and controller/target/controller.jar (with lib/)
# and p4/build at start and runs the copies, so rebuilding during the run does not affect it.
# Usage: bench/setup/run.sh [SECONDS_PER_LEVEL] [RATE ...]
#   NAT64FABRIC_BENCH_TOPOLOGIES=border,edge-border,fabric2x2,border-unpoliced  (default: all four)
#   NAT64FABRIC_BENCH_OUT=DIR  where results.csv and results.svg go (default: bench/setup/)
#   NAT64FABRIC_BENCH_RR=N  both JVMs under SCHED_RR at priority N, the bench's sender and receiver at N+1
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -f softswitch/target/softswitch.jar ] && [ -f controller/target/controller.jar ] \
  || { echo "bench: the jars are missing; run make build first" >&2; exit 1; }
[ -f p4/build/p4info.txt ] || { echo "bench: p4/build is missing; run make p4 first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench: needs root (network namespaces)" >&2; exit 1; }
exec .venv/bin/python bench/setup/bench.py "$@"
