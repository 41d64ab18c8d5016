"""An IPv4 SYN the NAT64 would not translate (RFC 6146 3.5.2.2, RFC 5382 REQ-4), through a
softswitch the embedded controller drives, with either pipeline: the switch punts it, the
controller holds it for TCP_INCOMING_SYN (6 s). If the IPv6 host's SYN for that connection comes
meanwhile (a simultaneous open), the held SYN is dropped and the connection opens; otherwise the
remote gets Destination Unreachable, Port Unreachable quoting its SYN, never sooner than 6 s.

Address-dependent filtering is on here, so that a SYN to a mapping that exists can be held too:
a simultaneous open needs a mapping the remote knows before the host's SYN, which only a mapping
the host already uses gives (its new ports are not predictable)."""
import copy
import ipaddress
import os
import time

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP, TCPerror
from scapy.layers.inet6 import ICMPv6DestUnreach, IPerror6, IPv6
from scapy.layers.l2 import Ether

from nat64_setup import (POOL6, PROGRAM, ROUTER_MAC, SUME_PROGRAM, V4_HOST_MAC, V4_PORT, V4_SERVER, V6_HOST,
                         V6_HOST_MAC, V6_PORT, driven_switch, embed)
from test_nat64_fragments import FABRIC as FRAGMENTS_FABRIC

FABRIC = copy.deepcopy(FRAGMENTS_FABRIC)
FABRIC["apps"]["org.nat64fabric.app"]["nat64"]["addressDependentFiltering"] = True
POOL4 = ipaddress.ip_network(FABRIC["apps"]["org.nat64fabric.app"]["nat64"]["pool4"]["addresses"][0])
SWITCH_V4 = FABRIC["devices"]["device:border1"]["nat64fabric"]["ipv4"]
INCOMING_SYN = 6.0      # RFC 6146 4: TCP_INCOMING_SYN, the default
REMOTE = "198.51.100.9"      # not V4_SERVER: the mapping has not sent to it

PIPELINES = ["v1model"] if os.environ.get("NAT64FABRIC_FAST_PATH") else ["v1model", "sume"]


@pytest.fixture(scope="module", params=PIPELINES)
def border(request, tmp_path_factory):
    program, links = (PROGRAM, "so") if request.param == "v1model" else (SUME_PROGRAM, "ss")
    with driven_switch(tmp_path_factory.mktemp("syn"), program, FABRIC, links) as running:
        yield running


def stats(api):
    return api.call("GET", "/stats")[1]


def from_remote(l4, dst, src=REMOTE):
    return Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src=src, dst=dst, ttl=64) / l4


def from_host(l4, dst=REMOTE):
    return Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IPv6(src=V6_HOST, dst=embed(dst, POOL6, 96), hlim=64) / l4


def port_unreachables(dataplane, until):
    """The ICMPv4 Port Unreachables leaving towards the IPv4 side until `until`, with when each came."""
    out = []
    while time.time() < until:
        frame = dataplane.poll(V4_PORT, timeout=max(0.05, until - time.time()))
        if frame is not None and ICMP in Ether(frame) and Ether(frame)[ICMP].type == 3:
            out.append((time.time(), Ether(frame)))
    return out


def test_an_unsolicited_ipv4_syn_is_answered_port_unreachable_after_tcp_incoming_syn(border):
    api, dataplane, log = border
    before = stats(api).get("heldSyns.refused", 0)
    syn = from_remote(TCP(sport=40123, dport=7777, flags="S", seq=99), dst=str(POOL4[5]))
    sent = time.time()
    dataplane.send(V4_PORT, syn)
    dataplane.send(V4_PORT, syn)        # a retransmission waits with the first: one answer
    answers = port_unreachables(dataplane, sent + INCOMING_SYN + 3)
    assert len(answers) == 1, (answers, log.read_text()[-3000:])
    at, error = answers[0]
    assert at - sent >= INCOMING_SYN, f"answered after {at - sent:.2f} s: RFC 5382 REQ-4 asks at least 6 s"
    assert (error[IP].src, error[IP].dst, error[ICMP].code) == (SWITCH_V4, REMOTE, 3)
    quoted = bytes(error[ICMP].payload)
    assert quoted == bytes(syn[IP]), "the SYN is quoted as it came"
    assert stats(api).get("heldSyns.refused", 0) == before + 1


def test_a_simultaneous_open_is_not_refused_and_opens(border):
    api, dataplane, log = border
    # The host already uses a mapping (to V4_SERVER); the remote learnt it and sends its SYN to it.
    mapped = None
    for _ in range(10):
        dataplane.send(V6_PORT, from_host(UDP(sport=33001, dport=53) / b"x", dst=V4_SERVER))
        dataplane.send(V6_PORT, from_host(TCP(sport=33001, dport=53, flags="S", seq=1), dst=V4_SERVER))
        deadline = time.time() + 1
        while mapped is None and time.time() < deadline:
            frame = dataplane.poll(V4_PORT, timeout=0.2)
            if frame is not None and TCP in Ether(frame):
                mapped = Ether(frame)[IP].src, Ether(frame)[TCP].sport
        if mapped:
            break
    assert mapped, log.read_text()[-3000:]
    while dataplane.poll(V4_PORT, timeout=0.3) is not None:
        pass                                     # what the mapping's opening sent more than once
    before = stats(api)
    remote_syn = from_remote(TCP(sport=443, dport=mapped[1], flags="S", seq=500), dst=mapped[0])
    sent = time.time()
    dataplane.send(V4_PORT, remote_syn)          # filtered: the mapping has not sent to REMOTE
    time.sleep(0.5)
    assert dataplane.poll(V6_PORT, timeout=0.2) is None, "held, not translated"
    dataplane.send(V6_PORT, from_host(TCP(sport=33001, dport=443, flags="S", seq=900)))
    out = dataplane.poll(V4_PORT, timeout=3)
    assert out is not None and Ether(out)[IP].dst == REMOTE and Ether(out)[TCP].flags == "S", log.read_text()[-3000:]
    assert (Ether(out)[IP].src, Ether(out)[TCP].sport) == mapped
    assert port_unreachables(dataplane, sent + INCOMING_SYN + 2.5) == [], "RFC 6146 3.5.2.2: the held SYN is dropped"
    after = stats(api)
    assert after.get("heldSyns.opened", 0) == before.get("heldSyns.opened", 0) + 1
    assert after.get("heldSyns.refused", 0) == before.get("heldSyns.refused", 0)
    # The remote's next segment of the open (its SYN again, or its SYN+ACK) now reaches the host.
    dataplane.send(V4_PORT, from_remote(TCP(sport=443, dport=mapped[1], flags="SA", seq=500, ack=901), dst=mapped[0]))
    back = dataplane.poll(V6_PORT, timeout=3)
    assert back is not None and Ether(back)[TCP].flags == "SA" and Ether(back)[TCP].dport == 33001


def test_a_hairpinned_syn_without_a_mapping_is_answered_to_the_ipv6_host(border):
    """RFC 6146 3.8 with 3.5.2.2 (Jool's graybox "pkt-queue66"): an IPv6 host's SYN to a pool4
    address without a mapping goes round the pipeline a second time as IPv4, is held there, and the
    Port Unreachable about it reaches the host translated, as ICMPv6 Port Unreachable (1/4)."""
    api, dataplane, log = border
    target = str(POOL4[7])
    sent = time.time()
    dataplane.send(V6_PORT, from_host(TCP(sport=33002, dport=8888, flags="S", seq=5), dst=target))
    deadline = sent + INCOMING_SYN + 3
    error = None
    while error is None and time.time() < deadline:
        frame = dataplane.poll(V6_PORT, timeout=max(0.05, deadline - time.time()))
        if frame is not None and ICMPv6DestUnreach in Ether(frame):
            error = Ether(frame), time.time()
    assert error is not None, "\n".join(f"{k} {v}" for k, v in stats(api).items() if "Second" not in k and "latency" not in k)
    assert error[1] - sent >= INCOMING_SYN
    quoted = error[0][IPerror6]
    assert (error[0][IPv6].dst, error[0][ICMPv6DestUnreach].code) == (V6_HOST, 4)
    assert (quoted.src, quoted.dst, quoted[TCPerror].sport, quoted[TCPerror].dport) == (
        V6_HOST, embed(target, POOL6, 96), 33002, 8888), "quoting the host's SYN as it sent it"
