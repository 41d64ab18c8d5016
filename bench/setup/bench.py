"""Session setup through the controller: new NAT64 sessions per second against the offered rate,
and the first packet's delay (sent into the fabric -> left it translated), on softswitches driven
by the embedded controller, in three topologies (one border; an edge in front of it; the demo's
2x2 fabric, where every setup is written to both borders).

Each flow is one new UDP flow whose single packet misses the session table, is punted, set up
by the controller and sent back through the pipeline; its payload carries the flow's number, so
the translated packet is matched to the moment it was sent. Per topology the switches and the
controller start once, with an empty state directory, and run every level, as a deployed
controller runs for days: first a warm-up (40 s of new flows at 1000/s, then 5 s each at 3000,
10 000 and 30 000/s, so that the measured levels see compiled code, not the JIT at work), then a ramp of offered rates that finds
saturation (the most setups/s any ramp level reached), three levels at 10 %, 50 % and 90 % of
it, and the flood level (a well-behaved host's delay while one host floods). Every flow is new:
each gets a source port of its own, and the sessions of earlier levels stay. A fourth topology,
border-unpoliced, is the one border with the punt meters opened: flood levels only, where every
flooding packet reaches the controller and its per-subscriber queues alone protect the others.

The softswitch and controller jars (with their lib/ directories) and the P4 build are copied to a
temporary directory at start and run from there with `java -jar`, so a rebuild of */target/
during the run does not change what is measured.

Usage (as root): bench/setup/run.sh [SECONDS_PER_LEVEL] [RATE ...]
    NAT64FABRIC_BENCH_TOPOLOGIES=border,edge-border,fabric2x2,border-unpoliced   the topologies (default all)
    NAT64FABRIC_BENCH_OUT=DIR   where results.csv and results.svg go (default: this directory)
    NAT64FABRIC_BENCH_CONTROLLER_JVM="FLAGS", NAT64FABRIC_BENCH_SWITCH_JVM="FLAGS"   JVM flags added to the
        launchers' (a JFR recording, a more detailed GC log: %p in a file name is the process id; the bench logs
        every JVM's GC pauses itself, and each row counts those inside its level)
    NAT64FABRIC_FAST_PATH=tc|xdp-generic|xdp   the switches run the pipeline in the kernel too (README, "Switches with the kernel fast path")
    NAT64FABRIC_BENCH_RR=N   both JVMs under SCHED_RR at priority N, the sender and receiver at N+1 (README, "Scheduling")
"""
import bisect
import csv
import datetime
import json
import os
import pathlib
import re
import resource
import shlex
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from harness import machine, netns         # noqa: E402
from switch_process import SwitchProcess   # noqa: E402  (harness put mininet/ on the path)
from fabric import Controller              # noqa: E402
from prometheus_client.parser import text_string_to_metric_families   # noqa: E402

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 4
RATES = sorted(int(r) for r in sys.argv[2:]) or [100, 300, 1000, 3000, 10000, 15000, 20000, 30000]
FRACTIONS = (0.1, 0.5, 0.9)                 # of each topology's saturation rate
DRAIN = 10                                  # seconds to wait for the last setups after sending stops
# New flows before a topology's first level: (seconds, flows/s). The higher steps compile the
# paths that only get hot at high rates (gRPC's and Netty's buffer paths, batches of many setups).
WARMUP = [(40, 1000), (5, 3000), (5, 10000), (5, 30000)]
QUIET = 3                                   # seconds between levels
# The flooder's rates with the punt meters open: under the controller's saturation, and over it.
FLOODS_UNPOLICED = (10000, 30000)
ROUTER_MAC, V6_MAC, V4_MAC = "00:00:00:00:b1:01", "00:00:00:00:00:06", "00:00:00:00:00:04"
SUBSCRIBERS = 100
POOL6_96 = bytes.fromhex("20010db8006400000000000000000000")[:12]
SERVER4 = socket.inet_aton("198.51.100.7")
ETH_P_ALL = 0x0003
OUT = pathlib.Path(os.environ.get("NAT64FABRIC_BENCH_OUT") or HERE)

EDGE_MAC = "00:00:00:00:e1:01"
# The one-border topology with the punt meters opened (rates far above what any sender here
# reaches): a flooding host's punts all reach the controller, and only its per-subscriber queues
# and refusals stand between the flood and the others' setups. Measured with the flood rows only.
UNPOLICED = "border-unpoliced"
ALL_TOPOLOGIES = ("border", "edge-border", "fabric2x2", UNPOLICED)
TOPOLOGIES = [t.strip() for t in os.environ.get("NAT64FABRIC_BENCH_TOPOLOGIES", ",".join(ALL_TOPOLOGIES)).split(",")
              if t.strip()]
NAT64 = {
    "pool6": "2001:db8:64::/96",
    "pool4": {"addresses": ["192.0.2.0/24"], "blockSize": 512, "blocksPerSubscriber": 64},
    "maxSessionsPerSubscriber": 1000000,
}
OPEN_METERS = {"perPortPps": 100_000_000, "perPortBurst": 100_000_000,
               "perSourcePps": 100_000_000, "perSourceBurst": 100_000_000}
BORDER = {"role": "BORDER", "routerMac": ROUTER_MAC, "ipv4": "192.0.2.255", "ipv6": "2001:db8:ff::1"}
HOSTS1, HOSTS2 = "2001:db8:1::/64", "2001:db8:2::/64"
# Where the controller says a setup's time went (its /stats): waiting in its subscriber's queue, the
# batch's allocation and durable commit, the batch's writes to the borders, its packet-out after the
# batch's earlier ones, and from packet-in to packet-out in all. Means over the level, from the
# difference of the stats' sums and counts; 99th percentiles from the difference of its /metrics
# histogram (the upper bound of the bucket holding it: buckets step 10, 15, 20, 30, 50, 70 per decade).
STAGES = ["queued", "durable", "written", "sending", "total"]
FIELDS = ["topology", "offered_per_s", "flood_per_s", "fraction_of_saturation", "saturation_per_s", "flows",
          "set_up", "setups_per_s", "p50_ms", "p99_ms", "met_gc_pause", "p99_without_gc_ms", "flood_set_up",
          "refused"] + [f"{s}_mean_ms" for s in STAGES] \
    + [f"{s}_p99_ms" for s in STAGES] \
    + [f"{who}_gc_{what}" for who in ("controller", "switch") for what in ("pauses", "pause_p50_ms", "pause_max_ms", "paused_ms")]
LATENCY_FAMILY = "nat64fabric_setup_latency_seconds"


def route(prefix, port, next_hop):
    return {"prefix": prefix, "port": port, "nextHopMac": next_hop}


def topology(name):
    """The switches ({device: {port: interface}}), their nat64fabric sections, the veth pairs to
    make, and the hosts' sides: [(test interface, first-hop MAC, IPv6 /64 of its subscribers)].
    The translated packets always leave on bt2 (the port towards 198.51.100.7)."""
    to_server = route("198.51.100.0/24", 2, V4_MAC)
    if name in ("border", UNPOLICED):
        return ({"border1": {1: "bsw1", 2: "bsw2"}},
                {"border1": dict(BORDER, routes=[route(HOSTS1, 1, V6_MAC), to_server])},
                [("bsw1", "bt1"), ("bsw2", "bt2")], [("bt1", ROUTER_MAC, HOSTS1)])
    if name == "edge-border":
        # one edge switch in front of the border: the hosts' first hop only routes
        return ({"edge1": {1: "esw1", 2: "esw2"}, "border1": {1: "bsw1", 2: "bsw2"}},
                {"edge1": {"role": "EDGE", "routerMac": EDGE_MAC, "ipv4": "203.0.113.1", "ipv6": "2001:db8:ff::2",
                           "routes": [route(HOSTS1, 1, V6_MAC), route(NAT64["pool6"], 2, ROUTER_MAC)]},
                 "border1": dict(BORDER, routes=[route(HOSTS1, 1, EDGE_MAC), to_server])},
                [("esw1", "bt1"), ("esw2", "bsw1"), ("bsw2", "bt2")], [("bt1", EDGE_MAC, HOSTS1)])
    if name == "fabric2x2":
        # The demo's fabric (mininet/fabric.py): leaf1 and leaf2 each with IPv6 subscribers (half of
        # them each), both meshed to border1 and border2; leaf1 sends to border1, leaf2 to border2.
        # The server 198.51.100.7 is behind border1 (port 3, bt2): leaf2's flows are translated on
        # border2 and cross the border2-border1 trunk. Every setup is written to both borders.
        # Port numbers, MACs and routes as in the demo; the switches' own IPv6 addresses are taken
        # from 2001:db8:ff::/64 so that none is a subscriber's address.
        leaf1, leaf2, border2 = "00:00:00:00:a1:01", "00:00:00:00:a1:02", "00:00:00:00:b1:02"
        return ({"leaf1": {1: "l1p1", 2: "l1p2", 3: "l1p3"},
                 "leaf2": {1: "l2p1", 3: "l2p3", 4: "l2p4"},
                 "border1": {1: "b1p1", 2: "b1p2", 3: "b1p3", 4: "b1p4"},
                 "border2": {1: "b2p1", 2: "b2p2", 3: "b2p3", 4: "b2p4"}},
                {"leaf1": {"role": "EDGE", "routerMac": leaf1, "ipv4": "10.255.0.1", "ipv6": "2001:db8:ff::11",
                           "routes": [route(HOSTS1, 1, V6_MAC), route(HOSTS2, 2, ROUTER_MAC),
                                      route(NAT64["pool6"], 2, ROUTER_MAC)]},
                 "leaf2": {"role": "EDGE", "routerMac": leaf2, "ipv4": "10.255.0.2", "ipv6": "2001:db8:ff::12",
                           "routes": [route(HOSTS2, 1, V6_MAC), route(HOSTS1, 4, border2),
                                      route(NAT64["pool6"], 4, border2)]},
                 "border1": {"role": "BORDER", "routerMac": ROUTER_MAC, "ipv4": "198.51.100.1",
                             "ipv6": "2001:db8:ff::1",
                             "routes": [route(HOSTS1, 1, leaf1), route(HOSTS2, 2, leaf2),
                                        route("198.51.100.0/24", 3, V4_MAC), route("203.0.113.0/24", 4, border2)]},
                 "border2": {"role": "BORDER", "routerMac": border2, "ipv4": "203.0.113.1",
                             "ipv6": "2001:db8:ff::2",
                             "routes": [route(HOSTS1, 1, leaf1), route(HOSTS2, 2, leaf2),
                                        route("203.0.113.0/24", 3, V4_MAC), route("198.51.100.0/24", 4, ROUTER_MAC)]}},
                [("l1p1", "bt1"), ("l2p1", "bt3"), ("b1p3", "bt2"), ("b2p3", "bt4"),
                 ("l1p2", "b1p1"), ("l1p3", "b2p1"), ("l2p3", "b1p2"), ("l2p4", "b2p2"), ("b1p4", "b2p4")],
                [("bt1", leaf1, HOSTS1), ("bt3", leaf2, HOSTS2)])
    raise SystemExit(f"setup bench: unknown topology {name!r} in NAT64FABRIC_BENCH_TOPOLOGIES "
                     f"(choose from {', '.join(ALL_TOPOLOGIES)})")


# --- the jars, copied so that a rebuild under */target/ does not change them mid-run ---------------

JARS = {"softswitch": ROOT / "softswitch" / "target" / "softswitch.jar",
        "controller": ROOT / "controller" / "target" / "controller.jar"}
P4BUILD = ROOT / "p4" / "build"
P4FILES = ("p4info.txt", "device_config.bin")


def _sources():
    """Every file to copy: each jar, its lib/ directory (the manifest's Class-Path), the P4 build."""
    files = []
    for jar in JARS.values():
        files.append(jar)
        lib = jar.parent / "lib"
        if lib.is_dir():
            files += sorted(p for p in lib.iterdir() if p.is_file())
    return files + [P4BUILD / f for f in P4FILES]


def _stamp(paths):
    return {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in paths}


def _class_path(jar):
    with zipfile.ZipFile(jar) as z:
        text = z.read("META-INF/MANIFEST.MF").decode()
    manifest, key = {}, None
    for line in text.splitlines():
        if line.startswith(" ") and key:
            manifest[key] += line[1:]
        elif ":" in line:
            key, value = line.split(":", 1)
            manifest[key] = value.strip()
    return manifest.get("Class-Path", "").split()


def snapshot(into, attempts=60):
    """Copies the jars (with lib/) and the P4 build into `into`; retries while a build is rewriting
    them (a file changed during the copy, a jar is not a whole zip, or a Class-Path entry is missing).
    Returns ({name: copied jar}, p4 directory copy, [(source, mtime, size)] of what was copied)."""
    for attempt in range(attempts):
        if attempt:
            time.sleep(5)
        shutil.rmtree(into, ignore_errors=True)
        try:
            files = _sources()
            before = _stamp(files)
            for src in files:
                dst = into / src.relative_to(ROOT)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
            if _stamp(_sources()) != before:
                raise OSError("changed while being copied")
            jars = {name: into / jar.relative_to(ROOT) for name, jar in JARS.items()}
            for copy in (into / f.relative_to(ROOT) for f in files if f.suffix == ".jar"):
                with zipfile.ZipFile(copy) as z:
                    if z.testzip() is not None:
                        raise OSError(f"{copy.name} is not a whole jar")
            for jar in jars.values():
                missing = [c for c in _class_path(jar) if not (jar.parent / c).is_file()]
                if missing:
                    raise OSError(f"{jar.name}: Class-Path entries missing: {' '.join(missing)}")
            return jars, into / P4BUILD.relative_to(ROOT), [(f, *before[f]) for f in files]
        except (OSError, zipfile.BadZipFile, KeyError) as e:
            print(f"setup bench: the jars could not be copied ({e}; a build running?); "
                  f"retrying in 5 s ({attempt + 1}/{attempts})", flush=True)
    raise SystemExit("setup bench: the jars did not hold still long enough to copy; run make build first")


def launcher_flags(name):
    """The JVM flags `make build` wrote into bin/NAME (the garbage collector the switches and the
    controller run with): the copied jars run with the same."""
    text = (ROOT / "bin" / name).read_text()
    match = re.search(r"exec java (.*?)-jar ", text)
    return shlex.split(match.group(1)) if match else []


# NAT64FABRIC_BENCH_RR=N: both JVMs run under SCHED_RR at priority N (README, "Scheduling"), and
# the bench's sender and receiver one above them, so that they measure the JVMs, not wait behind them.
RR = int(os.environ.get("NAT64FABRIC_BENCH_RR") or 0)
SCHEDULING = ["chrt", "-r", str(RR)] if RR else []
MEASURING = ["chrt", "-r", str(RR + 1)] if RR else []


def gc_log_flag(log_path):
    """Each JVM logs its collections' pauses next to its log, stamped with the wall clock in ms, so
    that a level's row can count the pauses inside it."""
    return f"-Xlog:gc:file={gc_log(log_path)}:timemillis"


def gc_log(log_path):
    return log_path.with_name(log_path.stem + "-gc.log")


# A line of -Xlog:gc for a stop-the-world pause: [1795918802122ms] GC(12) Pause Young (Normal) ... 5.123ms
GC_PAUSE = re.compile(r"^\[(\d+)ms\] GC\(\d+\) Pause .* (\d+(?:\.\d+)?)ms$")


def gc_pauses(log_path, start_ms, end_ms):
    """The pauses of one JVM that ended between two wall-clock times (ms), as (start, end) in ms: the
    line is logged as the pause ends."""
    try:
        lines = gc_log(log_path).read_text().splitlines()
    except FileNotFoundError:
        return []
    return [(int(m.group(1)) - float(m.group(2)), int(m.group(1))) for m in map(GC_PAUSE.match, lines)
            if m and start_ms <= int(m.group(1)) <= end_ms]


def met_a_pause(flows, pauses):
    """Which (sent, arrived) intervals (ms) overlap one of the pauses ((start, end) in ms, of any JVM)."""
    merged = []
    for start, end in sorted(pauses):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    starts = [start for start, _ in merged]
    met = []
    for sent, arrived in flows:
        i = bisect.bisect_left(starts, arrived) - 1   # the last pause that began before the packet arrived
        met.append(i >= 0 and merged[i][1] > sent)
    return met


class JarSwitch(SwitchProcess):
    """A softswitch run from the copied jar (the bench's own copy, not bin/softswitch)."""
    jar = None
    flags = []

    def softswitch_launcher(self):
        return [*SCHEDULING, "java", *self.flags, gc_log_flag(self.log_path), "-jar", str(self.jar)]


class JarController(Controller):
    """The embedded controller run from the copied jar and P4 build; stopped by its PID."""
    jar = None
    p4 = None
    flags = []

    def start(self):
        with open(self.log_path, "a") as log:
            self.proc = subprocess.Popen(
                [*SCHEDULING, "java", *self.flags, gc_log_flag(self.log_path), "-jar", str(self.jar),
                 "--config", str(self.config_path), "--state", str(self.state_dir),
                 "--p4info", str(self.p4 / "p4info.txt"), "--device-config", str(self.p4 / "device_config.bin"),
                 "--rest-port", str(self.rest_port)], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        return self


# --- traffic ----------------------------------------------------------------------------------------

def mac(text):
    return bytes.fromhex(text.replace(":", ""))


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def first_packet(subscriber, sport, flow, hosts):
    """The IPv6 UDP packet that opens a flow, its payload the flow's number; the subscriber lives
    behind hosts[subscriber % len(hosts)] (its /64, its first hop)."""
    _, first_hop, prefix = hosts[subscriber % len(hosts)]
    network = socket.inet_pton(socket.AF_INET6, prefix.split("/")[0])
    src = network[:14] + struct.pack("!H", subscriber)
    dst = POOL6_96 + SERVER4
    payload = struct.pack("!Q", flow)
    udp = struct.pack("!HHHH", sport, 9, 8 + len(payload), 0) + payload
    pseudo = src + dst + struct.pack("!IxxxB", len(udp), 17)
    udp = udp[:6] + struct.pack("!H", checksum(pseudo + udp) or 0xffff) + udp[8:]
    ip6 = struct.pack("!IHBB", 6 << 28, len(udp), 17, 64) + src + dst
    return mac(first_hop) + mac(V6_MAC) + b"\x86\xdd" + ip6 + udp


LOADGEN = None    # the compiled loadgen.c (see compile_loadgen)


def compile_loadgen(into):
    """The C sender and receiver (loadgen.c): Python at 30 000 packets/s took a quarter of a core
    from the system it measures."""
    global LOADGEN
    LOADGEN = into / "loadgen"
    subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-o", str(LOADGEN), str(HERE / "loadgen.c")], check=True)


def records(data):
    """loadgen's output: {flow: CLOCK_REALTIME seconds}."""
    out = {}
    for flow, ns in struct.iter_unpack("!QQ", data[:len(data) - len(data) % 16]):
        out.setdefault(flow, ns / 1e9)
    return out


class Sender:
    """Sends frames on the hosts' sides; a frame leaves on the side of its first hop (its
    destination MAC)."""

    def __init__(self, hosts):
        self.interfaces = [interface for interface, _, _ in hosts]
        self.index = {mac(first_hop): i for i, (_, first_hop, _) in enumerate(hosts)}

    def offer(self, flows, rate):
        """Sends each (flow, frame) at `rate` per second; the time each was sent."""
        data = b"".join(struct.pack("!QBH", flow, self.index[frame[:6]], len(frame)) + frame for flow, frame in flows)
        done = subprocess.run([*MEASURING, str(LOADGEN), "send", str(rate), *self.interfaces], input=data,
                              stdout=subprocess.PIPE, check=True)
        return records(done.stdout)


class Receiver:
    """Records when each flow's translated packet leaves the fabric's port towards the server (the
    kernel's receive time)."""

    def __init__(self, interface, work):
        self.path = work / "arrived.bin"
        self.file = open(self.path, "wb")
        self.proc = subprocess.Popen([*MEASURING, str(LOADGEN), "receive", interface, socket.inet_ntoa(SERVER4)],
                                     stdout=self.file)
        self.read, self._arrived = 0, {}

    @property
    def arrived(self):
        with open(self.path, "rb") as f:
            f.seek(self.read)
            data = f.read()
        usable = len(data) - len(data) % 16
        self.read += usable
        for flow, t in records(data[:usable]).items():
            self._arrived.setdefault(flow, t)
        return self._arrived

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        self.file.close()


def sender_cpu():
    """CPU ticks of the finished loadgen senders (the receiver runs on and is in thread_cpu)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 100


def thread_cpu():
    """CPU ticks (1/100 s) so far of every thread of the bench's JVMs and of this process, by
    (process, thread group): where the cores go during a level."""
    ticks = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            args = open(f"/proc/{pid}/cmdline").read().split("\0")
            who = ("softswitch" if any(a.endswith("softswitch.jar") for a in args) else
                   "controller" if any(a.endswith("controller.jar") for a in args) else
                   "bench" if int(pid) == os.getpid() or args[0] == str(LOADGEN) else None)
            if who is None:
                continue
            for tid in os.listdir(f"/proc/{pid}/task"):
                stat = open(f"/proc/{pid}/task/{tid}/stat").read()
                name, fields = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
                key = (who, THREAD_GROUPS.get(name.rstrip("0123456789#-"), name.rstrip("0123456789#-")))
                ticks[key] = ticks.get(key, 0) + int(fields[11]) + int(fields[12])
        except (OSError, ValueError):
            continue   # a thread or process that ended meanwhile
    return ticks


# Threads named by their pools, grouped: their numbers say nothing.
THREAD_GROUPS = {"C2 CompilerThre": "JIT (C2)", "C1 CompilerThre": "JIT (C1)", "GC Thread": "GC", "G1 Refine": "GC",
                 "G1 Conc": "GC", "G1 Main Marker": "GC", "grpc-default-executor": "gRPC handlers",
                 "grpc-default-ex": "gRPC handlers", "grpc-default-worker-ELG-": "gRPC I/O",
                 "grpc-default-wo": "gRPC I/O", "grpc-nio-worker-ELG-": "gRPC I/O"}


class Fabric:
    """One topology's softswitches and controller, started once and kept for all its levels, as
    an operator's controller runs for days: the sessions of earlier levels stay (as in a live
    NAT64), and the JVMs are measured after their compilers have settled, not while they compile."""

    def __init__(self, name, work):
        self.name, self.work = name, work
        self.switches, self.controller, self.receiver = [], None, None
        self.next_port = {}         # per subscriber: every flow of the run gets a source port of its own
        self.next_flow = 0

    def __enter__(self):
        ports, sections, _, self.hosts = topology(self.name)
        self.work.mkdir(parents=True)
        try:
            for i, (d, p) in enumerate(ports.items(), start=1):
                self.switches.append(JarSwitch(p, device_id=i, log_path=self.work / f"{d}.log",
                                               target="softswitch").start())
            devices = {f"device:{d}": {"basic": {"managementAddress": f"grpc://127.0.0.1:{sw.grpc_port}?device_id={i}"},
                                       "nat64fabric": sections[d]}
                       for i, (d, sw) in enumerate(zip(ports, self.switches), start=1)}
            nat64 = dict(NAT64, puntPolicing=OPEN_METERS) if self.name == UNPOLICED else NAT64
            (self.work / "fabric.json").write_text(json.dumps({"apps": {"org.nat64fabric.app": {"nat64": nat64}},
                                                               "devices": devices}))
            self.controller = JarController(self.work / "fabric.json", self.work / "state",
                                            self.work / "controller.log").start()
            self.controller.wait_programmed()
            for sw in self.switches:
                sw.expect_fast_path()
            self.receiver = Receiver("bt2", self.work)
            self.sender = Sender(self.hosts)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        if self.receiver:
            self.receiver.stop()
        if self.controller:
            self.controller.stop()
        for sw in self.switches:
            sw.stop()

    def flows(self, subscribers, count):
        """`count` new flows spread over `subscribers`: (flow number, first packet)."""
        out = []
        for n in range(count):
            subscriber = subscribers[n % len(subscribers)]
            port = self.next_port.get(subscriber, 1024)
            self.next_port[subscriber] = port + 1 if port < 65535 else 1024   # a flooder comes round again
            out.append((self.next_flow, first_packet(subscriber, port, self.next_flow, self.hosts)))
            self.next_flow += 1
        return out

    def wait_arrived(self, flows, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and sum(1 for f in flows if f in self.receiver.arrived) < len(flows):
            time.sleep(0.1)

    def warm_up(self):
        """New flows from 100 other subscribers until the JIT compilers are done with the setup path."""
        for seconds, rate in WARMUP:
            warm = self.flows(range(1000, 1100), int(seconds * rate))
            self.sender.offer(warm, rate)
            self.wait_arrived([f for f, _ in warm], DRAIN)

    def level(self, rate, flood_rate=None):
        """One measurement. With flood_rate, subscriber 1 offers that rate while the others together
        offer `rate`: the row then reports the others only."""
        polite = self.flows(range(2, SUBSCRIBERS + 1), max(1, int(rate * SECONDS)))
        flood = self.flows([1], int(flood_rate * SECONDS)) if flood_rate else []
        flood_sent, flooder = {}, None
        if flood:
            flooder = threading.Thread(target=lambda: flood_sent.update(self.sender.offer(flood, flood_rate)))
            flooder.start()
        stats_before = self.controller.get("/stats")
        buckets_before = stage_buckets(self.controller.text("/metrics"))
        cpu_before, senders_before, t0, wall0 = thread_cpu(), sender_cpu(), time.monotonic(), time.time()
        sent = self.sender.offer(polite, rate)
        if flooder:
            flooder.join()
        cpu_after, seconds = thread_cpu(), time.monotonic() - t0
        cpu_after[("bench", "loadgen send")] = sender_cpu() - senders_before
        profile = sorted(((k, (cpu_after[k] - cpu_before.get(k, 0)) / seconds) for k in cpu_after),
                         key=lambda kv: -kv[1])
        self.profile = [{"topology": self.name, "offered_per_s": rate, "flood_per_s": flood_rate or 0,
                         "process": who, "threads": group, "cpu_percent_of_a_core": round(pct, 1)}
                        for (who, group), pct in profile if pct >= 1]
        self.wait_arrived(list(sent), DRAIN)
        wall1 = time.time()
        arrived = self.receiver.arrived
        ways = [(t * 1000, arrived[f] * 1000) for f, t in sent.items() if f in arrived]
        delays = sorted(a - t for t, a in ways)
        done = len(delays)
        start = min(sent.values())
        last = max((arrived[f] for f in sent if f in arrived), default=start)
        time.sleep(QUIET)   # what a saturated level left queued is done before the next one starts
        stats = self.controller.get("/stats")
        buckets = stage_buckets(self.controller.text("/metrics"))
        window = int(wall0 * 1000), int(wall1 * 1000)
        controller_pauses = gc_pauses(self.controller.log_path, *window)
        switch_pauses = [p for sw in self.switches for p in gc_pauses(sw.log_path, *window)]
        met = met_a_pause(ways, controller_pauses + switch_pauses)
        clear = sorted(a - t for (t, a), m in zip(ways, met) if not m)

        def mean_ms(stage):
            key = f"setups.latencyUs.{stage}."
            n = stats.get(key + "count", 0) - stats_before.get(key + "count", 0)
            return round((stats[key + "sum"] - stats_before.get(key + "sum", 0)) / n / 1000, 2) if n else ""
        return {
            "topology": self.name, "offered_per_s": rate, "flood_per_s": flood_rate or 0, "flows": len(sent),
            "set_up": done,
            "setups_per_s": round(done / max(last - start, SECONDS / 2), 1) if done else 0,
            "p50_ms": round(statistics.median(delays), 2) if delays else "",
            "p99_ms": p99(delays),
            # the first packets whose way through the fabric overlapped a pause, and the others' p99
            "met_gc_pause": sum(met), "p99_without_gc_ms": p99(clear),
            "flood_set_up": len([f for f in flood_sent if f in arrived]),
            # packets the controller refused (subscriber's queue full: ICMPv6 address unreachable)
            "refused": stats.get("setups.queueFull", 0) - stats_before.get("setups.queueFull", 0),
            **{f"{stage}_mean_ms": mean_ms(stage) for stage in STAGES},
            **{f"{stage}_p99_ms": p99_ms(buckets_before.get(stage, {}), buckets.get(stage, {})) for stage in STAGES},
            # the collections' stop-the-world pauses from the first packet sent to the last one back:
            # a first packet that meets one waits it out
            **gc_columns("controller", controller_pauses), **gc_columns("switch", switch_pauses),
        }


def p99(sorted_ms):
    return round(sorted_ms[min(len(sorted_ms) - 1, int(len(sorted_ms) * 0.99))], 2) if sorted_ms else ""


def gc_columns(who, pauses):
    """How many pauses, their median and longest, and their sum (ms; the switches' all together)."""
    pauses = sorted(end - start for start, end in pauses)
    return {f"{who}_gc_pauses": len(pauses),
            f"{who}_gc_pause_p50_ms": round(pauses[len(pauses) // 2], 1) if pauses else "",
            f"{who}_gc_pause_max_ms": round(pauses[-1], 1) if pauses else "",
            f"{who}_gc_paused_ms": round(sum(pauses), 1)}


def stage_buckets(metrics):
    """{stage: {upper bound in seconds: cumulative count}} of the controller's setup latency histogram."""
    out = {}
    for family in text_string_to_metric_families(metrics):
        if family.name == LATENCY_FAMILY:
            for sample in family.samples:
                if sample.name.endswith("_bucket"):
                    out.setdefault(sample.labels["stage"], {})[float(sample.labels["le"])] = sample.value
    return out


def p99_ms(before, after):
    """The 99th percentile of what was recorded between two readings of a stage's histogram: the upper
    bound of its bucket, in ms ("" when nothing was)."""
    counts = [(le, n - before.get(le, 0)) for le, n in sorted(after.items())]
    if not counts or not counts[-1][1]:
        return ""
    return next(round(le * 1000, 2) for le, n in counts if n >= 0.99 * counts[-1][1])


def disk_fsync(directory, writes=500):
    """How long the disk under the controller's state takes to make 8 KiB durable (write, fsync),
    as its commit of each batch does: the bound on the `durable` stage's tail."""
    path = directory / "fsync-probe"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    took = []
    try:
        for _ in range(writes):
            os.write(fd, bytes(8192))
            t = time.perf_counter()
            os.fsync(fd)
            took.append((time.perf_counter() - t) * 1000)
    finally:
        os.close(fd)
        path.unlink()
    took.sort()
    return (f"the state directory's disk makes 8 KiB durable (write, fsync) in p50 {took[writes // 2]:.2f}, "
            f"p99 {took[int(writes * 0.99)]:.2f}, max {took[-1]:.2f} ms ({writes} writes, before the run)")


def ms(v):
    return "-" if v == "" else f"{v:.1f} ms" if v < 1000 else f"{v / 1000:.2f} s"


def summary(row):
    text = (f"{row['set_up']}/{row['flows']} set up, {row['setups_per_s']}/s, "
            f"p50 {ms(row['p50_ms'])}, p99 {ms(row['p99_ms'])}; {row['met_gc_pause']} met a GC pause, "
            f"p99 of the others {ms(row['p99_without_gc_ms'])}")
    if row["flood_per_s"]:
        text += f"; flooder's set up: {row['flood_set_up']}"
    if row["refused"]:
        text += f"; refused (queue full): {row['refused']}"
    if row["total_mean_ms"] != "":
        text += "; controller means: " + ", ".join(f"{s} {ms(row[f'{s}_mean_ms'])}" for s in STAGES)
        text += "; p99 at most: " + ", ".join(f"{s} {ms(row[f'{s}_p99_ms'])}" for s in STAGES)
    return text + "; GC pauses: " + ", ".join(gc_summary(row, who) for who in ("controller", "switch"))


def gc_summary(row, who):
    n = row[f"{who}_gc_pauses"]
    if not n:
        return f"{who} 0"
    return (f"{who} {n} (p50 {row[f'{who}_gc_pause_p50_ms']}, max {row[f'{who}_gc_pause_max_ms']}, "
            f"{row[f'{who}_gc_paused_ms']} ms in all)")


def main():
    for name in TOPOLOGIES:
        topology(name)   # unknown names fail before anything starts
    netns.enter_private_namespace()
    run_dir = pathlib.Path(tempfile.mkdtemp(prefix="nat64fabric-setup-bench-"))
    rows, started, ok = [], time.monotonic(), False

    profiles = []

    def run(fabric, what, rate, **kw):
        print(f"setup bench [{fabric.name}] {what}: {rate} flows/s for {SECONDS:g} s ...", end=" ", flush=True)
        t = time.monotonic()
        row = fabric.level(rate, **kw)
        profiles.extend(fabric.profile)
        print(f"{summary(row)}  [{time.monotonic() - t:.0f} s]", flush=True)
        return row

    try:
        print(f"setup bench: copying the jars and the P4 build to {run_dir} ...", flush=True)
        jars, p4, copied = snapshot(run_dir / "snapshot")
        compile_loadgen(run_dir)
        JarSwitch.jar, JarController.jar, JarController.p4 = jars["softswitch"], jars["controller"], p4
        JarSwitch.flags = launcher_flags("softswitch") + shlex.split(os.environ.get("NAT64FABRIC_BENCH_SWITCH_JVM", ""))
        JarController.flags = (launcher_flags("nat64fabric-controller")
                               + shlex.split(os.environ.get("NAT64FABRIC_BENCH_CONTROLLER_JVM", "")))
        print(f"setup bench: running {shutil.which('java')} -jar on copies of:")
        for src, mtime_ns, size in copied:
            if src in JARS.values() or src.name.endswith("-SNAPSHOT.jar") or src.parent == P4BUILD:
                stamp = datetime.datetime.fromtimestamp(mtime_ns / 1e9).strftime("%Y-%m-%d %H:%M:%S")
                print(f"    {src.relative_to(ROOT)}  (modified {stamp}, {size} bytes)")
        print(f"setup bench: JVM flags (as bin/softswitch and bin/nat64fabric-controller): "
              f"softswitch {' '.join(JarSwitch.flags) or 'none'}; controller {' '.join(JarController.flags) or 'none'}")
        if RR:
            print(f"setup bench: both JVMs run under SCHED_RR at priority {RR}, the sender and receiver at {RR + 1}")
        print(f"setup bench: machine: {machine.describe()}")
        print(f"setup bench: {disk_fsync(run_dir)}", flush=True)
        levels = len(RATES) + len(FRACTIONS) + 1
        print(f"setup bench: topologies {', '.join(TOPOLOGIES)}; per topology {levels} levels of {SECONDS:g} s "
              f"(ramp {', '.join(map(str, RATES))}/s; {', '.join(f'{f:.0%}' for f in FRACTIONS)} of saturation; "
              f"flood), {UNPOLICED} the flood rows only", flush=True)
        for name in TOPOLOGIES:
            pairs = topology(name)[2]
            try:
                for a, b in pairs:
                    netns.delete_link(a)
                    netns.add_veth_pair(a, b)
                with Fabric(name, run_dir / name) as fabric:
                    steps = ", ".join(f"{s} s at {r}/s" for s, r in WARMUP)
                    print(f"setup bench [{name}] warm-up: new flows, {steps} "
                          "(the JVMs compile the setup path) ...", end=" ", flush=True)
                    t = time.monotonic()
                    fabric.warm_up()
                    print(f"done [{time.monotonic() - t:.0f} s]", flush=True)
                    polite = max(10, min(RATES))
                    if name == UNPOLICED:
                        for flood in FLOODS_UNPOLICED:
                            rows.append(dict(run(fabric, f"flood ({flood}/s from one host, unpoliced; the row: the "
                                                 "99 others)", polite, flood_rate=flood),
                                             fraction_of_saturation="", saturation_per_s=""))
                        continue
                    ramp = []
                    for i, rate in enumerate(RATES, start=1):
                        ramp.append(dict(run(fabric, f"ramp {i}/{len(RATES)}", rate), fraction_of_saturation="",
                                         saturation_per_s=""))
                    rows += ramp
                    saturation = max(r["setups_per_s"] for r in ramp)
                    all_done = all(r["set_up"] == r["flows"] for r in ramp)
                    print(f"setup bench [{name}] saturation: {saturation:g} setups/s"
                          + (" (every ramp level was set up in full: a lower bound)" if all_done else ""), flush=True)
                    for f in FRACTIONS:
                        rate = max(1, round(saturation * f))
                        rows.append(dict(run(fabric, f"{f:.0%} of saturation", rate), fraction_of_saturation=f,
                                         saturation_per_s=saturation))
                    flood = max(RATES)
                    rows.append(dict(run(fabric, f"flood ({flood}/s from one host, the row: the 99 others)", polite,
                                         flood_rate=flood), fraction_of_saturation="", saturation_per_s=""))
            finally:
                for a, _ in pairs:
                    netns.delete_link(a)
        ok = True
    finally:
        if ok:
            shutil.rmtree(run_dir, ignore_errors=True)
        else:
            shutil.rmtree(run_dir / "snapshot", ignore_errors=True)
            print(f"\nsetup bench: stopped; the levels' logs and state are in {run_dir}", flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    with open(OUT / "profile.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["topology", "offered_per_s", "flood_per_s", "process", "threads",
                                          "cpu_percent_of_a_core"])
        w.writeheader()
        w.writerows(profiles)
    if any(not r["flood_per_s"] for r in rows):   # the plot draws the ramps; border-unpoliced alone has none
        subprocess.run([sys.executable, str(HERE / "plot.py"), str(OUT / "results.csv"), str(OUT / "results.svg")],
                       check=True)
    print(f"setup bench: wrote {OUT / 'results.csv'}, results.svg and profile.csv ({(time.monotonic() - started) / 60:.1f} min)")


if __name__ == "__main__":
    main()
