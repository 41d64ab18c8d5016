"""P4Runtime 8.5.6 and 8.5.7 (user-defined types) and 18 (translation), over gRPC: a `type` is named
in P4Info, a translated one takes the controller's width there, and softswitch translates the
controller's values as themselves (SDN port n is port n): in keys, action parameters and the
packet-in and packet-out headers; a value the data plane cannot hold is refused."""
import grpc
import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from harness import ROOT
from harness.base import PacketTest, primary_of_a_bare_switch, switch_under_test
from harness.p4rt import WriteError
from p4.v1 import p4runtime_pb2

PROGRAM = ROOT / "tests" / "data" / "translated_types.p4"


@pytest.fixture(scope="module")
def sut():
    with switch_under_test(PROGRAM, n_ports=2) as s:
        yield s


@pytest.fixture
def ptf(sut):
    test = PacketTest(sut)
    yield test
    test.finish()


def test_p4info_names_user_defined_types_and_gives_translated_ones_the_controllers_width(sut):
    info = sut.client.p4info
    fields = {f.name: f for f in info.get("tables", "TIngress.ports").match_fields}
    assert (fields["meta.in_port"].bitwidth, fields["meta.in_port"].type_name.name) == (32, "port_t")
    assert (fields["hdr.ethernet.ether_type"].bitwidth, fields["hdr.ethernet.ether_type"].type_name.name) == (16, "ether_type_t")
    (port,) = info.get("actions", "TIngress.forward").params
    assert (port.bitwidth, port.type_name.name) == (32, "port_t")
    for header, name in (("packet_out", "egress_port"), ("packet_in", "ingress_port")):
        (field,) = [m for m in info.get("controller_packet_metadata", header).metadata if m.name == name]
        assert (field.bitwidth, field.type_name.name) == (32, "port_t"), header
    new_types = info.message.type_info.new_types
    assert new_types["port_t"].translated_type.uri == "nat64fabric.org/test/PortId_t"
    assert new_types["port_t"].translated_type.sdn_bitwidth == 32
    assert new_types["ether_type_t"].original_type.bitstring.bit.bitwidth == 16


def ports_entry(c, in_port, out_port):
    return c.table_entry("TIngress.ports", match={"meta.in_port": in_port, "hdr.ethernet.ether_type": 0x0800},
                         action="TIngress.forward", params={"port": out_port})


def test_a_translated_types_controller_values_are_its_data_plane_values(ptf):
    c = ptf.client
    # 32-bit controller values, sent padded to their width as a client may send them
    ptf.insert(ports_entry(c, b"\x00\x00\x00\x01", b"\x00\x00\x00\x02"))
    (read,) = c.read(c.table_entry("TIngress.ports"))
    assert read.table_entry.match[0].exact.value == b"\x01" and read.table_entry.action.action.params[0].value == b"\x02"
    frame = Ether(src="00:00:00:00:00:01", dst="00:00:00:00:00:02") / IP(src="10.0.0.1", dst="10.0.0.2") / UDP() / Raw(b"x" * 20)
    ptf.send(1, frame)
    ptf.verify_packet(frame, 2)
    # the default action punts the rest, with the port it came in on as the controller sees it
    other = Ether(src="00:00:00:00:00:01", dst="00:00:00:00:00:02", type=0x88B5) / Raw(b"y" * 30)
    ptf.send(2, other)
    payload, metadata = c.packet_in(timeout=5)
    assert payload == bytes(other) and metadata["ingress_port"] == 2
    c.packet_out(bytes(other), egress_port=b"\x00\x00\x00\x01")
    ptf.verify_packet(other, 1)
    ptf.verify_no_other_packets()


def test_a_controller_value_the_data_plane_cannot_hold_is_refused(ptf):
    c = ptf.client
    for entry in (ports_entry(c, 0x200, 1), ports_entry(c, 1, 0xFFFFFFFD)):
        with pytest.raises(WriteError) as err:
            c.write(c.update("INSERT", entry))
        assert [e.name for e in err.value.codes()] == ["OUT_OF_RANGE"]
    assert c.read(c.table_entry("TIngress.ports")) == []
    header = c.p4info.get("controller_packet_metadata", "packet_out")
    req = p4runtime_pb2.StreamMessageRequest()
    req.packet.payload = bytes(Ether() / Raw(b"z" * 30))
    for m in header.metadata:
        req.packet.metadata.add(metadata_id=m.id, value=b"\x02\x00" if m.name == "egress_port" else b"\x00")
    c._requests.put(req)
    error = c.stream_errors(timeout=5)
    assert error is not None and error.canonical_code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "9 bits" in error.message
    ptf.verify_no_other_packets()


def test_a_type_translated_to_a_string_is_refused_with_the_pipeline(tmp_path):
    """softswitch has no mapping for strings (8.5.6 lets the controller's type be one): the config says so."""
    program = tmp_path / "strings.p4"
    program.write_text(PROGRAM.read_text().replace("bit<32>)\ntype bit<9> port_t;", "string)\ntype bit<9> port_t;"))
    with primary_of_a_bare_switch() as (sw, client):
        p4info, device_config = sw.build_pipeline(program, tmp_path / "out")
        with pytest.raises(grpc.RpcError) as err:
            client.set_pipeline(p4info, device_config)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "port_t" in err.value.details() and "string" in err.value.details()
