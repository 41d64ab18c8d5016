"""Differential test against Tayga, Debian's stateless NAT64 (RFC 7915 with one static map, like
an RFC 7757 EAM, and an RFC 6052 /96 prefix): the same packets through Tayga and through
p4/nat64.p4, the translated packets compared field by field. Every difference is either a failure
or listed in KNOWN_DIFFERENCES with the RFC section that decides it and the side that follows it.

Tayga runs in the tests' own network namespace on a TUN device, reached through a veth pair:
the kernel routes each test packet into the TUN and Tayga's translation back out. Skipped, with
the reason, when Tayga is not installed or cannot open a TUN device."""
import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_NOP
from scapy.layers.inet6 import (ICMPv6DestUnreach, ICMPv6EchoReply, ICMPv6EchoRequest, ICMPv6TimeExceeded, IPv6,
                                IPv6ExtHdrFragment, IPv6ExtHdrHopByHop)
from scapy.layers.l2 import Ether

from harness import netns
from harness.dataplane import Dataplane
from nat64_setup import (POOL6, ROUTER_MAC, V4_HOST_MAC, V4_PORT, V4_SERVER, V6_HOST, V6_HOST_MAC, V6_PORT, eam,
                         embed)
from nat64_setup import ptf, sut  # noqa: F401  (pytest fixtures, found by name)

HOST4 = "203.0.113.5"                 # the IPv6 host's IPv4 address: an EAM here, a map in Tayga
SERVER6 = embed(V4_SERVER, POOL6, 96)
ROUTER4 = "198.51.100.1"              # an IPv4 router on the server's side
TAYGA_V4, TAYGA_V6 = "192.0.2.200", "2001:db8:1::200"
KERNEL_HOPS = 2                       # the kernel forwards each packet into Tayga's TUN and back out



def _df_at_most_1260(ours, theirs, flags="flags", length="len"):
    return ours[flags] == 0 and theirs[flags] == 2 and ours[length] <= 1260


# A field may differ only as one of these says: (when it applies to the two packets, why). Each
# names the RFC section that decides and the side that follows it.
KNOWN_DIFFERENCES = {
    "id": (lambda a, b: a["flags"] & 1 == 0 and a["frag"] == 0 and b["id"] == 0,
           "Identification of an IPv6 packet without a Fragment header: RFC 7915 5.1 sets it from a fragment "
           "identification generator (the pipeline draws one at random); Tayga writes 0, as RFC 6145 5.1 did."),
    "flags": (_df_at_most_1260,
              "DF of an unfragmented IPv6 -> IPv4 packet of at most 1260 bytes: RFC 7915 5.1 sets it to 0 (the "
              "pipeline); Tayga sets it always, as RFC 6145 5.1 did before RFC 7915 replaced it."),
    "quoted flags": (lambda a, b: _df_at_most_1260(a, b, "quoted flags", "quoted len"),
                     "the same DF rule for the IPv4 header quoted in a translated ICMPv6 error (RFC 7915 5.3)."),
    "nothing": (lambda case: case == "udp 4to6 checksum 0",
                "IPv4 UDP without a checksum: RFC 7915 4.5 lets a stateless translator compute one (the pipeline's "
                "default, which RFC 6146 3.4 asks of a stateful NAT64) or drop it (Tayga; the pipeline with "
                "udpZeroChecksum \"drop\", tested in test_nat64_pipeline.py)."),
}


class Tayga:
    def __init__(self, dataplane, router_mac):
        self.dataplane = dataplane
        self.router_mac = router_mac

    def translate(self, packet, family):
        """Tayga's translation of `packet` (an IP packet), or None after 2 s."""
        self.dataplane.send(0, Ether(src=V6_HOST_MAC, dst=self.router_mac) / packet)
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            frame = self.dataplane.poll(0, timeout=max(0.0, deadline - time.monotonic()))
            if frame is None:
                return None
            ip = Ether(frame).payload
            if family == 4 and isinstance(ip, IP) or family == 6 and isinstance(ip, IPv6) and not _neighbour_talk(ip):
                return frame
        return None


def _neighbour_talk(ip6):
    """The kernel's own ICMPv6 (neighbour discovery, MLD): not a translation."""
    return ip6.nh == 58 and bytes(ip6.payload)[:1][0] in (133, 134, 135, 136, 143) or ip6.nh == 0


def _run(*cmd):
    return netns.run(*cmd)


def mac_of(link, ns=None):
    """The link's MAC address, from ip (/sys shows the namespace it was mounted in, not this one)."""
    where = ("-n", ns) if ns else ()
    return json.loads(_run("ip", *where, "-j", "link", "show", link))[0]["address"]


@pytest.fixture(scope="module")
def tayga(sut):
    """Tayga on TUN nat64t in a namespace of its own, behind veth tgB (the kernel forwards there);
    the test sends and listens on tgA, in the tests' namespace, where nothing is forwarded."""
    if shutil.which("tayga") is None:
        pytest.skip("tayga is not installed (Debian package tayga; make test installs it)")
    if not os.path.exists("/dev/net/tun"):
        pytest.skip("no /dev/net/tun: Tayga needs a TUN device")
    work = tempfile.mkdtemp(prefix="nat64fabric-tayga-")
    conf = os.path.join(work, "tayga.conf")
    with open(conf, "w") as f:
        f.write(f"tun-device nat64t\nipv4-addr {TAYGA_V4}\nipv6-addr {TAYGA_V6}\nprefix {POOL6}/96\n"
                f"map {HOST4} {V6_HOST}\ndata-dir {work}\n")
    ns = f"nf-tayga-{os.getpid()}"
    netns.delete_link("tgA")
    proc = dataplane = None
    try:
        _run("ip", "netns", "add", ns)
        _run("ip", "link", "add", "tgA", "type", "veth", "peer", "name", "tgB", "netns", ns)
        netns.quiet_interface("tgA")
        inside = ("ip", "netns", "exec", ns)
        _run(*inside, "ethtool", "-K", "tgB", "tx", "off", "rx", "off", "tso", "off", "gso", "off", "gro", "off")
        _run(*inside, "ip", "link", "set", "tgB", "up")
        for knob in ("net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1", "net.ipv4.conf.all.rp_filter=0",
                     "net.ipv4.conf.tgB.rp_filter=0"):
            _run(*inside, "sysctl", "-q", "-w", knob)
        _run(*inside, "ip", "addr", "add", "198.51.100.254/24", "dev", "tgB")
        _run(*inside, "ip", "-6", "addr", "add", "2001:db8:1::fffe/64", "dev", "tgB", "nodad")
        mac_a, mac_b = mac_of("tgA"), mac_of("tgB", ns)
        for address in (V4_SERVER, ROUTER4, V6_HOST):
            _run(*inside, "ip", "neigh", "replace", address, "lladdr", mac_a, "dev", "tgB", "nud", "permanent")
        made = subprocess.run([*inside, "tayga", "--mktun", "-c", conf], capture_output=True, text=True)
        if made.returncode != 0:
            pytest.skip(f"Tayga cannot make its TUN device here: {made.stderr.strip() or made.stdout.strip()}")
        _run(*inside, "ip", "link", "set", "nat64t", "up")
        for prefix in (f"{POOL6}/96", f"{HOST4}/32", f"{TAYGA_V4}/32"):
            _run(*inside, "ip", "route", "add", prefix, "dev", "nat64t")
        proc = subprocess.Popen([*inside, "tayga", "-d", "-c", conf], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        time.sleep(0.5)
        if proc.poll() is not None:
            pytest.skip(f"Tayga exited at start: {proc.stderr.read().decode().strip()}")
        dataplane = Dataplane({0: "tgA"})
        yield Tayga(dataplane, mac_b)
    finally:
        if dataplane:
            dataplane.close()
        if proc:
            proc.terminate()
            proc.wait(timeout=10)
        netns.delete_link("tgA")
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)   # the TUN device goes with it
        shutil.rmtree(work, ignore_errors=True)


def fields(frame):
    """The translated packet as a dict of header fields and payload bytes (checksums included)."""
    ip = Ether(frame).payload
    if isinstance(ip, IP):
        header_ok = ones_sum(bytes(ip)[:ip.ihl * 4]) == 0xffff
        f = {"family": 4, "tos": ip.tos, "len": ip.len, "id": ip.id, "flags": int(ip.flags), "frag": ip.frag,
             "ttl": ip.ttl, "proto": ip.proto, "src": ip.src, "dst": ip.dst, "header checksum valid": header_ok}
        payload = bytearray(bytes(ip.payload))
        if ip.proto == 1 and payload[0] in (3, 11, 12) and len(payload) >= 28:
            # The quoted IPv4 header: its flags and checksum apart, so that the rest is compared as bytes.
            quoted = bytes(payload[8:28])
            f.update({"quoted flags": quoted[6] >> 5, "quoted len": int.from_bytes(quoted[2:4], "big"),
                      "quoted header checksum valid": ones_sum(quoted) == 0xffff})
            payload[14:16] = payload[18:20] = b"\0\0"
        f["payload"] = bytes(payload).hex()
        return f
    return {"family": 6, "tc": ip.tc, "fl": ip.fl, "plen": ip.plen, "nh": ip.nh, "hlim": ip.hlim, "src": ip.src,
            "dst": ip.dst, "payload": bytes(ip.payload).hex()}


def ones_sum(data):
    total = sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return total


def v6(l4, hlim=64, tc=0, src=V6_HOST, dst=SERVER6):
    return IPv6(src=src, dst=dst, hlim=hlim, tc=tc) / l4


def v4(l4, ttl=64, tos=0, src=V4_SERVER, dst=HOST4, **kw):
    return IP(src=src, dst=dst, ttl=ttl, tos=tos, **kw) / l4


# name: (packet, the family it leaves in)
CASES = {
    "udp 6to4": (v6(UDP(sport=1111, dport=53) / b"query"), 4),
    "udp 6to4 traffic class": (v6(UDP(sport=1111, dport=53) / b"query", tc=0xb8), 4),
    "tcp 6to4": (v6(TCP(sport=1111, dport=80, flags="S", seq=7)), 4),
    "echo 6to4": (v6(ICMPv6EchoRequest(id=77, seq=1, data=b"ping")), 4),
    "udp 6to4 1400 bytes": (v6(UDP(sport=1111, dport=53) / (b"x" * 1352)), 4),
    "udp 6to4 first fragment": (v6(IPv6ExtHdrFragment(id=0x12345678, m=1, offset=0) /
                                   UDP(sport=1111, dport=53, len=500) / (b"f" * 64)), 4),
    "udp 4to6": (v4(UDP(sport=53, dport=1111) / b"answer"), 6),
    "udp 4to6 tos": (v4(UDP(sport=53, dport=1111) / b"answer", tos=0x20), 6),
    "tcp 4to6": (v4(TCP(sport=80, dport=1111, flags="SA", seq=9, ack=8)), 6),
    "echo reply 4to6": (v4(ICMP(type=0, id=77, seq=1) / b"pong"), 6),
    "udp 4to6 first fragment": (v4(UDP(sport=53, dport=1111, len=500) / (b"f" * 64), flags="MF", id=0x4242), 6),
    "udp 4to6 checksum 0": (v4(UDP(sport=53, dport=1111, chksum=0) / b"no checksum"), 6),
    "port unreachable 4to6": (v4(ICMP(type=3, code=3) / IP(src=HOST4, dst=V4_SERVER, ttl=63) /
                                 UDP(sport=1111, dport=53) / b"query"), 6),
    "time exceeded 4to6 from a router": (v4(ICMP(type=11, code=0) / IP(src=HOST4, dst=V4_SERVER, ttl=1) /
                                            UDP(sport=1111, dport=53) / b"query", src=ROUTER4), 6),
    "port unreachable 6to4": (v6(ICMPv6DestUnreach(code=4) / IPv6(src=SERVER6, dst=V6_HOST, hlim=63) /
                                 UDP(sport=53, dport=1111) / b"answer"), 4),
    "time exceeded 6to4": (v6(ICMPv6TimeExceeded(code=0) / IPv6(src=SERVER6, dst=V6_HOST, hlim=1) /
                              UDP(sport=53, dport=1111) / b"answer"), 4),
    "echo reply 6to4": (v6(ICMPv6EchoReply(id=78, seq=2, data=b"pong")), 4),
    "udp 6to4 hop-by-hop": (v6(IPv6ExtHdrHopByHop() / UDP(sport=1111, dport=53) / b"query"), 4),
    "udp 6to4 atomic fragment": (v6(IPv6ExtHdrFragment(id=0x1234abcd, m=0, offset=0) /
                                    UDP(sport=1111, dport=53) / b"query"), 4),
    "udp 4to6 ip options": (v4(UDP(sport=53, dport=1111) / b"answer", options=[IPOption_NOP()] * 4), 6),
    "udp 4to6 with DF": (v4(UDP(sport=53, dport=1111) / b"answer", flags="DF"), 6),
    "udp 4to6 later fragment": (v4(b"later fragment bytes", flags=0, frag=8, id=0x4242, proto=17), 6),
}


def pipeline_translation(ptf, packet, family):
    if isinstance(packet, IPv6):
        ptf.send(V6_PORT, Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / packet)
    else:
        ptf.send(V4_PORT, Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / packet)
    return ptf.dataplane.poll(V4_PORT if family == 4 else V6_PORT)


@pytest.mark.parametrize("case", list(CASES))
def test_the_pipeline_translates_as_tayga_does(ptf, tayga, case):
    packet, family = CASES[case]
    ptf.insert(*eam(ptf, V6_HOST, HOST4))
    ours = pipeline_translation(ptf, packet, family)
    theirs = tayga.translate(packet, family)
    ptf.verify_no_other_packets()
    assert ours is not None, f"{case}: the pipeline sent nothing"
    if theirs is None:
        applies, why = KNOWN_DIFFERENCES["nothing"]
        assert applies(case), f"{case}: Tayga sent nothing"
        print(f"{case}: Tayga sent nothing: {why}")
        return
    a, b = fields(ours), fields(theirs)
    b["ttl" if family == 4 else "hlim"] += KERNEL_HOPS
    assert a.keys() == b.keys(), f"{case}: not the same kind of packet: {a} vs {b}"
    differences = {k: (a[k], b[k]) for k in a if a[k] != b[k]}
    unexplained = {k: v for k, v in differences.items()
                   if k not in KNOWN_DIFFERENCES or not KNOWN_DIFFERENCES[k][0](a, b)}
    assert not unexplained, f"{case}: pipeline vs Tayga: {unexplained}"
    for k in differences:
        print(f"{case}: {k} {differences[k]}: {KNOWN_DIFFERENCES[k][1]}")
