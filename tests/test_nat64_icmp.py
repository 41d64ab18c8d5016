"""Conformance of the NAT64 pipeline for ICMP errors: those it translates (RFC 7915 4.2/5.2 with
the quoted packet, RFC 6146 3.7) and those it sends itself (RFC 7915 4.4/5.4, path MTU), plus
hairpinning (RFC 6146 3.8, RFC 7757 4.2) and the well-known prefix (RFC 6052 3.1). Expected
packets, quoted ones included, are built and checksummed by scapy."""
import ipaddress
import zlib

import pytest
from scapy.layers.inet import ICMP, IP, IPOption, TCP, UDP
from scapy.layers.inet6 import (ICMPv6DestUnreach, ICMPv6EchoReply, ICMPv6EchoRequest, ICMPv6PacketTooBig,
                                ICMPv6ParamProblem, ICMPv6TimeExceeded, IPv6, IPv6ExtHdrFragment, IPv6ExtHdrRouting,
                                fragment6)
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from nat64_setup import (DROP_BAD_CHECKSUM, DROP_ICMP_ERROR, DROP_NOT_GLOBAL, DROP_POOL4_NO_BIB, DROP_TTL_EXPIRED, MAPPED, P, POOL6,
                         PUNT_NEEDS_FRAGMENTATION, ROUTER_MAC, SENT_PARAM_PROBLEM, SENT_TIME_EXCEEDED, SENT_TOO_BIG,
                         SENT_UNREACHABLE,
                         SWITCH_V4, SWITCH_V6, T, V4_HOST_MAC, V4_PORT, V4_SERVER, V6_HOST, V6_HOST_MAC, V6_PORT,
                         counts, drops, eam, embed, from_switch4, from_v4_server, from_v6_host, routed, sent,
                         session_v4, session_v6, siit_prefix, to_v4_server, to_v6_host)
from nat64_setup import BOTH, ptf, sume_sut, sut  # noqa: F401  (pytest fixtures, found by name)

V4_ROUTER = "198.51.100.1"       # an IPv4 router between the NAT64 and the server
V6_ROUTER = "2001:db8:1::fe"     # an IPv6 router between the NAT64 and the host
SERVER6 = embed(V4_SERVER, POOL6, 96)


def stateful_udp(ptf):
    """The IPv6 host's UDP port 5000 is 192.0.2.10:40000 in both directions (a static BIB entry)."""
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))


def mtu(ptf, port, value):
    ptf.insert(ptf.client.table_entry(P + "egress_mtu", match={"port": port}, action=P + "set_mtu",
                                      params={"mtu": value}))


# ---- ICMPv4 errors translated to ICMPv6 (RFC 7915 4.2, RFC 6146 3.7) ----

@pytest.mark.parametrize("router", [V4_ROUTER, "127.0.0.1", "0.0.0.0", "10.1.2.3", "224.0.0.1", "255.255.255.255"])
@BOTH
def test_time_exceeded_from_an_ipv4_router_reaches_the_ipv6_host_translated(ptf, router):
    """Traceroute through the NAT64: the quoted packet is the one the NAT64 sent, so the error finds
    its session; the router's address is written into pool6. Also an "illegal" one, RFC 7915 4.1:
    "when translating ICMPv4 Error Messages into ICMPv6, the 'illegal' source address will be
    translated for the purpose of trouble shooting" (Jool's graybox "ha"): loopback, unspecified,
    private, multicast and broadcast sources go into the network-specific pool6, not dropped."""
    stateful_udp(ptf)
    quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=33434) / b"probe"
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11, code=0) / quoted4, src=router))
    quoted6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434) / b"probe"
    ptf.verify_packet(to_v6_host(ICMPv6TimeExceeded(code=0) / quoted6, src=embed(router, POOL6, 96)), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_time_exceeded_from_an_ipv4_router_with_an_eam_comes_from_its_eam_address(ptf):
    """RFC 7757 3.2 with RFC 7915 4.1: every address translated is looked up in the EAMT before
    pool6, an error's router's too (as the other way, below)."""
    stateful_udp(ptf)
    ptf.insert(*eam(ptf, "2001:db8:aaaa::1", "198.51.100.1"))
    quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=33434) / b"probe"
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11, code=0) / quoted4, src="198.51.100.1"))
    quoted6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434) / b"probe"
    ptf.verify_packet(to_v6_host(ICMPv6TimeExceeded(code=0) / quoted6, src="2001:db8:aaaa::1"), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_port_unreachable_quoting_a_whole_tcp_header_has_every_checksum_right(ptf):
    ptf.insert(session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000))
    quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=60, id=0) / TCP(sport=41000, dport=80, flags="S", seq=7)
    ptf.send(V4_PORT, from_v4_server(ICMP(type=3, code=3) / quoted4))
    quoted6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=60) / TCP(sport=33000, dport=80, flags="S", seq=7)
    ptf.verify_packet(to_v6_host(ICMPv6DestUnreach(code=4) / quoted6), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_error_about_an_echo_request_maps_the_identifier_back(ptf):
    ptf.insert(session_v4(ptf, 1, MAPPED, 0x4321, V6_HOST, 0x1234))
    quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / ICMP(type=8, id=0x4321, seq=3) / b"abc"
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11, code=0) / quoted4, src=V4_ROUTER))
    quoted6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / ICMPv6EchoRequest(id=0x1234, seq=3, data=b"abc")
    ptf.verify_packet(to_v6_host(ICMPv6TimeExceeded(code=0) / quoted6, src=embed(V4_ROUTER, POOL6, 96)), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_error_about_an_eam_host_uses_the_eamt_for_the_quoted_addresses(ptf):
    """RFC 7757 3: EAMs apply inside ICMP error payloads; no session is involved."""
    ptf.insert(ptf.client.table_entry(T + "eamt_v4_dst", match={"ipv4_addr": ("203.0.113.0", 24)},
                                      action=T + "eam_v4_to_v6_dst",
                                      params={"prefix": "2001:db8:1::e00", "suffix_mask": 0xff}))
    quoted4 = IP(src="203.0.113.66", dst=V4_SERVER, ttl=1, id=0) / UDP(sport=1111, dport=33434) / b"eam"
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11, code=0) / quoted4, src=V4_ROUTER, dst="203.0.113.66"))
    quoted6 = IPv6(src="2001:db8:1::e42", dst=SERVER6, hlim=1) / UDP(sport=1111, dport=33434) / b"eam"
    ptf.verify_packet(to_v6_host(ICMPv6TimeExceeded(code=0) / quoted6, src=embed(V4_ROUTER, POOL6, 96),
                                 dst="2001:db8:1::e42"), V6_PORT)
    ptf.verify_no_other_packets()


@pytest.mark.parametrize("advertised,expected", [(1400, 1420), (0, 1492), (1000, 1280), (1259, 1280), (1260, 1280)],
                         ids=["mtu+20", "plateau", "below-1260", "1259", "1260"])
@BOTH
def test_fragmentation_needed_becomes_packet_too_big(ptf, advertised, expected):
    """RFC 7915 4.2: MTU + 20; a router without RFC 1191 (MTU 0) gets the plateau below the quoted
    packet's length (1500 -> 1492). An IPv4 MTU below 1260 still gives 1280, the IPv6 minimum link
    MTU (RFC 7915 5). The quoted UDP has no checksum, so its cut length is harmless."""
    stateful_udp(ptf)
    quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=63, id=0, flags="DF", len=1500) / UDP(sport=40000, dport=53,
                                                                                    len=1480, chksum=0) / (b"q" * 64)
    ptf.send(V4_PORT, from_v4_server(ICMP(type=3, code=4, nexthopmtu=advertised) / quoted4, src=V4_ROUTER))
    quoted6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=63, plen=1480) / UDP(sport=5000, dport=53, len=1480,
                                                                       chksum=0) / (b"q" * 64)
    ptf.verify_packet(to_v6_host(ICMPv6PacketTooBig(mtu=expected) / quoted6, src=embed(V4_ROUTER, POOL6, 96)), V6_PORT)
    ptf.verify_no_other_packets()


def ingress_mtu(ptf, port, value):
    ptf.insert(ptf.client.table_entry(P + "ingress_mtu", match={"port": port}, action=P + "set_ingress_mtu",
                                      params={"mtu": value}))


@BOTH
def test_fragmentation_needed_is_limited_by_the_ipv4_link_it_came_in_on(ptf):
    """RFC 7915 4.2: minimum(advertised MTU + 20, MTU of the IPv6 next hop, MTU of the IPv4 next
    hop + 20). The IPv4 next hop is the link to the server (port 2, the error's ingress port), MTU
    1300 here: an advertised 1400 gives 1320; 1200 advertised still gives 1280."""
    stateful_udp(ptf)
    ingress_mtu(ptf, V4_PORT, 1300)
    for advertised, expected in ((1400, 1320), (1200, 1280)):
        quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=63, id=0, flags="DF", len=1500) / UDP(
            sport=40000, dport=53, len=1480, chksum=0) / (b"q" * 64)
        ptf.send(V4_PORT, from_v4_server(ICMP(type=3, code=4, nexthopmtu=advertised) / quoted4, src=V4_ROUTER))
        quoted6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=63, plen=1480) / UDP(sport=5000, dport=53, len=1480,
                                                                           chksum=0) / (b"q" * 64)
        ptf.verify_packet(to_v6_host(ICMPv6PacketTooBig(mtu=expected) / quoted6, src=embed(V4_ROUTER, POOL6, 96)),
                          V6_PORT)
    ptf.verify_no_other_packets()


# RFC 7915 4.2: (ICMPv4 type, code) -> (ICMPv6 type, code, pointer), None: dropped.
V4_TO_V6 = [((3, 0), (1, 0, 0)), ((3, 1), (1, 0, 0)), ((3, 2), (4, 1, 6)), ((3, 3), (1, 4, 0)),
            ((3, 5), (1, 0, 0)), ((3, 6), (1, 0, 0)), ((3, 7), (1, 0, 0)), ((3, 8), (1, 0, 0)),
            ((3, 9), (1, 1, 0)), ((3, 10), (1, 1, 0)), ((3, 11), (1, 0, 0)), ((3, 12), (1, 0, 0)),
            ((3, 13), (1, 1, 0)), ((3, 14), None), ((3, 15), (1, 1, 0)), ((4, 0), None), ((5, 1), None),
            ((11, 0), (3, 0, 0)), ((11, 1), (3, 1, 0)), ((12, 1), None)]
# RFC 7915 4.2 Figure 3: IPv4 header offset -> IPv6 header offset, None: dropped.
POINTER_4TO6 = [(0, 0), (1, 1), (2, 4), (3, 4), (4, None), (8, 7), (9, 6), (10, None), (12, 8), (15, 8),
                (16, 24), (19, 24), (20, None)]


@BOTH
def test_icmpv4_error_types_and_codes_follow_rfc7915(ptf):
    stateful_udp(ptf)
    quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=9, id=0) / UDP(sport=40000, dport=53) / b"?"
    quoted6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=9) / UDP(sport=5000, dport=53) / b"?"
    cases = [((t, c), None, want) for (t, c), want in V4_TO_V6]
    cases += [((12, 0), ptr, None if p6 is None else (4, 0, p6)) for ptr, p6 in POINTER_4TO6]
    cases += [((12, 2), 9, (4, 0, 6))]
    before = drops(ptf, DROP_ICMP_ERROR) if counts(ptf) else None
    for (t, c), ptr, want in cases:
        icmp = ICMP(type=t, code=c, ptr=ptr) if ptr is not None else ICMP(type=t, code=c)
        ptf.send(V4_PORT, from_v4_server(icmp / quoted4))
        if want is None:
            continue
        t6, c6, p6 = want
        header = ICMPv6ParamProblem(code=c6, ptr=p6) if t6 == 4 else \
            ICMPv6DestUnreach(code=c6) if t6 == 1 else ICMPv6TimeExceeded(code=c6)
        ptf.verify_packet(to_v6_host(header / quoted6), V6_PORT)
    ptf.verify_no_other_packets()
    # Source quench and redirect are not errors the parser quotes: they count as pool4 without a BIB.
    if counts(ptf):
        assert drops(ptf, DROP_ICMP_ERROR) == before + sum(1 for case in cases if case[2] is None
                                                           and case[0][0] != 4 and case[0][0] != 5)


# ---- ICMPv6 errors translated to ICMPv4 (RFC 7915 5.2) ----

def v6_error_about_inbound(ptf, icmp6, payload=b"data"):
    """An IPv6 router's error about what the IPv4 server sent to 192.0.2.10:40000; the quoted
    packet is the translated one, and so is the expected ICMPv4 error's."""
    quoted6 = IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / UDP(sport=53, dport=5000) / payload
    ptf.send(V6_PORT, from_v6_host(icmp6 / quoted6, src=V6_ROUTER, dst=SERVER6))
    return IP(src=V4_SERVER, dst=MAPPED, ttl=61, id=0, flags="DF" if 28 + len(payload) > 1260 else 0) / \
        UDP(sport=53, dport=40000) / payload


@BOTH
def test_packet_too_big_from_an_ipv6_router_becomes_fragmentation_needed(ptf):
    """RFC 7915 5.2: MTU - 20, from the session's IPv4 address (RFC 6146: the host's mapping)."""
    stateful_udp(ptf)
    quoted4 = v6_error_about_inbound(ptf, ICMPv6PacketTooBig(mtu=1300))
    ptf.verify_packet(to_v4_server(ICMP(type=3, code=4, nexthopmtu=1280) / quoted4), V4_PORT)
    ptf.verify_no_other_packets()


ROUTER_EAM4 = "203.0.113.254"    # the IPv6 router's EAM, where a test gives it one
RFC6791_POOL, RFC6791_SIZE = "203.0.113.248", 8


def rfc6791_address(router6):
    """RFC 6791 pool address for a router, as the pipeline picks it: the pool's first address plus
    the CRC-32 (zlib's) of the router's IPv6 address, modulo the pool size."""
    crc = zlib.crc32(ipaddress.IPv6Address(router6).packed)
    return str(ipaddress.IPv4Address(int(ipaddress.IPv4Address(RFC6791_POOL)) + crc % RFC6791_SIZE))


@BOTH
def test_icmpv6_error_from_an_eam_router_about_an_eam_host_comes_from_the_routers_address(ptf):
    """RFC 7915 5.1 translates the outer source like any source: an IPv6 router with an EAM is seen
    as its EAM address. The quoted packet is the host's, translated by its own EAM."""
    ptf.insert(*eam(ptf, V6_HOST, "203.0.113.5"), *eam(ptf, V6_ROUTER, ROUTER_EAM4))
    quoted6 = IPv6(src=SERVER6, dst=V6_HOST, hlim=1) / UDP(sport=53, dport=7777) / b"to the host"
    ptf.send(V6_PORT, from_v6_host(ICMPv6TimeExceeded(code=0) / quoted6, src=V6_ROUTER, dst=SERVER6))
    quoted4 = IP(src=V4_SERVER, dst="203.0.113.5", ttl=1, id=0) / UDP(sport=53, dport=7777) / b"to the host"
    ptf.verify_packet(to_v4_server(ICMP(type=11, code=0) / quoted4, src=ROUTER_EAM4), V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_icmpv6_error_from_an_eam_router_about_a_session_comes_from_the_routers_address(ptf):
    stateful_udp(ptf)
    ptf.insert(*eam(ptf, V6_ROUTER, ROUTER_EAM4))
    quoted4 = v6_error_about_inbound(ptf, ICMPv6TimeExceeded(code=0))
    ptf.verify_packet(to_v4_server(ICMP(type=11, code=0) / quoted4, src=ROUTER_EAM4), V4_PORT)
    ptf.verify_no_other_packets()


def test_icmpv6_error_from_a_router_without_eam_comes_from_the_rfc6791_pool(ptf):
    """RFC 6791: routers without an IPv4 address of their own are seen as pool addresses, one per
    router (traceroute tells hops apart); without a pool (NoAction), as the host's mapping (previous
    tests; the controller writes the switch's own address then: test_nat64_controller_path.py).
    The host itself, sending an error about its own traffic, stays its mapping either way."""
    stateful_udp(ptf)
    ptf.modify(ptf.client.table_entry(T + "rfc6791_pool", default=True, action=T + "use_rfc6791_pool",
                                      params={"first": RFC6791_POOL, "count": RFC6791_SIZE}))
    routers = ["2001:db8:1::fe", "2001:db8:1::fd", "2001:db8:77::1"]
    for router in routers:
        quoted6 = IPv6(src=SERVER6, dst=V6_HOST, hlim=1) / UDP(sport=53, dport=5000) / b"to the host"
        ptf.send(V6_PORT, from_v6_host(ICMPv6TimeExceeded(code=0) / quoted6, src=router, dst=SERVER6))
        quoted4 = IP(src=V4_SERVER, dst=MAPPED, ttl=1, id=0) / UDP(sport=53, dport=40000) / b"to the host"
        ptf.verify_packet(to_v4_server(ICMP(type=11, code=0) / quoted4, src=rfc6791_address(router)), V4_PORT)
    assert len({rfc6791_address(r) for r in routers}) > 1, "the routers should not all hash to one address"
    quoted6 = IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / UDP(sport=53, dport=5000) / b"port closed"
    ptf.send(V6_PORT, from_v6_host(ICMPv6DestUnreach(code=4) / quoted6, dst=SERVER6))
    quoted4 = IP(src=V4_SERVER, dst=MAPPED, ttl=61, id=0) / UDP(sport=53, dport=40000) / b"port closed"
    ptf.verify_packet(to_v4_server(ICMP(type=3, code=3) / quoted4), V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_icmpv6_error_from_a_router_in_a_siit_prefix_comes_from_its_own_ipv4_address(ptf):
    """RFC 6791 gives its pool to routers whose address is not IPv4-translatable; one numbered in
    a stateless SIIT prefix is (RFC 7915 5.1: its address extracted from pool6), whatever the pool."""
    stateful_udp(ptf)
    ptf.insert(*siit_prefix(ptf, "203.0.113.0", 24))
    ptf.modify(ptf.client.table_entry(T + "rfc6791_pool", default=True, action=T + "use_rfc6791_pool",
                                      params={"first": RFC6791_POOL, "count": RFC6791_SIZE}))
    quoted6 = IPv6(src=SERVER6, dst=V6_HOST, hlim=1) / UDP(sport=53, dport=5000) / b"to the host"
    ptf.send(V6_PORT, from_v6_host(ICMPv6TimeExceeded(code=0) / quoted6, src=embed("203.0.113.1", POOL6, 96),
                                   dst=SERVER6))
    quoted4 = IP(src=V4_SERVER, dst=MAPPED, ttl=1, id=0) / UDP(sport=53, dport=40000) / b"to the host"
    ptf.verify_packet(to_v4_server(ICMP(type=11, code=0) / quoted4, src="203.0.113.1"), V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_packet_too_big_is_limited_by_the_ipv6_link_it_came_in_on(ptf):
    """RFC 7915 5.2: minimum(advertised MTU - 20, MTU of the IPv4 next hop, MTU of the IPv6 next
    hop - 20). The IPv6 next hop is the link to the host (port 1, the error's ingress port)."""
    stateful_udp(ptf)
    ingress_mtu(ptf, V6_PORT, 1400)
    quoted4 = v6_error_about_inbound(ptf, ICMPv6PacketTooBig(mtu=1500))
    ptf.verify_packet(to_v4_server(ICMP(type=3, code=4, nexthopmtu=1380) / quoted4), V4_PORT)
    ptf.verify_no_other_packets()


QUOTED_FRAGMENTS = {   # the inbound datagram in either family, as scapy checksums it; bytes quoted; MF
    "udp-first-fragment": (UDP(sport=53, dport=40000) / (b"f" * 120), UDP(sport=53, dport=5000) / (b"f" * 120), 64, 1),
    "echo-atomic": (ICMP(type=0, id=0x4321, seq=9) / (b"e" * 120),
                    ICMPv6EchoReply(id=0x1234, seq=9, data=b"e" * 120), 128, 0),
}


@BOTH
@pytest.mark.parametrize("kind", list(QUOTED_FRAGMENTS))
def test_icmpv6_error_quoting_a_fragment_header_is_translated(ptf, kind):
    """RFC 7915 5.3: the quoted IPv6 packet is translated as 5.1.1 says: its Fragment header
    leaves, the IPv4 header takes its identification (low 16 bits), offset and MF, DF 0. The
    quoted echo's ICMPv6 pseudo-header counted the length without the Fragment header."""
    stateful_udp(ptf)
    ptf.insert(session_v6(ptf, 1, V6_HOST, 0x1234, MAPPED, 0x4321), session_v4(ptf, 1, MAPPED, 0x4321, V6_HOST, 0x1234))
    l4_4, l4_6, quoted, mf = QUOTED_FRAGMENTS[kind]
    whole4 = bytes(IP(src=V4_SERVER, dst=MAPPED) / l4_4)[20:]
    whole6 = bytes(IPv6(src=SERVER6, dst=V6_HOST) / l4_6)[40:]
    frag6 = IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / IPv6ExtHdrFragment(
        id=0x9abc1234, m=mf, offset=0, nh=l4_6.overload_fields[IPv6]["nh"]) / Raw(whole6[:quoted])
    ptf.send(V6_PORT, from_v6_host(ICMPv6TimeExceeded(code=1) / frag6, dst=SERVER6))
    frag4 = IP(src=V4_SERVER, dst=MAPPED, ttl=61, id=0x1234, flags="MF" if mf else 0, frag=0,
               proto=l4_4.overload_fields[IP]["proto"]) / Raw(whole4[:quoted])
    ptf.verify_packet(to_v4_server(ICMP(type=11, code=1) / frag4), V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_icmpv4_error_quoting_a_fragment_quotes_it_with_a_fragment_header(ptf):
    """RFC 7915 4.3 (the quoted header translated as 4.1 says): an ICMPv4 error about the first
    fragment of a datagram the host sent (MF, offset 0) quotes an IPv6 packet with a Fragment
    header that carries the identification and MF, as the host's own fragment had; the ICMPv6
    checksum counts it."""
    stateful_udp(ptf)
    payload = b"q" * 200
    whole4 = bytes(IP(src=MAPPED, dst=V4_SERVER) / UDP(sport=40000, dport=53) / payload)[20:]
    whole6 = bytes(IPv6(src=V6_HOST, dst=SERVER6) / UDP(sport=5000, dport=53) / payload)[40:]
    quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0x2468, flags="MF", proto=17) / Raw(whole4[:96])
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11, code=0) / quoted4, src=V4_ROUTER))
    quoted6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / IPv6ExtHdrFragment(nh=17, id=0x2468, m=1, offset=0) / \
        Raw(whole6[:96])
    ptf.verify_packet(to_v6_host(ICMPv6TimeExceeded(code=0) / quoted6, src=embed(V4_ROUTER, POOL6, 96)), V6_PORT)
    ptf.verify_no_other_packets()


V6_TO_V4 = [((1, 0), (3, 1)), ((1, 1), (3, 10)), ((1, 2), (3, 1)), ((1, 3), (3, 1)), ((1, 4), (3, 3)),
            ((1, 5), None), ((3, 0), (11, 0)), ((3, 1), (11, 1)), ((4, 1), (3, 2)), ((4, 2), None)]
# RFC 7915 5.2 Figure 6: IPv6 header offset -> IPv4 header offset, None: dropped.
POINTER_6TO4 = [(0, 0), (1, 1), (2, None), (4, 2), (5, 2), (6, 9), (7, 8), (8, 12), (23, 12), (24, 16),
                (39, 16), (40, None)]


@BOTH
def test_icmpv6_error_types_codes_and_pointers_follow_rfc7915(ptf):
    stateful_udp(ptf)
    cases = [(t, c, None, want) for (t, c), want in V6_TO_V4]
    cases += [(4, 0, p6, None if p4 is None else (12, 0, p4)) for p6, p4 in POINTER_6TO4]
    before = drops(ptf, DROP_ICMP_ERROR) if counts(ptf) else None
    for t, c, ptr, want in cases:
        icmp6 = ICMPv6ParamProblem(code=c, ptr=ptr) if t == 4 else \
            ICMPv6DestUnreach(code=c) if t == 1 else ICMPv6TimeExceeded(code=c)
        quoted4 = v6_error_about_inbound(ptf, icmp6)
        if want is None:
            continue
        icmp = ICMP(type=want[0], code=want[1], ptr=want[2]) if len(want) == 3 else ICMP(type=want[0], code=want[1])
        ptf.verify_packet(to_v4_server(icmp / quoted4), V4_PORT)
    ptf.verify_no_other_packets()
    if counts(ptf):
        assert drops(ptf, DROP_ICMP_ERROR) == before + sum(1 for case in cases if case[3] is None)


def icmpv6_error_in_a_fragment(payload, more_fragments=0):
    """The IPv6 host's Port Unreachable about what the IPv4 server sent it, in a Fragment header
    (offset 0; an atomic fragment without M); the ICMPv4 error it becomes, whole."""
    quoted6 = IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / UDP(sport=53, dport=5000) / payload
    sent = Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IPv6(src=V6_HOST, dst=SERVER6, hlim=64) / \
        IPv6ExtHdrFragment(id=0x87654321, m=more_fragments, offset=0) / ICMPv6DestUnreach(code=4) / quoted6
    quoted4 = IP(src=V4_SERVER, dst=MAPPED, ttl=61, id=0, flags="DF" if 28 + len(payload) > 1260 else 0) / \
        UDP(sport=53, dport=40000) / payload
    return sent, to_v4_server(ICMP(type=3, code=3) / quoted4, id=0x4321)


@BOTH
def test_an_icmpv6_error_in_an_atomic_fragment_is_translated_and_in_a_first_fragment_dropped(ptf):
    """RFC 6946 4 and RFC 7915 5.1.1 (Jool's graybox pktgen "6-icmp6err-csumok-nodf-nofrag"): an
    atomic fragment is translated on its own, an ICMPv6 error in one too: ICMPv4 3/3 with the
    Fragment header's identification (low 16 bits) and DF 0, its checksum right (the ICMPv6
    pseudo-header counted no Fragment header). The first of several fragments of an error is
    dropped and counted: its checksum covers the others."""
    stateful_udp(ptf)
    sent, translated = icmpv6_error_in_a_fragment(b"port closed")
    ptf.send(V6_PORT, sent)
    ptf.verify_packet(translated, V4_PORT)
    before = drops(ptf, DROP_ICMP_ERROR) if counts(ptf) else None
    ptf.send(V6_PORT, icmpv6_error_in_a_fragment(b"port closed", more_fragments=1)[0])
    ptf.verify_no_other_packets()
    if counts(ptf):
        assert drops(ptf, DROP_ICMP_ERROR) == before + 1


def test_an_icmpv6_error_in_an_atomic_fragment_is_cut_to_576_bytes_with_its_checksum(ptf):
    """As above, with 1200 bytes quoted (Jool's case): cut to 576 bytes, checksummed over what is left."""
    stateful_udp(ptf)
    sent, whole = icmpv6_error_in_a_fragment(b"c" * 1200)
    ptf.send(V6_PORT, sent)
    cut = bytes(whole[ICMP].payload)[:576 - 28]
    ptf.verify_packet(to_v4_server(ICMP(type=3, code=3) / Raw(cut), id=0x4321), V4_PORT)
    ptf.verify_no_other_packets()


def test_translated_icmpv4_error_is_cut_to_576_bytes_with_its_checksum(ptf):
    """RFC 1812 4.3.2.3: an IPv6 error quoting 1100 bytes of payload leaves as a 576-byte IPv4 one,
    checksummed over what is left."""
    stateful_udp(ptf)
    quoted4 = v6_error_about_inbound(ptf, ICMPv6TimeExceeded(code=0), payload=b"z" * 1100)
    whole = to_v4_server(ICMP(type=11, code=0) / quoted4)
    cut = bytes(whole[ICMP].payload)[:576 - 28]
    ptf.verify_packet(to_v4_server(ICMP(type=11, code=0) / Raw(cut)), V4_PORT)
    ptf.verify_no_other_packets()


def test_translated_icmpv6_error_is_cut_to_1280_bytes_with_its_checksum(ptf):
    """RFC 4443 2.4(c) (Jool's graybox "bb", "bc"): an IPv4 error quoting a 1300-byte datagram
    would be 1368 bytes as ICMPv6; it leaves cut to 1280, checksummed over what is left."""
    stateful_udp(ptf)
    quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=33434) / (b"c" * 1272)
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11, code=0) / quoted4, src=V4_ROUTER))
    quoted6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434) / (b"c" * 1272)
    whole = to_v6_host(ICMPv6TimeExceeded(code=0) / quoted6, src=embed(V4_ROUTER, POOL6, 96))
    cut = bytes(whole[ICMPv6TimeExceeded].payload)[:1280 - 48]
    ptf.verify_packet(to_v6_host(ICMPv6TimeExceeded(code=0) / Raw(cut), src=embed(V4_ROUTER, POOL6, 96)), V6_PORT)
    ptf.verify_no_other_packets()


QUOTED_OPTIONS = {
    "router-alert": b"\x94\x04\x00\x00",                           # RFC 2113, 4 bytes
    "record-route": b"\x07\x0b\x04" + bytes(8) + b"\x00",           # room for two hops, then End
    "forty-bytes": b"\x01" * 39 + b"\x00",                          # the most a header holds
}


@pytest.mark.parametrize("options", sorted(QUOTED_OPTIONS))
@BOTH
def test_an_icmpv4_error_quoting_ipv4_options_is_translated_without_them(ptf, options):
    """RFC 5508 REQ-3b: a NAT must handle an ICMP error whose quoted IPv4 header has options
    (MUST); RFC 7915 4.3 translates the quoted header as 4.1 does any, options ignored. So the
    error finds its session past the options, the quoted IPv6 header's payload length is the IPv4
    total length less the whole IPv4 header, and the message shrinks by the options (every length
    and checksum as scapy computes it), for UDP, a whole TCP header and an echo."""
    insert_the_sessions_errors_quote(ptf)
    opts = IPOption(QUOTED_OPTIONS[options])
    router6 = embed(V4_ROUTER, POOL6, 96)
    cases = [
        (ICMP(type=11) / IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0, options=opts) / UDP(sport=40000, dport=33434)
         / b"probe", ICMPv6TimeExceeded() / IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434)
         / b"probe"),
        (ICMP(type=3, code=3) / IP(src=MAPPED, dst=V4_SERVER, ttl=60, id=0, options=opts) / TCP(
            sport=41000, dport=80, flags="S", seq=7),
         ICMPv6DestUnreach(code=4) / IPv6(src=V6_HOST, dst=SERVER6, hlim=60) / TCP(sport=33000, dport=80, flags="S",
                                                                                  seq=7)),
        (ICMP(type=11) / IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0, options=opts) / ICMP(type=8, id=0x4321, seq=3)
         / b"abc", ICMPv6TimeExceeded() / IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / ICMPv6EchoRequest(
            id=0x1234, seq=3, data=b"abc")),
    ]
    for error4, error6 in cases:
        assert len(bytes(error4[IP])) - len(bytes(error4[IP].payload)) == 20 + len(QUOTED_OPTIONS[options])
        ptf.send(V4_PORT, from_v4_server(error4, src=V4_ROUTER if error4.type == 11 else V4_SERVER))
        ptf.verify_packet(to_v6_host(error6, src=router6 if error4.type == 11 else SERVER6), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_an_icmpv4_error_quoting_options_keeps_its_extension_after_the_datagram(ptf):
    """RFC 4884's length attribute counts the quoted options: a 144-byte original datagram (length
    36) whose header has 12 bytes of options is 152 bytes as IPv6 (length 19, in 64-bit words),
    the extension right after it."""
    stateful_udp(ptf)
    quoted4 = bytes(IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0, options=IPOption(QUOTED_OPTIONS["record-route"]))
                    / UDP(sport=40000, dport=33434) / (b"p" * 104))
    assert len(quoted4) == 144
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11, length=36) / Raw(quoted4 + EXTENSION), src=V4_ROUTER))
    quoted6 = bytes(IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434) / (b"p" * 104))
    ptf.verify_packet(to_v6_host(ICMPv6TimeExceeded(length=19) / Raw(quoted6 + EXTENSION),
                                 src=embed(V4_ROUTER, POOL6, 96)), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_a_routed_icmpv4_error_quoting_options_keeps_them(ptf):
    """An error the switch routes (not translates) leaves with its quote as it came, options and all."""
    quoted = IP(src=V4_SERVER, dst="203.0.113.50", ttl=1, options=IPOption(QUOTED_OPTIONS["router-alert"])) / UDP(
        sport=53, dport=5353) / b"x"
    error = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, ttl=30) / \
        ICMP(type=11, code=0) / quoted
    ptf.send(3, error)
    ptf.verify_packet(routed(error, V4_HOST_MAC), V4_PORT)
    # a quote whose header claims more options than the error holds: not read into, routed as it came
    short = bytearray(bytes(IP(src=V4_SERVER, dst="203.0.113.50", ttl=1) / UDP(sport=53, dport=5353)))
    short[0] = 0x4f
    error = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, ttl=30) / \
        ICMP(type=11, code=0) / Raw(bytes(short))
    ptf.send(3, error)
    ptf.verify_packet(routed(error, V4_HOST_MAC), V4_PORT)
    ptf.verify_no_other_packets()


def with_wrong_checksum(frame, icmp_layer):
    """`frame` with its ICMP checksum one off the right one (as scapy computes it)."""
    built = Ether(bytes(frame))
    wrong = frame.copy()
    field = "chksum" if icmp_layer is ICMP else "cksum"
    setattr(wrong[icmp_layer], field, (getattr(built[icmp_layer], field) + 1) & 0xffff)
    assert Ether(bytes(wrong))[icmp_layer].payload == built[icmp_layer].payload
    return wrong


EXTENSION = b"\x20\x00\xdf\xfd" + b"\x00\x08\x01\x01" + b"\x00\x00\x00\x07"   # RFC 4884: version 2, one object


def icmpv4_errors_to_translate():
    """(sent, expected) for ICMPv4 errors the switch translates, each quoting another way: UDP,
    a whole TCP header, an echo request, and a datagram with an RFC 4884 extension after it."""
    router6 = embed(V4_ROUTER, POOL6, 96)
    udp4 = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=33434) / b"probe"
    udp6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434) / b"probe"
    tcp4 = IP(src=MAPPED, dst=V4_SERVER, ttl=60, id=0) / TCP(sport=41000, dport=80, flags="S", seq=7)
    tcp6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=60) / TCP(sport=33000, dport=80, flags="S", seq=7)
    echo4 = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / ICMP(type=8, id=0x4321, seq=3) / b"abc"
    echo6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / ICMPv6EchoRequest(id=0x1234, seq=3, data=b"abc")
    long4 = bytes(IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=33434) / (b"p" * 104))
    long6 = bytes(IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434) / (b"p" * 104))
    return {
        "udp": (from_v4_server(ICMP(type=11) / udp4, src=V4_ROUTER),
                to_v6_host(ICMPv6TimeExceeded() / udp6, src=router6)),
        "tcp": (from_v4_server(ICMP(type=3, code=3) / tcp4), to_v6_host(ICMPv6DestUnreach(code=4) / tcp6)),
        "echo": (from_v4_server(ICMP(type=11) / echo4, src=V4_ROUTER),
                 to_v6_host(ICMPv6TimeExceeded() / echo6, src=router6)),
        "extension": (from_v4_server(ICMP(type=11, length=33) / Raw(long4 + EXTENSION), src=V4_ROUTER),
                      to_v6_host(ICMPv6TimeExceeded(length=19) / Raw(long6 + EXTENSION), src=router6)),
    }


def insert_the_sessions_errors_quote(ptf):
    stateful_udp(ptf)
    ptf.insert(session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000), session_v4(ptf, 1, MAPPED, 0x4321, V6_HOST, 0x1234))


@pytest.mark.parametrize("kind", ["udp", "tcp", "echo", "extension"])
def test_an_icmpv4_error_with_a_wrong_checksum_is_dropped_not_translated(ptf, kind):
    """RFC 5508 REQ-3: "if the ICMP checksum fails to validate, the NAT SHOULD silently drop the
    ICMP Error packet" (Jool drops it too: its translation recomputes the checksum). The same error
    with its right checksum is translated; one off by one is dropped and counted as a bad checksum,
    whatever the quoted packet is (the switch sums the parts it parses and the rest)."""
    insert_the_sessions_errors_quote(ptf)
    sent, expected = icmpv4_errors_to_translate()[kind]
    ptf.send(V4_PORT, sent)
    ptf.verify_packet(expected, V6_PORT)
    ptf.verify_no_other_packets()
    before = drops(ptf, DROP_BAD_CHECKSUM)
    ptf.send(V4_PORT, with_wrong_checksum(sent, ICMP))
    ptf.verify_no_other_packets()
    assert drops(ptf, DROP_BAD_CHECKSUM) == before + 1


@pytest.mark.parametrize("kind", ["udp", "fragment", "cut"])
def test_an_icmpv6_error_with_a_wrong_checksum_is_dropped_not_translated(ptf, kind):
    """RFC 5508 REQ-3 the other way: the ICMPv6 checksum, pseudo-header included, over a Packet Too
    Big about UDP, a Destination Unreachable quoting a first fragment, and a Time Exceeded long
    enough to be cut to 576 bytes (which the switch sums anew once cut: a wrong one must not leave
    as a right one)."""
    stateful_udp(ptf)
    if kind == "udp":
        error6, quoted6 = ICMPv6PacketTooBig(mtu=1300), IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / UDP(
            sport=53, dport=5000) / b"data"
    elif kind == "fragment":
        error6, quoted6 = ICMPv6DestUnreach(code=4), IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / IPv6ExtHdrFragment(
            id=0x87654321, m=1) / UDP(sport=53, dport=5000, len=2008, chksum=0x1111) / (b"f" * 64)
    else:
        error6, quoted6 = ICMPv6TimeExceeded(), IPv6(src=SERVER6, dst=V6_HOST, hlim=61) / UDP(
            sport=53, dport=5000) / (b"z" * 1100)
    sent = from_v6_host(error6 / quoted6, src=V6_ROUTER, dst=SERVER6)
    ptf.send(V6_PORT, sent)
    assert ptf.dataplane.poll(V4_PORT) is not None, "the error with its right checksum is translated"
    ptf.verify_no_other_packets()
    before = drops(ptf, DROP_BAD_CHECKSUM)
    ptf.send(V6_PORT, with_wrong_checksum(sent, type(error6)))
    ptf.verify_no_other_packets()
    assert drops(ptf, DROP_BAD_CHECKSUM) == before + 1


def test_an_icmp_error_whose_checksum_is_written_as_all_ones_is_translated(ptf):
    """Ones' complement has two zeros: a message whose checksum computes to 0x0000 may carry 0xffff
    (RFC 1624 3, as an incremental update writes it). It is right, and translated."""
    stateful_udp(ptf)

    def error(fill):
        quoted = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=33434, chksum=0) / (b"probe!" + fill)
        return ICMP(type=11) / quoted
    computed = Ether(bytes(from_v4_server(error(b"\x00\x00"), src=V4_ROUTER)))[ICMP].chksum
    fill = computed.to_bytes(2, "big")     # the word that brings the sum to 0xffff: the checksum to 0
    sent = from_v4_server(error(fill), src=V4_ROUTER)
    assert Ether(bytes(sent))[ICMP].chksum == 0
    sent[ICMP].chksum = 0xffff
    ptf.send(V4_PORT, sent)
    quoted6 = IPv6(src=V6_HOST, dst=SERVER6, hlim=1) / UDP(sport=5000, dport=33434, chksum=0) / (b"probe!" + fill)
    ptf.verify_packet(to_v6_host(ICMPv6TimeExceeded() / quoted6, src=embed(V4_ROUTER, POOL6, 96)), V6_PORT)
    ptf.verify_no_other_packets()


def test_a_routed_icmp_error_with_a_wrong_checksum_is_routed_as_it_came(ptf):
    """Only a translator drops an error for its ICMP checksum (RFC 5508 REQ-3): one the switch routes
    (to an address it does not translate) goes on unchanged but for TTL and MACs, as a router
    forwards it (RFC 1812 5.2.2: a router does not verify what it forwards). A wrong IPv4 header
    checksum drops it, as any packet."""
    quoted = IP(src=V4_SERVER, dst="203.0.113.50", ttl=1) / UDP(sport=53, dport=5353) / b"x"
    error = with_wrong_checksum(Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, ttl=30)
                                / ICMP(type=11, code=0) / quoted, ICMP)
    ptf.send(3, error)
    ptf.verify_packet(routed(error, V4_HOST_MAC), V4_PORT)
    ptf.verify_no_other_packets()
    before = drops(ptf, DROP_BAD_CHECKSUM)
    bad_header = error.copy()
    bad_header[IP].chksum = 0x1234
    ptf.send(3, bad_header)
    ptf.verify_no_other_packets()
    assert drops(ptf, DROP_BAD_CHECKSUM) == before + 1


@BOTH
def test_errors_about_other_flows_or_about_errors_are_dropped(ptf):
    """No session for the quoted packet (RFC 6146 3.5.1); the quoted source is not the error's
    destination; an expiring error gets no error of its own."""
    stateful_udp(ptf)
    before, before_bib = (drops(ptf, DROP_ICMP_ERROR), drops(ptf, DROP_POOL4_NO_BIB)) if counts(ptf) else (0, 0)
    no_session = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40001, dport=53)
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11) / no_session, src=V4_ROUTER))
    not_ours = IP(src="192.0.2.11", dst=V4_SERVER, ttl=1) / UDP(sport=40000, dport=53)
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11) / not_ours, src=V4_ROUTER))
    ptf.verify_no_other_packets()
    if counts(ptf):
        assert (drops(ptf, DROP_ICMP_ERROR), drops(ptf, DROP_POOL4_NO_BIB)) == (before + 1, before_bib + 1)
    expired_before = drops(ptf, DROP_TTL_EXPIRED) if counts(ptf) else None
    ours = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=53)
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11) / ours, src=V4_ROUTER, ttl=1))
    ptf.verify_no_other_packets()
    if counts(ptf):
        assert drops(ptf, DROP_TTL_EXPIRED) == expired_before + 1


# ---- errors the switch sends (RFC 7915 4.4/5.4, 5.1, path MTU) ----

def test_untranslatable_packets_get_unreachable_in_their_own_family(ptf):
    """IPv6 with no transport to map and no EAM: ICMPv6 1/1. IPv4 to an EAM address with no pool6
    to write the source into: ICMPv4 3/13."""
    before = sent(ptf, SENT_UNREACHABLE)
    gre = from_v6_host(Raw(b"\x00\x00\x08\x00" + b"g" * 12))
    gre[IPv6].nh = 47
    ptf.send(V6_PORT, gre)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
                      ICMPv6DestUnreach(code=1) / bytes(gre[IPv6]), V6_PORT)
    ptf.insert(ptf.client.table_entry(T + "eamt_v4_dst", match={"ipv4_addr": ("203.0.113.66", 32)},
                                      action=T + "eam_v4_to_v6_dst", params={"prefix": V6_HOST, "suffix_mask": 0}))
    ptf.modify(ptf.client.table_entry(T + "pool6_embed", default=True, action="NoAction"))
    udp = from_v4_server(UDP(sport=7, dport=7) / b"eam", dst="203.0.113.66")
    ptf.send(V4_PORT, udp)
    ptf.verify_packet(from_switch4(ICMP(type=3, code=13) / bytes(udp[IP])), V4_PORT)
    ptf.verify_no_other_packets()
    assert sent(ptf, SENT_UNREACHABLE) == before + 2


def test_errors_about_ipv4_with_options_quote_the_options(ptf):
    """RFC 792 / RFC 1812 4.3.2.3: an ICMPv4 error quotes the packet's IP header, options included
    (the error's own header has none): Time Exceeded about a routed packet and about one to
    translate, Fragmentation Needed about one too large for the IPv6 link (1300 bytes), each with
    options."""
    from scapy.layers.inet import IPOption_RR, IPOption_NOP
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    mtu(ptf, V6_PORT, 1300)
    before = (sent(ptf, SENT_TIME_EXCEEDED), sent(ptf, SENT_TOO_BIG))
    routed = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, ttl=1,
                                                         options=[IPOption_RR(routers=["0.0.0.0"])]) / UDP(sport=9, dport=7)
    expiring = from_v4_server(UDP(sport=53, dport=40000) / b"expiring", ttl=1, options=[IPOption_NOP()] * 4)
    big = from_v4_server(UDP(sport=53, dport=40000) / (b"d" * 1300), flags="DF", options=[IPOption_NOP()] * 8)
    for port, packet, error, to in ((3, routed, ICMP(type=11, code=0), "203.0.113.9"),
                                    (V4_PORT, expiring, ICMP(type=11, code=0), V4_SERVER),
                                    # the IPv6 MTU less 20: the options translation drops do not
                                    # raise it (the host's packets without options must fit too)
                                    (V4_PORT, big, ICMP(type=3, code=4, nexthopmtu=1280), V4_SERVER)):
        assert bytes(packet[IP])[0] & 0x0f > 5
        ptf.send(port, packet)
        ptf.verify_packet(from_switch4(error / bytes(packet[IP])[:576 - 28], dst=to), port)
    ptf.verify_no_other_packets()
    assert (sent(ptf, SENT_TIME_EXCEEDED), sent(ptf, SENT_TOO_BIG)) == (before[0] + 2, before[1] + 1)


@BOTH
def test_ipv4_with_options_and_a_wrong_header_checksum_is_dropped(ptf):
    """RFC 1812 5.2.2: a router verifies the header checksum, options included: a packet whose sum
    is wrong is neither translated, routed nor answered; counted as drop reason 1 (v1model)."""
    from scapy.layers.inet import IPOption_NOP
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    good = from_v4_server(UDP(sport=53, dport=40000) / b"options", options=[IPOption_NOP()] * 4)
    routed = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, options=[IPOption_NOP()] * 4) / \
        UDP(sport=9, dport=7)
    expiring = from_v4_server(UDP(sport=53, dport=40000) / b"x", ttl=1, options=[IPOption_NOP()] * 4)
    before = drops(ptf, DROP_BAD_CHECKSUM) if counts(ptf) else None
    for port, packet in ((V4_PORT, good), (3, routed), (V4_PORT, expiring)):
        wrong = bytearray(bytes(packet))
        wrong[14 + 21] = 0x44    # an option byte changed, the header checksum left as it was
        ptf.send(port, bytes(wrong))
    ptf.verify_no_other_packets()
    if counts(ptf):
        assert drops(ptf, DROP_BAD_CHECKSUM) == before + 3
    ptf.send(V4_PORT, good)
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / b"options"), V6_PORT)
    ptf.verify_no_other_packets()


def test_routing_header_with_segments_left_gets_parameter_problem(ptf):
    """RFC 7915 5.1: the pointer is Segments Left, 43 bytes into the packet."""
    before = sent(ptf, SENT_PARAM_PROBLEM)
    pkt = from_v6_host(IPv6ExtHdrRouting(addresses=["2001:db8::99"], segleft=1) / UDP(sport=5000, dport=53))
    ptf.send(V6_PORT, pkt)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
                      ICMPv6ParamProblem(code=0, ptr=43) / bytes(pkt[IPv6]), V6_PORT)
    ptf.verify_no_other_packets()
    assert sent(ptf, SENT_PARAM_PROBLEM) == before + 1


def test_error_the_switch_sends_quotes_at_most_1280_bytes(ptf):
    big = from_v6_host(UDP(sport=5000, dport=53) / (b"b" * 1400), hlim=1)
    ptf.send(V6_PORT, big)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
                      ICMPv6TimeExceeded(code=0) / bytes(big[IPv6])[:1280 - 48], V6_PORT)
    ptf.verify_no_other_packets()


def test_translated_packet_over_the_ipv4_mtu_gets_packet_too_big(ptf):
    """RFC 7915 5.1: the IPv6 host learns the IPv4 link's MTU plus 20."""
    stateful_udp(ptf)
    mtu(ptf, V4_PORT, 1400)
    before = sent(ptf, SENT_TOO_BIG)
    big = from_v6_host(UDP(sport=5000, dport=53) / (b"m" * 1400))           # 1448 bytes as IPv6, 1428 as IPv4
    ptf.send(V6_PORT, big)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
                      ICMPv6PacketTooBig(mtu=1420) / bytes(big[IPv6])[:1280 - 48], V6_PORT)
    fits = from_v6_host(UDP(sport=5000, dport=53) / (b"m" * 1372))          # exactly 1400 as IPv4
    ptf.send(V6_PORT, fits)
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / (b"m" * 1372), flags="DF"), V4_PORT)
    # Over an IPv4 link below 1260 the MTU + 20 would be under IPv6's minimum: 1280 (RFC 7915 5),
    # for what translates to more than 1260 bytes (at most: fragmented, the test after this one).
    ptf.modify(ptf.client.table_entry(P + "egress_mtu", match={"port": V4_PORT}, action=P + "set_mtu",
                                      params={"mtu": 1000}))
    over = from_v6_host(UDP(sport=5000, dport=53) / (b"o" * 1233))           # 1261 bytes as IPv4
    ptf.send(V6_PORT, over)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
                      ICMPv6PacketTooBig(mtu=1280) / bytes(over[IPv6])[:1280 - 48], V6_PORT)
    ptf.verify_no_other_packets()
    assert sent(ptf, SENT_TOO_BIG) == before + 2


@BOTH
def test_translation_of_at_most_1260_bytes_over_a_smaller_ipv4_link_goes_to_be_fragmented(ptf):
    """RFC 7915 5: Packet Too Big may not go below 1280, so a translation of at most 1260 bytes
    leaves without DF (5.1) and, over an IPv4 link smaller than that (1000 here), is fragmented by
    the NAT64 as an IPv4 router would: translated and routed, it goes to the controller (which
    fragments it to the port's MTU: test_nat64_controller_path.py). Larger ones still get Packet
    Too Big, with 1280: test_translated_packet_over_the_ipv4_mtu_gets_packet_too_big."""
    stateful_udp(ptf)
    mtu(ptf, V4_PORT, 1000)
    small = from_v6_host(UDP(sport=5000, dport=53) / (b"s" * 1232))          # 1280 bytes as IPv6, 1260 as IPv4
    ptf.send(V6_PORT, small)
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["ingress_port"]) == (PUNT_NEEDS_FRAGMENTATION, V6_PORT)
    got = Ether(payload)
    assert (got[IP].len, got[IP].flags, got[IP].frag) == (1260, 0, 0), got.show2(dump=True)
    # Byte for byte as translated and routed, with the identification the switch drew.
    assert payload == bytes(to_v4_server(UDP(sport=40000, dport=53) / (b"s" * 1232), id=got[IP].id))
    ptf.verify_no_other_packets()


def test_ipv6_with_a_fragment_header_over_the_ipv4_mtu_gets_packet_too_big(ptf):
    """RFC 7915 5.1: a packet too large to translate gets Packet Too Big even when it carries a
    Fragment header (here an atomic fragment), quoting the Fragment header. The MTU is the IPv4 one
    plus 20, as for a plain packet (Jool's graybox "cg"): the host applies it to all its packets to
    that destination, and plain ones of the IPv4 MTU plus 28 would not fit."""
    stateful_udp(ptf)
    mtu(ptf, V4_PORT, 1400)
    before = sent(ptf, SENT_TOO_BIG)
    big = from_v6_host(IPv6ExtHdrFragment(id=0x11112222, m=0, offset=0) /
                       UDP(sport=5000, dport=53) / (b"m" * 1373))           # 1429 bytes as IPv4
    ptf.send(V6_PORT, big)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
                      ICMPv6PacketTooBig(mtu=1420) / bytes(big[IPv6])[:1280 - 48], V6_PORT)
    fits = from_v6_host(IPv6ExtHdrFragment(id=0x11112222, m=0, offset=0) /
                        UDP(sport=5000, dport=53) / (b"m" * 1372))          # exactly 1400 as IPv4
    ptf.send(V6_PORT, fits)
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / (b"m" * 1372), id=0x2222), V4_PORT)
    ptf.verify_no_other_packets()
    assert sent(ptf, SENT_TOO_BIG) == before + 1


def test_ipv4_over_the_ipv6_mtu_gets_fragmentation_needed_or_goes_to_the_controller(ptf):
    """With DF: Fragmentation Needed with the IPv6 MTU minus 20, minus 28 for a fragment (DF and MF),
    whose translation adds a Fragment header: at minus 20 the sender's fragments would draw the
    error again (Jool's graybox "cae2" expects minus 20: tests/NAT64-COVERAGE.md, "Where the RFCs
    leave a choice"). Without DF: translated with a Fragment header that keeps the IPv4
    identification (RFC 7915 4.1), routed (hop limit, MACs), and sent to the controller, whose
    fragments leave by the route's port as they are."""
    stateful_udp(ptf)
    mtu(ptf, V6_PORT, 1300)
    df = from_v4_server(UDP(sport=53, dport=40000) / (b"d" * 1300), flags="DF")
    ptf.send(V4_PORT, df)
    ptf.verify_packet(from_switch4(ICMP(type=3, code=4, nexthopmtu=1280) / bytes(df[IP])[:576 - 28]), V4_PORT)
    df_fragment = from_v4_server(UDP(sport=53, dport=40000, len=3000) / (b"d" * 1300), flags="DF+MF", id=0x5150)
    ptf.send(V4_PORT, df_fragment)
    ptf.verify_packet(from_switch4(ICMP(type=3, code=4, nexthopmtu=1272) / bytes(df_fragment[IP])[:576 - 28]),
                      V4_PORT)
    no_df = from_v4_server(UDP(sport=53, dport=40000) / (b"d" * 1300), id=0x5151)
    ptf.send(V4_PORT, no_df)
    payload, md = ptf.client.packet_in()
    translated = to_v6_host(IPv6ExtHdrFragment(id=0x5151, m=0, offset=0) / UDP(sport=53, dport=5000) / (b"d" * 1300))
    assert (md["punt_reason"], md["ingress_port"]) == (PUNT_NEEDS_FRAGMENTATION, V4_PORT)
    assert payload == bytes(translated), Ether(payload).show2(dump=True)
    ptf.verify_no_other_packets()
    for fragment in fragment6(IPv6(bytes(translated[IPv6])), 1280):
        frame = Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / fragment
        ptf.client.packet_out(bytes(frame), egress_port=V6_PORT, to_pipeline=0)
        ptf.verify_packet(frame, V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_ipv4_without_df_is_fragmented_to_the_lowest_ipv6_mtu_even_when_the_link_takes_more(ptf):
    """RFC 7915 4: without DF the translation must fit the lowest IPv6 MTU of the network (1280
    unless configured): 1320 bytes go to the controller although the link takes 1500; with DF the
    packet leaves whole (path MTU discovery is the sender's); with the setting at 1500, whole too."""
    stateful_udp(ptf)
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / (b"e" * 1272), id=7))
    payload, md = ptf.client.packet_in()
    assert md["punt_reason"] == PUNT_NEEDS_FRAGMENTATION and IPv6ExtHdrFragment in Ether(payload)
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / (b"e" * 1272), flags="DF"))
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / (b"e" * 1272)), V6_PORT)
    ptf.modify(ptf.client.table_entry(P + "lowest_ipv6_mtu", default=True, action=P + "set_lowest_ipv6_mtu",
                                      params={"mtu": 1500}))
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / (b"e" * 1272)))
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / (b"e" * 1272)), V6_PORT)
    ptf.verify_no_other_packets()


def test_routed_packets_over_the_mtu_get_packet_too_big_and_fragmentation_needed(ptf):
    mtu(ptf, V6_PORT, 1300)
    mtu(ptf, V4_PORT, 1000)
    six = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IPv6(src="2001:db8:9::1", dst="2001:db8:1::77") / (b"6" * 1300)
    ptf.send(3, six)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V4_HOST_MAC) / IPv6(src=SWITCH_V6, dst="2001:db8:9::1", hlim=64) /
                      ICMPv6PacketTooBig(mtu=1300) / bytes(six[IPv6])[:1280 - 48], 3)
    # RFC 4443 3.2: a fragment, even one after the first, gets Packet Too Big as well.
    frag = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IPv6(src="2001:db8:9::1", dst="2001:db8:1::77") / \
        IPv6ExtHdrFragment(id=5, m=1, offset=200, nh=17) / (b"7" * 1296)
    ptf.send(3, frag)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V4_HOST_MAC) / IPv6(src=SWITCH_V6, dst="2001:db8:9::1", hlim=64) /
                      ICMPv6PacketTooBig(mtu=1300) / bytes(frag[IPv6])[:1280 - 48], 3)
    four = Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, flags="DF") / \
        UDP(sport=1, dport=2) / (b"4" * 1000)
    ptf.send(3, four)
    ptf.verify_packet(from_switch4(ICMP(type=3, code=4, nexthopmtu=1000) / bytes(four[IP])[:576 - 28],
                                   dst="203.0.113.9", mac=V6_HOST_MAC), 3)
    ptf.verify_no_other_packets()


# ---- hairpinning and the well-known prefix ----

def hairpin_route(ptf, prefix, length):
    return ptf.client.table_entry(P + "ipv4_routes", match={"dst_addr": (prefix, length)}, action=P + "hairpin")


def test_eam_hairpinning_between_two_ipv6_hosts(ptf):
    """RFC 7757 4.2 and its Appendix B: host A reaches host B by B's EAM IPv4 address; B sees A's
    IPv4 address written into pool6 (not mapped back by A's EAM), one router hop later."""
    c = ptf.client
    a4, b4, b6 = "203.0.113.5", "203.0.113.66", "2001:db8:1::e42"
    ptf.insert(
        c.table_entry(T + "eamt_v6_src", match={"ipv6_addr": (V6_HOST, 128)},
                      action=T + "eam_v6_to_v4_src", params={"prefix": a4, "suffix_mask": 0}),
        c.table_entry(T + "eamt_v4_src", match={"ipv4_addr": (a4, 32)},
                      action=T + "eam_v4_to_v6_src", params={"prefix": V6_HOST, "suffix_mask": 0}),
        c.table_entry(T + "eamt_v4_dst", match={"ipv4_addr": (b4, 32)},
                      action=T + "eam_v4_to_v6_dst", params={"prefix": b6, "suffix_mask": 0}),
        hairpin_route(ptf, "203.0.113.0", 24))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=1000, dport=2000) / b"hi B", dst=embed(b4, POOL6, 96)))
    ptf.verify_packet(to_v6_host(UDP(sport=1000, dport=2000) / b"hi B", src=embed(a4, POOL6, 96), dst=b6, hlim=63),
                      V6_PORT)
    ptf.verify_no_other_packets()


@pytest.mark.parametrize("proto", [17, 6], ids=["udp", "tcp"])
def test_stateful_hairpinning_through_pool4(ptf, proto):
    """RFC 6146 3.8: A reaches B's static BIB entry; B sees A's pool4 transport address in pool6,
    one router hop later (the two passes through the pipeline are one hop); a TCP segment's
    checksum, updated by both translations, holds (scapy's)."""
    b6, b4 = "2001:db8:1::b", "192.0.2.20"

    def segment(sport, dport):
        if proto == 6:
            return TCP(sport=sport, dport=dport, flags="PA", seq=1000, ack=2000) / b"GET"
        return UDP(sport=sport, dport=dport) / b"GET"
    ptf.insert(session_v6(ptf, proto, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, proto, b4, 8080, b6, 80),
               hairpin_route(ptf, "192.0.2.0", 24))
    ptf.send(V6_PORT, from_v6_host(segment(5000, 8080), dst=embed(b4, POOL6, 96)))
    ptf.verify_packet(to_v6_host(segment(40000, 80), src=embed(MAPPED, POOL6, 96), dst=b6, hlim=63), V6_PORT)
    # Hop limit 2 still reaches B (with 1): the second pass neither decrements nor expires it.
    ptf.send(V6_PORT, from_v6_host(segment(5000, 8080), dst=embed(b4, POOL6, 96), hlim=2))
    ptf.verify_packet(to_v6_host(segment(40000, 80), src=embed(MAPPED, POOL6, 96), dst=b6, hlim=1), V6_PORT)
    ptf.verify_no_other_packets()

    # The same packet sent by the controller through the pipeline (the first packet of the flow,
    # after its session was set up) goes round the same way: its second pass is no packet-out.
    ptf.client.packet_out(bytes(from_v6_host(segment(5000, 8080), dst=embed(b4, POOL6, 96))), to_pipeline=1)
    ptf.verify_packet(to_v6_host(segment(40000, 80), src=embed(MAPPED, POOL6, 96), dst=b6, hlim=63), V6_PORT)
    ptf.verify_no_other_packets()
    assert ptf.client.packet_in(timeout=0.5) is None


def hairpinned_host(ptf):
    """The IPv6 host's UDP port 5000 is MAPPED:40000 both ways, and pool4 routes back in."""
    stateful_udp(ptf)
    ptf.insert(hairpin_route(ptf, "192.0.2.0", 24))


def test_hairpinned_udp_to_a_pool4_port_without_a_mapping_gets_port_unreachable(ptf):
    """RFC 6146 3.5.1 on a hairpin's second pass (3.8): UDP to a pool4 transport address no BIB
    entry maps gets Port Unreachable, which goes to the NAT64's own pool4 address and so round
    once more, translated back: the host gets ICMPv6 1/4 from the switch's IPv4 address in pool6,
    quoting its datagram as it sent it. TCP and echo there are dropped as from IPv4."""
    hairpinned_host(ptf)
    before, before_sent = drops(ptf, DROP_POOL4_NO_BIB), sent(ptf, SENT_UNREACHABLE)
    unmapped6 = embed("192.0.2.20", POOL6, 96)
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=9999) / b"who", dst=unmapped6))
    quoted6 = IPv6(src=V6_HOST, dst=unmapped6, hlim=63) / UDP(sport=5000, dport=9999) / b"who"
    ptf.verify_packet(to_v6_host(ICMPv6DestUnreach(code=4) / quoted6, src=embed(SWITCH_V4, POOL6, 96), hlim=64),
                      V6_PORT)
    ptf.verify_no_other_packets()
    assert sent(ptf, SENT_UNREACHABLE) == before_sent + 1
    assert drops(ptf, DROP_POOL4_NO_BIB) == before, "answered, not dropped"
    ptf.insert(session_v6(ptf, 1, V6_HOST, 77, MAPPED, 40077))
    ptf.send(V6_PORT, from_v6_host(ICMPv6EchoRequest(id=77), dst=unmapped6))
    ptf.verify_no_other_packets()
    assert drops(ptf, DROP_POOL4_NO_BIB) == before + 1


def test_errors_about_a_hairpins_second_pass_reach_the_host_it_came_from(ptf):
    """An error on a hairpin's second pass goes round once more, never out as IPv4 on the IPv6
    host's link, and reaches A from the switch's IPv4 address in pool6, quoting A's packet (RFC
    7915 4.2): B's IPv6 address without a route gives 1/0 (from 3/0); B's link too small for A's
    packet gives Packet Too Big of that link's MTU (Fragmentation Needed of MTU − 20 on the way)."""
    b6, b4 = "2001:db8:99::b", "192.0.2.20"
    hairpinned_host(ptf)
    ptf.insert(session_v4(ptf, 17, b4, 8080, b6, 80), session_v4(ptf, 17, b4, 8081, "2001:db8:1::b", 80))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=8080) / b"GET", dst=embed(b4, POOL6, 96)))
    quoted6 = IPv6(src=V6_HOST, dst=embed(b4, POOL6, 96), hlim=63) / UDP(sport=5000, dport=8080) / b"GET"
    ptf.verify_packet(to_v6_host(ICMPv6DestUnreach(code=0) / quoted6, src=embed(SWITCH_V4, POOL6, 96), hlim=64),
                      V6_PORT)
    ptf.verify_no_other_packets()
    mtu(ptf, V6_PORT, 1300)
    big = UDP(sport=5000, dport=8081) / (b"x" * 1400)
    ptf.send(V6_PORT, from_v6_host(big, dst=embed(b4, POOL6, 96)))
    quoted6 = IPv6(src=V6_HOST, dst=embed(b4, POOL6, 96), hlim=63) / big
    left = 576 - 20 - 8 - 20    # of the datagram, in the ICMPv4 error cut to 576 bytes on the way
    ptf.verify_packet(to_v6_host(ICMPv6PacketTooBig(mtu=1300) / bytes(quoted6)[:40 + left],
                                 src=embed(SWITCH_V4, POOL6, 96), hlim=64), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_well_known_prefix_refuses_non_global_ipv4(ptf):
    """RFC 6052 3.1: under 64:ff9b::/96 private IPv4 is neither a destination nor a source, nor the
    router an ICMPv4 error comes from (MUST drop)."""
    wkp = "64:ff9b::"
    c = ptf.client
    ptf.insert(
        c.table_entry(T + "pool6", match={"dst_addr": (wkp, 96)}, action=T + "extract_96"),
        c.table_entry(T + "pool6", match={"dst_addr": ("64:ff9b::a00:0", 104)}, action=T + "not_global"),
        c.table_entry(T + "pool6_embed", match={"ipv4_addr": ("10.0.0.0", 8)}, action=T + "not_global_source"),
        c.table_entry(T + "non_global_router", match={"ipv4_addr": ("10.0.0.0", 8)}, action=T + "not_global_router"),
        session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    ptf.modify(c.table_entry(T + "pool6_embed", default=True, action=T + "use_pool6",
                             params={"prefix": wkp, "length": 96}))
    before = drops(ptf, DROP_NOT_GLOBAL) if counts(ptf) else None
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53), dst=embed("10.1.2.3", wkp, 96)))
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000), src="10.1.2.3"))
    quoted4 = IP(src=MAPPED, dst=V4_SERVER, ttl=1, id=0) / UDP(sport=40000, dport=53) / b"probe"
    ptf.send(V4_PORT, from_v4_server(ICMP(type=11, code=0) / quoted4, src="10.1.2.3"))
    ptf.verify_no_other_packets()
    if counts(ptf):
        assert drops(ptf, DROP_NOT_GLOBAL) == before + 3
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / b"ok", dst=embed(V4_SERVER, wkp, 96)))
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / b"ok"), V4_PORT)
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / b"ok"))
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / b"ok", src=embed(V4_SERVER, wkp, 96)), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_routed_icmpv4_error_keeps_the_quoted_header_as_it_came(ptf):
    """Routers often quote a header whose checksum no longer matches (TTL already decremented).
    A routed (untranslated) error must reach its destination with its quote and its ICMP checksum
    untouched: only the outer TTL, its checksum and the MACs change."""
    quoted = IP(src=V4_SERVER, dst="203.0.113.50", ttl=1, chksum=0x1234) / UDP(sport=53, dport=5353)
    error = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, ttl=30) / \
        ICMP(type=11, code=0) / quoted
    ptf.send(3, error)
    raw = bytearray(bytes(routed(error, V4_HOST_MAC)))
    assert raw[34 + 8 + 10:34 + 8 + 12] == b"\x12\x34"   # the quote as sent, bad checksum and all
    ptf.verify_packet(bytes(raw), V4_PORT)
    ptf.verify_no_other_packets()
