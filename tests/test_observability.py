"""What an operator sees of the data plane while it runs: the embedded controller polls the switch's
counters over P4Runtime (drops and punts by reason, ICMP errors sent, translations by direction,
hits per table) and shows them, with rates, in GET .../stats and, in the Prometheus text format, in
GET .../metrics, which this suite parses with the Prometheus project's own Python client."""
import base64
import time
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

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


def test_data_plane_counters_reach_stats_and_metrics(fabric):
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
    deadline = time.time() + 10
    key = f"dataplane.{DEVICE}."
    while True:
        stats = api.call("GET", "/stats")[1]
        if stats.get(key + "translations.4to6_stateful", 0) >= 4 and stats.get(key + "drops.bad_checksum", 0) >= 2:
            break
        assert time.time() < deadline, {k: v for k, v in stats.items() if k.startswith("dataplane")}
        time.sleep(0.3)

    assert stats[key + "translations.6to4_stateful"] >= 3
    assert stats[key + "translations.4to6_stateful"] == 4
    assert stats[key + "translations.4to6_stateful.bytes"] >= 4 * 40
    assert stats[key + "drops.bad_checksum"] == 2
    assert stats[key + "punts.session_miss"] >= 3
    assert stats[key + "tableHits.Nat64Ingress.ipv4_routes"] >= 3
    assert stats["dataplane.fabric.drops.bad_checksum"] == 2, "one switch: the fabric's sum is its count"
    assert f"{key}translations.4to6_stateful.perSecond" in stats

    families = metrics(api)
    assert families["nat64fabric_dataplane_drops_packets"].type == "counter"
    assert sample(families, "nat64fabric_dataplane_drops_packets", "nat64fabric_dataplane_drops_packets_total",
                  device=DEVICE, reason="bad_checksum") == 2
    assert sample(families, "nat64fabric_dataplane_drops_packets", "nat64fabric_dataplane_drops_packets_total",
                  device=DEVICE, reason="ttl_expired") == 0, "named cells are series from the start"
    assert sample(families, "nat64fabric_dataplane_translations_packets",
                  "nat64fabric_dataplane_translations_packets_total", device=DEVICE, kind="4to6_stateful") == 4
    assert sample(families, "nat64fabric_dataplane_punts_packets", "nat64fabric_dataplane_punts_packets_total",
                  device=DEVICE, reason="session_miss") >= 3
    assert sample(families, "nat64fabric_sessions", "nat64fabric_sessions", protocol="udp") == 3
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
