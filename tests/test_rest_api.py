"""The REST API (core's Nat64Resource) as the embedded controller serves it: every endpoint,
bad input answered 4xx naming the field, concurrent allocations, and state that survives a
restart. No switch is needed: the configured ones are simply not reachable.

The same requests are meant for the ONOS app (same paths and JSON): NAT64FABRIC_URL and
NAT64FABRIC_USER point the suite at a running instance instead. No ONOS runs on our machines,
so that path has not run."""
import base64
import concurrent.futures
import http.client
import json
import os
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pytest

from harness import ROOT
from switch_process import free_tcp_port   # mininet/ is on the path (harness/__init__.py)

CONTROLLER = ROOT / "bin" / "nat64fabric-controller"


CONFIG = {
    "apps": {"org.nat64fabric.app": {"nat64": {
        "pool6": "64:ff9b::/96",
        "pool4": {"addresses": ["192.0.2.0/30"], "tcpPorts": [1, 65535], "udpPorts": [1, 65535], "blockSize": 64,
                  "blocksPerSubscriber": 64},
        "eamt": [{"ipv6Prefix": "2001:db8:6::/120", "ipv4Prefix": "198.18.6.0/24"}],
        "staticBib": [{"protocol": "TCP", "ipv6Address": "2001:db8::80", "ipv6Port": 80,
                       "ipv4Address": "192.0.2.1", "ipv4Port": 80}],
    }}},
    "devices": {"device:border1": {
        "basic": {"managementAddress": "grpc://127.0.0.1:{port}?device_id=1"},
        "nat64fabric": {"role": "BORDER", "routerMac": "00:00:00:00:b1:01", "ipv4": "198.51.100.1",
                        "ipv6": "2001:db8:ff::1", "routes": []}}},
}


# CONFIG with a second switch and links between the two: ONOS's netcfg form (docs/netcfg.md)
LINKED = {**CONFIG,
          "devices": {**CONFIG["devices"], "device:leaf1": {
              "basic": {"managementAddress": "grpc://127.0.0.1:{port}?device_id=2"},
              "nat64fabric": {"role": "EDGE", "routerMac": "00:00:00:00:a1:01"}}},
          "links": {"device:leaf1/2-device:border1/1": {"basic": {}},
                    "device:border1/4-device:leaf1/4": {"basic": {"type": "indirect", "bidirectional": False}}}}


class Api:
    def __init__(self, url, user=None):
        self.url = url.rstrip("/")
        self.user = user

    def headers(self):
        """What every request carries: the credentials, when there are any."""
        if not self.user:
            return {}
        return {"Authorization": "Basic " + base64.b64encode(self.user.encode()).decode()}

    def call(self, method, path, body=None, headers=None, context=None):
        data = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        for k, v in (self.headers() if headers is None else headers).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=30, context=context) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            text = e.read()
            try:
                return e.code, json.loads(text)
            except ValueError:                   # not JSON: a server stopping, or a bug the test then names
                return e.code, {"notJson": text[:200].decode(errors="replace")}


class Controller:
    """The embedded controller on a configuration whose "{port}" is the switch's gRPC port."""

    def __init__(self, tmp, config=CONFIG, switch_port=None):
        self.tmp = tmp
        self.port = free_tcp_port()
        config = json.loads(json.dumps(config).replace("{port}", str(switch_port or free_tcp_port())))
        (tmp / "fabric.json").write_text(json.dumps(config))
        self.proc = None

    def command(self, *extra):
        return [str(CONTROLLER), "--config", str(self.tmp / "fabric.json"), "--state", str(self.tmp / "state"),
                "--p4info", str(ROOT / "p4" / "build" / "p4info.txt"),
                "--device-config", str(ROOT / "p4" / "build" / "device_config.bin"), "--rest-port", str(self.port),
                *extra]

    def start(self, *extra, scheme="http", context=None):
        self.proc = subprocess.Popen(self.command(*extra), stdout=open(self.tmp / "controller.log", "a"),
                                     stderr=subprocess.STDOUT)
        api = Api(f"{scheme}://127.0.0.1:{self.port}/onos/nat64fabric")
        deadline = time.time() + 60
        while time.time() < deadline:
            assert self.proc.poll() is None, (self.tmp / "controller.log").read_text()
            try:
                # the credentials file is written at first start, before the REST API listens
                api.user = (self.tmp / "state" / "rest-credentials").read_text().strip()
                api.call("GET", "/stats", context=context)
                return api
            except OSError:
                time.sleep(0.2)
        raise AssertionError("the REST API did not come up: " + (self.tmp / "controller.log").read_text())

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=20)


@pytest.fixture(scope="module")
def controller(tmp_path_factory):
    if not CONTROLLER.exists():
        pytest.fail("bin/nat64fabric-controller is missing: run `make build` first (make test does)")
    c = Controller(tmp_path_factory.mktemp("rest"))
    c.api = c.start()
    yield c
    c.stop()


@pytest.fixture
def api(controller):
    if os.environ.get("NAT64FABRIC_URL"):
        return Api(os.environ["NAT64FABRIC_URL"], os.environ.get("NAT64FABRIC_USER"))
    return controller.api


def test_pools_show_the_configuration(api):
    status, body = api.call("GET", "/pools")
    assert status == 200
    assert body["pool6"] == "64:ff9b::/96"
    assert body["pool4"]["addresses"] == ["192.0.2.0/30"]
    assert body["pool4"]["tcpPorts"] == [1, 65535] and body["pool4"]["blockSize"] == 64
    # the static entry of the configuration holds TCP 192.0.2.1:80 in a block
    assert any(b["protocol"] == "TCP" and b["firstPort"] <= 80 <= b["lastPort"] for b in body["blocks"])


def test_eamt_add_list_remove(api):
    status, body = api.call("POST", "/eamt", {"ipv6Prefix": "2001:db8:7::/120", "ipv4Prefix": "198.18.7.0/24"})
    assert status == 201, body
    assert body == {"ipv6Prefix": "2001:db8:7::/120", "ipv4Prefix": "198.18.7.0/24"}
    eamt = api.call("GET", "/eamt")[1]["eamt"]
    assert {"ipv6Prefix": "2001:db8:6::/120", "ipv4Prefix": "198.18.6.0/24"} in eamt
    assert {"ipv6Prefix": "2001:db8:7::/120", "ipv4Prefix": "198.18.7.0/24"} in eamt
    assert api.call("DELETE", "/eamt?ipv4Prefix=198.18.7.0/24")[0] == 200
    assert api.call("DELETE", "/eamt?ipv4Prefix=198.18.7.0/24") == \
        (404, {"field": "ipv4Prefix", "message": "no EAM maps 198.18.7.0/24"})


@pytest.mark.parametrize("body, field", [
    ({"ipv6Prefix": "2001:db8:8::/120"}, "eam.ipv4Prefix"),
    ({"ipv6Prefix": "2001:db8:8::/999", "ipv4Prefix": "198.18.8.0/24"}, "eam.ipv6Prefix"),
    ({"ipv6Prefix": "2001:db8:8::/120", "ipv4Prefix": "198.18.8.0/23"}, "eam"),
    ({"ipv6Prefix": "2001:db8:8::/126", "ipv4Prefix": "192.0.2.0/30"}, "eam.ipv4Prefix"),
    ({"ipv6Prefix": "2001:db8:6::/120", "ipv4Prefix": "198.18.9.0/24"}, "eam.ipv6Prefix"),
    (b"{not json", "body"),
    ([1, 2], "body"),
])
def test_bad_eams_are_refused_naming_the_field(api, body, field):
    status, answer = api.call("POST", "/eamt", body)
    assert status == 400 and answer["field"] == field, answer
    assert answer["message"]


def test_static_bib_add_list_remove(api):
    entry = {"protocol": "UDP", "ipv6Address": "2001:db8::53", "ipv6Port": 53, "ipv4Address": "192.0.2.2",
             "ipv4Port": 53}
    status, body = api.call("POST", "/bib", entry)
    assert status == 201, body
    assert body == dict(entry, static=True)
    assert dict(entry, static=True) in api.call("GET", "/bib?protocol=udp&static=true")[1]["bib"]
    assert all(b["protocol"] == "TCP" for b in api.call("GET", "/bib?protocol=TCP")[1]["bib"])
    assert api.call("DELETE", "/bib/UDP/2001:db8::53/53") == (200, dict(entry, static=True))
    status, body = api.call("DELETE", "/bib/UDP/2001:db8::53/53")
    assert status == 404 and body["field"] == "ipv6Address"


@pytest.mark.parametrize("body, field", [
    ({"protocol": "SCTP", "ipv6Address": "2001:db8::1", "ipv6Port": 1, "ipv4Address": "192.0.2.2", "ipv4Port": 1},
     "bib.protocol"),
    ({"protocol": "TCP", "ipv6Address": "2001:db8::1", "ipv6Port": 1, "ipv4Address": "203.0.113.1", "ipv4Port": 1},
     "bib.ipv4Address"),
    ({"protocol": "TCP", "ipv6Address": "2001:db8::1", "ipv6Port": 70000, "ipv4Address": "192.0.2.2",
      "ipv4Port": 1}, "bib.ipv6Port"),
    ({"protocol": "TCP", "ipv6Address": "2001:db8::zz", "ipv6Port": 1, "ipv4Address": "192.0.2.2", "ipv4Port": 1},
     "bib.ipv6Address"),
    ({"protocol": "TCP", "ipv6Address": "2001:db8::1", "ipv6Port": 1, "ipv4Address": "192.0.2.1", "ipv4Port": 80},
     "bib.ipv4Port"),
    ({"protocol": "TCP", "ipv6Address": "2001:db8::1", "ipv6Port": 1, "ipv4Address": "192.0.2.2"},
     "bib.ipv4Port"),
])
def test_bad_bib_entries_are_refused_naming_the_field(api, body, field):
    status, answer = api.call("POST", "/bib", body)
    assert status == 400 and answer["field"] == field, answer


@pytest.mark.parametrize("path, field", [
    ("/sessions?protocol=SCTP", "protocol"),
    ("/sessions?ipv6Address=nope", "ipv6Address"),
    ("/sessions?remote=300.1.1.1", "remote"),
    ("/bib?protocol=x", "protocol"),
])
def test_bad_filters_are_refused_naming_the_field(api, path, field):
    status, answer = api.call("GET", path)
    assert status == 400 and answer["field"] == field, answer


def test_bad_delete_is_refused_naming_the_field(api):
    status, answer = api.call("DELETE", "/bib/TCP/2001:db8::1/http")
    assert status == 400 and answer["field"] == "ipv6Port"
    status, answer = api.call("DELETE", "/eamt")
    assert status == 400 and answer["field"] == "ipv4Prefix"


def test_concurrent_allocations_of_one_transport_address_succeed_once(api):
    def add(i):
        return api.call("POST", "/bib", {"protocol": "TCP", "ipv6Address": f"2001:db8::{i + 1:x}", "ipv6Port": 443,
                                         "ipv4Address": "192.0.2.3", "ipv4Port": 443})
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        results = list(pool.map(add, range(32)))
    assert sorted(s for s, _ in results).count(201) == 1, results
    assert all(b["field"] == "bib.ipv4Port" for s, b in results if s != 201)


def test_concurrent_allocations_of_distinct_addresses_are_all_unique(api):
    # One subscriber: its ports fall in its own port blocks (another subscriber's block is refused).
    def add(i):
        return api.call("POST", "/bib", {"protocol": "UDP", "ipv6Address": "2001:db8:1::1",
                                         "ipv6Port": 5000 + i, "ipv4Address": "192.0.2.3", "ipv4Port": 6000 + i})
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        results = list(pool.map(add, range(48)))
    assert all(s == 201 for s, _ in results), results
    bib = [b for b in api.call("GET", "/bib?protocol=UDP")[1]["bib"] if b["ipv4Address"] == "192.0.2.3"]
    assert len({b["ipv4Port"] for b in bib}) == len(bib) == 48


def test_stats_and_devices(api):
    stats = api.call("GET", "/stats")[1]
    assert stats["bib"] >= 1 and stats["eamt"] >= 1 and "sessions" in stats
    devices = api.call("GET", "/devices")[1]["devices"]
    assert devices == [{"id": "device:border1", "role": "BORDER", "connected": False, "entries": 0}]


def test_links_are_the_configured_ones_down_while_their_switches_are(tmp_path):
    """No switch runs: every link is down (the embedded controller knows a link's state only from
    its switches' connections)."""
    c = Controller(tmp_path, config=LINKED)
    api = c.start()
    try:
        status, body = api.call("GET", "/links")
        assert status == 200
        assert body == {"links": [
            {"src": {"device": "device:border1", "port": 1}, "dst": {"device": "device:leaf1", "port": 2},
             "type": "DIRECT", "bidirectional": True, "up": False},
            {"src": {"device": "device:border1", "port": 4}, "dst": {"device": "device:leaf1", "port": 4},
             "type": "INDIRECT", "bidirectional": False, "up": False}]}
        status, body = api.call("GET", "/links?up=true")
        assert status == 400 and body["field"] == "up", body
    finally:
        c.stop()


def test_a_bad_link_stops_the_controller_naming_the_field(tmp_path):
    bad = json.loads(json.dumps(LINKED))
    bad["links"]["device:leaf1/2-device:border1/1"]["basic"]["type"] = "WIRELESS"
    c = Controller(tmp_path, config=bad)
    out = subprocess.run(c.command(), capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "fabric.json: links.device:leaf1/2-device:border1/1.basic.type: 'WIRELESS' is not a link type" in out.stderr, \
        out.stderr
    assert "Exception" not in out.stderr


def test_state_survives_a_restart(controller):
    api = controller.api
    assert api.call("POST", "/bib", {"protocol": "ICMP", "ipv6Address": "2001:db8::99", "ipv6Port": 7,
                                     "ipv4Address": "192.0.2.0", "ipv4Port": 7})[0] == 201
    assert api.call("POST", "/eamt", {"ipv6Prefix": "2001:db8:9::/128", "ipv4Prefix": "198.18.9.9/32"})[0] == 201
    before = api.call("GET", "/bib")[1], api.call("GET", "/eamt")[1], api.call("GET", "/pools")[1]["blocks"]
    controller.proc.kill()                       # a crash: only what was committed survives
    controller.proc.wait()
    controller.api = api = controller.start()
    after = api.call("GET", "/bib")[1], api.call("GET", "/eamt")[1], api.call("GET", "/pools")[1]["blocks"]
    assert after[0] == before[0]
    assert sorted(map(json.dumps, after[1]["eamt"])) == sorted(map(json.dumps, before[1]["eamt"]))
    assert after[2] == before[2]


# ---- access control -------------------------------------------------------------------------

def test_requests_without_the_credentials_are_refused(controller):
    api = controller.api
    for headers in ({}, {"Authorization": "Basic " + base64.b64encode(b"nat64:wrong").decode()},
                    {"Authorization": "Bearer x"}):
        status, body = api.call("GET", "/bib", headers=headers)
        assert status == 401 and body["field"] == "Authorization", body
        status, body = api.call("POST", "/eamt", {"ipv6Prefix": "2001:db8:5::/128", "ipv4Prefix": "198.18.5.5/32"},
                                headers=headers)
        assert status == 401, body
    assert "198.18.5.5/32" not in json.dumps(api.call("GET", "/eamt")[1])


def test_the_credentials_file_is_private_to_its_owner(controller):
    path = controller.tmp / "state" / "rest-credentials"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    user, password = path.read_text().strip().split(":")
    assert user and len(password) >= 20
    assert "credentials in " + str(path) in (controller.tmp / "controller.log").read_text()


def test_nat64ctl_reads_the_credentials_file(controller):
    nat64ctl = ROOT / "bin" / "nat64ctl"
    env = dict(os.environ, NAT64FABRIC_URL=controller.api.url,
               NAT64FABRIC_CREDENTIALS=str(controller.tmp / "state" / "rest-credentials"))
    out = subprocess.run([str(nat64ctl), "eamt"], capture_output=True, text=True, env=env, timeout=30)
    assert out.returncode == 0 and "198.18.6.0/24" in out.stdout, out.stderr
    env["NAT64FABRIC_CREDENTIALS"] = str(controller.tmp / "nowhere")
    out = subprocess.run([str(nat64ctl), "eamt"], capture_output=True, text=True, env=env, timeout=30)
    assert out.returncode != 0 and "401" in out.stderr and "--credentials" in out.stderr, out.stderr


def test_nat64ctl_says_in_one_line_what_went_wrong(tmp_path):
    """Ordinary failures end in one line and a non-zero exit, never a traceback: a missing CA file, a
    URL without a scheme, a server that is not the API, one that hangs up, an error without a
    field; mistyped words exit 2 with the usage, and a port is ASCII digits only."""
    import socket
    import socketserver
    nat64ctl = str(ROOT / "bin" / "nat64ctl")

    class NotTheApi(socketserver.StreamRequestHandler):
        def handle(self):
            line = self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b""):
                pass
            if b"/hangup" in line:
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            body, kind, status = ((b'{"message": "boom"}', "application/json", "500 Oops") if b"/nofield" in line
                                  else (b"<html>hello</html>", "text/html", "200 OK"))
            self.wfile.write(b"HTTP/1.1 " + status.encode() + b"\r\nContent-Type: " + kind.encode()
                             + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), NotTheApi)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    env = dict(os.environ, NAT64FABRIC_CREDENTIALS=str(tmp_path / "none"))
    try:
        for argv, expected in ((["--cacert", str(tmp_path / "ca.pem"), "--url", "https://127.0.0.1:1/x", "eamt"], "cannot read --cacert"),
                               (["--url", "127.0.0.1:8181/onos/nat64fabric", "eamt"], "not an http:// or https:// URL"),
                               (["--url", base + "/page", "eamt"], "not JSON"),
                               (["--url", base + "/hangup", "eamt"], "broke"),
                               (["--url", base + "/nofield", "eamt"], "500: boom")):
            out = subprocess.run([nat64ctl, *argv], capture_output=True, text=True, env=env, timeout=60)
            assert out.returncode == 1 and expected in out.stderr, (argv, out.stderr)
            assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
        for argv in (["bib", "add", "TCP", "2001:db8::1", "80"], ["bib", "list", "extra"], ["eamt", "remove"]):
            out = subprocess.run([nat64ctl, "--url", base, *argv], capture_output=True, text=True, env=env, timeout=60)
            assert out.returncode == 2 and out.stderr.startswith("usage: nat64ctl"), (argv, out.stderr)
        out = subprocess.run([nat64ctl, "--url", base, "bib", "add", "TCP", "2001:db8::1", "8_0", "192.0.2.1", "80"],
                             capture_output=True, text=True, env=env, timeout=60)
        assert out.returncode == 1 and "'8_0' is not a number" in out.stderr, out.stderr
    finally:
        server.shutdown()
        server.server_close()


def test_https_serves_the_api_and_plain_http_is_not_answered(tmp_path, pki):
    cert, key = pki / "server.crt", pki / "server.key"     # for 127.0.0.1, signed by pki/ca.crt
    c = Controller(tmp_path)
    context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    api = c.start("--rest-tls-cert", str(cert), "--rest-tls-key", str(key), scheme="https", context=context)
    try:
        status, body = api.call("GET", "/eamt", context=context)
        assert status == 200 and body["eamt"], body
        with pytest.raises((OSError, http.client.HTTPException)):
            Api(f"http://127.0.0.1:{c.port}/onos/nat64fabric", api.user).call("GET", "/eamt")
        untrusted = ssl.create_default_context()
        with pytest.raises(urllib.error.URLError):
            api.call("GET", "/eamt", context=untrusted)
        # nat64ctl says which TLS mistake it is, not "is the controller running?"
        nat64ctl = str(ROOT / "bin" / "nat64ctl")
        env = dict(os.environ, NAT64FABRIC_CREDENTIALS=str(tmp_path / "state" / "rest-credentials"))
        for url, cacert, expected in ((f"https://127.0.0.1:{c.port}/onos/nat64fabric", None, "give the CA that issued it"),
                                      (f"http://127.0.0.1:{c.port}/onos/nat64fabric", None, "use https://"),
                                      (f"https://127.0.0.1:{c.port}/onos/nat64fabric", pki / "ca.crt", None)):
            out = subprocess.run([nat64ctl, "--url", url, *(["--cacert", str(cacert)] if cacert else []), "eamt"],
                                 capture_output=True, text=True, env=env, timeout=60)
            if expected is None:
                assert out.returncode == 0, out.stderr
            else:
                assert out.returncode == 1 and expected in out.stderr and "is the controller running" not in out.stderr, \
                    (url, out.stderr)
    finally:
        c.stop()


@pytest.mark.parametrize("cert, key, option", [
    ("server.crt", "garbage.key", "--rest-tls-key"),      # a PEM block whose text is not base64
    ("server.crt", "client.key", "--rest-tls-key"),       # a key, but not the certificate's
    ("server.key", "server.key", "--rest-tls-cert"),      # a key where the certificate goes
    ("missing.crt", "server.key", "--rest-tls-cert"),
])
def test_unusable_tls_files_stop_the_controller_before_it_contacts_a_switch(tmp_path, pki, cert, key, option):
    (pki / "garbage.key").write_text("-----BEGIN PRIVATE KEY-----\n!!!not base64***\n-----END PRIVATE KEY-----\n")
    c = Controller(tmp_path)
    out = subprocess.run(c.command("--rest-tls-cert", str(pki / cert), "--rest-tls-key", str(pki / key)),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2, out.stderr
    first = out.stderr.splitlines()[0]
    assert first.startswith(f"nat64fabric-controller: {option} {pki / (key if option.endswith('key') else cert)}: "), out.stderr
    assert "Exception" not in out.stderr and "connected" not in out.stderr and not (tmp_path / "state").exists(), out.stderr


def test_a_non_loopback_address_without_tls_is_warned_about(tmp_path):
    c = Controller(tmp_path)
    c.start("--rest-addr", "0.0.0.0")
    c.stop()
    log = (tmp_path / "controller.log").read_text()
    assert "WARNING" in log and "without TLS" in log, log
