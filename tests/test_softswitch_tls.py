"""Who can reach softswitch's P4Runtime server: loopback only unless told otherwise (with a warning
for a non-loopback address without TLS), and TLS, with or without client certificates. Runs in the
test process's own network namespace, with a veth end as the non-loopback address."""
import socket
import subprocess
import time

import grpc
import pytest
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from harness import ROOT, netns
from harness.p4rt import P4RuntimeClient
from switch_process import SOFTSWITCH, SwitchProcess, TlsFiles, free_tcp_port

PROGRAM = ROOT / "softswitch" / "examples" / "l3_forwarding.p4"
OUTSIDE = "10.99.0.1"   # a non-loopback address of this namespace


@pytest.fixture(scope="module")
def outside_address():
    netns.enter_private_namespace()
    netns.delete_link("tls0")
    netns.run("ip", "link", "add", "tls0", "type", "veth", "peer", "name", "tls1")
    netns.run("ip", "addr", "add", f"{OUTSIDE}/24", "dev", "tls0")
    netns.run("ip", "link", "set", "tls0", "up")
    netns.run("ip", "link", "set", "tls1", "up")
    yield OUTSIDE
    netns.delete_link("tls0")


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    """(P4Info path, device config) of the example program, pushed over each connection tested."""
    return SwitchProcess({}).build_pipeline(PROGRAM, tmp_path_factory.mktemp("p4"))


def wait_until_ready(read_log):
    """Until softswitch printed its ready line: every start-up line (warnings included) is written by then."""
    deadline = time.monotonic() + 30
    while "softswitch ready" not in read_log():
        assert time.monotonic() < deadline, read_log()
        time.sleep(0.05)


@pytest.fixture
def run_switch(tmp_path):
    """Starts bin/softswitch run (no ports) through mininet/switch_process.py; stops it by PID."""
    started = []

    def start(grpc_addr="127.0.0.1", tls=None):
        switch = SwitchProcess({}, grpc_addr=grpc_addr, tls=tls, log_path=tmp_path / f"switch{len(started)}.log",
                               target="softswitch")
        started.append(switch.start())
        wait_until_ready(switch.log_text)
        return switch

    yield start
    for s in started:
        s.stop()


def reachable(host, port):
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def program_and_read(address, pipeline, credentials=None):
    """Becomes primary, sets the pipeline and reads every table entry; returns how many there are."""
    client = P4RuntimeClient(address, 1, credentials=credentials)
    try:
        assert client.arbitrate().status.code == 0
        client.set_pipeline(*pipeline)
        req = p4runtime_pb2.ReadRequest(device_id=1)
        req.entities.add().table_entry.SetInParent()
        return sum(len(r.entities) for r in client.stub.Read(req, timeout=10))
    finally:
        client.close()


def capabilities_error(address, credentials=None):
    """The error of a Capabilities call over this kind of channel, or None when it succeeds."""
    channel = grpc.secure_channel(address, credentials) if credentials else grpc.insecure_channel(address)
    try:
        p4runtime_pb2_grpc.P4RuntimeStub(channel).Capabilities(p4runtime_pb2.CapabilitiesRequest(), timeout=3)
        return None
    except grpc.RpcError as e:
        return e.code()
    finally:
        channel.close()


def test_default_is_loopback_only(outside_address, pipeline, tmp_path):
    port = free_tcp_port()
    log = tmp_path / "softswitch.log"
    with open(log, "w") as out:   # no address option at all: the default is what is tested
        proc = subprocess.Popen([str(SOFTSWITCH), "run", "--grpc-port", str(port)], stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        wait_until_ready(log.read_text)
        assert reachable("127.0.0.1", port)
        assert not reachable(outside_address, port), "P4Runtime must not answer on a non-loopback address by default"
        assert program_and_read(f"127.0.0.1:{port}", pipeline) == 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert "without TLS" not in log.read_text()


def test_non_loopback_without_tls_warns(outside_address, run_switch):
    sw = run_switch(grpc_addr="0.0.0.0")
    assert reachable(outside_address, sw.grpc_port)
    assert "WARNING P4Runtime listens on 0.0.0.0 without TLS" in sw.log_text()


def test_grpc_server_addr_names_one_address(outside_address, pipeline, run_switch):
    sw = run_switch(grpc_addr=outside_address)
    assert reachable(outside_address, sw.grpc_port) and not reachable("127.0.0.1", sw.grpc_port)
    assert f"WARNING P4Runtime listens on {outside_address} without TLS" in sw.log_text()
    assert program_and_read(sw.address, pipeline) == 0


def test_tls_serves_a_tls_client_and_refuses_plaintext(outside_address, pki, pipeline, run_switch):
    sw = run_switch(grpc_addr="0.0.0.0", tls=TlsFiles(pki / "server.crt", pki / "server.key"))
    assert "without TLS" not in sw.log_text()
    creds = grpc.ssl_channel_credentials(root_certificates=(pki / "ca.crt").read_bytes())
    assert program_and_read(sw.address, pipeline, creds) == 0
    assert capabilities_error(sw.address, creds) is None
    assert capabilities_error(sw.address) is not None, "a plaintext client must not get an answer"


def test_client_auth_admits_only_certificates_of_the_ca(pki, pipeline, run_switch):
    sw = run_switch(tls=TlsFiles(pki / "server.crt", pki / "server.key", client_ca=pki / "ca.crt"))
    root = (pki / "ca.crt").read_bytes()
    address = sw.address

    def creds(name):
        return grpc.ssl_channel_credentials(root_certificates=root, private_key=(pki / f"{name}.key").read_bytes(),
                                            certificate_chain=(pki / f"{name}.crt").read_bytes())

    assert program_and_read(address, pipeline, creds("client")) == 0
    assert capabilities_error(address, grpc.ssl_channel_credentials(root_certificates=root)) is not None, \
        "a client without a certificate must not get an answer"
    assert capabilities_error(address, creds("stranger")) is not None, "nor one whose certificate another CA signed"
    assert capabilities_error(address) is not None, "nor a plaintext client"


@pytest.mark.parametrize("options, message", [
    (["--grpc-server-ssl"], "TLS takes --grpc-server-ssl with both"),
    (["--grpc-server-cert", "x.crt", "--grpc-server-key", "x.key"], "TLS takes --grpc-server-ssl with both"),
    (["--grpc-server-ssl", "--grpc-server-cert", "/nonexistent.crt", "--grpc-server-key", "/nonexistent.key"],
     "cannot use TLS certificate /nonexistent.crt"),
    (["--grpc-server-addr", "9559"], "--grpc-server-addr takes ADDR:PORT"),
])
def test_bad_listen_options_are_refused_with_a_reason(options, message):
    proc = subprocess.run([str(SOFTSWITCH), "run", "--grpc-port", "0", *options], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode != 0 and message in proc.stderr, proc.stderr


def test_a_key_the_tls_library_cannot_read_is_one_line_not_a_stack_trace(pki, tmp_path):
    garbage = tmp_path / "garbage.key"
    garbage.write_text("-----BEGIN PRIVATE KEY-----\n!!!not base64***\n-----END PRIVATE KEY-----\n")
    for key in (garbage, pki / "server.crt"):   # not base64; a certificate where the key goes
        proc = subprocess.run([str(SOFTSWITCH), "run", "--grpc-port", "0", "--grpc-server-ssl", "--grpc-server-cert",
                               str(pki / "server.crt"), "--grpc-server-key", str(key)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1 and "cannot use the TLS files" in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Exception" not in proc.stderr, proc.stderr
