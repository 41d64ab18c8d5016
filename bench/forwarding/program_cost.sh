#!/usr/bin/env bash
# The fast path's own cost per packet (as root): one frame of a live NAT64 session per direction, run by the
# kernel with BPF_PROG_TEST_RUN, at XDP and at TC; see program_cost.py.
# Usage: bench/forwarding/program_cost.sh [CALLS_PER_ROUND] [MODE ...]   (MODE: xdp-generic, tc; both by default)
#        bench/forwarding/program_cost.sh --parts [CALLS_PER_ROUND]       (at TC, the program taken apart)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x bin/softswitch ] && [ -f p4/build/device_config.bin ] || { echo "program_cost: run make build p4 first" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "program_cost: needs root (network namespaces, BPF)" >&2; exit 1; }
for tool in iperf3 ethtool clang bpftool; do
  command -v "$tool" >/dev/null || { echo "program_cost: $tool is missing; run make deps" >&2; exit 1; }
done
parts=()
if [ "${1:-}" = --parts ]; then parts=(--parts); shift; fi
exec .venv/bin/python bench/forwarding/program_cost.py "${parts[@]}" "${1:-20000}" "${@:2}"
