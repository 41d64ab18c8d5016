"""Faults at a softswitch port: a frame the out-port cannot carry is dropped and counted, and the
port goes on sending. Run with softswitch/examples/l3_forwarding.p4 on veth pairs (harness)."""
import re
import time

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from harness import ROOT, netns
from harness.base import PacketTest, switch_under_test

PROGRAM = ROOT / "softswitch" / "examples" / "l3_forwarding.p4"
ROUTER_MAC = "00:00:00:00:0a:01"
HOST2_MAC = "00:00:00:00:00:02"
SMALL_MTU = 1280
MTU_REFRESH = 1.0   # softswitch reads a port's MTU again at most this often


@pytest.fixture(scope="module")
def sut():
    with switch_under_test(PROGRAM, n_ports=2) as s:
        yield s


@pytest.fixture
def ptf(sut):
    test = PacketTest(sut)
    yield test
    test.finish(unread_packet_ins="drain")


def udp4(size, seq=0):
    """A UDP frame of `size` bytes from port 1's host to 10.0.2.7 (routed to port 2)."""
    head = Ether(src="00:00:00:00:00:01", dst=ROUTER_MAC) / IP(src="10.0.1.1", dst="10.0.2.7") / \
        UDP(sport=1234, dport=5000 + seq)
    return head / (b"x" * (size - len(head)))


def routed(pkt):
    exp = pkt.copy()
    exp[Ether].src, exp[Ether].dst = ROUTER_MAC, HOST2_MAC
    exp[IP].ttl -= 1
    del exp[IP].chksum
    return exp


def route_to_port2(t):
    return t.client.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.0.2.0", 24)},
                                action="L3Ingress.set_next_hop_v4",
                                params={"port": 2, "src_mac": ROUTER_MAC, "dst_mac": HOST2_MAC})


def send_normal_traffic(t, count=20):
    for i in range(count):
        pkt = udp4(200, seq=i)
        t.send(1, pkt)
        t.verify_packet(routed(pkt), 2)


def wait_for_log(switch, pattern, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = re.search(pattern, switch.log_text())
        if match:
            return match
        time.sleep(0.1)
    raise AssertionError(f"no log line matching {pattern!r} in {switch.log_path}:\n{switch.log_text()}")


def set_mtu(interface, mtu):
    netns.run("ip", "link", "set", interface, "mtu", str(mtu))


def test_oversize_frame_is_dropped_counted_and_the_port_keeps_sending(ptf, sut):
    ptf.insert(route_to_port2(ptf))
    set_mtu("sw2", SMALL_MTU)
    time.sleep(MTU_REFRESH + 0.2)
    try:
        ptf.send(1, udp4(SMALL_MTU + 14 + 1))   # one byte more than sw2 carries
        ptf.dataplane.verify_no_packet(2)
        # The warning shows up while the switch runs, naming the port and the reason.
        wait_for_log(sut.switch, r"WARNING port 2 \(sw2\): dropped a frame \(tx oversize: 1295-byte frame, MTU 1280")
        # The largest frame the link carries still goes out, and so does everything after the drop.
        biggest = udp4(SMALL_MTU + 14, seq=99)
        ptf.send(1, biggest)
        ptf.verify_packet(routed(biggest), 2)
        send_normal_traffic(ptf)
    finally:
        set_mtu("sw2", 1500)
        time.sleep(MTU_REFRESH + 0.2)


def test_frame_refused_by_the_kernel_is_counted_and_stepped_over(ptf, sut):
    """The MTU shrinks under the running switch: until softswitch reads it again, the kernel itself
    refuses the frame (EMSGSIZE). Either way it is counted, and the frames behind it go out."""
    ptf.insert(route_to_port2(ptf))
    time.sleep(MTU_REFRESH + 0.2)
    try:
        send_normal_traffic(ptf, count=1)   # softswitch reads the MTU now, then not for a second
        set_mtu("sw2", SMALL_MTU)
        for i in range(5):   # a burst: the refused frame is queued between good ones
            ptf.send(1, udp4(SMALL_MTU + 100, seq=i))
        send_normal_traffic(ptf)
        wait_for_log(sut.switch, r"WARNING port 2 \(sw2\): dropped a frame "
                                 r"\(tx (refused by the kernel: Message too long|oversize)")
    finally:
        set_mtu("sw2", 1500)
        time.sleep(MTU_REFRESH + 0.2)


def test_drop_totals_are_printed_at_shutdown(sut):
    """Last in this module: stops the switch and reads its totals (both tests above dropped frames on port 2)."""
    sut.switch.stop()
    text = sut.switch.log_text()
    totals = {m.group(1): int(m.group(2))
              for m in re.finditer(r"^\s+drop: port 2 \(sw2\) tx ([^:]+): (\d+)$", text, re.M)}
    assert totals, f"no drop totals for port 2 in the shutdown counters:\n{text}"
    assert totals.get("oversize", 0) >= 1
    assert sum(totals.values()) >= 1 + 5, totals
