"""A/B of ab.txt: the fast path at TC with the interpreter's sockets bound to every EtherType and a
filter on the mark (old.jar, the build of e57f535) against bound to the handed-up EtherType alone
(new.jar, the build after it), Linux forwarding beside; iperf3's sender pinned to CPU 0, 8 s tests.
As root, from the repository root, after make build p4, with the two builds' softswitch.jar in
/tmp/ab/ and softswitch/target/lib copied to /tmp/ab/lib:
    echo 1 > /proc/sys/kernel/bpf_stats_enabled; PATH=$PWD/bin:$PATH .venv/bin/python bench/forwarding/runs/2026-11-28-handed-up/ab.py
"""
import os
import pathlib
import subprocess
import sys
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
sys.argv = ["bench.py", "8"]
import bench as b

JAR = {"old": "/tmp/ab/old.jar", "new": "/tmp/ab/new.jar"}
current = {"jar": None}
b.SwitchProcess.softswitch_launcher = lambda self: ["java", "-Xmn32m", "-XX:MaxTenuringThreshold=0", "-jar", current["jar"]]
print(b.machine.describe(), flush=True)
b.netns.enter_private_namespace()
tests = [("udp", ["-u", "-b", "0", "-l", "1400"]), ("tcp1", ["-P", "1"])]
for rnd in range(int(os.environ.get("ROUNDS", "3"))):
    for name in ("linux", "old", "new"):
        procs = []
        try:
            if name == "linux":
                addr, procs = b.linux()
            else:
                current["jar"] = JAR[name]
                addr, procs = b.softswitch("tc")()
            subprocess.run(["ip", "netns", "exec", b.H1, "ping", "-c", "20", "-i", "0.05", addr], capture_output=True)
            for t, args in tests:
                (s, r), cpu, sirq, ns_pkt = b.measured(procs, lambda: b.iperf(addr, args, cpu=0))
                print(f"round {rnd} {name:6} {t:5} sent {s:5.2f} received {r:5.2f} Gbit/s softirq {sirq} % program ns/packet {ns_pkt}", flush=True)
        finally:
            b.teardown(procs)
