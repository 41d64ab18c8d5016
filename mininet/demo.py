"""make demo: the NAT64 fabric on one machine, with real hosts and applications, and a report.

Runs as root in a network namespace of its own (nothing touches the machine's network), starts
the fabric of mininet/fabric.py with the embedded controller, runs the scenario, prints what each
step saw, and tears everything down. Exits non-zero when a step fails. `--cli` leaves the fabric
running under the Mininet CLI instead (make mn-cli).
"""
import argparse
import ipaddress
import json
import os
import re
import sys
import time
import pathlib

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
ROOT = pathlib.Path(__file__).resolve().parent.parent

import forward  # noqa: E402
from private_netns import enter_private_namespace  # noqa: E402


class Report:
    """The scenario's steps, printed as they end; the end-to-end tests read them."""

    def __init__(self):
        self.steps = []   # (title, ok, detail)

    @property
    def failed(self):
        return sum(1 for _, ok, _ in self.steps if not ok)

    def step(self, title, ok, detail):
        self.steps.append((title, ok, detail))
        print(f"\n[{'ok' if ok else 'FAILED'}] {title}")
        for line in detail.rstrip().splitlines():
            print(f"    {line}")
        sys.stdout.flush()


def scenario(fabric, report):
    from fabric import EAM, embed, nat64ctl
    h1, h2, e1, srv1, srv2 = (fabric.host(n) for n in ("h1", "h2", "e1", "srv1", "srv2"))
    srv1_6 = embed("198.51.100.10")
    work = fabric.work

    out = h1.cmd(f"ping -6 -c 3 -i 0.3 -W 3 {srv1_6}")
    loss = re.search(r"(\d+)% packet loss", out)
    report.step(f"ping from IPv6 host h1 to IPv4 server srv1 as {srv1_6} (pool6)",
                bool(loss) and loss.group(1) != "100", _summary(out))

    (work / "www").mkdir(exist_ok=True)
    (work / "www" / "index.html").write_text("hello from srv1, an IPv4-only web server\n")
    # socketserver, not `python3 -m http.server`: that looks its own name up in DNS, which hangs here.
    (work / "web.py").write_text(
        "import functools, http.server, socketserver, sys\n"
        "handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])\n"
        "socketserver.TCPServer(('198.51.100.10', 80), handler).serve_forever()\n")
    web = _background(srv1, f"{sys.executable} {work / 'web.py'} {work / 'www'}", work / "web.log")
    try:
        page = ""
        for _ in range(20):
            page = h1.cmd(f"curl -s -g --max-time 5 http://[{srv1_6}]/")
            if "hello" in page:
                break
            time.sleep(0.3)
        report.step(f"HTTP: curl http://[{srv1_6}]/ on h1 (TCP through a NAT64 session)", "hello from srv1" in page,
                    f"page: {page.strip() or '(nothing)'}")
    finally:
        srv1.cmd(f"kill {web}")

    (work / "udp_echo.py").write_text(
        "import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.bind(('198.51.100.10', 5353))\n"
        "while True:\n    data, peer = s.recvfrom(2048)\n    s.sendto(('echo from %s:%d: ' % peer[:2]).encode() + data, peer)\n")
    (work / "udp_ask.py").write_text(
        "import socket, sys\ns = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)\ns.settimeout(2)\n"
        "for _ in range(5):\n    s.sendto(b'question', (sys.argv[1], 5353))\n    try:\n"
        "        print(s.recvfrom(2048)[0].decode())\n        break\n    except socket.timeout:\n        pass\n")
    echo = _background(srv1, f"{sys.executable} {work / 'udp_echo.py'}", work / "udp_echo.log")
    try:
        time.sleep(0.5)
        answer = h2.cmd(f"{sys.executable} {work / 'udp_ask.py'} {srv1_6}").strip()
        report.step("UDP request/response from h2 to srv1: out through border2, back through border1",
                    answer.startswith("echo from 192.0.2."),
                    f"answer: {answer or '(none)'}\n(srv1 saw the request from the pool4 address above)")
    finally:
        srv1.cmd(f"kill {echo}")

    e1_4 = EAM[1].split('/')[0]
    out6 = e1.cmd(f"ping -6 -c 2 -i 0.3 -W 3 {srv1_6}")
    out4 = srv1.cmd(f"ping -c 2 -i 0.3 -W 3 {e1_4}")
    out66 = h1.cmd(f"ping -6 -c 2 -i 0.3 -W 3 {embed(e1_4)}")
    every = all(" 0% packet loss" in out for out in (out6, out4, out66))
    report.step(f"EAMT: e1 {EAM[0]} = {EAM[1]}, reachable both ways, and from h1 by its IPv4 address"
                " (hairpinned at border1, RFC 7757 4.2)", every,
                f"e1 -> srv1:   {_summary(out6)}\nsrv1 -> e1 as {e1_4}:   {_summary(out4)}\n"
                f"h1 -> e1 as {embed(e1_4)}:   {_summary(out66)}")

    trace = h2.cmd(f"traceroute -6 -n -q 1 -w 2 -m 6 {srv1_6}")
    hops = [line for line in trace.splitlines()[1:] if line.strip()]
    border1_6 = str(ipaddress.IPv6Address(embed("198.51.100.1")))
    translated = any(border1_6 in h for h in hops)
    report.step(f"traceroute -6 from h2 to {srv1_6}: border1's IPv4 Time Exceeded arrives translated "
                f"(from {embed('198.51.100.1')})", translated, trace)

    # Not `iperf3 -D`: a daemon needs a working /dev/null, and its own log tells more.
    server = _background(srv1, "iperf3 -s -1 -B 198.51.100.10", work / "iperf3-server.log")
    try:
        time.sleep(0.5)
        result = h1.cmd(f"iperf3 -6 -c {srv1_6} -t 3 -J")
    finally:
        srv1.cmd(f"kill {server}")   # gone already when the client ran: -1 serves one client
    try:
        end = json.loads(result[result.index("{"):])["end"]
        rate = f"{end['sum_received']['bits_per_second'] / 1e6:.1f} Mbit/s received, " \
               f"{end['sum_sent']['retransmits']} retransmits"
        ok = end["sum_received"]["bytes"] > 0
    except (ValueError, KeyError) as e:
        rate, ok = f"iperf3 gave no result ({e}): {result[-300:]}", False
    report.step("iperf3 from h1 to srv1 for 3 s (TCP, userspace softswitches: a functional figure, not a benchmark)",
                ok, rate)

    table = nat64ctl(fabric.controller, "sessions")
    report.step("the session table, as `nat64ctl sessions` prints it", "192.0.2." in table, table)
    events = fabric.controller.events(timeout=2)
    report.step("NAT events (RFC 8158 names), first lines of the controller's log", "natEvent=" in events,
                "\n".join(events.splitlines()[:4]))


def _background(host, command, log):
    """A program started in the background on a host; returns its PID (stopped with kill)."""
    return int(host.cmd(f"{command} >{log} 2>&1 & echo $!").strip().splitlines()[-1])


def _summary(ping_output):
    lines = [line for line in ping_output.splitlines() if "packet loss" in line or "rtt" in line]
    return "\n".join(lines) or ping_output.strip()[-300:]


def how_to_reach(controller, port):
    """The API's and dashboard's addresses on the machine's 127.0.0.1, as another terminal uses them."""
    url = f"http://127.0.0.1:{port}/onos/nat64fabric"
    read = f"{'sudo ' if os.environ.get('SUDO_USER') else ''}cat {controller.credentials}"
    return "\n".join([
        f"REST API from any terminal of this machine: {url}/",
        f'  curl -s -u "$({read})" {url}/devices',
        f'  {ROOT / "bin" / "nat64ctl"} --url {url} --user "$({read})" sessions',
        f"dashboard: http://127.0.0.1:{port}/dashboard/  (user and password: the line USER:PASSWORD in "
        f"{controller.credentials})"])


def announce(fabric, port, report):
    """What the demo prints once the fabric is up: its switches, then how to reach it on the machine's `port`."""
    from fabric import SWITCHES
    devices = fabric.controller.get("/devices")["devices"]
    report.step(f"fabric up: {len(SWITCHES)} switches programmed by the embedded controller",
                all(d["connected"] for d in devices),
                "\n".join(f"{d['id']:16} {d['role']:7} {d['entries']} entries" for d in devices)
                + f"\nlogs and state: {fabric.work}")
    print("\n" + how_to_reach(fabric.controller, port))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", action="store_true", help="leave the fabric running under the Mininet CLI")
    args = ap.parse_args()
    listener = forward.listen()          # on the machine's 127.0.0.1, before leaving its namespace
    enter_private_namespace()
    from mininet.log import setLogLevel
    from fabric import Fabric
    # The CLI prints what its commands say at Mininet's "output" level; the demo wants warnings only.
    setLogLevel("output" if args.cli else "warning")
    print("demo: starting 4 softswitches in Mininet and the embedded controller (about 30 s)...")
    sys.stdout.flush()
    report = Report()
    with Fabric() as fabric:
        forwarder = forward.start(listener, fabric.controller.rest_port, fabric.work / "forward.log")
        try:
            announce(fabric, listener.getsockname()[1], report)
            if args.cli:
                from mininet.cli import CLI
                CLI(fabric.net)
                return 0
            scenario(fabric, report)
        finally:
            forward.stop(forwarder)
    print(f"\ndemo: {'all steps passed' if not report.failed else f'{report.failed} steps FAILED'}; fabric torn down")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
