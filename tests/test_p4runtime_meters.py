"""v1model meters on a P4Runtime switch over veth: softswitch/examples/policer.p4 meters frames per
ingress port (meter, packets) and per EtherType entry (direct_meter, bytes). MeterEntry and
DirectMeterEntry are written and read as P4Runtime 1.4 specifies, with their error codes and
per-colour counts; frames
beyond a burst are marked YELLOW, then RED and dropped (RFC 2698, colour-blind)."""
import grpc
import pytest
from scapy.layers.l2 import Ether

from harness.base import PacketTest, switch_under_test
from harness.p4rt import WriteError, batch_error
from harness import ROOT

PROGRAM = ROOT / "softswitch" / "examples" / "policer.p4"
GREEN, YELLOW, RED = 0, 1, 2
# One token a second: no bucket refills noticeably while a test sends its burst.
SLOW = 1


@pytest.fixture(scope="module")
def sut():
    with switch_under_test(PROGRAM, n_ports=2) as s:
        yield s


@pytest.fixture
def ptf(sut):
    test = PacketTest(sut)
    yield test
    c = test.client
    c.write(c.update("MODIFY", c.meter_entry("PolicerIngress.port_meter")))   # every cell unconfigured again
    test.finish()


def frame(ether_type=0x88B5, size=100):
    return Ether(dst="00:00:00:00:00:02", src="00:00:00:00:00:01", type=ether_type) / (b"\x00" * (size - 14))


def colours(ptf, n, ether_type=0x88B5, size=100, port=1):
    """Sends n frames in from `port`; the (port meter, EtherType meter) colours of those that left."""
    for _ in range(n):
        ptf.send(port, frame(ether_type, size))
    out = []
    while (got := ptf.dataplane.poll(2 if port == 1 else 1, timeout=0.5)) is not None:
        out.append((got[10], got[11]))
    return out


def test_unconfigured_meters_pass_everything_green(ptf):
    assert colours(ptf, 5) == [(GREEN, GREEN)] * 5


def test_port_meter_marks_beyond_the_bursts_and_red_is_dropped(ptf):
    c = ptf.client
    c.write(c.update("MODIFY", c.meter_entry("PolicerIngress.port_meter", 1, (SLOW, 2, SLOW, 4))))
    # CBS 2, PBS 4: two GREEN, two YELLOW, the rest RED and dropped by the program.
    assert colours(ptf, 10) == [(GREEN, GREEN)] * 2 + [(YELLOW, GREEN)] * 2
    assert colours(ptf, 3, port=2) == [(GREEN, GREEN)] * 3, "port 2's cell is not configured"
    (read,) = c.read(c.meter_entry("PolicerIngress.port_meter", 1))
    assert (read.meter_entry.config.cir, read.meter_entry.config.cburst,
            read.meter_entry.config.pir, read.meter_entry.config.pburst) == (SLOW, 2, SLOW, 4)
    everything = c.read(c.meter_entry("PolicerIngress.port_meter"))
    assert [e.meter_entry.index.index for e in everything] == list(range(8))
    assert [e.meter_entry.HasField("config") for e in everything] == [i == 1 for i in range(8)]
    # A MeterEntry without config resets the cell: GREEN again.
    c.write(c.update("MODIFY", c.meter_entry("PolicerIngress.port_meter", 1)))
    assert not c.read(c.meter_entry("PolicerIngress.port_meter", 1))[0].meter_entry.HasField("config")
    assert colours(ptf, 3) == [(GREEN, GREEN)] * 3


def test_direct_meter_counts_bytes_of_its_entry(ptf):
    c = ptf.client
    entry = c.table_entry("PolicerIngress.by_ether_type", match={"hdr.ethernet.ether_type": 0x88B5},
                          action="PolicerIngress.metered")
    ptf.insert(entry)
    c.write(c.update("MODIFY", c.direct_meter_entry(entry, (SLOW, 250, SLOW, 450))))
    # 100-byte frames: 250 bytes committed, 450 peak: G G Y Y, then RED.
    assert colours(ptf, 6) == [(GREEN, GREEN)] * 2 + [(GREEN, YELLOW)] * 2
    assert colours(ptf, 2, ether_type=0x88B6) == [(GREEN, GREEN)] * 2, "a miss is not metered"
    (read,) = c.read(c.direct_meter_entry(entry))
    assert read.direct_meter_entry.config.pburst == 450
    assert read.direct_meter_entry.table_entry.match == entry.table_entry.match


def test_meter_write_errors_carry_p4runtime_codes(ptf):
    c = ptf.client

    def code_of(kind, entity):
        with pytest.raises(WriteError) as err:
            c.write(c.update(kind, entity))
        return [x.name for x in err.value.codes()]

    assert code_of("MODIFY", c.meter_entry("PolicerIngress.port_meter", 8, (1, 1, 1, 1))) == ["OUT_OF_RANGE"]
    assert code_of("INSERT", c.meter_entry("PolicerIngress.port_meter", 0, (1, 1, 1, 1))) == ["INVALID_ARGUMENT"]
    assert code_of("DELETE", c.meter_entry("PolicerIngress.port_meter", 0)) == ["INVALID_ARGUMENT"]
    assert code_of("MODIFY", c.meter_entry("PolicerIngress.port_meter", 0, (10, 1, 5, 1))) == ["INVALID_ARGUMENT"]
    single_rate = c.meter_entry("PolicerIngress.port_meter", 0, (1, 1, 1, 1))
    single_rate.meter_entry.config.eburst = 50
    assert code_of("MODIFY", single_rate) == ["INVALID_ARGUMENT"], "P4Runtime 9.4: no eburst for a two-rate meter"
    unknown = c.meter_entry("PolicerIngress.port_meter", 0, (1, 1, 1, 1))
    unknown.meter_entry.meter_id = 0x14ffffff
    assert code_of("MODIFY", unknown) == ["NOT_FOUND"]
    absent = c.table_entry("PolicerIngress.by_ether_type", match={"hdr.ethernet.ether_type": 0x1234},
                           action="PolicerIngress.metered")
    assert code_of("MODIFY", c.direct_meter_entry(absent, (1, 1, 1, 1))) == ["NOT_FOUND"]
    # P4Runtime 9.1.9: a direct resource configured for an action that never executes it
    unmetered = c.table_entry("PolicerIngress.by_ether_type", match={"hdr.ethernet.ether_type": 0x1234},
                              action="NoAction")
    unmetered.table_entry.meter_config.cir, unmetered.table_entry.meter_config.cburst = 1, 1
    unmetered.table_entry.meter_config.pir, unmetered.table_entry.meter_config.pburst = 1, 1
    assert code_of("INSERT", unmetered) == ["INVALID_ARGUMENT"]
    unmetered.table_entry.ClearField("meter_config")
    c.write(c.update("INSERT", unmetered))
    assert code_of("MODIFY", c.direct_meter_entry(unmetered, (1, 1, 1, 1))) == ["INVALID_ARGUMENT"], \
        "nor as a DirectMeterEntry"
    c.write(c.update("DELETE", unmetered))
    with pytest.raises(grpc.RpcError) as read_err:
        c.read(c.meter_entry("PolicerIngress.port_meter", 99))
    assert read_err.value.code() == grpc.StatusCode.UNKNOWN
    assert batch_error(read_err.value).codes() == [grpc.StatusCode.OUT_OF_RANGE]
    assert colours(ptf, 2) == [(GREEN, GREEN)] * 2, "failed writes configured nothing"


def test_per_colour_meter_counts_are_read_and_reset_by_zeros(ptf):
    """P4Runtime 1.4 (9.1.9): a meter's MeterCounterData, the packets and bytes it marked GREEN,
    YELLOW and RED, read when the request sets counter_data (meter_counter_data in a table entry);
    a write may only reset them (zeros), other counts are INVALID_ARGUMENT."""
    c = ptf.client

    def counts(data):
        return [(x.packet_count, x.byte_count) for x in (data.green, data.yellow, data.red)]

    reset = c.meter_entry("PolicerIngress.port_meter", 1, (SLOW, 2, SLOW, 4))
    reset.meter_entry.counter_data.SetInParent()
    c.write(c.update("MODIFY", reset))
    query = c.meter_entry("PolicerIngress.port_meter", 1)
    query.meter_entry.counter_data.SetInParent()
    assert counts(c.read(query)[0].meter_entry.counter_data) == [(0, 0)] * 3
    assert colours(ptf, 10) == [(GREEN, GREEN)] * 2 + [(YELLOW, GREEN)] * 2
    assert counts(c.read(query)[0].meter_entry.counter_data) == [(2, 200), (2, 200), (6, 600)]
    assert not c.read(c.meter_entry("PolicerIngress.port_meter", 1))[0].meter_entry.HasField("counter_data"), \
        "unasked, not given"
    nonzero = c.meter_entry("PolicerIngress.port_meter", 1, (SLOW, 2, SLOW, 4))
    nonzero.meter_entry.counter_data.red.packet_count = 1
    with pytest.raises(WriteError) as err:
        c.write(c.update("MODIFY", nonzero))
    assert [x.name for x in err.value.codes()] == ["INVALID_ARGUMENT"]
    c.write(c.update("MODIFY", c.meter_entry("PolicerIngress.port_meter", 1)))
    assert counts(c.read(query)[0].meter_entry.counter_data) == [(2, 200), (2, 200), (6, 600)], \
        "a write without counter_data leaves them"
    with pytest.raises(WriteError) as err:
        c.write(c.update("MODIFY", reset), atomicity="ROLLBACK_ON_ERROR")
    assert [x.name for x in err.value.codes()] == ["UNIMPLEMENTED"], \
        "P4Runtime 12.2: a batch with a reset no rollback could undo is refused"
    assert counts(c.read(query)[0].meter_entry.counter_data) == [(2, 200), (2, 200), (6, 600)]
    c.write(c.update("MODIFY", reset))
    assert counts(c.read(query)[0].meter_entry.counter_data) == [(0, 0)] * 3
    c.write(c.update("MODIFY", c.meter_entry("PolicerIngress.port_meter", 1)))   # GREEN: only the direct meter marks

    entry = c.table_entry("PolicerIngress.by_ether_type", match={"hdr.ethernet.ether_type": 0x88B5},
                          action="PolicerIngress.metered")
    entry.table_entry.meter_config.cir, entry.table_entry.meter_config.cburst = SLOW, 250
    entry.table_entry.meter_config.pir, entry.table_entry.meter_config.pburst = SLOW, 450
    ptf.insert(entry)
    colours(ptf, 6)
    read_entry = c.table_entry("PolicerIngress.by_ether_type", match={"hdr.ethernet.ether_type": 0x88B5})
    read_entry.table_entry.meter_counter_data.SetInParent()
    (read,) = c.read(read_entry)
    assert counts(read.table_entry.meter_counter_data) == [(2, 200), (2, 200), (2, 200)]
    direct = c.direct_meter_entry(entry)
    direct.direct_meter_entry.counter_data.SetInParent()
    assert counts(c.read(direct)[0].direct_meter_entry.counter_data) == [(2, 200), (2, 200), (2, 200)]
    zeroed = c.table_entry("PolicerIngress.by_ether_type", match={"hdr.ethernet.ether_type": 0x88B5})
    zeroed.table_entry.meter_counter_data.SetInParent()
    c.write(c.update("MODIFY", zeroed))
    assert counts(c.read(read_entry)[0].table_entry.meter_counter_data) == [(0, 0)] * 3
