"""IPv6 extension headers through the NAT64 pipeline (RFC 7915 5.1, RFC 8200 4): Hop-by-Hop,
Destination Options and Routing headers with no segments left are not translated (IPv4 gets the
transport behind them, with Protocol the last Next Header); a packet that is routed, or that the
switch answers with an ICMPv6 error, keeps them as they came. Expected packets are scapy's."""
import pytest
from scapy.layers.inet import ICMP, UDP
from scapy.layers.inet6 import (ICMPv6DestUnreach, ICMPv6EchoRequest, ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr,
                                ICMPv6NDOptSrcLLAddr, ICMPv6PacketTooBig, ICMPv6ParamProblem,
                                ICMPv6TimeExceeded, IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop,
                                IPv6ExtHdrRouting, PadN)
from scapy.layers.ipsec import AH
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from nat64_setup import (DROP_NOT_TRANSLATABLE, MAPPED, P, ROUTER_MAC, SENT_PARAM_PROBLEM, SENT_TOO_BIG, SENT_UNREACHABLE, SWITCH_V6,
                         V4_HOST_MAC, V4_PORT, V4_SERVER, V6_HOST, V6_HOST_MAC, V6_PORT, POOL6, counts, drops, eam,
                         embed, from_v6_host, routed, sent, session_v4, session_v6, to_v4_server)
from nat64_setup import BOTH, ptf, sume_sut, sut  # noqa: F401  (pytest fixtures, found by name)

HOST_EAM4 = "203.0.113.5"
SERVER6 = embed(V4_SERVER, POOL6, 96)


def hop_by_hop(length=8):
    """A Hop-by-Hop header of `length` bytes (a multiple of 8): PadN fills it."""
    return IPv6ExtHdrHopByHop(options=[PadN(optdata=b"\x00" * (length - 4))])


CHAINS = {
    "hop-by-hop": lambda: IPv6ExtHdrHopByHop(),
    "hop-by-hop-24-bytes": lambda: hop_by_hop(24),
    "destination-options": lambda: IPv6ExtHdrDestOpt(),
    "routing-segments-left-0": lambda: IPv6ExtHdrRouting(addresses=["2001:db8::99"], segleft=0),
    "all-three": lambda: IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt() / IPv6ExtHdrRouting(addresses=[], segleft=0),
}


def stateful_udp(ptf):
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))


def mtu(ptf, port, value):
    ptf.insert(ptf.client.table_entry(P + "egress_mtu", match={"port": port}, action=P + "set_mtu",
                                      params={"mtu": value}))


def error_to_host(icmp6, quoted):
    """An ICMPv6 error the switch sends back to the IPv6 host, quoting `quoted` (an Ether frame)."""
    return Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) / icmp6 / \
        bytes(quoted[IPv6])[:1280 - 48]


@BOTH
@pytest.mark.parametrize("kind", list(CHAINS))
def test_extension_headers_are_not_translated_for_an_eam_source(ptf, kind):
    """RFC 7915 5.1: Protocol is the Next Header of the last extension header; Hop-by-Hop, Destination
    Options and a Routing header with Segments Left 0 leave, and Total Length counts none of them."""
    ptf.insert(*eam(ptf, V6_HOST, HOST_EAM4))
    ptf.send(V6_PORT, from_v6_host(CHAINS[kind]() / UDP(sport=1111, dport=2222) / b"extension headers"))
    ptf.verify_packet(to_v4_server(UDP(sport=1111, dport=2222) / b"extension headers", src=HOST_EAM4), V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
@pytest.mark.parametrize("kind", list(CHAINS))
def test_extension_headers_are_not_translated_through_a_session(ptf, kind):
    """The transport behind the extension headers is the one the session maps (UDP 5000)."""
    stateful_udp(ptf)
    ptf.send(V6_PORT, from_v6_host(CHAINS[kind]() / UDP(sport=5000, dport=53) / b"extension headers"))
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / b"extension headers"), V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_echo_behind_destination_options_gets_a_right_icmpv4_checksum(ptf):
    """The ICMPv6 pseudo-header counted the upper-layer length, without the extension headers (RFC
    8200 8.1): the ICMPv4 checksum, which has no pseudo-header, must come out right all the same."""
    ptf.insert(session_v6(ptf, 1, V6_HOST, 0x1234, MAPPED, 0x4321))
    ptf.send(V6_PORT, from_v6_host(IPv6ExtHdrDestOpt() / ICMPv6EchoRequest(id=0x1234, seq=5, data=b"behind options")))
    ptf.verify_packet(to_v4_server(ICMP(type=8, id=0x4321, seq=5) / b"behind options"), V4_PORT)
    ptf.verify_no_other_packets()


AFTER_FRAGMENT = {   # name: (header, its Next Header number)
    "hop-by-hop": (lambda: IPv6ExtHdrHopByHop(), 0),
    "destination-options": (lambda: IPv6ExtHdrDestOpt(), 60),
    "routing": (lambda: IPv6ExtHdrRouting(addresses=[], segleft=0), 43),
    "authentication": (lambda: AH(nh=17, payloadlen=4, spi=0x1234, seq=1, icv=b"\x00" * 12), 51),
}


@pytest.mark.parametrize("after", list(AFTER_FRAGMENT))
@pytest.mark.parametrize("fragment", ["atomic", "first", "later"])
def test_an_extension_header_after_a_fragment_header_is_refused_not_translated(ptf, fragment, after):
    """RFC 7915 5.1 (Total Length): "If the Next Header field of the Fragment Header is an extension
    header (except ESP, but including the Authentication Header (AH)), then the packet SHOULD be
    dropped and logged"; 5.4: a dropped IPv6 packet SHOULD get Destination Unreachable 1 (Jool's
    graybox cases "ac" expect it). The atomic and first fragments get it, quoted as they came; a
    later fragment, which carries no header to quote, is dropped. Each is counted. (The SUME card
    hands the error to the controller: test_nat64_sume.py.)"""
    stateful_udp(ptf)
    header, number = AFTER_FRAGMENT[after]
    if fragment == "later":
        pkt = from_v6_host(IPv6ExtHdrFragment(id=0x0001abcd, m=0, offset=40, nh=number) / Raw(b"y" * 40))
    else:
        udp = UDP(sport=5000, dport=53, len=200 if fragment == "first" else None, chksum=0x1234)
        pkt = from_v6_host(IPv6ExtHdrFragment(id=0x0001abcd, m=int(fragment == "first"), offset=0) / header() /
                           udp / (b"x" * 32))
    before = (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_NOT_TRANSLATABLE))
    ptf.send(V6_PORT, pkt)
    if fragment != "later":
        ptf.verify_packet(error_to_host(ICMPv6DestUnreach(code=1), pkt), V6_PORT)
    ptf.verify_no_other_packets()
    assert (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_NOT_TRANSLATABLE)) == \
        (before[0] + (fragment != "later"), before[1] + (fragment == "later"))


@pytest.mark.parametrize("kind", ["hop-by-hop", "destination-options", "routing"])
def test_a_header_on_both_sides_of_a_fragment_header_is_refused_for_the_one_after(ptf, kind):
    """Jool's graybox "ac" 4-6: the same extension header before an atomic Fragment header, where it
    is not translated (RFC 7915 5.1), and after it, where it is refused as above: Destination
    Unreachable 1 quoting the packet, counted; nothing translated."""
    stateful_udp(ptf)
    header, _ = AFTER_FRAGMENT[kind]
    pkt = from_v6_host(header() / IPv6ExtHdrFragment(id=0x0001abce, m=0, offset=0) / header() /
                       UDP(sport=5000, dport=53, chksum=0x1234) / (b"x" * 32))
    before = sent(ptf, SENT_UNREACHABLE)
    ptf.send(V6_PORT, pkt)
    ptf.verify_packet(error_to_host(ICMPv6DestUnreach(code=1), pkt), V6_PORT)
    ptf.verify_no_other_packets()
    assert sent(ptf, SENT_UNREACHABLE) == before + 1


def test_no_error_about_what_may_be_an_icmpv6_error_behind_a_fragment_header(ptf):
    """RFC 4443 2.4(e): no error about an ICMPv6 error. Behind the extension header that follows a
    Fragment header the switch looks one header further only: ICMPv6 there (an error or not), or a
    further extension header that may hide it, is dropped and counted without an error."""
    stateful_udp(ptf)
    before = (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_NOT_TRANSLATABLE))
    for behind in (ICMPv6DestUnreach(code=3) / IPv6(src=SERVER6, dst=V6_HOST) / UDP(sport=53, dport=5000),
                   IPv6ExtHdrDestOpt() / UDP(sport=5000, dport=53) / b"deeper"):
        ptf.send(V6_PORT, from_v6_host(IPv6ExtHdrFragment(id=9, m=0, offset=0) / IPv6ExtHdrDestOpt() / behind))
    ptf.verify_no_other_packets()
    assert (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_NOT_TRANSLATABLE)) == (before[0], before[1] + 2)


@BOTH
def test_an_extension_header_before_a_fragment_header_is_not_translated(ptf):
    """RFC 7915 5.1 and 5.1.1: extension headers before the Fragment header leave in translation;
    the fragment keeps its identification's low 16 bits (Jool's graybox case "ab")."""
    stateful_udp(ptf)
    ptf.send(V6_PORT, from_v6_host(IPv6ExtHdrDestOpt() / IPv6ExtHdrFragment(id=0x0001abcd, m=0, offset=0) /
                                   UDP(sport=5000, dport=53) / b"atomic"))
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / b"atomic", id=0xabcd), V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_a_neighbour_solicitation_with_extension_headers_gets_a_plain_advertisement(ptf):
    ns = Ether(src=V6_HOST_MAC, dst="33:33:ff:00:00:01") / IPv6(src=V6_HOST, dst="ff02::1:ff00:1", hlim=255) / \
        IPv6ExtHdrDestOpt() / ICMPv6ND_NS(tgt=SWITCH_V6) / ICMPv6NDOptSrcLLAddr(lladdr=V6_HOST_MAC)
    ptf.send(V6_PORT, ns)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=255) /
                      ICMPv6ND_NA(R=1, S=1, O=1, tgt=SWITCH_V6) / ICMPv6NDOptDstLLAddr(lladdr=ROUTER_MAC), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_routed_ipv6_keeps_its_extension_headers(ptf):
    """Not for translation: routed with the headers as they came, only the hop limit one lower."""
    pkt = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IPv6(src="2001:db8:9::1", dst="2001:db8:1::77", hlim=9) / \
        hop_by_hop(16) / IPv6ExtHdrDestOpt() / IPv6ExtHdrFragment(id=7, m=1) / IPv6ExtHdrDestOpt() / \
        UDP(sport=1, dport=2) / b"routed"
    ptf.send(3, pkt)
    ptf.verify_packet(routed(pkt, V6_HOST_MAC), V6_PORT)
    ptf.verify_no_other_packets()


def test_more_extension_headers_than_the_parser_walks_are_refused_not_mistranslated(ptf):
    """A Hop-by-Hop header longer than the 64 bytes the parser walks: what follows it is not known,
    so the packet is not translated: ICMPv6 Destination Unreachable 1, as for a packet with no
    transport to map. Routed, the same chain passes untouched."""
    ptf.insert(*eam(ptf, V6_HOST, HOST_EAM4))
    before = sent(ptf, SENT_UNREACHABLE)
    pkt = from_v6_host(hop_by_hop(72) / UDP(sport=1111, dport=2222) / b"long chain")
    ptf.send(V6_PORT, pkt)
    ptf.verify_packet(error_to_host(ICMPv6DestUnreach(code=1), pkt), V6_PORT)
    ptf.verify_no_other_packets()
    assert sent(ptf, SENT_UNREACHABLE) == before + 1
    long_chain = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IPv6(src="2001:db8:9::1", dst="2001:db8:1::77", hlim=9) / \
        hop_by_hop(72) / UDP(sport=1, dport=2) / b"long chain"
    ptf.send(3, long_chain)
    ptf.verify_packet(routed(long_chain, V6_HOST_MAC), V6_PORT)
    ptf.verify_no_other_packets()


def test_segments_left_behind_a_hop_by_hop_header_gets_parameter_problem_pointing_at_it(ptf):
    """RFC 7915 5.1: Parameter Problem pointing at Segments Left: 40 + 8 (Hop-by-Hop) + 3 = 51.
    The error quotes the packet with both headers."""
    before = sent(ptf, SENT_PARAM_PROBLEM)
    pkt = from_v6_host(IPv6ExtHdrHopByHop() / IPv6ExtHdrRouting(addresses=["2001:db8::99"], segleft=1) /
                       UDP(sport=5000, dport=53))
    ptf.send(V6_PORT, pkt)
    ptf.verify_packet(error_to_host(ICMPv6ParamProblem(code=0, ptr=51), pkt), V6_PORT)
    ptf.verify_no_other_packets()
    assert sent(ptf, SENT_PARAM_PROBLEM) == before + 1


def test_time_exceeded_quotes_the_extension_headers(ptf):
    stateful_udp(ptf)
    pkt = from_v6_host(hop_by_hop(16) / IPv6ExtHdrDestOpt() / UDP(sport=5000, dport=53) / b"expiring", hlim=1)
    ptf.send(V6_PORT, pkt)
    ptf.verify_packet(error_to_host(ICMPv6TimeExceeded(code=0), pkt), V6_PORT)
    ptf.verify_no_other_packets()


@pytest.mark.parametrize("fragment", ["first", "atomic"])
def test_time_exceeded_is_sent_about_a_fragment_too(ptf, fragment):
    """RFC 4443 3.3 and RFC 7915 5.1 (MUST): a packet whose hop limit runs out gets Time Exceeded,
    whether or not it carries a Fragment header; the error quotes that header. (The SUME card hands
    such a packet to the controller: test_nat64_sume.py.)"""
    stateful_udp(ptf)
    header = IPv6ExtHdrFragment(id=0x2345, m=1 if fragment == "first" else 0, offset=0)
    udp = UDP(sport=5000, dport=53, len=200, chksum=0x1234) if fragment == "first" else UDP(sport=5000, dport=53)
    pkt = from_v6_host(header / udp / (b"e" * 32), hlim=1)
    ptf.send(V6_PORT, pkt)
    ptf.verify_packet(error_to_host(ICMPv6TimeExceeded(code=0), pkt), V6_PORT)
    ptf.verify_no_other_packets()


def test_packet_too_big_gives_the_ipv4_mtu_plus_20_whatever_extension_headers_leave(ptf):
    """RFC 7915 5.1: Packet Too Big with the IPv4 MTU plus 20, the header difference, even when the
    packet also loses a Hop-by-Hop header (24 bytes here) in translation: the host applies the MTU
    to all its packets to that destination, and a plain one of 1444 bytes would not fit. Its next
    packet of 1420 bytes, Hop-by-Hop header and all, goes through."""
    stateful_udp(ptf)
    mtu(ptf, V4_PORT, 1400)
    before = sent(ptf, SENT_TOO_BIG)
    big = from_v6_host(hop_by_hop(24) / UDP(sport=5000, dport=53) / (b"m" * 1373))    # 1401 bytes as IPv4
    ptf.send(V6_PORT, big)
    ptf.verify_packet(error_to_host(ICMPv6PacketTooBig(mtu=1420), big), V6_PORT)
    fits = from_v6_host(hop_by_hop(24) / UDP(sport=5000, dport=53) / (b"m" * 1348))   # 1420 as IPv6, 1376 as IPv4
    assert len(fits[IPv6]) == 1420
    ptf.send(V6_PORT, fits)
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / (b"m" * 1348), flags="DF"), V4_PORT)
    ptf.verify_no_other_packets()
    assert sent(ptf, SENT_TOO_BIG) == before + 1
