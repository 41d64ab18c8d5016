"""v1model digests on a P4Runtime switch over veth: softswitch/examples/mac_learning.p4 reports
each frame from an unknown source MAC as a learn_t digest. The controller configures the digest
(DigestEntry), receives DigestLists on its stream, acknowledges them (DigestListAck), and learns
the address; lists follow max_list_size and max_timeout_ns, and data already reported is not
reported again until its list is acknowledged or its ack_timeout_ns passes."""
import time

import grpc
import pytest
from scapy.layers.l2 import Ether

from harness.base import PacketTest, switch_under_test
from harness.p4rt import P4RuntimeClient, WriteError
from harness import ROOT
from p4.v1 import p4runtime_pb2

PROGRAM = ROOT / "softswitch" / "examples" / "mac_learning.p4"
DIGEST = "learn_t"
SECOND = 1_000_000_000


@pytest.fixture(scope="module")
def sut():
    with switch_under_test(PROGRAM, n_ports=3) as s:
        yield s


@pytest.fixture
def ptf(sut):
    test = PacketTest(sut)
    yield test
    c = test.client
    if c.read(c.digest_entry(DIGEST)):
        c.write(c.update("DELETE", c.digest_entry(DIGEST)))
    while c.digest_list(timeout=0.2) is not None:
        pass
    test.finish()


def frame(src, dst="00:00:00:00:00:99"):
    return Ether(src=src, dst=dst, type=0x88B5) / (b"\x00" * 46)


def learned(digest_list):
    """(MAC, port) of each digest in a list."""
    out = []
    for data in digest_list.data:
        mac, port = (int.from_bytes(m.bitstring, "big") for m in data.struct.members)
        out.append((":".join(f"{b:02x}" for b in mac.to_bytes(6, "big")), port))
    return out


def configure(c, max_timeout_ns=0, max_list_size=1, ack_timeout_ns=10 * SECOND):
    c.write(c.update("INSERT", c.digest_entry(DIGEST, max_timeout_ns, max_list_size, ack_timeout_ns)))


def test_p4info_and_digest_entry_reads(sut):
    c = sut.client
    d = c.p4info.get("digests", DIGEST)
    assert d.preamble.id >> 24 == 0x17 and d.type_spec.struct.name == DIGEST
    members = c.p4info.message.type_info.structs[DIGEST].members
    assert [(m.name, m.type_spec.bitstring.bit.bitwidth) for m in members] == [("src_addr", 48), ("ingress_port", 9)]
    assert c.read(c.digest_entry(None)) == []
    configure(c, max_timeout_ns=SECOND, max_list_size=4, ack_timeout_ns=2 * SECOND)
    try:
        (entry,) = c.read(c.digest_entry(None))
        assert (entry.digest_entry.config.max_timeout_ns, entry.digest_entry.config.max_list_size,
                entry.digest_entry.config.ack_timeout_ns) == (SECOND, 4, 2 * SECOND)
    finally:
        c.write(c.update("DELETE", c.digest_entry(DIGEST)))


def test_unknown_sources_are_reported_and_learned(ptf):
    c = ptf.client
    ptf.send(1, frame("00:00:00:00:00:01"))
    assert c.digest_list(timeout=0.5) is None, "no digest before a DigestEntry configures it"
    configure(c)
    ptf.send(2, frame("00:00:00:00:00:01"))
    lst = c.digest_list()
    assert lst is not None and lst.digest_id == c.p4info.id("digests", DIGEST)
    assert learned(lst) == [("00:00:00:00:00:01", 2)]
    c.digest_ack(lst)
    # The controller learns it: no more digests for it, and frames to it are forwarded.
    ptf.insert(c.table_entry("LearnIngress.smac", match={"hdr.ethernet.src_addr": "00:00:00:00:00:01"},
                             action="NoAction"),
               c.table_entry("LearnIngress.dmac", match={"hdr.ethernet.dst_addr": "00:00:00:00:00:01"},
                             action="LearnIngress.forward", params={"port": 2}))
    ptf.send(2, frame("00:00:00:00:00:01"))
    assert c.digest_list(timeout=0.5) is None
    reply = frame("00:00:00:00:00:01", dst="00:00:00:00:00:01")
    ptf.send(1, reply)
    ptf.verify_packet(reply, 2)


def test_same_data_waits_for_the_ack(ptf):
    c = ptf.client
    configure(c, ack_timeout_ns=60 * SECOND)
    ptf.send(1, frame("00:00:00:00:00:07"))
    first = c.digest_list()
    ptf.send(1, frame("00:00:00:00:00:07"))
    assert c.digest_list(timeout=0.5) is None, "the same data while its list is not acknowledged"
    ptf.send(1, frame("00:00:00:00:00:08"))
    assert learned(c.digest_list()) == [("00:00:00:00:00:08", 1)], "other data is reported meanwhile"
    c.digest_ack(first)
    time.sleep(0.2)
    ptf.send(1, frame("00:00:00:00:00:07"))
    again = c.digest_list()
    assert again is not None and learned(again) == [("00:00:00:00:00:07", 1)] and again.list_id != first.list_id


def test_ack_timeout_releases_the_data(ptf):
    c = ptf.client
    configure(c, ack_timeout_ns=SECOND // 5)
    ptf.send(3, frame("00:00:00:00:00:09"))
    assert learned(c.digest_list()) == [("00:00:00:00:00:09", 3)]
    time.sleep(0.5)   # no ack, and the ack timeout (0.2 s) passes
    ptf.send(3, frame("00:00:00:00:00:09"))
    assert learned(c.digest_list()) == [("00:00:00:00:00:09", 3)]


def test_without_an_ack_timeout_the_same_data_is_sent_again_at_once(ptf):
    """P4Runtime 9.8: with ack_timeout_ns 0 the cache of data sent is always empty."""
    c = ptf.client
    configure(c, ack_timeout_ns=0)
    for _ in range(3):
        ptf.send(2, frame("00:00:00:00:00:0a"))
        assert learned(c.digest_list()) == [("00:00:00:00:00:0a", 2)]


def test_lists_gather_up_to_max_list_size_or_max_timeout(ptf):
    c = ptf.client
    configure(c, max_timeout_ns=SECOND // 2, max_list_size=3)
    start = time.monotonic()
    for i in range(1, 5):
        ptf.send(1, frame(f"00:00:00:00:01:{i:02x}"))
    full = c.digest_list()
    assert [mac for mac, _ in learned(full)] == [f"00:00:00:00:01:{i:02x}" for i in (1, 2, 3)]
    rest = c.digest_list(timeout=3)
    assert [mac for mac, _ in learned(rest)] == ["00:00:00:00:01:04"]
    assert time.monotonic() - start >= 0.45, "the last one waited for max_timeout_ns"


def test_digest_entry_errors(ptf):
    c = ptf.client

    def code(kind, entity):
        with pytest.raises(WriteError) as err:
            c.write(c.update(kind, entity))
        return err.value.codes()

    assert code("MODIFY", c.digest_entry(DIGEST, 0, 1, 0)) == [grpc.StatusCode.NOT_FOUND]
    assert code("INSERT", c.digest_entry(DIGEST)) == [grpc.StatusCode.INVALID_ARGUMENT], "no config"
    configure(c)
    assert code("INSERT", c.digest_entry(DIGEST, 0, 1, 0)) == [grpc.StatusCode.ALREADY_EXISTS]
    assert code("MODIFY", c.digest_entry(DIGEST, -1, 1, 0)) == [grpc.StatusCode.INVALID_ARGUMENT]
    unknown = c.digest_entry(None)
    unknown.digest_entry.digest_id = 0x17ABCDEF
    assert code("DELETE", unknown) == [grpc.StatusCode.NOT_FOUND]


def test_acks_from_a_backup_or_for_no_digest_are_stream_errors(sut, ptf):
    c = ptf.client
    assert c.arbitrate(election_id=20).status.code == 0
    backup = P4RuntimeClient(sut.switch.address, 1, p4info=c.p4info, election_id=10)
    try:
        assert backup.arbitrate().status.code == grpc.StatusCode.ALREADY_EXISTS.value[0]
        ack = p4runtime_pb2.DigestList(digest_id=c.p4info.id("digests", DIGEST), list_id=1)
        backup.digest_ack(ack)
        error = backup.stream_errors()
        assert error is not None and error.canonical_code == grpc.StatusCode.PERMISSION_DENIED.value[0]
        assert error.digest_list_ack.digest_list_ack.digest_id == ack.digest_id
        c.digest_ack(p4runtime_pb2.DigestList(digest_id=0x17ABCDEF, list_id=1))
        error = c.stream_errors()
        assert error is not None and error.canonical_code == grpc.StatusCode.INVALID_ARGUMENT.value[0], \
            "P4Runtime 16.5: an ack naming no digest of the P4Info"
        c.digest_ack(ack)   # a list never sent (or acknowledged already): ignored
        assert c.stream_errors(timeout=0.5) is None
    finally:
        backup.close()


def test_data_no_primary_took_is_reported_to_the_next_one(sut, ptf):
    """P4Runtime 9.8: the cache holds lists that have been sent; one made while no primary is
    connected was not, so the same data is reported when it recurs, not after ack_timeout_ns."""
    c = ptf.client
    configure(c, ack_timeout_ns=60 * SECOND)
    assert c.arbitrate(election_id=50).status.code == 0
    other = P4RuntimeClient(sut.switch.address, 1, p4info=c.p4info, election_id=60)
    try:
        assert other.arbitrate().status.code == 0, "the higher election ID is primary"
    finally:
        other.close()   # and now no primary is connected
    time.sleep(0.3)
    ptf.send(1, frame("00:00:00:00:00:0b"))
    time.sleep(0.3)
    assert c.digest_list(timeout=0.2) is None, "a backup gets no digest lists"
    while not c._queues["arbitration"].empty():   # what c heard as a backup
        c.next_arbitration()
    assert c.arbitrate(election_id=70).status.code == 0
    ptf.send(1, frame("00:00:00:00:00:0b"))
    assert learned(c.digest_list()) == [("00:00:00:00:00:0b", 1)]
