#!/usr/bin/env bash
# The TC fast path's ping tail against Linux forwarding's, with softswitch's and the controller's JVMs
# running and stopped (as root; see rtt_tail.py). Usage: bench/forwarding/rtt_tail.sh [PINGS_PER_THIRD] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x bin/softswitch ] && [ -f p4/build/device_config.bin ] || { echo "rtt_tail: run make build p4 first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "rtt_tail: needs root (network namespaces, BPF)" >&2; exit 1; }
for tool in ethtool clang bpftool ping; do
  command -v "$tool" >/dev/null || { echo "rtt_tail: $tool is missing; run make deps" >&2; exit 1; }
done
exec .venv/bin/python bench/forwarding/rtt_tail.py "${1:-3000}" "${2:-2}"
