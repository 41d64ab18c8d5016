"""The committed run of 2026-11-28 08:36 had one test at 0.83x with 1 000 000 sessions (TC, IPv4 to IPv6,
ten streams) where the program cost the same: the ten-stream tests again, 1 and 1 000 000 sessions in turns,
two rounds (million.txt). As root, after make build p4, from the repository root:
    echo 1 > /proc/sys/kernel/bpf_stats_enabled; PATH=$PWD/bin:$PATH .venv/bin/python bench/forwarding/runs/2026-11-28-million-check/million.py
"""
import pathlib
import sys
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
sys.argv = ["bench.py", "10"]
import bench as b

print(b.machine.describe(), flush=True)
b.netns.enter_private_namespace()
for rnd in range(2):
    for sessions in (0, b.MILLION):
        procs = []
        try:
            addr, procs = b.softswitch("tc", sessions=sessions)()
            for direction, args in b.DIRECTIONS:
                (s, r), cpu, sirq, ns_pkt = b.measured(procs, lambda: b.iperf(addr, ["-P", "10", *args]))
                print(f"round {rnd} sessions {sessions or 1:>7} {direction}  TCP 10 streams received {r:5.2f} Gbit/s "
                      f"softirq {sirq} % program {ns_pkt} ns/packet", flush=True)
        finally:
            b.teardown(procs)
