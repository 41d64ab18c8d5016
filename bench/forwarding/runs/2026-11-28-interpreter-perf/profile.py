"""A perf profile of softswitch's interpreter path during one iperf3 TCP stream (h1 to h2, IPv6 to
IPv4), set up as bench.py sets it up. As root from the repository root, after make build p4:

    JDK_JAVA_OPTIONS="-XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints" \
        .venv/bin/python bench/forwarding/runs/2026-11-28-interpreter-perf/profile.py

perf records every CPU (-g -a) for 8 s in the middle of a 16 s test, and jcmd writes the JIT's
symbols (/tmp/perf-PID.map); then, for profile.txt: perf report -i PERF_DATA --no-children
--sort comm, and --comm dataplane --sort sym.
"""
import json
import pathlib
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
import bench                                    # noqa: E402
from bench import netns                         # noqa: E402

PERF_DATA = pathlib.Path(tempfile.mkdtemp(prefix="nat64fabric-interpreter-perf-")) / "perf.data"


def main():
    netns.enter_private_namespace()
    addr, procs = bench.softswitch(None)()
    try:
        java = bench.forwarder_pid(procs)
        server = subprocess.Popen(["ip", "netns", "exec", bench.H2, "iperf3", "-s", "-1"], stdout=subprocess.DEVNULL)
        time.sleep(0.5)
        client = subprocess.Popen(["ip", "netns", "exec", bench.H1, "iperf3", "-c", addr, "-t", "16", "-J"],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(4)
        subprocess.run(["perf", "record", "-F", "2999", "-g", "-a", "-o", str(PERF_DATA), "--", "sleep", "8"],
                       capture_output=True, check=True)
        subprocess.run(["jcmd", str(java), "Compiler.perfmap"], capture_output=True, check=True)
        out, _ = client.communicate()
        server.wait()
        received = json.loads(out)["end"]["sum_received"]["bits_per_second"] / 1e9
        print(f"received {received:.2f} Gbit/s under perf; samples in {PERF_DATA}")
    finally:
        bench.teardown(procs)


if __name__ == "__main__":
    main()
