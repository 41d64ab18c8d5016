"""PTF-style tests of a P4Runtime switch (softswitch unless NAT64FABRIC_TARGET says otherwise)
running softswitch/examples/l3_forwarding.p4 on veth pairs: forwarding, drop, packet-in/out,
counters, idle timeouts, multicast, clone to CPU, arbitration, pipeline actions and error codes."""
import tempfile
import time
import types

import grpc
import pytest
from scapy.layers.inet import IP, UDP, TCP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Ether

from harness.base import PacketTest, primary_of_a_bare_switch, switch_under_test
from harness.p4rt import P4RuntimeClient, WriteError, batch_error
from harness import ROOT
from p4.v1 import p4runtime_pb2

PROGRAM = ROOT / "softswitch" / "examples" / "l3_forwarding.p4"
CPU_PORT = 255
ROUTER_MAC = "00:00:00:00:0a:01"
HOST2_MAC = "00:00:00:00:00:02"


@pytest.fixture(scope="module")
def sut():
    with switch_under_test(PROGRAM, n_ports=4) as s:
        yield s


@pytest.fixture
def ptf(sut):
    test = PacketTest(sut)
    yield test
    test.finish(unread_packet_ins="drain")


def route_v4(t, prefix, length, port, dst_mac=HOST2_MAC, idle_timeout_ns=0):
    return t.client.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": (prefix, length)},
                                action="L3Ingress.set_next_hop_v4",
                                params={"port": port, "src_mac": ROUTER_MAC, "dst_mac": dst_mac},
                                idle_timeout_ns=idle_timeout_ns)


def route_v6(t, prefix, length, port, idle_timeout_ns=0):
    return t.client.table_entry("L3Ingress.ipv6_lpm", match={"hdr.ipv6.dst_addr": (prefix, length)},
                                action="L3Ingress.set_next_hop_v6",
                                params={"port": port, "src_mac": ROUTER_MAC, "dst_mac": HOST2_MAC},
                                idle_timeout_ns=idle_timeout_ns)


def udp4(dst="10.0.2.7", ttl=64):
    return Ether(src="00:00:00:00:00:01", dst=ROUTER_MAC) / IP(src="10.0.1.1", dst=dst, ttl=ttl) / \
        UDP(sport=1234, dport=53) / b"payload-bytes"


def routed_v4(pkt, dst_mac=HOST2_MAC):
    """What the router makes of pkt: new MACs, TTL - 1, header checksum recomputed by scapy."""
    exp = pkt.copy()
    exp[Ether].src, exp[Ether].dst = ROUTER_MAC, dst_mac
    exp[IP].ttl -= 1
    del exp[IP].chksum
    return exp


def test_capabilities_and_pipeline_read_back(sut):
    caps = sut.client.stub.Capabilities(p4runtime_pb2.CapabilitiesRequest())
    assert caps.p4runtime_api_version == "1.4.1", "the release whose 1.4 fields it reads and writes"
    config = sut.client.get_pipeline("ALL")
    assert config.p4info == sut.client.p4info.message
    assert config.p4_device_config == sut.device_config
    assert not sut.client.get_pipeline("COOKIE_ONLY").HasField("p4info")


def test_ipv4_route_forwards_with_ttl_and_checksum(ptf):
    ptf.insert(route_v4(ptf, "10.0.2.0", 24, 2))
    pkt = udp4()
    ptf.send(1, pkt)
    ptf.verify_packet(routed_v4(pkt), 2)
    ptf.verify_no_other_packets()


def test_longest_prefix_wins(ptf):
    ptf.insert(route_v4(ptf, "10.0.0.0", 8, 3), route_v4(ptf, "10.0.2.0", 24, 2))
    ptf.send(1, udp4("10.0.2.9"))
    ptf.verify_packet(routed_v4(udp4("10.0.2.9")), 2)
    ptf.send(1, udp4("10.9.9.9"))
    ptf.verify_packet(routed_v4(udp4("10.9.9.9")), 3)
    ptf.verify_no_other_packets()


def test_ipv6_route_forwards_with_hop_limit(ptf):
    ptf.insert(route_v6(ptf, "2001:db8:2::", 48, 4))
    pkt = Ether(src="00:00:00:00:00:01", dst=ROUTER_MAC) / IPv6(src="2001:db8:1::1", dst="2001:db8:2::7",
                                                                 hlim=9) / TCP(sport=4000, dport=80, flags="S")
    ptf.send(1, pkt)
    exp = pkt.copy()
    exp[Ether].src, exp[Ether].dst = ROUTER_MAC, HOST2_MAC
    exp[IPv6].hlim = 8
    ptf.verify_packet(exp, 4)
    ptf.verify_no_other_packets()


def test_no_route_drops_and_bad_checksum_drops(ptf):
    ptf.send(1, udp4("192.0.2.1"))
    ptf.insert(route_v4(ptf, "10.0.2.0", 24, 2))
    bad = udp4()
    bad[IP].chksum = 0x1234
    ptf.send(1, bad)
    ptf.verify_no_other_packets()
    assert ptf.client.packet_in(timeout=0.2) is None


def test_default_action_modified_to_punt_gives_packet_in(ptf):
    ptf.modify(ptf.client.table_entry("L3Ingress.ipv4_lpm", action="L3Ingress.send_to_cpu", default=True))
    pkt = udp4("198.51.100.1")
    ptf.send(3, pkt)
    payload, metadata = ptf.client.packet_in()
    assert payload == bytes(pkt)
    assert metadata["ingress_port"] == 3
    read = ptf.client.read(ptf.client.table_entry("L3Ingress.ipv4_lpm", default=True))
    assert read[0].table_entry.action.action.action_id == ptf.client.p4info.id("actions", "L3Ingress.send_to_cpu")
    ptf.verify_no_other_packets()


def test_ttl_expiry_is_punted_with_ingress_port(ptf):
    ptf.insert(route_v4(ptf, "10.0.2.0", 24, 2))
    pkt = udp4(ttl=1)
    ptf.send(2, pkt)
    payload, metadata = ptf.client.packet_in()
    assert (payload, metadata["ingress_port"]) == (bytes(pkt), 2)
    ptf.verify_no_other_packets()


def test_packet_out_leaves_on_the_named_port(ptf):
    frame = Ether(src=ROUTER_MAC, dst="ff:ff:ff:ff:ff:ff") / ARP(op=2, psrc="10.0.1.254", pdst="10.0.1.1")
    for port in (1, 4):
        ptf.client.packet_out(bytes(frame), egress_port=port)
        ptf.verify_packet(frame, port)
    ptf.verify_no_other_packets()


def test_direct_and_indexed_counters(ptf):
    ptf.insert(route_v4(ptf, "10.0.2.0", 24, 2))
    pkt = udp4()
    before = port_rx(ptf, 1)
    for _ in range(3):
        ptf.send(1, pkt)
        ptf.verify_packet(routed_v4(pkt), 2)
    entity = ptf.client.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.0.2.0", 24)})
    entity.table_entry.counter_data.SetInParent()
    (read,) = ptf.client.read(entity)
    assert (read.table_entry.counter_data.packet_count, read.table_entry.counter_data.byte_count) == \
        (3, 3 * len(pkt))
    assert port_rx(ptf, 1) == before + 3
    # A counter cell can be written (reset: data of zero counts) and reads back what was written.
    reset = counter_entity(ptf, 1)
    reset.counter_entry.data.SetInParent()
    ptf.client.write(ptf.client.update("MODIFY", reset))
    assert port_rx(ptf, 1) == 0
    ptf.verify_no_other_packets()


def test_the_default_entry_counts_misses_in_its_direct_counter(ptf):
    """P4Runtime 9.1.5: the default entry is treated like a regular entry with regard to direct
    resources. A miss of ipv4_lpm is counted in the default entry's direct counter, which is
    written and read as a table entry and as a DirectCounterEntry (on the fast path the kernel
    counts it)."""
    default = p4runtime_pb2.Entity()
    default.table_entry.table_id = ptf.client.p4info.id("tables", "L3Ingress.ipv4_lpm")
    default.table_entry.is_default_action = True
    default.table_entry.counter_data.SetInParent()
    ptf.client.write(ptf.client.update("MODIFY", default))   # no action: drop() again, counts zeroed
    pkt = udp4(dst="10.0.9.1")
    for _ in range(4):
        ptf.send(1, pkt)
    ptf.verify_no_other_packets()
    (read,) = ptf.client.read(default)
    assert (read.table_entry.counter_data.packet_count, read.table_entry.counter_data.byte_count) == (4, 4 * len(pkt))
    direct = p4runtime_pb2.Entity()
    direct.direct_counter_entry.table_entry.CopyFrom(default.table_entry)
    direct.direct_counter_entry.table_entry.ClearField("counter_data")
    (read,) = ptf.client.read(direct)
    assert read.direct_counter_entry.table_entry.is_default_action
    assert read.direct_counter_entry.data.packet_count == 4
    direct.direct_counter_entry.data.packet_count = 1
    ptf.client.write(ptf.client.update("MODIFY", direct))
    ptf.send(1, pkt)
    ptf.verify_no_other_packets()
    (read,) = ptf.client.read(direct)
    assert (read.direct_counter_entry.data.packet_count, read.direct_counter_entry.data.byte_count) == (2, len(pkt))


def counter_entity(ptf, index):

    e = p4runtime_pb2.Entity()
    e.counter_entry.counter_id = ptf.client.p4info.id("counters", "L3Ingress.port_rx")
    e.counter_entry.index.index = index
    return e


def port_rx(ptf, index):
    (read,) = ptf.client.read(counter_entity(ptf, index))
    return read.counter_entry.data.packet_count


def test_idle_timeout_notification_names_the_idle_entry(ptf):
    hit = route_v6(ptf, "2001:db8:5::", 48, 2, idle_timeout_ns=300_000_000)
    ptf.insert(hit)
    start = time.monotonic()
    note = ptf.client.idle_timeout_notification(timeout=5)
    assert note is not None, "no idle-timeout notification within 5 s"
    assert time.monotonic() - start >= 0.25
    (entry,) = note.table_entry
    assert entry.table_id == hit.table_entry.table_id
    assert entry.match == hit.table_entry.match
    # P4Runtime: the notification resets the entry's timer, which time_since_last_hit shows.
    query = ptf.client.table_entry("L3Ingress.ipv6_lpm")
    query.table_entry.time_since_last_hit.SetInParent()
    (read,) = ptf.client.read(query)
    assert read.table_entry.time_since_last_hit.elapsed_ns < 250_000_000
    # The entry stays until the controller deletes it, and is reported again after another period.
    assert ptf.client.idle_timeout_notification(timeout=5) is not None
    ptf.verify_no_other_packets()


def test_idle_time_keeps_growing_while_no_controller_takes_the_notifications():
    """P4Runtime 9.1.8: a notification restarts the entry's timer. One that no controller took (none
    was primary) does not: a controller connecting later reads how long the entry has really been
    idle (a restarted NAT64 controller ends those sessions at once), and the next notification it
    takes restarts the timer."""
    with primary_of_a_bare_switch() as (switch, first):
        first.set_pipeline(*switch.build_pipeline(PROGRAM, tempfile.mkdtemp(prefix="nat64fabric-p4-")))
        route = route_v6(types.SimpleNamespace(client=first), "2001:db8:9::", 48, 2, idle_timeout_ns=200_000_000)
        first.write(first.update("INSERT", route))
        first.close()
        time.sleep(1.5)                                    # seven periods, each notification to no one
        later = P4RuntimeClient(switch.address, 1, election_id=2)
        try:
            assert later.arbitrate().status.code == 0
            later.p4info = first.p4info
            query = later.table_entry("L3Ingress.ipv6_lpm")
            query.table_entry.time_since_last_hit.SetInParent()
            (read,) = later.read(query)
            assert read.table_entry.time_since_last_hit.elapsed_ns >= 1_200_000_000
            assert later.idle_timeout_notification(timeout=5) is not None
            (read,) = later.read(query)
            assert read.table_entry.time_since_last_hit.elapsed_ns < 200_000_000, "a notification taken restarts it"
        finally:
            later.close()


def test_modify_sets_the_idle_timeout_it_carries(ptf):
    """P4Runtime 9.1: a MODIFY sets the entry's idle_timeout_ns; a read returns it, and the
    notification follows the new timeout (a NAT session that closes moves to a shorter one)."""
    route = route_v6(ptf, "2001:db8:7::", 48, 2, idle_timeout_ns=3600 * 10**9)

    def names_route(note):
        return note is not None and any(e.match == route.table_entry.match for e in note.table_entry)

    ptf.insert(route)
    shorter = route_v6(ptf, "2001:db8:7::", 48, 3, idle_timeout_ns=300_000_000)
    ptf.modify(shorter)
    (read,) = ptf.client.read(route_v6(ptf, "2001:db8:7::", 48, 3))
    assert read.table_entry.idle_timeout_ns == 300_000_000
    deadline = time.monotonic() + 5
    while not names_route(ptf.client.idle_timeout_notification(timeout=max(0, deadline - time.monotonic()))):
        assert time.monotonic() < deadline, "no notification within 5 s of a MODIFY to a 300 ms timeout"
    # Back to no timeout at all: no more notifications for it.
    ptf.modify(route_v6(ptf, "2001:db8:7::", 48, 3, idle_timeout_ns=0))
    while ptf.client.idle_timeout_notification(timeout=0) is not None:
        pass                                        # drain what came before
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        assert not names_route(ptf.client.idle_timeout_notification(timeout=0.2)), "reported with no timeout"
    ptf.verify_no_other_packets()


def test_an_entry_hit_within_its_timeout_is_not_reported_until_traffic_stops(ptf):
    route = route_v6(ptf, "2001:db8:6::", 48, 2, idle_timeout_ns=400_000_000)

    def names_route(note):
        return note is not None and any(e.match == route.table_entry.match for e in note.table_entry)

    ptf.insert(route)
    pkt = Ether(src="00:00:00:00:00:01", dst=ROUTER_MAC) / IPv6(src="2001:db8:1::1", dst="2001:db8:6::7") / UDP()
    end = time.monotonic() + 1.2      # three timeout periods of traffic, a packet every 100 ms
    while time.monotonic() < end:
        ptf.send(1, pkt)
        assert ptf.dataplane.poll(2, timeout=1) is not None
        time.sleep(0.1)
    # Earlier tests' entries may still be reported; this one must not be while it is hit.
    while (note := ptf.client.idle_timeout_notification(timeout=0)) is not None:
        assert not names_route(note), "reported while hit"
    stopped = time.monotonic()
    while not names_route(note := ptf.client.idle_timeout_notification(timeout=5)):
        assert note is not None, "no notification after the traffic stopped"
    assert time.monotonic() - stopped >= 0.3, "reported a timeout after the last hit, not before"
    ptf.verify_no_other_packets()


def pre_entity(group=None, clone_session=None, ports=()):

    e = p4runtime_pb2.Entity()
    if group is not None:
        g = e.packet_replication_engine_entry.multicast_group_entry
        g.multicast_group_id = group
    else:
        g = e.packet_replication_engine_entry.clone_session_entry
        g.session_id = clone_session
    for i, p in enumerate(ports):
        g.replicas.add(egress_port=p, instance=i + 1)
    return e


def test_multicast_group_floods_arp(ptf):
    ptf.insert(pre_entity(group=7, ports=(2, 3, 4)))
    ptf.insert(ptf.client.table_entry("L3Ingress.acl", match={"hdr.ethernet.ether_type": (0x0806, 0xffff)},
                                      action="L3Ingress.flood", params={"group": 7}, priority=10))
    arp = Ether(src="00:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="10.0.1.1", pdst="10.0.1.254")
    ptf.send(1, arp)
    for port in (2, 3, 4):
        ptf.verify_packet(arp, port)
    ptf.verify_no_other_packets()
    (group,) = ptf.client.read(pre_entity(group=7))
    assert [r.egress_port for r in group.packet_replication_engine_entry.multicast_group_entry.replicas] == [2, 3, 4]


def test_clone_to_cpu_copies_and_still_forwards(ptf):
    ptf.insert(pre_entity(clone_session=99, ports=(CPU_PORT,)))
    ptf.insert(route_v4(ptf, "10.0.2.0", 24, 2))
    ptf.insert(ptf.client.table_entry("L3Ingress.acl", match={"standard_metadata.ingress_port": (1, 0x1ff)},
                                      action="L3Ingress.clone_to_cpu", priority=5))
    pkt = udp4()
    ptf.send(1, pkt)
    ptf.verify_packet(routed_v4(pkt), 2)
    payload, metadata = ptf.client.packet_in()
    assert (payload, metadata["ingress_port"]) == (bytes(pkt), 1)
    ptf.verify_no_other_packets()


def codes(err):
    return [c.name for c in err.codes()]


def test_write_errors_carry_p4runtime_codes_per_update(ptf):
    c = ptf.client
    good = route_v4(ptf, "10.0.3.0", 24, 3)
    ptf.insert(good)
    with pytest.raises(WriteError) as dup:
        c.write(c.update("INSERT", good))
    assert dup.value.code == grpc.StatusCode.UNKNOWN and codes(dup.value) == ["ALREADY_EXISTS"]

    unknown_table = route_v4(ptf, "10.0.4.0", 24, 3)
    unknown_table.table_entry.table_id = 0x02ffffff
    too_wide = route_v4(ptf, "10.0.5.0", 24, 3)
    too_wide.table_entry.action.action.params[0].value = (600).to_bytes(2, "big")   # port is bit<9>
    missing = route_v4(ptf, "10.0.6.0", 24, 3)
    also_good = route_v4(ptf, "10.0.7.0", 24, 3)
    with pytest.raises(WriteError) as batch:
        c.write(*(c.update(kind, e) for kind, e in
                  (("INSERT", unknown_table), ("INSERT", too_wide), ("DELETE", missing), ("INSERT", also_good))))
    assert codes(batch.value) == ["NOT_FOUND", "OUT_OF_RANGE", "NOT_FOUND", "OK"]
    assert "port" in batch.value.errors[1].message
    ptf._undo.append(c.update("DELETE", also_good))          # applied despite the others: clean it up
    assert len(c.read(c.table_entry("L3Ingress.ipv4_lpm"))) == 2


def test_reads_wildcards_and_unknown_ids(ptf):
    c = ptf.client
    ptf.insert(route_v4(ptf, "10.1.0.0", 16, 2), route_v6(ptf, "2001:db8:9::", 48, 3))

    everything = p4runtime_pb2.Entity()
    everything.table_entry.SetInParent()
    assert len(c.read(everything)) == 2
    unknown = p4runtime_pb2.Entity()
    unknown.table_entry.table_id = 0x02ffffff
    with pytest.raises(grpc.RpcError) as err:
        c.read(unknown)
    assert err.value.code() == grpc.StatusCode.UNKNOWN and batch_error(err.value).codes() == [grpc.StatusCode.NOT_FOUND]


def test_only_the_primary_may_write_and_arbitration_moves(sut, ptf):
    c = ptf.client
    other = P4RuntimeClient(sut.switch.address, 1, p4info=c.p4info, election_id=5)
    try:
        assert other.arbitrate().status.code == 0                     # 5 > 1: the newcomer is primary
        assert c.next_arbitration().status.code == grpc.StatusCode.ALREADY_EXISTS.value[0]
        with pytest.raises(WriteError) as denied:
            c.write(c.update("INSERT", route_v4(ptf, "10.0.8.0", 24, 2)))
        assert denied.value.code == grpc.StatusCode.PERMISSION_DENIED
        wrong_device = P4RuntimeClient(sut.switch.address, 42, p4info=c.p4info, election_id=9)
        with pytest.raises(grpc.RpcError) as err:
            wrong_device.arbitrate()
        assert err.value.code() == grpc.StatusCode.NOT_FOUND
        wrong_device.close()
    finally:
        other.close()
    # With the primary gone there is none until someone presents an election_id >= 5.
    assert c.next_arbitration().status.code == grpc.StatusCode.NOT_FOUND.value[0]
    assert c.arbitrate(election_id=6).status.code == 0
    ptf.insert(route_v4(ptf, "10.0.8.0", 24, 2))


def test_pipeline_config_actions_and_rejections(sut, ptf):
    c = ptf.client
    ptf.insert(route_v4(ptf, "10.0.2.0", 24, 2))
    c.set_pipeline(sut.p4info_path, sut.device_config, action="VERIFY")
    c.set_pipeline(sut.p4info_path, sut.device_config, action="RECONCILE_AND_COMMIT", cookie=77)
    assert len(c.read(c.table_entry("L3Ingress.ipv4_lpm"))) == 1, "reconciling the same pipeline keeps entries"
    assert c.get_pipeline("COOKIE_ONLY").cookie.cookie == 77

    def rejected(*args, **kwargs):
        with pytest.raises(grpc.RpcError) as err:
            c.set_pipeline(*args, **kwargs)
        return err.value

    e = rejected(sut.p4info_path, b"not a device config")
    assert e.code() == grpc.StatusCode.INVALID_ARGUMENT and "softswitch compile" in e.details()
    wrong = type(c.p4info.message)()
    wrong.CopyFrom(c.p4info.message)
    wrong.tables[0].match_fields[0].bitwidth = 31
    e = rejected(sut.p4info_path, sut.device_config, p4info=wrong)
    assert e.code() == grpc.StatusCode.INVALID_ARGUMENT and "bit<31>" in e.details()
    assert len(c.read(c.table_entry("L3Ingress.ipv4_lpm"))) == 1

    e = rejected(None, None, action="COMMIT")
    assert e.code() == grpc.StatusCode.NOT_FOUND, "P4Runtime 14: COMMIT with no saved config is NOT_FOUND"
    c.set_pipeline(sut.p4info_path, sut.device_config, action="VERIFY_AND_SAVE")
    c.set_pipeline(sut.p4info_path, sut.device_config, action="RECONCILE_AND_COMMIT")
    assert len(c.read(c.table_entry("L3Ingress.ipv4_lpm"))) == 1, "a commit drops the config saved before"
    c.set_pipeline(sut.p4info_path, sut.device_config, action="VERIFY_AND_SAVE")
    assert c.read(c.table_entry("L3Ingress.ipv4_lpm")) == [], \
        "P4Runtime 14: after VERIFY_AND_SAVE reads and writes refer to the saved config, which starts empty"
    saved_route = route_v4(ptf, "10.0.3.0", 24, 3)
    c.write(c.update("INSERT", saved_route))
    pkt = udp4()
    ptf.send(1, pkt)
    ptf.verify_packet(routed_v4(pkt), 2)           # packets still meet the running config and its route
    ptf.verify_no_other_packets()
    c.set_pipeline(None, None, action="COMMIT")
    (committed,) = c.read(c.table_entry("L3Ingress.ipv4_lpm"))
    assert committed.table_entry.match == saved_route.table_entry.match, "COMMIT puts the writes since the save in force"
    ptf._undo[:] = [c.update("DELETE", saved_route)]
    ptf.send(1, pkt)
    ptf.verify_no_other_packets()                  # 10.0.2.0/24 went with the old config: the default drops


def test_garbage_on_every_port_is_dropped_and_the_switch_stays_up(sut, ptf):
    rng = __import__("random").Random(7)
    for i in range(400):
        port = 1 + i % 4
        size = rng.choice((14, 15, 20, 34, 60, 200, 1500))   # the kernel sends nothing shorter than 14
        ptf.send(port, bytes(rng.getrandbits(8) for _ in range(size)))
    truncated = bytes(udp4())[:20]
    ptf.send(1, truncated)
    ptf.insert(route_v4(ptf, "10.0.2.0", 24, 2))
    pkt = udp4()
    ptf.send(1, pkt)
    deadline = time.monotonic() + 5
    while True:   # random frames may include routable ones; find ours among what came out
        frame = sut.dataplane.poll(2, timeout=max(0.0, deadline - time.monotonic()))
        assert frame is not None, "the switch stopped forwarding after garbage"
        if frame == bytes(routed_v4(pkt)):
            break
    for q in sut.dataplane.pending.values():
        q.clear()
    while ptf.client.packet_in(timeout=0.2) is not None:
        pass
    assert sut.switch.proc.poll() is None
