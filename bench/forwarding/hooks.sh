#!/usr/bin/env bash
# A trivial forwarder at XDP (generic) and at TC ingress beside Linux forwarding (as root); see hooks.py.
# Usage: bench/forwarding/hooks.sh [SECONDS_PER_TEST] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] || { echo "hooks: needs root (network namespaces, BPF)" >&2; exit 1; }
for tool in iperf3 ethtool clang tc; do
  command -v "$tool" >/dev/null || { echo "hooks: $tool is missing; run make deps" >&2; exit 1; }
done
exec .venv/bin/python bench/forwarding/hooks.py "${1:-6}" "${2:-2}"
