"""PTF-style packet-test harness: switches on veth pairs in a network namespace the tests create,
driven over P4Runtime by the PyPI `p4runtime` bindings, with scapy packets sent and verified on the
test side of every veth pair. The switch process itself is mininet/switch_process.py, shared with
the Mininet switch class; NAT64FABRIC_TARGET=simple_switch_grpc points the tests at BMv2."""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "mininet"))
