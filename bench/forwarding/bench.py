"""Throughput between two namespaces through softswitch (l3_forwarding.p4), Linux IPv4 forwarding
and Tayga's NAT64, measured with iperf3 in one run. Writes results.csv and results.svg here.

Usage (as root): bench/forwarding/run.sh [SECONDS_PER_TEST]
"""
import csv
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from harness import netns                      # noqa: E402
from harness.p4rt import P4RuntimeClient       # noqa: E402
from switch_process import SwitchProcess    # noqa: E402  (harness put mininet/ on the path)

SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
PREFIX = f"nfb{os.getpid()}"
H1, H2, MID = f"{PREFIX}h1", f"{PREFIX}h2", f"{PREFIX}r"
ROUTER_MAC = "00:00:00:00:0a:01"
TESTS = [("TCP, 1 stream", ["-P", "1"]), ("TCP, 10 streams", ["-P", "10"]), ("UDP, unlimited rate", ["-u", "-b", "0"])]


def sh(*cmd, ns=None):
    return netns.run(*(["ip", "netns", "exec", ns] if ns else []), *cmd)


def veth(a, a_ns, b, b_ns):
    """A veth pair with offloads off on both ends (a userspace switch needs real checksums; the
    three paths are measured under the same settings)."""
    netns.run("ip", "link", "add", a, "type", "veth", "peer", "name", b)
    for name, ns in ((a, a_ns), (b, b_ns)):
        if ns:
            netns.run("ip", "link", "set", name, "netns", ns)
        sh("ethtool", "-K", name, "tx", "off", "rx", "off", "tso", "off", "gso", "off", "gro", "off", ns=ns)
        sh("ip", "link", "set", name, "up", ns=ns)


def iperf(server_addr, args):
    server = subprocess.Popen(["ip", "netns", "exec", H2, "iperf3", "-s", "-1"], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    try:
        proc = subprocess.run(["ip", "netns", "exec", H1, "iperf3", "-c", server_addr, "-t", str(SECONDS), "-J", *args],
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


def hosts():
    for ns in (H1, H2):
        netns.run("ip", "netns", "add", ns)
        sh("ip", "link", "set", "lo", "up", ns=ns)


def linux():
    hosts()
    netns.run("ip", "netns", "add", MID)
    veth("a1", H1, "r1", MID)
    veth("a2", H2, "r2", MID)
    sh("sysctl", "-q", "-w", "net.ipv4.ip_forward=1", ns=MID)
    sh("ip", "addr", "add", "10.0.1.254/24", "dev", "r1", ns=MID)
    sh("ip", "addr", "add", "10.0.2.254/24", "dev", "r2", ns=MID)
    ipv4_hosts()
    return "10.0.2.1", None


def ipv4_hosts():
    sh("ip", "addr", "add", "10.0.1.1/24", "dev", "a1", ns=H1)
    sh("ip", "route", "add", "default", "via", "10.0.1.254", ns=H1)
    sh("ip", "addr", "add", "10.0.2.1/24", "dev", "a2", ns=H2)
    sh("ip", "route", "add", "default", "via", "10.0.2.254", ns=H2)


def softswitch():
    hosts()
    veth("a1", H1, "s1", None)
    veth("a2", H2, "s2", None)
    ipv4_hosts()
    for ns, n in ((H1, 1), (H2, 2)):
        sh("ip", "neigh", "replace", f"10.0.{n}.254", "lladdr", ROUTER_MAC, "dev", f"a{n}", ns=ns)
    switch = SwitchProcess({1: "s1", 2: "s2"}).start()
    p4info, config = switch.build_pipeline(ROOT / "softswitch" / "examples" / "l3_forwarding.p4",
                                           tempfile.mkdtemp(prefix="nat64fabric-bench-"))
    client = P4RuntimeClient(switch.address, 1)
    client.arbitrate()
    client.set_pipeline(p4info, config)
    for n in (1, 2):
        mac = sh("cat", f"/sys/class/net/a{n}/address", ns=H1 if n == 1 else H2).strip()
        client.write(client.update("INSERT", client.table_entry(
            "L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": (f"10.0.{n}.0", 24)},
            action="L3Ingress.set_next_hop_v4", params={"port": n, "src_mac": ROUTER_MAC, "dst_mac": mac})))
    return "10.0.2.1", (switch, client)


def tayga():
    hosts()
    netns.run("ip", "netns", "add", MID)
    veth("a1", H1, "r1", MID)
    veth("a2", H2, "r2", MID)
    sh("ip", "addr", "add", "2001:db8:1::1/64", "dev", "a1", ns=H1)
    sh("ip", "route", "add", "default", "via", "2001:db8:1::fffe", ns=H1)
    sh("ip", "addr", "add", "2001:db8:1::fffe/64", "dev", "r1", ns=MID)
    sh("ip", "addr", "add", "10.0.2.254/24", "dev", "r2", ns=MID)
    sh("ip", "addr", "add", "10.0.2.1/24", "dev", "a2", ns=H2)
    sh("ip", "route", "add", "default", "via", "10.0.2.254", ns=H2)
    for knob in ("net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1"):
        sh("sysctl", "-q", "-w", knob, ns=MID)
    work = pathlib.Path(tempfile.mkdtemp(prefix="nat64fabric-tayga-"))
    conf = work / "tayga.conf"
    # A network-specific prefix: Tayga refuses private IPv4 destinations under 64:ff9b::/96.
    conf.write_text("tun-device nat64\nipv4-addr 192.168.255.1\nipv6-addr 2001:db8:1::ffff\n"
                    "prefix 2001:db8:64::/96\ndynamic-pool 192.168.255.0/24\n"
                    f"data-dir {work}\n")
    sh("tayga", "--mktun", "-c", str(conf), ns=MID)
    sh("ip", "link", "set", "nat64", "up", ns=MID)
    sh("ip", "route", "add", "2001:db8:64::/96", "dev", "nat64", ns=MID)
    sh("ip", "route", "add", "192.168.255.0/24", "dev", "nat64", ns=MID)
    proc = subprocess.Popen(["ip", "netns", "exec", MID, "tayga", "-d", "-c", str(conf)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    subprocess.run(["ip", "netns", "exec", H1, "ping", "-c", "3", "-i", "0.2", "2001:db8:64::a00:201"],
                   capture_output=True)   # neighbour discovery and Tayga's first mapping, before timing
    return "2001:db8:64::a00:201", proc


def teardown(state):
    if isinstance(state, tuple):
        switch, client = state
        client.close()
        switch.stop()
    elif state is not None:
        state.terminate()
        state.wait()
    for ns in (H1, H2, MID):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    for link in ("s1", "s2"):
        netns.delete_link(link)


def main():
    netns.enter_private_namespace()
    paths = [("Linux IPv4 forwarding", linux), ("softswitch, l3_forwarding.p4", softswitch),
             ("Tayga NAT64 (IPv6 to IPv4)", tayga)]
    rows = []
    print(f"bench: {len(paths)} paths x {len(TESTS)} iperf3 tests of {SECONDS} s; about "
          f"{len(paths) * len(TESTS) * (SECONDS + 2) // 60 + 1} min", flush=True)
    for name, setup in paths:
        state = None
        try:
            addr, state = setup()
            for test, args in TESTS:
                sent, received = iperf(addr, args)
                rows.append({"path": name, "test": test, "sent_gbps": f"{sent:.3f}", "received_gbps": f"{received:.3f}"})
                print(f"  {name:30} {test:22} sent {sent:6.2f} Gbit/s  received {received:6.2f} Gbit/s", flush=True)
        finally:
            teardown(state)
    with open(HERE / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot(rows, HERE / "results.svg")
    soft = {r["test"]: float(r["received_gbps"]) for r in rows if r["path"].startswith("softswitch")}
    tay = {r["test"]: float(r["received_gbps"]) for r in rows if r["path"].startswith("Tayga")}
    for test in soft:
        print(f"bench: {test}: softswitch / Tayga = {soft[test] / tay[test]:.2f}")
    print(f"bench: wrote {HERE / 'results.csv'} and {HERE / 'results.svg'}")


def plot(rows, path):
    """Grouped bars of received Gbit/s, one group per iperf3 test (SVG, no plotting library)."""
    colours = {"Linux": "#888888", "softswitch": "#4878a8", "Tayga": "#d08040"}
    tests = [t for t, _ in TESTS]
    peak = max(float(r["received_gbps"]) for r in rows) * 1.15
    bar, top, height, left = 50, 40, 300, 50
    group = 3 * bar + 40
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + group * len(tests) + 220}" height="{height + 90}" '
           f'font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="20" font-size="14">iperf3 between two namespaces, received Gbit/s (same run)</text>',
           f'<line x1="{left}" y1="{top + height}" x2="{left + group * len(tests)}" y2="{top + height}" stroke="black"/>']
    for g, test in enumerate(tests):
        for k, r in enumerate(x for x in rows if x["test"] == test):
            v = float(r["received_gbps"])
            x = left + g * group + k * bar
            h = v / peak * height
            colour = next(c for key, c in colours.items() if r["path"].startswith(key))
            svg.append(f'<rect x="{x}" y="{top + height - h:.1f}" width="{bar - 4}" height="{h:.1f}" fill="{colour}"/>')
            svg.append(f'<text x="{x + bar / 2 - 2}" y="{top + height - h - 4:.1f}" text-anchor="middle">{v:.2f}</text>')
        svg.append(f'<text x="{left + g * group + 1.5 * bar}" y="{top + height + 18}" text-anchor="middle">{test}</text>')
    for k, (key, colour) in enumerate(colours.items()):
        y = top + 20 * k
        name = next(r["path"] for r in rows if r["path"].startswith(key))
        svg.append(f'<rect x="{left + group * len(tests) + 10}" y="{y}" width="12" height="12" fill="{colour}"/>')
        svg.append(f'<text x="{left + group * len(tests) + 28}" y="{y + 10}">{name}</text>')
    svg.append("</svg>")
    path.write_text("\n".join(svg))


if __name__ == "__main__":
    main()
