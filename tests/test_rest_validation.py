"""Bad input to the REST API and the config file, as a tester would send it: never a 5xx, always
a 4xx naming the field with the real reason, bodies over 1 MiB answered 413 whether or not they
say their length, errors that quote only a short prefix of the bad value. Runs against the
embedded controller (the `Controller` of test_rest_api.py, with its configuration: pool4
192.0.2.0/30 with TCP/UDP ports 1-65535, the switch border1 at 198.51.100.1 / 2001:db8:ff::1).
Last, the API's own Swagger 2.0 description is validated and schemathesis fuzzes every operation
from it, on a controller of its own."""
import http.client
import json
import subprocess
import sys
import urllib.parse

import openapi_spec_validator
import pytest

from harness import ROOT
from test_rest_api import CONFIG, CONTROLLER, Controller

NAT = "apps.org.nat64fabric.app.nat64"
MIB = 1 << 20


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    if not CONTROLLER.exists():
        pytest.fail("bin/nat64fabric-controller is missing: run `make build` first (make test does)")
    c = Controller(tmp_path_factory.mktemp("rest-validation"))
    api = c.start()
    yield api
    c.stop()


def headers(api):
    """The headers the fixture's client sends (credentials, once the API requires them)."""
    return api.headers() if hasattr(api, "headers") else {}


def raw(api, method, path, body=None, extra=None, chunked=False):
    """One request over http.client, for what urllib cannot send (chunked bodies, odd headers)."""
    url = urllib.parse.urlsplit(api.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    h = dict(headers(api), **(extra or {}))
    conn.request(method, url.path + path, body=body, headers=h, encode_chunked=chunked)
    r = conn.getresponse()
    status, data = r.status, r.read()
    conn.close()
    return status, json.loads(data) if data else None


def post(api, path, body):
    return raw(api, "POST", path, json.dumps(body).encode() if not isinstance(body, bytes) else body,
               {"Content-Type": "application/json"})


def bib(ipv6="2001:db8:5::1", port6=80, ipv4="192.0.2.2", port4=8080, protocol="TCP"):
    return {"protocol": protocol, "ipv6Address": ipv6, "ipv6Port": port6, "ipv4Address": ipv4, "ipv4Port": port4}


SCOPED = "fe80::1%eth0"


@pytest.mark.parametrize("method, path, body, field", [
    ("POST", "/bib", bib(ipv6=SCOPED), "bib.ipv6Address"),
    ("DELETE", "/bib/TCP/" + urllib.parse.quote(SCOPED) + "/80", None, "ipv6Address"),
    ("GET", "/sessions?ipv6Address=" + urllib.parse.quote(SCOPED), None, "ipv6Address"),
    ("POST", "/eamt", {"ipv6Prefix": SCOPED + "/128", "ipv4Prefix": "198.18.0.1/32"}, "eam.ipv6Prefix"),
], ids=["post-bib", "delete-bib", "sessions", "post-eamt"])
def test_scoped_addresses_are_400_naming_the_field(api, method, path, body, field):
    status, answer = raw(api, method, path, json.dumps(body).encode() if body else None,
                         {"Content-Type": "application/json"} if body else None)
    assert (status, answer["field"]) == (400, field), answer
    assert "zone" in answer["message"]


@pytest.mark.parametrize("ipv6, why", [
    ("::", "unspecified"), ("::1", "loopback"), ("ff02::1", "multicast"), ("fe80::1", "link-local"),
    ("64:ff9b::c000:201", "inside pool6"), ("２００１:db8::1", "not an IP address"),
])
def test_static_bib_needs_a_global_unicast_host_outside_pool6(api, ipv6, why):
    status, answer = post(api, "/bib", bib(ipv6=ipv6))
    assert (status, answer["field"]) == (400, "bib.ipv6Address"), answer
    assert why in answer["message"], answer


def test_static_bib_errors_say_the_real_reason(api):
    status, answer = post(api, "/bib", bib(port4=0))
    assert (status, answer["field"]) == (400, "bib.ipv4Port")
    assert answer["message"] == "port 0 is outside the TCP range 1–65535 (pool4.tcpPorts)"
    assert post(api, "/bib", bib(ipv6="2001:db8:5::7", ipv4="192.0.2.2", port4=7000))[0] == 201
    status, answer = post(api, "/bib", bib(ipv6="2001:db8:5::7", port6=81, ipv4="192.0.2.3", port4=7000))
    assert (status, answer["field"]) == (400, "bib.ipv4Address")
    assert "2001:db8:5::7 is paired with 192.0.2.2 (paired pooling, RFC 6888 REQ-2)" in answer["message"]
    status, answer = post(api, "/bib", bib(ipv6="2001:db8:5::7", port6=82, ipv4="192.0.2.2", port4=7000))
    assert (status, answer["field"]) == (400, "bib.ipv4Port")
    assert "in use" in answer["message"], answer
    status, answer = post(api, "/bib", bib(ipv6="2001:db8:5::8", ipv4="192.0.2.2", port4=7001))
    assert (status, answer["field"]) == (400, "bib.ipv4Port")
    assert "port block" in answer["message"] and "another subscriber" in answer["message"], answer


@pytest.mark.parametrize("eam, field, why", [
    ({"ipv6Prefix": "2001:db8:9::/128", "ipv4Prefix": "127.0.0.1/32"}, "eam.ipv4Prefix", "loopback"),
    ({"ipv6Prefix": "2001:db8:9::/104", "ipv4Prefix": "224.0.0.0/8"}, "eam.ipv4Prefix", "multicast"),
    ({"ipv6Prefix": "2001:db8:9::/128", "ipv4Prefix": "0.0.0.0/32"}, "eam.ipv4Prefix", "this network"),
    ({"ipv6Prefix": "2001:db8:9::/128", "ipv4Prefix": "198.51.100.1/32"}, "eam.ipv4Prefix", "border1"),
    ({"ipv6Prefix": "2001:db8:ff::1/128", "ipv4Prefix": "198.18.0.1/32"}, "eam.ipv6Prefix", "border1"),
    ({"ipv6Prefix": "ff02::/120", "ipv4Prefix": "198.18.1.0/24"}, "eam.ipv6Prefix", "multicast"),
    ({"ipv6Prefix": "64:ff9b::/120", "ipv4Prefix": "198.18.1.0/24"}, "eam.ipv6Prefix", "pool6"),
    ({"ipv6Prefix": "2001:db8:9::/126", "ipv4Prefix": "192.0.2.0/30"}, "eam.ipv4Prefix", "pool4"),
])
def test_eams_of_reserved_pool_or_switch_addresses_are_refused(api, eam, field, why):
    status, answer = post(api, "/eamt", eam)
    assert (status, answer["field"]) == (400, field), answer
    assert why in answer["message"], answer


def upload(api, tmp_path, size, chunked):
    """POSTs `size` bytes to /bib with curl, which streams a large body as clients do (with
    `Expect: 100-continue`, reading the answer while it sends). Returns the status and the body."""
    big = tmp_path / "big.json"
    big.write_bytes(b'{"x": "' + b"a" * size + b'"}')
    args = ["curl", "-s", "-o", str(tmp_path / "answer"), "-w", "%{http_code}", "-X", "POST",
            "-H", "Content-Type: application/json", "--data-binary", f"@{big}", api.url + "/bib"]
    for k, v in headers(api).items():
        args += ["-H", f"{k}: {v}"]
    if chunked:
        args += ["-H", "Transfer-Encoding: chunked"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
    answer = tmp_path / "answer"
    return int(proc.stdout), answer.read_bytes() if answer.exists() else b""


def test_bodies_over_one_mebibyte_are_413_while_read(api, tmp_path):
    status, body = upload(api, tmp_path, 10 * MIB, chunked=False)
    assert status == 413
    assert json.loads(body) == {"field": "body", "message": "the body is larger than 1048576 bytes (1 MiB)"}
    # Without a length (chunked) the body is cut off once 1 MiB is read; the server may close the
    # connection before curl has read the answer's body, so only the status is certain.
    assert upload(api, tmp_path, 10 * MIB, chunked=True)[0] == 413
    assert upload(api, tmp_path, MIB - 100, chunked=True)[0] == 400, "below the limit: read, and refused as JSON"


def test_bad_tokens_are_quoted_short(api):
    status, answer = post(api, "/bib", b'{"protocol": ' + b"x" * 500_000 + b"}")
    assert (status, answer["field"]) == (400, "body")
    assert len(answer["message"]) < 300
    status, answer = post(api, "/bib", bib(protocol="T" * 100_000))
    assert (status, answer["field"]) == (400, "bib.protocol")
    assert len(answer["message"]) < 200


@pytest.mark.parametrize("body, field, why", [
    (b"[" * 100_000, "body", "deeper"),
    (b'{"a":' * 50_000, "body", "deeper"),
    (b'{"protocol": "TCP", "protocol": "UDP"}', "body", "Duplicate field 'protocol'"),
    (json.dumps(dict(bib(), static=True)).encode(), "bib.static", "unknown field"),
    (json.dumps(dict(bib(), ipv4port=1)).encode(), "bib.ipv4port", "did you mean 'ipv4Port'"),
    (b"{} {}", "body", "not JSON"),
])
def test_deep_duplicate_and_unknown_json_is_refused(api, body, field, why):
    status, answer = post(api, "/bib", body)
    assert (status, answer["field"]) == (400, field), answer
    assert why in answer["message"], answer


@pytest.mark.parametrize("path, field", [
    ("/bib?static=maybe", "static"),
    ("/bib?static=TRUE", "static"),
    ("/bib?statik=true", "statik"),
    ("/bib?protocol=TCP&protocol=UDP", "protocol"),
    ("/sessions?ipv4Address=%EF%BC%91.0.2.1", "ipv4Address"),
    ("/pools?x=1", "x"),
])
def test_bad_query_values_and_parameters_are_refused(api, path, field):
    status, answer = raw(api, "GET", path)
    assert (status, answer["field"]) == (400, field), answer


def test_container_errors_are_json_4xx(api):
    assert raw(api, "GET", "/nothing")[0] == 404
    assert raw(api, "PUT", "/bib")[1]["field"] == "method"
    assert raw(api, "POST", "/bib", b"x", {"Content-Type": "text/plain"}) == \
        (415, {"field": "Content-Type", "message": "Unsupported Media Type"})
    # a URI Jetty cannot read is JSON naming `request` whatever the method
    for method in ("GET", "DELETE", "PUT", "PATCH", "OPTIONS"):
        status, body = raw(api, method, "/bib/TCP/[2001:db8::1]/80")
        assert status == 400 and body == {"field": "request", "message": body["message"]}, (method, body)


def test_a_body_is_json_in_utf8_not_a_wildcard_or_another_charset(api):
    """RFC 9110 8.3 (a wildcard names no media type) and RFC 8259 8.1 (JSON is UTF-8): 415 naming the header."""
    body = json.dumps({"ipv6Prefix": "2001:db8:77::/128", "ipv4Prefix": "198.18.77.1/32"}).encode()
    for kind in ("*/*", "application/*", "application/json; charset=latin1", "application/json; charset=utf-16"):
        status, answer = raw(api, "POST", "/eamt", body, {"Content-Type": kind})
        assert (status, answer["field"]) == (415, "Content-Type"), (kind, answer)
    assert raw(api, "POST", "/eamt", body, {"Content-Type": "application/json; charset=UTF-8"})[0] == 201
    assert raw(api, "DELETE", "/eamt?ipv4Prefix=198.18.77.1/32")[0] == 200


def test_addresses_are_written_as_their_rfcs_write_them(api):
    """IPv4-mapped text is no IPv4 address; an IPv6 field takes it as the IPv6 address it is, refused
    by name where a host's goes; a prefix length has no leading zero; link-local IPv4 is no EAM's."""
    status, answer = post(api, "/bib", bib(ipv4="::ffff:192.0.2.2"))
    assert (status, answer["field"]) == (400, "bib.ipv4Address") and "IPv4-mapped" in answer["message"], answer
    status, answer = post(api, "/bib", bib(ipv6="::ffff:192.0.2.1"))
    assert (status, answer["field"]) == (400, "bib.ipv6Address") and "IPv4-mapped" in answer["message"], answer
    for eam, field, why in (({"ipv6Prefix": "2001:db8:78::/120", "ipv4Prefix": "198.18.78.0/024"}, "eam.ipv4Prefix",
                             "not a prefix length"),
                            ({"ipv6Prefix": "2001:db8:78::/120", "ipv4Prefix": "169.254.1.0/24"}, "eam.ipv4Prefix",
                             "link-local")):
        status, answer = post(api, "/eamt", eam)
        assert (status, answer["field"]) == (400, field) and why in answer["message"], (eam, answer)


def test_a_405_names_the_methods_in_its_allow_header(api):
    """RFC 9110 15.5.6: the origin server MUST generate an Allow header in a 405 response."""
    url = urllib.parse.urlsplit(api.url)
    for method, path in (("PUT", "/eamt"), ("PATCH", "/bib"), ("DELETE", "/pools"), ("POST", "/stats")):
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        conn.request(method, url.path + path, headers=headers(api))
        r = conn.getresponse()
        body = json.loads(r.read())
        allow = r.getheader("Allow")
        conn.close()
        assert r.status == 405 and allow and "GET" in allow and method not in allow.split(","), (method, path, allow)
        assert body["field"] == "method" and allow in body["message"], body


def test_without_credentials_every_request_is_401_before_anything_else_is_read(api):
    """Authentication comes first: unknown paths, wrong methods, media types and sizes, even a
    Content-Length past 2^31, are all 401 to a client without the credentials."""
    url = urllib.parse.urlsplit(api.url)
    for method, path, extra in (("GET", "/nope", {}), ("PUT", "/eamt", {}),
                                ("POST", "/eamt", {"Content-Type": "text/plain", "Content-Length": "1"}),
                                ("POST", "/eamt", {"Content-Type": "application/json", "Content-Length": "3000000000"})):
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
        conn.putrequest(method, url.path + path)
        for k, v in extra.items():
            conn.putheader(k, v)
        # the first byte of a declared body: Jetty hands a request on once its body starts
        # (one declared and never sent waits for the connection's idle timeout, 30 s)
        conn.endheaders(b"{" if extra else None)
        r = conn.getresponse()
        answer = json.loads(r.read())
        assert (r.status, answer["field"]) == (401, "Authorization"), (method, path, extra)
        assert "/" + "tmp" not in answer["message"] and "STATE/rest-credentials" in answer["message"], \
            "where the state lives is no stranger's business"
        conn.close()


def test_clients_that_connect_and_stall_hold_up_no_one(api):
    """Fifty connections that never finish their request's head (slowloris): a client with the
    credentials is still answered at once, and a URI the server cannot read is answered in JSON."""
    import socket
    import time
    url = urllib.parse.urlsplit(api.url)
    stalled = []
    try:
        for _ in range(50):
            s = socket.create_connection((url.hostname, url.port), timeout=10)
            s.sendall(f"GET {url.path}/eamt HTTP/1.1\r\nHost: x\r\n".encode())
            stalled.append(s)
        start = time.monotonic()
        assert api.call("GET", "/eamt")[0] == 200
        assert time.monotonic() - start < 5
    finally:
        for s in stalled:
            s.close()
    status, answer = raw(api, "GET", "/%zz")
    assert status == 400 and answer["field"] == "request", answer


def test_lengths_and_media_types_that_cannot_be_read_are_4xx_naming_the_header(api):
    url = urllib.parse.urlsplit(api.url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=60)
    conn.putrequest("POST", url.path + "/eamt")
    for k, v in dict(headers(api), **{"Content-Type": "application/json", "Content-Length": "3000000000"}).items():
        conn.putheader(k, v)
    conn.endheaders(b"[")   # the body's start, and no more
    r = conn.getresponse()
    assert (r.status, json.loads(r.read())["field"]) == (413, "body")
    conn.close()
    body = json.dumps({"ipv6Prefix": "2001:db8:9::/120", "ipv4Prefix": "198.18.9.0/24"}).encode()
    assert raw(api, "POST", "/eamt", body)[1] == \
        {"field": "Content-Type", "message": "missing: a body is application/json"}
    assert raw(api, "POST", "/eamt", body)[0] == 415
    status, answer = raw(api, "POST", "/eamt", body, {"Content-Type": "garbage"})
    assert (status, answer["field"]) == (400, "Content-Type"), answer
    assert "198.18.9.0/24" not in json.dumps(api.call("GET", "/eamt")[1]), "none of them added the EAM"


@pytest.mark.parametrize("body, why", [
    (b'{"ipv6Prefix": "2001:db8:91::/120", "ipv4Prefix": "198.18.91.0\xc0\xaf24"}', "not UTF-8"),
    (b'{"ipv6Prefix": "2001:db8:91::/120", "ipv4Prefix": "198.18.91.0\xe0\x80\xaf24"}', "not UTF-8"),
    (b'{"ipv6Prefix": ' + b"9" * 900_000 + b"}", "a number longer than 100 characters"),
])
def test_bodies_that_are_not_utf8_or_hold_huge_numbers_are_refused_at_once(api, body, why):
    status, answer = post(api, "/eamt", body)
    assert (status, answer["field"]) == (400, "body"), answer
    assert why in answer["message"], answer


def test_the_basic_schemes_name_is_case_insensitive(api):
    token = headers(api)["Authorization"].split(" ", 1)[1]
    for scheme in ("basic", "BASIC"):
        assert api.call("GET", "/eamt", headers={"Authorization": f"{scheme} {token}"})[0] == 200


@pytest.mark.parametrize("entry, field, why", [
    (bib(port6=0), "bib.ipv6Port", "port 0 is reserved"),
    (bib(ipv6="2001:db8:ff::1"), "bib.ipv6Address", "the address of the switch"),
    (bib(ipv6="::ffff:0:c000:209"), "bib.ipv6Address", "IPv4-translated"),
    (bib(ipv6="2001:db8:6::5"), "bib.ipv6Address", "inside the EAM"),
])
def test_static_bib_entries_that_could_never_serve_are_refused(api, entry, field, why):
    status, answer = post(api, "/bib", entry)
    assert (status, answer["field"]) == (400, field), answer
    assert why in answer["message"], answer


def test_the_netcfgs_entries_are_not_removed_by_the_api(api):
    """The config's EAM and static BIB entry come back at every start: removing them through the
    API would be undone by a restart (or make it fail once another entry took their place)."""
    status, answer = raw(api, "DELETE", "/eamt?ipv4Prefix=198.18.6.0/24")
    assert (status, answer["field"]) == (400, "ipv4Prefix") and NAT + ".eamt[0]" in answer["message"], answer
    status, answer = raw(api, "DELETE", "/bib/TCP/2001:db8::80/80")
    assert (status, answer["field"]) == (400, "ipv6Address") and NAT + ".staticBib[0]" in answer["message"], answer
    assert {"ipv6Prefix": "2001:db8:6::/120", "ipv4Prefix": "198.18.6.0/24"} in api.call("GET", "/eamt")[1]["eamt"]
    assert any(b["ipv6Address"] == "2001:db8::80" for b in api.call("GET", "/bib")[1]["bib"])


def test_no_input_gets_a_5xx(api):
    """A sweep of odd values through every field; none may reach a 500."""
    odd = ["", " ", "%", "%00", "\u0000", "1" * 70, "-1", "65536", "0x50", "1e3", "::ffff:1.2.3.4", "1.2.3.4/33",
           "2001:db8::/129", "１", "🙂", "null", "[]", "{}"]
    for v in odd:
        for body in (bib(ipv6=v), bib(ipv4=v), bib(protocol=v), {"ipv6Prefix": v, "ipv4Prefix": "198.18.0.0/24"},
                     {"ipv6Prefix": "2001:db8:1::/120", "ipv4Prefix": v}):
            for path in ("/bib", "/eamt"):
                status, answer = post(api, path, body)
                assert 400 <= status < 500, (path, body, answer)
        for body in (dict(bib(), ipv6Port=v), dict(bib(), ipv4Port=10 ** 20), dict(bib(), ipv6Port=[1])):
            assert 400 <= post(api, "/bib", body)[0] < 500, body
        q = urllib.parse.quote(v, safe="")
        for path in (f"/sessions?remote={q}", f"/bib?protocol={q}", f"/eamt?ipv4Prefix={q}",
                     f"/bib/TCP/{q}/80", f"/bib/{q}/2001:db8::1/80", f"/bib/TCP/2001:db8::1/{q}"):
            for method in ("GET", "DELETE"):
                status, answer = raw(api, method, path)
                assert status < 500, (method, path, answer)


def start_with(tmp_path, change):
    """Starts the controller on a changed copy of the fixture's config; returns its exit and first line."""
    config = json.loads(json.dumps(CONFIG).replace("{port}", "1"))
    change(config)
    (tmp_path / "fabric.json").write_text(json.dumps(config))
    proc = subprocess.run(
        [str(CONTROLLER), "--config", str(tmp_path / "fabric.json"), "--state", str(tmp_path / "state"),
         "--p4info", str(ROOT / "p4" / "build" / "p4info.txt"),
         "--device-config", str(ROOT / "p4" / "build" / "device_config.bin"), "--rest-port", "1"],
        capture_output=True, text=True, timeout=60)
    return proc.returncode, (proc.stderr or proc.stdout).splitlines()[0]


def nat(c):
    return c["apps"]["org.nat64fabric.app"]["nat64"]


def device(c):
    return c["devices"]["device:border1"]["nat64fabric"]


@pytest.mark.parametrize("change, field, why", [
    (lambda c: nat(c)["pool4"].update(blocksize=64), f"{NAT}.pool4.blocksize", "did you mean 'blockSize'?"),
    (lambda c: nat(c).update(pool7="x"), f"{NAT}.pool7", "did you mean 'pool6'?"),
    (lambda c: nat(c)["pool4"].update(tcpPorts=[9, 1]), f"{NAT}.pool4.tcpPorts", "range"),
    (lambda c: nat(c)["pool4"].update(holdSeconds=5), f"{NAT}.pool4.holdSeconds", "RFC 6888"),
    (lambda c: nat(c)["staticBib"][0].update(ipv4Address="192.0.2.9"), f"{NAT}.staticBib[0].ipv4Address",
     "not in pool4"),
    (lambda c: nat(c)["staticBib"][0].update(ipv6Address="::1"), f"{NAT}.staticBib[0].ipv6Address", "loopback"),
    (lambda c: nat(c)["eamt"].append({"ipv6Prefix": "2001:db8:9::/128", "ipv4Prefix": "127.0.0.1/32"}),
     f"{NAT}.eamt[1].ipv4Prefix", "loopback"),
    (lambda c: nat(c)["eamt"].append({"ipv6Prefix": "2001:db8:9::/128", "ipv4Prefix": "198.51.100.1/32"}),
     f"{NAT}.eamt[1].ipv4Prefix", "device:border1"),
    (lambda c: device(c).update(mtu=1000), "devices.device:border1.nat64fabric.mtu", "1280"),
    (lambda c: device(c).update(portMtu={"1": 1400}), "devices.device:border1.nat64fabric.portMtu",
     "did you mean 'portMtus'?"),
    (lambda c: c.update(links={"device:border1/1-device:leaf7/2": {"basic": {}}}),
     "links.device:border1/1-device:leaf7/2", "'device:leaf7' is not a switch of the fabric"),
    (lambda c: c.update(links={"device:border1/1-device:border1/600": {"basic": {}}}),
     "links.device:border1/1-device:border1/600", "not a data-plane port number (0-510)"),
    (lambda c: c.update(links={"device:border1/1-device:border1/2": {"basic": {"bidirectional": "yes"}}}),
     "links.device:border1/1-device:border1/2.basic.bidirectional", "true or false"),
])
def test_config_errors_name_the_path_in_the_users_file(tmp_path, change, field, why):
    code, line = start_with(tmp_path, change)
    assert code != 0
    assert f"fabric.json: {field}: " in line and why in line, line
    assert "Exception" not in line


def test_config_with_duplicate_keys_is_refused(tmp_path):
    text = json.dumps(CONFIG).replace("{port}", "1").replace('"pool6": "64:ff9b::/96"',
                                                              '"pool6": "64:ff9b::/96", "pool6": "2001:db8:64::/96"')
    (tmp_path / "fabric.json").write_text(text)
    proc = subprocess.run([str(CONTROLLER), "--config", str(tmp_path / "fabric.json"), "--state", str(tmp_path / "s"),
                           "--p4info", str(ROOT / "p4" / "build" / "p4info.txt"),
                           "--device-config", str(ROOT / "p4" / "build" / "device_config.bin")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0 and "Duplicate field 'pool6'" in proc.stderr, proc.stderr


def test_a_file_that_is_not_json_is_one_line_naming_it_once(tmp_path):
    config = tmp_path / "fabric.json"
    config.write_text('{"apps": {\n "x": 1')
    proc = subprocess.run([str(CONTROLLER), "--config", str(config), "--state", str(tmp_path / "s"),
                           "--p4info", str(ROOT / "p4" / "build" / "p4info.txt"),
                           "--device-config", str(ROOT / "p4" / "build" / "device_config.bin")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert proc.stderr.count(str(config)) == 1 and "is not JSON" in proc.stderr and "--help" not in proc.stderr


def test_the_api_serves_a_valid_description_of_itself(api):
    status, doc = raw(api, "GET", "/swagger.json")
    assert status == 200
    openapi_spec_validator.validate(doc)
    assert doc["basePath"] == urllib.parse.urlsplit(api.url).path
    assert set(doc["paths"]["/eamt"]["post"]["responses"]) >= {"201", "400", "401", "413", "415"}
    assert "200" not in doc["paths"]["/bib"]["post"]["responses"], "POST answers 201"
    assert doc["securityDefinitions"] == {"basicAuth": {"type": "basic"}} and doc["security"] == [{"basicAuth": []}]
    bodies = [p for ops in doc["paths"].values() for op in ops.values() for p in op["parameters"] if p["in"] == "body"]
    assert bodies and all("$ref" in p["schema"] for p in bodies), "every body has its schema"
    optional = {p["name"] for op in doc["paths"]["/sessions"].values() for p in op["parameters"]}
    assert optional == {"protocol", "ipv6Address", "ipv4Address", "remote", "offset", "limit"}
    assert not any(p["required"] for p in doc["paths"]["/sessions"]["get"]["parameters"]), "filters are optional"


def test_schemathesis_finds_no_server_error_and_answers_match_the_description(tmp_path):
    """Every operation fuzzed from the served description, valid and invalid data alike, with a
    fixed seed and a bounded number of examples (about a minute): no 5xx, and every answer
    conforms to the description (status, content type, schema)."""
    c = Controller(tmp_path)
    api = c.start()
    try:
        args = [sys.executable, "-m", "schemathesis.cli", "run", api.url + "/swagger.json", "--base-url", api.url,
                "--checks", "all", "--data-generation-method", "all", "--hypothesis-max-examples", "60",
                "--hypothesis-seed", "64", "--hypothesis-deadline", "None", "--request-timeout", "20000"]
        for name, value in headers(api).items():
            args += ["-H", f"{name}: {value}"]
        # In tmp_path: hypothesis keeps its example database in the working directory.
        proc = subprocess.run(args, capture_output=True, text=True, timeout=240, cwd=tmp_path)
    finally:
        c.stop()
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "not_a_server_error" in proc.stdout and "FAILED" not in proc.stdout
