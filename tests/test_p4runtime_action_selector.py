"""Action profiles and selectors on a P4Runtime switch over veth (P4Runtime 1.4 section 9.2):
softswitch/examples/ecmp_selector.p4 routes 10.0.0.0/8 through ecmp_selector, a v1model
action_selector(crc16) over the IPv4 addresses, protocol and UDP ports, and rewrites source MACs
through smac_rewrite's action_profile. Members, groups and one-shot action sets are written, read
back and refused with the specified codes; packets go to the member the CRC-16 (computed here, not
by the switch) picks, and flows spread over the members by their weights."""
import random
import time

import grpc
import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from harness.base import PacketTest, switch_under_test
from harness.p4rt import WriteError, batch_error
from harness import ROOT, netns
from p4.v1 import p4runtime_pb2

PROGRAM = ROOT / "softswitch" / "examples" / "ecmp_selector.p4"
SELECTOR = "EcmpIngress.ecmp_selector"
SMAC_PROFILE = "smac_profile"   # the implementation property's @name, as written
NEXT_HOPS = {1: 2, 2: 3, 3: 4}          # member ID -> egress port
MAX_GROUP_SIZE = 8                       # @max_group_size(8) in the program


@pytest.fixture(scope="module")
def sut():
    with switch_under_test(PROGRAM, n_ports=4) as s:
        yield s


@pytest.fixture
def ptf(sut):
    test = PacketTest(sut)
    yield test
    test.finish()


def dmac(port):
    return f"00:00:00:00:0d:{port:02x}"


def next_hop(c, member_id, port):
    return c.profile_member(SELECTOR, member_id, "EcmpIngress.set_next_hop", {"port": port, "dmac": dmac(port)})


def route(c, **target):
    """The 10.0.0.0/8 entry pointing to a member, a group or an action set (a TableAction field)."""
    entity = c.table_entry("EcmpIngress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.0.0.0", 8)})
    for field, value in target.items():
        if field == "action_profile_action_set":
            entity.table_entry.action.action_profile_action_set.CopyFrom(value)
        else:
            setattr(entity.table_entry.action, field, value)
    return entity


def action_set(c, ports_and_weights):
    s = p4runtime_pb2.ActionProfileActionSet()
    for port, weight in ports_and_weights:
        s.action_profile_actions.add(
            action=c.action("EcmpIngress.set_next_hop", {"port": port, "dmac": dmac(port)}), weight=weight)
    return s


def flow(sport, src="192.168.0.1", dst="10.1.2.3"):
    return Ether(dst="00:00:00:00:0a:01", src="00:00:00:00:00:01") / IP(src=src, dst=dst, ttl=64) \
        / UDP(sport=sport, dport=53) / b"payload"


def forwarded(pkt, port, smac="00:00:00:00:00:01"):
    out = pkt.copy()
    out[Ether].dst = dmac(port)
    out[Ether].src = smac
    out[IP].ttl -= 1
    del out[IP].chksum
    return Ether(bytes(out))


def crc16(data):
    """CRC-16/ARC, v1model's HashAlgorithm.crc16 (polynomial 0x8005 reflected, initial value 0)."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def selector_hash(pkt):
    """The selector's input in key order: IPv4 source, destination, protocol, UDP ports."""
    ip, udp = pkt[IP], pkt[UDP]
    data = bytes(IP(src=ip.src, dst=ip.dst))[12:20] + bytes([ip.proto]) \
        + udp.sport.to_bytes(2, "big") + udp.dport.to_bytes(2, "big")
    return crc16(data)


def picked(pkt, members):
    """The port of the member a group of (port, weight) pairs runs for pkt."""
    pick = selector_hash(pkt) % sum(w for _, w in members)
    for port, weight in members:
        if pick < weight:
            return port
        pick -= weight
    raise AssertionError("unreachable")


def codes(write):
    with pytest.raises(WriteError) as err:
        write()
    return err.value.codes()


def test_p4info_describes_the_profiles(sut):
    info = sut.client.p4info
    selector = info.get("action_profiles", SELECTOR)
    assert (selector.with_selector, selector.size, selector.max_group_size) == (True, 64, MAX_GROUP_SIZE)
    assert selector.preamble.id >> 24 == 0x11
    lpm = info.get("tables", "EcmpIngress.ipv4_lpm")
    assert list(selector.table_ids) == [lpm.preamble.id] and lpm.implementation_id == selector.preamble.id
    assert [f.name for f in lpm.match_fields] == ["hdr.ipv4.dst_addr"], "selector fields are hashed, not matched"
    profile = info.get("action_profiles", SMAC_PROFILE)
    assert not profile.with_selector and profile.size == 16


def test_member_entry_forwards_and_member_modify_takes_effect(ptf):
    c = ptf.client
    ptf.insert(next_hop(c, 1, 2))
    ptf.insert(route(c, action_profile_member_id=1))
    pkt = flow(1000)
    ptf.send(1, pkt)
    ptf.verify_packet(forwarded(pkt, 2), 2)
    c.write(c.update("MODIFY", next_hop(c, 1, 3)))
    ptf.send(1, pkt)
    ptf.verify_packet(forwarded(pkt, 3), 3)
    (entry,) = c.read(c.table_entry("EcmpIngress.ipv4_lpm"))
    assert entry.table_entry.action.action_profile_member_id == 1
    (member,) = c.read(c.profile_member(SELECTOR))
    assert member.action_profile_member == next_hop(c, 1, 3).action_profile_member


def test_group_spreads_flows_by_hash_and_weight(ptf):
    c = ptf.client
    for member_id, port in NEXT_HOPS.items():
        ptf.insert(next_hop(c, member_id, port))
    weights = [(1, 2), (2, 1), (3, 1)]
    ptf.insert(c.profile_group(SELECTOR, 10, weights))
    ptf.insert(route(c, action_profile_group_id=10))
    members = [(NEXT_HOPS[m], w) for m, w in weights]
    per_port = {2: 0, 3: 0, 4: 0}
    rng = random.Random(7)
    for _ in range(80):
        pkt = flow(rng.randrange(1024, 65536), src=f"192.168.{rng.randrange(256)}.{rng.randrange(1, 255)}")
        port = picked(pkt, members)
        for _ in range(2):   # the same flow twice: the same member
            ptf.send(1, pkt)
            ptf.verify_packet(forwarded(pkt, port), port)
        per_port[port] += 1
    assert per_port[2] > 25 and per_port[3] > 10 and per_port[4] > 10, per_port
    (group,) = c.read(c.profile_group(SELECTOR, 10))
    assert [(m.member_id, m.weight) for m in group.action_profile_group.members] == weights
    assert len(c.read(c.profile_member(None))) == 3, "a wildcard read over every profile"
    assert len(c.read(c.profile_group(None))) == 1


def test_group_modify_and_empty_group(ptf):
    c = ptf.client
    ptf.insert(next_hop(c, 1, 2), next_hop(c, 2, 3))
    ptf.insert(c.profile_group(SELECTOR, 10, [(1, 1)]))
    ptf.insert(route(c, action_profile_group_id=10))
    pkt = flow(4242)
    ptf.send(1, pkt)
    ptf.verify_packet(forwarded(pkt, 2), 2)
    c.write(c.update("MODIFY", c.profile_group(SELECTOR, 10, [(2, 1)])))
    ptf.send(1, pkt)
    ptf.verify_packet(forwarded(pkt, 3), 3)
    # Member 1 left the group: it may go; member 2 may not.
    c.write(c.update("DELETE", next_hop(c, 1, 2)))
    c.write(c.update("INSERT", next_hop(c, 1, 2)))
    c.write(c.update("MODIFY", c.profile_group(SELECTOR, 10, [])))
    ptf.send(1, pkt)
    ptf.verify_no_other_packets()   # an empty group: the packet misses, and the default action drops it


def padded(action):
    """The action with a zero byte before each parameter's value: accepted, read back without it (8.4)."""
    for param in action.params:
        param.value = b"\x00" + param.value
    return action


def test_padded_parameters_of_members_and_one_shot_sets_read_back_canonical(ptf):
    """P4Runtime 8.4: a server accepts values with leading zero bytes and reads them back in
    canonical form (no leading zero bytes), for an action profile member as for a table's own
    action, and for the actions of a one-shot set."""
    c = ptf.client
    member = next_hop(c, 1, 2)
    padded(member.action_profile_member.action)
    c.write(c.update("INSERT", member))
    try:
        (read,) = c.read(c.profile_member(SELECTOR))
    finally:
        c.write(c.update("DELETE", member))   # a one-shot set needs a profile without members
    assert read.action_profile_member == next_hop(c, 1, 2).action_profile_member
    one_shot = action_set(c, [(2, 1), (3, 1)])
    for member_action in one_shot.action_profile_actions:
        padded(member_action.action)
    ptf.insert(route(c, action_profile_action_set=one_shot))
    (read,) = c.read(c.table_entry("EcmpIngress.ipv4_lpm"))
    assert read.table_entry.action.action_profile_action_set == action_set(c, [(2, 1), (3, 1)])


def test_one_shot_action_set_forwards_and_reads_back(ptf):
    c = ptf.client
    members = [(2, 1), (3, 1), (4, 2)]
    entry = route(c, action_profile_action_set=action_set(c, members))
    ptf.insert(entry)
    (read,) = c.read(c.table_entry("EcmpIngress.ipv4_lpm"))
    assert read.table_entry.action == entry.table_entry.action
    assert not c.read(c.profile_group(None)) and not c.read(c.profile_member(None)), \
        "a one-shot set's members and group are the switch's own"
    rng = random.Random(3)
    for _ in range(30):
        pkt = flow(rng.randrange(1024, 65536))
        port = picked(pkt, members)
        ptf.send(1, pkt)
        ptf.verify_packet(forwarded(pkt, port), port)
    too_heavy = route(c, action_profile_action_set=action_set(c, [(2, MAX_GROUP_SIZE + 1)]))
    assert codes(lambda: c.write(c.update("MODIFY", too_heavy))) == [grpc.StatusCode.INVALID_ARGUMENT], \
        "P4Runtime 9.2.3: a one-shot set's weights over max_group_size"
    watched = route(c, action_profile_action_set=action_set(c, [(2, 1), (3, 1)]))
    watched.table_entry.action.action_profile_action_set.action_profile_actions[0].watch_port = b"\x02"
    c.write(c.update("MODIFY", watched))
    (read,) = c.read(c.table_entry("EcmpIngress.ipv4_lpm"))
    assert read.table_entry.action == watched.table_entry.action, "a watch port reads back as written"
    assert codes(lambda: c.write(c.update("INSERT", next_hop(c, 1, 2)))) == [grpc.StatusCode.INVALID_ARGUMENT], \
        "a selector takes one-shot sets or members, not both"


def test_members_whose_watch_port_is_down_are_left_out_until_it_is_up(ptf, sut):
    """P4Runtime 9.2.2: a group member is picked only while its watch port is up (fast failover).
    The test's end of port 2's veth down (the switch's end loses its carrier): the flows of the
    member watching port 2 go to the other member, whose own flows stay; up again, every flow
    goes back to the member the hash picks among both."""
    c = ptf.client
    ptf.insert(next_hop(c, 1, 2), next_hop(c, 3, 4))
    group = c.profile_group(SELECTOR, 10, [(1, 1), (3, 1)])
    group.action_profile_group.members[0].watch_port = b"\x02"
    group.action_profile_group.members[1].watch_port = b"\x04"
    ptf.insert(group)
    ptf.insert(route(c, action_profile_group_id=10))
    (read,) = c.read(c.profile_group(SELECTOR, 10))
    assert read.action_profile_group == group.action_profile_group
    both = [(2, 1), (4, 1)]
    flows = [flow(sport) for sport in range(3000, 3032)]
    to_port_2 = next(pkt for pkt in flows if picked(pkt, both) == 2)

    def settled(pkt, port):
        """Sends pkt until it leaves on port (the switch looks at its links every 100 ms)."""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            ptf.send(1, pkt)
            if ptf.dataplane.poll(port, timeout=0.2) is not None:
                for either in (2, 4):   # the copies sent meanwhile, and any the link held while down
                    while ptf.dataplane.poll(either, timeout=0.3) is not None:
                        pass
                return
        raise AssertionError(f"never left on port {port}")

    for pkt in flows:
        ptf.send(1, pkt)
        ptf.verify_packet(forwarded(pkt, picked(pkt, both)), picked(pkt, both))
    test_side = f"{sut.links}t2"
    netns.run("ip", "link", "set", test_side, "down")
    try:
        settled(to_port_2, 4)
        for pkt in flows:
            ptf.send(1, pkt)
            ptf.verify_packet(forwarded(pkt, 4), 4)
    finally:
        netns.run("ip", "link", "set", test_side, "up")
    settled(to_port_2, 2)
    for pkt in flows:
        ptf.send(1, pkt)
        ptf.verify_packet(forwarded(pkt, picked(pkt, both)), picked(pkt, both))


def test_inline_action_profile_rewrites_the_source_mac(ptf):
    c = ptf.client
    ptf.insert(next_hop(c, 1, 2))
    ptf.insert(route(c, action_profile_member_id=1))
    ptf.insert(c.profile_member(SMAC_PROFILE, 5, "EcmpIngress.set_smac", {"smac": "00:00:00:00:5a:02"}))
    rewrite = c.table_entry("EcmpIngress.smac_rewrite", match={"sm.egress_spec": 2})
    rewrite.table_entry.action.action_profile_member_id = 5
    ptf.insert(rewrite)
    pkt = flow(999)
    ptf.send(1, pkt)
    ptf.verify_packet(forwarded(pkt, 2, smac="00:00:00:00:5a:02"), 2)


def test_errors_have_the_specified_codes(ptf):
    c = ptf.client
    ptf.insert(next_hop(c, 1, 2))
    ptf.insert(c.profile_group(SELECTOR, 10, [(1, 1)]))
    ptf.insert(route(c, action_profile_group_id=10))
    assert codes(lambda: c.write(c.update("INSERT", next_hop(c, 1, 3)))) == [grpc.StatusCode.ALREADY_EXISTS]
    assert codes(lambda: c.write(c.update("MODIFY", next_hop(c, 9, 3)))) == [grpc.StatusCode.NOT_FOUND]
    assert codes(lambda: c.write(c.update("DELETE", next_hop(c, 1, 2)))) == [grpc.StatusCode.FAILED_PRECONDITION]
    assert codes(lambda: c.write(c.update("DELETE", c.profile_group(SELECTOR, 10)))) == \
        [grpc.StatusCode.FAILED_PRECONDITION]
    assert codes(lambda: c.write(c.update("INSERT", c.profile_group(SELECTOR, 11, [(9, 1)])))) == \
        [grpc.StatusCode.NOT_FOUND]
    assert codes(lambda: c.write(c.update("INSERT", c.profile_group(SELECTOR, 11, [(1, MAX_GROUP_SIZE + 1)])))) == \
        [grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert codes(lambda: c.write(c.update("INSERT", c.profile_group(SELECTOR, 11, [(1, 2)], max_size=1)))) == \
        [grpc.StatusCode.RESOURCE_EXHAUSTED]
    assert codes(lambda: c.write(c.update("INSERT", c.profile_group(SELECTOR, 11, [(1, 1)],
                                                                    max_size=MAX_GROUP_SIZE + 1)))) == \
        [grpc.StatusCode.INVALID_ARGUMENT], "P4Runtime 9.2.2: a max_size over max_group_size"
    assert codes(lambda: c.write(c.update("INSERT", c.profile_group(SELECTOR, 11, [(1, 1)], max_size=0)))) == \
        [grpc.StatusCode.INVALID_ARGUMENT], "P4Runtime 9.2.2.1: no max_size 0 where there is a max_group_size"
    assert codes(lambda: c.write(c.update("MODIFY", c.profile_group(SELECTOR, 10, [(1, 1)], max_size=4)))) == \
        [grpc.StatusCode.INVALID_ARGUMENT], "P4Runtime 9.2.2: a MODIFY gives the max_size the group was inserted with"
    assert codes(lambda: c.write(c.update("INSERT", c.profile_group(SELECTOR, 11, [(1, 0)])))) == \
        [grpc.StatusCode.INVALID_ARGUMENT]
    watched = c.profile_group(SELECTOR, 11, [(1, 1)])
    watched.action_profile_group.members[0].watch_port = b"\x02\x58"
    assert codes(lambda: c.write(c.update("INSERT", watched))) == [grpc.StatusCode.INVALID_ARGUMENT], \
        "P4Runtime 9.2.2: a watch port that is not one of the device's (600)"
    watched.action_profile_group.members[0].watch_port = b""
    watched.action_profile_group.members[0].watch = 1 << 16
    assert codes(lambda: c.write(c.update("INSERT", watched))) == [grpc.StatusCode.INVALID_ARGUMENT], \
        "the deprecated int32 watch too"
    assert codes(lambda: c.write(c.update("INSERT", c.profile_group(SMAC_PROFILE, 1)))) == \
        [grpc.StatusCode.INVALID_ARGUMENT], "an action profile without a selector has no groups"
    direct = c.table_entry("EcmpIngress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("11.0.0.0", 8)},
                           action="EcmpIngress.set_next_hop", params={"port": 2, "dmac": dmac(2)})
    assert codes(lambda: c.write(c.update("INSERT", direct))) == [grpc.StatusCode.INVALID_ARGUMENT]
    default = c.table_entry("EcmpIngress.ipv4_lpm", action="EcmpIngress.drop", default=True)
    assert codes(lambda: c.write(c.update("MODIFY", default))) == [grpc.StatusCode.PERMISSION_DENIED], \
        "P4Runtime 9.1.5: an indirect table's default entry is a constant NoAction"
    one_shot = route(c, action_profile_action_set=action_set(c, [(2, 1)]))
    one_shot.table_entry.match[0].lpm.value = bytes([11, 0, 0, 0])
    assert codes(lambda: c.write(c.update("INSERT", one_shot))) == [grpc.StatusCode.INVALID_ARGUMENT], \
        "members exist: no one-shot sets"
    dangling = c.table_entry("EcmpIngress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("11.0.0.0", 8)})
    dangling.table_entry.action.action_profile_group_id = 99
    assert codes(lambda: c.write(c.update("INSERT", dangling))) == [grpc.StatusCode.NOT_FOUND]
    wrong_table = c.profile_member(SMAC_PROFILE, 1, "EcmpIngress.set_next_hop", {"port": 2, "dmac": dmac(2)})
    assert codes(lambda: c.write(c.update("INSERT", wrong_table))) == [grpc.StatusCode.INVALID_ARGUMENT]
    with pytest.raises(grpc.RpcError) as err:
        c.read(c.profile_member(None).__class__(action_profile_member=p4runtime_pb2.ActionProfileMember(
            action_profile_id=0x11ABCDEF)))
    assert err.value.code() == grpc.StatusCode.UNKNOWN and batch_error(err.value).codes() == [grpc.StatusCode.NOT_FOUND]
