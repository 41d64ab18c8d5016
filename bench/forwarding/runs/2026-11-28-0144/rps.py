"""RPS experiment (rps.txt): the forwarder's ingress receive processing on the other CPU.
As root, after make build p4, from the repository root:
    echo 1 > /proc/sys/kernel/bpf_stats_enabled; PATH=$PWD/bin:$PATH .venv/bin/python bench/forwarding/runs/2026-11-28-0144/rps.py
"""
import pathlib, sys, subprocess
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
sys.argv = ["bench.py", "8"]
import bench as b

def rps(ns, dev, mask):
    cmd = ["sh", "-c", f"echo {mask} > /sys/class/net/{dev}/queues/rx-0/rps_cpus"] if ns else \
          ["unshare", "-m", "sh", "-c", f"umount -l /sys; mount -t sysfs none /sys && echo {mask} > /sys/class/net/{dev}/queues/rx-0/rps_cpus"]
    b.netns.run(*(["ip", "netns", "exec", ns] if ns else []), *cmd)

b.netns.enter_private_namespace()
paths = [("linux", b.linux, (b.MID, "r1")), ("tc", b.softswitch("tc"), (None, "s1"))]
tests = [("udp", ["-u", "-b", "0", "-l", "1400"]), ("tcp1", ["-P", "1"])]
for rnd in range(2):
    for name, setup, (ns, dev) in paths:
        for mask in ("0", "2"):
            procs = []
            try:
                addr, procs = setup()
                subprocess.run(["ip", "netns", "exec", b.H1, "ping", "-c", "20", "-i", "0.05", addr], capture_output=True)
                rps(ns, dev, mask)
                for t, args in tests:
                    (s, r), cpu, sirq, ns_pkt = b.measured(procs, lambda: b.iperf(addr, args, cpu=0))
                    print(f"round {rnd} {name:6} rps={mask} {t:5} sent {s:5.2f} received {r:5.2f} Gbit/s softirq {sirq} % prog {ns_pkt}", flush=True)
            finally:
                b.teardown(procs)
