"""The NetFPGA SUME variant (hw/netfpga/nat64_sume.p4) run by softswitch as a SimpleSumeSwitch: the
same tables as the v1model pipeline, written the same way, translate the same packets to the same
bytes; what the card cannot do reaches the controller over DMA (PUNT_FINISH with what to finish).
nf1-nf3 are ports 1-3 here, DMA the CPU port. Expected packets are scapy's own, as in the v1model
suites (test_nat64_pipeline.py), whose helpers these tests share."""
import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import (ICMPv6EchoReply, ICMPv6EchoRequest, ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr,
                                ICMPv6NDOptSrcLLAddr, IPv6)
from scapy.layers.l2 import ARP, Ether

from harness import ROOT, netns
from harness.base import PacketTest, switch_under_test
from nat64_setup import (MAPPED, P, POOL4, POOL6, PUNT_SESSION_MISS, ROUTER_MAC, SWITCH_V4, SWITCH_V6, T, V4_HOST_MAC,
                         V4_PORT, V4_SERVER, V6_HOST, V6_HOST_MAC, V6_PORT, from_v4_server, from_v6_host, routed,
                         session_v4, session_v6, to_v4_server, to_v6_host)

SUME_PROGRAM = ROOT / "hw" / "netfpga" / "nat64_sume.p4"
PUNT_FINISH = 5
# packet_in.finish bits (hw/netfpga/include/sume_arch.p4)
FINISH_ICMP_CHECKSUM, FINISH_UDP_CHECKSUM, FINISH_TRUNCATE, FINISH_TCP_CONTROL = 1, 2, 4, 8


@pytest.fixture(scope="module")
def sume():
    with switch_under_test(SUME_PROGRAM, n_ports=3) as s:
        c = s.client
        base = [
            c.table_entry(P + "local_host.local_ipv4", match={"meta.local4_key": SWITCH_V4},
                          action=P + "local_host.is_local", params={"mac": ROUTER_MAC}),
            c.table_entry(P + "local_host.local_ipv6", match={"meta.local6_key": SWITCH_V6},
                          action=P + "local_host.is_local", params={"mac": ROUTER_MAC}),
            c.table_entry(P + "ipv6_routes", match={"dst_addr": ("2001:db8:1::", 64)}, action=P + "set_next_hop",
                          params={"port": V6_PORT, "src_mac": ROUTER_MAC, "dst_mac": V6_HOST_MAC}),
            c.table_entry(P + "ipv4_routes", match={"dst_addr": ("198.51.100.0", 24)}, action=P + "set_next_hop",
                          params={"port": V4_PORT, "src_mac": ROUTER_MAC, "dst_mac": V4_HOST_MAC}),
            c.table_entry(T + "pool6", match={"dst_addr": (POOL6, 96)}, action=T + "extract_96"),
            c.table_entry(T + "pool4", match={"dst_addr": (POOL4, 24)}, action=T + "in_pool4",
                          params={"unmapped_port_unreachable": 1}),
        ]
        c.write(*(c.update("INSERT", e) for e in base))
        c.write(c.update("MODIFY", c.table_entry(T + "pool6_embed", default=True, action=T + "use_pool6",
                                                 params={"prefix": POOL6, "length": 96})))
        yield s


@pytest.fixture
def ptf(sume):
    test = PacketTest(sume)
    yield test
    test.finish()


def test_the_variant_is_a_sume_program_whose_tables_are_the_v1model_ones(sume):
    """One controller drives both: every SUME table has the name and match fields of a v1model one."""
    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2
    sume_info = p4info_pb2.P4Info()
    with open(sume.p4info_path) as f:
        text_format.Parse(f.read(), sume_info)
    v1_info = p4info_pb2.P4Info()
    text_format.Parse((ROOT / "p4" / "build" / "p4info.txt").read_text(), v1_info)
    assert sume_info.pkg_info.arch == "sume"
    v1_tables = {t.preamble.name: [(f.name, f.match_type) for f in t.match_fields] for t in v1_info.tables}
    sume_tables = {t.preamble.name: [(f.name, f.match_type) for f in t.match_fields] for t in sume_info.tables}
    assert sume_tables and set(sume_tables) <= set(v1_tables), set(sume_tables) - set(v1_tables)
    assert all(sume_tables[n] == v1_tables[n] for n in sume_tables)
    assert {"Nat64Ingress.translate.session_v6", "Nat64Ingress.translate.session_v4",
            "Nat64Ingress.ipv4_routes", "Nat64Ingress.local_host.local_ipv6"} <= set(sume_tables)
    assert not sume_info.direct_counters and not sume_info.meters, "SDNet has neither"


def test_udp_both_ways_through_a_session(ptf):
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / b"query", tc=0xb8))
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / b"query", tos=0xb8), V4_PORT)
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / b"answer", tos=0x20))
    ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / b"answer", tc=0x20), V6_PORT)
    ptf.verify_no_other_packets()


def test_echo_identifier_is_mapped_like_a_port(ptf):
    ptf.insert(session_v6(ptf, 1, V6_HOST, 0x1234, MAPPED, 0x4321), session_v4(ptf, 1, MAPPED, 0x4321, V6_HOST, 0x1234))
    ptf.send(V6_PORT, from_v6_host(ICMPv6EchoRequest(id=0x1234, seq=3, data=b"abc")))
    ptf.verify_packet(to_v4_server(ICMP(type=8, id=0x4321, seq=3) / b"abc"), V4_PORT)
    ptf.send(V4_PORT, from_v4_server(ICMP(type=0, id=0x4321, seq=3) / b"abc"))
    ptf.verify_packet(to_v6_host(ICMPv6EchoReply(id=0x1234, seq=3, data=b"abc")), V6_PORT)
    ptf.verify_no_other_packets()


def test_session_miss_punts_over_dma_then_packet_out_goes_through_the_pipe(ptf):
    pkt = from_v6_host(UDP(sport=6000, dport=123) / b"ntp")
    ptf.send(V6_PORT, pkt)
    payload, md = ptf.client.packet_in()
    assert (payload, md["ingress_port"], md["punt_reason"]) == (bytes(pkt), V6_PORT, PUNT_SESSION_MISS)
    ptf.verify_no_other_packets()
    ptf.insert(session_v6(ptf, 17, V6_HOST, 6000, MAPPED, 40001))
    ptf.client.packet_out(payload, egress_port=0, to_pipeline=1)
    ptf.verify_packet(to_v4_server(UDP(sport=40001, dport=123) / b"ntp"), V4_PORT)
    ptf.verify_no_other_packets()


def test_tcp_control_segments_go_to_the_controller_translated_and_routed(ptf):
    """No clone on SUME: a translated SYN goes to the controller whole, translated, with the port it
    leaves on; the controller tracks it and sends it on. Data segments go straight out."""
    ptf.insert(session_v6(ptf, 6, V6_HOST, 33000, MAPPED, 41000), session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000))
    ptf.send(V6_PORT, from_v6_host(TCP(sport=33000, dport=80, flags="S", seq=1000)))
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["finish"], md["out_port"], md["ingress_port"]) == \
        (PUNT_FINISH, FINISH_TCP_CONTROL, V4_PORT, V6_PORT)
    assert payload == bytes(to_v4_server(TCP(sport=41000, dport=80, flags="S", seq=1000)))
    ptf.verify_no_other_packets()
    data = from_v4_server(TCP(sport=80, dport=41000, flags="A", seq=5, ack=1001) / b"HTTP/1.1 200 OK")
    ptf.send(V4_PORT, data)
    ptf.verify_packet(to_v6_host(TCP(sport=80, dport=33000, flags="A", seq=5, ack=1001) / b"HTTP/1.1 200 OK"), V6_PORT)
    assert ptf.client.packet_in(timeout=0.3) is None
    ptf.verify_no_other_packets()


def test_ipv4_udp_without_checksum_goes_to_the_controller_to_get_one(ptf):
    """RFC 7915 4.5: the checksum is over the payload, which SDNet cannot read: translated and
    routed here, summed by the controller (FINISH_UDP_CHECKSUM)."""
    ptf.insert(session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000, chksum=0) / b"no checksum here"))
    payload, md = ptf.client.packet_in()
    assert (md["punt_reason"], md["finish"], md["out_port"]) == (PUNT_FINISH, FINISH_UDP_CHECKSUM, V6_PORT)
    finished = Ether(payload)
    assert finished[UDP].chksum == 0 and finished[UDP].dport == 5000 and finished.dst == V6_HOST_MAC
    ptf.verify_no_other_packets()


def test_the_switch_answers_arp_and_neighbour_solicitation_with_a_correct_checksum(ptf):
    ptf.send(V4_PORT, Ether(src=V4_HOST_MAC, dst="ff:ff:ff:ff:ff:ff") /
             ARP(op=1, hwsrc=V4_HOST_MAC, psrc=V4_SERVER, pdst=SWITCH_V4))
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V4_HOST_MAC) /
                      ARP(op=2, hwsrc=ROUTER_MAC, psrc=SWITCH_V4, hwdst=V4_HOST_MAC, pdst=V4_SERVER), V4_PORT)
    ns = Ether(src=V6_HOST_MAC, dst="33:33:ff:00:00:01") / IPv6(src=V6_HOST, dst="ff02::1:ff00:1", hlim=255) / \
        ICMPv6ND_NS(tgt=SWITCH_V6) / ICMPv6NDOptSrcLLAddr(lladdr=V6_HOST_MAC)
    ptf.send(V6_PORT, ns)
    ptf.verify_packet(Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=SWITCH_V6, dst=V6_HOST, hlim=255) /
                      ICMPv6ND_NA(R=1, S=1, O=1, tgt=SWITCH_V6) / ICMPv6NDOptDstLLAddr(lladdr=ROUTER_MAC), V6_PORT)
    ptf.verify_no_other_packets()


def test_routed_packets_and_bad_header_checksums(ptf):
    """Untranslated IPv4 is routed with its header checksum recomputed in the pipe (no checksum
    unit); one whose header checksum is wrong is dropped."""
    pkt = Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IP(src="203.0.113.9", dst=V4_SERVER, ttl=9) / UDP(dport=7) / b"x"
    ptf.send(V6_PORT, pkt)
    ptf.verify_packet(routed(pkt, V4_HOST_MAC), V4_PORT)
    bad = pkt.copy()
    bad[IP].chksum = 0x1234
    ptf.send(V6_PORT, bad)
    ptf.verify_no_other_packets()


def test_frames_over_1514_bytes_are_dropped_as_on_the_card(ptf):
    """The card's ports take 1500-byte IP packets; softswitch refuses longer frames as it would.
    Both links take jumbo frames for this test only, so the translation would arrive if it were sent."""
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000))
    for interface in ("t1", "sw1", "t2", "sw2"):
        netns.run("ip", "link", "set", interface, "mtu", "9000")
    try:
        ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / (b"j" * 1500)))
        ptf.verify_no_other_packets()
    finally:
        for interface in ("t1", "sw1", "t2", "sw2"):
            netns.run("ip", "link", "set", interface, "mtu", "1500")
    ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / (b"s" * 1400)))
    ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / (b"s" * 1400), flags="DF"), V4_PORT)
    ptf.verify_no_other_packets()
