#!/usr/bin/env bash
# Forwarding benchmark (as root): softswitch vs Linux forwarding vs Tayga, iperf3 in namespaces.
# make bench builds first. Usage: bench/forwarding/run.sh [SECONDS_PER_TEST]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x bin/softswitch ] || { echo "bench: bin/softswitch is missing; run make build first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench: needs root (network namespaces)" >&2; exit 1; }
for tool in iperf3 tayga ethtool; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing; run make deps" >&2; exit 1; }
done
exec .venv/bin/python bench/forwarding/bench.py "${1:-5}"
