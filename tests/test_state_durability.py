"""The embedded controller's durable state: every acknowledged change survives any order of
crashes (SIGKILL) and clean stops (SIGTERM), with REST changes and packet-in session setups in
between; a missing, empty, truncated or damaged state file stops the controller with one line
naming the file and the way on, never a silent empty start; --restore-backup and --empty-state
do what they say.

Acknowledged means: a REST change answered 201/200, or a session setup whose first packet left
the switch translated (the controller sends it back only after the setup is durable)."""
import copy
import http.client
import ipaddress
import os
import random
import signal
import subprocess
import threading
import time

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

from harness import netns
from harness.dataplane import Dataplane
from harness.p4rt import P4RuntimeClient, p4runtime_pb2
from switch_process import SwitchProcess
from test_rest_api import CONFIG, CONTROLLER, Controller

ROUTER_MAC, V6_HOST_MAC, V4_HOST_MAC = "00:00:00:00:b1:01", "00:00:00:00:00:06", "00:00:00:00:00:04"
V6_HOST, V4_SERVER = "2001:db8:1::5", "198.51.100.7"
POOL6 = "2001:db8:64::"

FABRIC = copy.deepcopy(CONFIG)
FABRIC["apps"]["org.nat64fabric.app"]["nat64"]["pool6"] = POOL6 + "/96"
FABRIC["devices"]["device:border1"]["nat64fabric"]["routes"] = [
    {"prefix": "2001:db8:1::/64", "port": 1, "nextHopMac": V6_HOST_MAC},
    {"prefix": "198.51.100.0/24", "port": 2, "nextHopMac": V4_HOST_MAC},
]


@pytest.fixture(scope="module")
def border():
    """One border softswitch: an IPv6 host behind port 1, an IPv4 server behind port 2."""
    if not CONTROLLER.exists():
        pytest.fail("bin/nat64fabric-controller is missing: run `make build` first (make test does)")
    netns.enter_private_namespace()
    for n in (1, 2):
        netns.delete_link(f"dsw{n}")
        netns.add_veth_pair(f"dsw{n}", f"dt{n}")
    switch = SwitchProcess({1: "dsw1", 2: "dsw2"}).start()
    dataplane = Dataplane({1: "dt1", 2: "dt2"})
    yield switch, dataplane
    dataplane.close()
    switch.stop()
    for n in (1, 2):
        netns.delete_link(f"dsw{n}")


def first_packet(sport):
    return (Ether(src=V6_HOST_MAC, dst=ROUTER_MAC) / IPv6(src=V6_HOST, dst=POOL6 + V4_SERVER) /
            UDP(sport=sport, dport=53) / b"durable?")


def wait_connected(api, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if api.call("GET", "/devices")[1]["devices"][0]["connected"]:
            return
        time.sleep(0.2)
    raise AssertionError("the switch did not connect to the controller")


def setups(dataplane, sports):
    """Sends each flow's first packet; the mappings of those that left the switch translated."""
    for sport in sports:
        dataplane.send(1, first_packet(sport))
    acked = {}
    deadline = time.time() + 10
    while len(acked) < len(sports) and time.time() < deadline:
        frame = dataplane.poll(2, timeout=max(0.0, deadline - time.time()))
        if frame is None:
            break
        p = Ether(frame)
        if IP in p and UDP in p and p[IP].dst == V4_SERVER and p[UDP].dport == 53:
            acked[p[UDP].sport] = p[IP].src      # keyed by the mapped port: the IPv6 one is gone
    return acked


def bib_state(api):
    status, body = api.call("GET", "/bib")
    assert status == 200, body
    return {(b["protocol"], b["ipv6Address"], b["ipv6Port"]): (b["ipv4Address"], b["ipv4Port"]) for b in body["bib"]}


def eamt_state(api):
    return {e["ipv4Prefix"]: e["ipv6Prefix"] for e in api.call("GET", "/eamt")[1]["eamt"]}


def test_every_acknowledged_change_survives_kills_and_clean_stops(border, tmp_path):
    switch, dataplane = border
    seed = int(os.environ.get("NAT64FABRIC_SEED", random.randrange(1 << 30)))
    controller = Controller(tmp_path, config=FABRIC, switch_port=switch.grpc_port)
    try:
        crash_and_stop_rounds(controller, dataplane, seed, tmp_path)
    finally:
        if controller.proc.poll() is None:
            controller.proc.kill()
            controller.proc.wait()


def test_a_controller_takes_a_switch_whose_last_primary_had_a_higher_election_id(border, tmp_path):
    """P4Runtime 5.3: a switch remembers the highest election_id it has seen. After a client above
    the controller's (an operator's debugging session) was primary and left, the controller asks
    again above it, says so, and programs the switch; its flows are set up."""
    switch, dataplane = border
    other = P4RuntimeClient(switch.address, device_id=1)
    other.election_id = p4runtime_pb2.Uint128(high=1, low=0)     # far above the controller's clock
    assert other.arbitrate().status.code == 0
    other.close()
    controller = Controller(tmp_path, config=FABRIC, switch_port=switch.grpc_port)
    api = controller.start()
    try:
        wait_connected(api)
        assert "arbitrating again above it" in (tmp_path / "controller.log").read_text()
        assert len(setups(dataplane, [41001])) == 1, "a flow set up by the controller that took the switch"
    finally:
        controller.stop()


def crash_and_stop_rounds(controller, dataplane, seed, tmp_path):
    rng = random.Random(seed)
    api = controller.start()
    eams, gone_eams, flows = {}, set(), {}       # what was acknowledged, and what was deleted
    static = {}
    history = []
    for round_ in range(10):
        wait_connected(api)
        # REST changes, each acknowledged before the next
        for i in range(rng.randrange(1, 4)):
            n = len(history) * 4 + i
            v4, v6 = f"198.18.{n // 256}.{n % 256}/32", str(ipaddress.ip_network(f"2001:db8:e::{n:x}/128"))
            status, body = api.call("POST", "/eamt", {"ipv6Prefix": v6, "ipv4Prefix": v4})
            assert status == 201, body
            eams[v4] = v6
        if eams and rng.random() < 0.5:
            v4 = rng.choice(sorted(eams))
            assert api.call("DELETE", f"/eamt?ipv4Prefix={v4}")[0] == 200
            del eams[v4]
            gone_eams.add(v4)
        port = 2000 + len(history)
        status, body = api.call("POST", "/bib", {"protocol": "TCP", "ipv6Address": "2001:db8:1::77",
                                                 "ipv6Port": port, "ipv4Address": "192.0.2.2", "ipv4Port": port})
        assert status == 201, body
        static[("TCP", "2001:db8:1::77", port)] = ("192.0.2.2", port)
        # packet-in setups: what left translated is acknowledged
        sports = [10000 + round_ * 10 + k for k in range(3)]
        acked = setups(dataplane, sports)
        assert acked, f"round {round_}: no session was set up (seed {seed})"
        bib = bib_state(api)
        for sport in sports:
            key = ("UDP", V6_HOST, sport)
            if key in bib and acked.get(bib[key][1]) == bib[key][0]:
                flows[key] = bib[key]
        # changes still in flight when the controller goes down: no promise either way
        stop_now = threading.Event()

        def churn():
            k = 0
            while not stop_now.is_set():
                k += 1
                v4 = f"198.19.{round_}.{k % 256}/32"
                v6 = str(ipaddress.ip_network(f"2001:db8:f:{round_:x}::{k:x}/128"))
                try:
                    status, _ = api.call("POST", "/eamt", {"ipv6Prefix": v6, "ipv4Prefix": v4})
                    if status == 201:
                        eams[v4] = v6
                except (OSError, http.client.HTTPException):
                    return      # the controller went down, perhaps in the middle of an answer
        t = threading.Thread(target=churn)
        t.start()
        time.sleep(rng.uniform(0, 0.3))
        how = rng.choice(["kill", "term"])
        controller.proc.send_signal(signal.SIGKILL if how == "kill" else signal.SIGTERM)
        controller.proc.wait(timeout=30)
        stop_now.set()
        t.join()
        history.append(how)
        api = controller.start()
        after_bib, after_eamt = bib_state(api), eamt_state(api)
        where = f"after {' '.join(history)} (seed {seed}; log {tmp_path / 'controller.log'})"
        for v4, v6 in eams.items():
            assert after_eamt.get(v4) == v6, f"EAM {v4} lost {where}"
        for v4 in gone_eams:
            assert v4 not in after_eamt, f"deleted EAM {v4} came back {where}"
        for key, mapping in {**static, **flows}.items():
            assert after_bib.get(key) == mapping, f"BIB {key} -> {mapping} lost {where}"
    assert flows, f"no packet-in setup was acknowledged (seed {seed})"


# ---- damaged state files ---------------------------------------------------------------------

def run_controller(controller, *extra, timeout=60):
    """Starts the controller; (exit code, output) if it exits within a few seconds, else None (running)."""
    proc = subprocess.Popen(controller.command(*extra), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


@pytest.fixture
def used_state(tmp_path):
    """A state directory with EAMs in it, its controller stopped cleanly."""
    if not CONTROLLER.exists():
        pytest.fail("bin/nat64fabric-controller is missing: run `make build` first (make test does)")
    controller = Controller(tmp_path)
    api = controller.start()
    for n in range(50):
        assert api.call("POST", "/eamt", {"ipv6Prefix": f"2001:db8:d::{n:x}/128",
                                          "ipv4Prefix": f"198.18.1.{n}/32"})[0] == 201
    controller.stop()
    yield controller, tmp_path / "state" / "nat64.db"
    if controller.proc.poll() is None:          # a test that failed before stopping it
        controller.proc.kill()
        controller.proc.wait()


def damage(kind, db):
    size = db.stat().st_size
    if kind == "deleted":
        db.unlink()
    elif kind == "empty":
        db.write_bytes(b"")
    elif kind == "truncated":
        os.truncate(db, size // 2)
    elif kind == "header":
        with open(db, "r+b") as f:
            f.write(b"\xde\xad\xbe\xef" * 8)
    elif kind == "tail":
        with open(db, "r+b") as f:
            f.seek(size // 2)
            f.write(os.urandom(size - size // 2))


@pytest.mark.parametrize("kind", ["deleted", "empty", "truncated", "header", "tail"])
def test_a_damaged_state_file_stops_the_controller_with_one_line(used_state, kind):
    controller, db = used_state
    damage(kind, db)
    result = run_controller(controller, timeout=30)
    assert result is not None, f"the controller started on a {kind} state file"
    code, out = result
    assert code == 2, out
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("nat64fabric-controller: ") and str(db) in lines[0], out
    assert "--restore-backup" in lines[0] and "--empty-state" in lines[0], out
    assert "Exception" not in out and "\tat " not in out, out


def test_restore_backup_brings_back_the_last_good_copy(used_state):
    controller, db = used_state
    damage("truncated", db)
    api = controller.start("--restore-backup")
    assert len(api.call("GET", "/eamt")[1]["eamt"]) == 51     # 50 added + the configuration's one
    assert list(db.parent.glob("nat64.db.damaged-*")), "the damaged file is kept aside"
    controller.stop()


def test_a_damaged_backup_leads_to_empty_state_not_round_again(used_state):
    """--restore-backup from a backup damaged too: the one line says so and names --empty-state,
    not --restore-backup again."""
    controller, db = used_state
    damage("header", db.parent / "nat64.db.bak")
    damage("truncated", db)
    result = run_controller(controller, "--restore-backup", timeout=30)
    assert result is not None, "the controller started on a damaged backup"
    code, out = result
    lines = [line for line in out.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and "damaged too" in lines[0], out
    assert "--empty-state" in lines[0] and "--restore-backup" not in lines[0], out


def test_empty_state_starts_empty_and_keeps_the_damaged_file(used_state):
    controller, db = used_state
    damage("empty", db)
    api = controller.start("--empty-state")
    assert api.call("GET", "/eamt")[1]["eamt"] == [{"ipv6Prefix": "2001:db8:6::/120",
                                                    "ipv4Prefix": "198.18.6.0/24"}]
    assert list(db.parent.glob("nat64.db.damaged-*"))
    controller.stop()


def test_empty_state_keeps_the_previous_backup_aside(used_state):
    controller, db = used_state
    good_backup = (db.parent / "nat64.db.bak").read_bytes()
    damage("header", db)
    controller.start("--empty-state")
    controller.stop()
    kept = list(db.parent.glob("nat64.db.bak.before-empty-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == good_backup


def test_a_refused_start_leaves_the_files_as_they_were(used_state):
    """A damaged file with a write-ahead log beside it (a crash): the refusing start reads it
    read-only, so the log is not copied into the file nor deleted, and --restore-backup sets aside
    exactly what was damaged."""
    controller, db = used_state
    api = controller.start()
    assert api.call("POST", "/eamt", {"ipv6Prefix": "2001:db8:e::/128", "ipv4Prefix": "198.18.2.1/32"})[0] == 201
    controller.proc.kill()
    controller.proc.wait()
    damage("truncated", db)
    wal = db.parent / "nat64.db-wal"
    before = db.read_bytes(), wal.read_bytes()
    result = run_controller(controller, timeout=30)
    assert result is not None and result[0] == 2, result
    assert (db.read_bytes(), wal.read_bytes()) == before, "the refused start changed the files"


def test_a_lost_write_ahead_log_after_a_crash_is_refused(used_state):
    """After SIGKILL the last commits live in nat64.db-wal; without it they would be silently gone."""
    controller, db = used_state
    api = controller.start()
    assert api.call("POST", "/eamt", {"ipv6Prefix": "2001:db8:e::/128", "ipv4Prefix": "198.18.2.1/32"})[0] == 201
    controller.proc.kill()
    controller.proc.wait()
    wal = db.parent / "nat64.db-wal"
    assert wal.exists()
    wal.unlink()
    result = run_controller(controller, timeout=30)
    assert result is not None and result[0] == 2, result
    lines = [line for line in result[1].splitlines() if line.startswith("nat64fabric-controller: ")]
    assert len(lines) == 1 and "write-ahead log" in lines[0] and "--restore-backup" in lines[0], result[1]


def test_state_of_an_earlier_version_is_refused_not_ignored(used_state):
    controller, db = used_state
    (db.parent / "nat64.mv").write_bytes(b"H:2,block:1")
    result = run_controller(controller, timeout=30)
    assert result is not None and result[0] == 2, result
    assert "nat64.mv" in result[1] and "earlier version" in result[1], result[1]


def test_a_second_controller_on_the_same_state_is_refused(used_state):
    controller, db = used_state
    controller.start()
    try:
        result = run_controller(controller, timeout=30)
    finally:
        controller.stop()
    assert result is not None and result[0] == 2 and "in use by another controller" in result[1], result


def test_a_full_disk_refuses_changes_until_it_has_room_again(tmp_path):
    """docs/rest.md, "When the disk fails": a change the disk cannot take is 503 naming `state`; once
    the disk has room, the next change is made and kept, with no restart."""
    state = tmp_path / "state"
    state.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(state)], check=True)
    controller = Controller(tmp_path)
    try:
        api = controller.start()
        filler = state / "filler"
        subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"], capture_output=True)
        eam = lambda n: {"ipv6Prefix": f"2001:db8:f::{n:x}/128", "ipv4Prefix": f"198.18.{n // 256}.{n % 256}/32"}
        answers = [api.call("POST", "/eamt", eam(n)) for n in range(60)]
        refused = [body for status, body in answers if status == 503]
        assert refused and all(body["field"] == "state" for body in refused), answers
        filler.unlink()
        assert api.call("POST", "/eamt", eam(1000))[0] == 201, "the disk has room again"
        kept = {e["ipv6Prefix"] for e in api.call("GET", "/eamt")[1]["eamt"]}
        controller.stop()
        api = controller.start()
        assert {e["ipv6Prefix"] for e in api.call("GET", "/eamt")[1]["eamt"]} == kept
        assert "2001:db8:f::3e8/128" in kept
    finally:
        if controller.proc and controller.proc.poll() is None:
            controller.proc.kill()
            controller.proc.wait()
        subprocess.run(["umount", str(state)], check=False)
