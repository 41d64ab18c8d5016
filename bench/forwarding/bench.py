"""NAT64 between an IPv6-only namespace (h1) and an IPv4 one (h2), measured in one run through:
softswitch running p4/nat64.p4 with sessions set up by the embedded controller (the interpreter
alone, and with the kernel fast path at XDP in generic and in driver mode and at TC), Tayga, and Linux IPv6
forwarding between two IPv6 namespaces as the limit. iperf3 TCP with 1 and 10 streams and UDP in
both directions, ping RTT, and the CPU of the forwarder and of the kernel's softirqs per test.
Writes results.csv and results.svg here.

Usage (as root): bench/forwarding/run.sh [SECONDS_PER_TEST]
"""
import csv
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from harness import machine, netns             # noqa: E402
from switch_process import SwitchProcess       # noqa: E402  (harness put mininet/ on the path)
from fabric import Controller                  # noqa: E402

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
PREFIX = f"nfb{os.getpid()}"
H1, H2, MID = f"{PREFIX}h1", f"{PREFIX}h2", f"{PREFIX}r"
ROUTER_MAC = "00:00:00:00:0a:01"
POOL6, SERVER4 = "2001:db8:64::", "198.51.100.7"
SERVER_VIA_POOL6 = "2001:db8:64::c633:6407"     # 198.51.100.7 in pool6 (RFC 6052, /96)
PINGS = 3000                                     # the p99 is the 30th slowest, not one of a handful
DIRECTIONS = (("IPv6 to IPv4", []), ("IPv4 to IPv6", ["-R"]))
MILLION = 1_000_000
TC = "softswitch nat64.p4, fast path TC"
FILLED = "softswitch nat64.p4, fast path TC, 1 000 000 sessions"
UNPACED = "UDP, unpaced"
ENTRY = "softswitch_fp"                          # the program softswitch attaches (KernelProgram.ENTRY)


def sh(*cmd, ns=None):
    return netns.run(*(["ip", "netns", "exec", ns] if ns else []), *cmd)


def veth(a, a_ns, b, b_ns):
    """A veth pair with offloads off on both ends: a userspace switch needs real checksums, and every
    path is measured under the same settings."""
    netns.run("ip", "link", "add", a, "type", "veth", "peer", "name", b)
    for name, ns in ((a, a_ns), (b, b_ns)):
        if ns:
            netns.run("ip", "link", "set", name, "netns", ns)
        sh("ethtool", "-K", name, "tx", "off", "rx", "off", "tso", "off", "gso", "off", "gro", "off", ns=ns)
        sh("ip", "link", "set", name, "up", ns=ns)


def hosts():
    for ns in (H1, H2):
        netns.run("ip", "netns", "add", ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)


def nat64_hosts(gateway_mac=None):
    """h1: 2001:db8:1::1, default route via 2001:db8:1::fffe; h2: 198.51.100.7, default via .254.
    With gateway_mac, the gateways' neighbour entries are written (a switch answers no NDP/ARP for them)."""
    sh("ip", "-6", "addr", "add", "2001:db8:1::1/64", "dev", "a1", "nodad", ns=H1)
    sh("ip", "-6", "route", "add", "default", "via", "2001:db8:1::fffe", ns=H1)
    sh("ip", "addr", "add", f"{SERVER4}/24", "dev", "a2", ns=H2)
    sh("ip", "route", "add", "default", "via", "198.51.100.254", ns=H2)
    if gateway_mac:
        sh("ip", "-6", "neigh", "replace", "2001:db8:1::fffe", "lladdr", gateway_mac, "dev", "a1", ns=H1)
        sh("ip", "neigh", "replace", "198.51.100.254", "lladdr", gateway_mac, "dev", "a2", ns=H2)


def mac(ns, dev):
    return sh("cat", f"/sys/class/net/{dev}/address", ns=ns).strip()


def ifindex(dev):
    """The interface index of a link in this namespace."""
    return json.loads(netns.run("ip", "-j", "link", "show", dev))[0]["ifindex"]


def linux():
    hosts()
    netns.run("ip", "netns", "add", MID)
    veth("a1", H1, "r1", MID)
    veth("a2", H2, "r2", MID)
    sh("sysctl", "-q", "-w", "net.ipv6.conf.all.forwarding=1", ns=MID)
    sh("ip", "-6", "addr", "add", "2001:db8:1::fffe/64", "dev", "r1", "nodad", ns=MID)
    sh("ip", "-6", "addr", "add", "2001:db8:2::fffe/64", "dev", "r2", "nodad", ns=MID)
    sh("ip", "-6", "addr", "add", "2001:db8:1::1/64", "dev", "a1", "nodad", ns=H1)
    sh("ip", "-6", "route", "add", "default", "via", "2001:db8:1::fffe", ns=H1)
    sh("ip", "-6", "addr", "add", "2001:db8:2::7/64", "dev", "a2", "nodad", ns=H2)
    sh("ip", "-6", "route", "add", "default", "via", "2001:db8:2::fffe", ns=H2)
    return "2001:db8:2::7", []


def tayga():
    hosts()
    netns.run("ip", "netns", "add", MID)
    veth("a1", H1, "r1", MID)
    veth("a2", H2, "r2", MID)
    nat64_hosts()
    sh("ip", "-6", "addr", "add", "2001:db8:1::fffe/64", "dev", "r1", "nodad", ns=MID)
    sh("ip", "addr", "add", "198.51.100.254/24", "dev", "r2", ns=MID)
    for knob in ("net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1"):
        sh("sysctl", "-q", "-w", knob, ns=MID)
    work = pathlib.Path(tempfile.mkdtemp(prefix="nat64fabric-tayga-"))
    conf = work / "tayga.conf"
    # A network-specific prefix: Tayga refuses private and documentation IPv4 under 64:ff9b::/96.
    conf.write_text(f"tun-device nat64\nipv4-addr 192.0.2.1\nipv6-addr 2001:db8:1::ffff\nprefix {POOL6}/96\n"
                    f"dynamic-pool 192.0.2.0/24\ndata-dir {work}\n")
    sh("tayga", "--mktun", "-c", str(conf), ns=MID)
    sh("ip", "link", "set", "nat64", "up", ns=MID)
    sh("ip", "route", "add", f"{POOL6}/96", "dev", "nat64", ns=MID)
    sh("ip", "route", "add", "192.0.2.0/24", "dev", "nat64", ns=MID)
    proc = subprocess.Popen(["ip", "netns", "exec", MID, "tayga", "-d", "-c", str(conf)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    return SERVER_VIA_POOL6, [proc]


XDP_PASS_C = 'SEC("xdp") int pass(void *ctx) { return 2; }\nchar LICENSE[] SEC("license") = "GPL";\n'


def xdp_pass(ns, dev):
    """A trivial XDP program on a host's end: in driver mode a veth delivers redirected frames only
    to a peer that runs XDP itself (or has GRO on, which the other paths do not get)."""
    work = pathlib.Path(tempfile.mkdtemp(prefix="nat64fabric-xdp-pass-"))
    (work / "pass.c").write_text('#define SEC(n) __attribute__((section(n), used))\n' + XDP_PASS_C)
    netns.run("clang", "-O2", "-target", "bpf", "-c", str(work / "pass.c"), "-o", str(work / "pass.o"))
    sh("ip", "link", "set", "dev", dev, "xdpdrv", "obj", str(work / "pass.o"), "sec", "xdp", ns=ns)


def fill_sessions(switch, n):
    """n more entries in each session table that no packet of the bench matches (FillSessions.java)."""
    lib = ROOT / "softswitch/target"
    subprocess.run(["java", "-cp", f"{lib / 'softswitch.jar'}:{lib / 'lib'}/*", str(HERE / "FillSessions.java"),
                    f"127.0.0.1:{switch.grpc_port}", str(n)], cwd=ROOT, check=True)


def softswitch(fast_path, sessions=0):
    """softswitch with p4/nat64.p4 on s1 (to h1) and s2 (to h2), set up by the embedded controller;
    `sessions` more entries in each session table (fill_sessions)."""
    def setup():
        hosts()
        veth("a1", H1, "s1", None)
        veth("a2", H2, "s2", None)
        nat64_hosts(ROUTER_MAC)
        if fast_path == "xdp":
            xdp_pass(H1, "a1")
            xdp_pass(H2, "a2")
        work = pathlib.Path(tempfile.mkdtemp(prefix="nat64fabric-bench-"))
        switch = SwitchProcess({1: "s1", 2: "s2"}, log_path=work / "softswitch.log", target="softswitch",
                               fast_path=fast_path or "").start()
        route = lambda prefix, port, next_hop: {"prefix": prefix, "port": port, "nextHopMac": next_hop}  # noqa: E731
        config = {"apps": {"org.nat64fabric.app": {"nat64": {
                      "pool6": f"{POOL6}/96",
                      "pool4": {"addresses": ["192.0.2.0/24"], "blockSize": 512, "blocksPerSubscriber": 64}}}},
                  "devices": {"device:border1": {
                      "basic": {"managementAddress": f"grpc://127.0.0.1:{switch.grpc_port}?device_id=1"},
                      "nat64fabric": {"role": "BORDER", "routerMac": ROUTER_MAC, "ipv4": "192.0.2.255",
                                      "ipv6": "2001:db8:ff::1", "mtu": 1500,
                                      "routes": [route("2001:db8:1::/64", 1, mac(H1, "a1")),
                                                 route("198.51.100.0/24", 2, mac(H2, "a2"))]}}}}
        (work / "fabric.json").write_text(json.dumps(config))
        controller = Controller(work / "fabric.json", work / "state", work / "controller.log").start()
        controller.wait_programmed()
        if fast_path and not re.search(r"fast path: (XDP|TC ingress) \(", switch.log_text()):
            raise RuntimeError(f"softswitch did not start its fast path ({fast_path}); see {switch.log_path}:\n"
                               f"{switch.log_text()}")
        if sessions:
            fill_sessions(switch, sessions)
        return SERVER_VIA_POOL6, [controller, switch]
    return setup


def teardown(procs):
    for p in reversed(procs):
        if isinstance(p, subprocess.Popen):
            p.terminate()
            p.wait()
        else:
            p.stop()
    for ns in (H1, H2, MID):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    for link in ("s1", "s2"):
        netns.delete_link(link)


def cpu_seconds(pid):
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def softirq_seconds():
    """All CPUs' softirq time: where the fast path and the kernel's forwarding run."""
    cpu = pathlib.Path("/proc/stat").read_text().splitlines()[0].split()
    return int(cpu[7]) / os.sysconf("SC_CLK_TCK")


def forwarder_pid(procs):
    for p in procs:
        if isinstance(p, subprocess.Popen):
            return p.pid
        if isinstance(p, SwitchProcess):
            return p.proc.pid
    return None


def program_runs():
    """(nanoseconds, runs) of softswitch's kernel programs so far, from the kernel's BPF statistics
    (kernel.bpf_stats_enabled, which main turns on): the fast path's own cost per packet, which
    the machine's other load barely changes, unlike the throughput."""
    shown = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True, check=True).stdout
    ours = [p for p in json.loads(shown) if p.get("name") == ENTRY]
    return sum(p.get("run_time_ns", 0) for p in ours), sum(p.get("run_cnt", 0) for p in ours)


def measured(procs, run):
    """run()'s result, with the forwarder's and the softirqs' CPU in percent of one core meanwhile,
    and the fast path's nanoseconds per packet ("" when no packet took it)."""
    pid = forwarder_pid(procs)
    c0, s0, x0, t0 = cpu_seconds(pid) if pid else 0, softirq_seconds(), program_runs(), time.monotonic()
    result = run()
    seconds = time.monotonic() - t0
    c1, s1, x1 = cpu_seconds(pid) if pid else 0, softirq_seconds(), program_runs()
    runs = x1[1] - x0[1]
    return (result, round(100 * (c1 - c0) / seconds, 1), round(100 * (s1 - s0) / seconds, 1),
            round((x1[0] - x0[0]) / runs) if runs else "")


def iperf(server_addr, args, cpu=None):
    """(sent, received) Gbit/s of an iperf3 test from h1; with cpu, its sender runs on that CPU only."""
    server = subprocess.Popen(["ip", "netns", "exec", H2, "iperf3", "-s", "-1"], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    pinned = ["taskset", "-c", str(cpu)] if cpu is not None else []
    try:
        proc = subprocess.run(["ip", "netns", "exec", H1, *pinned, "iperf3", "-c", server_addr, "-t", str(SECONDS), "-J", *args],
                              capture_output=True, text=True)
        out = json.loads(proc.stdout)
    finally:
        server.terminate()
        server.wait()
    if "error" in out:
        raise RuntimeError(f"iperf3 to {server_addr}: {out['error']}")
    end = out["end"]
    if "sum_received" in end:
        return end["sum_sent"]["bits_per_second"] / 1e9, end["sum_received"]["bits_per_second"] / 1e9
    total = end["sum"]
    return total["bits_per_second"] / 1e9, total["bits_per_second"] * (1 - total["lost_percent"] / 100) / 1e9


def ping(addr):
    """RTTs in microseconds of PINGS echoes 2 ms apart: min, p50, p99."""
    out = subprocess.run(["ip", "netns", "exec", H1, "ping", "-n", "-c", str(PINGS), "-i", "0.002", addr],
                         capture_output=True, text=True).stdout
    rtts = sorted(float(m) * 1000 for m in re.findall(r"time=([\d.]+) ms", out))
    if len(rtts) < PINGS * 0.9:
        raise RuntimeError(f"ping {addr}: {len(rtts)} of {PINGS} answered")
    return rtts[0], statistics.median(rtts), rtts[int(len(rtts) * 0.99) - 1]


def main():
    netns.enter_private_namespace()
    stats = pathlib.Path("/proc/sys/kernel/bpf_stats_enabled")   # for program_runs; costs two clock reads a run
    was = stats.read_text()
    stats.write_text("1")
    try:
        measure_all()
    finally:
        stats.write_text(was)


def measure_all():
    paths = [("Linux IPv6 forwarding", linux), ("Tayga NAT64", tayga),
             ("softswitch nat64.p4, interpreter", softswitch(None)),
             ("softswitch nat64.p4, fast path XDP generic", softswitch("xdp-generic")),
             ("softswitch nat64.p4, fast path XDP driver", softswitch("xdp")),
             (TC, softswitch("tc")),
             (FILLED, softswitch("tc", MILLION))]
    tests = [("TCP, 1 stream", ["-P", "1"]), ("TCP, 10 streams", ["-P", "10"]), ("UDP", None)]
    rows = []
    print(f"bench: machine: {machine.describe()}")
    print(f"bench: {len(paths)} paths x {len(tests) * len(DIRECTIONS)} iperf3 tests of {SECONDS} s and {PINGS} pings; "
          f"about {len(paths) * (len(tests) * len(DIRECTIONS) * (SECONDS + 2) + 20) // 60 + 1} min", flush=True)
    udp_rate = None
    for name, setup in paths:
        procs = []
        try:
            addr, procs = setup()
            # A warm-up (neighbours, the first sessions, the JIT): not measured.
            subprocess.run(["ip", "netns", "exec", H1, "ping", "-c", "20", "-i", "0.05", addr], capture_output=True)
            for direction, reverse in DIRECTIONS:
                path_tests = tests
                if udp_rate is None:
                    # The first path (Linux) sets the UDP rate: what it receives from an unpaced sender.
                    path_tests = [(UNPACED, ["-u", "-b", "0", "-l", "1400"])] + tests
                for test, args in path_tests:
                    if args is None:
                        # Every path, Linux too, offered that rate: iperf3's pacing costs its sender
                        # time of its own, so each path is measured with the same sender.
                        args = ["-u", "-b", udp_rate, "-l", "1400"]
                    (sent, received), cpu, softirq, program_ns = measured(procs, lambda: iperf(addr, args + reverse))
                    if test == UNPACED:
                        udp_rate = f"{received * 1e9:.0f}"
                    rows.append({"path": name, "direction": direction, "test": test, "sent_gbps": f"{sent:.3f}",
                                 "received_gbps": f"{received:.3f}", "forwarder_cpu_pct": cpu,
                                 "softirq_cpu_pct": softirq, "program_ns_per_packet": program_ns, "rtt_min_us": "",
                                 "rtt_p50_us": "", "rtt_p99_us": ""})
                    print(f"  {name:44} {direction:13} {test:16} sent {sent:6.2f}  received {received:6.2f} Gbit/s"
                          f"  CPU {cpu:5.1f} %  softirq {softirq:5.1f} %"
                          + (f"  program {program_ns} ns/packet" if program_ns else ""), flush=True)
            (lo, p50, p99), cpu, softirq, program_ns = measured(procs, lambda: ping(addr))
            rows.append({"path": name, "direction": "both", "test": "ping RTT", "sent_gbps": "", "received_gbps": "",
                         "forwarder_cpu_pct": cpu, "softirq_cpu_pct": softirq, "program_ns_per_packet": program_ns,
                         "rtt_min_us": f"{lo:.0f}",
                         "rtt_p50_us": f"{p50:.0f}", "rtt_p99_us": f"{p99:.0f}"})
            print(f"  {name:44} ping RTT: min {lo:.0f} us, p50 {p50:.0f} us, p99 {p99:.0f} us", flush=True)
            switch = next((p for p in procs if isinstance(p, SwitchProcess)), None)
            if switch:
                switch.stop()
                stats = re.findall(r"^  (fast path: [^:]+|pipeline rx|packet-in): (\d+)$", switch.log_text(), re.M)
                print("  " + name + " counters: " + ", ".join(f"{k} {v}" for k, v in stats), flush=True)
        finally:
            teardown(procs)
    with open(HERE / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot(rows, HERE / "results.svg")
    ratios(rows)
    print(f"bench: wrote {HERE / 'results.csv'} and {HERE / 'results.svg'}")


def ratios(rows):
    """The issue's targets, as ratios within this run."""
    def got(path, direction, test):
        return next(float(r["received_gbps"]) for r in rows
                    if r["path"] == path and r["direction"] == direction and r["test"] == test)
    for fast in ("softswitch nat64.p4, fast path XDP generic", "softswitch nat64.p4, fast path XDP driver", TC):
        for direction, _ in DIRECTIONS:
            for test in ("TCP, 1 stream", "TCP, 10 streams"):
                f = got(fast, direction, test)
                print(f"bench: {fast[31:]}, {direction}, {test}: {f / got('Tayga NAT64', direction, test):.2f} x Tayga, "
                      f"{f / got('Linux IPv6 forwarding', direction, test):.2f} x Linux IPv6 forwarding")
    linux = "Linux IPv6 forwarding"
    offered = got(linux, DIRECTIONS[0][0], UNPACED)
    for fast in ("softswitch nat64.p4, fast path XDP generic", TC):
        for direction, _ in DIRECTIONS:
            row = next(r for r in rows if r["path"] == fast and r["direction"] == direction and r["test"] == "UDP")
            sent, received = float(row["sent_gbps"]), float(row["received_gbps"])
            print(f"bench: {fast[31:]}, {direction}, UDP offered at {offered:.2f} Gbit/s: received {received / sent:.2f} "
                  f"of sent, {received / got(linux, direction, 'UDP'):.2f} x Linux offered the same")
    for direction, _ in DIRECTIONS:
        for test in ("TCP, 1 stream", "TCP, 10 streams", "UDP"):
            print(f"bench: fast path TC, {direction}, {test}: 1 000 000 sessions / 1 session = "
                  f"{got(FILLED, direction, test) / got(TC, direction, test):.2f}")


def plot(rows, path):
    """Grouped bars of received Gbit/s, one group per direction and test (SVG, no plotting library)."""
    names = list(dict.fromkeys(r["path"] for r in rows))
    colours = ["#888888", "#d08040", "#a0a0d0", "#4878a8", "#1f4e79", "#c03030", "#6aa84f"]
    groups = [(r["direction"], r["test"]) for r in rows
              if r["path"] == names[0] and r["received_gbps"] and r["test"] != UNPACED]
    peak = max(float(r["received_gbps"]) for r in rows if r["received_gbps"]) * 1.15
    bar, top, height, left = 22, 40, 300, 50
    group = len(names) * bar + 30
    width = left + group * len(groups) + 330
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 110}" '
           f'font-family="sans-serif" font-size="10">',
           f'<text x="{left}" y="20" font-size="14">NAT64 between namespaces, received Gbit/s (iperf3, same run)</text>',
           f'<line x1="{left}" y1="{top + height}" x2="{left + group * len(groups)}" y2="{top + height}" stroke="black"/>']
    for g, (direction, test) in enumerate(groups):
        for k, name in enumerate(names):
            r = next(x for x in rows if x["path"] == name and x["direction"] == direction and x["test"] == test)
            v = float(r["received_gbps"])
            x = left + g * group + k * bar
            h = v / peak * height
            svg.append(f'<rect x="{x}" y="{top + height - h:.1f}" width="{bar - 3}" height="{h:.1f}" fill="{colours[k]}"/>')
            svg.append(f'<text x="{x + bar / 2 - 1}" y="{top + height - h - 3:.1f}" text-anchor="middle" '
                       f'font-size="8">{v:.2f}</text>')
        cx = left + g * group + len(names) * bar / 2
        svg.append(f'<text x="{cx}" y="{top + height + 16}" text-anchor="middle">{test}</text>')
        svg.append(f'<text x="{cx}" y="{top + height + 30}" text-anchor="middle">{direction}</text>')
    for k, name in enumerate(names):
        y = top + 18 * k
        svg.append(f'<rect x="{left + group * len(groups) + 10}" y="{y}" width="12" height="12" fill="{colours[k]}"/>')
        svg.append(f'<text x="{left + group * len(groups) + 28}" y="{y + 10}">{name}</text>')
    svg.append("</svg>")
    path.write_text("\n".join(svg))


if __name__ == "__main__":
    main()
