"""What the NetFPGA SUME variant (hw/netfpga/nat64_sume.p4, run by softswitch as a SimpleSumeSwitch)
does differently from the v1model pipeline. What both do alike is tested once for both: the
tests marked BOTH in test_nat64_pipeline.py run on each. Here: the variant's P4Info, and what the
card hands to the controller over DMA to finish (PUNT_FINISH, with what to finish in `finish`
and the port the packet then leaves on in `out_port`), checksums checked in the pipe, SUME's
frame size; and at the end the embedded controller driving the variant, finishing what it hands
over. Expected packets are scapy's own."""

import copy
import time

import pytest
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from scapy.layers.inet import ICMP, IP, IPOption_LSRR, IPOption_NOP, IPOption_RR, TCP, UDP
from scapy.layers.inet6 import (ICMPv6DestUnreach, ICMPv6PacketTooBig, ICMPv6ParamProblem, ICMPv6TimeExceeded, IPv6,
                                IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting)
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from harness import ROOT, netns
from harness.base import PacketTest
from harness.dataplane import expected_bytes
from nat64_setup import (MAPPED, P, POOL6, PUNT_FINISH, PUNT_NEEDS_FRAGMENTATION, PUNT_SESSION_MISS, PUNT_TOO_LONG,
                         driven_switch, ROUTER_MAC, SUME_PROGRAM, SWITCH_V4, SWITCH_V6, V4_HOST_MAC, V4_PORT, V4_SERVER,
                         V6_HOST, V6_HOST_MAC, V6_PORT, eam, embed, from_switch4, from_v4_server, from_v6_host,
                         session_v4, session_v6, to_v4_server, to_v6_host)
from nat64_setup import sume_sut  # noqa: F401  (a pytest fixture, found by name)
from test_nat64_rfc_audit import extension as rfc4884_extension

# packet_in.finish bits (hw/netfpga/include/sume_arch.p4)
FINISH_ICMP_CHECKSUM, FINISH_UDP_CHECKSUM, FINISH_TRUNCATE = 1, 2, 4
FINISH_TRACK, FINISH_HAIRPIN, FINISH_ICMP_ERROR, FINISH_NO_ETHERNET, FINISH_PROBED = 8, 16, 32, 64, 128


@pytest.fixture
def ptf(sume_sut):
    test = PacketTest(sume_sut)
    yield test
    test.finish()


def p4info(path):
    info = p4info_pb2.P4Info()
    with open(path) as f:
        text_format.Parse(f.read(), info)
    return info


def test_the_variant_is_a_sume_program_whose_tables_are_the_v1model_ones(sume_sut):
    """One controller drives both: every SUME table has the name and match fields of a v1model one."""
    sume, v1 = p4info(sume_sut.p4info_path), p4info(ROOT / "p4" / "build" / "p4info.txt")
    assert sume.pkg_info.arch == "sume"
    v1_tables = {t.preamble.name: [(f.name, f.match_type) for f in t.match_fields] for t in v1.tables}
    sume_tables = {t.preamble.name: [(f.name, f.match_type) for f in t.match_fields] for t in sume.tables}
    assert set(sume_tables) <= set(v1_tables), set(sume_tables) - set(v1_tables)
    assert all(sume_tables[n] == v1_tables[n] for n in sume_tables)
    assert {"Nat64Ingress.translate.session_v6", "Nat64Ingress.translate.session_v4",
            "Nat64Ingress.ipv4_routes", "Nat64Ingress.local_host.local_ipv6"} <= set(sume_tables)
    assert not sume.direct_counters and not sume.meters and not sume.counters, "SDNet has none"
    for name in ("Nat64Ingress.translate.session_v6", "Nat64Ingress.translate.session_v4"):
        session = next(t for t in sume.tables if t.preamble.name == name)
        assert (session.size, session.idle_timeout_behavior) == (4096, p4info_pb2.Table.NOTIFY_CONTROL), \
            "idle timeouts as on v1model: emulated by the agent through the entry's slot (hw/netfpga/README.md)"
    v1_params = {a.preamble.name: [(p.name, p.bitwidth) for p in a.params] for a in v1.actions}
    for a in sume.actions:
        if a.preamble.name in ("Nat64Ingress.translate.snat", "Nat64Ingress.translate.dnat"):
            assert [(p.name, p.bitwidth) for p in a.params] == v1_params[a.preamble.name], "the slot is the agent's"
            assert list(a.preamble.annotations) == ['@sume_idle_slot("session_hit", 13)']


def test_tcp_control_segments_go_to_the_controller_translated_and_routed(ptf):
    """No clone on SUME: a translated SYN goes to the controller whole, translated, with the port it
    leaves on; the controller tracks it and sends it on. Data segments go straight out."""
    ptf.insert(session_v6(ptf, 6, V6_HOST, 33000, MAPPED, 41000), session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000))
    ptf.send(V6_PORT, from_v6_host(TCP(sport=33000, dport=80, flags="S", seq=1000)))
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["finish"], md["out_port"], md["ingress_port"]) == \
        (PUNT_FINISH, FINISH_TRACK, V4_PORT, V6_PORT)
    assert payload == expected_bytes(to_v4_server(TCP(sport=41000, dport=80, flags="S", seq=1000)), payload)
    ptf.verify_no_other_packets()
    data = from_v4_server(TCP(sport=80, dport=41000, flags="A", seq=5, ack=1001) / b"HTTP/1.1 200 OK")
    ptf.send(V4_PORT, data)
    ptf.verify_packet(to_v6_host(TCP(sport=80, dport=33000, flags="A", seq=5, ack=1001) / b"HTTP/1.1 200 OK"), V6_PORT)
    assert ptf.client.packet_in(timeout=0.3) is None
    ptf.verify_no_other_packets()


def test_a_first_fragment_of_a_session_goes_to_the_controller_translated(ptf):
    """As a TCP control segment: v1model copies a session's first fragment of several to the
    controller, which learns from it how to translate the fragments after it (RFC 6146 3.4); the
    card hands it over translated (FINISH_TRACK) and the controller sends it on. Those after it
    are punted as on v1model (test_nat64_pipeline.py)."""
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000))
    ptf.send(V6_PORT, from_v6_host(IPv6ExtHdrFragment(id=0xabcd1234, m=1, offset=0) /
                                   UDP(sport=5000, dport=53, len=2000, chksum=0x1111) / (b"y" * 64)))
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["finish"], md["out_port"], md["ingress_port"]) == \
        (PUNT_FINISH, FINISH_TRACK, V4_PORT, V6_PORT)
    ip = Ether(payload)[IP]
    assert (ip.flags, ip.id, ip.frag, ip.src, ip[UDP].sport) == ("MF", 0x1234, 0, MAPPED, 40000)
    ptf.verify_no_other_packets()


def test_a_full_size_tcp_control_segment_from_ipv4_is_sent_on_by_the_card_untracked(ptf):
    """A 1480-byte IPv4 segment with FIN (the last of a response, MSS 1440) is 1500 bytes as IPv6:
    with Ethernet and packet_in over a DMA frame, so it cannot be handed over; the card sends it on
    rather than lose it (its session then ages on its timer), and still hands a smaller one over."""
    ptf.insert(session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000))
    data = b"l" * 1440
    ptf.send(V4_PORT, from_v4_server(TCP(sport=80, dport=41000, flags="FA", seq=7, ack=9) / data, flags="DF"))
    ptf.verify_packet(to_v6_host(TCP(sport=80, dport=33000, flags="FA", seq=7, ack=9) / data), V6_PORT)
    assert ptf.client.packet_in(timeout=0.3) is None
    ptf.send(V4_PORT, from_v4_server(TCP(sport=80, dport=41000, flags="FA", seq=7, ack=9) / data[:1420], flags="DF"))
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["finish"], len(payload)) == (PUNT_FINISH, FINISH_TRACK, 14 + 40 + 20 + 1420)
    ptf.verify_no_other_packets()


def test_ipv4_udp_without_checksum_goes_to_the_controller_to_get_one(ptf):
    """RFC 7915 4.5: the checksum is over the payload, which SDNet cannot read: translated and
    routed here, summed by the controller (FINISH_UDP_CHECKSUM)."""
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000, chksum=0) / b"no checksum here"))
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["finish"], md["out_port"]) == (PUNT_FINISH, FINISH_UDP_CHECKSUM, V6_PORT)
    finished = Ether(payload)
    assert (finished[UDP].chksum, finished[UDP].dport, finished.dst) == (0, 5000, V6_HOST_MAC)
    ptf.verify_no_other_packets()


def test_a_hairpinned_packet_goes_to_the_controller_to_come_back(ptf):
    """RFC 7757 4.2: v1model translates a packet for the NAT64's own IPv4 addresses back on a
    second pass; SUME has none, so the first translation goes to the controller (FINISH_HAIRPIN),
    which sends it back through the pipe marked `hairpinned`: translated back as v1model's second
    pass is (A's address written into pool6, one router hop for both passes)."""
    a4, b4, b6 = "203.0.113.5", "203.0.113.66", "2001:db8:1::e42"
    ptf.insert(*eam(ptf, V6_HOST, a4), *eam(ptf, b6, b4),
               ptf.client.table_entry(P + "ipv4_routes", match={"dst_addr": ("203.0.113.0", 24)}, action=P + "hairpin"))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=1000, dport=2000) / b"hi B", dst=embed(b4, POOL6, 96)))
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["finish"], md["out_port"]) == (PUNT_FINISH, FINISH_HAIRPIN, V6_PORT)
    assert (Ether(payload)[IP].src, Ether(payload)[IP].dst) == (a4, b4)
    ptf.verify_no_other_packets()
    ptf.client.packet_out(payload, to_pipeline=1, hairpinned=1)
    ptf.verify_packet(to_v6_host(UDP(sport=1000, dport=2000) / b"hi B", src=embed(a4, POOL6, 96), dst=b6, hlim=63),
                      V6_PORT)
    ptf.verify_no_other_packets()


def handed_over_unfinished(ptf, expected, out_port):
    """The card hands over (FINISH_ICMP_CHECKSUM | FINISH_TRUNCATE) what v1model sends as `expected`:
    cut to truncate_to, it is those bytes but for the ICMP checksum, which the controller sums."""
    payload, md = ptf.client.packet_in()
    want = expected_bytes(expected, payload)
    assert (md["punt_reason"], md["finish"], md["out_port"], md["truncate_to"]) == \
        (PUNT_FINISH, FINISH_ICMP_CHECKSUM | FINISH_TRUNCATE, out_port, len(want)), md
    at = 14 + (20 if IP in expected else 40) + 2
    got = payload[:md["truncate_to"]]
    assert got[:at] + got[at + 2:] == want[:at] + want[at + 2:]


def test_translated_errors_losing_their_extension_go_to_the_controller_to_be_summed(ptf):
    """RFC 4884 extensions that translation removes (test_nat64_rfc_audit.py, v1model): the card
    translates and routes the error, and hands it over to be cut where the extension began and
    summed (the controller's half: test_the_controller_cuts_and_checksums_a_translated_error…)."""
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    server6 = embed(V4_SERVER, POOL6, 96)
    quoted4 = bytes(IP(src=MAPPED, dst=V4_SERVER, ttl=30, id=0) / UDP(sport=40000, dport=53) / (b"u" * 104))
    ptf.send(V4_PORT, from_v4_server(ICMP(type=12, code=0, ptr=8, length=33) / Raw(quoted4 + rfc4884_extension())))
    quoted6 = bytes(IPv6(src=V6_HOST, dst=server6, hlim=30) / UDP(sport=5000, dport=53) / (b"u" * 104))
    handed_over_unfinished(ptf, to_v6_host(ICMPv6ParamProblem(code=0, ptr=7) / Raw(quoted6)), V6_PORT)
    quoted4 = bytes(IP(src=MAPPED, dst=V4_SERVER, ttl=30, id=0, flags="DF") / UDP(sport=40000, dport=53) / (b"v" * 100))
    ptf.send(V4_PORT, from_v4_server(ICMP(type=3, code=4, nexthopmtu=1400, length=32) /
                                     Raw(quoted4 + rfc4884_extension())))
    quoted6 = bytes(IPv6(src=V6_HOST, dst=server6, hlim=30) / UDP(sport=5000, dport=53) / (b"v" * 100))
    handed_over_unfinished(ptf, to_v6_host(ICMPv6PacketTooBig(mtu=1420) / Raw(quoted6)), V6_PORT)
    quoted6 = bytes(IPv6(src=server6, dst=V6_HOST, hlim=61) / UDP(sport=53, dport=5000) / (b"w" * 456))
    ptf.send(V6_PORT, from_v6_host(ICMPv6DestUnreach(code=4, length=63) / Raw(quoted6 + rfc4884_extension(labels=120)),
                                   dst=server6))     # too large to keep beside 128 bytes of datagram
    quoted4 = bytes(IP(src=V4_SERVER, dst=MAPPED, ttl=61, id=0) / UDP(sport=53, dport=40000) / (b"w" * 456))
    handed_over_unfinished(ptf, to_v4_server(ICMP(type=3, code=3, length=0) / Raw(quoted4)), V4_PORT)
    ptf.verify_no_other_packets()


def test_the_card_hands_over_each_error_v1model_sends_with_its_type_code_and_parameter(ptf):
    """The packets v1model answers with an ICMP error itself (the tests of test_nat64_icmp.py,
    test_nat64_extension_headers.py and test_nat64_rfc_audit.py without BOTH) go to the controller
    as they came, untranslated, with the error v1model's IcmpError would build (FINISH_ICMP_ERROR,
    error_type, error_code, error_param) and the port they came in on as out_port. What v1model
    sends no error about (an ICMP error, an IPv4 fragment after the first) is dropped. The
    controller's half: test_the_controller_sends_the_icmp_errors_the_card_hands_over."""
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000),
               *(ptf.client.table_entry(P + "egress_mtu", match={"port": port}, action=P + "set_mtu",
                                        params={"mtu": mtu}) for port, mtu in ((V4_PORT, 1400), (V6_PORT, 1300))))
    gre = from_v6_host(Raw(b"\x00\x00\x08\x00" + b"g" * 12))
    gre[IPv6].nh = 47
    routing = IPv6ExtHdrRouting(addresses=["2001:db8::99"], segleft=1)
    expiring4 = from_v4_server(UDP(sport=7, dport=7) / b"ttl", dst="198.51.100.99", ttl=1)
    cases = [   # (what, port it comes in on, the packet, (type, code, parameter) or None: dropped)
        ("Time Exceeded before translation", V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / b"x", hlim=1),
         (3, 0, 0)),
        ("an atomic fragment's Time Exceeded", V6_PORT,
         from_v6_host(IPv6ExtHdrFragment(id=2, m=0, offset=0) / UDP(sport=5000, dport=53) / b"f", hlim=1), (3, 0, 0)),
        ("no transport to map: 1/1", V6_PORT, gre, (1, 1, 0)),
        ("Destination Options after a Fragment header: 1/1", V6_PORT,
         from_v6_host(IPv6ExtHdrFragment(id=3, m=0, offset=0) / IPv6ExtHdrDestOpt() / UDP(sport=5000, dport=53)),
         (1, 1, 0)),
        ("Segments Left: pointer 43", V6_PORT, from_v6_host(routing / UDP(sport=5000, dport=53)), (4, 0, 43)),
        ("behind Hop-by-Hop: pointer 51", V6_PORT,
         from_v6_host(IPv6ExtHdrHopByHop() / routing / UDP(sport=5000, dport=53)), (4, 0, 51)),
        ("over the IPv4 MTU: PTB MTU + 20", V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / (b"m" * 1400)),
         (2, 0, 1420)),
        ("with a Fragment header: PTB MTU + 20", V6_PORT,
         from_v6_host(IPv6ExtHdrFragment(id=1, m=0, offset=0) / UDP(sport=5000, dport=53) / (b"m" * 1373)),
         (2, 0, 1420)),
        ("Destination Options left out: PTB MTU + 20", V6_PORT,
         from_v6_host(IPv6ExtHdrDestOpt() / UDP(sport=5000, dport=53) / (b"m" * 1400)), (2, 0, 1420)),
        ("an IPv4 UDP first fragment without a checksum: 3/13", V4_PORT,
         from_v4_server(UDP(sport=53, dport=40000, len=208, chksum=0) / (b"z" * 64), flags="MF", id=5), (3, 13, 0)),
        ("IPv4 with DF over the IPv6 MTU: FN MTU - 20", V4_PORT,
         from_v4_server(UDP(sport=53, dport=40000) / (b"d" * 1300), flags="DF"), (3, 4, 1280)),
        ("full-size IPv4 with DF: FN, without Ethernet", V4_PORT,
         from_v4_server(UDP(sport=53, dport=40000) / (b"d" * 1472), flags="DF"), (3, 4, 1280)),
        ("full-size IPv6 over the IPv4 MTU: PTB, without Ethernet", V6_PORT,
         from_v6_host(UDP(sport=5000, dport=53) / (b"m" * 1452)), (2, 0, 1420)),
        ("routed IPv6 over the MTU: PTB", 3,
         Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IPv6(src="2001:db8:9::1", dst="2001:db8:1::77") / (b"6" * 1300),
         (2, 0, 1300)),
        ("routed IPv4, TTL 1: Time Exceeded", V4_PORT, expiring4, (11, 0, 0)),
        ("routed IPv4 without a route: Network Unreachable", 3,
         Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst="203.0.113.77") / UDP(sport=9, dport=9),
         (3, 0, 0)),
        ("translated to IPv4 without a route: 1/0", V6_PORT,
         from_v6_host(UDP(sport=5000, dport=53) / b"n", dst=embed("203.0.113.77", POOL6, 96)), (1, 0, 0)),
        ("an ICMP error without a route", 3,
         Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst="203.0.113.77") / ICMP(type=3, code=1)
         / bytes(expiring4[IP]), None),
        ("an ICMP error about to expire", V4_PORT,
         from_v4_server(ICMP(type=3, code=1) / bytes(expiring4[IP]), dst="198.51.100.99", ttl=1), None),
        ("a later IPv4 fragment about to expire", V4_PORT,
         from_v4_server(Raw(b"f" * 16), dst="198.51.100.99", ttl=1, proto=17, frag=100), None),
        ("IPv4 options about to expire: Time Exceeded", V4_PORT,
         from_v4_server(UDP(sport=7, dport=7) / b"o", dst="198.51.100.99", ttl=1, options=[IPOption_NOP()] * 4),
         (11, 0, 0)),
        ("an unexpired source route: 3/5", V4_PORT,
         from_v4_server(UDP(sport=53, dport=40000) / b"r", options=[IPOption_NOP(), IPOption_LSRR(routers=["203.0.113.1"])]),
         (3, 5, 0)),
        ("an unexpired source route after a Record Route: 3/5", V4_PORT,
         from_v4_server(UDP(sport=53, dport=40000) / b"r",
                        options=[IPOption_RR(routers=["0.0.0.0", "0.0.0.0"]), IPOption_LSRR(routers=["203.0.113.1"])]),
         (3, 5, 0)),
    ]
    for what, port, packet, error in cases:
        ptf.send(port, packet)
        handed = ptf.client.packet_in(timeout=1 if error else 0.3)
        if error is None:
            assert handed is None, what
            continue
        assert handed is not None, what
        payload, md = handed
        # A frame that would not fit SUME's DMA beside packet_in's 10 bytes comes without its Ethernet header.
        full_size = len(packet) + 10 > 1514
        assert (md["punt_reason"], md["finish"], md["ingress_port"], md["out_port"]) == \
            (PUNT_FINISH, FINISH_ICMP_ERROR | (FINISH_NO_ETHERNET if full_size else 0), port, port), (what, md)
        assert (md["error_type"], md["error_code"], md["error_param"]) == error, (what, md)
        assert payload == bytes(packet)[14 if full_size else 0:], what
    ptf.verify_no_other_packets()


def test_a_bad_ipv4_header_checksum_is_dropped_by_the_pipe(ptf):
    """No checksum unit: the pipe sums the header itself (the good one is routed: test_untranslated_…
    in test_nat64_pipeline.py runs on both)."""
    bad = Ether(src=V6_HOST_MAC, dst="00:00:00:00:0a:01") / IP(src="203.0.113.9", dst=V4_SERVER, ttl=9, chksum=0x1234) / \
        UDP(dport=7) / b"x"
    ptf.send(V6_PORT, bad)
    ptf.verify_no_other_packets()
    good = bad.copy()
    del good[IP].chksum
    good = Ether(bytes(good))
    ptf.send(V6_PORT, good)
    out = good.copy()
    out[Ether].src, out[Ether].dst, out[IP].ttl = "00:00:00:00:0a:01", V4_HOST_MAC, 8
    del out[IP].chksum
    ptf.verify_packet(out, V4_PORT)


def test_frames_over_1514_bytes_are_dropped_as_on_the_card(ptf, sume_sut):
    """The card's ports take 1500-byte IP packets; softswitch refuses longer frames as it would.
    Both links take jumbo frames for this test only, so the translation would arrive if it were sent."""
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000))
    links = [f"{sume_sut.links}{end}{n}" for end in ("t", "sw") for n in (V6_PORT, V4_PORT)]
    for link in links:
        netns.run("ip", "link", "set", link, "mtu", "9000")
    try:
        ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / (b"j" * 1500)))
        ptf.verify_no_other_packets()
    finally:
        for link in links:
            netns.run("ip", "link", "set", link, "mtu", "1500")
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / (b"s" * 1400)))
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / (b"s" * 1400), flags="DF"), V4_PORT)
    ptf.verify_no_other_packets()


def test_a_full_size_session_miss_comes_without_ethernet_and_goes_back_so(ptf):
    """A 1500-byte first packet of a flow (a UDP datagram opening it) fits a DMA frame beside
    packet_in only without its Ethernet header (FINISH_NO_ETHERNET), and beside packet_out only so
    too: the controller sends the IP packet back with its EtherType in packet_out.ether_type, and
    the pipe translates and routes it as v1model does the whole frame."""
    datagram = UDP(sport=5000, dport=53) / (b"f" * 1452)
    sent = from_v6_host(datagram)
    ptf.send(V6_PORT, sent)
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["finish"], md["ingress_port"]) == (PUNT_SESSION_MISS, FINISH_NO_ETHERNET, V6_PORT)
    assert payload == bytes(sent[IPv6])
    ptf.verify_no_other_packets()
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000))
    ptf.client.packet_out(payload, to_pipeline=1, ether_type=0x86dd)
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / (b"f" * 1452), flags="DF"), V4_PORT)
    ptf.verify_no_other_packets()


def full_size_v4(ptf, **udp):
    """A 1500-byte IPv4 datagram without DF to the IPv6 host through a session: as IPv6 with its
    Fragment header it is 1528 bytes, over a DMA frame even without Ethernet (RFC 7915 4.1)."""
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    return from_v4_server(UDP(sport=53, dport=40000, **udp) / (bytes(range(256)) * 5 + b"t" * 192), id=0x4321)


@pytest.mark.parametrize("checksum", [None, 0], ids=["checksum", "no-checksum"])
def test_ipv4_too_long_to_translate_here_comes_as_it_came_and_its_probe_comes_back_translated(ptf, checksum):
    """The card hands such a packet over as it came (PUNT_TOO_LONG, without Ethernet); the
    controller sends its IP header and the 20 bytes after it, then 8 bytes of its own, through the
    pipe as a probe. The pipe takes the lengths the headers state and hands the translation back
    (FINISH_PROBED): v1model's translation of the whole datagram up to where the probe ends, the
    controller's 8 bytes after it. A UDP datagram without a checksum also asks for one."""
    udp = {} if checksum is None else {"chksum": 0}
    big = full_size_v4(ptf, **udp)
    assert len(big[IP]) == 1500
    ptf.send(V4_PORT, big)
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["finish"], md["ingress_port"]) == (PUNT_TOO_LONG, FINISH_NO_ETHERNET, V4_PORT)
    assert payload == bytes(big[IP])
    ptf.verify_no_other_packets()
    token = b"\x01\x02\x03\x04\x05\x06\x07\x08"
    probe = bytes(big)[:14 + 20 + 48] + token
    ptf.client.packet_out(probe, to_pipeline=1, probe=1)
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["finish"]) == \
        (PUNT_NEEDS_FRAGMENTATION, FINISH_PROBED | (FINISH_UDP_CHECKSUM if checksum == 0 else 0)), md
    whole = to_v6_host(IPv6ExtHdrFragment(id=0x4321, m=0, offset=0) / big[UDP].copy())
    whole[UDP].sport, whole[UDP].dport = 53, 5000
    if checksum is None:
        del whole[UDP].chksum               # what the card's delta must come to
    want = bytes(whole)
    assert payload[-8:] == token
    assert payload[:-8] == want[:len(payload) - 8]
    ptf.verify_no_other_packets()


def test_what_fits_a_dma_frame_is_handed_over_translated_and_what_does_not_as_it_came(ptf):
    """IPv4 without DF to fragment as IPv6: up to 1462 bytes its translation with its Fragment
    header, Ethernet and packet_in fit 1514 bytes (PUNT_NEEDS_FRAGMENTATION, translated); from 1463
    bytes it comes as it came (PUNT_TOO_LONG), without Ethernet from 1491 bytes."""
    full_size_v4(ptf)      # its session
    for size, (reason, finish) in ((1462, (PUNT_NEEDS_FRAGMENTATION, 0)), (1463, (PUNT_TOO_LONG, 0)),
                                   (1490, (PUNT_TOO_LONG, 0)), (1491, (PUNT_TOO_LONG, FINISH_NO_ETHERNET))):
        packet = from_v4_server(UDP(sport=53, dport=40000) / (b"b" * (size - 28)))
        ptf.send(V4_PORT, packet)
        payload, md = ptf.client.packet_in()
        assert (md["punt_reason"], md["finish"]) == (reason, finish), (size, md)
        if reason == PUNT_TOO_LONG:
            assert payload == bytes(packet)[14 if finish else 0:], size
        else:
            assert len(payload) == 1514 - 10 and Ether(payload)[IPv6ExtHdrFragment].nh == 17
    ptf.verify_no_other_packets()


def test_an_icmpv4_error_too_long_to_translate_here_is_probed_and_comes_back_to_be_cut(ptf):
    """RFC 7915 4.2: an ICMPv4 error quoting a 1472-byte datagram (1500 bytes) is 1540 bytes
    translated, to be cut to 1280 and summed by the controller: over a DMA frame, so it comes as it
    came, and its probe (IP header, ICMP header and the 40 bytes of quoted headers, token) comes
    back translated with what to finish (FINISH_PROBED | FINISH_ICMP_CHECKSUM | FINISH_TRUNCATE)."""
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    quoted = IP(src=MAPPED, dst=V4_SERVER, ttl=60) / UDP(sport=40000, dport=53) / (b"q" * 1444)
    error = from_v4_server(ICMP(type=3, code=3) / bytes(quoted))
    assert len(error[IP]) == 1500
    ptf.send(V4_PORT, error)
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["finish"]) == (PUNT_TOO_LONG, FINISH_NO_ETHERNET), md
    token = bytes(range(8))
    ptf.client.packet_out(bytes(error)[:14 + 20 + 48] + token, to_pipeline=1, probe=1)
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["finish"], md["out_port"], md["truncate_to"]) == \
        (PUNT_FINISH, FINISH_PROBED | FINISH_ICMP_CHECKSUM | FINISH_TRUNCATE, V6_PORT, 14 + 1280), md
    assert payload[-8:] == token
    back = Ether(payload[:-8])
    assert (back[IPv6].src, back[IPv6].dst, back[IPv6].plen, back[ICMPv6DestUnreach].code) == \
        (embed(V4_SERVER, POOL6, 96), V6_HOST, 1280 - 40, 4)     # the length cut to
    ptf.verify_no_other_packets()


def test_a_probe_never_leaves_the_card(ptf):
    """A probe is only headers: whatever the pipe would do with it but hand it over to be
    fragmented (here: no session, then a datagram that fits), it is dropped."""
    full_size_v4(ptf)      # its session
    no_session = bytes(from_v4_server(UDP(sport=53, dport=41000) / (b"n" * 1472)))
    fits = bytes(from_v4_server(UDP(sport=53, dport=40000) / (b"s" * 100)))
    for frame in (no_session[:54] + bytes(8), fits[:54] + bytes(8)):
        ptf.client.packet_out(frame, to_pipeline=1, probe=1)
        assert ptf.client.packet_in(timeout=0.5) is None
    ptf.verify_no_other_packets()


# ---- the embedded controller in the loop ----

SUME_FABRIC = {
    "apps": {"org.nat64fabric.app": {"nat64": {
        "pool6": POOL6 + "/96",
        "pool4": {"addresses": ["192.0.2.8/30"], "udpPorts": [1024, 65535], "blockSize": 64, "blocksPerSubscriber": 4},
    }}},
    "devices": {"device:sume1": {
        "basic": {"managementAddress": "grpc://127.0.0.1:{port}?device_id=1"},
        "nat64fabric": {"role": "BORDER", "routerMac": ROUTER_MAC, "ipv4": "192.0.2.1", "ipv6": "2001:db8:1::1",
                        "routes": [{"prefix": "2001:db8:1::/64", "port": V6_PORT, "nextHopMac": V6_HOST_MAC},
                                   {"prefix": "198.51.100.0/24", "port": V4_PORT, "nextHopMac": V4_HOST_MAC}],
                        "portMtus": {str(V4_PORT): 1400}}}},
}


@pytest.fixture(scope="module")
def sume_fabric(tmp_path_factory):
    """A SUME variant switch that the embedded controller drives: it pushes the program, writes
    what the pipeline holds (skipping what a SUME pipeline has not: meters, ICMP error tables,
    clone sessions), sets sessions up and finishes what the card hands it."""
    tmp = tmp_path_factory.mktemp("sume-fabric")
    with driven_switch(tmp, SUME_PROGRAM, SUME_FABRIC, "f") as (api, dataplane, _):
        yield api, dataplane, tmp


def first_through(sume_fabric, frame, in_port=V6_PORT, out_port=V4_PORT):
    """Sends a new flow's first packet until it comes out translated, as a host resends ("connected"
    may come before the base entries are written); waits out the resends that were set up too."""
    api, dataplane, tmp = sume_fabric
    for _ in range(10):
        dataplane.send(in_port, frame)
        out = dataplane.poll(out_port, timeout=1)
        if out is not None:
            while dataplane.poll(out_port, timeout=1.5) is not None:
                pass
            return Ether(out)
    raise AssertionError((tmp / "controller.log").read_text()[-3000:])


def test_the_controller_sets_sessions_up_on_the_card_and_finishes_what_it_hands_over(sume_fabric):
    """A new flow from the IPv6 host is punted, set up by the controller and translated by the
    card; the server's answer without a UDP checksum is translated by the card and given its
    checksum by the controller (RFC 7915 4.5) before it reaches the host."""
    api, dataplane, tmp = sume_fabric
    translated = first_through(sume_fabric, from_v6_host(UDP(sport=5353, dport=53) / b"query"))
    mapped, port = translated[IP].src, translated[UDP].sport
    assert translated[IP].dst == V4_SERVER and translated[UDP].dport == 53 and mapped.startswith("192.0.2.")
    check = translated.copy()
    del check[UDP].chksum
    assert Ether(bytes(check))[UDP].chksum == translated[UDP].chksum, "the card's adjusted checksum is right"
    dataplane.send(V4_PORT, from_v4_server(UDP(sport=53, dport=port, chksum=0) / b"answer", dst=mapped))
    dataplane.verify_packet(to_v6_host(UDP(sport=53, dport=5353) / b"answer"), V6_PORT)
    dataplane.verify_no_other_packets()
    stats = api.call("GET", "/stats")[1]
    assert stats["finish.sent"] == 1 and stats["setups.translated"] >= 1, stats


def test_the_controller_tracks_tcp_from_what_the_card_hands_over(sume_fabric):
    """The card has no clone to the CPU: a translated SYN, SYN-ACK or FIN comes to the controller
    whole (FINISH_TRACK), which tracks it from the flow it was translated from (RFC 6146
    3.5.2) and sends it on unchanged; the session's TCP state follows the handshake."""
    api, dataplane, tmp = sume_fabric
    syn = first_through(sume_fabric, from_v6_host(TCP(sport=34000, dport=80, flags="S", seq=100)))
    mapped, port = syn[IP].src, syn[TCP].sport
    assert (syn[IP].dst, syn[TCP].dport, syn[TCP].flags, syn[TCP].seq) == (V4_SERVER, 80, "S", 100)

    def state():
        sessions = api.call("GET", "/sessions?protocol=TCP")[1]["sessions"]
        return [s["tcpState"] for s in sessions if s["ipv6Port"] == 34000]

    assert state() == ["V6_INIT"], state()
    stats = api.call("GET", "/stats")[1]
    dataplane.send(V4_PORT, from_v4_server(TCP(sport=80, dport=port, flags="SA", seq=7, ack=101), dst=mapped))
    dataplane.verify_packet(to_v6_host(TCP(sport=80, dport=34000, flags="SA", seq=7, ack=101)), V6_PORT)
    assert wait_for(lambda: state() == ["ESTABLISHED"]), state()
    dataplane.send(V6_PORT, from_v6_host(TCP(sport=34000, dport=80, flags="FA", seq=101, ack=8)))
    dataplane.verify_packet(to_v4_server(TCP(sport=port, dport=80, flags="FA", seq=101, ack=8), src=mapped), V4_PORT)
    assert wait_for(lambda: state() == ["V6_FIN_RCV"]), state()
    after = api.call("GET", "/stats")[1]
    assert after["finish.sent"] - stats["finish.sent"] == 2 and after.get("finish.untracked", 0) == 0, after
    dataplane.verify_no_other_packets()


def wait_for(condition, timeout=5):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def test_the_controller_hairpins_through_the_card(sume_fabric):
    """RFC 6146 3.8: one IPv6 flow reaches another's pool4 transport address. The card translates
    it once and hands it over (FINISH_HAIRPIN); the controller sends it back through the pipe
    marked as the second pass, and it reaches the other flow from its own pool4 address in pool6,
    one router hop later."""
    api, dataplane, tmp = sume_fabric

    b = first_through(sume_fabric, from_v6_host(UDP(sport=6000, dport=53) / b"B opens"))
    b4, b_port = b[IP].src, b[UDP].sport
    before = api.call("GET", "/stats")[1]
    to_b = from_v6_host(UDP(sport=6001, dport=b_port) / b"A to B", dst=embed(b4, POOL6, 96))
    arrived = first_through(sume_fabric, to_b, out_port=V6_PORT)
    a = [s for s in api.call("GET", "/sessions?protocol=UDP")[1]["sessions"] if s["ipv6Port"] == 6001]
    assert len(a) == 1 and (a[0]["remoteIpv4Address"], a[0]["remotePort"]) == (b4, b_port), a
    a4, a_port = a[0]["ipv4Address"], a[0]["ipv4Port"]
    assert arrived == Ether(bytes(to_v6_host(UDP(sport=a_port, dport=6000) / b"A to B", src=embed(a4, POOL6, 96),
                                             hlim=63)))
    after = api.call("GET", "/stats")[1]
    assert after["finish.hairpinned"] > before.get("finish.hairpinned", 0), after
    assert after.get("finish.notSupported", 0) == 0, after


def test_hairpinned_udp_to_an_unmapped_pool4_port_gets_port_unreachable_through_the_controller(sume_fabric):
    """As v1model's test_nat64_icmp.py::test_hairpinned_udp_to_a_pool4_port_without_a_mapping_gets_port_unreachable:
    the card's second pass of A's datagram finds no BIB entry for the pool4 port and hands it over
    for Port Unreachable (FINISH_ICMP_ERROR); the controller sends the error to A's own pool4
    address through the pipe, which translates it back: A gets ICMPv6 1/4 from the switch's IPv4
    address in pool6, quoting its datagram as it sent it."""
    api, dataplane, tmp = sume_fabric
    unmapped6 = embed("192.0.2.11", POOL6, 96)      # in pool4; the port below is in no block handed out
    to_nobody = from_v6_host(UDP(sport=6200, dport=1023) / b"anyone?", dst=unmapped6)
    quoted6 = IPv6(src=V6_HOST, dst=unmapped6, hlim=63) / UDP(sport=6200, dport=1023) / b"anyone?"
    expected = Ether(bytes(to_v6_host(ICMPv6DestUnreach(code=4) / quoted6, src=embed(SWITCH_V4, POOL6, 96),
                                      hlim=63)))
    got = first_through(sume_fabric, to_nobody, out_port=V6_PORT)
    assert got == expected, got.show2(dump=True)
    dataplane.verify_no_other_packets()


def test_the_controller_hairpins_a_routers_packet_too_big_about_a_hairpinned_packet_back(sume_fabric):
    """Jool's graybox "ptb66" through pool4 with a full-size packet, as v1model's
    test_nat64_rfc_audit.py::test_packet_too_big_about_a_stateful_hairpinned_packet_is_hairpinned_back:
    A's datagram to B's pool4 transport address went round to B; an IPv6 router on B's side sends a
    Packet Too Big of MTU 1 400 quoting 1 232 bytes of it as B saw it. The card translates it to a
    Fragmentation Needed of MTU 1 380 to A's mapping and hands it over to be cut to 576 bytes, summed
    and hairpinned; the controller does so, and the card's second pass gives A a Packet Too Big of
    MTU 1 400 quoting what the cut left of its datagram as A sent it, from the switch's IPv4 address
    in pool6 (no RFC 6791 pool), one router hop later."""
    api, dataplane, tmp = sume_fabric
    b = first_through(sume_fabric, from_v6_host(UDP(sport=6100, dport=53) / b"B opens"))
    b4, b_port = b[IP].src, b[UDP].sport
    to_b = from_v6_host(UDP(sport=6101, dport=b_port) / (b"x" * 1300), dst=embed(b4, POOL6, 96))
    arrived = first_through(sume_fabric, to_b, out_port=V6_PORT)
    a6, a_port = arrived[IPv6].src, arrived[UDP].sport
    router = "2001:db8:1::fe"
    seen = IPv6(src=a6, dst=V6_HOST, hlim=62) / UDP(sport=a_port, dport=6100) / (b"x" * 1300)
    dataplane.send(V6_PORT, from_v6_host(ICMPv6PacketTooBig(mtu=1400) / bytes(seen)[:1280 - 48], src=router, dst=a6))
    sent = IPv6(src=V6_HOST, dst=embed(b4, POOL6, 96), hlim=62) / UDP(sport=6101, dport=b_port) / (b"x" * 1300)
    left = 576 - 20 - 8 - 20   # of the transport header and payload, in the ICMPv4 error cut to 576 bytes
    expected = to_v6_host(ICMPv6PacketTooBig(mtu=1400) / bytes(sent)[:40 + left], src=embed(SWITCH_V4, POOL6, 96))
    got = dataplane.poll(V6_PORT, timeout=3)
    assert got is not None, (tmp / "controller.log").read_text()[-3000:]
    assert Ether(got) == Ether(bytes(expected)), Ether(got).show2(dump=True)
    dataplane.verify_no_other_packets()


def test_the_controller_sends_the_icmp_errors_the_card_hands_over(sume_fabric):
    """The errors v1model's switch builds itself (icmp_error.p4) the card hands over as they came
    (FINISH_ICMP_ERROR, with type, code and parameter); the controller builds each in the
    packet's family from the switch's own address, quoting at most 576 / 1280 bytes, and sends it
    back out of the port the packet came in on: the same bytes as v1model's."""
    api, dataplane, tmp = sume_fabric
    before = api.call("GET", "/stats")[1]

    def answered(port, packet, error):
        dataplane.send(port, packet)
        try:
            dataplane.verify_packet(error, port)
        except AssertionError as e:
            stats = api.call("GET", "/stats")[1]
            raise AssertionError(f"{e}\nstats: {stats}\n" + (tmp / "controller.log").read_text()[-2000:])

    expiring = from_v6_host(UDP(sport=5000, dport=53) / (b"b" * 1400), hlim=1)
    answered(V6_PORT, expiring, Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
             ICMPv6TimeExceeded(code=0) / bytes(expiring[IPv6])[:1280 - 48])
    gre = from_v6_host(Raw(b"\x00\x00\x08\x00" + b"g" * 12))
    gre[IPv6].nh = 47
    answered(V6_PORT, gre, Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
             ICMPv6DestUnreach(code=1) / bytes(gre[IPv6]))
    routing = from_v6_host(IPv6ExtHdrRouting(addresses=["2001:db8::99"], segleft=1) / UDP(sport=5000, dport=53))
    answered(V6_PORT, routing, Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
             ICMPv6ParamProblem(code=0, ptr=43) / bytes(routing[IPv6]))
    routed = from_v4_server(UDP(sport=7, dport=7) / b"ttl", dst="198.51.100.99", ttl=1)
    answered(V4_PORT, routed, from_switch4(ICMP(type=11, code=0) / bytes(routed[IP])))
    with_options = from_v4_server(UDP(sport=7, dport=7) / b"ttl", dst="198.51.100.99", ttl=1,
                                  options=[IPOption_NOP()] * 4)
    answered(V4_PORT, with_options, from_switch4(ICMP(type=11, code=0) / bytes(with_options[IP])))
    unrouted = from_v4_server(UDP(sport=7, dport=7) / b"no route", dst="203.0.113.77")   # RFC 1812 5.2.7.1
    answered(V4_PORT, unrouted, from_switch4(ICMP(type=3, code=0) / bytes(unrouted[IP])))
    # RFC 7915 4 with the IPv6 port's MTU of 1500: IPv4 with DF that grows past it as IPv6 gets
    # Fragmentation Needed with the MTU it may have as IPv4, quoted within 576 bytes.
    out = first_through(sume_fabric, from_v6_host(UDP(sport=5400, dport=53) / b"open"))
    mapped, port = out[IP].src, out[UDP].sport
    big = from_v4_server(UDP(sport=53, dport=port) / (b"d" * 1462), dst=mapped, flags="DF")   # 1490 bytes
    answered(V4_PORT, big, from_switch4(ICMP(type=3, code=4, nexthopmtu=1480) / bytes(big[IP])[:576 - 28]))
    # RFC 7915 5.1: IPv6 over the IPv4 link's MTU (1400) gets Packet Too Big with that MTU plus 20.
    big6 = from_v6_host(UDP(sport=5400, dport=53) / (b"m" * 1400))              # 1428 bytes as IPv4
    answered(V6_PORT, big6, Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
             ICMPv6PacketTooBig(mtu=1420) / bytes(big6[IPv6])[:1280 - 48])
    # Never an error about an ICMP error (RFC 792, RFC 4443 2.4(e)): an expiring one is dropped.
    dataplane.send(V4_PORT, from_v4_server(ICMP(type=3, code=1) / bytes(routed[IP]), dst="198.51.100.99", ttl=1))
    dataplane.verify_no_other_packets()
    after = api.call("GET", "/stats")[1]
    sent = {kind: after.get("icmpErrors.sent." + kind, 0) - before.get("icmpErrors.sent." + kind, 0)
            for kind in ("timeExceeded", "unreachable", "tooBig", "parameterProblem")}
    assert sent == {"timeExceeded": 3, "unreachable": 2, "tooBig": 2, "parameterProblem": 1}, after


def test_the_controller_answers_full_size_packets_the_card_hands_over_without_ethernet(sume_fabric):
    """A 1500-byte IP packet and packet_in's 10 bytes fill SUME's 1514-byte DMA frame only without
    the Ethernet header (FINISH_NO_ETHERNET); the controller writes it back from the route to the
    packet's source, and the error is v1model's, byte for byte: Fragmentation Needed about IPv4
    with DF that grows past the IPv6 port's MTU (RFC 7915 4, RFC 6146 3.5: 1480 as IPv4), Packet
    Too Big about IPv6 over the IPv4 link's MTU (RFC 7915 5.1: 1400 + 20)."""
    api, dataplane, tmp = sume_fabric
    out = first_through(sume_fabric, from_v6_host(UDP(sport=5402, dport=53) / b"open"))
    mapped, port = out[IP].src, out[UDP].sport
    before = api.call("GET", "/stats")[1]
    big4 = from_v4_server(UDP(sport=53, dport=port) / (b"d" * 1472), dst=mapped, flags="DF")
    big6 = from_v6_host(UDP(sport=5402, dport=53) / (b"m" * 1452))
    assert len(big4[IP]) == len(big6[IPv6]) == 1500
    dataplane.send(V4_PORT, big4)
    dataplane.verify_packet(from_switch4(ICMP(type=3, code=4, nexthopmtu=1480) / bytes(big4[IP])[:576 - 28]), V4_PORT)
    dataplane.send(V6_PORT, big6)
    dataplane.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=64) /
                            ICMPv6PacketTooBig(mtu=1420) / bytes(big6[IPv6])[:1280 - 48], V6_PORT)
    dataplane.verify_no_other_packets()
    after = api.call("GET", "/stats")[1]
    assert after.get("icmpErrors.sent.tooBig", 0) - before.get("icmpErrors.sent.tooBig", 0) == 2, after
    assert after.get("icmpErrors.notSent", 0) == before.get("icmpErrors.notSent", 0), after


def test_the_controller_cuts_and_checksums_a_translated_error_the_card_hands_over(sume_fabric):
    """RFC 1812 4.3.2.3: an IPv6 router's error quoting 1100 bytes leaves as a 576-byte ICMPv4
    error. The card translates and routes it, and hands it over (FINISH_ICMP_CHECKSUM |
    FINISH_TRUNCATE): the controller cuts it and sums what is left, the bytes v1model sends."""
    api, dataplane, tmp = sume_fabric
    out = first_through(sume_fabric, from_v6_host(UDP(sport=5401, dport=53) / b"open"))
    mapped, port = out[IP].src, out[UDP].sport
    before = api.call("GET", "/stats")[1]
    payload = b"z" * 1100
    quoted6 = IPv6(src=embed(V4_SERVER, POOL6, 96), dst=V6_HOST, hlim=61) / UDP(sport=53, dport=5401) / payload
    dataplane.send(V6_PORT, from_v6_host(ICMPv6TimeExceeded(code=0) / quoted6, src="2001:db8:1::fe",
                                         dst=embed(V4_SERVER, POOL6, 96)))
    quoted4 = IP(src=V4_SERVER, dst=mapped, ttl=61, id=0) / UDP(sport=53, dport=port) / payload
    switch4 = SUME_FABRIC["devices"]["device:sume1"]["nat64fabric"]["ipv4"]   # RFC 6791 4: no pool configured
    whole = to_v4_server(ICMP(type=11, code=0) / quoted4, src=switch4)
    dataplane.verify_packet(to_v4_server(ICMP(type=11, code=0) / Raw(bytes(whole[ICMP].payload)[:576 - 28]),
                                         src=switch4), V4_PORT)
    dataplane.verify_no_other_packets()
    after = api.call("GET", "/stats")[1]
    assert after["finish.sent"] == before.get("finish.sent", 0) + 1, after


def fragments_of(dataplane, port, count):
    frames = [dataplane.poll(port, timeout=2) for _ in range(count)]
    assert None not in frames, frames
    return [Ether(f) for f in frames]


def test_the_controller_translates_full_size_ipv4_by_probing_the_card_and_fragments_it(sume_fabric):
    """RFC 7915 4 / 4.1: a 1500-byte IPv4 datagram without DF to an IPv6 host leaves as IPv6
    fragments of at most the lowest IPv6 MTU (1280), carrying its identification. The card cannot
    hand its 1528-byte translation over; the controller probes the card's pipe with its headers and
    puts the payload behind their translation (hw/netfpga/README.md). What arrives is v1model's:
    the same fragments, the datagram's checksum right."""
    api, dataplane, tmp = sume_fabric
    out = first_through(sume_fabric, from_v6_host(UDP(sport=5403, dport=53) / b"open"))
    mapped, port = out[IP].src, out[UDP].sport
    before = api.call("GET", "/stats")[1]
    data = bytes(range(256)) * 5 + b"p" * 192
    big = from_v4_server(UDP(sport=53, dport=port) / data, dst=mapped, id=0x2468)
    assert len(big[IP]) == 1500
    dataplane.send(V4_PORT, big)
    frames = fragments_of(dataplane, V6_PORT, 2)
    dataplane.verify_no_other_packets()
    for f in frames:
        assert (f.src, f.dst, f[IPv6].src, f[IPv6].dst, f[IPv6].hlim) == \
            (ROUTER_MAC, V6_HOST_MAC, embed(V4_SERVER, POOL6, 96), V6_HOST, 63), f.summary()
        assert len(f[IPv6]) <= 1280 and f[IPv6ExtHdrFragment].id == 0x2468
    first, last = sorted(frames, key=lambda f: f[IPv6ExtHdrFragment].offset)
    assert (first[IPv6ExtHdrFragment].m, last[IPv6ExtHdrFragment].m) == (1, 0)
    assert last[IPv6ExtHdrFragment].offset * 8 == len(first[IPv6ExtHdrFragment].payload)
    datagram = bytes(first[IPv6ExtHdrFragment].payload) + bytes(last[IPv6ExtHdrFragment].payload)
    whole = UDP(datagram)
    assert (whole.sport, whole.dport, bytes(whole.payload)) == (53, 5403, data)
    check = IPv6(src=first[IPv6].src, dst=V6_HOST) / UDP(sport=53, dport=5403) / data
    assert whole.chksum == IPv6(bytes(check))[UDP].chksum, "the datagram's checksum is right"
    after = api.call("GET", "/stats")[1]
    assert after.get("fragmentation.probes", 0) - before.get("fragmentation.probes", 0) == 1, after


@pytest.fixture(scope="module")
def sume_fabric_1500(tmp_path_factory):
    """The same fabric with the IPv4 link's MTU at 1500, which a full-size IPv6 packet fits translated."""
    config = copy.deepcopy(SUME_FABRIC)
    del config["devices"]["device:sume1"]["nat64fabric"]["portMtus"]
    tmp = tmp_path_factory.mktemp("sume-fabric-1500")
    with driven_switch(tmp, SUME_PROGRAM, config, "g") as (api, dataplane, _):
        yield api, dataplane, tmp


def test_the_controller_sets_up_a_full_size_first_packet_the_card_hands_over_without_ethernet(sume_fabric_1500):
    """A flow opened by a 1500-byte datagram: punted without Ethernet, set up, sent back through
    the card without Ethernet (packet_out.ether_type), translated there as v1model translates it."""
    data = b"q" * 1452
    out = first_through(sume_fabric_1500, from_v6_host(UDP(sport=5404, dport=53) / data))
    assert (out[IP].dst, out[UDP].dport, len(out[IP]), bytes(out[UDP].payload)) == (V4_SERVER, 53, 1480, data)
    check = out.copy()
    del check[UDP].chksum
    assert Ether(bytes(check))[UDP].chksum == out[UDP].chksum


def test_the_controller_fragments_full_size_routed_ipv4_the_card_hands_over_without_ethernet(sume_fabric):
    """RFC 791 / RFC 1812 4.2.2.7: routed IPv4 without DF over the next hop's MTU (1400) is
    fragmented. A 1500-byte packet comes without its Ethernet header; the controller writes the
    route's MACs and sends the fragments out of its port."""
    api, dataplane, tmp = sume_fabric
    data = b"r" * 1472
    dataplane.send(V4_PORT, from_v4_server(UDP(sport=7, dport=7) / data, dst="198.51.100.99", id=0x1357))
    frames = fragments_of(dataplane, V4_PORT, 2)
    dataplane.verify_no_other_packets()
    for f in frames:
        assert (f.src, f.dst, f[IP].ttl, f[IP].id, f[IP].dst) == (ROUTER_MAC, V4_HOST_MAC, 63, 0x1357, "198.51.100.99")
        assert len(f[IP]) <= 1400
    first, last = sorted(frames, key=lambda f: f[IP].frag)
    assert (first[IP].flags.MF, last[IP].flags.MF) == (1, 0)
    assert bytes(first[IP].payload)[8:] + bytes(last[IP].payload) == data


def test_the_controller_translates_a_full_size_icmpv4_error_by_probing_the_card_and_cuts_it(sume_fabric):
    """RFC 7915 4.2, RFC 4443 2.4(c): an ICMPv4 port unreachable quoting a full 1472-byte datagram
    reaches the IPv6 host as ICMPv6 1/4 cut to 1280 bytes, its checksum over the whole message, the
    datagram it quotes translated back to the host's own addresses and ports."""
    api, dataplane, tmp = sume_fabric
    out = first_through(sume_fabric, from_v6_host(UDP(sport=5405, dport=53) / b"open"))
    mapped, port = out[IP].src, out[UDP].sport
    quoted = IP(src=mapped, dst=V4_SERVER, ttl=60) / UDP(sport=port, dport=53) / (b"e" * 1444)
    dataplane.send(V4_PORT, from_v4_server(ICMP(type=3, code=3) / bytes(quoted), dst=mapped))
    got = Ether(dataplane.poll(V6_PORT, timeout=3))
    dataplane.verify_no_other_packets()
    assert (got[IPv6].src, got[IPv6].dst, len(got[IPv6]), got[ICMPv6DestUnreach].code) == \
        (embed(V4_SERVER, POOL6, 96), V6_HOST, 1280, 4)
    check = got[IPv6].copy()
    del check[ICMPv6DestUnreach].cksum
    assert IPv6(bytes(check))[ICMPv6DestUnreach].cksum == got[ICMPv6DestUnreach].cksum, "summed over the message"
    inner = IPv6(bytes(got[ICMPv6DestUnreach].payload))
    assert (inner.src, inner.dst, inner[UDP].sport, inner[UDP].dport) == \
        (V6_HOST, embed(V4_SERVER, POOL6, 96), 5405, 53)
