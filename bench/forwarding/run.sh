#!/usr/bin/env bash
# Forwarding benchmark (as root): NAT64 through softswitch (interpreter, kernel fast path) vs Tayga vs Linux IPv6
# forwarding, iperf3 and ping in namespaces.
# make bench builds first. Usage: bench/forwarding/run.sh [SECONDS_PER_TEST]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x bin/softswitch ] && [ -f p4/build/device_config.bin ] || { echo "bench: run make build p4 first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench: needs root (network namespaces)" >&2; exit 1; }
for tool in iperf3 tayga ethtool clang ping bpftool; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing; run make deps" >&2; exit 1; }
done
exec .venv/bin/python bench/forwarding/bench.py "${1:-5}"
