"""The demo fabric: two edge (leaf) and two border switches, meshed, as one NAT64.

    h1 (IPv6) --- leaf1 ---+--- border1 --- srv1 198.51.100.10 (IPv4)
                           |       |
    h2 (IPv6) --- leaf2 ---+--- border2 --- srv2 203.0.113.10 (IPv4)
    e1 (IPv6, EAMT) -/

Every leaf reaches both borders. leaf1 sends translated traffic to border1, leaf2 to border2;
each IPv4 server answers through its own border, so a flow from h2 to srv1 leaves through
border2 and its replies come back through border1: every border holds every session. e1 is
mapped one-to-one by an EAM (RFC 7757), so IPv4 servers reach it too.

Fabric (a context manager) starts the switches in Mininet, writes the fabric's configuration
(ONOS netcfg form, docs/netcfg.md), starts the embedded controller and waits until every
switch is programmed; on exit it stops the controller by PID and the network.
"""
import base64
import json
import os
import pathlib
import signal
import subprocess
import tempfile
import time
import urllib.request

from mininet.net import Mininet

from p4switch import P4Host, P4RuntimeSwitch
from switch_process import free_tcp_port

ROOT = pathlib.Path(__file__).resolve().parent.parent
CONTROLLER = ROOT / "bin" / "nat64fabric-controller"
P4BUILD = ROOT / "p4" / "build"

POOL6 = "2001:db8:64::/96"
POOL4 = "192.0.2.0/29"
EAM = ("2001:db8:2::20/128", "198.18.0.20/32")

SWITCHES = {   # name: role, router MAC, own IPv4 and IPv6 address
    "leaf1": ("EDGE", "00:00:00:00:a1:01", "10.255.0.1", "2001:db8:1::1"),
    "leaf2": ("EDGE", "00:00:00:00:a1:02", "10.255.0.2", "2001:db8:2::1"),
    "border1": ("BORDER", "00:00:00:00:b1:01", "198.51.100.1", "2001:db8:ff::1"),
    "border2": ("BORDER", "00:00:00:00:b1:02", "203.0.113.1", "2001:db8:ff::2"),
}
HOSTS = {      # name: switch, port, MAC, address/length, gateway
    "h1": ("leaf1", 1, "00:00:00:00:01:10", "2001:db8:1::10/64", "2001:db8:1::1"),
    "h2": ("leaf2", 1, "00:00:00:00:02:10", "2001:db8:2::10/64", "2001:db8:2::1"),
    "e1": ("leaf2", 2, "00:00:00:00:02:20", "2001:db8:2::20/64", "2001:db8:2::1"),
    "srv1": ("border1", 3, "00:00:00:00:04:01", "198.51.100.10/24", "198.51.100.1"),
    "srv2": ("border2", 3, "00:00:00:00:04:02", "203.0.113.10/24", "203.0.113.1"),
}
TRUNKS = [     # switch, port, switch, port
    ("leaf1", 2, "border1", 1), ("leaf1", 3, "border2", 1),
    ("leaf2", 3, "border1", 2), ("leaf2", 4, "border2", 2),
    ("border1", 4, "border2", 4),
]


def embed(ipv4):
    """An IPv4 address as IPv6 hosts reach it: in pool6 (a /96, RFC 6052)."""
    return POOL6.split("/")[0] + ipv4


def _mac_of(name):
    return SWITCHES[name][1] if name in SWITCHES else HOSTS[name][2]


def _port_to(switch, neighbour):
    for a, pa, b, pb in TRUNKS:
        if (a, b) == (switch, neighbour):
            return pa
        if (b, a) == (switch, neighbour):
            return pb
    raise KeyError((switch, neighbour))


def _via(switch, neighbour, prefix):
    return {"prefix": prefix, "port": _port_to(switch, neighbour), "nextHopMac": _mac_of(neighbour)}


def _host_route(switch, host, prefix):
    return {"prefix": prefix, "port": HOSTS[host][1], "nextHopMac": HOSTS[host][2]}


def routes():
    """Each switch's routes: leaves to their hosts and to one border, borders to everything."""
    return {
        "leaf1": [_host_route("leaf1", "h1", "2001:db8:1::/64"), _via("leaf1", "border1", "2001:db8:2::/64"),
                  _via("leaf1", "border1", POOL6)],
        "leaf2": [_host_route("leaf2", "h2", "2001:db8:2::10/128"), _host_route("leaf2", "e1", "2001:db8:2::20/128"),
                  _via("leaf2", "border2", "2001:db8:1::/64"), _via("leaf2", "border2", POOL6)],
        # e1 lives on the IPv6 side: its EAM's IPv4 address is routed back into the border
        # (hairpin), so IPv6 hosts reach it by that address too (RFC 7757 4.2)
        "border1": [_via("border1", "leaf1", "2001:db8:1::/64"), _via("border1", "leaf2", "2001:db8:2::/64"),
                    _host_route("border1", "srv1", "198.51.100.0/24"), _via("border1", "border2", "203.0.113.0/24"),
                    {"prefix": EAM[1], "action": "hairpin"}],
        "border2": [_via("border2", "leaf1", "2001:db8:1::/64"), _via("border2", "leaf2", "2001:db8:2::/64"),
                    _host_route("border2", "srv2", "203.0.113.0/24"), _via("border2", "border1", "198.51.100.0/24"),
                    {"prefix": EAM[1], "action": "hairpin"}],
    }


def netcfg(grpc_ports, pool4=None):
    """The fabric's configuration in ONOS netcfg form, for the controller (and for ONOS); pool4
    replaces the default pool4 settings (a small pool, for exhaustion tests)."""
    devices = {}
    table = routes()
    for i, (name, (role, mac, v4, v6)) in enumerate(SWITCHES.items(), start=1):
        devices[f"device:{name}"] = {
            "basic": {"managementAddress": f"grpc://127.0.0.1:{grpc_ports[name]}?device_id={i}",
                      "driver": "softswitch", "pipeconf": "org.nat64fabric.softswitch"},
            "nat64fabric": {"role": role, "routerMac": mac, "ipv4": v4, "ipv6": v6, "routes": table[name],
                            "mtu": 1500},   # the veth links' MTU: the pipeline answers PTB / FN above it
        }
    return {
        "apps": {"org.nat64fabric.app": {"nat64": {
            "pool6": POOL6,
            "pool4": pool4 or {"addresses": [POOL4], "blockSize": 128, "blocksPerSubscriber": 8},
            "timeouts": {"udp": 300, "icmp": 60},
            "eamt": [{"ipv6Prefix": EAM[0], "ipv4Prefix": EAM[1]}],
        }}},
        "devices": devices,
        # the trunks between the switches, as ONOS's netcfg gives links: the dashboard shows them
        "links": {f"device:{a}/{pa}-device:{b}/{pb}": {"basic": {"type": "DIRECT", "bidirectional": True}}
                  for a, pa, b, pb in TRUNKS},
    }


class Controller:
    """The embedded controller as a process, stopped by its PID; its state survives a restart."""

    def __init__(self, config_path, state_dir, log_path):
        self.config_path = config_path
        self.state_dir = state_dir
        self.log_path = log_path
        self.rest_port = free_tcp_port()
        self.url = f"http://127.0.0.1:{self.rest_port}/onos/nat64fabric"
        self.proc = None

    def start(self):
        if not CONTROLLER.exists():
            raise RuntimeError("bin/nat64fabric-controller is missing: run `make build` first")
        for f in ("p4info.txt", "device_config.bin"):
            if not (P4BUILD / f).exists():
                raise RuntimeError(f"p4/build/{f} is missing: run `make p4` first")
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen(
            [str(CONTROLLER), "--config", str(self.config_path), "--state", str(self.state_dir),
             "--p4info", str(P4BUILD / "p4info.txt"), "--device-config", str(P4BUILD / "device_config.bin"),
             "--rest-port", str(self.rest_port)], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        return self

    @property
    def credentials(self):
        """The REST credentials file, written by the controller at its first start."""
        return pathlib.Path(self.state_dir) / "rest-credentials"

    def events(self, timeout=5):
        """The NAT event log's text; the controller flushes it every second, so wait for new lines."""
        log = pathlib.Path(self.state_dir) / "nat-events.log"
        size = log.stat().st_size if log.exists() else 0
        deadline = time.time() + timeout
        while time.time() < deadline and (not log.exists() or log.stat().st_size == size):
            time.sleep(0.2)
        return log.read_text() if log.exists() else ""

    def get(self, path):
        return json.loads(self.text(path))

    def text(self, path):
        user = self.credentials.read_text().strip()
        req = urllib.request.Request(self.url + path,
                                     headers={"Authorization": "Basic " + base64.b64encode(user.encode()).decode()})
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.read().decode()

    def wait_programmed(self, timeout=120):
        """Waits until every switch is connected and reconciled."""
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the controller exited ({self.proc.returncode}); see {self.log_path}")
            try:
                last = self.get("/devices")["devices"]
                if last and all(d["connected"] for d in last):
                    return last
            except OSError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"switches not programmed after {timeout} s: {last}; see {self.log_path}")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill(self):
        """A crash: no shutdown hook runs."""
        self.proc.kill()
        self.proc.wait()


class Fabric:
    """The running fabric: Mininet with one switch process per switch, and the controller."""

    def __init__(self, work_dir=None, **config):
        self.work = pathlib.Path(work_dir or tempfile.mkdtemp(prefix="nat64fabric-demo-"))
        self.config = config
        self.net = None
        self.controller = None

    def __enter__(self):
        self.net = Mininet(controller=None, autoSetMacs=False, autoStaticArp=False)
        for i, name in enumerate(SWITCHES, start=1):
            self.net.addSwitch(name, cls=P4RuntimeSwitch, device_id=i, log_dir=str(self.work))
        for name, (sw, port, mac, addr, _) in HOSTS.items():
            ipv4 = "/" in addr and ":" not in addr
            h = self.net.addHost(name, cls=P4Host, ip=addr if ipv4 else None, mac=mac)
            self.net.addLink(h, self.net.get(sw), port2=port)
        for a, pa, b, pb in TRUNKS:
            self.net.addLink(self.net.get(a), self.net.get(b), port1=pa, port2=pb)
        try:
            self.net.start()
            self._configure_hosts()
            ports = {name: self.net.get(name).grpc_port for name in SWITCHES}
            config_path = self.work / "fabric.json"
            config_path.write_text(json.dumps(netcfg(ports, **self.config), indent=2))
            self.controller = Controller(config_path, self.work / "state", self.work / "controller.log").start()
            self.controller.wait_programmed()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _configure_hosts(self):
        for name, (_, _, _, addr, gateway) in HOSTS.items():
            h = self.net.get(name)
            intf = h.defaultIntf().name
            if ":" in addr:
                h.cmd(f"ip -4 addr flush dev {intf}")
                h.cmd(f"sysctl -q -w net.ipv6.conf.{intf}.accept_ra=0")
                h.cmd(f"ip -6 addr add {addr} dev {intf} nodad")
                h.cmd(f"ip -6 route add default via {gateway} dev {intf}")
            else:
                h.cmd(f"sysctl -q -w net.ipv6.conf.{intf}.disable_ipv6=1")
                h.cmd(f"ip route add default via {gateway} dev {intf}")

    def restart_controller(self, crash=True):
        """Stops the controller (killed, or cleanly) and starts it again on the same state."""
        if crash:
            self.controller.kill()
        else:
            self.controller.stop()
        self.controller = Controller(self.controller.config_path, self.controller.state_dir,
                                     self.controller.log_path).start()
        self.controller.wait_programmed()

    def __exit__(self, *exc):
        if self.controller:
            self.controller.stop()
            self.controller = None
        if self.net:
            self.net.stop()
            self.net = None
        return False

    def host(self, name):
        return self.net.get(name)


def nat64ctl(controller, *args):
    """The command-line client against this controller: its output."""
    env = dict(os.environ, NAT64FABRIC_URL=controller.url, NAT64FABRIC_CREDENTIALS=str(controller.credentials))
    proc = subprocess.run([str(ROOT / "bin" / "nat64ctl"), *args], capture_output=True, text=True, env=env,
                          timeout=30)
    if proc.returncode != 0:
        raise RuntimeError(f"nat64ctl {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout
