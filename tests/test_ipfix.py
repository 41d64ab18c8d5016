"""NAT events exported as IPFIX (RFC 7011 over UDP, RFC 8158 templates): the embedded controller
sends them to a collector on loopback, and Wireshark's own IPFIX dissector (tshark's cflow, an
independent decoder) reads the capture. Checked: templates first and again at each refresh, the
natEvent values of RFC 8158, the elements of each record, sequence numbers (RFC 7011 3.1: data
records sent before the message), the observation domain, and the exporter's counters."""
import base64
import datetime
import ipaddress
import json
import shutil
import socket
import subprocess
import threading
import time
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import ICMPv6EchoRequest
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import wrpcap

from harness import netns
from nat64_setup import (POOL6, PROGRAM, ROUTER_MAC, V4_HOST_MAC, V4_PORT, V4_SERVER, V6_HOST, V6_HOST_MAC, V6_PORT,
                         driven_switch, embed, from_v6_host)

COLLECTOR_PORT = 4739
DOMAIN = 4242
REFRESH_SECONDS = 2
POOL4 = ipaddress.ip_network("192.0.2.8/30")
MAX_SESSIONS = 3
FABRIC = {
    "apps": {"org.nat64fabric.app": {"nat64": {
        "pool6": POOL6 + "/96",
        "pool4": {"addresses": [str(POOL4)], "blockSize": 64, "blocksPerSubscriber": 4},
        "maxSessionsPerSubscriber": MAX_SESSIONS,
        "ipfix": {"collector": "127.0.0.1", "port": COLLECTOR_PORT, "observationDomainId": DOMAIN,
                  "templateRefreshSeconds": REFRESH_SECONDS},
    }}},
    "devices": {"device:border1": {
        "basic": {"managementAddress": "grpc://127.0.0.1:{port}?device_id=1"},
        "nat64fabric": {"role": "BORDER", "routerMac": ROUTER_MAC, "ipv4": "192.0.2.1", "ipv6": "2001:db8:1::1",
                        "routes": [{"prefix": "2001:db8:1::/64", "port": V6_PORT, "nextHopMac": V6_HOST_MAC},
                                   {"prefix": "198.51.100.0/24", "port": V4_PORT, "nextHopMac": V4_HOST_MAC}]}}},
}
# RFC 8158 4.1.1
NAT64_SESSION_CREATE, NAT64_SESSION_DELETE, NAT64_BIB_CREATE, NAT64_BIB_DELETE = 6, 7, 10, 11
QUOTA_EXCEEDED, PORT_BLOCK_ALLOCATION = 13, 16


class Collector:
    """Takes every datagram sent to COLLECTOR_PORT on loopback, as a collector would."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", COLLECTOR_PORT))
        self.sock.settimeout(0.2)
        self.datagrams = []          # (arrival time, source port, payload)
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while self.running:
            try:
                data, (_, port) = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            self.datagrams.append((time.time(), port, data))

    def close(self):
        self.running = False
        self.thread.join()
        self.sock.close()

    def decode(self, pcap):
        """The datagrams so far, written to a pcap and dissected by tshark: one dict per IPFIX message."""
        frames = [Ether() / IP(src="127.0.0.1", dst="127.0.0.1") / UDP(sport=port, dport=COLLECTOR_PORT) / Raw(data)
                  for _, port, data in list(self.datagrams)]
        for f, (when, _, _) in zip(frames, self.datagrams):
            f.time = when
        wrpcap(str(pcap), frames)
        out = subprocess.run(["tshark", "-r", str(pcap), "-d", f"udp.port=={COLLECTOR_PORT},cflow", "-T", "json"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return [p["_source"]["layers"]["cflow"] for p in json.loads(out.stdout)]


@pytest.fixture(scope="module")
def fabric(tmp_path_factory):
    if shutil.which("tshark") is None:
        pytest.fail("tshark is missing: `make deps` installs it (Debian's tshark, Wireshark's IPFIX dissector)")
    tmp = tmp_path_factory.mktemp("ipfix")
    netns.enter_private_namespace()      # before the collector's thread, and the controller inside it
    collector = Collector()
    try:
        with driven_switch(tmp, PROGRAM, FABRIC, "x") as (api, dataplane, log):
            yield api, dataplane, log, collector, tmp
    finally:
        collector.close()


def flow(dataplane, log, l4):
    """Sends from the IPv6 host until the translation leaves on the IPv4 side (the first may beat the entries)."""
    for _ in range(10):
        dataplane.send(V6_PORT, from_v6_host(l4))
        out = dataplane.poll(V4_PORT, timeout=1)
        if out is not None:
            return Ether(out)
    raise AssertionError(log.read_text()[-3000:])


def sets(message):
    """The message's sets as tshark shows them: a list (one set) or a dict."""
    found = []
    for key, value in message.items():
        if key.startswith("FlowSet") or key.startswith("Set "):
            found.extend(value if isinstance(value, list) else [value])
    return found


def records(message):
    """The message's data records: dicts of cflow fields."""
    out = []
    for s in sets(message):
        if int(s["cflow.flowset_id"]) >= 256:
            flows = [v for k, v in s.items() if k.startswith("Flow ")]
            out.extend(flows)
    return out


def template_ids(message):
    ids = []
    for s in sets(message):
        if int(s["cflow.flowset_id"]) == 2:
            for k, v in s.items():
                if k.startswith("Template"):
                    for t in (v if isinstance(v, list) else [v]):
                        ids.append(int(t["cflow.template_id"]))
    return ids


def stats(api):
    return api.call("GET", "/stats")[1]


def millis(shown):
    """tshark's dateTimeMilliseconds ("Nov 24, 2026 09:11:09.016000000 UTC") as milliseconds since the epoch."""
    text, nanos = shown.removesuffix(" UTC").split(".")
    when = datetime.datetime.strptime(text, "%b %d, %Y %H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    return int(when.timestamp()) * 1000 + int(nanos) // 1_000_000


def test_nat_events_reach_the_collector_as_rfc_8158_records(fabric):
    api, dataplane, log, collector, tmp = fabric
    started_ms = time.time() * 1000
    udp = flow(dataplane, log, UDP(sport=5000, dport=53) / b"query")
    mapped, mapped_port = udp[IP].src, udp[UDP].sport
    flow(dataplane, log, ICMPv6EchoRequest(id=77, seq=1))
    flow(dataplane, log, UDP(sport=5001, dport=53) / b"query")
    # a fourth session is over the subscriber's quota: refused, and logged
    dataplane.send(V6_PORT, from_v6_host(UDP(sport=5002, dport=53) / b"query"))
    assert dataplane.poll(V4_PORT, timeout=1) is None
    status, _ = api.call("DELETE", f"/bib/UDP/{V6_HOST}/5000")   # its session goes with it
    assert status == 200
    # 2 port blocks, 3 BIB entries, 3 sessions, 1 quota, then 1 session and 1 BIB entry deleted
    deadline = time.time() + 15
    while (stats(api).get("ipfix.exported", 0) < 11 or not collector.datagrams
           or time.time() < collector.datagrams[0][0] + 2.5 * REFRESH_SECONDS):   # and two template refreshes
        assert time.time() < deadline, stats(api)
        time.sleep(0.3)
    ended_ms = time.time() * 1000

    messages = collector.decode(tmp / "ipfix.pcap")
    for m in messages:
        assert int(m["cflow.version"]) == 10
        assert int(m["cflow.od_id"]) == DOMAIN
        assert started_ms // 1000 - 10 <= int(m["cflow.timestamp_tree"]["cflow.exporttime"]) <= ended_ms // 1000
    assert template_ids(messages[0]) == [256, 257, 258, 259, 260, 261], "every template first"
    refreshes = [m for m in messages if template_ids(m)]
    assert len(refreshes) >= 2, "templates sent again every templateRefreshSeconds"
    # RFC 7011 3.1: the sequence number counts the data records sent before the message
    sent = 0
    for m in messages:
        assert int(m["cflow.sequence"]) == sent, m
        sent += len(records(m))

    all_records = [r for m in messages for r in records(m)]
    by_event = {}
    for r in all_records:
        assert started_ms - 1 <= millis(r["cflow.observation_time_milliseconds"]) <= ended_ms, r
        by_event.setdefault(int(r["cflow.nat_event"]), []).append(r)
    assert sorted(by_event) == sorted([NAT64_SESSION_CREATE, NAT64_SESSION_DELETE, NAT64_BIB_CREATE,
                                       NAT64_BIB_DELETE, QUOTA_EXCEEDED, PORT_BLOCK_ALLOCATION]), by_event.keys()

    def bib_of(r, destination=False):
        assert destination or "cflow.dstaddrv6" not in r, "a BIB record has no destination"
        return (r["cflow.protocol"], r["cflow.srcaddrv6"], r["cflow.srcport"], r["cflow.post_natsource_ipv4_address"],
                r["cflow.post_naptsource_transport_port"])

    def session_of(r):
        return bib_of(r, destination=True) + (r["cflow.dstaddrv6"], r["cflow.post_natdestination_ipv4_address"],
                                              r["cflow.dstport"], r["cflow.post_naptdestination_transport_port"])

    server6 = embed(V4_SERVER, POOL6, 96)
    first = ("17", V6_HOST, "5000", mapped, str(mapped_port), server6, V4_SERVER, "53", "53")
    sessions = [session_of(r) for r in by_event[NAT64_SESSION_CREATE]]
    assert first in sessions and len(sessions) == 3, sessions
    icmp = [s for s in sessions if s[0] == "1"]
    assert len(icmp) == 1 and icmp[0][1:3] == (V6_HOST, "77") and icmp[0][5:7] == (server6, V4_SERVER), icmp
    assert [session_of(r) for r in by_event[NAT64_SESSION_DELETE]] == [first]

    bibs = [bib_of(r) for r in by_event[NAT64_BIB_CREATE]]
    assert sorted(b[:3] for b in bibs) == [("1", V6_HOST, "77"), ("17", V6_HOST, "5000"), ("17", V6_HOST, "5001")]
    assert all(ipaddress.ip_address(b[3]) in POOL4 for b in bibs)
    assert [bib_of(r) for r in by_event[NAT64_BIB_DELETE]] == [first[:5]]

    blocks = by_event[PORT_BLOCK_ALLOCATION]
    assert sorted(b["cflow.protocol"] for b in blocks) == ["1", "17"]
    for b in blocks:
        assert b["cflow.srcaddrv6"] == V6_HOST and ipaddress.ip_address(b["cflow.post_natsource_ipv4_address"]) in POOL4
        start, end = int(b["cflow.port_range_start"]), int(b["cflow.port_range_end"])
        assert end - start + 1 == int(b["cflow.port_range_num_ports"]) == 64
        assert int(b["cflow.port_range_step_size"]) == 1
    udp_block = next(b for b in blocks if b["cflow.protocol"] == "17")
    assert int(udp_block["cflow.port_range_start"]) <= mapped_port <= int(udp_block["cflow.port_range_end"])

    quota = by_event[QUOTA_EXCEEDED][0]
    assert quota["cflow.srcaddrv6"] == V6_HOST
    assert int(quota["cflow.nat_quota_exceeded_event"]) == 3, "RFC 8158 4.1.2: maximum entries per user"
    assert int(quota["cflow.max_entries_per_user"]) == MAX_SESSIONS

    final = stats(api)
    assert final["ipfix.exported"] == len(all_records) and final["ipfix.dropped"] == 0, final
    assert final["ipfix.sendFailed"] == 0, final
    # every message sent reached the collector; a template refresh may leave between the capture and this read
    assert len(messages) <= final["ipfix.messages"] <= len(messages) + 1, final


def test_the_exporter_counts_show_in_metrics(fabric):
    api, dataplane, log, _, _ = fabric
    before = stats(api)["ipfix.exported"]
    flow(dataplane, log, UDP(sport=6000, dport=53) / b"query")     # a BIB entry and a session at least
    deadline = time.time() + 10
    while stats(api)["ipfix.exported"] < before + 2:
        assert time.time() < deadline, stats(api)
        time.sleep(0.2)
    req = urllib.request.Request(api.url + "/metrics")
    req.add_header("Authorization", "Basic " + base64.b64encode(api.user.encode()).decode())
    with urllib.request.urlopen(req, timeout=30) as r:
        families = {f.name: f for f in text_string_to_metric_families(r.read().decode())}
    samples = {s.labels["outcome"]: s.value for s in families["nat64fabric_ipfix_records"].samples
               if s.name == "nat64fabric_ipfix_records_total"}
    assert samples["exported"] == stats(api)["ipfix.exported"] >= before + 2
    assert samples["dropped"] == 0 and samples["sendFailed"] == 0


def test_a_bad_ipfix_section_stops_the_controller_with_the_field_named(tmp_path):
    from test_rest_api import Controller
    config = json.loads(json.dumps(FABRIC))
    config["apps"]["org.nat64fabric.app"]["nat64"]["ipfix"] = {"collector": "collector.example", "port": 4739}
    out = subprocess.run(Controller(tmp_path, config=config).command(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out
    assert "fabric.json: apps.org.nat64fabric.app.nat64.ipfix.collector: 'collector.example' is not an IP address" \
        in out.stderr, out.stderr
    assert "Exception" not in out.stderr and "\tat " not in out.stderr, "no stack trace"
