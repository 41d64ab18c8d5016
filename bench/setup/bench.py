"""Session setup through the controller: new NAT64 sessions per second against the offered rate,
and the first packet's delay (sent into the switch -> left it translated), on one border
softswitch driven by the embedded controller. Also the same while one host floods: the delay
of a well-behaved host's flows.

Each flow is one new UDP flow whose single packet misses the session table, is punted, set up
by the controller and sent back through the pipeline; its payload carries the flow's number, so
the translated packet is matched to the moment it was sent. Every level starts from a fresh
switch and an empty state directory. Writes results.csv and results.svg here.

Usage (as root): bench/setup/run.sh [SECONDS_PER_LEVEL] [RATE ...]
"""
import csv
import json
import os
import pathlib
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from harness import netns                  # noqa: E402
from switch_process import SwitchProcess   # noqa: E402  (harness put mininet/ on the path)
from fabric import Controller              # noqa: E402

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 4
RATES = [int(r) for r in sys.argv[2:]] or [50, 200, 1000, 5000, 20000]
DRAIN = 10                                  # seconds to wait for the last setups after sending stops
WARMUP = 2000                               # flows set up before each level, at 500/s
ROUTER_MAC, V6_MAC, V4_MAC = "00:00:00:00:b1:01", "00:00:00:00:00:06", "00:00:00:00:00:04"
SUBSCRIBERS = 100
POOL6_96 = bytes.fromhex("20010db8006400000000000000000000")[:12]
SERVER4 = socket.inet_aton("198.51.100.7")
ETH_P_ALL = 0x0003

EDGE_MAC = "00:00:00:00:e1:01"
TOPOLOGIES = os.environ.get("NAT64FABRIC_BENCH_TOPOLOGIES", "border,edge-border").split(",")
NAT64 = {
    "pool6": "2001:db8:64::/96",
    "pool4": {"addresses": ["192.0.2.0/24"], "blockSize": 512, "blocksPerSubscriber": 64},
    "maxSessionsPerSubscriber": 1000000,
}
BORDER = {"role": "BORDER", "routerMac": ROUTER_MAC, "ipv4": "192.0.2.255", "ipv6": "2001:db8:ff::1"}


def topology(name):
    """The switches ({device: {port: interface}}), their nat64fabric sections, the veth pairs to
    make and the MAC the hosts send to. The test side is always bt1 (hosts) and bt2 (server)."""
    to_server = {"prefix": "198.51.100.0/24", "port": 2, "nextHopMac": V4_MAC}
    if name == "border":
        return ({"border1": {1: "bsw1", 2: "bsw2"}},
                {"border1": dict(BORDER, routes=[{"prefix": "2001:db8:1::/64", "port": 1, "nextHopMac": V6_MAC},
                                                 to_server])},
                [("bsw1", "bt1"), ("bsw2", "bt2")], ROUTER_MAC)
    # one edge switch in front of the border: the hosts' first hop only routes
    return ({"edge1": {1: "esw1", 2: "esw2"}, "border1": {1: "bsw1", 2: "bsw2"}},
            {"edge1": {"role": "EDGE", "routerMac": EDGE_MAC, "ipv4": "203.0.113.1", "ipv6": "2001:db8:ff::2",
                       "routes": [{"prefix": "2001:db8:1::/64", "port": 1, "nextHopMac": V6_MAC},
                                  {"prefix": "2001:db8:64::/96", "port": 2, "nextHopMac": ROUTER_MAC}]},
             "border1": dict(BORDER, routes=[{"prefix": "2001:db8:1::/64", "port": 1, "nextHopMac": EDGE_MAC},
                                             to_server])},
            [("esw1", "bt1"), ("esw2", "bsw1"), ("bsw2", "bt2")], EDGE_MAC)


def mac(text):
    return bytes.fromhex(text.replace(":", ""))


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def first_packet(subscriber, sport, flow, first_hop=ROUTER_MAC):
    """The IPv6 UDP packet that opens a flow, its payload the flow's number."""
    src = bytes.fromhex("20010db8000100000000000000000000")[:14] + struct.pack("!H", subscriber)
    dst = POOL6_96 + SERVER4
    payload = struct.pack("!Q", flow)
    udp = struct.pack("!HHHH", sport, 9, 8 + len(payload), 0) + payload
    pseudo = src + dst + struct.pack("!IxxxB", len(udp), 17)
    udp = udp[:6] + struct.pack("!H", checksum(pseudo + udp) or 0xffff) + udp[8:]
    ip6 = struct.pack("!IHBB", 6 << 28, len(udp), 17, 64) + src + dst
    return mac(first_hop) + mac(V6_MAC) + b"\x86\xdd" + ip6 + udp


class Receiver(threading.Thread):
    """Records when each flow's translated packet leaves the switch's IPv4 port."""

    def __init__(self, interface):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self.sock.bind((interface, ETH_P_ALL))
        self.sock.settimeout(0.2)
        self.arrived = {}
        self.running = True

    def run(self):
        while self.running:
            try:
                frame = self.sock.recv(2048)
            except socket.timeout:
                continue
            now = time.monotonic()
            # IPv4 UDP to the server with our 8-byte payload: flow number at the end
            if frame[12:14] == b"\x08\x00" and frame[23] == 17 and frame[30:34] == SERVER4 and len(frame) >= 50:
                ihl = (frame[14] & 0x0f) * 4
                flow = struct.unpack("!Q", frame[14 + ihl + 8:14 + ihl + 16])[0]
                self.arrived.setdefault(flow, now)


def offer(sender, flows, rate):
    """Sends each (flow, frame) at `rate` per second; the time each was sent."""
    sent = {}
    start = time.monotonic()
    for i, (flow, frame) in enumerate(flows):
        due = start + i / rate
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        sender.send(frame)
        sent[flow] = time.monotonic()
    return sent


def level(name, rate, flood_rate=None):
    """One measurement on fresh switches and controller. With flood_rate, subscriber 1 offers
    that rate while the others together offer `rate`: the row then reports the others only."""
    work = pathlib.Path(tempfile.mkdtemp(prefix="nat64fabric-setup-bench-"))
    ports, sections, _, first_hop = topology(name)
    switches = [SwitchProcess(p, device_id=i, log_path=work / f"{d}.log").start()
                for i, (d, p) in enumerate(ports.items(), start=1)]
    devices = {f"device:{d}": {"basic": {"managementAddress": f"grpc://127.0.0.1:{sw.grpc_port}?device_id={i}"},
                               "nat64fabric": sections[d]}
               for i, (d, sw) in enumerate(zip(ports, switches), start=1)}
    (work / "fabric.json").write_text(json.dumps({"apps": {"org.nat64fabric.app": {"nat64": NAT64}},
                                                  "devices": devices}))
    controller = Controller(work / "fabric.json", work / "state", work / "controller.log").start()

    def first(subscriber, sport, flow):
        return first_packet(subscriber, sport, flow, first_hop)
    try:
        controller.wait_programmed()
        receiver = Receiver("bt2")
        receiver.start()
        sender = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        sender.bind(("bt1", 0))
        # Warm-up: the controller's and the switch's JIT compile the setup path first (steady state is
        # what is measured); from other subscribers, whose sessions stay.
        warm = [(20_000_000 + n, first(1000 + n % 100, 30000 + n // 100, 20_000_000 + n)) for n in range(WARMUP)]
        offer(sender, warm, 500)
        deadline = time.monotonic() + DRAIN
        while time.monotonic() < deadline and sum(1 for f, _ in warm if f in receiver.arrived) < len(warm):
            time.sleep(0.1)
        count = max(1, int(rate * SECONDS))
        polite = [(n, first(2 + n % (SUBSCRIBERS - 1), 1024 + n // (SUBSCRIBERS - 1), n))
                  for n in range(count)]
        flood = []
        if flood_rate:
            flood = [(10_000_000 + n, first(1, 1024 + n % 60000, 10_000_000 + n))
                     for n in range(int(flood_rate * SECONDS))]
        flood_sent = {}
        flooder = None
        if flood:
            flood_sender = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
            flood_sender.bind(("bt1", 0))
            flooder = threading.Thread(target=lambda: flood_sent.update(offer(flood_sender, flood, flood_rate)))
            flooder.start()
        sent = offer(sender, polite, rate)
        if flooder:
            flooder.join()
        deadline = time.monotonic() + DRAIN
        while time.monotonic() < deadline and len([f for f in sent if f in receiver.arrived]) < len(sent):
            time.sleep(0.1)
        receiver.running = False
        receiver.join()
        delays = sorted((receiver.arrived[f] - t) * 1000 for f, t in sent.items() if f in receiver.arrived)
        done = len(delays)
        first = min(sent.values())
        last = max((receiver.arrived[f] for f in sent if f in receiver.arrived), default=first)
        flood_done = len([f for f in flood_sent if f in receiver.arrived])
        return {
            "topology": name, "offered_per_s": rate, "flood_per_s": flood_rate or 0, "flows": len(sent), "set_up": done,
            "setups_per_s": round(done / max(last - first, SECONDS / 2), 1) if done else 0,
            "p50_ms": round(statistics.median(delays), 2) if delays else "",
            "p99_ms": round(delays[min(done - 1, int(done * 0.99))], 2) if delays else "",
            "flood_set_up": flood_done,
        }
    finally:
        controller.stop()
        for sw in switches:
            sw.stop()


def main():
    netns.enter_private_namespace()
    rows = []
    for name in TOPOLOGIES:
        pairs = topology(name)[2]
        for a, b in pairs:
            netns.delete_link(a)
            netns.add_veth_pair(a, b)
        try:
            for rate in RATES:
                print(f"setup bench ({name}): offering {rate} new flows/s for {SECONDS} s ...", flush=True)
                rows.append(level(name, rate))
                print("   ", rows[-1], flush=True)
            polite, flood = max(10, min(RATES)), max(RATES)
            print(f"setup bench ({name}): {polite} flows/s from 99 hosts while one host floods {flood} flows/s ...",
                  flush=True)
            rows.append(level(name, polite, flood_rate=flood))
            print("   ", rows[-1], flush=True)
        finally:
            for a, _ in pairs:
                netns.delete_link(a)
    with open(HERE / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    subprocess.run([sys.executable, str(HERE / "plot.py"), str(HERE / "results.csv"), str(HERE / "results.svg")],
                   check=True)
    print(f"wrote {HERE / 'results.csv'} and results.svg")


if __name__ == "__main__":
    main()
