"""Control-plane policing in the NAT64 pipeline: every punt (session miss, TCP control copy,
fragmentation, no route, an IPv4 SYN to be held) passes Nat64Ingress.punt_source_meter, indexed by CRC-16 of the source
address (IPv6: masked to the subscriber prefix that punt_subscriber holds) modulo 4096, then Nat64Ingress.punt_port_meter,
indexed by ingress port; an IPv4 SYN to be held passes Nat64Ingress.inbound_syn_meter before them. RED from any
drops the punt and counts it under DROP_PUNT_POLICED; YELLOW passes; unconfigured meters pass all.
The bucket index is computed here independently of the pipeline (CRC-16/ARC)."""
import ipaddress
import time

import pytest
from scapy.layers.inet import TCP, UDP

from nat64_setup import (DROP_PUNT_POLICED, MAPPED, P, PUNT_INBOUND_SYN, PUNT_NEEDS_FRAGMENTATION, PUNT_SESSION_MISS,
                         PUNT_TCP_CONTROL, T, V4_PORT, V4_SERVER, V6_HOST, V6_PORT, counter, drops, from_v4_server,
                         from_v6_host, session_v4, session_v6, to_v4_server)
from nat64_setup import sut  # noqa: F401  (pytest fixture, found by name)
from harness.base import PacketTest

OTHER_HOST = "2001:db8:1::6"
OTHER_PORT = 3
SOURCE_METER, PORT_METER, SYN_METER = P + "punt_source_meter", P + "punt_port_meter", P + "inbound_syn_meter"
SOURCE_BUCKETS = 4096
# One token a second: within a test's burst the buckets hold what their bursts allow, plus at
# most one token per second the test took.
SLOW = 1


def source_bucket(address):
    """CRC-16/ARC (reflected 0x8005, initial 0) of the address bytes, modulo the meter size."""
    crc = 0
    for byte in ipaddress.ip_address(address).packed:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc % SOURCE_BUCKETS


@pytest.fixture
def ptf(sut):
    test = PacketTest(sut)
    yield test
    c = test.client
    for meter in (SOURCE_METER, PORT_METER, SYN_METER):
        c.write(c.update("MODIFY", c.meter_entry(meter)))     # every cell unconfigured again
    test.finish()


def configure(ptf, meter, config, index=None):
    ptf.client.write(ptf.client.update("MODIFY", ptf.client.meter_entry(meter, index, config)))


def packet_ins(ptf):
    """The packet-ins that arrive within half a second of the last one, as (ingress_port, reason)."""
    got = []
    while (p := ptf.client.packet_in(timeout=0.5)) is not None:
        got.append((p[1]["ingress_port"], p[1]["punt_reason"]))
    return got


def misses(ptf, n, src=V6_HOST, port=V6_PORT, first_sport=7000):
    for i in range(n):
        ptf.send(port, from_v6_host(UDP(sport=first_sport + i, dport=53) / b"q", src=src))


def test_unconfigured_meters_let_every_punt_through(ptf):
    before = drops(ptf, DROP_PUNT_POLICED)
    misses(ptf, 20)
    assert packet_ins(ptf) == [(V6_PORT, PUNT_SESSION_MISS)] * 20
    assert drops(ptf, DROP_PUNT_POLICED) == before


def test_a_flooding_source_is_policed_and_counted_while_another_still_punts(ptf):
    # CBS 2, PBS 5 per source: 2 GREEN and 3 YELLOW punts pass, the rest is RED.
    configure(ptf, SOURCE_METER, (SLOW, 2, SLOW, 5))
    before_drops = drops(ptf, DROP_PUNT_POLICED)
    before_punts = counter(ptf, P + "punts", PUNT_SESSION_MISS)
    start = time.monotonic()
    misses(ptf, 40)
    passed = packet_ins(ptf)
    refills = int(time.monotonic() - start) + 1
    assert 5 <= len(passed) <= 5 + refills, passed
    assert set(passed) == {(V6_PORT, PUNT_SESSION_MISS)}
    assert drops(ptf, DROP_PUNT_POLICED) - before_drops == 40 - len(passed)
    assert counter(ptf, P + "punts", PUNT_SESSION_MISS) - before_punts == len(passed), "refused punts are not punts"
    # Another source on the same port has a bucket of its own.
    assert source_bucket(OTHER_HOST) != source_bucket(V6_HOST)
    misses(ptf, 3, src=OTHER_HOST)
    assert packet_ins(ptf) == [(V6_PORT, PUNT_SESSION_MISS)] * 3


def test_the_source_meter_cell_is_the_crc16_bucket_of_the_ipv6_source(ptf):
    # Zero rates and bursts: that one cell refuses everything, the others are unconfigured.
    configure(ptf, SOURCE_METER, (0, 0, 0, 0), index=source_bucket(V6_HOST))
    before = drops(ptf, DROP_PUNT_POLICED)
    misses(ptf, 2)
    misses(ptf, 1, src=OTHER_HOST)
    assert packet_ins(ptf) == [(V6_PORT, PUNT_SESSION_MISS)]
    assert drops(ptf, DROP_PUNT_POLICED) - before == 2


def subscriber_mask(ptf, length):
    mask = ((1 << 128) - 1) ^ ((1 << (128 - length)) - 1)
    ptf.client.write(ptf.client.update("MODIFY", ptf.client.table_entry(
        P + "punt_subscriber", action=P + "set_subscriber_mask", params={"mask": mask}, default=True)))


def test_the_source_meter_counts_the_subscriber_prefix_so_a_host_cannot_change_bucket(ptf):
    """With /64 subscribers, every address of a /64 is one bucket: a host that rotates its
    interface identifier stays in its bucket; with /128 (the default) each address is its own."""
    subscriber = str(ipaddress.ip_network(V6_HOST + "/64", strict=False).network_address)
    assert source_bucket(subscriber) not in (source_bucket(V6_HOST), source_bucket(OTHER_HOST))
    subscriber_mask(ptf, 64)
    try:
        configure(ptf, SOURCE_METER, (0, 1, 0, 1), index=source_bucket(subscriber))   # one punt, never refilled
        before = drops(ptf, DROP_PUNT_POLICED)
        for i in range(4):      # four addresses of the same /64
            misses(ptf, 1, src=f"2001:db8:1::{0x200 + i:x}", first_sport=7100 + i)
        misses(ptf, 1, src=OTHER_HOST)
        assert packet_ins(ptf) == [(V6_PORT, PUNT_SESSION_MISS)]
        assert drops(ptf, DROP_PUNT_POLICED) - before == 4
    finally:
        subscriber_mask(ptf, 128)
    misses(ptf, 2, src=OTHER_HOST)      # its own /128 bucket again, unconfigured
    assert packet_ins(ptf) == [(V6_PORT, PUNT_SESSION_MISS)] * 2


def test_the_port_meter_limits_every_source_on_a_port_and_no_other_port(ptf):
    configure(ptf, PORT_METER, (SLOW, 1, SLOW, 3), index=OTHER_PORT)
    before = drops(ptf, DROP_PUNT_POLICED)
    start = time.monotonic()
    for i in range(12):   # twelve sources, one miss each: only the port's budget applies
        misses(ptf, 1, src=f"2001:db8:1::{0x100 + i:x}", port=OTHER_PORT)
    passed = packet_ins(ptf)
    refills = int(time.monotonic() - start) + 1
    assert 3 <= len(passed) <= 3 + refills, passed
    assert set(passed) == {(OTHER_PORT, PUNT_SESSION_MISS)}
    assert drops(ptf, DROP_PUNT_POLICED) - before == 12 - len(passed)
    misses(ptf, 4, port=V6_PORT)
    assert packet_ins(ptf) == [(V6_PORT, PUNT_SESSION_MISS)] * 4


def test_tcp_control_copies_are_policed_and_the_segments_still_pass(ptf):
    ptf.insert(session_v6(ptf, 6, V6_HOST, 33000, MAPPED, 41000), session_v4(ptf, 6, MAPPED, 41000, V6_HOST, 33000))
    configure(ptf, SOURCE_METER, (0, 1, 0, 1), index=source_bucket(V6_HOST))   # one copy, never refilled
    before = drops(ptf, DROP_PUNT_POLICED)
    for flags in ("S", "F", "R"):
        ptf.send(V6_PORT, from_v6_host(TCP(sport=33000, dport=80, flags=flags, seq=1)))
        ptf.verify_packet(to_v4_server(TCP(sport=41000, dport=80, flags=flags, seq=1)), V4_PORT)
    assert packet_ins(ptf) == [(V6_PORT, PUNT_TCP_CONTROL)]
    assert drops(ptf, DROP_PUNT_POLICED) - before == 2


def test_ipv4_punts_are_policed_by_their_ipv4_source(ptf):
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000),
               ptf.client.table_entry(P + "egress_mtu", match={"port": V6_PORT}, action=P + "set_mtu",
                                      params={"mtu": 1300}))
    configure(ptf, SOURCE_METER, (0, 1, 0, 1), index=source_bucket(V4_SERVER))
    before = drops(ptf, DROP_PUNT_POLICED)
    for _ in range(3):   # without DF and over the IPv6 MTU: the controller would fragment them
        ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / (b"d" * 1300)))
    assert packet_ins(ptf) == [(V4_PORT, PUNT_NEEDS_FRAGMENTATION)]
    assert drops(ptf, DROP_PUNT_POLICED) - before == 2


def test_ipv4_syns_to_be_held_pass_a_meter_of_their_own_before_the_port_meter(ptf):
    """RFC 6146 3.5.2.2: SYNs the controller would hold pass inbound_syn_meter (set to what it
    holds) first: a scan of pool4 from many sources refused there spends none of the port budget
    that the port's session misses and TCP control copies share."""
    ptf.modify(ptf.client.table_entry(T + "inbound_syn", default=True, action=T + "hold_inbound_syns"))
    configure(ptf, SYN_METER, (SLOW, 2, SLOW, 2))
    configure(ptf, PORT_METER, (SLOW, 6, SLOW, 6), index=V4_PORT)
    before = drops(ptf, DROP_PUNT_POLICED)
    start = time.monotonic()
    for i in range(10):         # ten scanning sources, one SYN each
        ptf.send(V4_PORT, from_v4_server(TCP(sport=1000 + i, dport=9000 + i, flags="S"), src=f"198.51.100.{100 + i}"))
    passed = packet_ins(ptf)
    refills = int(time.monotonic() - start) + 1
    assert 2 <= len(passed) <= 2 + refills, passed
    assert set(passed) == {(V4_PORT, PUNT_INBOUND_SYN)}
    assert drops(ptf, DROP_PUNT_POLICED) - before == 10 - len(passed)
    # The refused ones spent none of the port's budget (a burst of 6): the rest of it still passes
    # as many other punts (more than the port's refills in the test's seconds).
    ptf.insert(session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000),
               ptf.client.table_entry(P + "egress_mtu", match={"port": V6_PORT}, action=P + "set_mtu",
                                      params={"mtu": 1300}))
    rest = 6 - len(passed)
    for _ in range(rest):       # larger than the IPv6 MTU: punted to be fragmented
        ptf.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / (b"d" * 1300)))
    assert packet_ins(ptf) == [(V4_PORT, PUNT_NEEDS_FRAGMENTATION)] * rest
