"""What an operator sees of the data plane while it runs: the embedded controller polls the switch's
counters over P4Runtime (drops and punts by reason, ICMP errors sent, translations by direction,
hits per table) and shows them, with rates, in GET .../stats and, in the Prometheus text format, in
GET .../metrics, which this suite parses with the Prometheus project's own Python client."""
import base64
import re
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from conftest import ROOT
from nat64_setup import (POOL6, PROGRAM, ROUTER_MAC, V4_HOST_MAC, V4_PORT, V6_HOST_MAC, V6_PORT,
                         driven_switch, from_v4_server, from_v6_host)

DEVICE = "device:border1"
FABRIC = {
    "apps": {"org.nat64fabric.app": {"nat64": {
        "pool6": POOL6 + "/96",
        "pool4": {"addresses": ["192.0.2.8/30"], "udpPorts": [1024, 65535], "blockSize": 64, "blocksPerSubscriber": 4},
    }}},
    "devices": {DEVICE: {
        "basic": {"managementAddress": "grpc://127.0.0.1:{port}?device_id=1"},
        "nat64fabric": {"role": "BORDER", "routerMac": ROUTER_MAC, "ipv4": "192.0.2.1", "ipv6": "2001:db8:1::1",
                        "routes": [{"prefix": "2001:db8:1::/64", "port": V6_PORT, "nextHopMac": V6_HOST_MAC},
                                   {"prefix": "198.51.100.0/24", "port": V4_PORT, "nextHopMac": V4_HOST_MAC}]}}},
}


@pytest.fixture(scope="module")
def fabric(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("observability")
    with driven_switch(tmp, PROGRAM, FABRIC, "o", "--counter-poll-seconds", "1") as running:
        yield running


def metrics(api):
    req = urllib.request.Request(api.url + "/metrics")
    req.add_header("Authorization", "Basic " + base64.b64encode(api.user.encode()).decode())
    with urllib.request.urlopen(req, timeout=30) as r:
        kind, *params = [p.strip() for p in r.headers["Content-Type"].split(";")]
        assert kind == "text/plain" and "version=0.0.4" in params, r.headers["Content-Type"]
        return {f.name: f for f in text_string_to_metric_families(r.read().decode())}


def sample(families, family, name, **labels):
    found = [s.value for s in families[family].samples if s.name == name
             and all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(found) == 1, (name, labels, [s for s in families[family].samples if s.name == name])
    return found[0]


@pytest.fixture(scope="module")
def counted(fabric):
    """Traffic the counters count: three flows out and four answers (translations, punts, table
    hits), two packets with a bad checksum (drops), two expiring ones (ICMP errors sent); the
    stats once the counter poll saw it all."""
    api, dataplane, log = fabric
    out = None
    for sport in range(5000, 5003):      # three flows: three punts, three setups, three translations
        for _ in range(10):              # as a host resends: the first may beat the base entries
            dataplane.send(V6_PORT, from_v6_host(UDP(sport=sport, dport=53) / b"query"))
            out = dataplane.poll(V4_PORT, timeout=1)
            if out is not None:
                break
        assert out is not None, log.read_text()[-3000:]
    mapped, port = Ether(out)[IP].src, Ether(out)[UDP].sport
    for _ in range(4):                   # answers of the last flow: translated 4 to 6
        dataplane.send(V4_PORT, from_v4_server(UDP(sport=53, dport=port) / b"answer", dst=mapped))
    bad = bytearray(bytes(from_v4_server(UDP(sport=53, dport=port) / b"x", dst=mapped)))
    bad[24] ^= 0xff                      # the IPv4 header checksum
    for _ in range(2):
        dataplane.send(V4_PORT, bytes(bad))
    for _ in range(2):                   # expiring here: the switch answers Time Exceeded itself
        dataplane.send(V6_PORT, from_v6_host(UDP(sport=5000, dport=53) / b"late", hlim=1))
    deadline = time.time() + 10
    key = f"dataplane.{DEVICE}."
    while True:
        stats = api.call("GET", "/stats")[1]
        if (stats.get(key + "translations.4to6_stateful", 0) >= 4 and stats.get(key + "drops.bad_checksum", 0) >= 2
                and stats.get(key + "icmpErrorsSent.time_exceeded", 0) >= 2):
            break
        assert time.time() < deadline, {k: v for k, v in stats.items() if k.startswith("dataplane")}
        time.sleep(0.3)
    return stats


def test_data_plane_counters_reach_stats_and_metrics(fabric, counted):
    api, _, _ = fabric
    stats, key = counted, f"dataplane.{DEVICE}."
    assert stats[key + "translations.6to4_stateful"] >= 3
    assert stats[key + "translations.4to6_stateful"] == 4
    assert stats[key + "translations.4to6_stateful.bytes"] >= 4 * 40
    assert stats[key + "drops.bad_checksum"] == 2
    assert stats[key + "icmpErrorsSent.time_exceeded"] == 2
    assert stats[key + "punts.session_miss"] >= 3
    assert stats[key + "tableHits.Nat64Ingress.ipv4_routes"] >= 3
    assert stats["dataplane.fabric.drops.bad_checksum"] == 2, "one switch: the fabric's sum is its count"
    assert f"{key}translations.4to6_stateful.perSecond" in stats

    families = metrics(api)
    assert families["nat64fabric_dataplane_drops_packets"].type == "counter"
    assert sample(families, "nat64fabric_dataplane_drops_packets", "nat64fabric_dataplane_drops_packets_total",
                  device=DEVICE, reason="bad_checksum") == 2
    assert sample(families, "nat64fabric_dataplane_drops_packets", "nat64fabric_dataplane_drops_packets_total",
                  device=DEVICE, reason="no_route") == 0, "named cells are series from the start"
    assert sample(families, "nat64fabric_dataplane_icmp_errors_sent_packets",
                  "nat64fabric_dataplane_icmp_errors_sent_packets_total", device=DEVICE, type="time_exceeded") == 2
    assert sample(families, "nat64fabric_dataplane_table_hits_packets", "nat64fabric_dataplane_table_hits_packets_total",
                  device=DEVICE, table="Nat64Ingress.ipv4_routes") >= 3
    assert sample(families, "nat64fabric_dataplane_translations_packets",
                  "nat64fabric_dataplane_translations_packets_total", device=DEVICE, kind="4to6_stateful") == 4
    assert sample(families, "nat64fabric_dataplane_punts_packets", "nat64fabric_dataplane_punts_packets_total",
                  device=DEVICE, reason="session_miss") >= 3
    assert sample(families, "nat64fabric_sessions", "nat64fabric_sessions", protocol="udp") == 3
    assert sample(families, "nat64fabric_bib_entries", "nat64fabric_bib_entries", protocol="udp") == 3
    assert sample(families, "nat64fabric_sessions", "nat64fabric_sessions", protocol="tcp") == 0
    # one subscriber, one UDP block of 64 ports; pool4 is 4 addresses times the ports 1024-65535
    assert sample(families, "nat64fabric_port_blocks", "nat64fabric_port_blocks", protocol="udp") == 1
    assert sample(families, "nat64fabric_pool4_ports_in_blocks", "nat64fabric_pool4_ports_in_blocks",
                  protocol="udp") == 64
    assert sample(families, "nat64fabric_pool4_ports", "nat64fabric_pool4_ports", protocol="udp") == 4 * 64512
    assert sample(families, "nat64fabric_switch_connected", "nat64fabric_switch_connected",
                  device=DEVICE, role="BORDER") == 1
    assert sample(families, "nat64fabric_setups", "nat64fabric_setups_total", outcome="translated") >= 3
    assert sample(families, "nat64fabric_packet_ins", "nat64fabric_packet_ins_total", reason="session_miss") >= 3
    # the setup latency histogram: cumulative buckets ending at +Inf = count
    h = families["nat64fabric_setup_latency_seconds"]
    assert h.type == "histogram"
    total = [s for s in h.samples if s.labels.get("stage") == "total"]
    buckets = [s for s in total if s.name.endswith("_bucket")]
    assert [s.value for s in buckets] == sorted(s.value for s in buckets), "cumulative"
    count = next(s.value for s in total if s.name.endswith("_count"))
    assert buckets[-1].labels["le"] == "+Inf" and buckets[-1].value == count >= 3


def test_metrics_need_the_credentials(fabric):
    api, _, _ = fabric
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(api.url + "/metrics", timeout=30)
    assert e.value.code == 401


def test_nat64ctl_stats_shows_each_switch_and_the_fabric(fabric, counted):
    """`nat64ctl stats`: the controller's counters, then a table of the data plane's, a column per
    switch and one for the fabric's sum, with rates."""
    api, _, _ = fabric
    stats = api.call("GET", "/stats")[1]
    out = subprocess.run([str(ROOT / "bin" / "nat64ctl"), "--url", api.url, "--user", api.user, "stats"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert any(line.split() == ["packetIn.1", str(stats["packetIn.1"])] for line in lines), out.stdout
    header = lines.index("data plane, as last polled: packets (per second since the poll before)")
    assert lines[header + 1].split() == ["counter", DEVICE, "fabric"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[header + 2:]}
    key = f"dataplane.{DEVICE}."
    for name in ("drops.bad_checksum", "icmpErrorsSent.time_exceeded", "translations.6to4_stateful",
                 "tableHits.Nat64Ingress.ipv4_routes"):
        # no traffic now: the counts stay; a rate may have fallen to 0 at a poll since
        count, rate, fabric_count, fabric_rate = rows[name]
        assert (count, fabric_count) == (str(stats[key + name]), str(stats[f"dataplane.fabric.{name}"])), out.stdout
        assert re.fullmatch(r"\(\d+/s\)", rate) and rate == fabric_rate, (name, out.stdout)
    assert not any(k.startswith("dataplane.") for line in lines[:header] for k in line.split()[:1])
