"""softswitch's kernel fast path (`softswitch run --fast-path`): which packets take it, proved by
the switch's own counters, and that P4Runtime sees one switch whichever path a packet took.

The conformance suites run against the fast path as a whole in `make test` (NAT64FABRIC_FAST_PATH);
here, each test starts its own switch so that it can stop it and read its final counters."""
import json
import os
import pathlib
import random
import re
import signal
import subprocess
import tempfile
import time

import pytest
from p4.v1 import p4runtime_pb2
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import ICMPv6EchoRequest
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw

from harness import ROOT, netns
from harness.base import PacketTest, switch_under_test
from harness.p4rt import P4RuntimeClient
from nat64_setup import (MAPPED, PROGRAM, T, V4_PORT, V6_HOST, V6_PORT, eam, from_v4_server, from_v6_host,
                         install_base, session_v4, session_v6, to_v4_server, to_v6_host)
from switch_process import SwitchProcess   # mininet/, put on the path by harness
from test_nat64_fuzz import (checksummed, counter_cells, malformations, ones_complement_sum, random_v4_packet,
                             random_v6_packet)   # its generators

MODE = os.environ.get("NAT64FABRIC_FAST_PATH") or "xdp-generic"
# make test runs this file twice, at XDP (generic) and then at TC (NAT64FABRIC_FAST_PATH=tc). What
# runs alike in both passes runs in the first only: the interpreter's cases, and the tests that
# choose their hook themselves or test what no hook changes (marked first_pass_only, left out of
# the second by make test): the P4 constructs and tables, which become the same C at either hook
# (only the frame's way in and out differs), and the fall-backs to the interpreter.
FIRST_PASS = not os.environ.get("NAT64FABRIC_FAST_PATH")
# "" turns the fast path off whatever NAT64FABRIC_FAST_PATH says.
PATHS = pytest.mark.parametrize("fast_path", [MODE, ""] if FIRST_PASS else [MODE],
                                ids=["fast-path", "interpreter"] if FIRST_PASS else ["fast-path"])
L3 = ROOT / "softswitch" / "examples" / "l3_forwarding.p4"
ROUTER_MAC = "00:00:00:00:00:aa"


@pytest.fixture
def nat64():
    with switch_under_test(PROGRAM, n_ports=3, fast_path=MODE) as sut:
        install_base(sut.client)
        yield sut


def test_established_sessions_are_translated_in_the_kernel_and_counted_once(nat64):
    ptf = PacketTest(nat64)
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000))
    n = 40
    for i in range(n):
        ptf.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / f"out {i}".encode()))
        ptf.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / f"out {i}".encode()), V4_PORT)
        ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / f"in {i}".encode()))
        ptf.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / f"in {i}".encode()), V6_PORT)
    ptf.verify_no_other_packets()
    # The session's direct counter, read over P4Runtime, holds what the kernel counted.
    query = p4runtime_pb2.Entity()
    query.table_entry.table_id = ptf.client.p4info.id("tables", T + "session_v6")
    query.table_entry.counter_data.SetInParent()
    (entry,) = ptf.client.read(query)
    assert entry.table_entry.counter_data.packet_count == n
    counters = nat64.switch.final_counters()
    assert counters["fast path: forwarded"] >= 2 * n
    # The interpreter saw none of them: what it received is what the kernel handed over.
    assert counters["pipeline rx"] == counters["fast path: to interpreter"]
    assert counters["pipeline rx"] < n


def test_a_session_miss_is_a_packet_in_through_the_interpreter(nat64):
    ptf = PacketTest(nat64)
    packet = from_v6_host(UDP(sport=5001, dport=53) / b"new flow")
    ptf.send(V6_PORT, packet)
    payload, metadata = ptf.client.packet_in(timeout=5)
    assert payload == bytes(packet)
    assert metadata["ingress_port"] == V6_PORT
    ptf.verify_no_other_packets()
    counters = nat64.switch.final_counters()
    # Handed over before the kernel changed or counted anything (the punt's policing needs hash()
    # and a meter), with the reason named.
    assert counters["fast path: to interpreter"] >= 1
    assert any(k.startswith("fast path: to interpreter: ") for k in counters), counters
    assert counters["packet-in"] >= 1


def test_idle_time_counts_hits_in_the_kernel(nat64):
    ptf = PacketTest(nat64)
    entry = session_v6(ptf, 17, V6_HOST, 5002, MAPPED, 40002)
    entry.table_entry.idle_timeout_ns = 3_000_000_000
    ptf.insert(entry)
    query = p4runtime_pb2.Entity()
    query.table_entry.table_id = ptf.client.p4info.id("tables", T + "session_v6")
    query.table_entry.time_since_last_hit.SetInParent()
    # The kernel stamps hits with its coarse clock (up to a tick behind): let the entry age well
    # past a tick first, so that a hit shows as younger than the insert.
    time.sleep(0.5)
    (before,) = ptf.client.read(query)
    for _ in range(3):
        ptf.send(V6_PORT, from_v6_host(UDP(sport=5002, dport=53) / b"keepalive"))
        ptf.verify_packet(to_v4_server(UDP(sport=40002, dport=53) / b"keepalive"), V4_PORT)
    (after,) = ptf.client.read(query)
    assert after.table_entry.time_since_last_hit.elapsed_ns < 1_000_000_000
    assert after.table_entry.time_since_last_hit.elapsed_ns < before.table_entry.time_since_last_hit.elapsed_ns
    assert nat64.switch.final_counters()["fast path: forwarded"] >= 3


def test_an_entry_in_a_removed_entrys_place_starts_its_counter_at_zero(nat64):
    ptf = PacketTest(nat64)
    old = session_v6(ptf, 17, V6_HOST, 5003, MAPPED, 40003)
    ptf.client.write(ptf.client.update("INSERT", old))
    for _ in range(5):
        ptf.send(V6_PORT, from_v6_host(UDP(sport=5003, dport=53) / b"old"))
        ptf.verify_packet(to_v4_server(UDP(sport=40003, dport=53) / b"old"), V4_PORT)
    ptf.client.write(ptf.client.update("DELETE", old))
    # The new entry takes the removed one's cells in the kernel's counter array.
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5004, MAPPED, 40004))
    query = p4runtime_pb2.Entity()
    query.table_entry.table_id = ptf.client.p4info.id("tables", T + "session_v6")
    query.table_entry.counter_data.SetInParent()
    (entry,) = ptf.client.read(query)
    assert entry.table_entry.counter_data.packet_count == 0
    for _ in range(2):
        ptf.send(V6_PORT, from_v6_host(UDP(sport=5004, dport=53) / b"new"))
        ptf.verify_packet(to_v4_server(UDP(sport=40004, dport=53) / b"new"), V4_PORT)
    (entry,) = ptf.client.read(query)
    assert entry.table_entry.counter_data.packet_count == 2
    assert nat64.switch.final_counters()["fast path: forwarded"] >= 7


@pytest.fixture
def l3():
    with switch_under_test(L3, n_ports=4, fast_path=MODE) as sut:
        c = sut.client
        c.write(c.update("INSERT", c.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.0.2.0", 24)},
                                                 action="L3Ingress.set_next_hop_v4",
                                                 params={"port": 2, "src_mac": ROUTER_MAC,
                                                         "dst_mac": "00:00:00:00:00:02"})))
        yield sut


def udp4(dport):
    return Ether(src="00:00:00:00:00:01", dst=ROUTER_MAC) / IP(src="10.0.1.1", dst="10.0.2.7") / \
        UDP(sport=1234, dport=dport) / b"acl"


def acl_drop(c, ether_type, priority):
    return c.table_entry("L3Ingress.acl", match={"hdr.ethernet.ether_type": (ether_type, 0xffff)},
                         action="L3Ingress.drop", priority=priority)


@pytest.mark.first_pass_only
def test_a_ternary_table_is_scanned_in_the_kernel_in_priority_order(l3):
    ptf = PacketTest(l3)
    c = ptf.client
    # A low-priority drop of IPv4 under a higher-priority entry that lets it through.
    ptf.insert(acl_drop(c, 0x0800, 1),
               c.table_entry("L3Ingress.acl", match={"hdr.ethernet.ether_type": (0x0800, 0xffff)},
                             action="NoAction", priority=5))
    expected = udp4(53).copy()
    expected[Ether].src, expected[Ether].dst = ROUTER_MAC, "00:00:00:00:00:02"
    expected[IP].ttl -= 1
    del expected[IP].chksum
    ptf.send(1, udp4(53))
    ptf.verify_packet(expected, 2)
    # Now the drop outranks it.
    ptf.client.write(ptf.client.update("INSERT", acl_drop(c, 0x0800, 9)))
    ptf.send(1, udp4(53))
    ptf.verify_no_other_packets()
    counters = l3.switch.final_counters()
    assert counters["fast path: forwarded"] >= 1
    assert counters["fast path: dropped"] >= 1


def link_packets(name, ns=None, way="tx"):
    where = ("ip", "netns", "exec", ns) if ns else ()
    (link,) = json.loads(netns.run(*where, "ip", "-j", "-s", "link", "show", name))
    return link["stats64"][way]["packets"]


@pytest.mark.first_pass_only
def test_at_tc_a_port_whose_veth_end_is_in_another_namespace_gets_its_frames_handed_straight_in():
    """At TC, a frame for a veth port whose other end is in another namespace (the harness puts odd
    ports' test ends in namespaces of their own) goes straight into that end (bpf_redirect_peer):
    it enters t1 without being sent on sw1. Port 2's end is beside the switch, so frames for it
    are sent on sw2 (bpf_redirect), as on any other interface."""
    with switch_under_test(L3, n_ports=2, fast_path="tc") as sut:
        log = sut.switch.log_text()
        assert "1@sw1 (to its veth peer)" in log and "2@sw2 (to its veth peer)" not in log, log
        c = sut.client
        for subnet, port in (("10.0.1.0", 1), ("10.0.2.0", 2)):
            c.write(c.update("INSERT", c.table_entry(
                "L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": (subnet, 24)}, action="L3Ingress.set_next_hop_v4",
                params={"port": port, "src_mac": ROUTER_MAC, "dst_mac": f"00:00:00:00:00:0{port}"})))
        ptf = PacketTest(sut)
        t1_ns = next(ns for ns in os.listdir("/run/netns") if ns.startswith(f"nf{os.getpid()}") and ns.endswith("h1"))
        sent_before = {port: link_packets(f"sw{port}") for port in (1, 2)}
        t1_before = link_packets("t1", t1_ns, "rx")
        n = 20
        for i in range(n):
            for src, dst, port_in, port_out in (("10.0.2.7", "10.0.1.7", 2, 1), ("10.0.1.7", "10.0.2.7", 1, 2)):
                frame = Ether(src="00:00:00:00:00:09", dst=ROUTER_MAC) / IP(src=src, dst=dst) / UDP(sport=i, dport=53)
                expected = frame.copy()
                expected[Ether].src, expected[Ether].dst = ROUTER_MAC, f"00:00:00:00:00:0{port_out}"
                expected[IP].ttl -= 1
                del expected[IP].chksum
                ptf.send(port_in, frame)
                ptf.verify_packet(expected, port_out)
        ptf.verify_no_other_packets()
        assert link_packets("t1", t1_ns, "rx") - t1_before >= n
        assert link_packets("sw1") - sent_before[1] < n, "frames for port 1 were sent on sw1, not handed to t1"
        assert link_packets("sw2") - sent_before[2] >= n
        assert sut.switch.final_counters()["fast path: forwarded"] >= 2 * n


@pytest.mark.first_pass_only
def test_at_tc_a_frame_handed_up_reaches_the_interpreter_as_it_came():
    """At TC the program hands a frame up behind a header of its own, on which the interpreter's
    socket is bound (KernelProgram.HANDED_UP_HEAD), and the interpreter takes the header off: a
    VLAN-tagged frame keeps the tag the kernel holds beside it (802.1Q, and 802.1ad outside
    802.1Q), and a full-size frame that looks like a handed-up one itself (that EtherType, that
    source address) arrives whole, its bytes untouched."""
    with switch_under_test(L3, n_ports=2, fast_path="tc") as sut:
        c = sut.client
        ptf = PacketTest(sut)
        ptf.insert(*(c.table_entry("L3Ingress.acl", match={"hdr.ethernet.ether_type": (ether_type, 0xffff)},
                                   action="L3Ingress.send_to_cpu", priority=1) for ether_type in (0x8100, 0x88A8, 0x88B5)))
        tagged = Ether(src="00:00:00:00:00:09", dst=ROUTER_MAC) / Dot1Q(prio=5, vlan=42) / \
            IP(src="10.0.1.7", dst="10.0.2.7") / UDP(sport=7, dport=53) / b"tagged"
        # 802.1ad outside 802.1Q: the kernel takes the outer tag out of the frame, TPID 0x88A8.
        double = Ether(src="00:00:00:00:00:09", dst=ROUTER_MAC, type=0x88A8) / Dot1Q(vlan=7, type=0x8100) / \
            Dot1Q(vlan=42) / IP(src="10.0.1.7", dst="10.0.2.7") / UDP(sport=7, dport=53) / b"double"
        lookalike = Ether(src="02:73:73:66:70:00", dst="00:01:81:00:00:2a", type=0x88B5) / Raw((bytes(range(256)) * 6)[:1500])
        for frame in (tagged, double, lookalike):
            ptf.send(1, frame)
            punted = c.packet_in(timeout=5)
            assert punted is not None, f"no packet-in for {frame.summary()}"
            payload, metadata = punted
            assert payload == bytes(frame)
            assert metadata["ingress_port"] == 1
        ptf.verify_no_other_packets()
        counters = sut.switch.final_counters()
        assert counters["fast path: to interpreter"] >= 3
        assert counters["fast path: to interpreter: a VLAN tag the kernel took out of the frame"] >= 2
        assert counters["fast path: to interpreter: a packet-in"] >= 1


# Programs of one Ethernet header: what comes before their ingress.
ETHERNET_ONLY = """
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> ether_type; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control NoCheck(inout headers_t hdr, inout meta_t meta) { apply { } }
"""

# A ternary table larger than the kernel scans (256 entries).
BIG_ACL = ETHERNET_ONLY + """
control AclIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action drop() { mark_to_drop(sm); }
    action forward(bit<9> port) { sm.egress_spec = port; }
    table acl {
        key = { hdr.ethernet.ether_type: ternary; }
        actions = { drop; forward; }
        default_action = forward(2);
        size = 1024;
    }
    apply { acl.apply(); }
}
control AclEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control AclDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); } }
V1Switch(P(), NoCheck(), AclIngress(), AclEgress(), NoCheck(), AclDeparser()) main;
"""


@pytest.mark.first_pass_only
def test_a_ternary_table_over_the_kernel_limit_goes_to_the_interpreter(tmp_path):
    program = tmp_path / "big_acl.p4"
    program.write_text(BIG_ACL)
    frame = Ether(src="00:00:00:00:00:01", dst="00:00:00:00:00:02", type=0x88b5) / (b"x" * 60)
    with switch_under_test(program, n_ports=2, fast_path=MODE) as sut:
        c = sut.client
        ptf = PacketTest(sut)

        def entries(first, count):
            return [c.table_entry("AclIngress.acl", match={"hdr.ethernet.ether_type": (0x9000 + i, 0xffff)},
                                  action="AclIngress.drop", priority=1) for i in range(first, first + count)]
        c.write(*(c.update("INSERT", e) for e in entries(0, 200)))
        ptf.send(1, frame)
        ptf.verify_packet(frame, 2)
        c.write(*(c.update("INSERT", e) for e in entries(200, 100)))
        ptf.send(1, frame)
        ptf.verify_packet(frame, 2)
        ptf.verify_no_other_packets()
        counters = sut.switch.final_counters()
    assert counters["fast path: forwarded"] >= 1
    assert counters["fast path: to interpreter: a table with ternary, range or optional fields over 256 entries"] >= 1
    assert counters["pipeline tx"] >= 1


def one_header_program(header, ingress_name, ingress):
    """A v1model program whose packets are one header, tag_t (`header` declares it), hdr.tag, and
    nothing else: the parser, `ingress` (the control named `ingress_name`), an empty egress and the
    deparser that emits hdr.tag."""
    return """
#include <core.p4>
#include <v1model.p4>
""" + header + """
struct headers_t { tag_t tag; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.tag); transition accept; }
}
control NoCheck(inout headers_t hdr, inout meta_t meta) { apply { } }
""" + ingress + """
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.tag); } }
V1Switch(P(), NoCheck(), """ + ingress_name + """(), E(), NoCheck(), D()) main;
"""


# A ternary table whose key is an odd number of bytes (8 + 16 bits): in its BPF entries the mask
# ends off a 4-byte boundary, and the C pads before the action; the switch must write its entries
# with the same padding, or the kernel reads another action than the entry's (it once did).
ODD_KEY_ACL = one_header_program("header tag_t { bit<8> kind; bit<16> tag; }", "OddIngress", """
control OddIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action forward(bit<9> port, bit<8> mark) { sm.egress_spec = port; hdr.tag.kind = mark; }
    action drop() { mark_to_drop(sm); }
    table acl {
        key = { hdr.tag.kind: exact; hdr.tag.tag: ternary; }
        actions = { forward; drop; }
        default_action = drop();
    }
    table fixed {
        key = { hdr.tag.kind: exact; hdr.tag.tag: ternary; }
        actions = { forward; }
        default_action = forward(4, 0xdd);
        const entries = {
            (0x07, 0x0070 &&& 0x00f0) : forward(3, 0x77);
        }
    }
    apply {
        if (!acl.apply().hit) {
            fixed.apply();
        }
    }
}
""")


@pytest.mark.first_pass_only
@PATHS
def test_a_ternary_table_with_an_odd_sized_key_runs_each_entrys_own_action(tmp_path, fast_path):
    program = tmp_path / "odd_key_acl.p4"
    program.write_text(ODD_KEY_ACL)
    payload = bytes(range(48))

    def frame(kind, tag):
        return bytes([kind]) + tag.to_bytes(2, "big") + payload
    # (frame in, port out, mark written): two written entries, then the program's own, the default
    cases = [(frame(1, 0x12ab), 2, 0x11), (frame(2, 0x00cd), 3, 0x22), (frame(2, 0xffcd), 3, 0x22),
             (frame(7, 0x1274), 3, 0x77), (frame(1, 0x13ab), 4, 0xdd), (frame(3, 0x12ab), 4, 0xdd)]
    with switch_under_test(program, n_ports=4, fast_path=fast_path) as sut:
        c = sut.client
        c.write(c.update("INSERT", c.table_entry("OddIngress.acl", match={"hdr.tag.kind": 1, "hdr.tag.tag": (0x1200, 0xff00)},
                                                 action="OddIngress.forward", params={"port": 2, "mark": 0x11},
                                                 priority=10)),
                c.update("INSERT", c.table_entry("OddIngress.acl", match={"hdr.tag.kind": 2, "hdr.tag.tag": (0x00cd, 0x00ff)},
                                                 action="OddIngress.forward", params={"port": 3, "mark": 0x22},
                                                 priority=20)))
        ptf = PacketTest(sut)
        for _ in range(3):
            for sent, port, mark in cases:
                ptf.send(1, Raw(sent))
                ptf.verify_packet(Raw(bytes([mark]) + sent[1:]), port)
        ptf.verify_no_other_packets()
        counters = sut.switch.final_counters()
    if fast_path:
        assert counters["fast path: forwarded"] == 3 * len(cases)
        assert counters["pipeline rx"] == 0   # every packet took the fast path
    else:
        assert counters["pipeline tx"] == 3 * len(cases)


# A table whose const entries outnumber its size (the frontend lets them, as p4c does), beside
# another with a direct counter: each entry's counter cell must be its own, not the next table's.
CONST_OVER_SIZE = one_header_program("header tag_t { bit<8> kind; bit<16> tag; }", "OverIngress", """
control OverIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action forward(bit<9> port) { sm.egress_spec = port; }
    direct_counter(CounterType.packets_and_bytes) small_counts;
    direct_counter(CounterType.packets_and_bytes) next_counts;
    table small {
        key = { hdr.tag.tag: ternary; }
        actions = { forward; }
        counters = small_counts;
        size = 1;
        const entries = { 0x0001 &&& 0xffff : forward(3); 0x0002 &&& 0xffff : forward(2); }
    }
    table next {
        key = { hdr.tag.kind: exact; }
        actions = { forward; NoAction; }
        counters = next_counts;
        default_action = NoAction();
    }
    apply { small.apply(); next.apply(); }
}
""")


@pytest.mark.first_pass_only
@PATHS
def test_const_entries_beyond_the_size_count_in_cells_of_their_own(tmp_path, fast_path):
    program = tmp_path / "const_over_size.p4"
    program.write_text(CONST_OVER_SIZE)
    sent = bytes.fromhex("090002") + bytes(range(48))   # small's second entry, next's entry for kind 9
    with switch_under_test(program, n_ports=4, fast_path=fast_path) as sut:
        c = sut.client
        kind9 = c.table_entry("OverIngress.next", match={"hdr.tag.kind": 9}, action="OverIngress.forward",
                              params={"port": 2})
        c.write(c.update("INSERT", kind9))
        ptf = PacketTest(sut)
        for _ in range(5):
            ptf.send(1, Raw(sent))
            ptf.verify_packet(Raw(sent), 2)
        ptf.verify_no_other_packets()
        counts = p4runtime_pb2.Entity()
        counts.direct_counter_entry.table_entry.table_id = c.p4info.id("tables", "OverIngress.small")
        small = {e.direct_counter_entry.table_entry.match[0].ternary.value: e.direct_counter_entry.data.packet_count
                 for e in c.read(counts)}
        counts.direct_counter_entry.table_entry.CopyFrom(kind9.table_entry)
        (next_count,) = c.read(counts)
        counters = sut.switch.final_counters()
    assert small == {b"\x01": 0, b"\x02": 5}
    assert next_count.direct_counter_entry.data.packet_count == 5
    if fast_path:
        assert counters["fast path: forwarded"] == 5


# A header with a struct field (P4_16 7.2.2): the nested fields sit on the wire in order, across bytes.
STRUCT_IN_HEADER = one_header_program("""struct inner_t { bit<4> hi; bit<12> mid; bool flag; bit<7> lo; }
header tag_t { bit<8> kind; inner_t inner; bit<8> tail; }""", "TagIngress", """
control TagIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        hdr.tag.inner.mid = hdr.tag.inner.mid + 1;
        hdr.tag.inner.flag = !hdr.tag.inner.flag;
        hdr.tag.tail = (bit<8>) hdr.tag.inner.lo;
        sm.egress_spec = 2;
    }
}
""")


@pytest.mark.first_pass_only
def test_struct_fields_of_a_header_are_rewritten_in_the_kernel(tmp_path):
    program = tmp_path / "struct_in_header.p4"
    program.write_text(STRUCT_IN_HEADER)
    payload = bytes(range(60))
    # kind 01; hi a, mid bcd, flag 1, lo 15; tail 00  ->  mid bce, flag 0, tail = lo
    sent = bytes.fromhex("01abcd9500") + payload
    expected = bytes.fromhex("01abce1515") + payload
    with switch_under_test(program, n_ports=2, fast_path=MODE) as sut:
        ptf = PacketTest(sut)
        for _ in range(10):
            ptf.send(1, Raw(sent))
            ptf.verify_packet(Raw(expected), 2)
        ptf.verify_no_other_packets()
        counters = sut.switch.final_counters()
    assert counters["fast path: forwarded"] == 10
    assert counters["pipeline rx"] == 0   # the interpreter saw none of them


# random() on both paths: a small range and a 16-bit one (what the NAT64 pipeline draws IPv4
# identifications from).
RANDOM_FIELDS = one_header_program("header tag_t { bit<8> kind; bit<8> small; bit<16> id; }", "RandIngress", """
control RandIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        random(hdr.tag.small, 8w10, 8w12);
        random(hdr.tag.id, 16w1, 16w0xffff);
        sm.egress_spec = 2;
    }
}
""")


@pytest.mark.first_pass_only
@PATHS
def test_random_draws_within_its_bounds_on_both_paths(tmp_path, fast_path):
    program = tmp_path / "random_fields.p4"
    program.write_text(RANDOM_FIELDS)
    payload = bytes(range(60))
    n = 64
    with switch_under_test(program, n_ports=2, fast_path=fast_path) as sut:
        ptf = PacketTest(sut)
        drawn = []
        for _ in range(n):
            ptf.send(1, Raw(b"\x01\x00\x00\x00" + payload))
            got = ptf.dataplane.poll(2)
            assert got is not None and got[0] == 1 and got[4:] == payload
            drawn.append((got[1], int.from_bytes(got[2:4], "big")))
        ptf.verify_no_other_packets()
        counters = sut.switch.final_counters()
    smalls = {small for small, _ in drawn}
    ids = {i for _, i in drawn}
    assert smalls == {10, 11, 12}                 # 64 draws of 3: each is seen but with p < 1e-10
    assert 0 not in ids and len(ids) >= n - 4     # 64 of 65535: more than 4 repeats has p < 1e-7
    if fast_path:
        assert counters["fast path: forwarded"] == n
        assert counters["pipeline rx"] == 0       # drawn in the kernel


# Metadata and an optional header's field read on every packet, written on some only: the
# interpreter reads them as zero when unwritten, so the kernel must not see the previous packet's.
READ_BEFORE_WRITTEN = """
#include <core.p4>
#include <v1model.p4>
header tag_t { bit<8> kind; bit<8> a; bit<8> from_meta; bit<8> from_opt; }
header opt_t { bit<8> v; }
struct headers_t { tag_t tag; opt_t opt; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.tag);
        transition select(hdr.tag.kind) { 1: with_opt; default: accept; }
    }
    state with_opt { pkt.extract(hdr.opt); transition accept; }
}
control NoCheck(inout headers_t hdr, inout meta_t meta) { apply { } }
control ReadIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.tag.kind == 1) {
            meta.m = hdr.tag.a;
        }
        hdr.tag.from_meta = meta.m;
        hdr.tag.from_opt = hdr.opt.v;
        sm.egress_spec = 2;
    }
}
control ReadEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control ReadDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.tag); pkt.emit(hdr.opt); } }
V1Switch(P(), NoCheck(), ReadIngress(), ReadEgress(), NoCheck(), ReadDeparser()) main;
"""


def rounds_through(tmp_path, fast_path, name, program, cases, rounds):
    """Sends each (frame, expected frame) of `cases`, `rounds` times over, through `program` from
    port 1 to port 2, on the fast path (`fast_path` a mode) or the interpreter (""): every packet
    comes out as expected, and on the fast path every one took it."""
    path = tmp_path / name
    path.write_text(program)
    with switch_under_test(path, n_ports=2, fast_path=fast_path) as sut:
        ptf = PacketTest(sut)
        for _ in range(rounds):
            for sent, expected in cases:
                ptf.send(1, Raw(sent))
                ptf.verify_packet(Raw(expected), 2)
        ptf.verify_no_other_packets()
        counters = sut.switch.final_counters()
    if fast_path:
        assert counters["fast path: forwarded"] == rounds * len(cases)
        assert counters["pipeline rx"] == 0   # every packet took the fast path
    else:
        assert counters["pipeline tx"] == rounds * len(cases)


@pytest.mark.first_pass_only
@PATHS
def test_what_a_packet_did_not_write_reads_as_zero_after_one_that_did(tmp_path, fast_path):
    payload = bytes(range(40))
    # kind 1 writes meta.m and carries opt (v = 0x99); kind 2 writes neither: both read as 0.
    writes = (bytes.fromhex("01770000") + b"\x99" + payload, bytes.fromhex("0177779999") + payload)
    skips = (bytes.fromhex("02550000") + payload, bytes.fromhex("02550000") + payload)
    rounds_through(tmp_path, fast_path, "read_before_written.p4", READ_BEFORE_WRITTEN, [writes, skips], 5)


# bit<0> (P4_16 7.1.6.2): a header field of no bits, cast to and concatenated, holds only 0.
ZERO_WIDTH = one_header_program("header tag_t { bit<8> kind; bit<0> z; bit<8> x; }", "ZeroIngress", """
control ZeroIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        bit<0> v = (bit<0>) hdr.tag.kind;
        hdr.tag.z = v;
        hdr.tag.x = (bit<8>) (hdr.tag.z ++ hdr.tag.kind) + (bit<8>) v + 1;
        sm.egress_spec = 2;
    }
}
""")


@pytest.mark.first_pass_only
@PATHS
def test_a_zero_width_field_takes_no_bits_and_holds_zero(tmp_path, fast_path):
    payload = bytes(range(40))
    case = (bytes.fromhex("0510") + payload, bytes.fromhex("0506") + payload)
    rounds_through(tmp_path, fast_path, "zero_width.p4", ZERO_WIDTH, [case], 3)


# A stack of header unions filled through next, and a header that is not whole bytes (padded to them).
UNION_STACK = """
#include <core.p4>
#include <v1model.p4>
header sel_t { bit<8> kinds; bit<1> flag; }
header narrow_t { bit<8> v; }
header wide_t { bit<16> v; }
header_union U { narrow_t narrow; wide_t wide; }
struct headers_t { sel_t sel; U[2] u; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.sel);
        hdr.u[0].narrow.setValid();
        hdr.u[0].narrow.v = 0x55;
        transition select(hdr.sel.kinds[0:0]) { 1: wide0; default: narrow0; }
    }
    state narrow0 { pkt.extract(hdr.u.next.narrow); transition second; }
    state wide0 { pkt.extract(hdr.u.next.wide); transition second; }
    state second { transition select(hdr.sel.kinds[1:1]) { 1: wide1; default: narrow1; } }
    state narrow1 { pkt.extract(hdr.u.next.narrow); transition accept; }
    state wide1 { pkt.extract(hdr.u.next.wide); transition accept; }
}
control NoCheck(inout headers_t hdr, inout meta_t meta) { apply { } }
control UIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        if (hdr.u[0].wide.isValid()) { hdr.u[0].wide.v = hdr.u[0].wide.v + 1; }
        if (hdr.u[1].narrow.isValid()) { hdr.u[1].narrow.v = 0xaa; }
        hdr.sel.flag = ~hdr.sel.flag;
        sm.egress_spec = 2;
    }
}
control UEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control UDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), NoCheck(), UIngress(), UEgress(), NoCheck(), UDeparser()) main;
"""


@pytest.mark.first_pass_only
@PATHS
def test_a_stack_of_header_unions_and_a_padded_header_are_rewritten_alike_on_both_paths(tmp_path, fast_path):
    payload = bytes(range(40))
    cases = [  # sel (kinds, flag and 7 bits of padding), then the elements
        (bytes.fromhex("03ff" "1234" "5678") + payload, bytes.fromhex("037f" "1235" "5678") + payload),
        (bytes.fromhex("0000" "11" "22") + payload, bytes.fromhex("0080" "11" "aa") + payload),
        (bytes.fromhex("0280" "11" "5678") + payload, bytes.fromhex("0200" "11" "5678") + payload),
    ]
    rounds_through(tmp_path, fast_path, "union_stack.p4", UNION_STACK, cases, 3)


# A header taken out of a frame that is not IP: the frame gets shorter.
SHRINKS = ETHERNET_ONLY.replace("struct headers_t { ethernet_t ethernet; }",
                                "header opt_t { bit<8> v; }\nstruct headers_t { ethernet_t ethernet; opt_t opt; }") \
    .replace("state start { pkt.extract(hdr.ethernet); transition accept; }",
             "state start { pkt.extract(hdr.ethernet); pkt.extract(hdr.opt); transition accept; }") + """
control ShrinkIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { hdr.ethernet.src = hdr.ethernet.src + (bit<48>) hdr.opt.v; hdr.opt.setInvalid(); sm.egress_spec = 2; }
}
control ShrinkEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control ShrinkDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); pkt.emit(hdr.opt); } }
V1Switch(P(), NoCheck(), ShrinkIngress(), ShrinkEgress(), NoCheck(), ShrinkDeparser()) main;
"""


def test_a_frame_that_is_not_ip_loses_a_header_on_either_hook(tmp_path):
    """At XDP the frame's head moves whatever it carries, so the kernel forwards it; at TC the
    kernel's skb helpers move bytes in IP packets only, so the program hands it up untouched and the
    interpreter forwards it. Either way it comes out the same, and the counters say which path."""
    program = tmp_path / "shrinks.p4"
    program.write_text(SHRINKS)
    sent = bytes.fromhex("000000000002" "000000000001" "9999" "05") + bytes(range(40))
    expected = bytes.fromhex("000000000002" "000000000006" "9999") + bytes(range(40))
    with switch_under_test(program, n_ports=2, fast_path=MODE) as sut:
        ptf = PacketTest(sut)
        for _ in range(3):
            ptf.send(1, Raw(sent))
            ptf.verify_packet(Raw(expected), 2)
        ptf.verify_no_other_packets()
        counters = sut.switch.final_counters()
    if MODE == "tc":
        assert counters["fast path: to interpreter: a length change in a frame that is not IP"] == 3, counters
        assert counters["pipeline tx"] == 3
    else:
        assert counters["fast path: forwarded"] == 3, counters
        assert counters["pipeline rx"] == 0


# exit in an action a table runs, and in an action called directly after its inout argument changed
# (copied out on the way, P4_16 12.5); in an action a table runs for a switch or an if, which then
# runs no case or branch (P4_16 12.4); egress runs either way.
EXITS = """
#include <core.p4>
#include <v1model.p4>
header tag_t { bit<8> kind; bit<8> a; bit<8> b; bit<8> c; }
struct headers_t { tag_t tag; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.tag); transition accept; }
}
control NoCheck(inout headers_t hdr, inout meta_t meta) { apply { } }
control ExitIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action leave() { hdr.tag.b = 0x11; exit; }
    table t { actions = { leave; } default_action = leave(); }
    action maybe_leave(inout bit<8> v) {
        v = 0x33;
        if (hdr.tag.kind == 2) {
            exit;
        }
        v = 0x44;
    }
    apply {
        sm.egress_spec = 2;
        maybe_leave(hdr.tag.c);
        if (hdr.tag.kind == 1) {
            t.apply();
        } else if (hdr.tag.kind == 4) {
            switch (t.apply().action_run) { leave: { hdr.tag.c = 0x66; } }
        } else if (hdr.tag.kind == 5) {
            if (t.apply().hit) { hdr.tag.c = 0x66; } else { hdr.tag.c = 0x77; }
        }
        hdr.tag.a = 0x55;
    }
}
control ExitEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { hdr.tag.kind = hdr.tag.kind + 0x10; }
}
control ExitDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.tag); } }
V1Switch(P(), NoCheck(), ExitIngress(), ExitEgress(), NoCheck(), ExitDeparser()) main;
"""


@pytest.mark.first_pass_only
@PATHS
def test_exit_leaves_the_control_after_copying_out(tmp_path, fast_path):
    payload = bytes(range(40))
    cases = [("01000000", "11001144"),   # the table's action exits: a stays
             ("02000000", "12000033"),   # exits in maybe_leave: c copied out as 0x33, a stays
             ("03000000", "13550044"),   # no exit
             ("04000000", "14001144"),   # the switch's table exits: no case runs, a stays
             ("05000000", "15001144")]   # the if's table exits: neither branch runs
    rounds_through(tmp_path, fast_path, "exits.p4", EXITS,
                   [(bytes.fromhex(sent) + payload, bytes.fromhex(out) + payload) for sent, out in cases], 3)


@pytest.mark.first_pass_only
def test_without_clang_the_interpreter_runs_every_packet(monkeypatch):
    # Every program on PATH but clang.
    tools = pathlib.Path(tempfile.mkdtemp(prefix="nat64fabric-noclang-"))
    for directory in os.environ["PATH"].split(os.pathsep):
        for program in pathlib.Path(directory).glob("*") if os.path.isdir(directory) else ():
            if not program.name.startswith("clang") and not (tools / program.name).exists():
                (tools / program.name).symlink_to(program)
    monkeypatch.setenv("PATH", str(tools))
    with switch_under_test(L3, n_ports=2, fast_path=MODE, require_fast_path=False) as sut:
        text = sut.switch.log_text()
        assert re.search(r"fast path off, the interpreter runs every packet: clang is not installed", text), text
        c = sut.client
        c.write(c.update("INSERT", c.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.0.2.0", 24)},
                                                 action="L3Ingress.set_next_hop_v4",
                                                 params={"port": 2, "src_mac": ROUTER_MAC,
                                                         "dst_mac": "00:00:00:00:00:02"})))
        ptf = PacketTest(sut)
        ptf.send(1, udp4(53))
        assert ptf.dataplane.poll(2, timeout=5) is not None
        counters = sut.switch.final_counters()
        assert "fast path: forwarded" not in counters
        assert counters["pipeline tx"] >= 1


@pytest.mark.first_pass_only
def test_a_restarted_switch_takes_its_compiled_program_from_the_cache(monkeypatch, tmp_path):
    """clang's object is kept by what made it: the second start of the same program loads it from
    the cache and forwards in the kernel. (A kept object that does not check out is removed and the
    program compiled again: ObjectCacheTest.)"""
    cache = tmp_path / "cache"
    monkeypatch.setenv("SOFTSWITCH_CACHE_DIR", str(cache))

    def start_and_forward():
        with switch_under_test(L3, n_ports=2, fast_path=MODE) as sut:
            c = sut.client
            c.write(c.update("INSERT", c.table_entry(
                "L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.0.2.0", 24)}, action="L3Ingress.set_next_hop_v4",
                params={"port": 2, "src_mac": ROUTER_MAC, "dst_mac": "00:00:00:00:00:02"})))
            ptf = PacketTest(sut)
            ptf.send(1, udp4(53))
            assert ptf.dataplane.poll(2, timeout=5) is not None
            assert sut.switch.final_counters().get("fast path: forwarded", 0) >= 1
            return sut.switch.log_text()

    first = start_and_forward()
    assert "comes from the cache" not in first, first
    kept = list(cache.glob("*.o"))
    assert len(kept) == 1, kept
    second = start_and_forward()
    assert "the compiled program comes from the cache" in second, second


def bpftool(*args):
    return json.loads(subprocess.run(["bpftool", "-j", *args], capture_output=True, text=True, check=True).stdout)


def programs_on(interface):
    """The ids of the fast-path programs attached to an interface. XDP: as `ip link` shows it. TC:
    the program of each tcx link (link type 11); the bpftool of Debian 12 does not show a tcx
    link's interface, so these are the links of every interface, and the tests that ask start
    one switch at a time."""
    if MODE != "tc":
        (link,) = json.loads(subprocess.run(["ip", "-j", "-d", "link", "show", interface], capture_output=True,
                                            text=True, check=True).stdout)
        return {link["xdp"]["prog"]["id"]} if "xdp" in link else set()
    ids = {link["prog_id"] for link in bpftool("link", "show") if link["type"] in (11, "tcx")}
    return {i for i in ids if bpftool("prog", "show", "id", str(i)).get("name") == "softswitch_fp"}


def test_a_killed_switch_leaves_no_program_on_its_ports():
    """The program is attached through BPF links: the kernel detaches it when the process dies, so a
    killed switch does not go on forwarding with nothing to take what it hands over."""
    with switch_under_test(L3, n_ports=2, fast_path=MODE) as sut:
        assert programs_on("sw1") and programs_on("sw2")
        sut.switch.proc.send_signal(signal.SIGKILL)
        sut.switch.proc.wait()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and (programs_on("sw1") or programs_on("sw2")):
            time.sleep(0.1)
        assert not programs_on("sw1") and not programs_on("sw2")


# An exact table of four entries: a hash map of four in the kernel.
SMALL_EXACT = ETHERNET_ONLY + """
control ByTypeIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action drop() { mark_to_drop(sm); }
    action forward(bit<9> port) { sm.egress_spec = port; }
    table by_type {
        key = { hdr.ethernet.ether_type: exact; }
        actions = { drop; forward; }
        default_action = drop();
        size = 4;
    }
    apply { by_type.apply(); }
}
control ByTypeEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control ByTypeDeparser(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); } }
V1Switch(P(), NoCheck(), ByTypeIngress(), ByTypeEgress(), NoCheck(), ByTypeDeparser()) main;
"""


@pytest.mark.first_pass_only
def test_a_map_update_the_kernel_refuses_hands_every_packet_to_the_interpreter(tmp_path):
    """Should the kernel refuse to mirror an entry (here: its hash map filled behind the switch's
    back, so the insert finds no room), the kernel's table would lack an entry the interpreter's
    has: the switch detaches the program, and every packet, hit or miss, is forwarded as the
    interpreter's tables say."""
    program = tmp_path / "small_exact.p4"
    program.write_text(SMALL_EXACT)
    with switch_under_test(program, n_ports=2, fast_path=MODE) as sut:
        c, ptf = sut.client, PacketTest(sut)

        def forward(ether_type):
            return c.table_entry("ByTypeIngress.by_type", match={"hdr.ethernet.ether_type": ether_type},
                                 action="ByTypeIngress.forward", params={"port": 2})

        def frame(ether_type):
            return Ether(src="00:00:00:00:00:01", dst="00:00:00:00:00:02", type=ether_type) / (b"x" * 60)
        c.write(c.update("INSERT", forward(0x9001)))
        ptf.send(1, frame(0x9001))
        ptf.verify_packet(frame(0x9001), 2)
        # The program on sw1, and its map of four entries, one of them the switch's.
        (prog,) = programs_on("sw1")
        maps = [bpftool("map", "show", "id", str(i)) for i in bpftool("prog", "show", "id", str(prog))["map_ids"]]
        (table,) = [m for m in maps if m["type"] == "hash" and m["max_entries"] == 4]
        for ether_type in (0x7001, 0x7002, 0x7003):
            key = ether_type.to_bytes(table["bytes_key"], "big")
            subprocess.run(["bpftool", "map", "update", "id", str(table["id"]), "key", "hex", *(f"{b:02x}" for b in key),
                            "value", "hex", *["00"] * table["bytes_value"]], check=True)
        c.write(c.update("INSERT", forward(0x9002)))   # the interpreter has room; the kernel has none
        assert re.search(r"fast path off, the interpreter runs every packet from now on: a BPF map update failed",
                         sut.switch.log_text()), sut.switch.log_text()
        assert not programs_on("sw1") and not programs_on("sw2")
        for ether_type in (0x9001, 0x9002):
            ptf.send(1, frame(ether_type))
            ptf.verify_packet(frame(ether_type), 2)
        ptf.send(1, frame(0x7001))                     # not an entry of the switch's: dropped
        ptf.verify_no_other_packets()
        counters = sut.switch.final_counters()
    assert counters["fast path: detached after a failed map update"] == 1
    assert counters["fast path: forwarded"] == 1
    assert counters["pipeline rx"] == 3


@pytest.mark.first_pass_only
def test_an_interface_without_driver_xdp_leaves_the_interpreter_running(tmp_path):
    """--fast-path xdp (driver mode) on an interface whose driver has no XDP (a bridge): one line
    saying why and what to try instead, and the interpreter serves the pipeline as without it."""
    netns.enter_private_namespace()
    netns.delete_link("fpbridge1")
    netns.run("ip", "link", "add", "fpbridge1", "type", "bridge")
    netns.run("sysctl", "-q", "-w", "net.ipv6.conf.fpbridge1.disable_ipv6=1")
    netns.run("ip", "link", "set", "fpbridge1", "up")
    switch = SwitchProcess({1: "fpbridge1"}, fast_path="xdp").start()
    client = None
    try:
        p4info, device_config = switch.build_pipeline(L3, tmp_path)
        client = P4RuntimeClient(switch.address, 1)
        assert client.arbitrate().status.code == 0
        client.set_pipeline(p4info, device_config)
        off = [line for line in switch.log_text().splitlines() if "fast path" in line and "from the cache" not in line]
        assert len(off) == 1 and re.search(r"fast path off, the interpreter runs every packet: cannot attach XDP "
                                           r"\(xdp\) to fpbridge1: .+; try --fast-path xdp-generic$", off[0]), off
        with pytest.raises(RuntimeError, match="did not start: fast path off"):
            switch.expect_fast_path()
        route = client.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.0.2.0", 24)},
                                   action="L3Ingress.set_next_hop_v4",
                                   params={"port": 1, "src_mac": ROUTER_MAC, "dst_mac": "00:00:00:00:00:02"})
        client.write(client.update("INSERT", route))
        (read,) = client.read(client.table_entry("L3Ingress.ipv4_lpm"))
        assert read.table_entry.match == route.table_entry.match
    finally:
        if client:
            client.close()
        switch.stop()
        netns.delete_link("fpbridge1")
    counters = switch.final_counters()
    assert not any(name.startswith("fast path: ") for name in counters), counters


# ---- the same random packets through both paths ----

# make test's share; a longer hunt: NAT64FABRIC_DIFFERENTIAL_PACKETS=100000 (with NAT64FABRIC_SEED to replay one)
DIFFERENTIAL_PACKETS = int(os.environ.get("NAT64FABRIC_DIFFERENTIAL_PACKETS", 2000))
DIFFERENTIAL_BATCH = 100   # well under a port's receive ring of 1 024 frames
EAM6, EAM4 = "2001:db8:1::77", "203.0.113.77"   # an EAM host of the differential test


def near_the_mtu(rng):
    """A session's UDP, TCP or echo packet of 1 180-1 500 bytes from either side: where the
    pipeline fragments, punts to fragment, answers Packet Too Big or passes."""
    payload = rng.randbytes(rng.randrange(1150, 1433))   # frames of at most 1 514 bytes
    if rng.random() < 0.5:
        l4 = rng.choice([UDP(sport=5000, dport=53), TCP(sport=33000, dport=80, flags="A"),
                         ICMPv6EchoRequest(id=7, seq=rng.randrange(65536))])
        return V6_PORT, checksummed(from_v6_host(l4 / payload))
    l4 = rng.choice([UDP(sport=53, dport=40000, chksum=rng.choice([None, 0])), TCP(sport=80, dport=41000, flags="A"),
                     ICMP(type=0, id=42000)])
    return V4_PORT, checksummed(from_v4_server(l4 / payload, flags=rng.choice([0, 2])))


def damaged(rng, frame):
    """The frame damaged as a faulty link or a hostile host would: bits flipped or a byte replaced
    past the MAC addresses, cut short, or an IP length field changed (the IPv4 header's checksum
    summed again half of the time, so that the packet gets past that check)."""
    b = bytearray(frame)
    kind = rng.randrange(4)
    if kind == 0:
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(12, min(len(b), 94))
            b[at] ^= 1 << rng.randrange(8)
    elif kind == 1:
        b[rng.randrange(12, len(b))] = rng.randrange(256)
    elif kind == 2:
        return bytes(b[:rng.randrange(14, len(b))])
    elif b[12:14] == b"\x86\xdd" and len(b) >= 20:
        b[18:20] = rng.randrange(65536).to_bytes(2, "big")
    elif b[12:14] == b"\x08\x00" and len(b) >= 34:
        b[16:18] = rng.randrange(65536).to_bytes(2, "big")
        end = 14 + 4 * (b[14] & 15)
        if rng.random() < 0.5 and end <= len(b):
            b[24:26] = b"\0\0"
            b[24:26] = (0xFFFF - ones_complement_sum(bytes(b[14:end]))).to_bytes(2, "big")
    return bytes(b)


def with_drawn_identification_zeroed(frame):
    """The frame with its outer IPv4 Identification and header checksum zeroed: the switch draws
    the Identification of a packet it translates from IPv6 or an ICMP error it sends (random(),
    bpf_get_prandom_u32 in the kernel), so only these two fields may differ between the paths."""
    if len(frame) >= 34 and frame[12:14] == b"\x08\x00":
        return frame[:18] + b"\0\0" + frame[20:24] + b"\0\0" + frame[26:]
    return frame


def outcome(sut, context, well_formed=True):
    """What left the switch since the last call, once it has been quiet for 0.3 s: frames by port
    (Identification zeroed) and packet-ins, each sorted: the fast path may reorder a batch's packets,
    as those the kernel forwards overtake those it hands up to the interpreter. With `well_formed`,
    every frame must be well formed (`context` says what was sent, if not); a damaged packet may
    leave as damaged as it came (a translation keeps a wrong transport checksum wrong)."""
    while sut.dataplane._drain(0.3):
        pass
    frames = {}
    for port, queue in sut.dataplane.pending.items():
        wrong = [(Ether(f).summary(), w, f.hex()) for f in queue if well_formed and (w := malformations(f))]
        assert not wrong, f"port {port}: malformed frames {wrong} ({context})"
        if queue:
            frames[port] = sorted(with_drawn_identification_zeroed(f) for f in queue)
        queue.clear()
    packet_ins = []
    while (packet_in := sut.client.packet_in(timeout=0.05)) is not None:
        packet_ins.append((packet_in[0], sorted(packet_in[1].items())))
    return frames, sorted(packet_ins)


def describe_outcome(result):
    frames, packet_ins = result
    return "; ".join([f"port {p}: " + ", ".join(Ether(f).summary() for f in fs) for p, fs in frames.items()] +
                     [f"packet-in {Ether(payload).summary()} {dict(metadata)}" for payload, metadata in packet_ins]) \
        or "nothing"


@pytest.fixture
def both_paths():
    """Two switches of p4/nat64.p4 side by side, one on the interpreter alone and one with the fast
    path, with the same entries: the base, sessions for UDP, TCP and ICMP, a filtered one for UDP,
    and an EAM (stateless, RFC 7757)."""
    with switch_under_test(PROGRAM, n_ports=3, fast_path="", links="i") as interpreter, \
            switch_under_test(PROGRAM, n_ports=3, fast_path=MODE, links="k") as kernel:
        for sut in (interpreter, kernel):
            install_base(sut.client)
            ptf = PacketTest(sut)
            ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000),
                       session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000),
                       session_v6(ptf, 6, V6_HOST, 33000, MAPPED, 41000),
                       session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000),
                       session_v6(ptf, 1, V6_HOST, 7, MAPPED, 42000), session_v4(ptf, 1, MAPPED, 42000, V6_HOST, 7),
                       session_v6(ptf, 17, V6_HOST, 5005, MAPPED, 40005, filtered=1),
                       session_v4(ptf, 17, MAPPED, 40005, V6_HOST, 5005, filtered=1),
                       *eam(ptf, EAM6, EAM4))
        yield interpreter, kernel


def test_random_packets_leave_the_fast_path_as_they_leave_the_interpreter(both_paths):
    """Same behaviour, whatever path a packet takes: the fuzz suite's well-formed random packets
    (a fifth of all from or to the EAM host) and packets near the MTU, a tenth of them with bytes
    after the IP packet, sent alike to a switch with the fast path and to one without, in batches;
    every fourth batch damaged packet by packet. Each batch must leave both alike (frames by port,
    packet-ins), and in the end both must have counted the same drops, punts and translations. A batch that does
    not leave alike is sent again packet by packet, to name the packet."""
    interpreter, kernel = both_paths
    seed = int(os.environ.get("NAT64FABRIC_SEED", random.randrange(1 << 32)))   # set it to replay a run
    rng = random.Random(seed)
    sent = 0
    for n in range(DIFFERENTIAL_PACKETS // DIFFERENTIAL_BATCH):
        batch, whole = [], n % 4 != 3
        for _ in range(DIFFERENTIAL_BATCH):
            pick = rng.random()
            port, frame = near_the_mtu(rng) if pick < 0.15 else \
                (V6_PORT, random_v6_packet(rng, src=EAM6 if pick < 0.25 else None)) if pick < 0.575 else \
                (V4_PORT, random_v4_packet(rng, dst=EAM4 if pick > 0.9 else None))
            if rng.random() < 0.1 and len(frame) < 1500:   # bytes after the IP packet, as Ethernet pads a short one
                frame += rng.randbytes(rng.randint(1, min(24, 1514 - len(frame))))
            batch.append((port, frame if whole else damaged(rng, frame)))
        for port, frame in batch:
            interpreter.dataplane.send(port, frame)
            kernel.dataplane.send(port, frame)
        context = f"seed {seed}, packets {sent} to {sent + len(batch) - 1}"
        if outcome(interpreter, "interpreter, " + context, whole) != outcome(kernel, "fast path, " + context, whole):
            for port, frame in batch:
                interpreter.dataplane.send(port, frame)
                kernel.dataplane.send(port, frame)
                context = f"seed {seed}, port {port} {frame.hex()}"
                alone = outcome(interpreter, "interpreter, " + context, whole)
                fast = outcome(kernel, "fast path, " + context, whole)
                assert alone == fast, \
                    f"port {port} {Ether(frame).summary()} ({frame.hex()}), seed {seed}:\n" \
                    f"  interpreter: {describe_outcome(alone)}\n  fast path:   {describe_outcome(fast)}"
            raise AssertionError(f"a batch left the two switches differently, its packets alone alike (seed {seed})")
        sent += len(batch)
    for counter in ("drops", "punts", "translations"):   # by cell, the kernel's counts merged into the interpreter's
        alone, fast = (counter_cells(PacketTest(sut), counter) for sut in both_paths)
        assert alone == fast, f"{counter} by cell: interpreter {alone}, fast path {fast} (seed {seed})"
        assert sum(alone.values()) > 0, f"no {counter} counted: the packets did not reach the pipeline"
    counters = kernel.switch.final_counters()
    # A good share took the kernel's path (about half in trials; the rest went up to the interpreter).
    assert counters["fast path: forwarded"] + counters["fast path: dropped"] > sent // 3, counters
    print(f"{sent} packets alike on both paths (seed {seed}); fast path counters {counters}")
