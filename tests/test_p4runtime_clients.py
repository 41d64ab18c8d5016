"""Other codebases' P4Runtime clients, from PyPI, starting up against softswitch as their users do:
finsy (connect as primary, set the pipeline, delete_all(), write, read back, delete_all() again) and
p4runtime-shell (setup(), table entry insert/read/modify/delete, default entry, multicast group,
packet-out to the CPU port coming back as a packet-in).

Each client needs its own protobuf (finsy 6.x, the shell the 3.x of our venv's `p4runtime` pin), so
each runs in a subprocess from a venv of its own, made once with pip under
$NAT64FABRIC_CLIENT_VENVS (default ~/.cache/nat64fabric/client-venvs). Without PyPI the tests are
skipped, saying so."""
import os
import pathlib
import subprocess
import tempfile
import textwrap
import time

import pytest

from harness import ROOT
from switch_process import SwitchProcess

PROGRAM = ROOT / "softswitch" / "examples" / "l3_forwarding.p4"
CLIENTS = {
    "finsy": ["finsy==0.30.0"],
    "p4runtime-shell": ["p4runtime-shell==0.0.6"],
}
VENVS = pathlib.Path(os.environ.get("NAT64FABRIC_CLIENT_VENVS",
                                    pathlib.Path.home() / ".cache" / "nat64fabric" / "client-venvs"))


def client_python(name):
    """The Python of a venv holding the client `name` (pinned), made on first use."""
    venv = VENVS / name
    stamp = venv / ".installed"
    wanted = " ".join(CLIENTS[name])
    if not stamp.exists() or stamp.read_text() != wanted:
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--clear", str(venv)], check=True, capture_output=True)
        for attempt in range(3):   # PyPI connections fail now and then; pip's own retries come within seconds
            pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                                  "--disable-pip-version-check", *CLIENTS[name]], capture_output=True, text=True, timeout=900)
            if pip.returncode == 0:
                break
            time.sleep(20)
        else:
            pytest.skip(f"cannot install {wanted} from PyPI into {venv}: {pip.stderr.strip()[-400:]}")
        stamp.write_text(wanted)
    return venv / "bin" / "python"


@pytest.fixture(scope="module")
def switch():
    """A softswitch with no ports (the clients talk P4Runtime only) and the program's pipeline files."""
    sw = SwitchProcess({}).start()
    try:
        p4info, device_config = sw.build_pipeline(PROGRAM, tempfile.mkdtemp(prefix="nat64fabric-clients-"))
        blob = p4info.parent / "device_config.bin"
        blob.write_bytes(device_config)
        yield sw, p4info, blob
    finally:
        sw.stop()


def run_client(name, script, switch, tmp_path):
    sw, p4info, blob = switch
    path = tmp_path / f"{name}_startup.py"
    path.write_text(textwrap.dedent(script))
    proc = subprocess.run([str(client_python(name)), str(path), sw.address, str(p4info), str(blob)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and f"{name} ok" in proc.stdout, \
        f"{name} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}\nswitch log:\n{sw.log_text()[-2000:]}"
    return proc.stdout


FINSY = """
    import asyncio, sys
    from pathlib import Path
    import finsy as fy

    ADDR, P4INFO, BLOB = sys.argv[1:4]

    async def main():
        opts = fy.SwitchOptions(p4info=Path(P4INFO), p4blob=Path(BLOB), device_id=1, initial_election_id=20)
        async with fy.Switch("sw1", ADDR, opts) as sw:
            assert sw.is_primary, "finsy did not become primary"
            # delete_all() reads every kind of entity by wildcard, action profiles included.
            await asyncio.wait_for(sw.delete_all(), 10)
            await sw.insert([
                fy.P4TableEntry("ipv4_lpm", match=fy.P4TableMatch({"hdr.ipv4.dst_addr": "10.9.0.0/16"}),
                                action=fy.P4TableAction("set_next_hop_v4", port=2, src_mac="00:00:00:00:0a:01",
                                                        dst_mac="00:00:00:00:00:02")),
                fy.P4MulticastGroupEntry(5, replicas=[(2, 1), (3, 1)]),
            ])
            await sw.modify([fy.P4TableEntry("ipv4_lpm", action=fy.P4TableAction("send_to_cpu"),
                                             is_default_action=True)])
            routes = [e async for e in sw.read(fy.P4TableEntry("ipv4_lpm"))]
            groups = [e async for e in sw.read(fy.P4MulticastGroupEntry())]
            assert [(e.action.name, e.action.args["port"]) for e in routes] == [("set_next_hop_v4", 2)], routes
            assert [(g.multicast_group_id, len(g.replicas)) for g in groups] == [(5, 2)], groups
            await asyncio.wait_for(sw.delete_all(), 10)
            assert [e async for e in sw.read(fy.P4TableEntry())] == []
            assert [e async for e in sw.read(fy.P4MulticastGroupEntry())] == []
            (dflt,) = [e async for e in sw.read(fy.P4TableEntry("ipv4_lpm", is_default_action=True))]
            assert dflt.action.name == "drop", "delete_all() resets default entries to the program's"
            print("finsy ok, P4Runtime", sw.p4runtime_version)

    asyncio.run(main())
"""


def test_finsy_starts_up_deletes_all_writes_and_reads_back(switch, tmp_path):
    run_client("finsy", FINSY, switch, tmp_path)


SHELL = """
    import os, sys
    import p4runtime_sh.shell as sh

    ADDR, P4INFO, BLOB = sys.argv[1:4]
    sh.setup(device_id=1, grpc_addr=ADDR, election_id=(0, 30), config=sh.FwdPipeConfig(P4INFO, BLOB), verbose=False)
    te = sh.TableEntry("L3Ingress.ipv4_lpm")(action="L3Ingress.set_next_hop_v4")
    te.match["hdr.ipv4.dst_addr"] = "10.7.0.0/16"
    te.action["port"] = "3"
    te.action["src_mac"] = "00:00:00:00:0a:01"
    te.action["dst_mac"] = "00:00:00:00:00:02"
    te.insert()
    read = list(sh.TableEntry("L3Ingress.ipv4_lpm").read())
    assert len(read) == 1 and read[0].action["port"].value == b"\\x03", read
    te.action["port"] = "4"
    te.modify()
    assert list(sh.TableEntry("L3Ingress.ipv4_lpm").read())[0].action["port"].value == b"\\x04"
    sh.TableEntry("L3Ingress.ipv4_lpm")(action="L3Ingress.send_to_cpu", is_default=True).modify()
    sh.MulticastGroupEntry(6).add(2, 1).add(3, 1).insert()
    (group,) = sh.MulticastGroupEntry(6).read()
    assert [r._msg.egress_port for r in group.replicas] == [2, 3], group
    packet_in = sh.PacketIn()
    frame = bytes.fromhex("ffffffffffff0000000000010806") + b"hello"
    # out to the CPU port: back as a packet-in (every field of packet_out is given, P4Runtime 16.1)
    sh.PacketOut(frame, egress_port="255", _pad="0").send()
    got = list(packet_in.sniff(timeout=5))
    assert [m.packet.payload for m in got] == [frame], got
    te.delete()
    assert list(sh.TableEntry("L3Ingress.ipv4_lpm").read()) == []
    print("p4runtime-shell ok")
    sys.stdout.flush()
    os._exit(0)   # the shell's packet-in thread waits on the stream forever
"""


def test_p4runtime_shell_sets_up_writes_reads_and_exchanges_packets(switch, tmp_path):
    run_client("p4runtime-shell", SHELL, switch, tmp_path)
