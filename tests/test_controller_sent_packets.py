"""Packets the controller sends through a switch's pipeline (the first packet of a flow, once its
session is set up) get the answers the switch gives any packet, through a softswitch the embedded
controller drives, both pipelines: here a first packet too large for the IPv4 link, whose Packet
Too Big (RFC 7915 5.1, RFC 4443 3.2) must reach the IPv6 host. The switch sends its errors back
out of the port the packet came in by, which for the controller's packet is the CPU port; the
controller routes such an answer on through the pipeline."""
import copy
import os

import pytest
from scapy.layers.inet import UDP
from scapy.layers.inet6 import ICMPv6PacketTooBig, IPerror6, IPv6
from scapy.layers.l2 import Ether

from nat64_setup import POOL6, PROGRAM, SUME_PROGRAM, V4_PORT, V4_SERVER, V6_HOST, V6_PORT, driven_switch, embed
from test_nat64_fragments import FABRIC as FRAGMENTS_FABRIC
from test_nat64_simultaneous_open import from_host, stats

V4_LINK_MTU = 1300
FABRIC = copy.deepcopy(FRAGMENTS_FABRIC)
FABRIC["devices"]["device:border1"]["nat64fabric"]["portMtus"] = {str(V4_PORT): V4_LINK_MTU}
PIPELINES = ["v1model"] if os.environ.get("NAT64FABRIC_FAST_PATH") else ["v1model", "sume"]


@pytest.fixture(scope="module", params=PIPELINES)
def border(request, tmp_path_factory):
    program, links = (PROGRAM, "cs") if request.param == "v1model" else (SUME_PROGRAM, "cu")
    with driven_switch(tmp_path_factory.mktemp("sent"), program, FABRIC, links) as running:
        yield running


def test_a_first_packet_too_large_for_the_ipv4_link_gets_packet_too_big(border):
    api, dataplane, log = border
    first = from_host(UDP(sport=45000, dport=53) / (b"q" * 1400), dst=V4_SERVER)
    dataplane.send(V6_PORT, first)
    answer = dataplane.poll(V6_PORT, timeout=3)
    assert answer is not None and ICMPv6PacketTooBig in Ether(answer), (
        "\n".join(f"{k} {v}" for k, v in stats(api).items() if "Second" not in k and "latency" not in k))
    error = Ether(answer)
    # RFC 7915 5.1: the IPv4 MTU plus the 20 bytes translation takes off, quoting the packet as sent.
    assert (error[IPv6].dst, error[ICMPv6PacketTooBig].mtu) == (V6_HOST, V4_LINK_MTU + 20)
    assert (error[IPerror6].src, error[IPerror6].dst) == (V6_HOST, embed(V4_SERVER, POOL6, 96))
    assert dataplane.poll(V4_PORT, timeout=0.5) is None, "nothing too large left for the IPv4 side"
