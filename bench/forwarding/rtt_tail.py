"""Where the TC fast path's ping tail comes from (as root; bench/forwarding/rtt_tail.sh runs it).

bench.py's 500 pings give a p99 that is the fifth slowest echo: in one run TC's was 36 µs against
Linux forwarding's 11, in others within a few µs of it. Here, in rounds, Linux IPv6 forwarding and
the TC fast path (bench.py's setups), one ping process of 3 x PINGS echoes 2 ms apart per path (one
ICMP identifier: one session, set up by the first echo and not counted). For TC, in the middle third
softswitch's and the embedded controller's JVMs are stopped (SIGSTOP): the kernel program goes on
translating, so what changes is whatever the JVMs' threads did to the echoes (their timers, garbage
collections, compilers on the same two cores). Prints min, p50, p90, p99, p99.9 and max per third.
"""
import os
import re
import signal
import statistics
import subprocess
import sys
import time

import bench

PINGS = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 2
INTERVAL = 0.002


def pids(procs):
    return [p.pid if isinstance(p, subprocess.Popen) else p.proc.pid for p in procs]


def pinged(addr, procs, stop):
    """(icmp_seq, RTT µs) of 3 x PINGS echoes; with `stop`, the JVMs stopped during the middle third."""
    ping = subprocess.Popen(["ip", "netns", "exec", bench.H1, "ping", "-n", "-c", str(3 * PINGS), "-i",
                             str(INTERVAL), addr], stdout=subprocess.PIPE, text=True)
    time.sleep(PINGS * INTERVAL * 1.1)
    stopped = pids(procs) if stop else []
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(PINGS * INTERVAL * 1.1)
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
    out = ping.communicate()[0]
    return [(int(seq), float(ms) * 1000) for seq, ms in re.findall(r"icmp_seq=(\d+) .*time=([\d.]+) ms", out)]


def summary(label, rtts):
    r = sorted(rtts)
    at = lambda q: r[int(len(r) * q) - 1]  # noqa: E731
    print(f"{label:44} n={len(r):5} min {r[0]:4.0f} p50 {statistics.median(r):4.0f} p90 {at(.9):4.0f} "
          f"p99 {at(.99):4.0f} p99.9 {at(.999):5.0f} max {r[-1]:6.0f} µs", flush=True)


def main():
    bench.netns.enter_private_namespace()
    # Thirds by sequence number, leaving out the echoes around the stop and the start (the sleeps
    # are 10 % longer than a third) and the first echo (the session's setup).
    thirds = ((1, PINGS), (PINGS * 1.15, 2 * PINGS), (2 * PINGS * 1.1, 3 * PINGS))
    for rnd in range(1, ROUNDS + 1):
        for name, setup in (("Linux IPv6 forwarding", bench.linux), ("fast path TC", bench.softswitch("tc"))):
            procs = []
            try:
                addr, procs = setup()
                subprocess.run(["ip", "netns", "exec", bench.H1, "ping", "-c", "20", "-i", "0.05", addr],
                               capture_output=True)
                tc = name == "fast path TC"
                rows = pinged(addr, procs, stop=tc)
                for i, (lo, hi) in enumerate(thirds):
                    part = [t for seq, t in rows if lo < seq <= hi]
                    what = "JVMs stopped" if tc and i == 1 else "JVMs running" if tc else ""
                    summary(f"round {rnd}, {name}, third {i + 1} {what}", part)
            finally:
                bench.teardown(procs)


if __name__ == "__main__":
    main()
