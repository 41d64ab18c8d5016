"""The NetFPGA SUME control agent (hw/netfpga/agent) against its model card: softswitch running
hw/netfpga/nat64_sume.p4, its tables written only through the card's register-level operations
(CAM, TCAM, LPM words in SDNet's layout), its DMA port on a veth whose peer is the agent's DMA
netdev. No SUME exists here: this is what can be checked without one. First a P4Runtime client
drives the agent as any controller would, and the NAT64 tests that run on the SUME variant
(those of test_nat64_pipeline.py marked BOTH) run again through the agent; then the embedded
controller drives it exactly as it drives softswitch, and a new flow is set up through it."""
import copy
import functools
import socket
import subprocess
import time
from types import SimpleNamespace

import grpc
import pytest
from p4.v1 import p4runtime_pb2
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import ICMPv6EchoRequest, IPv6
from scapy.layers.l2 import Ether

import test_nat64_pipeline
from harness import ROOT, netns
from harness.base import PacketTest, SwitchUnderTest
from harness.dataplane import Dataplane
from harness.p4rt import P4RuntimeClient, WriteError, batch_error
from nat64_setup import (MAPPED, P, SUME_PROGRAM, T, V4_PORT, V4_SERVER, V6_HOST, V6_PORT, from_v4_server,
                         from_v6_host, install_base, programmed_controller, session_v4, session_v6, to_v4_server,
                         to_v6_host)
from switch_process import SOFTSWITCH, free_tcp_port
from test_nat64_sume import SUME_FABRIC

AGENT_JAR = ROOT / "hw" / "netfpga" / "agent" / "target" / "sume-agent.jar"
PUNT_SESSION_MISS = 1
ICMP_TIMEOUT = 2   # seconds: the embedded controller's ICMP session lifetime in controlled_agent


class AgentProcess:
    """sume-agent --model on veths named with `prefix`: nfK is {prefix}swK (the test's end {prefix}tK),
    the card's DMA end {prefix}dcard, the agent's DMA netdev {prefix}dhost."""

    def __init__(self, prefix, log_path, ports=(V6_PORT, V4_PORT)):
        self.prefix = prefix
        self.log_path = log_path
        self.ports = ports
        self.grpc_port = free_tcp_port()
        self.links = [f"{prefix}sw{n}" for n in ports] + [f"{prefix}dcard"]
        self.proc = None

    def start(self):
        if not AGENT_JAR.exists():
            pytest.fail(f"{AGENT_JAR} is missing: run `make build` first (make test does)")
        for n in self.ports:
            netns.delete_link(f"{self.prefix}sw{n}")
            netns.add_veth_pair(f"{self.prefix}sw{n}", f"{self.prefix}t{n}")
        netns.delete_link(f"{self.prefix}dcard")
        netns.add_veth_pair(f"{self.prefix}dcard", f"{self.prefix}dhost")
        for end in ("dcard", "dhost"):   # a packet-in is the frame and its 6-byte header
            netns.run("ip", "link", "set", f"{self.prefix}{end}", "mtu", "1600")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            ["java", "-jar", str(AGENT_JAR), "--model", "--grpc-port", str(self.grpc_port),
             "--dma", f"{self.prefix}dhost", "--card-dma", f"{self.prefix}dcard",
             *(arg for n in self.ports for arg in ("-i", f"{n}@{self.prefix}sw{n}"))],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log_path.read_text()
            try:
                with socket.create_connection(("127.0.0.1", self.grpc_port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.1)
        raise AssertionError("the agent did not open its gRPC port: " + self.log_path.read_text())

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)
        for link in self.links:
            netns.delete_link(link)

    def dataplane(self):
        return Dataplane({n: f"{self.prefix}t{n}" for n in self.ports})


def sume_pipeline(out_dir):
    """The SUME program's P4Info and device config, as softswitch compiles them."""
    subprocess.run([str(SOFTSWITCH), "compile", str(SUME_PROGRAM), "--out-dir", str(out_dir)], check=True,
                   capture_output=True)
    return out_dir / "p4info.txt", (out_dir / "device_config.bin").read_bytes()


def test_the_agent_says_plainly_when_there_is_no_card():
    proc = subprocess.run(["java", "-jar", str(AGENT_JAR), "--dma", "lo"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "no NetFPGA SUME driver" in proc.stderr, proc.stderr
    assert "--model" in subprocess.run(["java", "-jar", str(AGENT_JAR), "--help"], capture_output=True,
                                       text=True, timeout=60).stdout


# ---- a P4Runtime client drives the agent ----

@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sume-agent")
    netns.enter_private_namespace()
    agent = AgentProcess("a", tmp / "agent.log").start()
    client = dataplane = None
    try:
        p4info_path, device_config = sume_pipeline(tmp / "p4")
        client = P4RuntimeClient(f"127.0.0.1:{agent.grpc_port}", 1)
        assert client.arbitrate().status.code == 0
        client.set_pipeline(p4info_path, device_config)
        install_base(client, sume=True)
        dataplane = agent.dataplane()
        yield client, dataplane, p4info_path, device_config, agent
    finally:
        if dataplane:
            dataplane.close()
        if client:
            client.close()
        agent.stop()


def table_entries(client, table):
    e = p4runtime_pb2.Entity()
    e.table_entry.table_id = client.p4info.id("tables", table)
    return [x.table_entry for x in client.read(e)]


def test_a_session_written_through_the_agent_translates_on_the_card(agent):
    client, dataplane, *_ = agent
    ptf = SimpleNamespace(client=client)
    entries = [session_v6(ptf, 17, V6_HOST, 5000, MAPPED, 40000), session_v4(ptf, 17, MAPPED, 40000, V6_HOST, 5000)]
    client.write(*(client.update("INSERT", e) for e in entries))
    try:
        dataplane.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / b"query"))
        dataplane.verify_packet(to_v4_server(UDP(sport=40000, dport=53) / b"query"), V4_PORT)
        dataplane.send(V4_PORT, from_v4_server(UDP(sport=53, dport=40000) / b"answer"))
        dataplane.verify_packet(to_v6_host(UDP(sport=53, dport=5000) / b"answer"), V6_PORT)
        dataplane.verify_no_other_packets()
        assert table_entries(client, T + "session_v6") == [entries[0].table_entry], "read back as written"
    finally:
        client.write(*(client.update("DELETE", e) for e in entries))
    dataplane.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / b"again"))
    payload, md = client.packet_in()
    assert md["punt_reason"] == PUNT_SESSION_MISS and md["ingress_port"] == V6_PORT, "deleted from the card's CAM"
    assert Ether(payload)[IPv6].src == V6_HOST
    dataplane.verify_no_other_packets()


def read_with_hit_times(client, table):
    e = p4runtime_pb2.Entity()
    e.table_entry.table_id = client.p4info.id("tables", table)
    e.table_entry.time_since_last_hit.SetInParent()
    return [x.table_entry for x in client.read(e)]


def test_sessions_age_on_the_card_an_idle_one_is_reported_a_busy_one_is_not(agent):
    """Idle timeouts emulated by the agent (the card has none): each session entry counts its hits in
    its slot of the card's register, which the agent polls. A session with traffic is never
    reported; one without is, as written, after its timeout and again a timeout later; a Read asking
    for time_since_last_hit gets it, counted from the last notification."""
    client, dataplane, *_ = agent
    ptf = SimpleNamespace(client=client)
    busy, idle = session_v6(ptf, 17, V6_HOST, 5100, MAPPED, 40100), session_v6(ptf, 17, V6_HOST, 5101, MAPPED, 40101)
    for e in (busy, idle):
        e.table_entry.idle_timeout_ns = 10**9
    while client.idle_timeout_notification(timeout=0) is not None:
        pass
    client.write(*(client.update("INSERT", e) for e in (busy, idle)))
    try:
        started, notes = time.monotonic(), []
        while len(notes) < 2 and time.monotonic() - started < 5:
            dataplane.send(V6_PORT, from_v6_host(UDP(sport=5100, dport=53) / b"busy"))
            dataplane.verify_packet(to_v4_server(UDP(sport=40100, dport=53) / b"busy"), V4_PORT)
            note = client.idle_timeout_notification(timeout=0.25)
            if note is not None:
                notes.append((time.monotonic() - started, list(note.table_entry)))
        assert [entries for _, entries in notes] == [[idle.table_entry], [idle.table_entry]], notes
        assert 0.9 < notes[0][0] < 2 and 0.9 < notes[1][0] - notes[0][0] < 1.6, notes
        hit_times = {e.match[2].exact.value: e.time_since_last_hit.elapsed_ns
                     for e in read_with_hit_times(client, T + "session_v6")}
        assert hit_times[busy.table_entry.match[2].exact.value] < 0.6e9, hit_times
        # P4Runtime: each notification resets the entry's timer, so it counts from the last one.
        assert hit_times[idle.table_entry.match[2].exact.value] < 0.9e9, hit_times
        assert all(not e.HasField("time_since_last_hit") for e in table_entries(client, T + "session_v6"))
    finally:
        client.write(*(client.update("DELETE", e) for e in (busy, idle)))
    dataplane.verify_no_other_packets()


def test_hit_times_come_from_tables_with_idle_timeouts_and_an_entry_read_with_one_deletes(agent):
    """P4Runtime 9.1.8: time_since_last_hit is asked of a table with idle timeouts only (pool6 has
    none: INVALID_ARGUMENT); 9.1: a DELETE considers the key alone, so an entry read back with its
    hit time deletes as it is."""
    client, dataplane, *_ = agent
    with pytest.raises(grpc.RpcError) as err:
        read_with_hit_times(client, T + "pool6")
    # P4Runtime 11.3: a read's failing request is its p4.Error, under UNKNOWN, in a batch of one too
    assert err.value.code() == grpc.StatusCode.UNKNOWN, err.value
    assert batch_error(err.value).codes() == [grpc.StatusCode.INVALID_ARGUMENT], err.value
    session = session_v6(SimpleNamespace(client=client), 17, V6_HOST, 5200, MAPPED, 40200)
    session.table_entry.idle_timeout_ns = 10**10
    client.write(client.update("INSERT", session))
    (read_back,) = [e for e in read_with_hit_times(client, T + "session_v6")
                    if e.match[2].exact.value == session.table_entry.match[2].exact.value]
    assert read_back.HasField("time_since_last_hit")
    entity = p4runtime_pb2.Entity()
    entity.table_entry.CopyFrom(read_back)
    client.write(client.update("DELETE", entity))
    assert [e for e in table_entries(client, T + "session_v6")
            if e.match[2].exact.value == session.table_entry.match[2].exact.value] == []
    dataplane.verify_no_other_packets()


def test_packet_out_over_dma_leaves_the_port_it_names(agent):
    client, dataplane, *_ = agent
    frame = from_v4_server(UDP(sport=53, dport=9) / b"from the controller")
    client.packet_out(bytes(frame), egress_port=V4_PORT, to_pipeline=0)
    dataplane.verify_packet(frame, V4_PORT)
    dataplane.verify_no_other_packets()
    # longer than the card's 1514-byte frames: refused as the request's fault, not as the card's
    client.packet_out(bytes(from_v4_server(UDP(sport=53, dport=9) / (b"x" * 1480))), egress_port=V4_PORT, to_pipeline=0)
    error = client.stream_errors()
    assert error.canonical_code == grpc.StatusCode.INVALID_ARGUMENT.value[0] and "1514" in error.message, error
    dataplane.verify_no_other_packets()


def test_routes_are_lpm_datasets_and_the_longest_prefix_wins(agent):
    client, dataplane, *_ = agent
    more_specific = client.table_entry(P + "ipv4_routes", match={"dst_addr": ("198.51.100.0", 25)},
                                       action=P + "punt_no_route")
    client.write(client.update("INSERT", more_specific))
    try:
        probe = Ether(src="00:00:00:00:00:06", dst="00:00:00:00:0a:01") / IP(src="203.0.113.9", dst=V4_SERVER) / UDP() / b"x"
        dataplane.send(V6_PORT, probe)
        _, md = client.packet_in()
        assert md["ingress_port"] == V6_PORT, md
        dataplane.verify_no_other_packets()
    finally:
        client.write(client.update("DELETE", more_specific))
    dataplane.send(V6_PORT, probe)
    assert dataplane.poll(V4_PORT) is not None, "the /24 routes it again"


def test_what_the_card_cannot_hold_is_refused_with_clear_statuses(agent):
    client, *_ = agent
    mtu = client.table_entry(P + "egress_mtu", match={"port": 3}, action=P + "set_mtu", params={"mtu": 1500})
    mtu.table_entry.idle_timeout_ns = 10**9
    with pytest.raises(WriteError) as e:
        client.write(client.update("INSERT", mtu))
    assert e.value.codes() == [grpc.StatusCode.INVALID_ARGUMENT] and "idle timeout" in e.value.errors[0].message
    clone = p4runtime_pb2.Entity()
    clone.packet_replication_engine_entry.clone_session_entry.session_id = 99
    with pytest.raises(WriteError) as e:
        client.write(client.update("INSERT", clone))
    assert e.value.codes() == [grpc.StatusCode.UNIMPLEMENTED] and "replication" in e.value.errors[0].message
    counters = p4runtime_pb2.Entity()
    counters.counter_entry.counter_id = 0
    with pytest.raises(grpc.RpcError) as e:
        client.read(counters)
    assert e.value.code() == grpc.StatusCode.UNKNOWN and "counters" in e.value.details()
    assert batch_error(e.value).codes() == [grpc.StatusCode.UNIMPLEMENTED]


def test_the_pipeline_must_be_the_one_the_card_was_built_with(agent):
    client, _, p4info_path, device_config, _ = agent
    with pytest.raises(grpc.RpcError) as e:
        client.set_pipeline(ROOT / "p4" / "build" / "p4info.txt", device_config, action="VERIFY")
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "built with another program" in e.value.details()
    client.set_pipeline(p4info_path, device_config, action="VERIFY")   # VERIFY alone changes nothing
    config = client.get_pipeline()
    assert config.p4_device_config == device_config and config.p4info == client.p4info.message
    # P4Runtime 14: RECONCILE_AND_COMMIT keeps the forwarding state; the card runs one program, so it can.
    ptf = SimpleNamespace(client=client)
    session = session_v6(ptf, 17, V6_HOST, 5010, MAPPED, 40010)
    client.write(client.update("INSERT", session))
    try:
        client.set_pipeline(p4info_path, device_config + b"\n", action="RECONCILE_AND_COMMIT", cookie=5)
        assert table_entries(client, T + "session_v6") == [session.table_entry], "the card's entries stay"
        assert client.get_pipeline("COOKIE_ONLY").cookie.cookie == 5
        client.set_pipeline(p4info_path, device_config, action="RECONCILE_AND_COMMIT")
        assert client.get_pipeline().p4_device_config == device_config
    finally:
        client.write(client.update("DELETE", session))
    assert client.stub.Capabilities(p4runtime_pb2.CapabilitiesRequest()).p4runtime_api_version.startswith("1.")


# ---- the NAT64 tests both pipelines pass, through the agent ----

@pytest.fixture(scope="module")
def agent_sut(tmp_path_factory):
    """The SUME variant on the model card behind the agent, set up as test_nat64_pipeline's sume_sut."""
    tmp = tmp_path_factory.mktemp("sume-agent-conformance")
    netns.enter_private_namespace()
    agent = AgentProcess("p", tmp / "agent.log", ports=(1, 2, 3)).start()
    client = dataplane = None
    try:
        p4info_path, device_config = sume_pipeline(tmp / "p4")
        client = P4RuntimeClient(f"127.0.0.1:{agent.grpc_port}", 1)
        assert client.arbitrate().status.code == 0
        client.set_pipeline(p4info_path, device_config)
        install_base(client, sume=True)
        dataplane = agent.dataplane()
        yield SwitchUnderTest(agent, client, dataplane, p4info_path, device_config, "p")
    finally:
        if dataplane:
            dataplane.close()
        if client:
            client.close()
        agent.stop()


@pytest.fixture
def ptf(agent_sut):
    test = PacketTest(agent_sut)
    yield test
    test.finish()


def _is_ptf_parametrize(mark):
    return mark.name == "parametrize" and mark.args[0] == "ptf"


def _runs_on_both(fn):
    return any(_is_ptf_parametrize(m) for m in getattr(fn, "pytestmark", []))


def _through_the_agent(fn):
    """The test as it is, on this module's ptf (the agent) instead of each pipeline's; its other
    parameters stay."""
    @functools.wraps(fn)
    def test(*args, **kwargs):
        return fn(*args, **kwargs)
    test.pytestmark = [m for m in fn.pytestmark if not _is_ptf_parametrize(m)]
    return test


for _name, _fn in sorted(vars(test_nat64_pipeline).items()):
    if _name.startswith("test_") and _runs_on_both(_fn):
        globals()["test_through_the_agent_" + _name[len("test_"):]] = _through_the_agent(_fn)


# ---- the embedded controller drives the agent as it drives softswitch ----

@pytest.fixture(scope="module")
def controlled_agent(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sume-agent-fabric")
    netns.enter_private_namespace()
    agent = AgentProcess("c", tmp / "agent.log").start()
    try:
        p4info_path, _ = sume_pipeline(tmp / "p4")
        config = copy.deepcopy(SUME_FABRIC)   # ICMP sessions that age within a test
        config["apps"]["org.nat64fabric.app"]["nat64"]["timeouts"] = {"icmp": ICMP_TIMEOUT, "belowRfcMinimums": True}
        with programmed_controller(tmp, config, agent.grpc_port, p4info_path,
                                   tmp / "p4" / "device_config.bin") as api:
            dataplane = agent.dataplane()
            try:
                yield api, dataplane, tmp
            finally:
                dataplane.close()
    finally:
        agent.stop()


def test_the_controller_sets_a_flow_up_through_the_agent(controlled_agent):
    """A new flow from the IPv6 host reaches the controller over the agent's DMA netdev, the
    controller writes the session through the agent into the card's CAMs, and the card
    translates; the answer without a UDP checksum is finished by the controller on its way back."""
    api, dataplane, tmp = controlled_agent
    out = None
    for _ in range(10):       # as a host does: "connected" may come before the base entries are written
        dataplane.send(V6_PORT, from_v6_host(UDP(sport=5353, dport=53) / b"query"))
        out = dataplane.poll(V4_PORT, timeout=1)
        if out is not None:
            break
    assert out is not None, (tmp / "controller.log").read_text()[-3000:] + (tmp / "agent.log").read_text()[-2000:]
    while dataplane.poll(V4_PORT, timeout=1.5) is not None:
        pass                  # a resend that was set up too
    translated = Ether(out)
    mapped, port = translated[IP].src, translated[UDP].sport
    assert translated[IP].dst == V4_SERVER and translated[UDP].dport == 53 and mapped.startswith("192.0.2.")
    dataplane.send(V4_PORT, from_v4_server(UDP(sport=53, dport=port, chksum=0) / b"answer", dst=mapped))
    dataplane.verify_packet(to_v6_host(UDP(sport=53, dport=5353) / b"answer"), V6_PORT)
    dataplane.verify_no_other_packets()
    stats = api.call("GET", "/stats")[1]
    assert stats["finish.sent"] == 1 and stats["setups.translated"] >= 1, stats


def test_the_controller_removes_a_session_the_card_reports_idle(controlled_agent):
    """The embedded controller in the loop: an echo flow set up through the agent, its session
    written with the ICMP lifetime as idle timeout; while the host pings it stays, once the pings
    stop the agent reports its entries idle and the controller removes the session and its entries
    from the card (the next ping is a session miss again)."""
    api, dataplane, tmp = controlled_agent
    logs = lambda: (tmp / "controller.log").read_text()[-3000:] + (tmp / "agent.log").read_text()[-2000:]
    ping = lambda seq: from_v6_host(ICMPv6EchoRequest(id=77, seq=seq, data=b"ping"))
    out = None
    for seq in range(10):
        dataplane.send(V6_PORT, ping(seq))
        out = dataplane.poll(V4_PORT, timeout=1)
        if out is not None:
            break
    assert out is not None, logs()
    sessions = lambda: [s for s in api.call("GET", "/sessions?protocol=ICMP")[1]["sessions"] if s["ipv6Port"] == 77]
    assert len(sessions()) == 1
    for seq in range(100, 100 + 4 * ICMP_TIMEOUT):   # pings for twice the lifetime: the session stays
        dataplane.send(V6_PORT, ping(seq))
        assert Ether(dataplane.poll(V4_PORT, timeout=1))[IP].src.startswith("192.0.2."), logs()
        time.sleep(0.5)
    assert len(sessions()) == 1, "hit on the card, never reported idle"
    deadline = time.monotonic() + ICMP_TIMEOUT + 5
    while sessions() and time.monotonic() < deadline:
        time.sleep(0.3)
    assert sessions() == [], logs()
    stats = api.call("GET", "/stats")[1]
    assert stats["idleNotifications"] >= 1, stats
    while dataplane.poll(V4_PORT, timeout=0.3) is not None:
        pass
    # the entries left the card: a ping is a session miss the controller sets up afresh
    dataplane.send(V6_PORT, ping(999))
    assert dataplane.poll(V4_PORT, timeout=3) is not None, logs()
    assert api.call("GET", "/stats")[1]["packetIn.1"] > stats.get("packetIn.1", 0), "punted as a session miss"
