"""The embedded controller reaches a switch over TLS: a grpcs:// management address, the CA it
trusts (--p4rt-ca-cert) and, for a switch that asks for one, its own certificate (--p4rt-cert,
--p4rt-key). A switch whose certificate the controller cannot verify is not programmed."""
import copy
import time

import pytest

from harness import netns
from switch_process import SwitchProcess, TlsFiles
from test_rest_api import CONFIG, CONTROLLER, Controller

TLS_CONFIG = copy.deepcopy(CONFIG)
TLS_CONFIG["devices"]["device:border1"]["basic"]["managementAddress"] = "grpcs://127.0.0.1:{port}?device_id=1"


@pytest.fixture
def tls_switch(pki):
    if not CONTROLLER.exists():
        pytest.fail("bin/nat64fabric-controller is missing: run `make build` first (make test does)")
    netns.enter_private_namespace()
    switch = SwitchProcess({}, tls=TlsFiles(pki / "server.crt", pki / "server.key", pki / "ca.crt")).start()
    yield switch
    switch.stop()


def run(tmp_path, switch, *extra, timeout, until=None):
    """Whether the switch was reconciled within the timeout (the controller logs it once written), and the log;
    `until`: a line of the log after which the wait ends sooner (a refused handshake: it will not be)."""
    c = Controller(tmp_path, config=TLS_CONFIG, switch_port=switch.grpc_port)
    c.start(*extra)
    log = tmp_path / "controller.log"
    try:
        deadline = time.time() + timeout
        while time.time() < deadline and "): connected, pipeline" not in log.read_text() \
                and (until is None or until not in log.read_text()):
            time.sleep(0.3)
        return "): connected, pipeline" in log.read_text(), log.read_text()
    finally:
        c.stop()


def test_the_controller_programs_a_switch_over_mutual_tls(tls_switch, pki, tmp_path):
    ok, log = run(tmp_path, tls_switch, "--p4rt-ca-cert", str(pki / "ca.crt"), "--p4rt-cert", str(pki / "client.crt"),
                  "--p4rt-key", str(pki / "client.key"), timeout=60)
    assert ok, log


@pytest.mark.parametrize("extra", [
    ("--p4rt-cert", "client.crt", "--p4rt-key", "client.key"),                         # the switch's CA unknown
    ("--p4rt-ca-cert", "ca.crt"),                                                      # no client certificate
    ("--p4rt-ca-cert", "ca.crt", "--p4rt-cert", "stranger.crt", "--p4rt-key", "stranger.key"),  # another CA's
])
def test_without_the_right_certificates_the_switch_is_not_programmed(tls_switch, pki, tmp_path, extra):
    args = [str(pki / a) if a.endswith((".crt", ".key")) else a for a in extra]
    ok, log = run(tmp_path, tls_switch, *args, timeout=8, until="not reachable yet")
    assert not ok, log
    assert "not reachable yet" in log, log
    if "--p4rt-ca-cert" not in extra:      # the switch's certificate not trusted: the log says it is TLS, and what to check
        assert "the TLS handshake failed: check --p4rt-ca-cert" in log, log
