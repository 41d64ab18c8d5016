"""What the NAT64 pipeline suites share: the topology (an IPv6 host on port 1, an IPv4 server on
port 2, anything on port 3), the entries every test starts from, written as the controller writes
them, and packet builders. The expected packets' checksums are always scapy's own."""
import contextlib
import ipaddress
import os
import time

import pytest
from p4.v1 import p4runtime_pb2
from scapy.layers.inet import IP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

from harness.base import PacketTest, switch_under_test
from harness import ROOT, netns
from harness.dataplane import Dataplane, DrawnIdentification

PROGRAM = ROOT / "p4" / "nat64.p4"
SUME_PROGRAM = ROOT / "hw" / "netfpga" / "nat64_sume.p4"
P = "Nat64Ingress."
T = "Nat64Ingress.translate."
ROUTER_MAC = "00:00:00:00:0a:01"
V6_HOST_MAC = "00:00:00:00:00:06"
V4_HOST_MAC = "00:00:00:00:00:04"
V6_PORT, V4_PORT = 1, 2
POOL6 = "2001:db8:64::"          # network-specific /96 (Tayga-style tests need no WKP rules)
POOL4 = "192.0.2.0"              # /24
SWITCH_V4, SWITCH_V6 = "192.0.2.1", "2001:db8:1::1"
V6_HOST, V4_SERVER = "2001:db8:1::5", "198.51.100.7"
MAPPED = "192.0.2.10"            # the session's IPv4 address
CPU_CLONE_SESSION = 99

# Counter indexes of Nat64Ingress.drops (p4/include/defines.p4)
DROP_PARSER_ERROR, DROP_BAD_CHECKSUM, DROP_NO_ROUTE, DROP_POOL4_NO_BIB, DROP_NOT_TRANSLATABLE = 0, 1, 2, 3, 4
DROP_FILTERED = 6
DROP_TTL_EXPIRED, DROP_ICMP_ERROR, DROP_TOO_BIG, DROP_NOT_GLOBAL, DROP_BAD_LENGTH, DROP_LOCAL_FRAGMENT = 5, 7, 8, 9, 10, 11
DROP_PUNT_POLICED = 12
DROP_UDP_ZERO_CHECKSUM = 13
DROP_ICMP_ERROR_RATE = 14
DROP_SOURCE_ROUTE = 15
DROP_LINK_GROUP = 16
DROP_FOR_SWITCH = 17
PUNT_SESSION_MISS, PUNT_TCP_CONTROL, PUNT_NEEDS_FRAGMENTATION = 1, 2, 3
PUNT_FRAGMENT, PUNT_FIRST_FRAGMENT, PUNT_INBOUND_SYN, PUNT_ICMP_EXTENSION = 7, 8, 9, 10
PUNT_FINISH, PUNT_TOO_LONG = 5, 6          # a NetFPGA SUME's hand-overs (hw/netfpga/include/sume_arch.p4)
# Counter indexes of Nat64Ingress.icmp_error.sent
SENT_TIME_EXCEEDED, SENT_UNREACHABLE, SENT_TOO_BIG, SENT_PARAM_PROBLEM = 0, 1, 2, 3


def embed(ipv4, prefix, length):
    """RFC 6052 2.2, written here independently of the pipeline: IPv4 around the u octet."""
    p = int(ipaddress.IPv6Address(prefix))
    v4 = int(ipaddress.IPv4Address(ipv4))
    if length == 96:
        return str(ipaddress.IPv6Address(p | v4))
    head_bits = 64 - length                      # bits of the IPv4 address before the u octet
    head = v4 >> (32 - head_bits) if head_bits else 0
    tail = v4 & ((1 << (32 - head_bits)) - 1)
    return str(ipaddress.IPv6Address(p | head << 64 | tail << (56 - (32 - head_bits))))


@pytest.fixture(scope="module")
def sut():
    with switch_under_test(PROGRAM, n_ports=3) as s:
        install_base(s.client)
        yield s


@pytest.fixture(scope="module")
def sume_sut():
    """The NetFPGA SUME variant in softswitch's SimpleSumeSwitch (nf1-nf3 are ports 1-3, DMA the
    CPU port), on veth pairs of its own (ssw1-3, st1-3) beside the v1model switch."""
    with switch_under_test(SUME_PROGRAM, n_ports=3, links="s", fast_path="") as s:   # the fast path runs v1model only
        install_base(s.client, sume=True)
        yield s




def install_base(c, sume=False):
    """The entries every test starts from: the switch's addresses, routes, pool6, pool4, and on
    v1model the ICMP error source and the CPU clone session (the SUME variant has neither)."""
    base = [
        c.table_entry(P + "local_host.local_ipv4", match={"meta.local4_key": SWITCH_V4},
                      action=P + "local_host.is_local", params={"mac": ROUTER_MAC}),
        c.table_entry(P + "local_host.local_ipv6", match={"meta.local6_key": SWITCH_V6},
                      action=P + "local_host.is_local", params={"mac": ROUTER_MAC}),
        c.table_entry(P + "ipv6_routes", match={"dst_addr": ("2001:db8:1::", 64)},
                      action=P + "set_next_hop",
                      params={"port": V6_PORT, "src_mac": ROUTER_MAC, "dst_mac": V6_HOST_MAC}),
        c.table_entry(P + "ipv4_routes", match={"dst_addr": ("198.51.100.0", 24)},
                      action=P + "set_next_hop",
                      params={"port": V4_PORT, "src_mac": ROUTER_MAC, "dst_mac": V4_HOST_MAC}),
        c.table_entry(T + "pool6", match={"dst_addr": (POOL6, 96)}, action=T + "extract_96"),
        c.table_entry(T + "pool6_src", match={"src_addr": (POOL6, 96)}, action=T + "ipv4_host_source"),
        c.table_entry(T + "pool4", match={"dst_addr": (POOL4, 24)}, action=T + "in_pool4",
                      params={"unmapped_port_unreachable": 1}),
    ]
    c.write(*(c.update("INSERT", e) for e in base))
    c.write(c.update("MODIFY", c.table_entry(T + "pool6_embed", default=True, action=T + "use_pool6",
                                             params={"prefix": POOL6, "length": 96})))
    if sume:
        return
    c.write(c.update("MODIFY", c.table_entry(P + "icmp_error.icmp_source", default=True,
                                             action=P + "icmp_error.use_source",
                                             params={"addr4": SWITCH_V4, "addr6": SWITCH_V6})))
    clone = p4runtime_pb2.Entity()
    clone.packet_replication_engine_entry.clone_session_entry.session_id = CPU_CLONE_SESSION
    clone.packet_replication_engine_entry.clone_session_entry.replicas.add(egress_port=255, instance=1)
    c.write(c.update("INSERT", clone))


@pytest.fixture
def ptf(request):
    """One test's view of the v1model switch, or of the SUME variant's for a test marked BOTH."""
    test = PacketTest(request.getfixturevalue("sume_sut" if getattr(request, "param", "v1model") == "sume" else "sut"))
    yield test
    test.finish()


# A test of what both pipelines do alike runs on each: the SUME variant's differences are the
# tests without it (hw/netfpga/README.md says why each differs). The SUME variant never runs on
# the kernel fast path (sume_sut turns it off), so make test's fast-path passes
# (NAT64FABRIC_FAST_PATH) leave out its cases, which the first pass ran as they would run again.
PIPELINES = ["v1model"] if os.environ.get("NAT64FABRIC_FAST_PATH") else ["v1model", "sume"]
BOTH = pytest.mark.parametrize("ptf", PIPELINES, indirect=True)


def counter(ptf, name, index):
    e = p4runtime_pb2.Entity()
    e.counter_entry.counter_id = ptf.client.p4info.id("counters", name)
    e.counter_entry.index.index = index
    return ptf.client.read(e)[0].counter_entry.data.packet_count


def counts(ptf):
    """Whether the pipeline counts its drops: v1model does; the SUME variant has no counters, and a
    test marked BOTH checks its packets alone there."""
    return bool(ptf.client.p4info.message.counters)


def drops(ptf, index):
    return counter(ptf, P + "drops", index)


def sent(ptf, index):
    return counter(ptf, P + "icmp_error.sent", index)


def session_v6(ptf, proto, src6, sport, src4, port4, filtered=0, transitory=0):
    return ptf.client.table_entry(T + "session_v6", match={"proto": proto, "src_addr": src6, "src_port": sport},
                                  action=T + "snat", params={"src4": src4, "src_port": port4, "filtered": filtered,
                                                             "transitory": transitory})


def session_v4(ptf, proto, dst4, dport, dst6, port6, filtered=0, transitory=0):
    return ptf.client.table_entry(T + "session_v4", match={"proto": proto, "dst_addr": dst4, "dst_port": dport},
                                  action=T + "dnat", params={"dst6": dst6, "dst_port": port6, "filtered": filtered,
                                                             "transitory": transitory})


def routed(frame, dst_mac):
    """`frame` as the switch routes it in its own family: new MACs, one hop less."""
    out = frame.copy()
    out[Ether].src, out[Ether].dst = ROUTER_MAC, dst_mac
    if IP in out:
        out[IP].ttl -= 1
        del out[IP].chksum
    else:
        out[IPv6].hlim -= 1
    return out


def eam(ptf, v6, v4):
    """One RFC 7757 EAM (v6/128 <-> v4/32), written as the controller writes it: into the four EAMT
    tables and the two for the sources of ICMP errors."""
    c = ptf.client
    return [c.table_entry(T + table, match={key: (prefix, length)}, action=T + action,
                          params={"prefix": mapped, "suffix_mask": 0})
            for table, key, prefix, length, action, mapped in (
                ("eamt_v6_src", "ipv6_addr", v6, 128, "eam_v6_to_v4_src", v4),
                ("eamt_v6_error_src", "ipv6_addr", v6, 128, "eam_v6_error_src", v4),
                ("eamt_v6_dst", "ipv6_addr", v6, 128, "eam_v6_to_v4_dst", v4),
                ("eamt_v4_src", "ipv4_addr", v4, 32, "eam_v4_to_v6_src", v6),
                ("eamt_v4_dst", "ipv4_addr", v4, 32, "eam_v4_to_v6_dst", v6),
                ("eamt_v4_error_src", "ipv4_addr", v4, 32, "eam_v4_error_src", v6))]


def siit_prefix(ptf, prefix4, length4):
    """A stateless SIIT prefix, as the controller writes nat64.siitPrefixes under the /96 pool6 (its
    hosts' sources, their routers' errors' sources, and back)."""
    c = ptf.client
    embedded = (embed(prefix4, POOL6, 96), 96 + length4)
    return [c.table_entry(T + "pool6_src", match={"src_addr": embedded}, action=T + "extract_96"),
            c.table_entry(T + "eamt_v6_error_src", match={"ipv6_addr": embedded}, action=T + "extract_96"),
            c.table_entry(T + "siit_v4_dst", match={"dst_addr": (prefix4, length4)}, action=T + "embed_dst",
                          params={"prefix": POOL6, "length": 96})]


def from_v6_host(l4, src=V6_HOST, dst=None, hlim=64, tc=0):
    return Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IPv6(src=src, dst=dst or embed(V4_SERVER, POOL6, 96),
                                                          hlim=hlim, tc=tc) / l4


def from_v4_server(l4, dst=MAPPED, ttl=64, tos=0, src=V4_SERVER, **ip):
    return Ether(src=V4_HOST_MAC, dst=ROUTER_MAC) / IP(src=src, dst=dst, ttl=ttl, tos=tos, **ip) / l4


def to_v4_server(l4, src=MAPPED, ttl=63, tos=0, flags=0, id=None):
    """A packet translated to the IPv4 server: with `id`, a fragment's (its identification carried);
    without, any other, whose identification the switch draws (RFC 7915 5.1)."""
    frame = Ether(src=ROUTER_MAC, dst=V4_HOST_MAC) / IP(src=src, dst=V4_SERVER, ttl=ttl, tos=tos, flags=flags,
                                                         id=id or 0) / l4
    return frame if id is not None else DrawnIdentification(frame)


def from_switch4(l4, dst=V4_SERVER, mac=V4_HOST_MAC):
    """What the switch sends from its own IPv4 address (an ICMP error): identification drawn."""
    return DrawnIdentification(Ether(src=ROUTER_MAC, dst=mac) / IP(src=SWITCH_V4, dst=dst, ttl=64) / l4)


def to_v6_host(l4, src=None, dst=V6_HOST, hlim=63, tc=0):
    return Ether(src=ROUTER_MAC, dst=V6_HOST_MAC) / IPv6(src=src or embed(V4_SERVER, POOL6, 96), dst=dst,
                                                          hlim=hlim, tc=tc, fl=0) / l4


@contextlib.contextmanager
def programmed_controller(tmp, config, switch_port, p4info_path, device_config_path, *options):
    """The embedded controller driving the P4Runtime server at `switch_port` (config's "{port}")
    with this pipeline: yields its REST API once every switch there is programmed (a configured
    switch elsewhere may be down); stopped after."""
    from test_rest_api import Controller

    class ProgramController(Controller):
        def command(self, *extra):
            cmd = super().command(*extra, *options)
            cmd[cmd.index("--p4info") + 1] = str(p4info_path)
            cmd[cmd.index("--device-config") + 1] = str(device_config_path)
            return cmd

    controller = ProgramController(tmp, config=config, switch_port=switch_port)
    try:
        api = controller.start()
        deadline = time.time() + 60
        driven = {i for i, d in config["devices"].items() if "{port}" in d.get("basic", {}).get("managementAddress", "")}
        while not all(d["connected"] for d in api.call("GET", "/devices")[1]["devices"] if d["id"] in driven):
            assert time.time() < deadline, (tmp / "controller.log").read_text()
            time.sleep(0.3)
        yield api
    finally:
        controller.stop()


@contextlib.contextmanager
def driven_switch(tmp, program, config, links, *controller_options):
    """A switch running `program` on veth pairs (LINKSsw1/LINKSt1 for the IPv6 host, ...2 for the
    IPv4 server) that the embedded controller drives with `config` (its "{port}" the switch's gRPC
    port): yields the REST API, the test side's Dataplane and the controller's log, once the switch
    is programmed. Everything made is removed after."""
    from switch_process import SwitchProcess   # mininet/ is on the path (harness/__init__.py)
    netns.enter_private_namespace()
    for n in (V6_PORT, V4_PORT):
        netns.delete_link(f"{links}sw{n}")
        netns.add_veth_pair(f"{links}sw{n}", f"{links}t{n}")
    switch = SwitchProcess({n: f"{links}sw{n}" for n in (V6_PORT, V4_PORT)}, log_path=tmp / "switch.log",
                           fast_path="" if program == SUME_PROGRAM else None).start()   # the fast path runs v1model only
    try:
        p4info_path, _ = switch.build_pipeline(program, tmp / "p4")
        with programmed_controller(tmp, config, switch.grpc_port, p4info_path, tmp / "p4" / "device_config.bin",
                                   *controller_options) as api:
            switch.expect_fast_path()
            dataplane = Dataplane({n: f"{links}t{n}" for n in (V6_PORT, V4_PORT)})
            try:
                yield api, dataplane, tmp / "controller.log"
            finally:
                dataplane.close()
    finally:
        switch.stop()
        for n in (V6_PORT, V4_PORT):
            netns.delete_link(f"{links}sw{n}")
