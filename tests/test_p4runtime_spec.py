"""P4Runtime 1.4 specification rows that testers using other codebases' clients found wrong in
softswitch, checked over gRPC with the PyPI `p4runtime` 1.4.1 bindings (which know the 1.4 fields:
Replica.port, TableEntry.is_const and meter_counter_data): wildcard reads of entity kinds a program
lacks, MODIFY without an action, default-entry rules, const entries' priorities, replicas by port
bytes (delivered on veth), refused writes, arbitration and pipeline-config status codes."""
import queue

import grpc
import pytest
from scapy.layers.l2 import ARP, Ether

from harness import ROOT
from harness.base import PacketTest, primary_of_a_bare_switch, switch_under_test
from harness.p4rt import P4RuntimeClient, WriteError, batch_error
from p4.config.v1 import p4info_pb2
from p4.v1 import p4runtime_pb2

PROGRAM = ROOT / "softswitch" / "examples" / "l3_forwarding.p4"
NAT64 = ROOT / "p4" / "nat64.p4"


@pytest.fixture(scope="module")
def sut():
    with switch_under_test(PROGRAM, n_ports=4) as s:
        yield s


@pytest.fixture
def ptf(sut):
    test = PacketTest(sut)
    yield test
    test.finish(unread_packet_ins="drain")


def codes(err):
    return [c.name for c in err.codes()]


def refused(client, kind, entity):
    with pytest.raises(WriteError) as err:
        client.write(client.update(kind, entity))
    return codes(err.value)


def read_refused(client, *entities):
    """The per-request codes of a Read that failed: UNKNOWN overall, whatever the batch's size (11.3)."""
    with pytest.raises(grpc.RpcError) as err:
        client.read(*entities)
    assert err.value.code() == grpc.StatusCode.UNKNOWN, err.value
    return codes(batch_error(err.value)), err.value.details()


def route(ptf, prefix, port, **kwargs):
    return ptf.client.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": (prefix, 16)},
                                  action="L3Ingress.set_next_hop_v4",
                                  params={"port": port, "src_mac": "00:00:00:00:0a:01", "dst_mac": 2}, **kwargs)


def test_wildcard_reads_of_kinds_the_program_lacks_are_empty_and_their_ids_not_found(ptf):
    c = ptf.client
    for kind in ("action_profile_member", "action_profile_group", "value_set_entry", "digest_entry",
                 "extern_entry", "meter_entry", "register_entry", "direct_meter_entry"):
        e = p4runtime_pb2.Entity()
        getattr(e, kind).SetInParent()
        assert c.read(e) == [], kind
    e = p4runtime_pb2.Entity()
    e.packet_replication_engine_entry.clone_session_entry.SetInParent()
    assert c.read(e) == []
    member = p4runtime_pb2.Entity()
    member.action_profile_member.action_profile_id = 0x11000001
    assert read_refused(c, member)[0] == ["NOT_FOUND"]
    for batch in ([p4runtime_pb2.Entity()], [c.table_entry("L3Ingress.ipv4_lpm"), p4runtime_pb2.Entity()]):
        with pytest.raises(grpc.RpcError) as err:
            c.read(*batch)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, "11.1: an Entity must set its oneof"


def test_modify_without_an_action_or_a_direct_resource_is_a_no_op(ptf):
    """P4Runtime 9.1.2: such a MODIFY leaves the action, and the rest of the entry, as they are."""
    c = ptf.client
    entry = route(ptf, "10.20.0.0", 3)
    entry.table_entry.metadata = b"before"
    entry.table_entry.controller_metadata = 42
    ptf.insert(entry)
    keep = c.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.20.0.0", 16)})
    keep.table_entry.metadata = b"cookie"
    c.write(c.update("MODIFY", keep))
    (read,) = c.read(c.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.20.0.0", 16)}))
    assert read.table_entry.action == entry.table_entry.action
    assert (read.table_entry.metadata, read.table_entry.controller_metadata) == (b"before", 42)
    with_action = route(ptf, "10.20.0.0", 2)
    c.write(c.update("MODIFY", with_action))
    (read,) = c.read(c.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.20.0.0", 16)}))
    assert read.table_entry.action == with_action.table_entry.action
    assert (read.table_entry.metadata, read.table_entry.controller_metadata) == (b"", 0), \
        "a MODIFY with an action is the entry's new snapshot"


def test_the_default_entry_refuses_priority_idle_timeout_and_hit_time_and_resets_without_action(ptf):
    c = ptf.client
    dflt = c.table_entry("L3Ingress.ipv6_lpm", default=True)
    for field, value in (("priority", 5), ("idle_timeout_ns", 10**9)):
        bad = c.table_entry("L3Ingress.ipv6_lpm", action="L3Ingress.send_to_cpu", default=True)
        setattr(bad.table_entry, field, value)
        assert refused(c, "MODIFY", bad) == ["INVALID_ARGUMENT"], field
    bad = c.table_entry("L3Ingress.ipv6_lpm", action="L3Ingress.send_to_cpu", default=True)
    bad.table_entry.time_since_last_hit.SetInParent()
    assert refused(c, "MODIFY", bad) == ["INVALID_ARGUMENT"]
    ptf.modify(c.table_entry("L3Ingress.ipv6_lpm", action="L3Ingress.send_to_cpu", default=True))
    c.write(c.update("MODIFY", dflt))
    (read,) = c.read(dflt)
    assert read.table_entry.action.action.action_id == c.p4info.id("actions", "L3Ingress.drop"), \
        "a MODIFY of the default entry without an action restores the program's"


def test_writes_the_specification_refuses(ptf):
    c = ptf.client
    hit_time = route(ptf, "10.21.0.0", 2)
    hit_time.table_entry.time_since_last_hit.SetInParent()
    const = route(ptf, "10.21.0.0", 2)
    const.table_entry.is_const = True
    colours = route(ptf, "10.21.0.0", 2)
    colours.table_entry.meter_counter_data.SetInParent()
    assert refused(c, "INSERT", hit_time) == ["INVALID_ARGUMENT"]
    assert refused(c, "INSERT", const) == ["INVALID_ARGUMENT"]
    assert refused(c, "INSERT", colours) == ["INVALID_ARGUMENT"], "ipv4_lpm has no direct meter to count colours"
    no_action = c.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.21.0.0", 16)})
    assert refused(c, "INSERT", no_action) == ["INVALID_ARGUMENT"]
    assert c.read(no_action) == [], "nothing was written"


def acl(ptf, ether_type, mask):
    return ptf.client.table_entry("L3Ingress.acl", match={"hdr.ethernet.ether_type": (ether_type, mask)},
                                  action="NoAction", priority=7)


def test_dont_care_matches_and_bad_bytestrings_are_refused(ptf):
    c = ptf.client
    assert refused(c, "INSERT", acl(ptf, 0, 0)) == ["INVALID_ARGUMENT"], "a zero mask: omit the field"
    longer = acl(ptf, 0x0800, 0xffff)
    longer.table_entry.match[0].ternary.value = b"\x00\x00\x08\x00"
    longer.table_entry.match[0].ternary.mask = b"\xff\xff"
    assert refused(c, "INSERT", longer) == ["INVALID_ARGUMENT"], "a ternary value longer than its mask (9.1.1)"
    empty = route(ptf, "10.22.0.0", 2)
    empty.table_entry.action.action.params[0].value = b""
    assert refused(c, "INSERT", empty) == ["OUT_OF_RANGE"], "an empty bytestring (8.4)"
    wide = route(ptf, "10.22.0.0", 2)
    wide.table_entry.action.action.params[0].value = b"\x02\x00"
    assert refused(c, "INSERT", wide) == ["OUT_OF_RANGE"], "512 in a bit<9> port"
    padded = route(ptf, "10.22.0.0", 2)
    padded.table_entry.action.action.params[0].value = b"\x00\x00\x00\x02"
    ptf.insert(padded)
    (read,) = c.read(c.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.22.0.0", 16)}))
    assert read.table_entry.action.action.params[0].value == b"\x02", "leading zeros accepted, canonical when read"


def test_a_read_of_every_table_takes_no_other_filter(ptf):
    c = ptf.client
    ptf.insert(route(ptf, "10.23.0.0", 2))
    assert c.read(p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry()))
    for field, value in (("priority", 7), ("is_default_action", True), ("metadata", b"m"), ("controller_metadata", 3)):
        e = p4runtime_pb2.Entity(table_entry=p4runtime_pb2.TableEntry(**{field: value}))
        assert read_refused(c, e)[0] == ["INVALID_ARGUMENT"], field


def test_the_default_entry_reads_back_its_metadata_until_reset(ptf):
    c = ptf.client
    dflt = c.table_entry("L3Ingress.ipv6_lpm", action="L3Ingress.send_to_cpu", default=True)
    dflt.table_entry.metadata = b"punt v6"
    dflt.table_entry.controller_metadata = 9
    ptf.modify(dflt)
    (read,) = c.read(c.table_entry("L3Ingress.ipv6_lpm", default=True))
    assert (read.table_entry.metadata, read.table_entry.controller_metadata) == (b"punt v6", 9)
    c.write(c.update("MODIFY", c.table_entry("L3Ingress.ipv6_lpm", default=True)))
    (read,) = c.read(c.table_entry("L3Ingress.ipv6_lpm", default=True))
    assert (read.table_entry.metadata, read.table_entry.controller_metadata) == (b"", 0), "reset with the action"


def switch_state(c, groups):
    """What the batches below may touch, as read: ipv4_lpm's entries with their counts, its default
    entry, the port_rx counter and these multicast groups."""
    entries = c.table_entry("L3Ingress.ipv4_lpm")
    entries.table_entry.counter_data.SetInParent()
    counter = p4runtime_pb2.Entity()
    counter.counter_entry.counter_id = c.p4info.id("counters", "L3Ingress.port_rx")
    return (sorted(e.SerializeToString() for e in c.read(entries)),
            [e.SerializeToString() for e in c.read(c.table_entry("L3Ingress.ipv4_lpm", default=True))],
            [e.SerializeToString() for e in c.read(counter)],
            [e.SerializeToString() for g in groups for e in c.read(pre_group(g, []))])


@pytest.mark.parametrize("mode", ["ROLLBACK_ON_ERROR", "DATAPLANE_ATOMIC"])
def test_a_batch_that_fails_is_undone_whole_and_one_that_does_not_is_applied_whole(ptf, mode):
    """P4Runtime 12.2: in these modes a batch is all or none. The updates before the failing one are
    undone (the failing one keeps its error, the others are ABORTED); the switch reads as before,
    counts of a deleted entry included. DATAPLANE_ATOMIC is refused while the kernel fast path runs
    (its tables change entry by entry under the packets it forwards)."""
    c = ptf.client
    if mode == "DATAPLANE_ATOMIC" and ptf.sut.switch.fast_path:
        with pytest.raises(WriteError) as err:
            c.write(c.update("INSERT", route(ptf, "10.25.0.0", 2)), atomicity=mode)
        assert err.value.code == grpc.StatusCode.UNIMPLEMENTED
        assert c.read(route(ptf, "10.25.0.0", 2)) == []
        return
    kept, moved = route(ptf, "10.26.0.0", 2), route(ptf, "10.27.0.0", 2)
    ptf.insert(kept, moved, pre_group(7, [(2, 1)]))
    counts = p4runtime_pb2.Entity()
    counts.direct_counter_entry.table_entry.CopyFrom(kept.table_entry)
    counts.direct_counter_entry.data.packet_count, counts.direct_counter_entry.data.byte_count = 7, 700
    c.write(c.update("MODIFY", counts))
    port_rx = p4runtime_pb2.Entity()
    port_rx.counter_entry.counter_id = c.p4info.id("counters", "L3Ingress.port_rx")
    port_rx.counter_entry.index.index = 3
    (original_rx,) = c.read(port_rx)
    port_rx.counter_entry.data.packet_count = original_rx.counter_entry.data.packet_count + 5
    before = switch_state(c, (7, 8))
    changes = [c.update("INSERT", route(ptf, "10.28.0.0", 3)),
               c.update("MODIFY", route(ptf, "10.27.0.0", 3)),
               c.update("DELETE", kept),
               c.update("MODIFY", c.table_entry("L3Ingress.ipv4_lpm", action="L3Ingress.send_to_cpu", default=True)),
               c.update("INSERT", pre_group(8, [(3, 1)])),
               c.update("DELETE", pre_group(7, [])),
               c.update("MODIFY", port_rx)]
    with pytest.raises(WriteError) as err:
        c.write(*changes, c.update("INSERT", moved), c.update("INSERT", route(ptf, "10.29.0.0", 2)), atomicity=mode)
    assert codes(err.value) == ["ABORTED"] * 7 + ["ALREADY_EXISTS", "ABORTED"]
    assert "rolled back: update 7 of the batch failed" in err.value.errors[0].message
    assert "not attempted" in err.value.errors[8].message
    assert switch_state(c, (7, 8)) == before

    # The same changes without the failing update: all of them, then all undone the same way.
    c.write(*changes, atomicity=mode)
    assert switch_state(c, (7, 8)) != before
    (now,) = c.read(route(ptf, "10.27.0.0", 2))
    assert now.table_entry.action.action.params[0].value == b"\x03"
    assert c.read(kept) == [] and c.read(pre_group(7, [])) == []
    undo = [c.update("DELETE", route(ptf, "10.28.0.0", 3)), c.update("MODIFY", moved), c.update("INSERT", kept),
            c.update("MODIFY", c.table_entry("L3Ingress.ipv4_lpm", action="L3Ingress.drop", default=True)),
            c.update("DELETE", pre_group(8, [])), c.update("INSERT", pre_group(7, [(2, 1)])),
            c.update("MODIFY", counts)]
    c.write(*undo, c.update("MODIFY", original_rx), atomicity=mode)
    assert switch_state(c, (7, 8)) == before


def raw_packet_out(client, frame, fields):
    """A PacketOut with exactly these (metadata_id, value) pairs."""
    req = p4runtime_pb2.StreamMessageRequest()
    req.packet.payload = frame
    for metadata_id, value in fields:
        req.packet.metadata.add(metadata_id=metadata_id, value=value)
    client._requests.put(req)
    return req.packet


def test_a_packet_out_carries_every_metadata_field_once_or_is_dropped_with_a_stream_error(ptf):
    c = ptf.client
    header = c.p4info.get("controller_packet_metadata", "packet_out")
    ids = {m.name: m.id for m in header.metadata}
    frame = bytes(Ether(src="00:00:00:00:0a:01", dst="ff:ff:ff:ff:ff:ff") / ARP(op=2, psrc="10.0.1.254", pdst="10.0.1.1"))
    port, pad = (ids["egress_port"], b"\x02"), (ids["_pad"], b"\x00")
    for why, fields in (("missing _pad", [port]), ("egress_port twice", [port, port, pad]),
                        ("an unknown ID", [port, pad, (99, b"\x00")]), ("an empty value", [port, (ids["_pad"], b"")]),
                        ("wider than 9 bits", [(ids["egress_port"], b"\x02\x00"), pad])):
        sent = raw_packet_out(c, frame, fields)
        error = c.stream_errors(timeout=5)
        assert error is not None, why
        assert error.canonical_code == grpc.StatusCode.INVALID_ARGUMENT.value[0], why
        assert error.packet_out.packet_out == sent, why
    ptf.verify_no_other_packets()
    raw_packet_out(c, frame, [pad, port])     # every field once, in any order
    ptf.verify_packet(frame, 2)
    ptf.verify_no_other_packets()


def pre_group(group, replicas, session=False):
    """replicas: (port, instance) with port an int (egress_port) or bytes (port, 1.4)."""
    e = p4runtime_pb2.Entity()
    if session:
        g = e.packet_replication_engine_entry.clone_session_entry
        g.session_id = group
    else:
        g = e.packet_replication_engine_entry.multicast_group_entry
        g.multicast_group_id = group
    for port, instance in replicas:
        r = g.replicas.add(instance=instance)
        if isinstance(port, bytes):
            r.port = port
        else:
            r.egress_port = port
    return e


def test_a_clone_sessions_packet_length_reads_back(ptf):
    """9.5.2: packet_length_bytes cuts the session's copies (ArchitectureTest shows the cut); it
    reads back as written."""
    c = ptf.client
    session = pre_group(11, [(b"\x02", 1)], session=True)
    session.packet_replication_engine_entry.clone_session_entry.packet_length_bytes = 128
    ptf.insert(session)
    (read,) = c.read(pre_group(11, [], session=True))
    assert read.packet_replication_engine_entry.clone_session_entry.packet_length_bytes == 128


def test_replicas_named_by_port_bytes_are_delivered_and_read_back(ptf):
    c = ptf.client
    ptf.insert(pre_group(8, [(b"\x02", 1), (b"\x00\x00\x00\x03", 1)]))
    ptf.insert(c.table_entry("L3Ingress.acl", match={"hdr.ethernet.ether_type": (0x0806, 0xffff)},
                             action="L3Ingress.flood", params={"group": 8}, priority=10))
    arp = Ether(src="00:00:00:00:00:01", dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="10.0.1.1", pdst="10.0.1.254")
    ptf.send(1, arp)
    ptf.verify_packet(arp, 2)
    ptf.verify_packet(arp, 3)
    ptf.verify_no_other_packets()
    (group,) = c.read(pre_group(8, []))
    replicas = group.packet_replication_engine_entry.multicast_group_entry.replicas
    assert [(r.WhichOneof("port_kind"), r.port) for r in replicas] == [("port", b"\x02"), ("port", b"\x03")]


def test_a_multicast_groups_metadata_reads_back_as_written(ptf):
    c = ptf.client
    group = pre_group(10, [(b"\x02", 1)])
    group.packet_replication_engine_entry.multicast_group_entry.metadata = b"\x00opaque"
    ptf.insert(group)
    (read,) = c.read(pre_group(10, []))
    assert read.packet_replication_engine_entry.multicast_group_entry.metadata == b"\x00opaque"
    group.packet_replication_engine_entry.multicast_group_entry.metadata = b""
    c.write(c.update("MODIFY", group))
    (read,) = c.read(pre_group(10, []))
    assert read.packet_replication_engine_entry.multicast_group_entry.metadata == b"", "MODIFY sets it, empty included"


def test_bad_replicas_are_invalid_arguments(ptf):
    # (Both port and egress_port in one replica cannot be sent with these bindings, a oneof keeps the
    # last: EntitiesSpecTest sends it.)
    c = ptf.client
    assert refused(c, "INSERT", pre_group(9, [(b"\x00\x00\x00\x00\x02", 1)])) == ["INVALID_ARGUMENT"], "5 bytes"
    assert refused(c, "INSERT", pre_group(9, [(b"\x02", 1), (2, 1)])) == ["INVALID_ARGUMENT"], "the same replica twice"
    assert refused(c, "INSERT", pre_group(9, [(3, 1), (3, 1)], session=True)) == ["INVALID_ARGUMENT"]
    assert refused(c, "INSERT", pre_group(9, [(600, 1)])) == ["INVALID_ARGUMENT"], "not a port"
    assert c.read(pre_group(9, [])) == []


@pytest.fixture(scope="module")
def nat64_switch(tmp_path_factory):
    with primary_of_a_bare_switch() as (sw, client):
        p4info, device_config = sw.build_pipeline(NAT64, tmp_path_factory.mktemp("nat64"))
        client.set_pipeline(p4info, device_config)
        yield client


def test_a_switch_without_a_pipeline_reconciles_by_committing(tmp_path):
    """14: RECONCILE_AND_COMMIT keeps the forwarding state; a switch that runs no pipeline has none
    to keep, so it verifies and commits the config."""
    with primary_of_a_bare_switch() as (sw, client):
        p4info, device_config = sw.build_pipeline(PROGRAM, tmp_path)
        client.set_pipeline(p4info, device_config, action="RECONCILE_AND_COMMIT", cookie=9)
        assert client.get_pipeline("COOKIE_ONLY").cookie.cookie == 9
        assert client.read(client.table_entry("L3Ingress.ipv4_lpm")) == []
        client.set_pipeline(p4info, device_config, action="RECONCILE_AND_COMMIT", cookie=None)
        assert not client.get_pipeline("COOKIE_ONLY").HasField("cookie"), "the config's cookie is the one it came with: none"
        # A switch that cannot keep its forwarding state across the change answers INVALID_ARGUMENT (14).
        other_info, other_config = sw.build_pipeline(ROOT / "softswitch" / "examples" / "policer.p4", tmp_path / "other")
        with pytest.raises(grpc.RpcError) as err:
            client.set_pipeline(other_info, other_config, action="RECONCILE_AND_COMMIT")
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "VERIFY_AND_COMMIT" in err.value.details()


def test_reconciling_to_the_same_program_built_elsewhere_keeps_the_state(tmp_path):
    """14: RECONCILE_AND_COMMIT keeps the forwarding state where it can: the same program compiled
    from another path (its device config names the file) with a P4Info that differs only in docs,
    pkg_info and the order of its objects is the running program."""
    from google.protobuf import text_format
    from p4.config.v1 import p4info_pb2
    with primary_of_a_bare_switch() as (sw, client):
        p4info, device_config = sw.build_pipeline(PROGRAM, tmp_path / "here")
        copy = tmp_path / "elsewhere" / "copy.p4"
        copy.parent.mkdir()
        copy.write_text(PROGRAM.read_text())
        other_info, other_config = sw.build_pipeline(copy, tmp_path / "there")
        assert other_config != device_config
        client.set_pipeline(p4info, device_config)
        entry = client.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.31.0.0", 16)},
                                   action="L3Ingress.set_next_hop_v4",
                                   params={"port": 1, "src_mac": "00:00:00:00:0a:01", "dst_mac": 2})
        client.write(client.update("INSERT", entry))
        info = text_format.Parse(open(other_info).read(), p4info_pb2.P4Info())
        info.pkg_info.name = "renamed"
        info.tables[0].preamble.doc.brief = "documented"
        actions = list(info.actions)
        del info.actions[:]
        info.actions.extend(reversed(actions))
        client.set_pipeline(other_info, other_config, action="RECONCILE_AND_COMMIT", cookie=5, p4info=info)
        assert [e.table_entry.match for e in client.read(client.table_entry("L3Ingress.ipv4_lpm"))] == [entry.table_entry.match]
        got = client.get_pipeline("ALL")
        assert got.cookie.cookie == 5 and got.p4info.pkg_info.name == "renamed", "the config is the one reconciled to"


@pytest.mark.parametrize("program", [ROOT / "softswitch" / "examples" / "mac_learning.p4",
                                     ROOT / "tests" / "data" / "translated_types.p4"])
def test_reconciling_to_the_running_config_keeps_it_with_type_info_too(tmp_path, program):
    """14: the running config itself reconciles, whatever its P4Info's type_info holds (a digest's
    struct, user-defined types: maps, which the comparison must take as they are)."""
    with primary_of_a_bare_switch() as (sw, client):
        p4info, device_config = sw.build_pipeline(program, tmp_path)
        client.set_pipeline(p4info, device_config)
        assert len(client.p4info.message.type_info.ListFields()) > 0
        client.set_pipeline(p4info, device_config, action="RECONCILE_AND_COMMIT", cookie=3)
        assert client.get_pipeline("COOKIE_ONLY").cookie.cookie == 3


def test_const_entries_have_priority_zero_in_exact_tables_and_ranks_from_one_otherwise(nat64_switch):
    c = nat64_switch
    exact = c.read(c.table_entry("Nat64Ingress.rewrite.icmp6_error_to_icmp4"))
    assert exact and {e.table_entry.priority for e in exact} == {0}
    assert all(e.table_entry.is_const for e in exact)
    ranked = c.read(c.table_entry("Nat64Ingress.rewrite.pointer_6to4"))
    assert sorted(e.table_entry.priority for e in ranked) == list(range(1, len(ranked) + 1))
    # A const entry is named by its key (priority 0 here): its action may not change.
    entry = exact[0]
    entry.table_entry.is_const = False
    with pytest.raises(WriteError) as err:
        c.write(c.update("MODIFY", entry))
    assert codes(err.value) == ["PERMISSION_DENIED"]


def test_arbitration_rows(sut):
    first = P4RuntimeClient(sut.switch.address, 1, election_id=40)
    second = P4RuntimeClient(sut.switch.address, 1, election_id=40)
    try:
        assert first.arbitrate().status.code == 0
        with pytest.raises(grpc.RpcError) as err:
            second.arbitrate()
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert err.value.details().startswith("Election id already exists")
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = 1
        req.arbitration.election_id.low = 40
        req.arbitration.role.name = "other"
        first._requests.put(req)
        with pytest.raises(grpc.RpcError) as err:
            while True:
                first.next_arbitration()
        assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION, "a live stream may not change its role"
    finally:
        first.close()
        second.close()
    configured = P4RuntimeClient(sut.switch.address, 1, election_id=30)
    try:
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = 1
        req.arbitration.election_id.low = 30
        req.arbitration.role.name = "acl"
        req.arbitration.role.config.Pack(p4runtime_pb2.Uint128(low=1))
        configured._requests.put(req)
        with pytest.raises(grpc.RpcError) as err:
            while True:
                configured.next_arbitration()
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, "role.config without an agreed role scheme (5.3)"
    finally:
        configured.close()
    # 40 stays the highest election_id seen: the harness's controller needs a higher one to write again.
    answer = sut.client.arbitrate(election_id=41)
    while answer.status.code != 0:       # notifications of the changes above come first
        answer = sut.client.next_arbitration()
    assert answer.election_id.low == 41


def test_a_stream_the_switch_closes_leaves_the_election(sut):
    """5.4: an arbitration that changes a live stream's device ends the stream; the server then has no
    primary (gRPC tells a server nothing more about a call it closed, so the switch must forget the
    controller itself): its election_id writes nothing and may be taken again."""
    first = P4RuntimeClient(sut.switch.address, 1, election_id=50)
    lower = None
    try:
        assert first.arbitrate().status.code == 0
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = 2
        req.arbitration.election_id.low = 50
        first._requests.put(req)
        sent_behind = p4runtime_pb2.StreamMessageRequest()   # already on its way: must not bring the stream back
        sent_behind.arbitration.device_id = 1
        sent_behind.arbitration.election_id.low = 55
        first._requests.put(sent_behind)
        with pytest.raises(grpc.RpcError) as err:
            while True:
                first.next_arbitration()
        assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        lower = P4RuntimeClient(sut.switch.address, 1, election_id=45)
        assert lower.arbitrate().status.code == grpc.StatusCode.NOT_FOUND.value[0], "no primary is left"
        lower.p4info = sut.client.p4info
        with pytest.raises(WriteError) as err:
            lower.write(lower.update("INSERT", route(sut, "10.50.0.0", 2)), election_id=p4runtime_pb2.Uint128(low=50))
        assert err.value.code == grpc.StatusCode.PERMISSION_DENIED
        again = lower.arbitrate(election_id=50)
        while again.status.code != 0:
            again = lower.next_arbitration()
        assert again.election_id.low == 50, "the closed stream's election_id is free again"
    finally:
        first.close()
        if lower:
            lower.close()
    answer = sut.client.arbitrate(election_id=51)
    while answer.status.code != 0:
        answer = sut.client.next_arbitration()


def test_backups_hear_the_primarys_new_election_id(sut):
    """5.3 case 1.b and 5.4: when the primary arbitrates again, with a higher election_id or the same
    one, every other controller of the role is told; a backup's leaving is no change of primary, and
    nobody is told of it."""
    primary = P4RuntimeClient(sut.switch.address, 1, election_id=70)
    backup = P4RuntimeClient(sut.switch.address, 1, election_id=65)
    other = P4RuntimeClient(sut.switch.address, 1, election_id=60)
    try:
        assert primary.arbitrate().status.code == 0
        told = backup.arbitrate()
        assert told.status.code == grpc.StatusCode.ALREADY_EXISTS.value[0] and told.election_id.low == 70
        assert primary.arbitrate(election_id=75).status.code == 0
        told = backup.next_arbitration()
        assert told.election_id.low == 75 and told.status.code == grpc.StatusCode.ALREADY_EXISTS.value[0]
        assert primary.arbitrate(election_id=75).status.code == 0, "the same election_id again"
        told = backup.next_arbitration()
        assert told.election_id.low == 75 and told.status.code == grpc.StatusCode.ALREADY_EXISTS.value[0]
        assert other.arbitrate().status.code == grpc.StatusCode.ALREADY_EXISTS.value[0]
        other.close()
        with pytest.raises(queue.Empty):
            backup.next_arbitration(timeout=1)
        with pytest.raises(queue.Empty):
            primary.next_arbitration(timeout=0.1)
    finally:
        primary.close()
        backup.close()
        other.close()
    answer = sut.client.arbitrate(election_id=76)
    while answer.status.code != 0:
        answer = sut.client.next_arbitration()


def test_a_read_batch_answers_each_request(ptf):
    """11.3: in a batch of reads, the requests that are valid return their entities and those that
    are not get their own p4.Error, 1:1 with the batch, under an overall UNKNOWN, a batch of one
    request too ("Batch Processing": PI answers that one with the request's own code)."""
    c = ptf.client
    ptf.insert(route(ptf, "10.70.0.0", 2))
    unknown = p4runtime_pb2.Entity()
    unknown.counter_entry.counter_id = 0x12fffff0
    req = p4runtime_pb2.ReadRequest(device_id=1)
    for e in (c.table_entry("L3Ingress.ipv4_lpm"), unknown, c.table_entry("L3Ingress.ipv4_lpm")):
        req.entities.add().CopyFrom(e)
    found = []
    with pytest.raises(grpc.RpcError) as err:
        for response in c.stub.Read(req):
            found.extend(response.entities)
    assert err.value.code() == grpc.StatusCode.UNKNOWN
    assert [e.table_entry.match for e in found] == [route(ptf, "10.70.0.0", 2).table_entry.match] * 2
    assert batch_error(err.value).codes() == [grpc.StatusCode.OK, grpc.StatusCode.NOT_FOUND, grpc.StatusCode.OK]
    with pytest.raises(grpc.RpcError) as err:
        c.read(unknown)
    assert err.value.code() == grpc.StatusCode.UNKNOWN
    assert batch_error(err.value).codes() == [grpc.StatusCode.NOT_FOUND]


def test_a_delete_considers_the_key_alone(ptf):
    """9.1: a DELETE ignores every field but the key, so an entry read back (with its hit time or
    per-colour counters asked) deletes as it is."""
    c = ptf.client
    for field in ("time_since_last_hit", "meter_counter_data"):
        c.write(c.update("INSERT", route(ptf, "10.60.0.0", 2)))
        read_back = route(ptf, "10.60.0.0", 2)
        getattr(read_back.table_entry, field).SetInParent()
        c.write(c.update("DELETE", read_back))
        assert c.read(route(ptf, "10.60.0.0", 2)) == [], field


def test_reads_of_hit_times_a_table_or_default_entry_lacks_are_invalid(ptf):
    """9.1.8: time_since_last_hit is read from tables with idle timeouts only, never from a default entry."""
    c = ptf.client
    no_timeouts = c.table_entry("L3Ingress.ipv4_lpm")
    no_timeouts.table_entry.time_since_last_hit.SetInParent()
    default = c.table_entry("L3Ingress.ipv6_lpm", default=True)
    default.table_entry.time_since_last_hit.SetInParent()
    for query in (no_timeouts, default):
        refused_codes, details = read_refused(c, query)
        assert refused_codes == ["INVALID_ARGUMENT"] and "9.1.8" in details, query
    every = p4runtime_pb2.Entity()
    every.table_entry.time_since_last_hit.SetInParent()
    c.read(every)   # table_id 0: the tables with idle timeouts answer with it, the others without


def test_a_read_of_the_default_entry_with_match_fields_or_priority_is_invalid(ptf):
    """9.1.5: with is_default_action set, match must be empty and priority 0, or INVALID_ARGUMENT."""
    c = ptf.client
    keyed = c.table_entry("L3Ingress.ipv4_lpm", match={"hdr.ipv4.dst_addr": ("10.21.0.0", 16)})
    keyed.table_entry.is_default_action = True
    prioritised = c.table_entry("L3Ingress.ipv4_lpm", default=True)
    prioritised.table_entry.priority = 3
    for query in (keyed, prioritised):
        assert read_refused(c, query)[0] == ["INVALID_ARGUMENT"], query
    (read,) = c.read(c.table_entry("L3Ingress.ipv4_lpm", default=True))
    assert read.table_entry.is_default_action


# ---- what fuzzing the server found: answers, not resets or stack traces ----

def test_a_request_that_is_no_protobuf_is_an_invalid_argument_and_the_switch_serves_on(ptf):
    """Bytes that do not parse as the method's message: INVALID_ARGUMENT naming it, for every RPC
    (gRPC's own handling answers UNKNOWN "Application error processing RPC" and logs a stack trace)."""
    channel = ptf.client.channel
    for method, streaming in (("Write", False), ("Read", True), ("SetForwardingPipelineConfig", False),
                              ("GetForwardingPipelineConfig", False), ("Capabilities", False)):
        call = (channel.unary_stream if streaming else channel.unary_unary)(
            f"/p4.v1.P4Runtime/{method}", request_serializer=lambda b: b, response_deserializer=lambda b: b)
        with pytest.raises(grpc.RpcError) as err:
            answer = call(b"\xff\xff\xff", timeout=10)   # a varint cut short
            if streaming:
                list(answer)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (method, err.value)
        assert f"no valid {method}Request" in err.value.details(), err.value.details()
    stream = channel.stream_stream("/p4.v1.P4Runtime/StreamChannel", request_serializer=lambda b: b,
                                   response_deserializer=lambda b: b)
    with pytest.raises(grpc.RpcError) as err:
        list(stream(iter([b"\xff\xff\xff"]), timeout=10))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value
    ptf.insert(route(ptf, "10.31.0.0", 2))
    assert len(ptf.client.read(route(ptf, "10.31.0.0", 2))) == 1


def test_a_primary_whose_stream_is_closed_for_bytes_that_do_not_parse_leaves_the_election(sut):
    """5: a primary whose stream ends is primary no more. The switch closes a stream that sends
    bytes that do not parse; its controller's election_id is then free for the next stream."""
    arbitration = p4runtime_pb2.StreamMessageRequest()
    arbitration.arbitration.device_id = 1
    arbitration.arbitration.election_id.low = 60
    arbitration.arbitration.role.name = "unparsable"
    channel = grpc.insecure_channel(sut.switch.address)
    try:
        stream = channel.stream_stream("/p4.v1.P4Runtime/StreamChannel", request_serializer=lambda b: b,
                                       response_deserializer=p4runtime_pb2.StreamMessageResponse.FromString)
        for attempt in ("first", "second"):
            requests = queue.Queue()
            requests.put(arbitration.SerializeToString())
            answers = stream(iter(requests.get, None), timeout=10)
            assert next(answers).arbitration.status.code == 0, f"the {attempt} stream is the role's primary"
            requests.put(b"\xff\xff\xff")
            with pytest.raises(grpc.RpcError) as err:
                list(answers)
            requests.put(None)   # ends the request iterator gRPC reads from
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value
    finally:
        channel.close()


def test_a_parameter_twice_and_a_long_value_are_refused_with_short_messages(ptf):
    c = ptf.client
    twice = route(ptf, "10.32.0.0", 2)
    twice.table_entry.action.action.params.add().CopyFrom(twice.table_entry.action.action.params[0])
    assert refused(c, "INSERT", twice) == ["INVALID_ARGUMENT"], "a param_id given twice"
    long_value = route(ptf, "10.32.0.0", 2)
    long_value.table_entry.match[0].lpm.value = b"\x0a" * 3000
    with pytest.raises(WriteError) as err:
        c.write(c.update("INSERT", long_value))
    assert codes(err.value) == ["OUT_OF_RANGE"]
    assert "3000 bytes" in err.value.errors[0].message and len(err.value.errors[0].message) < 300, err.value


def test_a_write_whose_errors_outgrow_a_grpc_trailer_still_gets_its_status(ptf):
    """Each update's p4.v1.Error travels in the status's trailer, which gRPC clients take up to 8 KiB
    by default: 300 failures would reset the stream, leaving the client no status at all. The switch
    answers with the first failure and the count instead; 20 failures keep all their details, 100
    their codes."""
    c = ptf.client
    absent = [c.update("DELETE", route(ptf, f"{40 + i // 256}.{i % 256}.0.0", 2)) for i in range(300)]
    with pytest.raises(WriteError) as err:
        c.write(*absent[:20])
    assert err.value.code == grpc.StatusCode.UNKNOWN and codes(err.value) == ["NOT_FOUND"] * 20
    assert all(e.message for e in err.value.errors)
    with pytest.raises(WriteError) as err:
        c.write(*absent[:100])
    assert codes(err.value) == ["NOT_FOUND"] * 100, "too long with their messages, the codes alone still fit"
    assert not any(e.message for e in err.value.errors)
    with pytest.raises(WriteError) as err:
        c.write(*absent)
    assert err.value.code == grpc.StatusCode.UNKNOWN and err.value.errors == [], err.value
    assert "300 updates failed" in str(err.value) and "smaller batches" in str(err.value)


def test_a_p4info_with_a_shared_or_zero_id_is_refused(sut):
    c = sut.client
    for change in ("shared", "zero"):
        p4info = p4info_pb2.P4Info()
        p4info.CopyFrom(c.p4info.message)
        p4info.tables[1].preamble.id = p4info.tables[0].preamble.id if change == "shared" else 0
        with pytest.raises(grpc.RpcError) as err:
            c.set_pipeline(sut.p4info_path, sut.device_config, p4info=p4info)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value
        assert ("the same ID" if change == "shared" else "ID 0") in err.value.details()
    assert c.read(c.table_entry("L3Ingress.ipv4_lpm")) is not None, "the pipeline in force still serves"


def test_a_counter_modify_without_data_leaves_the_counts(ptf):
    """P4Runtime 9.3 and 9.4: a CounterEntry or DirectCounterEntry MODIFY whose data is unset does
    not modify the counter; its index and entry are still checked."""
    c = ptf.client
    entry = route(ptf, "10.35.0.0", 2)
    ptf.insert(entry)
    counts = p4runtime_pb2.Entity()
    counts.direct_counter_entry.table_entry.CopyFrom(entry.table_entry)
    counts.direct_counter_entry.data.packet_count, counts.direct_counter_entry.data.byte_count = 9, 900
    cell = p4runtime_pb2.Entity()
    cell.counter_entry.counter_id = c.p4info.id("counters", "L3Ingress.port_rx")
    cell.counter_entry.index.index = 2
    cell.counter_entry.data.packet_count, cell.counter_entry.data.byte_count = 4, 400
    c.write(c.update("MODIFY", counts), c.update("MODIFY", cell))
    counts.direct_counter_entry.ClearField("data")
    cell.counter_entry.ClearField("data")
    c.write(c.update("MODIFY", counts), c.update("MODIFY", cell))
    ((read_counts,), (read_cell,)) = c.read(counts), c.read(cell)
    assert (read_counts.direct_counter_entry.data.packet_count, read_counts.direct_counter_entry.data.byte_count) == (9, 900)
    assert (read_cell.counter_entry.data.packet_count, read_cell.counter_entry.data.byte_count) == (4, 400)
    cell.counter_entry.index.index = 1 << 20
    assert refused(c, "MODIFY", cell) == ["OUT_OF_RANGE"]
    counts.direct_counter_entry.table_entry.CopyFrom(route(ptf, "10.36.0.0", 2).table_entry)
    assert refused(c, "MODIFY", counts) == ["NOT_FOUND"]


def test_negative_counts_unknown_response_types_and_ids_beyond_int32_are_answered_as_such(ptf):
    c = ptf.client
    cell = p4runtime_pb2.Entity()
    cell.counter_entry.counter_id = c.p4info.id("counters", "L3Ingress.port_rx")
    cell.counter_entry.index.index = 1
    cell.counter_entry.data.packet_count = -5
    assert refused(c, "MODIFY", cell) == ["INVALID_ARGUMENT"], "a counter never holds a negative count"
    counted = route(ptf, "10.34.0.0", 2)
    counted.table_entry.counter_data.byte_count = -7
    assert refused(c, "INSERT", counted) == ["INVALID_ARGUMENT"]
    request = p4runtime_pb2.GetForwardingPipelineConfigRequest(device_id=c.device_id, response_type=99)
    with pytest.raises(grpc.RpcError) as err:
        c.stub.GetForwardingPipelineConfig(request)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value
    no_table = route(ptf, "10.34.0.0", 2)
    no_table.table_entry.table_id = 0xffffffff
    with pytest.raises(WriteError) as err:
        c.write(c.update("INSERT", no_table))
    assert "4294967295" in err.value.errors[0].message, "a uint32 ID as the client wrote it"
