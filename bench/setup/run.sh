#!/usr/bin/env bash
# Session-setup benchmark (as root): new sessions/s and first-packet delay through one border
# softswitch and the embedded controller. make bench builds first.
# Usage: bench/setup/run.sh [SECONDS_PER_LEVEL] [RATE ...]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x bin/softswitch ] && [ -x bin/nat64fabric-controller ] || { echo "bench: run make build first" >&2; exit 1; }
[ -f p4/build/p4info.txt ] || { echo "bench: p4/build is missing; run make p4 first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench: needs root (network namespaces)" >&2; exit 1; }
exec .venv/bin/python bench/setup/bench.py "$@"
