"""Conformance of the NAT64 pipeline (p4/nat64.p4) on a P4Runtime switch: the switch as a host,
routing, RFC 6052/7757 addressing and RFC 6146/7915 translation of TCP, UDP and echo. Each test
names the line of NAT64-BEHAVIOUR.md it proves; the coverage table is in tests/NAT64-COVERAGE.md.
ICMP errors are in test_nat64_icmp.py."""
import ipaddress
import time

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_NOP
from scapy.layers.inet6 import (ICMPv6DestUnreach, ICMPv6EchoReply, ICMPv6EchoRequest, ICMPv6ND_NA, ICMPv6ND_NS,
                                ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr, ICMPv6TimeExceeded, IPv6,
                                IPv6ExtHdrFragment)
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw

from harness.dataplane import expected_bytes
from nat64_setup import (eam, DROP_BAD_CHECKSUM, DROP_BAD_LENGTH, DROP_FILTERED, DROP_LOCAL_FRAGMENT, DROP_NOT_TRANSLATABLE, DROP_PARSER_ERROR,
                         DROP_FOR_SWITCH, DROP_ICMP_ERROR_RATE, DROP_LINK_GROUP, DROP_NO_ROUTE, DROP_POOL4_NO_BIB, DROP_SOURCE_ROUTE, DROP_TTL_EXPIRED, DROP_UDP_ZERO_CHECKSUM, MAPPED, P, POOL4, POOL6, PUNT_SESSION_MISS,
                         PUNT_TCP_CONTROL, PUNT_FIRST_FRAGMENT, PUNT_FINISH, PUNT_NEEDS_FRAGMENTATION, PUNT_FRAGMENT, PUNT_INBOUND_SYN, ROUTER_MAC, SENT_TIME_EXCEEDED, SENT_UNREACHABLE, SWITCH_V4, SWITCH_V6, T, V4_HOST_MAC, V4_PORT, V4_SERVER,
                         V6_HOST, V6_HOST_MAC, V6_PORT, DrawnIdentification, counts, drops, embed, from_switch4, from_v4_server,
                         from_v6_host, routed, sent, session_v4, session_v6, siit_prefix, to_v4_server, to_v6_host)
from nat64_setup import BOTH, ptf, sume_sut, sut  # noqa: F401  (pytest fixtures, found by name)


# ---- the switch as a network host ----

@BOTH
def test_arp_request_for_switch_address_is_answered(ptf):
    req = Ether(src=V4_HOST_MAC, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=V4_HOST_MAC, psrc=V4_SERVER, pdst=SWITCH_V4)
    ptf.send(V4_PORT, req)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V4_HOST_MAC) /
                      ARP(op=2, hwsrc=ROUTER_MAC, psrc=SWITCH_V4, hwdst=V4_HOST_MAC, pdst=V4_SERVER), V4_PORT)
    ptf.send(V4_PORT, Ether(src=V4_HOST_MAC, dst="ff:ff:ff:ff:ff:ff") /
             ARP(op=1, hwsrc=V4_HOST_MAC, psrc=V4_SERVER, pdst="192.0.2.99"))   # not ours: no answer
    ptf.verify_no_other_packets()


@BOTH
def test_neighbour_solicitation_gets_advertisement_with_checksum_and_option(ptf):
    ns = Ether(src=V6_HOST_MAC, dst="33:33:ff:00:00:01") / IPv6(src=V6_HOST, dst="ff02::1:ff00:1", hlim=255) / \
        ICMPv6ND_NS(tgt=SWITCH_V6) / ICMPv6NDOptSrcLLAddr(lladdr=V6_HOST_MAC)
    ptf.send(V6_PORT, ns)
    na = Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=255) / \
        ICMPv6ND_NA(R=1, S=1, O=1, tgt=SWITCH_V6) / ICMPv6NDOptDstLLAddr(lladdr=ROUTER_MAC)
    ptf.verify_packet(na, V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_echo_to_switch_is_answered_in_both_families(ptf):
    ptf.send(V4_PORT, from_v4_server(ICMP(type=8, id=7, seq=1) / b"ping", dst=SWITCH_V4))
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V4_HOST_MAC) / IP(src=SWITCH_V4, dst=V4_SERVER, ttl=64) /
                      ICMP(type=0, id=7, seq=1) / b"ping", V4_PORT)
    ptf.send(V6_PORT, from_v6_host(ICMPv6EchoRequest(id=9, seq=2, data=b"ping6"), dst=SWITCH_V6))
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
                      ICMPv6EchoReply(id=9, seq=2, data=b"ping6"), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_ipv6_for_the_switch_that_it_does_not_answer_ends_there(ptf):
    """RFC 1812 5.2.3 (RFC 8504 likewise): a packet to the switch's own address is delivered to it,
    not forwarded back onto the link: UDP, an ICMPv6 error about a packet it sent, an advertisement."""
    before = drops(ptf, DROP_FOR_SWITCH) if counts(ptf) else None
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=9) / b"to the switch", dst=SWITCH_V6))
    quoted = IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=63) / UDP(sport=7, dport=7)
    ptf.send(V6_PORT, from_v6_host(ICMPv6DestUnreach(code=4) / quoted, dst=SWITCH_V6))
    ptf.send(V6_PORT, from_v6_host(ICMPv6ND_NA(tgt=V6_HOST, R=0, S=1, O=1), dst=SWITCH_V6, hlim=255))
    ptf.verify_no_other_packets()
    if counts(ptf):
        assert drops(ptf, DROP_FOR_SWITCH) == before + 3
    ptf.send(V6_PORT, from_v6_host(ICMPv6EchoRequest(id=9, seq=3, data=b"still"), dst=SWITCH_V6))
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
                      ICMPv6EchoReply(id=9, seq=3, data=b"still"), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_echo_to_a_pool4_address_that_is_the_switchs_own_is_translated_when_a_session_maps_it(ptf):
    """The switch's IPv4 address (192.0.2.1) is in pool4 too, as on a NAT64 with one public
    address: an echo request whose identifier a session maps (an IPv6 host's static ICMP BIB
    entry) goes to that host; with any other identifier the switch answers it itself."""
    ptf.insert(session_v4(ptf, 1, SWITCH_V4, 4321, V6_HOST, 1234))
    ptf.send(V4_PORT, from_v4_server(ICMP(type=8, id=4321, seq=1) / b"to the host", dst=SWITCH_V4))
    ptf.verify_packet(to_v6_host(ICMPv6EchoRequest(id=1234, seq=1, data=b"to the host")), V6_PORT)
    ptf.send(V4_PORT, from_v4_server(ICMP(type=8, id=4322, seq=1) / b"to the switch", dst=SWITCH_V4))
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V4_HOST_MAC) / IP(src=SWITCH_V4, dst=V4_SERVER, ttl=64) /
                      ICMP(type=0, id=4322, seq=1) / b"to the switch", V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_echo_with_ipv4_options_is_answered_with_a_valid_header_checksum(ptf):
    request = from_v4_server(ICMP(type=8, id=7, seq=3) / b"ping", dst=SWITCH_V4, ttl=20, options=[IPOption_NOP()] * 4)
    ptf.send(V4_PORT, request)
    reply = Ether(src=ROUTER_MAC, dst=V4_HOST_MAC) / IP(src=SWITCH_V4, dst=V4_SERVER, ttl=64,
                                                        options=[IPOption_NOP()] * 4) / ICMP(type=0, id=7, seq=3) / b"ping"
    ptf.verify_packet(reply, V4_PORT)   # scapy computes the header checksum over the options too
    ptf.verify_no_other_packets()


def test_fragmented_echo_to_switch_is_dropped_and_counted_not_half_answered(ptf):
    before = drops(ptf, DROP_LOCAL_FRAGMENT)
    ptf.send(V4_PORT, from_v4_server(ICMP(type=8, id=7, seq=4) / (b"x" * 64), dst=SWITCH_V4, flags="MF", id=77))
    ptf.send(V6_PORT, from_v6_host(IPv6ExtHdrFragment(id=78, m=1) / ICMPv6EchoRequest(id=9, seq=4, data=b"y" * 64),
                                   dst=SWITCH_V6))
    ptf.verify_no_other_packets()
    assert drops(ptf, DROP_LOCAL_FRAGMENT) == before + 2


@BOTH
def test_untranslated_traffic_is_routed_by_longest_prefix(ptf):
    pkt = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, ttl=20) / UDP(sport=1, dport=2)
    ptf.send(3, pkt)
    ptf.verify_packet(routed(pkt, V4_HOST_MAC), V4_PORT)
    six = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IPv6(src="2001:db8:9::1", dst="2001:db8:1::77", hlim=5) / UDP()
    ptf.send(3, six)
    ptf.verify_packet(routed(six, V6_HOST_MAC), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_routed_ipv4_with_options_keeps_them_and_a_valid_checksum(ptf):
    from scapy.layers.inet import IPOption_RR
    pkt = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, ttl=20,
                                                       options=[IPOption_RR(routers=["0.0.0.0"])]) / UDP()
    ptf.send(3, pkt)
    ptf.verify_packet(routed(pkt, V4_HOST_MAC), V4_PORT)
    ptf.verify_no_other_packets()


def test_expiring_packets_get_time_exceeded_from_the_switch(ptf):
    """RFC 7915 4.1/5.1, RFC 1812, RFC 4443: the error quotes the packet, comes from the switch's
    address and goes back out of the port the packet came in on."""
    routed = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, ttl=1) / UDP(sport=9, dport=33434)
    ptf.send(3, routed)
    ptf.verify_packet(from_switch4(ICMP(type=11, code=0) / bytes(routed[IP]), dst="203.0.113.9"), 3)
    to_translate = from_v6_host(UDP(sport=5000, dport=33434) / b"probe", hlim=1)
    ptf.send(V6_PORT, to_translate)                          # would expire when translated
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
                      ICMPv6TimeExceeded(code=0) / bytes(to_translate[IPv6]), V6_PORT)
    ptf.verify_no_other_packets()
    assert sent(ptf, SENT_TIME_EXCEEDED) >= 2


def test_a_packet_without_a_route_gets_destination_unreachable_no_route(ptf):
    """RFC 1812 5.2.7.1 (MUST) and RFC 4443 3.1: a packet no route takes, routed in its own family
    or translated, gets Destination Unreachable code 0 (IPv4 Network Unreachable, IPv6 No Route to
    Destination) from the switch, in the family it came in and back out of the port it came in on,
    quoting it as it came; a route that says no_route answers so too. An ICMP error without a
    route gets none: it is dropped and counted no_route."""
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000),
               session_v4(ptf, 17, MAPPED, 40000, "2001:db8:99::5", 5000),
               ptf.client.table_entry(P + "ipv4_routes", match={"dst_addr": ("198.51.100.128", 25)},
                                      action=P + "no_route"))
    before = (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_NO_ROUTE))
    routed4 = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst="203.0.113.77", ttl=20) / UDP(sport=9, dport=9)
    ptf.send(3, routed4)
    ptf.verify_packet(from_switch4(ICMP(type=3, code=0) / bytes(routed4[IP]), dst="203.0.113.9"), 3)
    to_no_route = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst="198.51.100.200") / UDP(sport=9, dport=9)
    ptf.send(3, to_no_route)
    ptf.verify_packet(from_switch4(ICMP(type=3, code=0) / bytes(to_no_route[IP]), dst="203.0.113.9"), 3)
    routed6 = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IPv6(src="2001:db8:9::1", dst="2001:db8:99::1", hlim=5) / UDP(sport=9, dport=9)
    ptf.send(3, routed6)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V4_HOST_MAC) / IPv6(src=SWITCH_V6, dst="2001:db8:9::1", hlim=64) /
                      ICMPv6DestUnreach(code=0) / bytes(routed6[IPv6]), 3)
    six_to_four = from_v6_host(UDP(sport=5000, dport=53) / b"no route", dst=embed("203.0.113.77", POOL6, 96))
    ptf.send(V6_PORT, six_to_four)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
                      ICMPv6DestUnreach(code=0) / bytes(six_to_four[IPv6]), V6_PORT)
    four_to_six = from_v4_server(UDP(sport=53, dport=40000) / b"no route")
    ptf.send(V4_PORT, four_to_six)
    ptf.verify_packet(from_switch4(ICMP(type=3, code=0) / bytes(four_to_six[IP])), V4_PORT)
    ptf.send(3, Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst="203.0.113.77") /
             ICMP(type=3, code=1) / bytes(routed4[IP]))
    ptf.verify_no_other_packets()
    assert (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_NO_ROUTE)) == (before[0] + 5, before[1] + 1)


def test_no_error_about_a_packet_to_a_group_or_broadcast_or_from_no_single_host(ptf):
    """RFC 1812 4.3.2.7 and RFC 4443 2.4(e): no ICMP error about a packet to a link-layer or IP
    multicast or broadcast address, or from an address that names no single host (unspecified,
    loopback, multicast): a host's IGMP and MLD reports, whose TTL and hop limit are 1, expire
    here unanswered. Each is dropped and counted as expiring; a unicast one is answered (above)."""
    expiring = [Ether(src=V4_HOST_MAC, dst=mac) / IP(src=src, dst=dst, ttl=1) / UDP(sport=9, dport=9)
                for mac, src, dst in (("01:00:5e:00:00:16", "203.0.113.9", "224.0.0.22"),
                                      (ROUTER_MAC, "203.0.113.9", "239.1.2.3"),
                                      ("ff:ff:ff:ff:ff:ff", "203.0.113.9", "255.255.255.255"),
                                      (ROUTER_MAC, "0.0.0.0", V4_SERVER), (ROUTER_MAC, "127.0.0.1", V4_SERVER),
                                      (ROUTER_MAC, "224.0.0.5", V4_SERVER), (ROUTER_MAC, "240.0.0.1", V4_SERVER))]
    expiring += [Ether(src=V6_HOST_MAC, dst=mac) / IPv6(src=src, dst=dst, hlim=1) / UDP(sport=9, dport=9)
                 for mac, src, dst in (("33:33:00:00:00:16", V6_HOST, "ff02::16"), (ROUTER_MAC, V6_HOST, "ff0e::1"),
                                       (ROUTER_MAC, "::", "2001:db8:1::99"), (ROUTER_MAC, "ff02::1", "2001:db8:1::99"))]
    before = (sent(ptf, SENT_TIME_EXCEEDED), drops(ptf, DROP_TTL_EXPIRED))
    for frame in expiring:
        ptf.send(3 if IP in frame else V6_PORT, frame)
    ptf.verify_no_other_packets()
    assert (sent(ptf, SENT_TIME_EXCEEDED), drops(ptf, DROP_TTL_EXPIRED)) == (before[0], before[1] + len(expiring))


@BOTH
def test_ip_to_one_host_in_a_link_broadcast_or_multicast_frame_is_discarded(ptf):
    """RFC 1812 5.3.4: a packet to one host that came in a frame to a link-layer broadcast or
    multicast address is discarded silently, neither translated nor routed nor answered with an
    error, even when it expires here; counted as drop reason 16. The same packets to the switch's
    MAC address go on."""
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000))
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    frames = []
    for v6_group, v4_group in (("ff:ff:ff:ff:ff:ff", "ff:ff:ff:ff:ff:ff"), ("33:33:00:00:00:01", "01:00:5e:00:00:01")):
        six = from_v6_host(UDP(sport=5000, dport=53) / b"query")
        six[Ether].dst = v6_group
        four = from_v4_server(UDP(sport=53, dport=40000) / b"answer")
        four[Ether].dst = v4_group
        frames += [(V6_PORT, six), (V4_PORT, four),
                   (3, Ether(src=V4_HOST_MAC, dst=v4_group) / IP(src="203.0.113.9", dst=V4_SERVER) / UDP(sport=1, dport=2)),
                   (3, Ether(src=V4_HOST_MAC, dst=v6_group) / IPv6(src="2001:db8:9::1", dst="2001:db8:1::77") / UDP()),
                   (3, Ether(src=V4_HOST_MAC, dst=v4_group) / IP(src="203.0.113.9", dst=V4_SERVER, ttl=1) / UDP()),
                   (V6_PORT, Ether(src=V6_HOST_MAC, dst=v6_group) / IPv6(src=V6_HOST, dst="2001:db8:1::99", hlim=1)
                    / UDP())]
    before = counts(ptf) and drops(ptf, DROP_LINK_GROUP)
    for port, frame in frames:
        ptf.send(port, frame)
    ptf.verify_no_other_packets()
    assert ptf.client.packet_in(timeout=0.3) is None
    if counts(ptf):
        assert drops(ptf, DROP_LINK_GROUP) == before + len(frames)
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / b"query"))
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / b"query"), V4_PORT)
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / b"answer"))
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / b"answer"), V6_PORT)
    ptf.verify_no_other_packets()


# ---- stateful NAT64 (RFC 6146) with RFC 7915 header translation ----

@BOTH
def test_udp_v6_to_v4_through_a_session(ptf):
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / b"query", tc=0xb8))
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / b"query", tos=0xb8), V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_ipv6_udp_without_a_checksum_stays_without_one(ptf):
    """A zero IPv6 UDP checksum (none: RFC 6936 allows it to tunnels) leaves as IPv4's zero, "no
    checksum" (Jool's graybox "udp0csum-64"), not as a wrong one the receiver would drop."""
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53, chksum=0) / b"tunnel"))
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53, chksum=0) / b"tunnel"), V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_udp_v4_to_v6_through_a_session(ptf):
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / b"answer", tos=0x20))
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / b"answer", tc=0x20), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_the_operator_zeroes_the_traffic_class_and_sets_the_tos(ptf):
    """RFC 7915 4.1 and 5.1 (SHOULDs; nat64.zeroTrafficClass, nat64.ipv4Tos): with the controller's
    setting in the keyless traffic_class table, IPv4's TOS 0x20 becomes Traffic Class 0, and IPv6's
    Traffic Class 0xb8 becomes the TOS the operator set, 0x28; otherwise as copied above."""
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000), session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000))
    ptf.modify(ptf.client.table_entry(P + "rewrite.traffic_class", default=True, action=P + "rewrite.class_and_tos",
                                      params={"zero_class": 1, "fix_tos": 1, "tos_value": 0x28}))
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / b"answer", tos=0x20))
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / b"answer", tc=0), V6_PORT)
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / b"query", tc=0xb8))
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / b"query", tos=0x28), V4_PORT)
    ptf.verify_no_other_packets()


def test_ipv4_udp_without_checksum_gets_one(ptf):
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    pkt = from_v4_server(UDP(sport=53, dport=40000, chksum=0) / b"no checksum here")
    ptf.send(V4_PORT, pkt)
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / b"no checksum here"), V6_PORT)
    ptf.verify_no_other_packets()


@pytest.mark.parametrize("padded", [False, True], ids=["plain", "padded"])
def test_ipv4_udp_without_checksum_whose_sum_is_zero_gets_all_ones(ptf, padded):
    """RFC 768 (and RFC 8200 8.1 for IPv6): a UDP checksum that computes to 0 is sent as 0xFFFF,
    0 meaning none, which an IPv6 receiver drops. The datagram's last two bytes are chosen so that
    its translation sums to 0; a pad after it (cut in a pass of its own) must not change that."""
    def translated(payload):
        return to_v6_host(UDP(sport=53, dport=5000) / payload)
    payload = summing_to_zero(b"zero-sum", translated)
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    frame = bytes(from_v4_server(UDP(sport=53, dport=40000, chksum=0) / payload))
    ptf.send(V4_PORT, frame + (PAD if padded else b""))
    ptf.verify_packet(translated(payload), V6_PORT)
    ptf.verify_no_other_packets()


def summing_to_zero(payload, translated):
    """`payload` (of an even length) and two bytes more, chosen so that the UDP checksum of
    `translated(them)`, a frame built without one, computes to 0, which is sent as 0xFFFF."""
    right = summed(translated(payload + b"\0\0"), UDP)   # what the two bytes must add
    payload += (0 if right == 0xFFFF else right).to_bytes(2, "big")
    assert summed(translated(payload), UDP) == 0xFFFF   # scapy sends a computed 0 so too
    return payload


# What Ethernet puts after a short IP packet (a frame is at least 60 bytes), or any bytes a frame
# carries past its IP packet's length.
PAD = bytes(range(1, 15))


def test_bytes_after_the_ip_packet_stay_behind_and_no_checksum_sums_them(ptf):
    """A frame's bytes past its IP packet (an Ethernet pad) are no part of it (RFC 791's Total
    Length, RFC 8200's Payload Length): translated, routed, answered or quoted in an error, the
    packet leaves without them, and the UDP checksum computed for IPv4 UDP without one (RFC 7915
    4.5) does not sum them. Before 2026-11-30 the bytes went along and that checksum was wrong."""
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000), session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000),
               session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000))
    expiring = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, ttl=1) / UDP(sport=9, dport=7)
    passing = Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, ttl=20) / UDP(sport=9, dport=7)
    cases = [
        (V4_PORT, from_v4_server(UDP(sport=53, dport=40000, chksum=0) / b"abcd"),
         to_v6_host(UDP(sport=53, dport=5000) / b"abcd"), V6_PORT),
        (V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / b"abcd"), to_v6_host(UDP(sport=53, dport=5000) / b"abcd"),
         V6_PORT),
        (V4_PORT, from_v4_server(TCP(sport=80, dport=41000, flags="A", seq=5, ack=9)),
         to_v6_host(TCP(sport=80, dport=33000, flags="A", seq=5, ack=9)), V6_PORT),
        (V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / b"q"), to_v4_server(UDP(sport=40000, dport=53) / b"q"),
         V4_PORT),
        (3, passing, routed(passing, V4_HOST_MAC), V4_PORT),
        (3, expiring, from_switch4(ICMP(type=11, code=0) / bytes(expiring[IP]), dst="203.0.113.9"), 3),
        (V4_PORT, from_v4_server(ICMP(type=8, id=7, seq=1) / b"ping", dst=SWITCH_V4),
         Ether(src=ROUTER_MAC, dst=V4_HOST_MAC) / IP(src=SWITCH_V4, dst=V4_SERVER, ttl=64) / ICMP(type=0, id=7, seq=1)
         / b"ping", V4_PORT),
    ]
    for port, packet, expected, out_port in cases:
        ptf.send(port, bytes(packet) + PAD)
        ptf.verify_packet(expected, out_port)
    ptf.verify_no_other_packets()
    # A solicitation's options the parser does not take (a nonce, RFC 3971 5.3.2) stay behind too.
    ns = Ether(src=V6_HOST_MAC, dst="33:33:ff:00:00:01") / IPv6(src=V6_HOST, dst="ff02::1:ff00:1", hlim=255) / \
        ICMPv6ND_NS(tgt=SWITCH_V6) / ICMPv6NDOptSrcLLAddr(lladdr=V6_HOST_MAC) / Raw(bytes([14, 1, 1, 2, 3, 4, 5, 6]))
    ptf.send(V6_PORT, ns)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=255) /
                      ICMPv6ND_NA(R=1, S=1, O=1, tgt=SWITCH_V6) / ICMPv6NDOptDstLLAddr(lladdr=ROUTER_MAC), V6_PORT)
    # What the controller sends through the pipeline has no pad (its packet_out header is no
    # trailer): IPv4 UDP without a checksum, too long for the IPv6 MTU, comes back to it translated
    # and summed, to be fragmented.
    long = from_v4_server(UDP(sport=53, dport=40000, chksum=0) / (b"d" * 1300), id=0x5152)
    ptf.client.packet_out(bytes(long), to_pipeline=1)
    payload, md = ptf.client.packet_in()
    assert md["punt_reason"] == PUNT_NEEDS_FRAGMENTATION
    assert payload == bytes(to_v6_host(IPv6ExtHdrFragment(id=0x5152, m=0, offset=0) / UDP(sport=53, dport=5000) /
                                       (b"d" * 1300))), Ether(payload).show2(dump=True)
    ptf.verify_no_other_packets()


def test_ipv4_udp_fragment_without_checksum_is_refused_with_unreachable_13(ptf):
    """RFC 7915 4.5: the first fragment of a UDP datagram with checksum 0 cannot get a checksum
    (it covers every fragment, and the switch does not reassemble): dropped, not sent with a
    checksum over the first fragment only, and (4.4) answered with Destination Unreachable 13, as
    Jool's graybox case "ec" expects. The same datagram whole still gets one."""
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    before = (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_UDP_ZERO_CHECKSUM))
    first = from_v4_server(UDP(sport=53, dport=40000, len=8 + 200, chksum=0) / (b"z" * 64), flags="MF", id=0x777)
    ptf.send(V4_PORT, first)
    ptf.verify_packet(from_switch4(ICMP(type=3, code=13) / bytes(first[IP])), V4_PORT)
    ptf.verify_no_other_packets()
    assert (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_UDP_ZERO_CHECKSUM)) == (before[0] + 1, before[1])
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000, chksum=0) / (b"z" * 64), id=0x777))
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / (b"z" * 64)), V6_PORT)
    ptf.verify_no_other_packets()


def test_ipv4_udp_without_checksum_shorter_than_its_ip_payload_is_refused_with_unreachable_13(ptf):
    """A UDP Length shorter than the IP payload leaves a surplus area after the datagram (where UDP
    options go). The checksum the switch computes for a datagram without one (RFC 7915 4.5) would
    sum the surplus too (v1model's checksum with payload runs to the packet's end), which the
    receiver, summing the UDP Length's bytes, would refuse; so it is refused here, as a fragment
    is (4.5, and 4.4: Destination Unreachable 13). A UDP Length past the IP payload likewise."""
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    for udp_len in (8 + 16, 8 + 24):
        before = (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_UDP_ZERO_CHECKSUM))
        odd = from_v4_server(UDP(sport=53, dport=40000, len=udp_len, chksum=0) / (b"d" * 16) / b"\x01\x01\x00\x00")
        assert len(bytes(odd[IP])) == 20 + 8 + 20
        ptf.send(V4_PORT, odd)
        ptf.verify_packet(from_switch4(ICMP(type=3, code=13) / bytes(odd[IP])), V4_PORT)
        ptf.verify_no_other_packets()
        assert (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_UDP_ZERO_CHECKSUM)) == (before[0] + 1, before[1])


def test_ipv4_udp_without_checksum_is_refused_when_the_setting_says_so(ptf):
    """RFC 7915 4.5's other choice (nat64.udpZeroChecksum "drop"): dropped and answered with
    Destination Unreachable 13 (4.4; Jool's graybox case "ea"); a UDP packet with a checksum is
    translated as ever."""
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    ptf.modify(ptf.client.table_entry(T + "udp_zero_checksum", default=True, action=T + "drop_udp_without_checksum"))
    before = (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_UDP_ZERO_CHECKSUM))
    bare = from_v4_server(UDP(sport=53, dport=40000, chksum=0) / b"no checksum here")
    ptf.send(V4_PORT, bare)
    ptf.verify_packet(from_switch4(ICMP(type=3, code=13) / bytes(bare[IP])), V4_PORT)
    ptf.verify_no_other_packets()
    assert (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_UDP_ZERO_CHECKSUM)) == (before[0] + 1, before[1])
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / b"checksum here"))
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / b"checksum here"), V6_PORT)
    ptf.verify_no_other_packets()


def test_tcp_both_ways_and_control_segments_copied_to_controller(ptf):
    ptf.insert(session_v6(ptf, 6, V6_HOST, 33000, MAPPED, 41000), session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000))
    syn = from_v6_host(TCP(sport=33000, dport=80, flags="S", seq=1000, options=[("MSS", 1440)]))
    ptf.send(V6_PORT, syn)
    ptf.verify_packet(to_v4_server(TCP(sport=41000, dport=80, flags="S", seq=1000, options=[("MSS", 1440)])), V4_PORT)
    payload, md = ptf.client.packet_in()
    assert (payload, md["punt_reason"], md["ingress_port"]) == (bytes(syn), PUNT_TCP_CONTROL, V6_PORT)
    data = from_v4_server(TCP(sport=80, dport=41000, flags="A", seq=5, ack=1001) / b"HTTP/1.1 200 OK")
    ptf.send(V4_PORT, data)
    ptf.verify_packet(to_v6_host(TCP(sport=80, dport=33000, flags="A", seq=5, ack=1001) / b"HTTP/1.1 200 OK"), V6_PORT)
    assert ptf.client.packet_in(timeout=0.3) is None, "data segments are not copied"
    ptf.verify_no_other_packets()


@BOTH
def test_echo_identifier_is_mapped_like_a_port(ptf):
    ptf.insert(session_v6(ptf, 1, V6_HOST, 0x1234, MAPPED, 0x4321), session_v4(ptf, 1, MAPPED, 0x4321, V6_HOST, 0x1234))
    ptf.send(V6_PORT, from_v6_host(ICMPv6EchoRequest(id=0x1234, seq=3, data=b"abc")))
    ptf.verify_packet(to_v4_server(ICMP(type=8, id=0x4321, seq=3) / b"abc"), V4_PORT)
    ptf.send(V4_PORT, from_v4_server(ICMP(type=0, id=0x4321, seq=3) / b"abc"))
    ptf.verify_packet(to_v6_host(ICMPv6EchoReply(id=0x1234, seq=3, data=b"abc")), V6_PORT)
    ptf.verify_no_other_packets()


def ones_add(a, b):
    """a + b in 16-bit ones' complement arithmetic (RFC 1071)."""
    total = a + b
    return (total & 0xFFFF) + (total >> 16)


def checksum_field(layer):
    return "cksum" if layer in (ICMPv6EchoRequest, ICMPv6EchoReply) else "chksum"   # scapy's names


def summed(frame, layer):
    """The checksum scapy computes for `layer` of `frame` (an Ether packet built without one)."""
    return getattr(Ether(bytes(frame))[layer], checksum_field(layer))


def summed_wrong(frame, layer):
    """`frame` with its `layer` checksum the right one plus WRONG_BY, ones' complement."""
    wrong = ones_add(summed(frame, layer), WRONG_BY)
    assert 0 < wrong < 0xFFFF   # no second zero to tell apart
    frame[layer].setfieldval(checksum_field(layer), wrong)
    return frame


WRONG_BY = 0x1111   # what the test below adds to a right checksum to make it wrong


@BOTH
@pytest.mark.parametrize("kind", ["udp", "tcp", "echo"])
def test_a_wrong_transport_checksum_stays_as_wrong_both_ways(ptf, kind):
    """RFC 7915 4.5/5.5 and RFC 1624: the translation updates the TCP, UDP or ICMP checksum for what
    it changes (addresses, ports, identifier, type, the ICMPv6 pseudo-header) and never verifies it,
    so a packet that arrives with a wrong checksum leaves as wrong by the same amount and its
    receiver drops it, as it would have untranslated (Jool's graybox "csumfail" cases). The sent
    checksum is the right one plus 0x1111, ones' complement; so must the translated one be."""
    proto, v6_port, v4_port = {"udp": (17, 5000, 40000), "tcp": (6, 33000, 41000), "echo": (1, 0x1234, 0x4321)}[kind]
    ptf.insert(session_v6(ptf, proto, V6_HOST, v6_port, MAPPED, v4_port),
               session_v4(ptf, proto, MAPPED, v4_port, V6_HOST, v6_port))
    out6, out4, back4, back6 = {
        "udp": (UDP(sport=v6_port, dport=53) / b"query", UDP(sport=v4_port, dport=53) / b"query",
                UDP(sport=53, dport=v4_port) / b"answer", UDP(sport=53, dport=v6_port) / b"answer"),
        "tcp": (TCP(sport=v6_port, dport=80, flags="A", seq=7, ack=9) / b"GET /",
                TCP(sport=v4_port, dport=80, flags="A", seq=7, ack=9) / b"GET /",
                TCP(sport=80, dport=v4_port, flags="A", seq=9, ack=12) / b"200 OK",
                TCP(sport=80, dport=v6_port, flags="A", seq=9, ack=12) / b"200 OK"),
        "echo": (ICMPv6EchoRequest(id=v6_port, seq=3, data=b"ping"), ICMP(type=8, id=v4_port, seq=3) / b"ping",
                 ICMP(type=0, id=v4_port, seq=3) / b"pong", ICMPv6EchoReply(id=v6_port, seq=3, data=b"pong")),
    }[kind]
    layer6, layer4 = {"udp": (UDP, UDP), "tcp": (TCP, TCP), "echo": (ICMPv6EchoRequest, ICMP)}[kind]
    ptf.send(V6_PORT, summed_wrong(from_v6_host(out6), layer6))
    expected = to_v4_server(out4)
    summed_wrong(expected.packet, layer4)
    ptf.verify_packet(expected, V4_PORT)
    ptf.send(V4_PORT, summed_wrong(from_v4_server(back4), layer4))
    ptf.verify_packet(summed_wrong(to_v6_host(back6), ICMPv6EchoReply if kind == "echo" else layer6), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_atomic_fragment_echo_is_translated_with_its_checksum(ptf):
    """RFC 7915 5.1.1: an IPv6 atomic fragment (offset 0, M 0) becomes an unfragmented IPv4 packet
    with the low 16 bits of the identification; the ICMPv6 pseudo-header counted the upper-layer
    length, without the Fragment header (RFC 8200 8.1), so that is what leaves the checksum."""
    ptf.insert(session_v6(ptf, 1, V6_HOST, 0x1234, MAPPED, 0x4321))
    ptf.send(V6_PORT, from_v6_host(IPv6ExtHdrFragment(id=0xabcd5678, m=0, offset=0) /
                                   ICMPv6EchoRequest(id=0x1234, seq=3, data=b"atomic")))
    ptf.verify_packet(to_v4_server(ICMP(type=8, id=0x4321, seq=3) / b"atomic", id=0x5678), V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
@pytest.mark.parametrize("proto", [UDP, TCP], ids=["udp", "tcp"])
def test_atomic_fragments_of_udp_and_tcp_are_translated_unfragmented(ptf, proto):
    """RFC 7915 5.1.1 (Jool's graybox "nodf" cases of udp64 and tcp64): UDP or TCP behind an atomic
    Fragment header leaves as one IPv4 packet, no DF, the identification's low 16 bits, its
    checksum updated for the new pseudo-header (which never counted the Fragment header)."""
    number = 17 if proto is UDP else 6
    ptf.insert(session_v6(ptf, number, V6_HOST, 5000, MAPPED, 40000))
    l4 = UDP(sport=5000, dport=53) if proto is UDP else TCP(sport=5000, dport=53, flags="A", seq=7, ack=9)
    out4 = UDP(sport=40000, dport=53) if proto is UDP else TCP(sport=40000, dport=53, flags="A", seq=7, ack=9)
    ptf.send(V6_PORT, from_v6_host(IPv6ExtHdrFragment(id=0x0102abcd, m=0, offset=0) / l4 / b"atomic"))
    ptf.verify_packet(to_v4_server(out4 / b"atomic", id=0xabcd), V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_the_first_of_several_fragments_of_an_echo_goes_to_the_controller(ptf):
    """The ICMPv6 checksum's pseudo-header counts the whole message, which the first fragment of a
    fragmented echo does not tell, either way: a session's goes to the controller untranslated
    (PUNT_FRAGMENT; it translates it once the last fragment has come: test_nat64_fragments.py),
    not sent with a wrong checksum. An atomic fragment is whole, and translated
    (test_atomic_fragment_echo_…)."""
    ptf.insert(session_v6(ptf, 1, V6_HOST, 0x1234, MAPPED, 0x4321), session_v4(ptf, 1, MAPPED, 0x4321, V6_HOST, 0x1234))
    request = from_v6_host(IPv6ExtHdrFragment(id=5, m=1, offset=0) / ICMPv6EchoRequest(id=0x1234, seq=1, data=b"e" * 56))
    ptf.send(V6_PORT, request)
    payload, md = ptf.client.packet_in()
    assert (payload, md["punt_reason"], md["ingress_port"]) == (bytes(request), PUNT_FRAGMENT, V6_PORT)
    reply = from_v4_server(ICMP(type=0, id=0x4321, seq=1) / (b"e" * 56), flags="MF", id=6)
    ptf.send(V4_PORT, reply)
    payload, md = ptf.client.packet_in()
    assert (payload, md["punt_reason"], md["ingress_port"]) == (bytes(reply), PUNT_FRAGMENT, V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_a_stateless_hosts_fragmented_icmp_goes_to_the_controller_and_its_udp_fragments_do_not(ptf):
    """An EAM host's echo in fragments, either way: the first fragment goes to the controller as a
    session's does (the ICMPv6 pseudo-header needs the whole length), and so do the fragments after
    it, from which the controller learns that length and which it translates with the first
    (test_nat64_fragments.py). A stateless UDP datagram's later fragment needs no controller: the
    switch translates its header by the EAMT."""
    ptf.insert(*eam(ptf, "2001:db8:1::77", "192.0.2.77"))
    frames = [
        (V6_PORT, from_v6_host(IPv6ExtHdrFragment(id=7, m=1, offset=0) /
                               ICMPv6EchoRequest(id=0x1234, seq=1, data=b"e" * 56), src="2001:db8:1::77")),
        (V6_PORT, from_v6_host(IPv6ExtHdrFragment(nh=58, id=7, m=0, offset=8) / Raw(b"e" * 40), src="2001:db8:1::77")),
        (V4_PORT, from_v4_server(ICMP(type=0, id=0x1234, seq=1) / (b"e" * 56), dst="192.0.2.77", flags="MF", id=8)),
        (V4_PORT, from_v4_server(Raw(b"e" * 40), dst="192.0.2.77", proto=1, frag=8, id=8)),
    ]
    for port, frame in frames:
        ptf.send(port, frame)
        payload, md = ptf.client.packet_in()
        assert (payload, md["punt_reason"], md["ingress_port"]) == (bytes(frame), PUNT_FRAGMENT, port)
    ptf.send(V6_PORT, from_v6_host(IPv6ExtHdrFragment(nh=17, id=9, m=0, offset=8) / Raw(b"u" * 40),
                                   src="2001:db8:1::77"))
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V4_HOST_MAC) /
                      IP(src="192.0.2.77", dst=V4_SERVER, ttl=63, id=9, proto=17, frag=8) / Raw(b"u" * 40), V4_PORT)
    assert ptf.client.packet_in(timeout=0.3) is None
    ptf.verify_no_other_packets()


@BOTH
def test_what_the_controller_translated_from_ipv4_is_routed_not_translated_back(ptf):
    """The controller sends through the pipeline what it translated from IPv4 (later fragments, an
    echo's first fragment, fragments cut to the IPv6 MTU): IPv6 from an address that stands for an
    IPv4 one (in pool6, or an EAM's). To an EAM host, whose address the EAMT would translate, it is
    routed as it is, one hop, not turned back into IPv4 (nor punted for a session)."""
    ptf.insert(*eam(ptf, "2001:db8:1::77", "192.0.2.77"), *eam(ptf, "2001:db8:5::9", "198.51.100.9"))
    for src in (embed(V4_SERVER, POOL6, 96), "2001:db8:5::9"):
        for l4 in (IPv6ExtHdrFragment(nh=58, id=5, offset=8, m=0) / Raw(b"r" * 40),
                   ICMPv6EchoReply(id=0x1234, seq=1, data=b"whole")):
            ptf.client.packet_out(bytes(from_v6_host(l4, src=src, dst="2001:db8:1::77")), to_pipeline=1)
            ptf.verify_packet(to_v6_host(l4, src=src, dst="2001:db8:1::77"), V6_PORT)
    assert ptf.client.packet_in(timeout=0.3) is None
    ptf.verify_no_other_packets()


@BOTH
def test_session_miss_punts_then_packet_out_goes_through_the_pipeline(ptf):
    pkt = from_v6_host(UDP(sport=6000, dport=123) / b"ntp")
    ptf.send(V6_PORT, pkt)
    payload, md = ptf.client.packet_in()
    assert (payload, md["ingress_port"], md["punt_reason"]) == (bytes(pkt), V6_PORT, PUNT_SESSION_MISS)
    ptf.verify_no_other_packets()
    # The controller allocates, installs, and re-injects the packet into the pipeline.
    ptf.insert(session_v6(ptf, 17, V6_HOST, 6000, MAPPED, 40001))
    ptf.client.packet_out(payload, egress_port=0, to_pipeline=1)
    ptf.verify_packet(to_v4_server(UDP(sport=40001, dport=123) / b"ntp"), V4_PORT)
    ptf.verify_no_other_packets()


def test_what_the_controller_sends_through_the_pipeline_is_not_copied_back_to_it(ptf):
    """A TCP SYN or a first fragment the controller sends back after setting its session up is
    translated and not copied to the controller, which has it (a copy, the packet as it came, would
    carry the packet_out header)."""
    ptf.insert(session_v6(ptf, 6, V6_HOST, 33000, MAPPED, 41000), session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000))
    ptf.client.packet_out(from_v6_host(TCP(sport=33000, dport=80, flags="S", seq=1000)), to_pipeline=1)
    ptf.verify_packet(to_v4_server(TCP(sport=41000, dport=80, flags="S", seq=1000)), V4_PORT)
    ptf.client.packet_out(from_v6_host(IPv6ExtHdrFragment(id=9, m=1, offset=0) / UDP(sport=5000, dport=53, len=200) /
                                       (b"f" * 64)), to_pipeline=1)
    assert Ether(ptf.dataplane.poll(V4_PORT))[IP].flags == "MF"
    assert ptf.client.packet_in(timeout=0.5) is None
    ptf.verify_no_other_packets()


def test_udp_to_pool4_without_session_gets_port_unreachable_and_is_counted(ptf):
    """RFC 6146 3.5.1: UDP to a pool4 transport address that no BIB entry maps is discarded and
    answered with Destination Unreachable, Port Unreachable (the pool4 entry's setting, on by
    default), sent from the switch's own address and quoting the packet."""
    before, before_sent = drops(ptf, DROP_POOL4_NO_BIB), sent(ptf, SENT_UNREACHABLE)
    udp = from_v4_server(UDP(sport=53, dport=9999) / b"who")
    ptf.send(V4_PORT, udp)
    ptf.verify_packet(from_switch4(ICMP(type=3, code=3) / bytes(udp[IP])), V4_PORT)
    ptf.verify_no_other_packets()
    assert sent(ptf, SENT_UNREACHABLE) == before_sent + 1
    assert drops(ptf, DROP_POOL4_NO_BIB) == before, "answered, not dropped"
    # TCP and ICMP without a mapping are dropped silently and counted (RFC 6146 3.5.3; a SYN too
    # while inbound_syn is unset, as here: otherwise it is held, test_an_ipv4_syn_the_switch_…).
    ptf.send(V4_PORT, from_v4_server(TCP(sport=80, dport=9999, flags="S")))
    ptf.send(V4_PORT, from_v4_server(TCP(sport=80, dport=9999, flags="A")))
    ptf.send(V4_PORT, from_v4_server(ICMP(type=8, id=9999)))
    ptf.verify_no_other_packets()
    assert drops(ptf, DROP_POOL4_NO_BIB) == before + 3


@BOTH
def test_an_ipv4_syn_the_switch_would_not_translate_goes_to_the_controller_to_be_held(ptf):
    """RFC 6146 3.5.2.2, RFC 5382 REQ-4: with inbound_syn set (the controller's default), a plain
    IPv4 SYN to a pool4 address without a BIB entry is punted as it came (PUNT_INBOUND_SYN), for
    the controller to hold for a simultaneous open; so is one that a filtering session entry does
    not let in. Any other segment is dropped and counted as before; a later fragment of a SYN is
    the controller's as every later fragment is (PUNT_FRAGMENT)."""
    ptf.modify(ptf.client.table_entry(T + "inbound_syn", default=True, action=T + "hold_inbound_syns"))
    ptf.insert(session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000, filtered=1))
    before = counts(ptf) and (drops(ptf, DROP_POOL4_NO_BIB), drops(ptf, DROP_FILTERED))
    unmapped = from_v4_server(TCP(sport=80, dport=9999, flags="S", seq=7))
    filtered = from_v4_server(TCP(sport=80, dport=41000, flags="S", seq=8))
    for syn in (unmapped, filtered):
        ptf.send(V4_PORT, syn)
        payload, md = ptf.client.packet_in()
        assert (payload, md["punt_reason"], md["ingress_port"]) == (bytes(syn), PUNT_INBOUND_SYN, V4_PORT)
    for flags in ("SA", "SR", "SF", "A", "R"):
        ptf.send(V4_PORT, from_v4_server(TCP(sport=80, dport=9999, flags=flags)))
        ptf.send(V4_PORT, from_v4_server(TCP(sport=80, dport=41000, flags=flags)))
    ptf.verify_no_other_packets()
    assert ptf.client.packet_in(timeout=0.5) is None
    later = from_v4_server(TCP(sport=80, dport=9999, flags="S"), frag=2, id=77)
    ptf.send(V4_PORT, later)
    payload, md = ptf.client.packet_in()
    assert (payload, md["punt_reason"]) == (bytes(later), PUNT_FRAGMENT)
    if counts(ptf):
        assert (drops(ptf, DROP_POOL4_NO_BIB), drops(ptf, DROP_FILTERED)) == (before[0] + 5, before[1] + 5)


@BOTH
def test_every_segment_of_a_transitory_mapping_goes_to_the_controller_too(ptf):
    """RFC 6146 3.5.2.2: any packet but a RST takes a session in TRANS back to ESTABLISHED. With
    `transitory` set (every session of the mapping in TRANS) a data segment, either way, is
    translated and copied to the controller as a control segment is (PUNT_TCP_CONTROL, the segment
    as it came); the SUME variant hands it over translated to be tracked and sent on."""
    ptf.insert(session_v6(ptf, 6, V6_HOST, 33000, MAPPED, 41000, transitory=1),
               session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000, transitory=1))
    segments = [(V6_PORT, from_v6_host(TCP(sport=33000, dport=80, flags="A", seq=7) / b"more"),
                 V4_PORT, to_v4_server(TCP(sport=41000, dport=80, flags="A", seq=7) / b"more")),
                (V4_PORT, from_v4_server(TCP(sport=80, dport=41000, flags="A", seq=9) / b"back"),
                 V6_PORT, to_v6_host(TCP(sport=80, dport=33000, flags="A", seq=9) / b"back"))]
    for port, segment, out_port, translated in segments:
        ptf.send(port, segment)
        out = ptf.dataplane.poll(out_port, timeout=2)
        if out is None:          # the SUME variant: handed over, translated, to be tracked
            payload, md = ptf.client.packet_in()
            assert md["punt_reason"] == PUNT_FINISH
            assert payload == expected_bytes(translated, payload)
        else:
            assert out == expected_bytes(translated, out)
            payload, md = ptf.client.packet_in()
            assert (payload, md["punt_reason"], md["ingress_port"]) == (bytes(segment), PUNT_TCP_CONTROL, port)
    ptf.verify_no_other_packets()


@BOTH
def test_when_externally_initiated_tcp_is_dropped_a_syn_the_filter_lets_in_goes_to_the_controller(ptf):
    """RFC 6146 3.5.2.2 under a policy that drops externally initiated TCP (inbound_syn set to
    check_inbound_syns): the remote filter knows addresses, not ports, so a plain SYN it lets in is
    punted for the controller to check that its connection has a session (a simultaneous open);
    one it does not let in, and one without a mapping, are dropped; other segments from a known
    remote are translated, and so is the SYN the controller sends back through the pipeline."""
    ptf.modify(ptf.client.table_entry(T + "inbound_syn", default=True, action=T + "check_inbound_syns"))
    ptf.insert(session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000, filtered=1))
    ptf.insert(ptf.client.table_entry(T + "remote_filter", match={"proto": 6, "dst_addr": MAPPED,
                                                                 "dst_port": 41000, "remote_addr": V4_SERVER},
                                      action="NoAction"))
    before = counts(ptf) and (drops(ptf, DROP_POOL4_NO_BIB), drops(ptf, DROP_FILTERED))
    syn = from_v4_server(TCP(sport=81, dport=41000, flags="S", seq=8))
    ptf.send(V4_PORT, syn)
    payload, md = ptf.client.packet_in()
    assert (payload, md["punt_reason"], md["ingress_port"]) == (bytes(syn), PUNT_INBOUND_SYN, V4_PORT)
    ptf.send(V4_PORT, from_v4_server(TCP(sport=81, dport=41000, flags="S"), src="198.51.100.8"))
    ptf.send(V4_PORT, from_v4_server(TCP(sport=81, dport=9999, flags="S")))
    ptf.verify_no_other_packets()
    assert ptf.client.packet_in(timeout=0.5) is None
    ptf.send(V4_PORT, from_v4_server(TCP(sport=80, dport=41000, flags="A", seq=9)))
    ptf.verify_packet(to_v6_host(TCP(sport=80, dport=33000, flags="A", seq=9)), V6_PORT)
    ptf.client.packet_out(bytes(syn), to_pipeline=1)
    out = ptf.dataplane.poll(V6_PORT, timeout=2)
    if out is None:        # the SUME variant hands a TCP control segment over to be tracked
        out, md = ptf.client.packet_in()
        assert md["punt_reason"] == PUNT_FINISH
    assert (Ether(out)[IPv6].dst, Ether(out)[TCP].dport, Ether(out)[TCP].flags) == (V6_HOST, 33000, "S")
    ptf.verify_no_other_packets()
    if counts(ptf):
        assert (drops(ptf, DROP_POOL4_NO_BIB), drops(ptf, DROP_FILTERED)) == (before[0] + 1, before[1] + 1)


def test_ipv4_to_pool4_without_session_is_dropped_silently_when_the_setting_is_off(ptf):
    ptf.modify(ptf.client.table_entry(T + "pool4", match={"dst_addr": (POOL4, 24)}, action=T + "in_pool4",
                                      params={"unmapped_port_unreachable": 0}))
    try:
        before = drops(ptf, DROP_POOL4_NO_BIB)
        ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=9999)))
        ptf.verify_no_other_packets()
        assert drops(ptf, DROP_POOL4_NO_BIB) == before + 1
    finally:
        ptf.modify(ptf.client.table_entry(T + "pool4", match={"dst_addr": (POOL4, 24)}, action=T + "in_pool4",
                                          params={"unmapped_port_unreachable": 1}))


def test_icmp_errors_the_switch_sends_are_limited_per_ingress_port(ptf):
    """RFC 4443 2.4(f), RFC 1812 4.3.2.8: Nat64Ingress.icmp_error.error_meter, one cell per
    ingress port; over the rate no error is sent and the packet counts as DROP_ICMP_ERROR_RATE."""
    meter = P + "icmp_error.error_meter"
    c = ptf.client
    # One token a second, a burst of 3: three errors pass, the rest of a quick burst is refused.
    c.write(c.update("MODIFY", c.meter_entry(meter, V4_PORT, (1, 3, 1, 3))))
    try:
        before_sent, before_limited = sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_ICMP_ERROR_RATE)
        start = time.monotonic()
        for i in range(10):
            ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=9000 + i)))
        answered = 0
        while ptf.dataplane.poll(V4_PORT, timeout=0.5) is not None:
            answered += 1
        refills = int(time.monotonic() - start) + 1
        assert 3 <= answered <= 3 + refills
        assert sent(ptf, SENT_UNREACHABLE) - before_sent == answered
        assert drops(ptf, DROP_ICMP_ERROR_RATE) - before_limited == 10 - answered
        # Another port's cell is untouched: its error goes out.
        ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53), hlim=1))
        assert ptf.dataplane.poll(V6_PORT, timeout=2) is not None
    finally:
        c.write(c.update("MODIFY", c.meter_entry(meter)))
    ptf.verify_no_other_packets()


def test_a_meter_of_rate_and_burst_zero_sends_no_error(ptf):
    """RFC 7915 4.4, 5.4 (the operator may have no errors sent: icmpErrors.perPortPps 0, which the
    controller writes as this meter config): every error of the port is refused and counted."""
    meter = P + "icmp_error.error_meter"
    c = ptf.client
    c.write(c.update("MODIFY", c.meter_entry(meter, V4_PORT, (0, 0, 0, 0))))
    try:
        before_sent, before_limited = sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_ICMP_ERROR_RATE)
        for i in range(3):
            ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=9100 + i)))
        ptf.verify_no_other_packets()
        assert (sent(ptf, SENT_UNREACHABLE) - before_sent, drops(ptf, DROP_ICMP_ERROR_RATE) - before_limited) == (0, 3)
    finally:
        c.write(c.update("MODIFY", c.meter_entry(meter)))


def test_address_dependent_filtering_admits_only_known_remotes(ptf):
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000, filtered=1))
    ptf.insert(ptf.client.table_entry(T + "remote_filter", match={"proto": 17, "dst_addr": MAPPED,
                                                                 "dst_port": 40000, "remote_addr": V4_SERVER},
                                      action="NoAction"))
    before = drops(ptf, DROP_FILTERED)
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000), src="198.51.100.8"))
    ptf.verify_no_other_packets()
    assert drops(ptf, DROP_FILTERED) == before + 1
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000)))
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000)), V6_PORT)
    ptf.verify_no_other_packets()


def test_a_filtered_mapping_reaches_a_new_remote_through_the_controller(ptf):
    """RFC 6146 3.5.1 with address-dependent filtering: a host's packet to a remote its mapping has
    no session with goes to the controller as a session miss (which makes the session, whose
    remote_filter entry lets that remote's answers in); to a remote it has one with, translated."""
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000, filtered=1))
    ptf.insert(ptf.client.table_entry(T + "remote_filter_v6", match={"proto": 17, "src_addr": V6_HOST,
                                                                    "src_port": 5000, "remote_addr": V4_SERVER},
                                      action="NoAction"))
    new_remote = from_v6_host(UDP(sport=5000, dport=53), dst=embed("198.51.100.8", POOL6, 96))
    ptf.send(V6_PORT, new_remote)
    payload, md = ptf.client.packet_in()
    assert (payload, md["punt_reason"]) == (bytes(new_remote), PUNT_SESSION_MISS)
    ptf.verify_no_other_packets()
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53)))
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53)), V4_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_large_translated_packet_gets_df_and_fragments_keep_their_id(ptf):
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000))
    big = b"x" * 1300
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / big))
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / big, flags="DF"), V4_PORT)
    ptf.verify_no_other_packets()


def test_a_first_fragment_keeps_its_id_and_goes_to_the_controller_too(ptf):
    """An IPv6 first fragment becomes an IPv4 first fragment with MF and the identification's low
    16 bits (RFC 7915 5.1.1); a copy goes to the controller, which translates the later fragments
    from it (RFC 6146 3.4). The SUME variant hands it over instead: test_nat64_sume.py."""
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000))
    frag = from_v6_host(IPv6ExtHdrFragment(id=0xabcd1234, m=1, offset=0) / UDP(sport=5000, dport=53, len=2000,
                                                                                 chksum=0x1111) / (b"y" * 64))
    ptf.send(V6_PORT, frag)
    got = ptf.dataplane.poll(V4_PORT)
    ip = Ether(got)[IP]
    assert (ip.flags, ip.id, ip.frag, ip.proto, ip.len) == ("MF", 0x1234, 0, 17, 20 + 8 + 64)
    payload, md = ptf.client.packet_in()
    assert (payload, md["punt_reason"], md["ingress_port"]) == (bytes(frag), PUNT_FIRST_FRAGMENT, V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_later_fragments_of_stateful_datagrams_go_to_the_controller(ptf):
    """RFC 6146 3.4: a fragment after the first has no ports to find its session by. From an IPv6
    host without an EAM to pool6, or from IPv4 to a pool4 address, it goes to the controller
    (PUNT_FRAGMENT), which translates it as it saw its first fragment translated."""
    later6 = from_v6_host(IPv6ExtHdrFragment(nh=17, id=0x77, offset=10, m=0) / (b"z" * 40))
    ptf.send(V6_PORT, later6)
    payload, md = ptf.client.packet_in()
    assert (payload, md["punt_reason"], md["ingress_port"]) == (bytes(later6), PUNT_FRAGMENT, V6_PORT)
    later4 = from_v4_server(b"z" * 40, dst=MAPPED, frag=10, proto=17, id=0x77)
    ptf.send(V4_PORT, later4)
    payload, md = ptf.client.packet_in()
    assert (payload, md["punt_reason"], md["ingress_port"]) == (bytes(later4), PUNT_FRAGMENT, V4_PORT)
    ptf.verify_no_other_packets()


# ---- RFC 6052 and RFC 7757 ----

RFC6052_EXAMPLES = [   # RFC 6052 2.4: 192.0.2.33 under each prefix length
    ("2001:db8::", 32, "2001:db8:c000:221::"),
    ("2001:db8:100::", 40, "2001:db8:1c0:2:21::"),
    ("2001:db8:122::", 48, "2001:db8:122:c000:2:2100::"),
    ("2001:db8:122:300::", 56, "2001:db8:122:3c0:0:221::"),
    ("2001:db8:122:344::", 64, "2001:db8:122:344:c0:2:2100:0"),
    ("2001:db8:122:344::", 96, "2001:db8:122:344::c000:221"),
]


@BOTH
@pytest.mark.parametrize("prefix,length,expected", RFC6052_EXAMPLES, ids=[f"/{x[1]}" for x in RFC6052_EXAMPLES])
def test_rfc6052_embedding_and_extraction_for_every_length(ptf, prefix, length, expected):
    assert embed("192.0.2.33", prefix, length) == str(ipaddress.IPv6Address(expected))   # the test's own helper
    # Stateless both ways: the IPv6 host has an EAM so no session is involved.
    eam6 = ptf.client.table_entry(T + "eamt_v6_src", match={"ipv6_addr": (V6_HOST, 128)},
                                  action=T + "eam_v6_to_v4_src", params={"prefix": MAPPED, "suffix_mask": 0})
    eam4 = ptf.client.table_entry(T + "eamt_v4_dst", match={"ipv4_addr": (MAPPED, 32)},
                                  action=T + "eam_v4_to_v6_dst", params={"prefix": V6_HOST, "suffix_mask": 0})
    route = ptf.client.table_entry(P + "ipv4_routes", match={"dst_addr": ("192.0.2.33", 32)},
                                   action=P + "set_next_hop",
                                   params={"port": V4_PORT, "src_mac": ROUTER_MAC, "dst_mac": V4_HOST_MAC})
    pool = ptf.client.table_entry(T + "pool6", match={"dst_addr": (prefix, length)},
                                  action=T + f"extract_{length}")
    ptf.insert(eam6, eam4, route, pool)
    ptf.modify(ptf.client.table_entry(T + "pool6_embed", default=True, action=T + "use_pool6",
                                      params={"prefix": prefix, "length": length}))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=7, dport=7) / b"6052", dst=expected))
    ptf.verify_packet(DrawnIdentification(Ether(src=ROUTER_MAC, dst=V4_HOST_MAC) /
                                          IP(src=MAPPED, dst="192.0.2.33", ttl=63) / UDP(sport=7, dport=7) / b"6052"),
                      V4_PORT)
    ptf.send(V4_PORT, from_v4_server(UDP(sport=7, dport=7) / b"back", src="192.0.2.33"))
    ptf.verify_packet(to_v6_host(UDP(sport=7, dport=7) / b"back", src=expected), V6_PORT)
    ptf.verify_no_other_packets()


def test_stateless_siit_translates_pool6_sources_of_its_prefixes_both_ways(ptf):
    """RFC 7915 with RFC 6052 (SIIT-DC, 464XLAT): an IPv6 host at the pool6 address of an IPv4 address
    in a SIIT prefix (here 203.0.113.128/25) is translated by extraction, with no session and without
    a transport (a later fragment too), and back by embedding. A pool6 source outside the prefixes
    is no SIIT host: it needs a session, like any other IPv6 source (no forged IPv4 source)."""
    clat = embed("203.0.113.130", POOL6, 96)
    route = ptf.client.table_entry(P + "ipv6_routes", match={"dst_addr": (embed("203.0.113.128", POOL6, 96), 121)},
                                   action=P + "set_next_hop",
                                   params={"port": V6_PORT, "src_mac": ROUTER_MAC, "dst_mac": V6_HOST_MAC})
    ptf.insert(*siit_prefix(ptf, "203.0.113.128", 25), route)   # the operator routes the SIIT hosts' pool6 range
    ptf.send(V6_PORT, from_v6_host(UDP(sport=7000, dport=53) / b"siit", src=clat))
    ptf.verify_packet(to_v4_server(UDP(sport=7000, dport=53) / b"siit", src="203.0.113.130"), V4_PORT)
    ptf.send(V6_PORT, from_v6_host(IPv6ExtHdrFragment(id=0x99, m=0, offset=64, nh=17) / b"later fragment!!",
                                   src=clat))
    later = to_v4_server(b"later fragment!!", src="203.0.113.130", id=0x99)
    later[IP].frag, later[IP].proto = 64, 17
    ptf.verify_packet(later, V4_PORT)
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=7000) / b"answer", dst="203.0.113.130"))
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=7000) / b"answer", dst=clat), V6_PORT)
    # A stateful IPv6 host reaching a SIIT host: translated, hairpinned (the controller routes SIIT
    # prefixes back as it does pool4), and back as IPv6 from its pool4 address in pool6, one hop.
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000),
               ptf.client.table_entry(P + "ipv4_routes", match={"dst_addr": ("203.0.113.128", 25)}, action=P + "hairpin"))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=7000) / b"hairpin", dst=clat))
    ptf.verify_packet(to_v6_host(UDP(sport=40000, dport=7000) / b"hairpin", src=embed(MAPPED, POOL6, 96), dst=clat),
                      V6_PORT)
    outside = from_v6_host(UDP(sport=7000, dport=53) / b"forged", src=embed("203.0.113.5", POOL6, 96))
    ptf.send(V6_PORT, outside)
    payload, md = ptf.client.packet_in()
    assert (payload, md["punt_reason"]) == (bytes(outside), PUNT_SESSION_MISS), \
        "a pool6 source outside the SIIT prefixes goes to the controller for a session"
    ptf.verify_no_other_packets()


@BOTH
def test_eamt_translates_both_ways_copying_suffix_bits(ptf):
    c = ptf.client
    ptf.insert(
        c.table_entry(T + "eamt_v6_src", match={"ipv6_addr": ("2001:db8:1::e00", 120)},
                      action=T + "eam_v6_to_v4_src", params={"prefix": "203.0.113.0", "suffix_mask": 0xff}),
        c.table_entry(T + "eamt_v4_dst", match={"ipv4_addr": ("203.0.113.0", 24)},
                      action=T + "eam_v4_to_v6_dst", params={"prefix": "2001:db8:1::e00", "suffix_mask": 0xff}))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=1111, dport=2222) / b"eam", src="2001:db8:1::e42"))
    ptf.verify_packet(to_v4_server(UDP(sport=1111, dport=2222) / b"eam", src="203.0.113.66"), V4_PORT)
    ptf.send(V4_PORT, from_v4_server(UDP(sport=2222, dport=1111) / b"mae", dst="203.0.113.66"))
    ptf.verify_packet(to_v6_host(UDP(sport=2222, dport=1111) / b"mae", dst="2001:db8:1::e42"), V6_PORT)
    ptf.verify_no_other_packets()


@BOTH
def test_a_stateless_host_s_other_transports_are_translated_as_they_are(ptf):
    """RFC 7915 4.5 / 5.5 (Jool's graybox "fa", "ad"): a transport the translator does not know
    (DCCP, 33) and No Next Header (59), also behind a Fragment header, pass an EAM host's
    translation both ways: the protocol number kept, the payload untouched, one hop counted; a
    fragment keeps its identification. Only sessions need a transport to map (test_untranslatable_…)."""
    ptf.insert(*eam(ptf, "2001:db8:1::77", "192.0.2.77"))
    for proto in (33, 59):
        payload = Raw(bytes(range(24)))
        frame = from_v6_host(IPv6ExtHdrFragment(nh=proto, id=0x12345678, m=0, offset=0) / payload
                             if proto == 59 else payload, src="2001:db8:1::77")
        frame[IPv6].nh = 44 if proto == 59 else proto
        ptf.send(V6_PORT, frame)
        sent = ptf.dataplane.poll(V4_PORT)
        assert sent is not None, f"protocol {proto} from IPv6"
        out = Ether(sent)[IP]
        assert (out.src, out.dst, out.proto, out.ttl, bytes(out.payload)) == \
            ("192.0.2.77", V4_SERVER, proto, 63, bytes(payload))
        if proto == 59:
            assert out.id == 0x5678, "an atomic fragment keeps its identification's low 16 bits"
        ptf.send(V4_PORT, from_v4_server(payload, dst="192.0.2.77", proto=proto))
        expected = to_v6_host(payload, dst="2001:db8:1::77")
        expected[IPv6].nh = proto
        ptf.verify_packet(expected, V6_PORT)
    ptf.verify_no_other_packets()


# ---- robustness ----

def test_malformed_packets_are_dropped_and_counted_and_the_switch_stays_up(sut, ptf):
    bad_sum = from_v4_server(UDP(sport=53, dport=40000))
    bad_sum[IP].chksum = 0xdead
    malformed = [
        (bytes(from_v6_host(UDP()))[:30], DROP_PARSER_ERROR),                   # IPv6 header cut short
        (bytes(from_v4_server(UDP()))[:24], DROP_PARSER_ERROR),                 # IPv4 header cut short
        (bad_sum, DROP_BAD_CHECKSUM),
        (Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src=V4_SERVER, dst=MAPPED, ihl=3), DROP_PARSER_ERROR),
        (from_v4_server(ICMP(type=11) / b"\x45\x00\x00\x1c"), DROP_PARSER_ERROR),   # quoted header cut short
        (from_v4_server(UDP(sport=53, dport=40000), len=1000), DROP_BAD_LENGTH),      # lengths that lie
        (from_v6_host(UDP(sport=5000, dport=53)), DROP_BAD_LENGTH),
    ]
    malformed[-1][0][IPv6].plen = 1000
    for packet, reason in malformed:
        before = drops(ptf, reason)
        ptf.send(V4_PORT, packet)
        ptf.verify_no_other_packets()
        assert drops(ptf, reason) == before + 1, packet
    rng = __import__("random").Random(64)
    for i in range(300):
        ptf.send(1 + i % 3, bytes(rng.getrandbits(8) for _ in range(rng.choice((14, 40, 60, 120, 400)))))
    for q in sut.dataplane.pending.values():
        q.clear()
    sut.dataplane._drain(0.5)
    for q in sut.dataplane.pending.values():
        q.clear()
    while ptf.client.packet_in(timeout=0.2) is not None:
        pass
    test_udp_v6_to_v4_through_a_session(ptf)                  # still translating


@BOTH
@pytest.mark.parametrize("flags", ["MF", "DF+MF"])
def test_ipv4_fragment_gets_an_ipv6_fragment_header_and_options_are_not_translated(ptf, flags):
    """RFC 7915 4.1: a fragment gets a Fragment header with its identification, offset and MF; DF
    beside MF (Jool's graybox "ce") changes nothing for a fragment that fits."""
    from scapy.layers.inet import IPOption_RR
    c = ptf.client
    ptf.insert(c.table_entry(T + "eamt_v4_dst", match={"ipv4_addr": ("203.0.113.66", 32)},
                             action=T + "eam_v4_to_v6_dst", params={"prefix": V6_HOST, "suffix_mask": 0}))
    first = from_v4_server(UDP(sport=9, dport=9, len=1000, chksum=0x2222) / (b"f" * 32), dst="203.0.113.66",
                           id=0x4242, flags=flags, options=[IPOption_RR(routers=["0.0.0.0"])])
    ptf.send(V4_PORT, first)
    got = Ether(ptf.dataplane.poll(V6_PORT))
    assert got[IPv6].nh == 44 and got[IPv6].plen == 8 + 8 + 32, "Fragment header added, options gone"
    frag = got[IPv6ExtHdrFragment]
    assert (frag.id, frag.m, frag.offset, frag.nh) == (0x4242, 1, 0, 17)
    assert got[UDP].sport == 9 and bytes(got[UDP].payload) == b"f" * 32
    ptf.verify_no_other_packets()


SOURCE_ROUTES_TRANSLATED = ("expired", "rr-expired", "after-end-of-options", "eol-then-route-bytes",
                            "malformed-length-then-route")     # the others are refused


@pytest.mark.parametrize("route", ["lsrr", "nop-ssrr", "expired", "rr-lsrr", "nop-nop-timestamp-ssrr", "expired-lsrr",
                                   "rr-expired", "after-end-of-options", "eol-then-route-bytes", "short-option-lsrr",
                                   "malformed-length-then-route", "malformed-source-route", "route-type-last",
                                   "route-cut-after-its-length"])
def test_ipv4_with_an_unexpired_source_route_gets_source_route_failed_not_translated(ptf, route):
    """RFC 7915 4.1: options are ignored, but a packet with an unexpired source route MUST be
    discarded, and SHOULD get Destination Unreachable, Source Route Failed (3/5), quoting it with
    its options, wherever the route is among them (after a Record Route, a Timestamp, NOPs, an
    expired route, an option of two bytes); one whose pointer is past its addresses is translated,
    as are bytes after End of Option List (RFC 791: padding, not options; "00 02 83 …" would read
    as a two-byte option then a route were End of Option List taken for a type-length option).
    Malformed lengths: a source route too short to hold its pointer, or cut short by the end of
    the header, is refused; an option of length 0 stops the walk, so a route after it is not seen
    (the rest cannot be read). (The SUME card hands
    the error to the controller: test_nat64_sume.py.)"""
    from scapy.layers.inet import (IPOption, IPOption_EOL, IPOption_LSRR, IPOption_NOP, IPOption_RR, IPOption_SSRR,
                                   IPOption_Timestamp)
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    expired = IPOption_LSRR(routers=["203.0.113.1"], pointer=8)
    lsrr = "830704cb007101"     # an unexpired loose source route through 203.0.113.1, as bytes
    options = {"lsrr": [IPOption_LSRR(routers=["203.0.113.1", "203.0.113.2"])],
               "nop-ssrr": [IPOption_NOP(), IPOption_SSRR(routers=["203.0.113.1"])],
               "expired": [expired],
               "rr-lsrr": [IPOption_RR(routers=["0.0.0.0", "0.0.0.0"]), IPOption_LSRR(routers=["203.0.113.1"])],
               "nop-nop-timestamp-ssrr": [IPOption_NOP(), IPOption_NOP(), IPOption_Timestamp(flg=0, timestamp=0),
                                          IPOption_SSRR(routers=["203.0.113.1"])],
               "expired-lsrr": [expired, IPOption_NOP(), IPOption_LSRR(routers=["203.0.113.1"])],
               "rr-expired": [IPOption_RR(routers=["0.0.0.0"]), IPOption_NOP(), expired],
               "after-end-of-options": [IPOption_NOP(), IPOption_EOL(), IPOption_LSRR(routers=["203.0.113.1"])],
               "eol-then-route-bytes": [IPOption(bytes.fromhex("0002" + lsrr + "000000"))],
               "short-option-lsrr": [IPOption(bytes.fromhex("4402" + lsrr + "000000"))],
               "malformed-length-then-route": [IPOption(bytes.fromhex("4400" + lsrr + "000000"))],
               "malformed-source-route": [IPOption(bytes.fromhex("83020100"))],
               "route-type-last": [IPOption(bytes.fromhex("01010183"))],
               "route-cut-after-its-length": [IPOption(bytes.fromhex("01018307"))],
               }[route]
    # The checksum as for the packet's destination (scapy would sum the route's last address).
    datagram = bytes(IP(src=V4_SERVER, dst=MAPPED) / UDP(sport=53, dport=40000) / b"routed")[20:]
    before = (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_SOURCE_ROUTE))
    packet = from_v4_server(Raw(datagram), options=options, proto=17)
    ptf.send(V4_PORT, packet)
    refused = route not in SOURCE_ROUTES_TRANSLATED
    if refused:
        assert bytes(packet[IP])[0] & 0x0f > 5
        ptf.verify_packet(from_switch4(ICMP(type=3, code=5) / bytes(packet[IP])), V4_PORT)
    else:
        ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / b"routed"), V6_PORT)
    ptf.verify_no_other_packets()
    assert ptf.client.packet_in(timeout=0.3) is None
    assert (sent(ptf, SENT_UNREACHABLE), drops(ptf, DROP_SOURCE_ROUTE)) == (before[0] + refused, before[1])


def test_ipv4_with_an_unexpired_source_route_is_counted_when_no_error_may_be_sent(ptf):
    """A later fragment (to an EAM host: the switch translates its fragments itself) gets no error
    (RFC 1812 4.3.2.7): discarded, counted as drop reason 15."""
    from scapy.layers.inet import IPOption_LSRR
    ptf.insert(*eam(ptf, "2001:db8:1::77", "192.0.2.77"))
    before = drops(ptf, DROP_SOURCE_ROUTE)
    ptf.send(V4_PORT, from_v4_server(Raw(b"later part"), dst="192.0.2.77", frag=10, proto=17,
                                     options=[IPOption_LSRR(routers=["203.0.113.1"])]))
    ptf.verify_no_other_packets()
    assert drops(ptf, DROP_SOURCE_ROUTE) == before + 1


def test_icmp_informational_other_than_echo_is_not_translated(ptf):
    from scapy.layers.inet6 import ICMPv6NIQueryNOOP
    before4, before6 = drops(ptf, DROP_POOL4_NO_BIB), drops(ptf, DROP_NOT_TRANSLATABLE)
    ptf.send(V4_PORT, from_v4_server(ICMP(type=13, id=7), dst=MAPPED))      # timestamp: no identifier mapping
    ptf.send(V6_PORT, from_v6_host(ICMPv6NIQueryNOOP()))                    # node information query
    ptf.verify_no_other_packets()
    assert (drops(ptf, DROP_POOL4_NO_BIB), drops(ptf, DROP_NOT_TRANSLATABLE)) == (before4 + 1, before6 + 1)
