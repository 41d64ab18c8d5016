"""The fast path's own cost per packet, apart from the machine's load: softswitch runs p4/nat64.p4 with
the fast path as in bench.py, at XDP (generic) and then at TC; an iperf3 UDP flow in each direction
sets up its session and one of its frames is kept (read off the sending host's interface); the
kernel then runs the loaded program on that frame with BPF_PROG_TEST_RUN, one run per call,
ROUNDS x CALLS times, and its BPF statistics (run_time_ns / run_cnt) give the nanoseconds per run.
The call pins itself to one CPU, so that every run finds its per-CPU state in that CPU's caches, as
a flow's packets do. A test run at TC makes the skb from the frame, which the kernel's statistics
do not count, and the program's helpers work on it as on a received one.

Usage (as root, after make build p4): bench/forwarding/program_cost.sh [CALLS] [MODE ...]
"""
import ctypes
import json
import os
import pathlib
import statistics
import struct
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.argv = [sys.argv[0], "2"] + sys.argv[1:]        # bench.py reads its test length from argv[1]
import bench                                          # noqa: E402
from harness import netns                             # noqa: E402

CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
MODES = sys.argv[3:] or ["xdp-generic", "tc"]
ROUNDS = 5
BPF_PROG_TEST_RUN, BPF_PROG_GET_FD_BY_ID = 10, 13
REDIRECT = {"xdp-generic": 4, "tc": 7}                # XDP_REDIRECT, TC_ACT_REDIRECT
SYS_BPF = {"x86_64": 321, "aarch64": 280}[os.uname().machine]
libc = ctypes.CDLL(None, use_errno=True)


def bpf(cmd, attr):
    r = libc.syscall(SYS_BPF, cmd, attr, ctypes.sizeof(attr))
    if r < 0:
        raise OSError(ctypes.get_errno(), f"bpf({cmd}): {os.strerror(ctypes.get_errno())}")
    return r


def program_id():
    shown = json.loads(netns.run("bpftool", "-j", "prog", "show"))
    ids = [p["id"] for p in shown if p.get("name") == bench.ENTRY]
    if not ids:
        raise RuntimeError("softswitch's kernel program is not loaded")
    return ids[-1]


def frame_of(ns, dev, ethertype, reverse, addr):
    """One full-size UDP frame that `dev` in `ns` sends while an iperf3 UDP test runs."""
    proto = {0x86DD: 6, 0x0800: 9}[ethertype]     # offset of the protocol field in the IP header
    grab = (f"import socket\ns = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))\n"
            f"s.bind(('{dev}', 0))\nseen = 0\n"
            f"while True:\n    f, a = s.recvfrom(4096)\n"
            f"    if a[2] == socket.PACKET_OUTGOING and len(f) > 1000 and f[12:14] == bytes.fromhex('{ethertype:04x}')"
            f" and f[14 + {proto}] == 17:\n"
            f"        seen += 1\n        if seen == 100:\n            import sys; sys.stdout.buffer.write(f); break\n")
    reader = subprocess.Popen(["ip", "netns", "exec", ns, "python3", "-c", grab], stdout=subprocess.PIPE)
    time.sleep(0.5)
    bench.iperf(addr, ["-u", "-b", "50M", "-l", "1400"] + reverse)
    frame, _ = reader.communicate(timeout=10)
    if not frame:
        raise RuntimeError(f"no UDP frame seen on {dev}")
    return frame


def context(mode, frame, ingress):
    """The test run's context: struct xdp_md (data, data_end, data_meta, ingress_ifindex, ...) or
    struct __sk_buff (192 bytes; ingress_ifindex at 36 and ifindex at 40, the device the skb is made on)."""
    if mode == "tc":
        skb = bytearray(192)
        struct.pack_into("<II", skb, 36, ingress, ingress)
        return bytes(skb)
    return struct.pack("<6I", 0, len(frame), 0, ingress, 0, 0)


def ns_per_run(mode, prog_id, frame, ingress):
    """Median over ROUNDS of the program's nanoseconds per run, from the kernel's statistics."""
    fd = ctypes.c_uint32(bpf(BPF_PROG_GET_FD_BY_ID, ctypes.create_string_buffer(struct.pack("<I", prog_id), 16)))
    data = ctypes.create_string_buffer(frame, len(frame))
    out = ctypes.create_string_buffer(4096)
    given = context(mode, frame, ingress)
    ctx = ctypes.create_string_buffer(given, len(given))
    attr = ctypes.create_string_buffer(struct.pack(
        "<IIIIQQIIIIQQIII", fd.value, 0, len(frame), len(out), ctypes.addressof(data), ctypes.addressof(out),
        1, 0, len(ctx), 0, ctypes.addressof(ctx), 0, 0, 0, 0), 80)
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    medians = []
    for _ in range(ROUNDS):
        ns0, n0 = bench.program_runs()
        for _ in range(CALLS):
            bpf(BPF_PROG_TEST_RUN, attr)
            if struct.unpack_from("<I", attr.raw, 4)[0] != REDIRECT[mode]:
                raise RuntimeError("the frame did not take the fast path to the other port in a test run "
                                   "(see the switch's fast path counters)")
        ns1, n1 = bench.program_runs()
        medians.append((ns1 - ns0) / (n1 - n0))
    os.close(fd.value)
    return statistics.median(medians), medians


def main():
    netns.enter_private_namespace()
    stats = pathlib.Path("/proc/sys/kernel/bpf_stats_enabled")
    was = stats.read_text()
    stats.write_text("1")
    try:
        print(f"program_cost: {ROUNDS} rounds of {CALLS} test runs per direction and hook, one frame each", flush=True)
        for mode in MODES:
            procs = []
            try:
                addr, procs = bench.softswitch(mode)()
                subprocess.run(["ip", "netns", "exec", bench.H1, "ping", "-c", "5", "-i", "0.05", addr],
                               capture_output=True)
                prog = program_id()
                for direction, ns, dev, ethertype, reverse, port in (
                        ("IPv6 to IPv4", bench.H1, "a1", 0x86DD, [], "s1"),
                        ("IPv4 to IPv6", bench.H2, "a2", 0x0800, ["-R"], "s2")):
                    frame = frame_of(ns, dev, ethertype, reverse, addr)
                    median, rounds = ns_per_run(mode, prog, frame, bench.ifindex(port))
                    print(f"  {mode:11} {direction}, UDP {len(frame)}-byte frame: {median:.0f} ns per run "
                          f"(rounds: {', '.join(f'{r:.0f}' for r in rounds)})", flush=True)
            finally:
                bench.teardown(procs)
    finally:
        stats.write_text(was)


if __name__ == "__main__":
    main()
